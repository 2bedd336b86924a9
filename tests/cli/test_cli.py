"""The `foundry` command line, run as a real subprocess: texts, exit codes, options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foundry_tui.demo import DEMO_SOURCE
from tests.helpers import run_cli

T = ("--today", "2026-11-30")


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_demo_prune_and_index_leave_the_package_untouched() -> None:
    before = _tree(DEMO_SOURCE)
    run = run_cli("--demo", *T, "memory", "prune")
    assert run.code == 0, run.err
    assert run.out.startswith(
        "Prune candidates (nothing is deleted automatically):\n\n  expired:\n    - fact-0006 — expired 2026-06-30\n"
    )
    run = run_cli("memory", "index", "--demo", *T)
    assert run.code == 0, run.err
    assert run.out.splitlines()[1].startswith("13/13 facts listed, ~")
    assert "/foundry-demo-" in run.out.splitlines()[0]
    assert _tree(DEMO_SOURCE) == before


def test_global_options_before_or_after_the_subcommand(root: Path) -> None:
    w = ["memory", "write", "--title", "Use uv for installs", "--body", "Faster than pip.", "--type", "convention"]
    assert run_cli("--root", str(root), *T, *w).out.startswith("created: fact-0001")
    assert run_cli(*w[:2], "--root", str(root), *w[2:]).out.startswith("unchanged: fact-0001")
    assert run_cli("memory", "search", "uv installs", env={"FOUNDRY_ROOT": str(root)}).out.startswith(
        "### fact-0001 · convention"
    )
    # FOUNDRY_TODAY decides expiry like --today.
    run_cli(
        "--root",
        str(root),
        "memory",
        "write",
        "--title",
        "Short-lived",
        "--body",
        "b",
        "--type",
        "metric",
        "--expires",
        "2026-01-31",
    )
    listing = run_cli("--root", str(root), "memory", "list", "--all", env={"FOUNDRY_TODAY": "2026-02-01"}).out
    assert "fact-0002 · metric · Short-lived (expired 2026-01-31)" in listing
    assert "Short-lived" in run_cli("--root", str(root), "memory", "list", "--today", "2026-01-31").out


def test_root_discovery_from_a_subfolder(root: Path) -> None:
    sub = root / "src" / "deep"
    sub.mkdir(parents=True)
    run_cli("--root", str(root), "memory", "write", "--title", "Root found", "--body", "b", "--type", "domain")
    assert run_cli("memory", "list", cwd=sub).out == "fact-0001 · domain · Root found\n"


def test_body_from_stdin_and_file(root: Path, tmp_path: Path) -> None:
    run = run_cli(
        "--root",
        str(root),
        "memory",
        "write",
        "--title",
        "Risky retries",
        "--type",
        "risk",
        "--body-file",
        "-",
        "--tags",
        "billing, retries,",
        stdin="Why: double charges.\nHow to apply: use replay.\n",
    )
    assert run.code == 0 and run.out.splitlines()[0] == "created: fact-0001"
    text = (root / ".foundry/memory/facts/fact-0001.md").read_text()
    assert "tags: [billing, retries]" in text and "**Why:** double charges." in text
    body = tmp_path / "body.md"
    body.write_text("From a file.")
    assert (
        run_cli(
            "--root", str(root), "memory", "write", "--title", "F", "--type", "domain", "--body-file", str(body)
        ).code
        == 0
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ("memory", "write", "--title", "x" * 85, "--body", "b", "--type", "domain"),
            2,
            "foundry: error: title is 85 characters, 5 over the 80-character limit: state the fact more briefly",
        ),
        (
            ("memory", "write", "--title", "t", "--type", "domain"),
            2,
            "foundry: error: the fact needs a body: pass --body TEXT or --body-file FILE (- for stdin)",
        ),
        (
            ("memory", "search", "x", "--limit", "0"),
            2,
            "foundry: error: limit 0 is out of range: use a whole number from 1 to 25",
        ),
        (
            ("memory", "show", "fact-0404"),
            1,
            "foundry: error: no fact 'fact-0404' in .foundry/memory/facts: list them with `foundry memory list --all`",
        ),
        (("memory", "frobnicate"), 2, "foundry memory: error: argument ACTION: invalid choice: 'frobnicate'"),
        (("--today", "soon", "memory", "list"), 2, "foundry: error: today 'soon' is not a date: use YYYY-MM-DD"),
        (("--root", "/does/not/exist", "doctor"), 2, "foundry: error: project root /does/not/exist is not a directory"),
        (
            ("memory", "write", "--title", "t", "--body", "b", "--type", "domain", "--body-file", "/nope"),
            2,
            "foundry: error: give the body with --body or --body-file, not both",
        ),
    ],
)
def test_bad_input_is_one_line_and_no_traceback(root: Path, args: tuple[str, ...], code: int, message: str) -> None:
    run = run_cli("--root", str(root), *args) if "--root" not in args else run_cli(*args)
    assert run.code == code
    assert run.err.startswith(message)
    assert len(run.err.strip().splitlines()) == 1 and "Traceback" not in run.err
    assert run.out == ""


def test_broken_config_is_a_clear_error(root: Path) -> None:
    (root / ".foundry/config.json").write_text('{"indexTokenBudget": "big"}')
    run = run_cli("--root", str(root), "memory", "write", "--title", "t", "--body", "b", "--type", "domain")
    assert run.code == 1
    assert run.err == 'foundry: error: config.json: indexTokenBudget must be a positive whole number, not "big"\n'
    assert list((root / ".foundry/memory/facts").iterdir()) == []


def test_doctor_exit_codes_and_json(demo_root: Path) -> None:
    run = run_cli("--root", str(demo_root), *T, "doctor")
    assert run.code == 1 and "FAIL  reasoning" in run.out
    data = json.loads(run_cli("--root", str(demo_root), *T, "doctor", "--json").out)
    assert data["ok"] is False and data["failed"] == 1
    run_cli(
        "--root",
        str(demo_root),
        "memory",
        "write",
        *T,
        "--title",
        "Background jobs run on Celery with Redis as the broker",
        "--type",
        "decision",
        "--body",
        "Why: one broker for all queues.\nHow to apply: use the shared Redis.",
    )
    assert run_cli("--root", str(demo_root), *T, "doctor").code == 0


def test_json_outputs(demo_root: Path) -> None:
    hits = json.loads(run_cli("--root", str(demo_root), *T, "memory", "search", "postgres", "--json").out)["hits"]
    assert hits[0]["id"] == "fact-0009" and hits[0]["score"] == 8.28
    rows = json.loads(run_cli("--root", str(demo_root), *T, "memory", "list", "--all", "--json").out)
    assert {r["id"]: r["inactive"] for r in rows if not r["active"]} == {
        "fact-0002": "superseded by fact-0004",
        "fact-0004": "superseded by fact-0009",
        "fact-0006": "expired 2026-06-30",
    }
    prune = json.loads(run_cli("--root", str(demo_root), *T, "memory", "prune", "--json").out)["candidates"]
    assert [c["id"] for c in prune] == ["fact-0006", "fact-0002", "fact-0004", "fact-0011"]


def test_show_gives_state_and_chain(demo_root: Path) -> None:
    out = run_cli("--root", str(demo_root), *T, "memory", "show", "fact-0004").out
    assert out.splitlines()[:4] == [
        "fact-0004 · decision · inactive: superseded by fact-0009",
        "file: .foundry/memory/facts/fact-0004.md",
        "newer: fact-0009",
        "older: fact-0002",
    ]
    assert "title: PostgreSQL 15 replaces MySQL 8 as the production database" in out


def test_broken_files_are_listed_not_fatal(root: Path) -> None:
    (root / ".foundry/memory/facts/fact-0001.md").write_text("---\nid: [\n---\n")
    run_cli("--root", str(root), "memory", "write", "--title", "Still works", "--body", "b", "--type", "domain")
    out = run_cli("--root", str(root), "memory", "list", "--all").out
    assert out.splitlines()[0] == "fact-0002 · domain · Still works"
    assert out.splitlines()[1].startswith("broken: fact-0001.md — frontmatter is not valid YAML")


def test_no_command_is_usage_error() -> None:
    run = run_cli()
    assert run.code == 2 and run.err == "foundry: error: name a command (see `foundry --help`)\n"


def test_each_groups_help_lists_every_action_in_order() -> None:
    """`foundry --help` and `foundry GROUP --help` say, after the colon, every action the group
    has, in the order `foundry GROUP --help` lists them (memory once listed six of sixteen)."""
    from foundry_tui import cli

    cli.build_parser()
    groups: dict[str, list[str]] = {}
    for words in cli.COMMANDS:
        group, _, action = words.partition(" ")
        if action:
            groups.setdefault(group, []).append(action)
    assert len(groups["memory"]) == 18  # sixteen, verify (issue 30) and vectors (issue 29)
    for group, actions in groups.items():
        description = cli.PARSERS[f"foundry {group}"].description or ""
        listed = description.rsplit(": ", 1)[-1].split(", ")
        assert listed == actions, group
        top = run_cli("--help").out
        assert " ".join(description.split()) in " ".join(top.split()), group  # wrapped, but whole
