"""The warm server's local socket (issue 29): where it lives, who may trust it, and the one
request a hook sends it.

A running `foundry mcp` keeps the memory warm (the facts loaded, the word index, the ranker's
postings). It answers the prompt hook's search over a Unix domain socket, so that the hook,
a fresh process on every prompt, need not load the memory itself. The socket is
`<folder>/<hash of the resolved root>.sock`, in a folder only its user can reach:

- the folder: `$XDG_RUNTIME_DIR/foundry-tui`, else `run/` in the user cache folder
  (`$FOUNDRY_CACHE_DIR`, else `$XDG_CACHE_HOME/foundry-tui`, else `~/.cache/foundry-tui`),
  created 0700; a folder that is a link, is owned by another user, or is open to others
  (group or other permission bits) is refused;
- the socket: a socket (not a link or a file), owned by the user, 0600; and on Linux the
  process at the other end must run as the same user (SO_PEERCRED), both ways.

The protocol, version 1: one JSON object on one line each way, then the connection closes.

    {"v": 1, "kind": "prompt_facts", "root": "/abs/root", "prompt": "...", "today": "YYYY-MM-DD", "limit": 5}
    {"v": 1, "ok": true, "text": "..."}          or          {"v": 1, "ok": false, "error": "..."}

`prompt_facts` is the only kind, and a read: the text is what the prompt hook injects (""
for nothing). A request is at most MAX_REQUEST_BYTES and a reply at most MAX_REPLY_BYTES,
newline included; the server gives a connection CONNECTION_SECONDS in all. The hook has two
deadlines: HOOK_DEADLINE_SECONDS to reach a server (connect and send its request;
FOUNDRY_SOCKET_DEADLINE_MS sets another, up to a second), then REPLY_DEADLINE_SECONDS for the
answer (FOUNDRY_SOCKET_REPLY_MS sets another, up to MAX_REPLY_MS). A server that has accepted
the request is alive and warm, and its answer (a prompt embedded and a fused search, 60 to 90 ms
on a loaded 2-core machine) costs far less than the hook's own search (300 to 900 ms at 10,000
facts), so the hook waits for it longer than for the connection; one that hangs costs at most
the reply deadline. Whatever goes wrong (no server, a stale socket: refused at once, a refused
folder, a server killed mid-reply: the socket closes at once, a reply past its deadline, a
malformed or oversize reply), the hook searches on its own, and its answer is the same bytes
(ADR 43: for `hybrid`, bm25's rule). `FOUNDRY_NO_SOCKET=1` turns the socket off on both sides.

This module is on the hook's start-up path: os and json at the top, socket imported only
when a socket file is there to ask.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket as _socket

    from foundry_tui.core.json_types import JSONObject

PROTOCOL_VERSION = 1
READ_KINDS = ("prompt_facts",)  # the only requests the socket answers: reads
MAX_REQUEST_BYTES = 256 * 1024  # a request line, newline included (a longer prompt: the hook searches itself)
MAX_REPLY_BYTES = 256 * 1024  # a reply line, newline included (five served facts are a few kB)
CONNECTION_SECONDS = 1.0  # the server's time for one connection, all reads and writes together
HOOK_DEADLINE_SECONDS = 0.040  # the hook's time to connect and send its request
DEADLINE_VARIABLE = "FOUNDRY_SOCKET_DEADLINE_MS"  # another deadline, in whole ms from 1 to MAX_DEADLINE_MS
MAX_DEADLINE_MS = 1000
REPLY_DEADLINE_SECONDS = 0.250  # then the hook's time for the whole answer (docs/benchmarks.md)
REPLY_VARIABLE = "FOUNDRY_SOCKET_REPLY_MS"  # another reply deadline, in whole ms from 1 to MAX_REPLY_MS
MAX_REPLY_MS = 5000
MAX_PATH_BYTES = 107  # sockaddr_un's sun_path on Linux (104 on macOS), less its terminating NUL
FOLDER_NAME = "foundry-tui"
OFF_VARIABLE = "FOUNDRY_NO_SOCKET"


class SocketRefused(Exception):
    """The folder or the socket may not be trusted: one line saying why."""


def socket_enabled() -> bool:
    return not os.environ.get(OFF_VARIABLE)


def _milliseconds(variable: str, most: int, default: float) -> float:
    text = os.environ.get(variable, "")
    if text.isdigit() and 1 <= int(text) <= most:
        return int(text) / 1000
    return default


def hook_deadline() -> float:
    """The hook's deadline to reach a server (connect and send), in seconds: FOUNDRY_SOCKET_DEADLINE_MS
    when it is a whole number of milliseconds from 1 to MAX_DEADLINE_MS (a slow or busy machine),
    else HOOK_DEADLINE_SECONDS."""
    return _milliseconds(DEADLINE_VARIABLE, MAX_DEADLINE_MS, HOOK_DEADLINE_SECONDS)


def reply_deadline() -> float:
    """The hook's deadline for the answer once its request is sent, in seconds: FOUNDRY_SOCKET_REPLY_MS
    when it is a whole number of milliseconds from 1 to MAX_REPLY_MS, else REPLY_DEADLINE_SECONDS."""
    return _milliseconds(REPLY_VARIABLE, MAX_REPLY_MS, REPLY_DEADLINE_SECONDS)


def socket_folder() -> Path:
    """The folder the sockets live in (see the module's docstring)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        return Path(runtime) / FOLDER_NAME
    base = os.environ.get("FOUNDRY_CACHE_DIR")
    if base:
        cache = Path(base)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        cache = (Path(xdg) if xdg else Path.home() / ".cache") / FOLDER_NAME
    return cache / "run"


# FNV-1a, 128 bits: the socket's name from the root's path. Not a secret and not a defence (the
# folder is the user's own, and the server refuses a request for another root, so two roots
# sharing a name cost only the hook's own search), but spread well enough, and computed without
# hashlib, whose OpenSSL binding the hook would import on every prompt for this alone (about 5 ms
# of CPU here).
_FNV_OFFSET = 0x6C62272E07BB014262B821756295C58D
_FNV_PRIME = 0x0000000001000000000000000000013B
_FNV_MASK = (1 << 128) - 1


def path_key(path: str) -> str:
    """24 hex digits naming `path`: the first 96 bits of its UTF-8 bytes' FNV-1a hash."""
    value = _FNV_OFFSET
    for byte in path.encode("utf-8", "surrogateescape"):
        value = ((value ^ byte) * _FNV_PRIME) & _FNV_MASK
    return f"{value:032x}"[:24]


def socket_path(root: Path) -> Path:
    """The socket of the server for `root`: one per resolved root."""
    return socket_folder() / f"{path_key(os.path.realpath(root))}.sock"


def _private(st: os.stat_result, what: str, path: Path) -> None:
    if st.st_uid != os.geteuid():
        raise SocketRefused(f"{what} {path} is owned by user {st.st_uid}, not by this user ({os.geteuid()})")
    if st.st_mode & 0o077:
        mode = stat.S_IMODE(st.st_mode)
        raise SocketRefused(f"{what} {path} is open to other users (mode {mode:04o}; it must be 0700 or tighter)")


def check_folder(folder: Path) -> None:
    """Raise SocketRefused unless `folder` is a real directory of this user's, closed to others."""
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):
        raise SocketRefused(f"the socket folder {folder} is not a directory (a link or a file is never followed)")
    _private(st, "the socket folder", folder)


