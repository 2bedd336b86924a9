"""Messages shared between the app and its screens."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class FilesChanged(Message):
    """The file watcher saw changes under .foundry/ or docs/adr/ (one coalesced batch)."""

    paths: frozenset[str]


@dataclass
class CodeChanged(Message):
    """The file watcher saw a change to code that active facts cite (their refs, issue 30),
    or to git's index or HEAD: the refs' states may have changed (one coalesced batch)."""

    paths: frozenset[str]


@dataclass
class MemoryChanged(Message):
    """This app wrote to memory (a fact, a retirement, the index): reload and say so;
    `select`, the fact written, is shown once it is read (the new version `y` wrote, say)."""

    summary: str
    select: str | None = None
    edited: str | None = None  # the selection an editor's draft was written for (memory screen)
