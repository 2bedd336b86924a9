"""The watchers of the facts folder that let `Project.sync()` re-read only the files that
changed: the kernel's inotify queue (Linux, exact, no thread) or a watchfiles thread elsewhere."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from pathlib import Path

sys_byteorder = sys.byteorder


class KernelWatcher:
    """The facts folder's inotify queue, read when the store syncs (Linux; no thread).

    The kernel queues an event in the same system call that changes a file, so reading the
    queue returns every change made before the read: exact, unlike a watcher thread whose
    report may still be on its way."""

    # IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
    # | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
    _MASK = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800 | 0x01000000
    _LOST = 0x400 | 0x800 | 0x4000 | 0x8000  # the folder deleted or moved, queue overflow, watch gone
    _HEADER = 16  # struct inotify_event: int wd; uint32 mask, cookie, len; then the name

    def __init__(self, folder: Path, libc: object, fd: int) -> None:
        self.folder = folder
        self._libc = libc
        self._fd = fd
        self._watching = False

    @classmethod
    def open(cls, folder: Path) -> KernelWatcher | None:
        """A watcher, or None where inotify is not available (then a watchfiles thread is used)."""
        if not sys.platform.startswith("linux") or os.environ.get("FOUNDRY_NO_INOTIFY"):
            return None
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        except (OSError, AttributeError):
            return None
        return cls(folder, libc, fd) if fd >= 0 else None

    @property
    def running(self) -> bool:
        return self._watching

    def start(self) -> None:
        """Watch the folder (if it exists yet; if not, the next sync tries again)."""
        if self._fd < 0:
            return
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(self.folder), self._MASK)  # type: ignore[attr-defined]
        self._watching = wd >= 0

    def take(self) -> set[str] | None:
        """The names of the files changed since the last call; None when that cannot be known
        (not watching, events lost): the caller then scans the folder."""
        if not self._watching:
            return None
        names: set[str] = set()
        lost = False
        while True:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                lost = True
                break
            pos = 0
            while pos + self._HEADER <= len(data):
                mask = int.from_bytes(data[pos + 4 : pos + 8], sys_byteorder)
                length = int.from_bytes(data[pos + 12 : pos + 16], sys_byteorder)
                name = data[pos + self._HEADER : pos + self._HEADER + length].rstrip(b"\0")
                if mask & self._LOST:
                    lost = True
                elif name:
                    names.add(os.fsdecode(name))
                pos += self._HEADER + length
        if lost:
            self._watching = False
            self.start()  # a fresh watch, then the caller's full scan
            return None
        return names

    def stop(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._watching = False

    def __del__(self) -> None:  # a Project dropped without close() gives its inotify instance back
        with contextlib.suppress(Exception):  # at interpreter exit os may be gone: nothing to give back then
            self.stop()


class FactWatcher:
    """A watchfiles thread that collects the names of changed fact files (where inotify is not available)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._dirty: set[str] = set()
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.started_at = 0.0

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def ensure_started(self) -> None:
        if self.running or not self.folder.is_dir():
            return
        self._thread = threading.Thread(target=self._run, name="foundry-fact-watcher", daemon=True)
        self.started_at = time.monotonic()
        self._thread.start()

    def _run(self) -> None:
        try:
            from watchfiles import watch
        except ImportError:  # pragma: no cover - watchfiles is a dependency
            return
        try:
            for batch in watch(
                self.folder,
                stop_event=self._stop,
                debounce=30,
                step=10,
                rust_timeout=500,
                yield_on_timeout=False,
                recursive=False,
            ):
                with self._guard:
                    self._dirty.update(Path(path).name for _change, path in batch)
        except Exception:  # the folder vanished or the OS refused: fall back to full scans
            return

    def take(self) -> set[str]:
        with self._guard:
            dirty, self._dirty = self._dirty, set()
        return dirty

    def stop(self) -> None:
        self._stop.set()
