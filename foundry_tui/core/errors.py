"""Errors the engine raises for a person to read: one line, what is wrong and what to do."""

from __future__ import annotations


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