def check_socket(path: Path) -> None:
    """Raise SocketRefused unless `path` is a socket of this user's, closed to others (its folder checked first)."""
    check_folder(path.parent)
    st = os.lstat(path)
    if not stat.S_ISSOCK(st.st_mode):
        raise SocketRefused(f"{path} is not a socket")
    _private(st, "the socket", path)


def ensure_folder(folder: Path) -> None:
    """Create the socket folder 0700 when missing (its parents as the user's defaults make
    them); then check it. Raises SocketRefused or OSError."""
    import contextlib

    folder.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):  # made already, or meanwhile by another server: checked below
        os.mkdir(folder, 0o700)
    check_folder(folder)


def peer_uid(conn: _socket.socket) -> int | None:
    """The user id of the process at the other end of a connected Unix socket (Linux); None elsewhere."""
    import socket

    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    # struct ucred: three C ints (pid, uid, gid) in the machine's byte order; read without struct,
    # one import fewer on the hook's path.
    raw = conn.getsockopt(socket.SOL_SOCKET, option, 12)
    return int.from_bytes(raw[4:8], sys.byteorder, signed=True)


def encode_line(message: JSONObject) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def prompt_request(root: Path, prompt: str, today: str, limit: int) -> JSONObject:
    return {
        "v": PROTOCOL_VERSION,
        "kind": "prompt_facts",
        "root": os.path.realpath(root),
        "prompt": prompt,
        "today": today,
        "limit": limit,
    }


