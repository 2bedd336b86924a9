"""Editing a text in the user's editor (`$VISUAL`, else `$EDITOR`): the text is written to a
draft file of its own, the terminal is handed to the editor (`App.suspend`), and what the
editor saved is read back. Nothing here writes to the memory: the screen that asked turns
the text into a write through the door, with its checks and its confirm.

The draft's disk work is the caller's worker's (`write_draft`, `read_draft`: thread
functions); only the editor's run (`run_editor`) is on the UI thread, which the suspended
app leaves idle until the editor exits. What comes back is bounded (`MAX_DRAFT_BYTES`)."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from foundry_tui.core.errors import FoundryError

MAX_DRAFT_BYTES = 256 * 1024  # a fact file's limit is smaller; an artifact's larger than this is not edited here
NO_EDITOR = "Set $VISUAL or $EDITOR to the editor to use (for example EDITOR=nano), then press the key again."


def editor_command(environ: Mapping[str, str] | None = None) -> list[str] | None:
    """`$VISUAL`, else `$EDITOR`, split as a shell would (`code --wait`), or None when neither is set."""
    env = os.environ if environ is None else environ
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                raise FoundryError(f"${name} is not a command line ({value!r}): fix its quotes") from None
            if words:
                return words
    return None


def write_draft(text: str, name: str) -> Path:
    """A new private folder holding `name` with `text` (from a worker: disk)."""
    folder = Path(tempfile.mkdtemp(prefix="foundry-edit-"))
    path = folder / Path(name).name
    path.write_text(text, encoding="utf-8")
    return path


def read_draft(path: Path) -> str:
    """What the editor left in the draft (from a worker): at most MAX_DRAFT_BYTES, UTF-8."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_DRAFT_BYTES + 1)
    except FileNotFoundError:
        raise FoundryError(f"the editor left no file at {path}: nothing was saved") from None
    if len(data) > MAX_DRAFT_BYTES:
        raise FoundryError(f"the edited text is over {MAX_DRAFT_BYTES // 1024} KiB: nothing was saved")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FoundryError("the edited text is not UTF-8: save it as UTF-8") from None


def remove_draft(path: Path) -> None:
    """Delete a draft and its folder (from a worker)."""
    path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # the editor left a backup or swap file beside it: leave the folder
        path.parent.rmdir()


def run_editor(app: App[Any], command: list[str], path: Path) -> str | None:
    """Run `command path` with the terminal handed over; None once it has run, else why not.

    A headless app (tests, the screenshot script) has no terminal to hand over: the editor
    runs as it is. An app that cannot suspend (Textual Web) says so and runs nothing."""
    argv = [*command, str(path)]
    try:
        if app.is_headless:
            result = subprocess.run(argv, check=False)
        else:
            with app.suspend():
                result = subprocess.run(argv, check=False)
    except SuspendNotSupported:
        return "This terminal cannot be handed to an editor (App.suspend is not supported here)."
    except OSError as exc:
        return f"The editor {command[0]!r} did not start: {exc.strerror or exc}"
    if result.returncode != 0:
        return f"The editor {command[0]!r} exited with status {result.returncode}: nothing was saved."
    return None
