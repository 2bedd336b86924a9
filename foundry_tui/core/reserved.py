"""Reserved places: the proposals wave and the preferences folder belong to the trust
policy alone. Every general tool that takes a wave or a path asks these guards first, so
no tool becomes a side channel around the gate (spec 003's `isReservedBrainPath`).

A base module (it imports only base modules): the artefact tools, the trust room and the
gate's proposals all ask it, and no room imports another.
"""

from __future__ import annotations

import os
from pathlib import Path

from foundry_tui.core.errors import InputError
from foundry_tui.core.names import sanitise
from foundry_tui.core.paths import Layout

PROPOSALS_WAVE = "_proposals"
PREFERENCES_FOLDER = "user-preferences"


def proposals_dir(layout: Layout) -> Path:
    return layout.blackboard_dir / PROPOSALS_WAVE


def data_dir() -> Path:
    """`$FOUNDRY_DATA_DIR`, else `$XDG_DATA_HOME/foundry-tui`, else `~/.local/share/foundry-tui`."""
    explicit = os.environ.get("FOUNDRY_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg:
        return Path(xdg).expanduser() / "foundry-tui"
    return Path.home() / ".local" / "share" / "foundry-tui"


def preferences_dir() -> Path:
    return data_dir() / PREFERENCES_FOLDER


def _same_name(name: str, reserved: str) -> bool:
    # Case-insensitive file systems (macOS, Windows) open `_PROPOSALS` as `_proposals`, and
    # Windows drops trailing dots: those spellings name the reserved folder too.
    return name.rstrip(".").lower() == reserved


def is_reserved_wave(wave: str, layout: Layout | None = None) -> bool:
    """Whether a caller's wave name is, or sanitises to, the proposals wave; with `layout`,
    also whether its folder leads there (or to the preferences) through a link."""
    try:
        name = sanitise(wave, "wave")
    except InputError:
        return False  # refused by the sanitiser anyway
    return _same_name(name, PROPOSALS_WAVE) or (layout is not None and _links_reserved(layout, name))


def _links_reserved(layout: Layout, name: str) -> bool:
    """Whether the wave folder `name` is a link (or under one) that resolves into a reserved folder."""
    return is_reserved_path(layout, layout.blackboard_dir / name)


def refuse_reserved_wave(wave: str, layout: Layout | None = None) -> None:
    """InputError for the proposals wave by name; with `layout`, also for a wave folder that
    links to it (`wave-x -> _proposals`): links are resolved before anything is read or written."""
    if is_reserved_wave(wave):
        raise InputError(
            f"wave '{wave}' is reserved for parked memory proposals: use another wave name "
            "(proposals are read with `foundry proposals list`)"
        )
    if is_reserved_wave(wave, layout):
        raise InputError(
            f"wave '{wave}' is a link into a reserved folder (memory proposals or user preferences): "
            "blackboard tools do not follow it; remove the link or use another wave name"
        )


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def is_reserved_path(layout: Layout, path: Path) -> bool:
    """Whether `path` (relative paths against the root), followed through symlinks, lies in
    the proposals wave or the preferences folder."""
    candidate = path if path.is_absolute() else layout.root / path
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL in the name
        return True  # a path that cannot even be resolved is not handed to a general tool
    for folder in (proposals_dir(layout), preferences_dir()):
        try:
            target = folder.resolve()
        except (OSError, RuntimeError):
            target = folder
        if _within(resolved, target):
            return True
    # The same folder spelled in another case on a case-insensitive file system.
    parts = [p.lower() for p in resolved.parts]
    board = [p.lower() for p in layout.blackboard_dir.resolve().parts]
    return parts[: len(board)] == board and len(parts) > len(board) and _same_name(parts[len(board)], PROPOSALS_WAVE)


def refuse_reserved_path(layout: Layout, path: Path, shown: str) -> None:
    if is_reserved_path(layout, path):
        raise InputError(
            f"{shown} is in a reserved folder (memory proposals or user preferences): "
            "general tools cannot read or write there; use `foundry proposals` or `foundry prefs`"
        )
