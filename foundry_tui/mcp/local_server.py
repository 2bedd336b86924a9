"""The MCP server's side of the local socket (core/local_socket.py, issue 29): the prompt
hook's search answered from the server's warm memory.

`SocketListener` binds `<folder>/<hash of the root>.sock` once the server has loaded the memory
(after initialize has answered), answers one connection at a time in a daemon thread, and
removes its socket when the server stops. Only reads are answered (`READ_KINDS`); a request of
another kind, an oversize or malformed one, or one from another user is refused with a reply
saying why, and the connection closed. A stale socket left by a server that died is removed and
replaced. When two servers serve one root, the newer takes the socket over; the older takes it
back within a second of the newer one's exit (it looks for its socket whenever it has been idle
for ACCEPT_POLL_SECONDS).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
import time
from pathlib import Path

from foundry_tui.core.local_socket import (
    CONNECTION_SECONDS,
    MAX_PATH_BYTES,
    MAX_REPLY_BYTES,
    MAX_REQUEST_BYTES,
    PROTOCOL_VERSION,
    READ_KINDS,
    SocketRefused,
    check_socket,
    encode_line,
    ensure_folder,
    peer_uid,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from foundry_tui.core.json_types import JSONObject, JSONValue

ACCEPT_POLL_SECONDS = 1.0  # how often an idle listener checks that the socket file is still its own
BACKLOG = 8
DRAIN_BYTES = 4 * MAX_REQUEST_BYTES  # what an oversize request's rest is read of, at most, before closing
MAX_PROMPT_LIMIT = 25  # the most facts a prompt_facts request may ask for (memory_search's limit)


class SocketListener:
    """One server's socket: `open()`, then answers in a thread until `close()`."""

    def __init__(self, path: Path, answer: Callable[[JSONObject], str], answered: Callable[[], None]) -> None:
        self.path = path
        self._answer = answer  # a checked prompt_facts request -> its text
        self._answered = answered  # called once a reply is on its way (the server prepares its searches)
        self._sock: socket.socket | None = None
        self._inode: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._prepared = False
        self._lock = threading.RLock()  # close() may run again in a signal handler while it runs

    def open(self) -> bool:
        """Bind and start answering; False (with one line on stderr) when the folder or the
        socket found there may not be trusted, or the path cannot be bound."""
        try:
            self._bind()
        except SocketRefused as exc:
            print(f"foundry mcp: local socket off: {exc}; hooks search on their own", file=sys.stderr)
            return False
        except OSError as exc:
            print(f"foundry mcp: local socket off: {self.path}: {exc.strerror or exc}", file=sys.stderr)
            return False
        self._thread = threading.Thread(target=self._serve, name="foundry-socket", daemon=True)
        self._thread.start()
        return True

    def _bind(self) -> None:
        if len(os.fsencode(self.path)) > MAX_PATH_BYTES:
            raise SocketRefused(f"the socket path {self.path} is over {MAX_PATH_BYTES} bytes")
        ensure_folder(self.path.parent)
        try:
            check_socket(self.path)  # a socket of ours: stale, or a live server's we take over
        except FileNotFoundError:
            pass
        else:
            os.unlink(self.path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(os.fspath(self.path))
            os.chmod(self.path, 0o600)
            sock.listen(BACKLOG)
            sock.settimeout(ACCEPT_POLL_SECONDS)
            st = os.lstat(self.path)
        except BaseException:
            sock.close()
            raise
        with self._lock:
            self._sock, self._inode = sock, (st.st_dev, st.st_ino)

    def _ours(self) -> bool:
        try:
            st = os.lstat(self.path)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self._inode

    def _serve(self) -> None:
        while not self._stop.is_set():
            sock = self._sock
            if sock is None:
                return
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                self._reclaim()
                continue
            except OSError:  # closed by close()
                return
            with conn:
                try:
                    self._handle(conn)
                except OSError:  # the client went away, or took too long
                    pass
                except Exception as exc:  # a bug: never the end of the server
                    print(f"foundry mcp: local socket: {type(exc).__name__}: {exc}", file=sys.stderr)

    def _reclaim(self) -> None:
        """When the socket file is gone (a newer server for this root took it over and has
        stopped), bind it again; while another server's socket is there, leave it be."""
        if self._ours() or self._stop.is_set() or os.path.lexists(self.path):
            return
        old = self._sock
        try:
            self._bind()
        except (OSError, SocketRefused):
            return
        if old is not None:
            old.close()

    def _handle(self, conn: socket.socket) -> None:
        deadline = time.monotonic() + CONNECTION_SECONDS
        uid = peer_uid(conn)
        if uid is not None and uid != os.geteuid():
            _send(conn, _refusal(f"refused: the socket answers only its own user ({os.geteuid()})"), deadline)
            return
        line = _read_line(conn, deadline)
        if line is None:
            _send(
                conn, _refusal(f"refused: a request is at most {MAX_REQUEST_BYTES} bytes, newline included"), deadline
            )
            _drain(conn, deadline)  # so that the refusal is read, not lost to a reset
            return
        if not line:
            return  # closed before a whole line: nothing to answer
        reply = self.reply(line)
        try:
            _send(conn, reply, deadline)
        finally:  # a hook that gave up waiting (a cold scan) still gets a word index for its next prompt
            if reply["ok"] is True and not self._prepared:
                self._prepared = True  # the server's preparation runs beside, never before the next answer
                threading.Thread(target=self._answered, name="foundry-socket-prepare", daemon=True).start()

    def reply(self, line: bytes) -> JSONObject:
        """The reply to one request line (its newline included)."""
        import json

        try:
            request = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return _refusal("refused: the request is not one line of UTF-8 JSON")
        problem = request_problem(request)
        if problem is not None:
            return _refusal(problem)
        assert isinstance(request, dict)
        try:
            text = self._answer(request)
        except Exception as exc:  # a bad config.json, the disk: the hook searches itself and says so
            return _refusal(f"failed: {type(exc).__name__}: {exc}")
        reply: JSONObject = {"v": PROTOCOL_VERSION, "ok": True, "text": text}
        if len(encode_line(reply)) > MAX_REPLY_BYTES:
            return _refusal(f"failed: the reply is over {MAX_REPLY_BYTES} bytes")
        return reply

    def close(self) -> None:
        """Stop answering and remove the socket file, if it is still this server's."""
        self._stop.set()
        with self._lock:
            sock, self._sock = self._sock, None
            if sock is not None and self._ours():
                with contextlib.suppress(OSError):
                    os.unlink(self.path)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def request_problem(request: JSONValue) -> str | None:
    """Why a parsed request is refused, or None for a well-formed read request."""
    if not isinstance(request, dict):
        return "refused: a request is a JSON object"
    if request.get("v") != PROTOCOL_VERSION:
        return f"refused: this server speaks version {PROTOCOL_VERSION} of the socket protocol"
    kind = request.get("kind")
    if kind not in READ_KINDS:
        shown = kind if isinstance(kind, str) else type(kind).__name__
        return f"refused: the socket answers only read requests ({', '.join(READ_KINDS)}), not {shown[:80]!r}"
    for field in ("root", "prompt", "today"):
        if not isinstance(request.get(field), str):
            return f"refused: {field} must be a string"
    limit = request.get("limit")
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_PROMPT_LIMIT:
        return f"refused: limit must be a whole number from 1 to {MAX_PROMPT_LIMIT}"
    return None


def _refusal(error: str) -> JSONObject:
    return {"v": PROTOCOL_VERSION, "ok": False, "error": error}


def _read_line(conn: socket.socket, deadline: float) -> bytes | None:
    """One request line (b"" when the client closed before its newline); None when it is
    over MAX_REQUEST_BYTES. Raises TimeoutError past `deadline`."""
    data = b""
    while b"\n" not in data:
        if len(data) >= MAX_REQUEST_BYTES:
            return None
        conn.settimeout(_left(deadline))
        chunk = conn.recv(min(65536, MAX_REQUEST_BYTES + 1 - len(data)))
        if not chunk:
            return b""
        data += chunk
    line = data[: data.index(b"\n") + 1]
    return line if len(line) <= MAX_REQUEST_BYTES else None


def _send(conn: socket.socket, reply: JSONObject, deadline: float) -> None:
    conn.settimeout(_left(deadline))
    conn.sendall(encode_line(reply))


def _drain(conn: socket.socket, deadline: float) -> None:
    """After a refusal: stop writing, and read and drop what the client still sends, at most
    DRAIN_BYTES and until `deadline`, so that closing does not reset the connection first."""
    conn.shutdown(socket.SHUT_WR)
    dropped = 0
    while dropped < DRAIN_BYTES:
        conn.settimeout(_left(deadline))
        chunk = conn.recv(65536)
        if not chunk:
            return
        dropped += len(chunk)


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the connection's time is up")
    return left
