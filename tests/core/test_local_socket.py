"""Where the warm server's socket lives and the hook's deadline (core/local_socket.py); the
socket itself, with real servers and hooks, is tested in tests/mcp/test_local_socket.py."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from foundry_tui.core import local_socket
from foundry_tui.core.local_socket import MAX_PATH_BYTES, hook_deadline, reply_deadline, socket_folder, socket_path
from foundry_tui.core.paths import resolve_today, today_text


def test_the_folder_is_in_the_runtime_folder_else_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FOUNDRY_CACHE_DIR", str(tmp_path / "cache"))
    assert socket_folder() == tmp_path / "cache" / "run"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run-user"))
    assert socket_folder() == tmp_path / "run-user" / "foundry-tui"
    monkeypatch.setenv("XDG_RUNTIME_DIR", "relative/dir")  # the spec: an absolute path, else ignored
    assert socket_folder() == tmp_path / "cache" / "run"
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.delenv("FOUNDRY_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert socket_folder() == tmp_path / "xdg" / "foundry-tui" / "run"


def test_one_socket_per_resolved_root(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "a")
    a, b = socket_path(tmp_path / "a"), socket_path(tmp_path / "b")
    assert a != b and a.parent == b.parent == socket_folder()
    assert socket_path(tmp_path / "link") == a
    assert a.name.endswith(".sock") and len(a.name) == 24 + len(".sock")
    assert len(str(a).encode()) <= MAX_PATH_BYTES  # the tests' folders are short enough to bind


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("", 0.040),
        ("250", 0.25),
        ("1", 0.001),
        ("1000", 1.0),
        ("0", 0.040),
        ("1001", 0.040),
        ("-5", 0.040),
        ("2e3", 0.040),
    ],
)
def test_the_hooks_deadline(monkeypatch: pytest.MonkeyPatch, value: str, seconds: float) -> None:
    monkeypatch.setenv("FOUNDRY_SOCKET_DEADLINE_MS", value)
    assert hook_deadline() == seconds


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("", 0.250),
        ("40", 0.04),
        ("1", 0.001),
        ("5000", 5.0),
        ("0", 0.250),
        ("5001", 0.250),
        ("-5", 0.250),
        ("1.5", 0.250),
    ],
)
def test_the_reply_deadline(monkeypatch: pytest.MonkeyPatch, value: str, seconds: float) -> None:
    monkeypatch.setenv("FOUNDRY_SOCKET_REPLY_MS", value)
    monkeypatch.setenv("FOUNDRY_SOCKET_DEADLINE_MS", "7")  # the other deadline: set apart
    assert reply_deadline() == seconds
    assert hook_deadline() == 0.007


def test_off_asks_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FOUNDRY_NO_SOCKET", "1")
    monkeypatch.setenv("FOUNDRY_DEBUG", "1")
    assert local_socket.ask_prompt_facts(tmp_path, "how do we deploy?", "2026-11-30", 5) is None
    assert not socket_folder().exists()


def test_the_date_a_hook_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    assert today_text() == datetime.date.today().isoformat() == resolve_today().isoformat()
    monkeypatch.setenv("FOUNDRY_TODAY", "2026-11-30")
    assert today_text() == "2026-11-30"
    monkeypatch.setenv("FOUNDRY_TODAY", "not a date")  # sent as it is: the server refuses it as resolve_today does
    assert today_text() == "not a date"
