"""Hostile fact files (issue 9, High 2 and Low): a YAML alias bomb, deep nesting and
huge files are broken files, named by doctor and skipped by everything else. Every
command runs as a real subprocess with a time limit and a memory cap, so a regression
fails here instead of taking the machine down."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from foundry_tui.core.memory.model.facts import MAX_FACT_FILE_BYTES, FactFileError, parse_fact_text
from tests.mcp.test_mcp_raw import INIT

MEMORY_CAP = 1536 * 1024 * 1024  # bytes of address space for each subprocess
TIME_LIMIT = 30.0

HEAD = "---\nid: {id}\ntype: domain\ntitle: {title}\ncreated: 2026-01-01\n"
# Nine levels of nine aliases each: 9**9 (387 million) strings once expanded, in 700 bytes.
BOMB_KEY = 'lol:\n  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"  {name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n" for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
)
BOMB = HEAD.format(id="fact-0100", title="Postgres bomb") + BOMB_KEY + "---\nPostgres body of the bomb.\n"
SELF_REFERENCE = HEAD.format(id="fact-0101", title="Postgres loop") + "loop: &x [1, *x]\n---\nPostgres loop body.\n"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _run(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "foundry_tui", "--root", str(root), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        preexec_fn=_limit_memory,
        env={**os.environ, "FOUNDRY_TODAY": "2026-11-30"},
    )


def _plant(root: Path, name: str, text: str) -> None:
    (root / ".foundry" / "memory" / "facts" / name).write_text(text, encoding="utf-8")


def test_the_bomb_is_about_700_bytes() -> None:
    assert len(BOMB.encode()) < 800


@pytest.mark.parametrize("text", [BOMB, SELF_REFERENCE], ids=["bomb", "self-reference"])
def test_parsing_refuses_alias_expansion(text: str) -> None:
    with pytest.raises(FactFileError, match="YAML aliases"):
        parse_fact_text(text)


def test_every_command_skips_the_bomb_and_doctor_names_it(demo_root: Path) -> None:
    _plant(demo_root, "fact-0100.md", BOMB)
    _plant(demo_root, "fact-0101.md", SELF_REFERENCE)
    listing = _run(demo_root, "memory", "list", "--all", "--json")
    assert listing.returncode == 0, listing.stderr
    assert "fact-0009" in listing.stdout
    search = _run(demo_root, "memory", "search", "postgres")
    assert search.returncode == 0, search.stderr
    assert search.stdout.startswith("### fact-0009")
    assert "bomb" not in search.stdout
    write = _run(demo_root, "memory", "write", "--title", "Bombs are skipped", "--body", "Yes.", "--type", "domain")
    assert write.returncode == 0, write.stderr
    assert write.stdout.startswith("created: fact-0102")  # the broken files' numbers are still taken
    doctor = _run(demo_root, "doctor")
    assert doctor.returncode == 1
    assert ".foundry/memory/facts/fact-0100.md: frontmatter expands to more than" in doctor.stdout
    assert ".foundry/memory/facts/fact-0101.md: frontmatter refers to itself through YAML aliases" in doctor.stdout
    hook = _run(
        demo_root,
        "hook",
        "user-prompt-submit",
        stdin=json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "which database do we use, postgres?"}),
    )
    assert hook.returncode == 0
    assert "fact-0009" in json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    session = _run(demo_root, "hook", "session-start", stdin="{}")
    assert "# Memory index" in json.loads(session.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_mcp_server_skips_the_bomb(demo_root: Path) -> None:
    _plant(demo_root, "fact-0100.md", BOMB)
    lines = [
        json.dumps(INIT),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "memory_search", "arguments": {"query": "postgres"}},
            }
        ),
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "foundry_tui", "mcp", "--root", str(demo_root)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        preexec_fn=_limit_memory,
    )
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert answers[1]["result"]["content"][0]["text"].startswith("### fact-0009")


@pytest.mark.parametrize("depth", [17, 900, 5000])
def test_deep_frontmatter_is_refused(depth: int) -> None:
    text = HEAD.format(id="fact-0001", title="Deep") + "extra: " + "[" * depth + "]" * depth + "\n---\nBody.\n"
    with pytest.raises(FactFileError):
        parse_fact_text(text)


def test_sixteen_levels_load() -> None:
    text = HEAD.format(id="fact-0001", title="Deep") + "extra: " + "[" * 15 + "]" * 15 + "\n---\nBody.\n"
    assert parse_fact_text(text).id == "fact-0001"


def test_an_oversize_file_is_broken_and_reported(demo_root: Path) -> None:
    big = HEAD.format(id="fact-0100", title="Postgres giant") + "---\n" + "postgres " * (MAX_FACT_FILE_BYTES // 9 + 10)
    _plant(demo_root, "fact-0100.md", big)
    with pytest.raises(FactFileError, match="over the"):
        parse_fact_text(big)
    search = _run(demo_root, "memory", "search", "postgres giant")
    assert search.returncode == 0, search.stderr
    assert "fact-0100" not in search.stdout
    doctor = _run(demo_root, "doctor")
    kib = MAX_FACT_FILE_BYTES // 1024
    assert f".foundry/memory/facts/fact-0100.md: the file is {len(big.encode()) // 1024} KiB, over the {kib} KiB" in (
        doctor.stdout
    )


TUI_PROBE = """
import asyncio, sys
from pathlib import Path
from tests.tui_helpers import make_app, option_ids, settle

