"""Claude Code hooks fed real event JSON, and `foundry init`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from foundry_tui.core.events import read_events
from foundry_tui.core.paths import Layout
from foundry_tui.core.program import installed_program
from tests.helpers import run_cli


def hook(event: str, payload: Any, root: Path | None = None) -> tuple[int, Any, str]:
    args = ["hook", event] + (["--root", str(root)] if root else [])
    run = run_cli(
        *args, stdin=payload if isinstance(payload, str) else json.dumps(payload), env={"FOUNDRY_TODAY": "2026-11-30"}
    )
    return run.code, (json.loads(run.out) if run.out.strip() else None), run.err


def test_session_start_injects_index_runbooks_and_git(demo_root: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=demo_root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=demo_root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Seed the shop"],
        cwd=demo_root,
        check=True,
    )
    code, out, _ = hook(
        "session-start", {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(demo_root)}
    )
    assert code == 0
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = out["hookSpecificOutput"]["additionalContext"]
    assert (demo_root / ".foundry/memory/INDEX.md").read_text().rstrip("\n") in context
    assert (
        "## Runbooks\n\n- **deploy-production** — Deploy to production\n  trigger: deploy, release to prod" in context
    )
    git_line = context.splitlines()[-1]
    assert git_line.startswith("Git: on main, last commit ") and "Seed the shop" in git_line


def test_user_prompt_submit(demo_root: Path) -> None:
    code, out, _ = hook(
        "user-prompt-submit",
        {
            "hook_event_name": "UserPromptSubmit",
            "prompt": "How should I write the postgres migrations for orders?",
            "cwd": str(demo_root),
        },
    )
    assert code == 0
    context = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    ids = [line.split()[1] for line in context.splitlines() if line.startswith("### fact-")]
    assert 1 <= len(ids) <= 5
    # postgres+migrations in a decision (x1.38), then migrations+orders in a title; "should" and "for"
    # are stop words and add nothing (they once put fact-0015 first through "should" in its body)
    assert ids[:2] == ["fact-0009", "fact-0015"]
    # Eleven characters: too short to search on; and a prompt that matches nothing strongly.
    assert hook("user-prompt-submit", {"prompt": "fix the bug", "cwd": str(demo_root)})[1] is None
    assert hook("user-prompt-submit", {"prompt": "zebra quokka llama wombat", "cwd": str(demo_root)})[1] is None


@pytest.mark.parametrize(
    ("tool", "tool_input", "denied"),
    [
        ("Read", {"file_path": "{root}/.foundry/memory/facts/fact-0009.md"}, "read"),
        ("Read", {"file_path": "{root}/.foundry/memory/INDEX.md"}, None),
        ("Read", {"file_path": "{root}/src/app.py"}, None),
        ("Grep", {"pattern": "postgres", "path": ".foundry/memory/facts"}, "read"),
        ("Glob", {"pattern": ".foundry/memory/facts/*.md"}, "read"),
        ("Glob", {"pattern": "**/*.md", "path": "{root}/.foundry/memory/facts/"}, "read"),
        ("Bash", {"command": "cat .foundry/memory/facts/*.md | head"}, "read"),
        ("Bash", {"command": "ls src && pytest"}, None),
        (
            "Edit",
            {"file_path": "{root}/.foundry/memory/facts/fact-0001.md", "old_string": "a", "new_string": "b"},
            "edit",
        ),
        ("Write", {"file_path": "{root}/docs/notes.md", "content": "x"}, None),
        ("Read", {"file_path": "sub/../.foundry/memory/facts/fact-0001.md"}, "read"),
    ],
)
def test_pre_tool_use_gate(demo_root: Path, tool: str, tool_input: dict[str, str], denied: str | None) -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "cwd": str(demo_root),
        "tool_input": {k: v.replace("{root}", str(demo_root)) for k, v in tool_input.items()},
    }
    before = len(read_events(Layout(demo_root)))
    code, out, _ = hook("pre-tool-use", payload)
    assert code == 0
    events = read_events(Layout(demo_root))[before:]
    if denied is None:
        assert out is None and events == []
        return
    answer = out["hookSpecificOutput"]
    assert answer["hookEventName"] == "PreToolUse" and answer["permissionDecision"] == "deny"
    assert ("memory_search" if denied == "read" else "memory_write") in answer["permissionDecisionReason"]
    assert [e["kind"] for e in events] == ["gate_blocked"] and events[0]["tool"] == tool


@pytest.mark.parametrize("stdin", ["", "{not json", "[1, 2]", '{"prompt": 5}'])
def test_hooks_never_break_the_agent(demo_root: Path, stdin: str) -> None:
    for event in ("session-start", "user-prompt-submit", "pre-tool-use"):
        code, out, err = hook(event, stdin, demo_root)
        assert code == 0 and err == ""
        if event != "session-start":
            assert out is None


def test_hook_with_a_missing_root_prints_nothing() -> None:
    assert hook("user-prompt-submit", {"prompt": "a long enough prompt about postgres"}, Path("/does/not/exist")) == (
        0,
        None,
        "",
    )


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file() and ".git/" not in str(p)
    }


def test_init_sets_up_and_is_idempotent(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("node_modules/")
    first = run_cli("init", "--profile", "startup-mvp", cwd=tmp_path)
    assert first.code == 0, first.err
    for folder in (
        ".foundry/memory/facts/",
        ".foundry/runbooks/",
        ".foundry/blackboard/",
        ".foundry/contracts/",
        "docs/adr/",
    ):
        assert f"created   {folder}" in first.out
    assert json.loads((tmp_path / ".foundry/config.json").read_text())["indexTokenBudget"] == 2500
    assert (tmp_path / ".gitignore").read_text() == (
        "node_modules/\n# Foundry: per-session scratch, local metrics, temp files of interrupted writes\n"
        ".foundry/scratch\n.foundry/metrics/\n.foundry/**/.*.tmp\n"
    )
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())["hooks"]
    foundry = installed_program().shell()  # by its absolute path (tests/core/test_hardening_init.py)
    assert settings["PreToolUse"][0]["hooks"] == [{"type": "command", "command": f"{foundry} hook pre-tool-use"}]
    assert settings["SessionStart"][0]["hooks"][0]["command"] == f"{foundry} hook session-start"
    assert settings["UserPromptSubmit"][0]["hooks"][0]["command"] == f"{foundry} hook user-prompt-submit"
    assert run_cli("doctor", cwd=tmp_path).code == 0
    before = _snapshot(tmp_path)
    second = run_cli("init", cwd=tmp_path)
    assert second.code == 0 and second.out == "Foundry is already set up here; nothing changed.\n"
    assert _snapshot(tmp_path) == before


def test_init_merges_existing_files(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"github": {"command": "gh-mcp"}}}))
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(npm test)"]},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-guard"}]}]},
            }
        )
    )
    assert run_cli("init", cwd=tmp_path).code == 0
    servers = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"github", "foundry"}
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(npm test)"]}
    assert [g["hooks"][0]["command"] for g in settings["hooks"]["PreToolUse"]] == [
        "lint-guard",
        installed_program().shell("hook", "pre-tool-use"),
    ]


def test_init_reports_a_malformed_file_and_leaves_it(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {,}')
    run = run_cli("init", cwd=tmp_path)
    assert run.code == 1
    assert "problem   .mcp.json is not valid JSON (line 1, column 17" in run.out
    assert (tmp_path / ".mcp.json").read_text() == '{"mcpServers": {,}'
    assert (tmp_path / ".claude/settings.json").exists() and (tmp_path / ".foundry/config.json").exists()


def test_the_gate_and_session_start_say_exactly_this(demo_root: Path) -> None:
    """The texts an agent reads (built from the Layout, so they follow it)."""
    from foundry_tui.core.hook_events import HOOK_EVENTS, HOOK_WORDS
    from foundry_tui.hooks import HANDLERS

    assert set(HANDLERS) == set(HOOK_WORDS) >= set(HOOK_EVENTS)  # every event word the CLI accepts has its handler
    payload = {"tool_name": "Read", "cwd": str(demo_root), "tool_input": {"file_path": ".foundry/memory/facts/x.md"}}
    assert hook("pre-tool-use", payload)[1]["hookSpecificOutput"]["permissionDecisionReason"] == (
        "Foundry memory: do not read .foundry/memory/facts/ directly: it loads every fact into context, the cost the "
        "index exists to avoid. Use the memory_search tool of the foundry MCP server (keywords), or read "
        ".foundry/memory/INDEX.md for the one-line index."
    )
    context = hook("session-start", {"cwd": str(demo_root)})[1]["hookSpecificOutput"]["additionalContext"]
    assert context.splitlines()[0] == (
        "Foundry project memory. Search it with the memory_search tool; never read .foundry/memory/facts/ directly."
    )
