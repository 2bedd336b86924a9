"""Errors the engine raises for a person to read: one line, what is wrong and what to do."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # on the start-up path: keep pathlib's import out of it
if TYPE_CHECKING:
    from pathlib import Path


class FoundryError(Exception):
    """A failure the user can act on. The CLI prints it on one line and exits with `exit_code`."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InputError(FoundryError):
    """The caller's input is unacceptable (a refusal); exit code 2 on the CLI."""

    exit_code = 2


class ConfigError(FoundryError):
    """`.foundry/config.json` cannot be used."""


class NotFoundError(FoundryError):
    """A named thing (fact, runbook, file) does not exist."""


def os_error_place(exc: OSError, root: Path | None = None) -> str:
    """`<path>: <the system's reason>` for an OS error, the path relative to `root` when
    inside it. A temporary file stands for its folder, and a rename's target for the rename."""
    if isinstance(exc, FoundryError):  # an OSError of ours (a refused link): it says it all
        return str(exc)
    name = exc.filename2 if exc.filename2 is not None else exc.filename
    reason = exc.strerror or type(exc).__name__
    if name is None or isinstance(name, int):
        return reason
    path = os.fsdecode(name)
    base = os.path.basename(path)
    if base.startswith(".") and base.endswith(".tmp"):
        path = os.path.dirname(path)
    if root is not None:
        top = os.fspath(root)
        if path == top or path.startswith(top.rstrip(os.sep) + os.sep):
            path = os.path.relpath(path, top)
    return f"{path}: {reason}"


def os_error_text(exc: OSError, root: Path | None = None) -> str:
    """An OS error as the one line a tool failure or the CLI reports."""
    if isinstance(exc, FoundryError):
        return str(exc)
    return f"{os_error_place(exc, root)}: fix that path and retry"
