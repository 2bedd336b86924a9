"""Which folder the TUI works on (issue 31, item 8): `foundry tui` started in the root, in a
real terminal of 80x24, names the root by its absolute path in the header, never `.`; the
demo names its temporary copy after `demo · `."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from foundry_tui.commands.servers import root_label

START_TIMEOUT = 30.0  # seconds for the app to draw its first screen on a busy machine
END_TIMEOUT = 20.0
# What a terminal is told besides text: CSI sequences, charset selections, OSC strings.
CONTROL = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[=>78]")


def _drain(fd: int, seen: bytearray) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        seen.extend(chunk)


def _texts(seen: bytes) -> list[str]:
    """The runs of text the program wrote between control sequences, stripped."""
    return [run.strip() for run in CONTROL.sub(b"\n", seen).decode(errors="replace").split("\n") if run.strip()]


def _tui_in_a_terminal(args: list[str], cwd: Path, home: Path) -> list[str]:
    """Run `foundry ARGS` in a pseudo-terminal of 80x24 from `cwd` until the header's counts
    are drawn, press q, and return the runs of text it wrote."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "HOME": str(home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "foundry_tui", *args],
        cwd=cwd,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    seen = bytearray()
    reader = threading.Thread(target=_drain, args=(master, seen), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while b"active" not in seen and time.monotonic() < deadline:
            time.sleep(0.1)
        assert b"active" in seen, bytes(seen[-400:])
        time.sleep(0.5)  # the header's last fit at the terminal's width
        os.write(master, b"q")
        proc.wait(END_TIMEOUT)
        reader.join(END_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert proc.returncode == 0
    return _texts(bytes(seen))


@pytest.fixture
def short_root() -> Iterator[Path]:
    """A git repository set up by `foundry init`, at a path short enough for the 80-column
    header to show it whole."""
    root = Path(tempfile.mkdtemp(prefix="f", dir="/tmp")).resolve()
    try:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run(
            [sys.executable, "-m", "foundry_tui", "init", "--root", str(root)], check=True, capture_output=True
        )
        yield root
    finally:
        shutil.rmtree(root)


def test_the_label_is_the_absolute_root_when_started_in_it(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)
    assert root_label(Path(".")) == str(Path.cwd())
    assert root_label(Path("."), demo=True) == f"demo · {Path.cwd()}"
    assert root_label(Path("sub/..")) == f"{Path.cwd()}/sub/.."  # absolute, as given: no link resolved


@pytest.mark.parametrize("args", [["tui"], ["tui", "--root", "."]], ids=["no-root", "root-dot"])
def test_started_in_the_root_the_header_names_its_absolute_path(
    short_root: Path, tmp_path: Path, args: list[str]
) -> None:
    texts = _tui_in_a_terminal([*args, "--no-watch"], short_root, tmp_path)
    assert str(short_root) in texts  # the compact header's root part, whole at 80 columns
    assert "." not in texts and "Foundry · ." not in texts


def test_the_demo_header_names_its_copy(tmp_path: Path) -> None:
    texts = _tui_in_a_terminal(["--demo", "tui", "--no-watch"], tmp_path, tmp_path)
    announced = re.fullmatch(r"foundry: the demo is a temporary copy in (\S+) \(removed when you quit\)", texts[0])
    assert announced, texts[:3]
    copy = announced.group(1)
    assert f"demo · {copy}" in texts, [t for t in texts if "demo" in t]
