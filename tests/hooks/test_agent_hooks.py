"""Issue 32, item 2: one hook core, four dialects. Each agent's documented event payloads
(tests/data/agents/<agent>/, with the page each follows) go through a real
`foundry hook WORD --agent AGENT`, and the answer is checked against a JSON Schema written
from that agent's documentation; a payload from another agent, or from a version with
fields nobody knows yet, still gets a valid, quiet answer and exit 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from foundry_tui.core.events import read_events
from foundry_tui.core.hook_events import AGENT_NAMES, HOOK_EVENTS, HOOK_WORDS
from foundry_tui.core.paths import Layout
from foundry_tui.hook_dialects import DIALECTS
from tests.helpers import REPO, run_cli

DATA = REPO / "tests" / "data" / "agents"
EXAMPLES = sorted(
    (agent, path.name) for agent in AGENT_NAMES for path in (DATA / agent).glob("*.json") if "schema" not in path.name
)
# Dialects whose quiet answer is no output at all (Claude Code, Codex); the others answer `{}`.
SILENT = {"claude", "codex"}


def example(agent: str, name: str, root: Path) -> dict[str, Any]:
    text = (DATA / agent / name).read_text(encoding="utf-8").replace("{root}", str(root))
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def native_event(agent: str, word: str, payload: dict[str, Any]) -> str:
    return HOOK_EVENTS[word][0] if agent == "claude" else DIALECTS[agent].native_event(word, payload)


def hook(agent: str, word: str, payload: object, root: Path) -> Any:
    """The answer (None for no output) of a real `foundry hook`; it must exit 0 and say nothing on stderr."""
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    run = run_cli("hook", word, "--agent", agent, "--root", str(root), stdin=stdin, env={"FOUNDRY_TODAY": "2026-11-30"})
    assert run.code == 0 and run.err == "", run.err
    assert run.out.count("\n") <= 1
    return json.loads(run.out) if run.out.strip() else None


def assert_valid(agent: str, word: str, payload: dict[str, Any], answer: Any) -> None:
    """The answer is one the agent accepts for the event it was asked about."""
    if answer is None:
        assert agent in SILENT, f"{agent} expects JSON on stdout"
        return
    schema = json.loads((DATA / agent / "answers.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(answer, schema[native_event(agent, word, payload)])


def denial(agent: str, answer: Any) -> str | None:
    """The reason the answer denies the call for, in the agent's own field; None when it lets it through."""
    if not isinstance(answer, dict):
        return None
    if agent in ("claude", "codex"):
        output = answer.get("hookSpecificOutput", {})
        return output.get("permissionDecisionReason") if output.get("permissionDecision") == "deny" else None
    if agent == "cursor":
        return answer.get("user_message") if answer.get("permission") == "deny" else None
    return answer.get("reason") if answer.get("decision") == "deny" else None


def context(agent: str, answer: Any) -> str:
    if not isinstance(answer, dict):
        return ""
    if agent == "cursor":
        return str(answer.get("additional_context", ""))
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


@pytest.mark.parametrize(("agent", "name"), EXAMPLES, ids=[f"{a}/{n}" for a, n in EXAMPLES])
def test_each_documented_payload_gets_its_agents_answer(demo_root: Path, agent: str, name: str) -> None:
    data = example(agent, name, demo_root)
    word, payload = data["word"], data["payload"]
    assert data["source"].startswith("https://")
    before = len(read_events(Layout(demo_root)))
    answer = hook(agent, word, payload, demo_root)
    assert_valid(agent, word, payload, answer)
    gate_events = [e["kind"] for e in read_events(Layout(demo_root))[before:] if e["kind"] == "gate_blocked"]
    if word == "session-start":
        assert context(agent, answer).startswith(
            "Foundry project memory. Search it with the memory_search tool; never read .foundry/memory/facts/ directly."
        )
        assert (demo_root / ".foundry/memory/INDEX.md").read_text().rstrip("\n") in context(agent, answer)
    elif word == "user-prompt-submit":
        if agent == "cursor":  # beforeSubmitPrompt cannot add context (hook_dialects.Cursor)
            assert answer == {"continue": True}
        else:
            assert "### fact-0009" in context(agent, answer)
    elif word == "pre-tool-use":
        reason = denial(agent, answer)
        if data["denied"]:
            assert reason is not None and ("memory_search" in reason or "memory_write" in reason)
            assert gate_events == ["gate_blocked"]
        else:
            assert reason is None and gate_events == []
            assert answer == (None if agent in SILENT else {})
    else:  # post-tool-use: nothing to say until facts carry code references (issue 30)
        assert answer == (None if agent in SILENT else {})


