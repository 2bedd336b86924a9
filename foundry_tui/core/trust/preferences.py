"""User preferences: standing notes about one person, outside the repository, at
`<data dir>/user-preferences/<sha256 of the principal>.md` (the path carries no raw name).

The file is chosen by the process's principal alone, never by an argument, so a session
can only touch its own person's notes. Only `user:` principals have one; a service or an
app is declined rather than given a shared anonymous file. Saving overwrites (read, merge,
rewrite), atomically. Clearing is the one deletion in the product, so it is never done at
once: a clear request is parked until the person confirms it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from foundry_tui.core.errors import FoundryError, InputError
from foundry_tui.core.reserved import preferences_dir
from foundry_tui.core.trust.principal import Caller, Principal

MAX_CHARS = 20_000
CLEAR_SUFFIX = ".clear-request"


class PreferencesDeclined(FoundryError):
    """The principal has no preferences (not a `user:`), or the run may not change them."""


def preferences_key(principal: Principal) -> str:
    return hashlib.sha256(str(principal).encode("utf-8")).hexdigest()


def preferences_path(principal: Principal) -> Path:
    if not principal.is_user:
        raise PreferencesDeclined(
            f"{principal} is a {principal.kind} principal: preferences belong to one person (user:<name>), "
            "so there are none to read or write here"
        )
    return preferences_dir() / f"{preferences_key(principal)}.md"


def _clear_path(principal: Principal) -> Path:
    return preferences_path(principal).with_suffix(CLEAR_SUFFIX)


def _refuse_links(path: Path) -> None:
    """A preferences file (or their folder) replaced by a symlink could point anywhere: refuse."""
    for candidate in (path.parent, path):
        if candidate.is_symlink():
            raise FoundryError(
                f"{candidate} has been replaced by a symlink; refusing to follow it: remove the link "
                "(preferences are only ever a plain file there)"
            )


def read_preferences(principal: Principal) -> str | None:
    """The person's preferences, or None when there are none (never follows a symlink)."""
    path = preferences_path(principal)
    _refuse_links(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise FoundryError(f"your preferences file cannot be read ({exc.strerror}): check {path}") from None
    with os.fdopen(fd, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


def clear_pending(principal: Principal) -> bool:
    try:
        return _clear_path(principal).is_file()
    except PreferencesDeclined:
        return False


def _deny_unattended(caller: Caller) -> None:
    if caller.unattended:
        raise PreferencesDeclined(
            "this run is unattended (CI=true or FOUNDRY_UNATTENDED=1), so it may not change preferences: "
            "nothing was changed"
        )


def get_preferences(caller: Caller) -> str:
    """The get_user_preferences reply."""
    principal = caller.principal
    text = read_preferences(principal)
    if text is None:
        return (
            f"No preferences saved for {principal} yet. Save standing notes with save_user_preferences "
            "(the whole text: it replaces what was there)."
        )
    note = (
        "\n\n(A clear request is pending: the person confirms it with `foundry prefs clear --confirm`.)"
        if clear_pending(principal)
        else ""
    )
    return f"Preferences of {principal} ({len(text):,} of {MAX_CHARS:,} characters):\n\n{text}{note}"


def save_preferences(caller: Caller, content: str) -> str:
    """Replace the person's preferences with `content` (atomically); the save_user_preferences reply."""
    from foundry_tui.core.atomic import atomic_write
    from foundry_tui.core.secrets import refuse_secrets

    principal = caller.principal
    path = preferences_path(principal)
    _deny_unattended(caller)
    if not isinstance(content, str):
        raise InputError("content must be text")
    if len(content) > MAX_CHARS:
        raise InputError(
            f"preferences are {len(content):,} characters, {len(content) - MAX_CHARS:,} over the "
            f"{MAX_CHARS:,}-character cap: shorten them and save again (nothing was saved)"
        )
    refuse_secrets({"content": content})
    _refuse_links(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    _refuse_links(path)
    atomic_write(path, content, inside=None)  # outside any project, by design
    return (
        f"Saved the preferences of {principal} ({len(content):,} of {MAX_CHARS:,} characters). "
        "Saving replaces the whole file: next time read them first (get_user_preferences), merge your change in, "
        "and save the whole text."
    )


def request_clear(caller: Caller) -> str:
    """Park a clear request (the clear_user_preferences reply); nothing is deleted."""
    from foundry_tui.core.atomic import atomic_write

    principal = caller.principal
    path = preferences_path(principal)
    _deny_unattended(caller)
    _refuse_links(path)
    if read_preferences(principal) is None:
        return f"No preferences saved for {principal}: nothing to clear."
    request = _clear_path(principal)
    if request.is_symlink():
        raise FoundryError(f"{request} has been replaced by a symlink; refusing to follow it: remove the link")
    import datetime as _dt
    import json

    stamp = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    atomic_write(request, json.dumps({"requestedAt": stamp}) + "\n", inside=None)
    return (
        f"Clear request parked: the preferences of {principal} stay until the person confirms with "
        "`foundry prefs clear --confirm` (or in the TUI). Deleting cannot be undone, so it is never done at once."
    )


def confirm_clear(caller: Caller) -> str:
    """Carry out a parked clear request: delete the preferences file (the only deletion Foundry makes)."""
    principal = caller.principal
    path = preferences_path(principal)
    _deny_unattended(caller)
    _refuse_links(path)
    request = _clear_path(principal)
    if not request.is_file() or request.is_symlink():
        raise InputError(
            f"no clear request is pending for {principal}: run `foundry prefs clear` first, then confirm it"
        )
    try:
        path.unlink()
        removed = True
    except FileNotFoundError:
        removed = False
    request.unlink()
    if not removed:
        return f"Nothing to delete: {principal} has no preferences file. The clear request is withdrawn."
    return f"Cleared: the preferences file of {principal} was deleted (the only deletion Foundry makes)."
