"""Session memory through the Claude Code hooks, as real subprocesses fed the event JSON
Claude Code sends and a real transcript file; the CLI's `foundry session` commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foundry_tui.core.paths import Layout
from foundry_tui.core.sessions.ledger import persist_observation, persist_reflection
from foundry_tui.core.sessions.store import SessionStore
from tests.helpers import run_cli
from tests.session_helpers import (
    OTHER_SESSION,
    SESSION,
    append,
    assistant_lines,
    hook,
    payload,
    prompt,
    start,
    usage,
    user_line,
)

FACTS_HEADER = "Foundry memory: facts that may bear on this prompt."


def session(root: Path, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    run = run_cli("--root", str(root), "session", *args, stdin=stdin)
    return run.code, run.out, run.err


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "claude" / f"{SESSION}.jsonl"
    path.parent.mkdir()
    path.write_text(user_line("how do we run the database migrations?"))
    return path


def test_working_memory_reaches_every_prompt_after_compaction_and_on_resume(demo_root: Path, transcript: Path) -> None:
    assert "[working_memory]" not in start(demo_root, transcript)  # empty tiers print nothing
    assert session(demo_root, "add", "--session", SESSION, "migrations run with make migrate")[0] == 0
    assert session(demo_root, "add", "--session", SESSION, "orders tests need FOO=1")[0] == 0

    context = prompt(demo_root, transcript)
    working = "[working_memory]\n- migrations run with make migrate\n- orders tests need FOO=1"
    assert context.startswith(working + "\n\n" + FACTS_HEADER)  # the tiers, then the T1 facts
    assert prompt(demo_root, transcript, "ok") == working  # a short prompt: tiers, no facts

    for source in ("compact", "resume"):
        context = start(demo_root, transcript, source=source)
        assert context.startswith(working + "\n\nFoundry project memory.")
    other = prompt(demo_root, None, session=OTHER_SESSION)
    assert "[working_memory]" not in other and other.startswith(FACTS_HEADER)


def test_crossing_the_trigger_asks_once_and_the_observation_comes_back(demo_root: Path, transcript: Path) -> None:
    append(transcript, assistant_lines("msg_01", usage(6, 12_000, 0, 400), blocks=2))
    assert "[memory_request]" not in prompt(demo_root, transcript)
    append(transcript, assistant_lines("msg_02", usage(6, 17_000, 12_000, 600)))
    context = prompt(demo_root, transcript)
    assert context.endswith(
        "[memory_request] This session has added 30,012 tokens since its last observation (trigger 30,000). "
        "Before you go on, condense what happened since then into a few short observation entries (one line each: "
        "what was done, decided or found, with names and numbers) and call the foundry MCP tool memory_observe "
        'with {"entries": [...], "token_count": 30012}.'
    )
    assert context.index(FACTS_HEADER) < context.index("[memory_request]")
    # A second hook (another prompt, a SessionStart) while the generation is in progress: not asked again.
    assert "[memory_request]" not in prompt(demo_root, transcript)
    assert "[memory_request]" not in start(demo_root, transcript, source="compact")

    store = SessionStore(Layout(demo_root))
    persist_observation(store, SESSION, ["ran make migrate: 2 pending migrations applied"], 30_012)
    context = prompt(demo_root, transcript)
    assert context.startswith("[observation]\n- ")
    assert context.splitlines()[1].endswith(" ran make migrate: 2 pending migrations applied")
    assert "[memory_request]" not in context
    code, out, _ = session(demo_root, "show", SESSION, "--json")
    ledger = json.loads(out)["ledger"]
    assert (code, ledger["rolling"], ledger["observation"], ledger["total"]) == (0, 0, 30_012, 30_012)


def test_the_reflection_trigger_from_config(demo_root: Path, transcript: Path) -> None:
    config = json.loads((demo_root / ".foundry/config.json").read_text())
    config["sessionMemory"] = {"observationTriggerTokens": 1_000, "reflectionTriggerTokens": 1_500}
    (demo_root / ".foundry/config.json").write_text(json.dumps(config))
    store = SessionStore(Layout(demo_root))
    persist_observation(store, SESSION, ["first"], 900)
    persist_observation(store, SESSION, ["second"], 900)
    context = prompt(demo_root, transcript, "ok")
    assert context.endswith(
        "[memory_request] 1,800 tokens have been observed since the last reflection (trigger 1,500). Before you go "
        "on, condense the [reflection] and [observation] above into a short list of reflection entries (what still "
        'matters for the rest of this session) and call the foundry MCP tool memory_reflect with {"entries": [...]}; '
        "it replaces the reflection."
    )
    persist_reflection(store, SESSION, ["the session is about migrations"])
    assert prompt(demo_root, transcript, "ok") == "[reflection]\n- the session is about migrations"


def test_bad_inputs_skip_session_memory_and_keep_the_facts(demo_root: Path, transcript: Path) -> None:
    question = "how do we run the database migrations?"
    for bad in ("../../etc/passwd", "a/b", 42):
        context, err = hook(
            demo_root,
            "user-prompt-submit",
            json.dumps({"session_id": bad, "hook_event_name": "UserPromptSubmit", "prompt": question}),
        )
        assert context.startswith(FACTS_HEADER)
        assert err.count("\n") == 1 and err.startswith("foundry hook: session memory skipped: the hook payload's")
    # A transcript that is missing, or not JSONL at all: nothing counted, the tiers still come.
    session(demo_root, "add", "--session", SESSION, "kept")
    transcript.write_bytes(b"\x00\xff garbage\n{]\n")
    assert prompt(demo_root, transcript, "ok") == "[working_memory]\n- kept"
    assert prompt(demo_root, transcript.with_name("gone.jsonl"), "ok") == "[working_memory]\n- kept"
    # A corrupt store: the facts still come, one line on stderr, the file is left for the curator.
    db = demo_root / ".foundry/scratch/sessions.db"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"garbage" * 100)
    context, err = hook(
        demo_root, "user-prompt-submit", payload("UserPromptSubmit", demo_root, transcript, prompt=question)
    )
    assert context.startswith(FACTS_HEADER)
    assert err == (
        "foundry hook: session memory skipped: .foundry/scratch/sessions.db cannot be used (file is not a database): "
        "move it aside or delete it to start empty (session memory is scratch; the facts are not in it)\n"
    )
    assert db.read_bytes() == b"garbage" * 100
    code, _out, err = session(demo_root, "list")
    assert code == 1 and err.count("\n") == 1 and "cannot be used (file is not a database)" in err


def test_a_repository_without_foundry_gets_no_store(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    context, err = hook(
        tmp_path, "user-prompt-submit", payload("UserPromptSubmit", tmp_path, None, prompt="hello there all")
    )
    assert (context, err) == ("", "")
    assert not (tmp_path / ".foundry").exists()


# ---- the CLI ---------------------------------------------------------------------------------


def test_cli_edit_errors(demo_root: Path) -> None:
    code, _, err = session(demo_root, "remove", "--session", SESSION, "nothing")
    assert (code, err) == (
        1,
        "foundry: error: no working fact 'nothing'; working memory holds: nothing (working memory is empty)\n",
    )
    code, _, err = session(demo_root, "add", "--session", "../x", "fact")
    assert code == 2 and err.startswith("foundry: error: session id '../x' is not usable")
    code, _, err = session(demo_root, "add", "--session", SESSION, "y" * 5000)
    assert code == 2 and "5,000 characters; a working fact holds at most 300" in err


def test_cli_list_show_promote_prune(demo_root: Path) -> None:
    code, out, _ = session(demo_root, "list")
    assert (code, out) == (
        0,
        "No sessions in .foundry/scratch/sessions.db yet: they appear when an agent's foundry hooks run.\n",
    )
    session(demo_root, "add", "--session", SESSION, "Orders are archived after 90 days")
    session(demo_root, "add", "--session", OTHER_SESSION, "scratch note")
    code, out, _ = session(demo_root, "list", "--json")
    rows = {row["session"]: row for row in json.loads(out)}
    assert rows[SESSION]["working_facts"] == 1 and rows[SESSION]["working_version"] == 1
    code, out, _ = session(demo_root, "show", SESSION)
    assert "[working_memory] version 1\n1. Orders are archived after 90 days\n" in out

    code, out, err = session(demo_root, "promote", SESSION, "1", "--type", "domain", "--tags", "orders,retention")
    assert code == 0, err
    fact_id = out.split()[1]
    assert out.startswith(f"created: {fact_id}")
    fact = (demo_root / f".foundry/memory/facts/{fact_id}.md").read_text()
    assert "title: Orders are archived after 90 days" in fact and "type: domain" in fact
    assert f"Promoted from session {SESSION}'s working memory." in fact
    detail = json.loads(session(demo_root, "show", SESSION, "--json")[1])
    assert detail["audit"][-1]["kind"] == "promoted" and detail["audit"][-1]["record"]["fact_id"] == fact_id
    code, _, err = session(demo_root, "promote", SESSION, "not there")
    assert code == 1 and "no working fact 'not there' in this session; it holds: 1. 'Orders are archived" in err
    code, _, err = session(demo_root, "promote", "no-such-session", "1")
    assert code == 1 and "no session 'no-such-session'" in err

    # prune asks first, says what it removes, and removes nothing without a yes
    code, out, _ = session(demo_root, "prune", "--older-than", "10", "--today", "2099-01-01", stdin="n\n")
    assert code == 0 and out.startswith("2 sessions last active before 2098-12-22 would be removed")
    assert out.endswith("Remove them? [y/N] \nNothing removed (pass --yes to remove without asking).\n")
    code, out, _ = session(demo_root, "prune", "--older-than", "10", "--today", "2099-01-01", stdin="")
    assert "Nothing removed" in out
    assert len(json.loads(session(demo_root, "list", "--json")[1])) == 2
    code, out, _ = session(demo_root, "prune", "--older-than", "10000000", "--yes")
    assert out.startswith("No session was last active before")
    code, out, _ = session(demo_root, "prune", "--older-than", "10", "--today", "2099-01-01", stdin="y\n")
    assert out.endswith("Removed 2 sessions.\n")
    assert session(demo_root, "list")[1].startswith("No sessions")
    assert (demo_root / f".foundry/memory/facts/{fact_id}.md").exists()  # the T1 fact stays


def test_init_sets_the_triggers_and_ignores_the_store(tmp_path: Path) -> None:
    run = run_cli("--root", str(tmp_path), "init")
    assert run.code == 0, run.err
    config = json.loads((tmp_path / ".foundry/config.json").read_text())
    assert config["sessionMemory"] == {"observationTriggerTokens": 30_000, "reflectionTriggerTokens": 40_000}
    assert ".foundry/scratch" in (tmp_path / ".gitignore").read_text().splitlines()


@pytest.mark.parametrize("value", [0, -5, "30000", 1.5, True])
def test_a_bad_trigger_in_config_is_named(demo_root: Path, value: object) -> None:
    config = json.loads((demo_root / ".foundry/config.json").read_text())
    config["sessionMemory"] = {"reflectionTriggerTokens": value}
    (demo_root / ".foundry/config.json").write_text(json.dumps(config))
    session(demo_root, "add", "--session", SESSION, "x")
    code, _, err = session(demo_root, "show", SESSION)
    assert (code, err) == (
        1,
        "foundry: error: config.json: sessionMemory.reflectionTriggerTokens must be a positive whole number of tokens,"
        f" not {json.dumps(value)}\n",
    )
    assert prompt(demo_root, None, "ok") == "[working_memory]\n- x"  # the hook goes on with the defaults
