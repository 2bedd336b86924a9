"""The README's promises: its test command is the one CI runs, and its demo output is real."""

from __future__ import annotations

from .helpers import REPO, run_cli


def test_ci_runs_the_readme_test_command() -> None:
    ci_lines = [line for line in (REPO / ".ci/run").read_text().splitlines() if line and not line.startswith("#")]
    command = ci_lines[-1]
    assert command.startswith("python3 -m venv .venv && ")
    assert f"```sh\n{command}\n```" in (REPO / "README.md").read_text()


def test_readme_prune_sample_is_what_the_demo_prints() -> None:
    readme = (REPO / "README.md").read_text()
    sample = readme.split("$ foundry --demo memory prune\n", 1)[1].split("```", 1)[0]
    assert run_cli("--demo", "--today", "2026-11-30", "memory", "prune").out == sample


def test_readme_waves_samples_are_what_the_demo_prints() -> None:
    readme = (REPO / "README.md").read_text()
    block = readme.split("$ foundry --demo blackboard waves\n", 1)[1].split("```", 1)[0]
    overview, one_wave = block.split("$ foundry --demo blackboard waves audit\n")
    assert run_cli("--demo", "blackboard", "waves").out == overview
    assert run_cli("--demo", "blackboard", "waves", "audit").out == one_wave


def test_readme_shows_screenshots_that_exist() -> None:
    readme = (REPO / "README.md").read_text()
    first_command = readme.split("```sh\n", 1)[1].split("\n```", 1)[0]
    assert first_command.endswith("foundry-tui --demo")
    shots = [line.split("](", 1)[1].split(")", 1)[0] for line in readme.splitlines() if "](screenshots/" in line]
    shots += [
        part.split(")", 1)[0]
        for line in readme.splitlines()
        for part in line.split("](")[1:]
        if part.startswith("screenshots/")
    ]
    assert shots and all((REPO / shot).is_file() for shot in shots)
