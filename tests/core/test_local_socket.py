"""Where the warm server's socket lives and the hook's deadline (core/local_socket.py); the
socket itself, with real servers and hooks, is tested in tests/mcp/test_local_socket.py."""

from __future__ import annotations

import datetime
import os
import socket
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foundry_tui.core import local_socket
from foundry_tui.core.local_socket import (
    MAX_PATH_BYTES,
    hook_deadline,
    path_key,
    peer_uid,
    reply_deadline,
    socket_folder,
    socket_path,
)
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


def test_the_sockets_name_is_fnv_1a_128_of_the_path() -> None:
    # The published FNV-1a 128-bit vectors (the empty string is the offset basis), cut to 96 bits.
    assert path_key("") == "6c62272e07bb014262b82175"
    assert path_key("a") == "d228cb696f1a8caf78912b70"
    assert path_key("foobar") == "343e1662793c64bf6f0d3597"


@given(st.text(max_size=200), st.text(max_size=200))
def test_path_keys_are_24_hex_digits_and_differ_with_the_path(first: str, second: str) -> None:
    key = path_key(first)
    assert len(key) == 24 and set(key) <= set("0123456789abcdef")
    assert path_key(first) == key
    if first != second:
        assert path_key(second) != key


@pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED"), reason="SO_PEERCRED is Linux's")
def test_the_peer_of_a_connected_unix_socket_is_this_user() -> None:
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with left, right:
        assert peer_uid(left) == os.geteuid() == peer_uid(right)


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
