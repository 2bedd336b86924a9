"""The application's commands: one class per command giving its key, its footer
entry and its command-palette entry (the docstring is its help text)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import ClassVar

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider


class Command:
    """Base: subclasses set KEY and ACTION; FOOTER (when set) puts it in the footer."""

    KEY: ClassVar[str]
    ACTION: ClassVar[str]
    FOOTER: ClassVar[str | None] = None
    SCOPE: ClassVar[str] = "app"  # "app" or "main" (the memory screen)

    @classmethod
    def title(cls) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__)

    @classmethod
    def help(cls) -> str:
        return " ".join((cls.__doc__ or "").split())

    @classmethod
    def binding(cls) -> Binding:
        return Binding(cls.KEY, cls.ACTION, cls.FOOTER or cls.title(), show=cls.FOOTER is not None, tooltip=cls.help())


class FocusSearch(Command):
    """Search the active facts as an agent would (the core's scoring)."""

    KEY, ACTION, FOOTER, SCOPE = "slash", "focus_search", "Search", "main"


class ToggleInactive(Command):
    """Show or hide inactive facts (expired or superseded), dimmed, with the reason."""

    KEY, ACTION, FOOTER, SCOPE = "i", "toggle_inactive", "Inactive", "main"


class WriteFact(Command):
    """Write a new fact through memory_write (dedup, ids and supersedes are automatic)."""

    KEY, ACTION, FOOTER, SCOPE = "w", "write_fact", "Write", "main"


class RetireFact(Command):
    """Retire the selected fact by setting its expires date (nothing is deleted)."""

    KEY, ACTION, FOOTER, SCOPE = "x", "retire_fact", "Retire", "main"


class AddWhy(Command):
    """Add the missing Why line to the selected decision or risk (saved as a new version)."""

    KEY, ACTION, FOOTER, SCOPE = "y", "add_why", "Why", "main"


class RebuildIndex(Command):
    """Rebuild .foundry/memory/INDEX.md from the active facts."""

    KEY, ACTION, FOOTER, SCOPE = "R", "rebuild_index", None, "main"


class ShowDoctor(Command):
    """Open the full doctor report."""

    KEY, ACTION, FOOTER, SCOPE = "d", "show_doctor", "Doctor", "main"


class ShowMemory(Command):
    """Go to the memory screen: index, search, fact detail and prune candidates."""

    KEY, ACTION, FOOTER = "f2", "switch_mode('memory')", "Memory"


class ShowBlackboard(Command):
    """Go to the blackboard: waves, artifacts, contract validity."""

    KEY, ACTION, FOOTER = "f3", "switch_mode('blackboard')", "Board"


class ShowLibrary(Command):
    """Go to the runbooks and ADRs."""

    KEY, ACTION, FOOTER = "f4", "switch_mode('library')", "Docs"


class ShowTokens(Command):
    """Go to the token report."""

    KEY, ACTION, FOOTER = "f5", "switch_mode('tokens')", "Tokens"


class ShowCurator(Command):
    """Go to curator mode: merge near-duplicates, fix missed searches, retire in bulk, see what the index omits."""

    KEY, ACTION, FOOTER = "f6", "switch_mode('curator')", "Curator"


class ShowKeys(Command):
    """Show every key binding."""

    KEY, ACTION, FOOTER = "f1,question_mark", "show_keys", "Keys"


class Quit(Command):
    """Quit the application."""

    KEY, ACTION, FOOTER = "q", "quit", "Quit"


class ShowApprovals(Command):
    """Go to approvals: memory changes parked by the trust policy, to approve or reject (trusted curators)."""

    KEY, ACTION, FOOTER = "f7", "switch_mode('approvals')", "Approvals"


APP_COMMANDS: tuple[type[Command], ...] = (
    ShowMemory,
    ShowBlackboard,
    ShowLibrary,
    ShowTokens,
    ShowCurator,
    ShowApprovals,
    ShowKeys,
    Quit,
)
MEMORY_COMMANDS: tuple[type[Command], ...] = (
    FocusSearch,
    ToggleInactive,
    WriteFact,
    RetireFact,
    AddWhy,
    RebuildIndex,
    ShowDoctor,
)


class FoundryCommands(Provider):
    """The command palette's entries: every command of the app and of the screen shown."""

    def _commands(self) -> Iterator[type[Command]]:
        yield from APP_COMMANDS
        if getattr(self.screen, "SCOPE", None) == "main":
            yield from MEMORY_COMMANDS

    def _run(self, command: type[Command]) -> None:
        target = self.screen if command.SCOPE == "main" else self.app
        self.app.call_later(target.run_action, command.ACTION)

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.title(), partial(self._run, command), help=command.help())

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(command.title())
            if score > 0:
                yield Hit(score, matcher.highlight(command.title()), partial(self._run, command), help=command.help())
