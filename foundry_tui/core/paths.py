"""Where things live: the four tiers under a project root, root discovery, and "today"."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from foundry_tui.core.errors import FoundryError, InputError

TYPE_CHECKING = False  # the MCP server imports this at start-up: keep typing and datetime out
if TYPE_CHECKING:
    import datetime as _dt


# The most any project file (fact, index, runbook, ADR, contract, config, artifact) may
# hold when it is read: a hostile or mistaken file must not take all memory or time.
MAX_FILE_BYTES = 16 * 1024 * 1024
LINK_ADVICE = "replace the link with a real folder or file inside the project"


class UnsafePathError(FoundryError, OSError):
    """A path that leaves the project root through a link, or is not a regular file.

    An OSError too, so every reader that already treats an unreadable file as broken
    (a named broken entry, an index rebuilt in memory) does the same with this one."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.strerror = message


def _file_kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a file"


def read_regular(path: Path | str, limit: int = MAX_FILE_BYTES, *, follow: bool = True, shown: str = "") -> bytes:
    """The bytes of `path` if it is a regular file of at most `limit` bytes.

    Opened non-blocking (a FIFO cannot stall the open) and checked with fstat before a
    byte is read (a device such as /dev/zero is never read); reads stop at `limit`."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | (0 if follow else os.O_NOFOLLOW)
    name = shown or str(path)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not follow and exc.errno == errno.ELOOP:  # the last part is a link
            raise UnsafePathError(f"{name} is a symbolic link: it must be a regular file") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafePathError(f"{name} is not a regular file ({_file_kind(info.st_mode)}): replace it with a file")
        if info.st_size > limit:
            raise UnsafePathError(f"{name} is larger than {limit} bytes: split it or remove it")
        chunks = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise UnsafePathError(f"{name} is larger than {limit} bytes: split it or remove it")
        return b"".join(chunks)
    finally:
        os.close(fd)


def decode_text(data: bytes) -> str:
    """UTF-8 with universal newlines: what `Path.read_text(encoding="utf-8")` returns."""
    text = data.decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _is_loop(path: Path) -> bool:
    """Whether following `path` never ends (ELOOP), on every Python version."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def fact_file_name(fact_id: str) -> str:
    """A fact's file name: its id and `.md` (the one place the name is built)."""
    return f"{fact_id}.md"


