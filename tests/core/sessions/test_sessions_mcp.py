"""Session memory's MCP tools driven by the official SDK client, and one session across
adapters: two agent processes in one repository at once, each with its own hooks and its
own MCP server, each finding its own session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.session_helpers import OTHER_SESSION, SESSION, assistant_lines, prompt, start, usage


def _params(root: Path, session: str | None) -> StdioServerParameters:
    env = {
        "FOUNDRY_CACHE_DIR": os.environ["FOUNDRY_CACHE_DIR"],
        "FOUNDRY_TODAY": "2026-11-30",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    if session:
        env["FOUNDRY_SESSION"] = session
    return StdioServerParameters(
        command=sys.executable, args=["-m", "foundry_tui", "mcp", "--root", str(root)], env=env
    )


async def _call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    result = await client.call_tool(name, arguments)
    return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]


async def test_memory_tools_through_the_sdk_reach_the_hooks(demo_root: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(assistant_lines("msg_1", usage(4, 31_000, 0, 500)))
    assert "[memory_request]" in prompt(demo_root, transcript, "ok")
    async with Client(_params(demo_root, SESSION)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["memory"].input_schema["properties"]["command"]["enum"] == ["add", "remove", "replace"]
        assert tools["memory_observe"].input_schema["required"] == ["entries"]
        assert await _call(client, "memory", {"command": "add", "fact": "orders tests need FOO=1"}) == (
            False,
            "added: orders tests need FOO=1\nworking memory (version 1, 1 of 40 facts):\n- orders tests need FOO=1",
        )
        assert (await _call(client, "memory", {"command": "add", "fact": "API in src/http"}))[0] is False
        error, text = await _call(client, "memory", {"command": "remove", "fact": "API in src/api"})
        assert (error, text) == (
            True,
            "memory failed: no working fact 'API in src/api'; working memory holds: "
            "'orders tests need FOO=1'; 'API in src/http'",
        )
        error, text = await _call(
            client, "memory", {"command": "replace", "old": "API in src/http", "new": "API in src/web"}
        )
        assert not error and "working memory (version 3, 2 of 40 facts)" in text
        error, text = await _call(client, "memory", {"command": "add", "fact": "z" * 20_000})
        assert error and "20,000 characters; a working fact holds at most 300" in text
        error, text = await _call(client, "memory", {"command": "replace", "old": "x"})
        assert (error, text) == (True, "memory failed: memory replace needs the arguments 'old' and 'new'")
        with pytest.raises(MCPError, match="argument 'command' must be one of add, remove, replace"):
            await client.call_tool("memory", {"command": "drop", "fact": "x"})

        error, text = await _call(
            client,
            "memory_observe",
            {"entries": ["ran the orders suite: 3 failures, all fixtures"], "token_count": 31_504},
        )
        assert (error, text) == (
            False,
            "observation saved: 1 new entry (1 in the tier), 31,504 tokens condensed; rolling counter reset, "
            "31,504 tokens observed since the last reflection",
        )
        error, text = await _call(client, "memory_reflect", {"entries": ["orders fixtures are the problem"]})
        assert not error and text.startswith("reflection saved: 1 entry; observation counter reset")
        error, text = await _call(client, "memory_reflect", {"entries": []})
        assert (error, text) == (
            True,
            "memory_reflect failed: memory_reflect: entries is empty: give at least one short line",
        )

    context = prompt(demo_root, transcript, "ok")
    assert context == (
        "[working_memory]\n- orders tests need FOO=1\n- API in src/web\n\n[reflection]\n- orders fixtures are the problem"
    )  # the observation is older than the reflection; no request: the counters were reset
    assert start(demo_root, transcript, source="compact").startswith(context + "\n\nFoundry project memory.")


async def test_a_junk_foundry_session_is_an_error_result(demo_root: Path) -> None:
    async with Client(_params(demo_root, "../../etc")) as client:
        error, text = await _call(client, "memory", {"command": "add", "fact": "x"})
    assert error and text == (
        "memory failed: FOUNDRY_SESSION '../../etc' is not usable: use at most 128 letters, digits, '.', '_' or '-' "
        "(no path characters)"
    )


async def test_a_server_whose_agent_ran_no_hook_finds_no_session(demo_root: Path) -> None:
    async with Client(_params(demo_root, None)) as client:
        error, text = await _call(client, "memory", {"command": "add", "fact": "x"})
    assert error and text == (
        "memory failed: no agent session found for this process: run it from a Claude Code session whose foundry "
        "hooks have run (foundry init installs them), or set FOUNDRY_SESSION to the session id"
    )


# A stand-in for Claude Code: runs its SessionStart hook through `sh -c` as Claude Code does,
# waits until the other agent is up too, then starts its own MCP server with the SDK client
# (no FOUNDRY_SESSION) and edits its working memory.
AGENT = r"""
import asyncio, json, os, shlex, subprocess, sys, time
from pathlib import Path
from mcp import Client
from mcp.client.stdio import StdioServerParameters

