"""`foundry-tui --demo` (the README's first command) in a real terminal: it says where its
temporary copy lives before the application takes the terminal, and removes it however the
program ends: `q`, SIGTERM, or SIGHUP (the terminal closed); and says so."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

START_TIMEOUT = 30.0  # seconds for the app to draw its first screen on a busy machine
END_TIMEOUT = 20.0


def _drain(fd: int, seen: bytearray, done: threading.Event) -> None:
    """Read the terminal's output until it closes (the app must never block on writing)."""
    while not done.is_set():
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        seen.extend(chunk)


@pytest.mark.parametrize("ending", ["q", "SIGTERM", "SIGHUP"])
def test_the_demo_copy_is_announced_and_removed_on_every_exit(ending: str, tmp_path: Path) -> None:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "HOME": str(tmp_path)}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "foundry_tui", "--demo", "tui", "--no-watch"],
        stdin=slave,
        stdout=slave,
        stderr=slave,  # Textual draws on stderr
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    seen, done = bytearray(), threading.Event()
    reader = threading.Thread(target=_drain, args=(master, seen, done), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while b"active" not in seen and time.monotonic() < deadline:  # the header's counts: the app is up
            time.sleep(0.1)
        assert b"active" in seen, "the app did not draw"
        # Said before the application took the terminal (its first line).
        found = re.match(rb"foundry: the demo is a temporary copy in (\S+) \(removed when you quit\)\r\n", bytes(seen))
        assert found, bytes(seen[:200])
        copy = Path(found.group(1).decode())
        assert (copy / ".foundry/memory/INDEX.md").is_file()
        if ending == "q":
            os.write(master, b"q")
        else:
            proc.send_signal(getattr(signal, ending))
        proc.wait(END_TIMEOUT)
        reader.join(END_TIMEOUT)  # the terminal's last output, until the program closed it
        rest = bytes(seen).decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        done.set()
        os.close(master)
    assert not copy.parent.exists()
    assert rest.endswith(f"foundry: removed the demo copy {copy}\r\n")
    expected = {"q": 0, "SIGTERM": 128 + signal.SIGTERM, "SIGHUP": 128 + signal.SIGHUP}[ending]
    assert proc.returncode == expected, rest
