"""Durable writes: temp file then rename, exclusive create, and the memory lock.

A crash leaves the old file or the new one, never half of one (ADR 0011).

The lock order (every path takes the locks it needs in this order, never the reverse):

1. the proposals folder lock (`folder_lock(proposals_dir)`: deciding a proposal);
2. the memory folder lock (`folder_lock(memory_dir)`: every fact write, and a read that must
   agree with the writers, such as what a write would do now);
3. a Project's in-process lock (`Project.lock`: held while the store syncs, and by a TUI
   worker reading several things that must agree), always the innermost and held briefly.

So a thread holding `Project.lock` never waits for a folder lock: a reader that needs both
takes the folder lock first (or lets the core function it calls take both, in this order).
A folder lock is an flock on a fresh descriptor, so it is not re-entrant: a thread holding
one never takes the same one again. A lock not had within LOCK_TIMEOUT seconds raises
LockTimeout, which callers let through as one line (never swallowed).
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Iterator
from pathlib import Path

from foundry_tui.core.errors import FoundryError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.paths import Layout

TEMP_SUFFIX = ".tmp"
LOCK_TIMEOUT = 30.0  # seconds a writer waits for a folder lock before giving up


class LockTimeout(FoundryError):
    """A folder lock was not had within its time-out; the message names the folder."""


def _check(path: Path, inside: Layout | None) -> None:
    """The folders above `path` must stay inside the project root (the rename or link that
    puts the file in place never follows a link at `path` itself). `inside=None` is for
    files outside any project (the parse cache)."""
    if inside is not None:
        inside.check_parent_inside(path)


def _write_temp(path: Path, data: bytes) -> Path:
    """Write `data` to a fresh hidden temp file beside `path`, flushed to disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for attempt in range(100):
        temp = path.with_name(f".{path.name}.{os.getpid()}.{attempt}{TEMP_SUFFIX}")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            with contextlib.suppress(OSError):
                temp.unlink()
            if exc.filename is None:  # a failed write names no file: say where (a full disk, say)
                raise type(exc)(exc.errno, exc.strerror, str(temp)) from None
            raise
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise
        return temp
    raise FoundryError(f"cannot create a temporary file beside {path}: remove stale .tmp files there")


def _sync_folder(folder: Path) -> None:
    """fsync a folder, so that a name just created or renamed in it survives a power loss
    (the file's own fsync does not cover its directory entry)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some filesystems cannot sync a folder; the rename itself still happened
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, text: str | bytes, *, inside: Layout | None) -> None:
    """Replace `path` with `text` in one step: readers see the old file or the new one.
    `inside`: the project whose root the path must not leave (UnsafePathError otherwise)."""
    _check(path, inside)
    data = text.encode("utf-8") if isinstance(text, str) else text
    temp = _write_temp(path, data)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _sync_folder(path.parent)


def exclusive_create(path: Path, text: str, *, inside: Layout | None) -> bool:
    """Create `path` with `text` only if it does not exist; False if it does.

    The content is complete before the name appears (a hard link of a finished temp
    file), so a claimed id never shows up as an empty or half-written fact."""
    _check(path, inside)
    temp = _write_temp(path, text.encode("utf-8"))
    try:
        try:
            os.link(temp, path)
            _sync_folder(path.parent)
            return True
        except FileExistsError:
            return False
        except OSError as exc:  # no hard links here: fall back to an O_EXCL claim + rename
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            except FileExistsError:
                return False
            os.replace(temp, path)
            _sync_folder(path.parent)
            return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


@contextlib.contextmanager
def folder_lock(folder: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold an inter-process lock on `folder` (flock on the directory itself, so no
    lock file is left in the repository); LockTimeout after `timeout` (LOCK_TIMEOUT) seconds."""
    import fcntl

    wait = LOCK_TIMEOUT if timeout is None else timeout
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockTimeout(
                        f"{folder} is locked by another writer for over {wait:g} s: retry, or stop the stuck process"
                    ) from None
                time.sleep(0.002)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
