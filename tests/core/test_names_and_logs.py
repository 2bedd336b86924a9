"""Secrets never reach file names, refusals or the events log, and names cannot hide or
collide (issue 9, Medium 7 and the Low items on names)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foundry_tui.core.artefacts.blackboard import blackboard_write, read_artifacts
from foundry_tui.core.errors import InputError
from foundry_tui.core.events import read_events, record_event
from foundry_tui.core.memory.project import Project
from foundry_tui.core.secrets import REDACTED
from tests.helpers import run_cli
from tests.mcp.test_mcp_raw import INIT, RawServer

TOKEN = "ghp_Q7fL2mX9vR4tZ8wB1cD6fH0jK5sN3pY2aT4u"
FINDING = {"title": "IDOR", "severity": "high", "failureScenario": "Change the id, read another order."}


@pytest.mark.parametrize("where", ["wave", "agent"])
def test_a_token_as_a_wave_or_agent_name_is_refused_unechoed(project: Project, where: str) -> None:
    names = {"wave": "w", "agent": "a", where: TOKEN}
    with pytest.raises(InputError) as info:
        blackboard_write(project.layout, names["wave"], names["agent"], "finding.v1", FINDING)
    message = str(info.value)
    assert message == (
        f"refused: the {where} name looks like a GitHub token; names become committed file names and producedBy, "
        "so use a role or step name such as 'reviewer'"
    )
    assert not project.layout.blackboard_dir.exists()


def test_a_refused_data_key_is_not_echoed(project: Project) -> None:
    with pytest.raises(InputError) as info:
        blackboard_write(project.layout, "w", "a", "finding.v1", {**FINDING, TOKEN: "x"})
    assert TOKEN not in str(info.value) and "data/(a key) (key) contains what looks like a GitHub token" in str(
        info.value
    )


def test_flagged_strings_are_logged_as_a_marker(project: Project) -> None:
    record_event(project.layout, "memory_search", query=f"deploy with {TOKEN}", hits=0, nested={"q": TOKEN})
    record_event(project.layout, "memory_search", query="deploy checklist", hits=2)
    events = read_events(project.layout)
    assert [e["query"] for e in events] == [REDACTED, "deploy checklist"]
    assert events[0]["nested"] == {"q": REDACTED}
    assert TOKEN not in project.layout.events_path.read_text()


def test_memory_search_queries_with_a_secret_are_not_logged(demo_root: Path) -> None:
    server = RawServer(demo_root)
    try:
        server.ask(INIT)
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": "memory_search", "arguments": {"query": f"why does {TOKEN} fail"}}
        answer = server.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        assert "result" in answer
    finally:
        server.close()
    log = (demo_root / ".foundry/metrics/events.jsonl").read_text()
    assert TOKEN not in log and REDACTED in log


def test_gate_blocked_commands_with_a_secret_are_not_logged(demo_root: Path) -> None:
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "cwd": str(demo_root),
        "tool_input": {"command": f"GITHUB_TOKEN={TOKEN} cat .foundry/memory/facts/fact-0001.md"},
    }
    run = run_cli("hook", "pre-tool-use", "--root", str(demo_root), stdin=json.dumps(event))
    assert json.loads(run.out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    log = (demo_root / ".foundry/metrics/events.jsonl").read_text()
    assert TOKEN not in log and REDACTED in log


@pytest.mark.parametrize(
    ("wave", "agent", "what"), [(".x", "a", "wave"), ("w", ".hidden", "agent"), ("w", "..", "agent")]
)
def test_dot_names_are_refused(project: Project, wave: str, agent: str, what: str) -> None:
    with pytest.raises(InputError, match=rf"^{what} '\.[^']*' starts with '\.'"):
        blackboard_write(project.layout, wave, agent, "finding.v1", FINDING)


def test_a_name_that_sanitises_onto_another_artifact_is_refused(project: Project) -> None:
    layout = project.layout
    assert blackboard_write(layout, "w", "a/b", "finding.v1", FINDING).written
    with pytest.raises(InputError) as info:
        blackboard_write(layout, "w", "a b", "finding.v1", {**FINDING, "title": "other"})
    assert str(info.value) == (
        "agent 'a b' would be written to .foundry/blackboard/w/a-b.json, which holds the artifact of agent 'a/b': "
        "use a name that differs in letters, digits, '.', '_' or '-'"
    )
    assert json.loads((layout.blackboard_dir / "w" / "a-b.json").read_text())["title"] == "IDOR"
    assert blackboard_write(layout, "w", "a/b", "finding.v1", {**FINDING, "title": "again"}).written  # the same name
    with pytest.raises(InputError, match="holds the artifact of agent 'a/b'"):
        blackboard_write(layout, "w", "a-b", "finding.v1", FINDING)


def test_an_agent_name_with_a_control_character_is_refused(project: Project) -> None:
    """producedBy keeps the name as given, so it must not break the lines it is printed on."""
    with pytest.raises(InputError, match=r"^the agent name contains a control character"):
        blackboard_write(project.layout, "w", "a\nb", "finding.v1", FINDING)
    assert not project.layout.blackboard_dir.exists()


def test_a_wave_name_that_sanitises_onto_another_wave_is_refused(project: Project) -> None:
    layout = project.layout
    assert blackboard_write(layout, "release/1", "a", "finding.v1", FINDING).written
    with pytest.raises(InputError) as info:
        blackboard_write(layout, "release 1", "a", "finding.v1", {**FINDING, "title": "other"})
    assert str(info.value) == (
        "wave 'release 1' would be written to .foundry/blackboard/release-1/, which holds wave 'release/1': "
        "use a name that differs in letters, digits, '.', '_' or '-'"
    )
    assert blackboard_write(layout, "release/1", "a", "finding.v1", {**FINDING, "title": "again"}).written
    with pytest.raises(InputError, match="holds wave 'release/1'"):
        blackboard_write(layout, "release-1", "b", "finding.v1", FINDING)
    assert blackboard_write(layout, "plain-x", "a", "finding.v1", FINDING).written  # a plain name: no record
    assert blackboard_write(layout, "plain-x", "b", "finding.v1", FINDING).written
    with pytest.raises(InputError, match="holds wave 'plain-x'"):
        blackboard_write(layout, "plain x", "c", "finding.v1", FINDING)
    assert [a.name for a in read_artifacts(layout, "release/1")] == ["a.json"]  # the record is not an artifact
