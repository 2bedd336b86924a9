"""Durable writes: the new name reaches the disk with the content (the folder is synced too)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from foundry_tui.core.atomic import atomic_write, exclusive_create


def _synced_kinds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record what each os.fsync call really synced (a file or a folder), then sync it."""
    kinds: list[str] = []
    real = os.fsync

    def recording(fd: int) -> None:
        kinds.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real(fd)

    monkeypatch.setattr(os, "fsync", recording)
    return kinds


def test_atomic_write_syncs_the_file_then_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kinds = _synced_kinds(monkeypatch)
    atomic_write(tmp_path / "INDEX.md", "text\n", inside=None)
    assert kinds == ["file", "folder"]
    assert (tmp_path / "INDEX.md").read_text() == "text\n"
    assert [p.name for p in tmp_path.iterdir()] == ["INDEX.md"]  # no temp file left


def test_exclusive_create_syncs_the_new_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kinds = _synced_kinds(monkeypatch)
    assert exclusive_create(tmp_path / "fact-0001.md", "a\n", inside=None) is True
    assert kinds == ["file", "folder"]
    kinds.clear()
    assert exclusive_create(tmp_path / "fact-0001.md", "b\n", inside=None) is False  # claimed: nothing new to sync
    assert kinds == ["file"]
    assert (tmp_path / "fact-0001.md").read_text() == "a\n"