FOREIGN = [
    "",
    "{not json",
    "[1, 2]",
    {"hook_event_name": "SomethingNew", "tool_name": "teleport", "tool_input": {"where": "mars"}, "v9": {"x": 1}},
    {"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": "{not json"},
    {"prompt": 5, "tool_input": [1], "workspace_roots": [7], "cwd": 3},
]


@pytest.mark.parametrize("agent", AGENT_NAMES)
@pytest.mark.parametrize("word", HOOK_WORDS)
def test_a_payload_nobody_knows_gets_the_quiet_answer(demo_root: Path, agent: str, word: str) -> None:
    for payload in FOREIGN:
        answer = hook(agent, word, payload, demo_root)
        if word == "session-start" and answer not in (None, {}):  # the index, whatever the payload says
            assert_valid(agent, word, payload if isinstance(payload, dict) else {}, answer)
            continue
        quiet = (
            None if agent in SILENT else {"continue": True} if (agent, word) == ("cursor", "user-prompt-submit") else {}
        )
        assert answer == quiet, payload


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_another_agents_payloads_get_a_valid_answer(demo_root: Path, agent: str) -> None:
    """Wired to the wrong agent, a hook still answers what its own agent accepts."""
    for other, name in EXAMPLES:
        if other == agent:
            continue
        data = example(other, name, demo_root)
        if data["word"] == "session-start":
            continue  # valid by the test above; slow
        answer = hook(agent, data["word"], data["payload"], demo_root)
        assert_valid(agent, data["word"], data["payload"], answer)


def test_an_apply_patch_names_every_file_it_touches() -> None:
    from foundry_tui.hook_dialects import patch_paths

    patch = "*** Begin Patch\n*** Add File: a.py\n+x\n*** Update File: b.py\n*** Move to: c.py\n*** Delete File: d.py\n"
    assert patch_paths(patch + "*** End Patch\n") == ["a.py", "b.py", "c.py", "d.py"]


AFTER_EDIT = [(agent, name) for agent, name in EXAMPLES if example(agent, name, Path())["word"] == "post-tool-use"]


@pytest.mark.parametrize(("agent", "name"), AFTER_EDIT, ids=[f"{a}/{n}" for a, n in AFTER_EDIT])
def test_after_an_edit_each_agent_is_told_which_facts_cite_the_file(demo_root: Path, agent: str, name: str) -> None:
    """Issue 30: the edited file (src/app.py in every example) is cited by one active fact."""
    (demo_root / "src").mkdir()
    (demo_root / "src" / "app.py").write_text("old\n")
    write = run_cli(
        "memory",
        "write",
        "--root",
        str(demo_root),
        "--today",
        "2026-11-30",
        "--title",
        "The app starts in app.py",
        "--body",
        "Start-up lives in `src/app.py`.",
        "--type",
        "domain",
    )
    assert write.code == 0, write.err
    fact_id = write.out.split()[1]
    data = example(agent, name, demo_root)
    answer = hook(agent, data["word"], data["payload"], demo_root)
    assert_valid(agent, data["word"], data["payload"], answer)
    if agent == "cursor":  # afterFileEdit's answer carries nothing (hook_dialects.Cursor)
        assert answer == {}
        return
    assert context(agent, answer) == (
        f'Foundry: {fact_id} "The app starts in app.py" cites src/app.py, which you just edited: check it still '
        "holds; if not, supersede with memory_write (same title, new body)."
    )