root, session, name = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
command = " ".join(shlex.quote(p) for p in [sys.executable, "-m", "foundry_tui", "--root", str(root), "hook", "session-start"])
event = {"session_id": session, "hook_event_name": "SessionStart", "source": "startup", "cwd": str(root)}
subprocess.run(["sh", "-c", command], input=json.dumps(event), text=True, check=True, capture_output=True)
(root / f"ready-{name}").touch()
deadline = time.time() + 60
while not all((root / f"ready-{other}").exists() for other in ("left", "right")):
    assert time.time() < deadline
    time.sleep(0.05)

async def main():
    env = {k: v for k, v in os.environ.items() if k != "FOUNDRY_SESSION"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "foundry_tui", "mcp", "--root", str(root)], env=env)
    async with Client(params) as client:
        replies = []
        for number in range(3):
            result = await client.call_tool("memory", {"command": "add", "fact": f"{name} fact {number}"})
            replies.append([result.is_error, result.content[0].text])
        return replies

print(json.dumps(asyncio.run(main())))
"""


def test_two_agents_in_one_repository_each_find_their_own_session(demo_root: Path) -> None:
    agents = {
        name: subprocess.Popen(
            [sys.executable, "-c", AGENT, str(demo_root), session, name],
            cwd=demo_root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, session in (("left", SESSION), ("right", OTHER_SESSION))
    }
    for name, proc in agents.items():
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        replies = json.loads(out)
        assert [error for error, _ in replies] == [False, False, False], replies
        assert replies[-1][1].endswith(f"- {name} fact 0\n- {name} fact 1\n- {name} fact 2")
    for session, name in ((SESSION, "left"), (OTHER_SESSION, "right")):
        context = prompt(demo_root, None, "ok", session=session)
        assert context == f"[working_memory]\n- {name} fact 0\n- {name} fact 1\n- {name} fact 2"


# Claude Code's Bash tool runs commands through a shell under the agent: `foundry session add`
# there finds the agent's session without --session; after /clear the agent's SessionStart
# (source "clear") carries a new id, and the same process now serves that one.
BASH_TOOL = r"""
import json, shlex, subprocess, sys
from pathlib import Path

root, first, second = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
foundry = [sys.executable, "-m", "foundry_tui", "--root", str(root)]

def hook(session, source):
    event = {"session_id": session, "hook_event_name": "SessionStart", "source": source, "cwd": str(root)}
    command = " ".join(shlex.quote(p) for p in [*foundry, "hook", "session-start"])
    subprocess.run(["sh", "-c", command], input=json.dumps(event), text=True, check=True, capture_output=True)

def bash(*args):
    command = " ".join(shlex.quote(p) for p in [*foundry, "session", *args])
    done = subprocess.run(["bash", "-c", command], text=True, capture_output=True)
    return [done.returncode, done.stdout, done.stderr]

hook(first, "startup")
replies = [bash("add", "before the clear")]
hook(second, "clear")
replies.append(bash("add", "after the clear"))
print(json.dumps(replies))
"""


def test_the_bash_tool_and_clear_follow_the_agent(demo_root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "FOUNDRY_SESSION"}
    proc = subprocess.run(
        [sys.executable, "-c", BASH_TOOL, str(demo_root), SESSION, OTHER_SESSION],
        cwd=demo_root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    replies = json.loads(proc.stdout)
    assert [code for code, _out, _err in replies] == [0, 0], replies
    assert prompt(demo_root, None, "ok", session=SESSION) == "[working_memory]\n- before the clear"
    assert prompt(demo_root, None, "ok", session=OTHER_SESSION) == "[working_memory]\n- after the clear"


def test_the_server_holds_the_store_so_hooks_never_checkpoint_on_close(demo_root: Path) -> None:
    db = demo_root / ".foundry/scratch/sessions.db"
    wal = Path(f"{db}-wal")
    prompt(demo_root, None, "ok")  # the agent's first hook makes the store
    assert db.exists() and not wal.exists()  # closed by the last connection: checkpointed, WAL gone
    server = subprocess.Popen(
        [sys.executable, "-m", "foundry_tui", "mcp", "--root", str(demo_root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=demo_root,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "runbook_list", "arguments": {}}},
        ):
            server.stdin.write(json.dumps(message).encode() + b"\n")
            server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1
        assert json.loads(server.stdout.readline())["id"] == 2
        deadline = time.monotonic() + 10
        while not wal.exists() and time.monotonic() < deadline:  # the server's connection attaches the WAL
            time.sleep(0.05)
        assert wal.exists()
        prompt(demo_root, None, "ok")
        assert wal.exists()  # the hook's close was not the last: no checkpoint, no fsync
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    assert not wal.exists()  # the server, last to close, checkpointed it