async def main():
    app = make_app(Path(sys.argv[1]))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        print(" ".join(option_ids(pilot, "#index")))
        await pilot.press("q")

asyncio.run(main())
"""


def test_the_tui_loads_past_the_bomb(demo_root: Path) -> None:
    """The TUI stayed on "loading..." with the bomb in the facts folder (issue 9, High 2).
    Run in a subprocess under the same limits as the commands."""
    _plant(demo_root, "fact-0100.md", BOMB)
    proc = subprocess.run(
        [sys.executable, "-c", TUI_PROBE, str(demo_root)],
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        preexec_fn=_limit_memory,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "fact-0009" in proc.stdout.split()


RUNBOOK_BOMB = "---\n" + BOMB_KEY + "title: *i\ntrigger: *h\n---\n\n# Bomb\n"


def test_a_runbook_bomb_hangs_nothing(demo_root: Path) -> None:
    """Runbooks are listed at every SessionStart and by runbook_list: the same bounds hold."""
    books = demo_root / ".foundry" / "runbooks"
    (books / "bomb.md").write_text(RUNBOOK_BOMB, encoding="utf-8")
    (books / "numbers.md").write_text("---\n1: one\ntitle: Numbers\n---\n# N\n", encoding="utf-8")
    (books / "huge.md").write_text("---\ntitle: Huge\n---\n" + "x" * (300 * 1024), encoding="utf-8")
    listing = _run(demo_root, "runbook", "list")
    assert listing.returncode == 0, listing.stderr
    assert "- **bomb** — bomb\n" in listing.stdout  # the file name stands in for a title it cannot use
    assert "- **numbers** — numbers\n" in listing.stdout
    assert "- **deploy-production** — Deploy to production" in listing.stdout
    session = _run(demo_root, "hook", "session-start", stdin="{}")
    assert "- **bomb** — bomb" in json.loads(session.stdout)["hookSpecificOutput"]["additionalContext"]
    huge = _run(demo_root, "runbook", "get", "huge")
    assert huge.returncode == 1
    assert huge.stderr == "foundry: error: runbook 'huge' is 300 KiB, over the 256 KiB limit for a runbook: split it\n"


def test_hostile_blackboard_artifacts_are_unreadable_entries(demo_root: Path) -> None:
    wave = demo_root / ".foundry" / "blackboard" / "hostile"
    wave.mkdir(parents=True)
    (wave / "deep.json").write_text("[" * 100_000)
    (wave / "digits.json").write_text('{"n": ' + "9" * 5000 + "}")
    (wave / "fine.json").write_text('{"schema": "finding.v1", "producedBy": "fine", "summary": "ok"}')
    read = _run(demo_root, "blackboard", "read", "hostile")
    assert read.returncode == 0, read.stderr
    assert "- **deep.json** · unreadable: not valid JSON (nested too deeply)" in read.stdout
    assert "- **digits.json** · unreadable: not valid JSON (a number has more than 4300 digits)" in read.stdout
    assert "- **fine.json** · schema finding.v1 · by fine" in read.stdout
    tokens = _run(demo_root, "tokens")
    assert tokens.returncode == 0, tokens.stderr
