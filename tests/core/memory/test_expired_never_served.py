"""Expired facts are never served (issue 9, Medium 14; spec 000: an expired fact "leaves
the index ... and stops influencing anything"): SessionStart and `foundry://memory/index`
serve the index as it is today, whatever INDEX.md on disk says, and an `unchanged`
write reports the index as it is on disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.index_file import build_index
from foundry_tui.core.paths import resolve_today
from tests.helpers import run_cli, write
from tests.mcp.test_mcp_raw import INIT

LATER = "2026-12-05"


def _expiring_fact(root: Path) -> str:
    """A fact that expires on 2026-12-01, written (and indexed) on 2026-11-30."""
    reply = write(
        Project(root), "Feature freeze until December", "No merges to main.", "constraint", expires="2026-12-01"
    )
    fact_id = reply.split()[1]
    assert fact_id in (root / ".foundry" / "memory" / "INDEX.md").read_text()
    return fact_id


def _today_index(root: Path, day: str) -> str:
    project = Project(root)
    project.sync()
    return build_index(project.active_facts(resolve_today(day)), project.config().index_token_budget)[0]


def test_session_start_serves_todays_index(demo_root: Path) -> None:
    fact_id = _expiring_fact(demo_root)
    run = run_cli("hook", "session-start", "--root", str(demo_root), stdin="{}", env={"FOUNDRY_TODAY": LATER})
    context = json.loads(run.out)["hookSpecificOutput"]["additionalContext"]
    assert fact_id not in context
    assert _today_index(demo_root, LATER).rstrip("\n") in context
    # Before it expires, the fact is in.
    run = run_cli("hook", "session-start", "--root", str(demo_root), stdin="{}", env={"FOUNDRY_TODAY": "2026-11-30"})
    assert fact_id in json.loads(run.out)["hookSpecificOutput"]["additionalContext"]


def test_the_index_resource_serves_todays_index(demo_root: Path) -> None:
    fact_id = _expiring_fact(demo_root)
    read = {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "foundry://memory/index"}}
    proc = subprocess.run(
        [sys.executable, "-m", "foundry_tui", "mcp", "--root", str(demo_root)],
        input=json.dumps(INIT) + "\n" + json.dumps(read) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "FOUNDRY_TODAY": LATER},
    )
    answer = json.loads(proc.stdout.splitlines()[1])
    text = answer["result"]["contents"][0]["text"]
    assert fact_id not in text
    assert text == _today_index(demo_root, LATER)


def test_an_unchanged_write_reports_the_index_on_disk(demo_root: Path) -> None:
    _expiring_fact(demo_root)
    again = ["memory", "write", "--root", str(demo_root), "--type", "convention"]
    first = run_cli(
        *again, "--title", "Tabs are wider than spaces", "--body", "Use four.", env={"FOUNDRY_TODAY": "2026-11-30"}
    )
    assert first.code == 0
    run = run_cli(*again, "--title", "Tabs are wider than spaces", "--body", "Use four.", env={"FOUNDRY_TODAY": LATER})
    assert run.out.startswith("unchanged: ")
    on_disk = (demo_root / ".foundry" / "memory" / "INDEX.md").read_text()
    assert on_disk == _today_index(demo_root, LATER)
    listed = sum(line.startswith("- **fact-") for line in on_disk.splitlines())
    assert f"Index: {listed}/{listed} facts listed" in run.out