class Layout:
    """The on-disk layout of one project (ADR 0002).

    A plain class, not a dataclass: the MCP server and the hooks import this module
    before anything else, and dataclasses costs more to import than the rest of it.

    It is also the one guard on the root's boundary (issue 9): `check_inside` names a
    link that leads out of the root, `read_text`/`read_bytes` read only regular files
    inside it. Every reader and writer of project files goes through them."""

    __slots__ = ("_real_root", "root")

    def __init__(self, root: Path) -> None:
        self.root = root
        self._real_root: Path | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    def __repr__(self) -> str:
        return f"Layout({self.root!r})"

    @property
    def foundry(self) -> Path:
        return self.root / ".foundry"

    @property
    def memory_dir(self) -> Path:
        return self.foundry / "memory"

    @property
    def facts_dir(self) -> Path:
        return self.memory_dir / "facts"

    def fact_path(self, fact_id: str) -> Path:
        """The file of fact `fact_id` (its id is its file name): `.foundry/memory/facts/<id>.md`."""
        return self.facts_dir / fact_file_name(fact_id)

    @property
    def index_path(self) -> Path:
        return self.memory_dir / "INDEX.md"

    @property
    def runbooks_dir(self) -> Path:
        return self.foundry / "runbooks"

    @property
    def adr_dir(self) -> Path:
        return self.root / "docs" / "adr"

    @property
    def blackboard_dir(self) -> Path:
        return self.foundry / "blackboard"

    @property
    def contracts_dir(self) -> Path:
        return self.foundry / "contracts"

    @property
    def scratch_dir(self) -> Path:
        return self.foundry / "scratch"

    @property
    def metrics_dir(self) -> Path:
        return self.foundry / "metrics"

    @property
    def events_path(self) -> Path:
        return self.metrics_dir / "events.jsonl"

    @property
    def config_path(self) -> Path:
        return self.foundry / "config.json"

    def relative(self, path: Path) -> str:
        """`path` relative to the root when it is inside it (for messages), else as given."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    # ---- the boundary ------------------------------------------------------------------------

    @property
    def real_root(self) -> Path:
        """The root with its own links resolved (what "inside" is measured against)."""
        if self._real_root is None:
            self._real_root = self.root.resolve()
        return self._real_root

    def _escape(self, path: Path) -> tuple[Path, str] | None:
        """The first part of `path` (from the root down) that resolves outside the root, and
        where it leads; None when every part stays inside."""
        real_root = self.real_root
        try:
            parts = path.relative_to(self.root).parts
            base = self.root
        except ValueError:
            try:
                parts = path.relative_to(real_root).parts
                base = real_root
            except ValueError:
                return path, "a place outside the project root"
        current = base
        for part in parts:
            current = current / part
            if part != ".." and not os.path.islink(current):
                continue
            if _is_loop(current):  # Python 3.13's resolve() returns a loop unresolved, without an error
                return current, "a symbolic link loop"
            try:
                resolved = current.resolve()
                resolved.relative_to(real_root)
            except (RuntimeError, OSError):  # RuntimeError: a loop (Python 3.11/3.12)
                return current, "a symbolic link loop"
            except ValueError:
                target = os.readlink(current) if os.path.islink(current) else str(resolved)
                return current, target
        return None

    def check_inside(self, path: Path) -> Path:
        """`path` with links resolved, or UnsafePathError naming the link that leads out."""
        if "\0" in str(path):
            raise UnsafePathError(f"{self.relative(path)!r} contains a NUL character: no file has such a name")
        escape = self._escape(path)
        if escape is not None:
            link, target = escape
            if target == "a symbolic link loop":
                raise UnsafePathError(f"refused: {self.relative(link)} is a symbolic link loop; {LINK_ADVICE}")
            raise UnsafePathError(
                f"refused: {self.relative(link)} is a symbolic link to {target}, outside the project root; "
                f"{LINK_ADVICE}"
            )
        return path.resolve()

    def check_parent_inside(self, path: Path) -> None:
        """For a write that replaces `path` by rename (which never follows a link at `path`
        itself): the folders above it must stay inside the root."""
        self.check_inside(path.parent)

    def is_inside(self, path: Path) -> bool:
        return self._escape(path) is None

    def read_bytes(self, path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
        """The bytes of a regular file inside the root (UnsafePathError otherwise; OSError as usual)."""
        return read_regular(self.check_inside(path), limit, shown=self.relative(path))

    def read_text(self, path: Path, limit: int = MAX_FILE_BYTES) -> str:
        """`read_bytes` decoded as UTF-8 with universal newlines, as `Path.read_text` reads
        (UnicodeDecodeError as usual)."""
        return decode_text(self.read_bytes(path, limit))


def find_root(explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """The project root: `--root`, else FOUNDRY_ROOT, else the nearest ancestor holding
    `.foundry/`, else the nearest holding `.git/`, else the working directory."""
    chosen = explicit if explicit else os.environ.get("FOUNDRY_ROOT") or None
    if chosen:
        root = Path(chosen).expanduser()
        if not root.is_dir():
            raise InputError(f"project root {chosen} is not a directory: pass an existing folder to --root")
        return root.resolve()
    start = (cwd or Path.cwd()).resolve()
    for marker in (".foundry", ".git"):
        for folder in (start, *start.parents):
            if (folder / marker).is_dir():
                return folder
    return start


def today_text() -> str:
    """Today as `resolve_today()` decides it, as the text to send (the prompt hook's request to the
    server's socket, which parses it), without importing datetime: FOUNDRY_TODAY as given, else the
    local date."""
    import time

    return os.environ.get("FOUNDRY_TODAY") or time.strftime("%Y-%m-%d")


def resolve_today(value: str | None = None) -> _dt.date:
    """Today's date for expiry: `--today`, else FOUNDRY_TODAY, else the local date."""
    import datetime as _dt

    text = value or os.environ.get("FOUNDRY_TODAY") or ""
    if not text:
        return _dt.date.today()
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"today '{text}' is not a date: use YYYY-MM-DD") from None
