"""The MCP server over raw JSON-RPC: the edges an SDK client hides."""

from __future__ import annotations

import json
import selectors
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


class RawServer:
    """`python -m foundry_tui mcp` with line-level access to its stdin and stdout."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "foundry_tui", "mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.selector = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)

    def send(self, payload: Any) -> None:
        assert self.proc.stdin is not None
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 10.0) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        if not self.selector.select(timeout):
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def ask(self, payload: Any, timeout: float = 10.0) -> dict[str, Any]:
        self.send(payload)
        answer = self.receive(timeout)
        assert answer is not None, "no answer"
        return answer

    def close(self) -> tuple[int, bytes]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=5)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        return code, self.proc.stdout.read()


def running_server(root: Path, *, initialised: bool = True) -> Iterator[RawServer]:
    """A raw server on `root` (past initialize unless told otherwise), killed afterwards if it
    is still running: the body of every raw-server fixture (`yield from running_server(...)`)."""
    srv = RawServer(root)
    if initialised:
        srv.ask(INIT)
    yield srv
    if srv.proc.poll() is None:
        srv.proc.kill()
        srv.proc.wait()


@pytest.fixture
def server(demo_root: Path) -> Iterator[RawServer]:
    yield from running_server(demo_root, initialised=False)


def _call(srv: RawServer, msg_id: int, name: str, arguments: Any) -> dict[str, Any]:
    return srv.ask(
        {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    )


def test_unknown_method_before_initialize_is_answered_at_once(server: RawServer) -> None:
    # Answered on its own: nothing else was sent, so the server did not wait for initialize.
    answer = server.ask({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {}})
    assert answer == {
        "jsonrpc": "2.0",
        "id": 0,
        "error": {"code": -32601, "message": "Method not found: server/discover"},
    }
    init = server.ask(INIT)["result"]
    assert init["protocolVersion"] == "2025-06-18"
    assert init["serverInfo"]["name"] == "foundry"
    assert init["capabilities"] == {
        "tools": {"listChanged": False},
        "resources": {"subscribe": False, "listChanged": False},
    }
    assert init["instructions"] == (
        "Foundry memory and contracts. Prefer memory_search over reading .foundry files. Consult runbook_list before "
        "recurring tasks. Hand work between agents with blackboard_write, returning only the artifact path and a short summary."
    )


def test_error_codes(server: RawServer) -> None:
    server.ask(INIT)
    assert server.ask(b"{not json")["error"]["code"] == -32700
    assert server.ask(b"{not json")["id"] is None
    batch = server.ask([{"jsonrpc": "2.0", "id": 5, "method": "ping"}])
    assert batch["error"]["code"] == -32600 and batch["id"] is None
    assert server.ask(42)["error"]["code"] == -32600
    assert server.ask({"jsonrpc": "1.0", "id": 6, "method": "ping"})["error"]["code"] == -32600
    assert server.ask({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": [1]})["error"]["code"] == -32602
    assert server.ask({"jsonrpc": "2.0", "id": 8, "method": "resources/read", "params": {"uri": "foundry://x"}})[
        "error"
    ] == {"code": -32602, "message": "Unknown resource: foundry://x"}
    assert _call(server, 9, "no_such_tool", {})["error"]["code"] == -32602
    assert server.ask({"jsonrpc": "2.0", "id": 10, "method": "ping"}) == {"jsonrpc": "2.0", "id": 10, "result": {}}


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("memory_search", {}, "missing required argument 'query'"),
        ("memory_search", {"query": "x", "limit": "3"}, "argument 'limit' must be an integer"),
        ("memory_search", {"query": "x", "limit": 26}, "argument 'limit' must be from 1 to 25"),
        ("memory_search", {"query": "x", "limit": True}, "argument 'limit' must be an integer"),
        ("memory_search", {"query": "x", "type": "opinion"}, "argument 'type' must be one of decision"),
        (
            "memory_write",
            {"title": "t", "body": "b", "type": "domain", "tags": "a,b"},
            "argument 'tags' must be an array",
        ),
        (
            "memory_write",
            {"title": "t", "body": "b", "type": "domain", "tags": [1]},
            "argument 'tags' must be a list of strings",
        ),
        (
            "memory_write",
            {"title": "t", "body": "b", "type": "domain", "expires": "soon"},
            "argument 'expires' must be YYYY-MM-DD",
        ),
        ("blackboard_read", {"wave": "w", "full": "yes"}, "argument 'full' must be a boolean"),
        ("runbook_list", {"extra": 1}, "unknown argument 'extra'"),
    ],
)
def test_wrong_argument_types_are_refused_not_coerced(
    server: RawServer, name: str, arguments: dict[str, Any], message: str
) -> None:
    server.ask(INIT)
    error = _call(server, 2, name, arguments)["error"]
    assert error["code"] == -32602
    assert message in error["message"]


def test_notifications_get_no_answer(server: RawServer) -> None:
    server.ask(INIT)
    for method in ("notifications/initialized", "notifications/cancelled", "notifications/whatever"):
        server.send({"jsonrpc": "2.0", "method": method, "params": {"requestId": 1}})
    assert server.ask({"jsonrpc": "2.0", "id": 99, "method": "ping"})["id"] == 99  # the next line is the ping's answer


def test_tool_failure_is_an_error_result(server: RawServer) -> None:
    server.ask(INIT)
    result = _call(server, 2, "memory_write", {"title": "x" * 80, "body": "w " * 130, "type": "domain"})["result"]
    assert result["isError"] is True
    assert (
        result["content"][0]["text"]
        == "memory_write failed: body is 130 words, 10 over the 120-word limit: shorten it or split it into two facts"
    )


def test_a_one_megabyte_line_is_handled(server: RawServer) -> None:
    server.ask(INIT)
    query = "postgres " + "x" * (1024 * 1024)
    answer = _call(server, 2, "memory_search", {"query": query})
    assert answer["result"]["isError"] is False
    assert answer["result"]["content"][0]["text"].startswith("### fact-0009 · decision")


def test_exits_cleanly_on_eof_and_writes_only_protocol(server: RawServer) -> None:
    server.ask(INIT)
    _call(server, 2, "memory_search", {"query": "postgres"})  # the engine, its warm-up and the watcher are running
    code, rest = server.close()  # closes stdin, then waits for the process to end by itself
    assert code == 0 and rest == b""


def test_stdout_is_only_protocol_messages(demo_root: Path) -> None:
    lines = [
        json.dumps(INIT),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        json.dumps(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "token_report", "arguments": {}}}
        ),
        json.dumps(
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_index", "arguments": {}}}
        ),
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "foundry_tui", "mcp", "--root", str(demo_root)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    out = proc.stdout.splitlines()
    assert len(out) == 3
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in out)
