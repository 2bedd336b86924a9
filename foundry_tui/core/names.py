"""Names that come from callers (slugs, waves, agents, contract ids): checked or
sanitised before they touch the filesystem, so nothing escapes the project root."""

from __future__ import annotations

import re
from pathlib import Path

from foundry_tui.core.errors import InputError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MAX_NAME = 80


def sanitise(value: str, what: str) -> str:
    """The blackboard rule: anything outside [A-Za-z0-9._-] becomes '-', cut to 80 characters.
    A result starting with a dot is refused: `.`/`..` would name a folder above, and any
    other dot name is hidden, so it would be written but never listed."""
    if not isinstance(value, str) or not value:
        raise InputError(f"{what} is empty: give a name such as 'analysis'")
    name = _UNSAFE.sub("-", value)[:MAX_NAME]
    if name.startswith("."):
        raise InputError(
            f"{what} '{value}' starts with '.': such names are hidden and never listed; start with a letter or digit"
        )
    if set(name) <= {"."}:
        raise InputError(f"{what} '{value}' is not a usable name: use letters, digits, '.', '_' or '-'")
    return name


def check_slug(value: str, what: str) -> str:
    """A slug or id used as a file name as given: refused (not rewritten) if it could leave its folder."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{what} is empty")
    if "/" in value or "\\" in value or ".." in value or not _SLUG.fullmatch(value) or len(value) > MAX_NAME:
        raise InputError(
            f"{what} '{value}' is not a plain name: use letters, digits, '.', '_' or '-', with no path separators or '..'"
        )
    return value


def slugify(title: str) -> str:
    """`Deploy to production` → `deploy-to-production`."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return slug[:60].strip("-") or "untitled"


def inside(root: Path, candidate: Path) -> bool:
    """Whether `candidate`, with symlinks resolved, stays inside `root`."""
    try:
        candidate.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False