def _debug(line: str) -> None:
    if os.environ.get("FOUNDRY_DEBUG"):
        print(f"foundry hook: {line}", file=sys.stderr)


def ask_prompt_facts(root: Path, prompt: str, today: str, limit: int) -> str | None:
    """The warm server's prompt_facts text for `prompt` ("" for none), or None when no server
    answered in time, or its answer could not be used: the hook then searches itself.
    A folder or socket that may not be trusted is one line on stderr."""
    if not socket_enabled():
        return None
    path = socket_path(root)
    try:
        check_socket(path)
    except FileNotFoundError:
        _debug("no server socket; searching here")
        return None
    except SocketRefused as exc:
        print(f"foundry hook: not asking the server's socket: {exc}; searching here", file=sys.stderr)
        return None
    except OSError as exc:
        _debug(f"server socket unusable ({exc.strerror}); searching here")
        return None
    request = encode_line(prompt_request(root, prompt, today, limit))
    if len(request) > MAX_REQUEST_BYTES:
        _debug(f"prompt over the socket's {MAX_REQUEST_BYTES}-byte request limit; searching here")
        return None
    try:
        raw = _exchange(path, request)
    except SocketRefused as exc:
        print(f"foundry hook: not asking the server's socket: {exc}; searching here", file=sys.stderr)
        return None
    except ReplyLate:
        _debug(f"the server did not answer within {round(reply_deadline() * 1000)} ms; searching here")
        return None
    except OSError as exc:  # refused (stale: no listener), timed out connecting, reset
        _debug(f"no answer from the server socket ({exc.strerror or type(exc).__name__}); searching here")
        return None
    text = _reply_text(raw)
    if text is None:
        _debug("the server's reply was not usable; searching here")
        return None
    _debug(f"facts from the server at {path}")
    return text


class ReplyLate(Exception):
    """The server took the request but did not answer within the reply deadline."""


def _exchange(path: Path, request: bytes) -> bytes | None:
    """Send `request` within the hook's deadline, then read one reply line within the reply
    deadline; None when the reply is cut short (no newline before the server closed) or over
    MAX_REPLY_BYTES. Raises TimeoutError (or another OSError) when no server took the request,
    ReplyLate when it did and then did not answer in time."""
    import socket
    import time

    deadline = time.monotonic() + hook_deadline()

    def remaining() -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("deadline passed")
        return left

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(remaining())
        conn.connect(os.fspath(path))
        uid = peer_uid(conn)
        if uid is not None and uid != os.geteuid():
            raise SocketRefused(f"the process listening on {path} runs as user {uid}, not as this user")
        conn.settimeout(remaining())
        conn.sendall(request)
        deadline = time.monotonic() + reply_deadline()  # the request is with a live server: its answer's time
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                conn.settimeout(remaining())
                chunk = conn.recv(65536)
            except TimeoutError as exc:
                raise ReplyLate from exc
            if not chunk:
                return None  # closed before the newline: killed mid-reply, or refused
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_REPLY_BYTES:
                return None
            if b"\n" in chunk:
                data = b"".join(chunks)
                return data if data.endswith(b"\n") and data.count(b"\n") == 1 else None


def _reply_text(raw: bytes | None) -> str | None:
    """The text of a well-formed successful reply, else None."""
    if raw is None:
        return None
    try:
        reply = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(reply, dict) or reply.get("v") != PROTOCOL_VERSION or reply.get("ok") is not True:
        return None
    text = reply.get("text")
    return text if isinstance(text, str) else None
