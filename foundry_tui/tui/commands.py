"""The application's commands: one class per command giving its key, its footer
entry and its command-palette entry (the docstring is its help text)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import Any, ClassVar

from textual.actions import parse
from textual.app import App
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen


class Command:
    """Base: subclasses set KEY and ACTION; FOOTER (when set) puts it in the footer.

    A command belongs to the app (APP_COMMANDS, in its BINDINGS) or to a screen (the
    screen's SCREEN_COMMANDS, in its BINDINGS); the palette offers the app's and those of
    the screen shown, each when the node that runs it allows it (`check_action`)."""

    KEY: ClassVar[str]
    ACTION: ClassVar[str]
    FOOTER: ClassVar[str | None] = None
    KEY_DISPLAY: ClassVar[str | None] = None  # how the footer and the keys panel write the key (None: Textual's)
    # The door's operation (core/ops/registry.py) the command's action performs: a command
    # that names one writes, so it is refused in a read-only memory (`foundry tui --at`).
    OPERATION: ClassVar[str | None] = None
    # Shown in the footer only where it has room for every key: where it has not (80x24, and up
    # to some 190 columns on the memory screen) it is behind F1, whose panel lists it, and
    # still answers (`narrow_twins`, NARROW_KEY, FoundryScreen.narrow).
    WIDE_ONLY: ClassVar[bool] = False

    @classmethod
    def title(cls) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__)

    @classmethod
    def help(cls) -> str:
        return " ".join((cls.__doc__ or "").split())

    @classmethod
    def parsed_action(cls) -> tuple[str, tuple[object, ...]]:
        """The action's name and parameters, as `check_action` receives them."""
        _namespace, name, parameters = parse(cls.ACTION)
        return name, parameters

    @classmethod
    def binding(cls, namespace: str = "") -> Binding:
        """The command's key; `namespace` ("app.") runs an app's action from a screen's bindings."""
        return Binding(
            cls.KEY,
            f"{namespace}{cls.ACTION}",
            cls.FOOTER or cls.title(),
            show=cls.FOOTER is not None,
            key_display=cls.KEY_DISPLAY,
            tooltip=cls.help(),
        )

    @classmethod
    def narrow_twin(cls, namespace: str = "") -> Binding:
        """The command's key as the narrow layout answers it: not in the footer, in the keys
        panel under the same name, running the same action (`narrow_key`)."""
        return Binding(
            cls.KEY,
            narrow_key(f"{namespace}{cls.ACTION}"),
            cls.FOOTER or cls.title(),
            show=False,
            key_display=cls.KEY_DISPLAY,
            tooltip=cls.help(),
        )


# The action of a key's twin binding for a footer without room for every key
# (FoundryScreen.narrow): FoundryScreen allows it only then, and runs the action it wraps;
# otherwise it is off, so the key's own binding (later in the screen's bindings, or the app's) is the one
# the footer shows and the key runs. One footer, Textual's own, fed as it is everywhere.
NARROW_KEY = "narrow_key"


def narrow_key(action: str) -> str:
    """The action string of a narrow twin running `action` ("app.switch_mode('memory')")."""
    return f"{NARROW_KEY}({action!r})"


def narrow_twins(bindings: list[BindingType]) -> list[BindingType]:
    """`bindings` with each WIDE_ONLY command's binding preceded by its narrow twin (the
    first binding of a key that its node allows is the one that shows and runs)."""
    wide_only = {(command.KEY, command.ACTION): command for command in ALL_COMMANDS if command.WIDE_ONLY}
    out: list[BindingType] = []
    for binding in bindings:
        if isinstance(binding, Binding) and (command := wide_only.get((binding.key, binding.action))):
            out.append(command.narrow_twin())
        out.append(binding)
    return out


class FocusSearch(Command):
    """Search the active facts as an agent would (the core's scoring)."""

    KEY, ACTION, FOOTER = "slash", "focus_search", "Search"


class ToggleInactive(Command):
    """Show or hide inactive facts (expired or superseded), dimmed, with the reason."""

    KEY, ACTION, FOOTER = "i", "toggle_inactive", "Inactive"


class WriteFact(Command):
    """Write a new fact through memory_write (dedup, ids and supersedes are automatic)."""

    KEY, ACTION, FOOTER = "w", "write_fact", "Write"
    OPERATION = "fact.write"


class EditFact(Command):
    """Edit the selected fact (or broken file) in $VISUAL or $EDITOR; what you save is written as a new version, after you confirm."""

    # Not in the footer (full at 80 columns; the footer's layout is issue 31's item 5): F1 and the palette.
    KEY, ACTION, FOOTER = "e", "edit_fact", None
    OPERATION = "fact.write"


class OpenSource(Command):
    """Open the ADR the selected fact's source names (source: adr-NNNN) in the library."""

    KEY, ACTION, FOOTER = "o", "open_source", None


class RetireFact(Command):
    """Retire the selected fact by setting its expires date (nothing is deleted)."""

    KEY, ACTION, FOOTER = "x", "retire_fact", "Retire"
    OPERATION = "fact.retire"


class AddWhy(Command):
    """Add the missing Why line to the selected decision or risk (saved as a new version)."""

    KEY, ACTION, FOOTER = "y", "add_why", "Why"
    OPERATION = "fact.write"


class ConfirmRefs(Command):
    """Confirm the selected fact against today's code: a new version with its refs re-recorded (issue 30)."""

    KEY, ACTION, FOOTER = "c", "confirm_refs", None
    OPERATION = "fact.write"


class ShowCodeDiff(Command):
    """Show the diff of the selected fact's cited files since it was written (its changed and moved refs; issue 30)."""

    KEY, ACTION, FOOTER = "D", "show_code_diff", None  # F1 and the palette: the footer is full at 80 columns


class RebuildIndex(Command):
    """Rebuild .foundry/memory/INDEX.md from the active facts."""

    KEY, ACTION, FOOTER = "R", "rebuild_index", "Rebuild"
    WIDE_ONLY = True
    OPERATION = "index.rebuild"


class ShowDoctor(Command):
    """Open the full doctor report."""

    KEY, ACTION, FOOTER = "d", "show_doctor", "Doctor"
    WIDE_ONLY = True


class ShowMemory(Command):
    """Go to the memory screen: index, search, fact detail and prune candidates."""

    KEY, ACTION, FOOTER = "f2", "switch_mode('memory')", "Memory"
    WIDE_ONLY = True
    KEY_DISPLAY = "f2/esc"  # Escape goes back to it too (the app's own binding, not shown twice)


class ShowBlackboard(Command):
    """Go to the blackboard: waves, artifacts, contract validity."""

    KEY, ACTION, FOOTER = "f3", "switch_mode('blackboard')", "Board"
    WIDE_ONLY = True


class ShowLibrary(Command):
    """Go to the runbooks and ADRs."""

    KEY, ACTION, FOOTER = "f4", "switch_mode('library')", "Docs"
    WIDE_ONLY = True


class ShowHealth(Command):
    """Go to the memory's health: searches, writes, INDEX.md and facts by type over time, and the token report."""

    KEY, ACTION, FOOTER = "f5", "switch_mode('health')", "Health"
    WIDE_ONLY = True


class ShowCurator(Command):
    """Go to curator mode: merge near-duplicates, fix missed searches, retire in bulk, see what the index omits."""

    KEY, ACTION, FOOTER = "f6", "switch_mode('curator')", "Curator"
    WIDE_ONLY = True


class ShowSessions(Command):
    """Go to the agent sessions: their working memory, observations, reflections and audit trail."""

    KEY, ACTION, FOOTER = "f7", "switch_mode('sessions')", "Sessions"
    WIDE_ONLY = True


class ShowHistory(Command):
    """Go to the memory's history in git: which commit created, superseded, merged or renumbered which fact."""

    KEY, ACTION, FOOTER = "f8", "switch_mode('history')", "History"
    WIDE_ONLY = True


class ShowKeys(Command):
    """Show every key binding."""

    KEY, ACTION, FOOTER = "f1,question_mark", "show_keys", "Keys"


class Quit(Command):
    """Quit the application."""

    KEY, ACTION, FOOTER = "q", "quit", "Quit"


class MergeGroup(Command):
    """Merge the selected near-duplicate group into one fact (edit it, with a preview first)."""

    KEY, ACTION, FOOTER = "m", "merge", "Merge"
    OPERATION = "fact.merge"


class UndoMerge(Command):
    """Undo the last merge of this session: every file it touched is put back byte for byte."""

    KEY, ACTION, FOOTER = "u", "undo", "Undo"
    OPERATION = "merge.undo"


class AddTag(Command):
    """Add a word of the selected missed search to the tags of the fact that should have been found."""

    KEY, ACTION, FOOTER = "t", "add_tag", "Tag"
    OPERATION = "fact.tag"


class RetireSelected(Command):
    """Retire every fact ticked in the bulk list by setting their expires date (nothing is deleted)."""

    KEY, ACTION, FOOTER = "x", "retire", "Retire"
    OPERATION = "fact.retire"


class ResolveConflict(Command):
    """Resolve the selected contradiction: pick the fact that stands; the other is superseded or retired (confirmed first)."""

    KEY, ACTION, FOOTER = "k", "resolve", "Keep one"
    OPERATION = "fact.keep_one"


class ConfirmStale(Command):
    """Confirm the selected stale fact against today's code: a new version with its refs re-recorded (a moved ref follows its path, a gone one is dropped)."""

    KEY, ACTION, FOOTER = "c", "confirm_stale", "Confirm"
    OPERATION = "fact.write"


class RetireStale(Command):
    """Retire the selected stale fact by setting its expires date (nothing is deleted)."""

    KEY, ACTION, FOOTER = "r", "retire_stale", "Retire it"
    OPERATION = "fact.retire"


class SupersedeStale(Command):
    """Rewrite the selected stale fact in the write form, pre-filled from it: saved as a new version that supersedes it."""

    KEY, ACTION, FOOTER = "s", "supersede_stale", "Supersede"
    OPERATION = "fact.write"


class ShowStaleDiff(Command):
    """Show the diff of the selected stale fact's cited files since it was written."""

    KEY, ACTION, FOOTER = "D", "show_code_diff", "Diff"


class PromoteWorkingFact(Command):
    """Write the highlighted working fact of the session as a project fact (a form pre-filled from it)."""

    KEY, ACTION, FOOTER = "p", "promote", "Promote"
    OPERATION = "session.promote"


class ApproveProposal(Command):
    """Approve the ticked proposals (else the selected one): each is written as you (a trusted curator), after one confirm."""

    KEY, ACTION, FOOTER = "a", "approve", "Approve"
    OPERATION = "proposal.approve"


class RejectProposal(Command):
    """Reject the ticked proposals (else the selected one) with one reason; they are kept, and no fact changes."""

    KEY, ACTION, FOOTER = "r", "reject", "Reject"
    OPERATION = "proposal.reject"


class TickProposal(Command):
    """Tick or untick the selected pending proposal: a and r then act on every ticked one at once."""

    KEY, ACTION, FOOTER = "space", "tick", "Tick"


class FilterAuthor(Command):
    """Show only one author's proposals, the next author at each press, then every author again."""

    KEY, ACTION, FOOTER = "f", "filter_author", "Author"


class ConfirmPreferencesClear(Command):
    """Carry out the pending clear request of your own preferences (deletes the file, after you confirm)."""

    KEY, ACTION, FOOTER = "c", "confirm_clear", "Clear prefs"
    WIDE_ONLY = True
    OPERATION = "preferences.confirm_clear"


class ShowApprovals(Command):
    """Go to approvals: memory changes parked by the trust policy, to approve or reject (trusted curators)."""

    KEY, ACTION, FOOTER = "f9", "switch_mode('approvals')", "Approvals"
    WIDE_ONLY = True


class FocusFilter(Command):
    """Filter the board's artifacts by the text inside them (agent, schema and validity beside it)."""

    KEY, ACTION, FOOTER = "slash", "focus_filter", "Filter"


class CycleValidity(Command):
    """Show every artifact, then only the invalid ones, then only the valid ones."""

    KEY, ACTION, FOOTER = "v", "cycle_validity", "Valid?"


class ClearFilters(Command):
    """Clear the board's filters: every artifact of every wave is shown."""

    KEY, ACTION, FOOTER = "c", "clear_filters", "Clear"


class MarkArtifact(Command):
    """Mark the highlighted artifact as one side of a diff (m on it again unmarks it)."""

    KEY, ACTION, FOOTER = "m", "mark", "Mark"


class DiffArtifacts(Command):
    """Diff the marked artifact with the highlighted one; with none marked, the same agent's artifact a wave earlier."""

    KEY, ACTION, FOOTER = "d", "diff", "Diff"


class NextInvalid(Command):
    """Go to the next invalid artifact (unreadable, without a contract or breaking it), from the one highlighted; wraps."""

    KEY, ACTION, FOOTER = "n", "next_invalid", None  # F1 and the palette: the footer is item 5's


class CopyArtifactPath(Command):
    """Copy the highlighted artifact's file path (absolute) to the clipboard."""

    KEY, ACTION, FOOTER = "y", "copy_path", None


class EditArtifact(Command):
    """Edit the highlighted artifact in $VISUAL or $EDITOR; what you save is written back through blackboard_write, checked against its contract, after you confirm."""

    KEY, ACTION, FOOTER = "e", "edit_artifact", None
    OPERATION = "blackboard.write"


class ShowCommit(Command):
    """Open the highlighted commit (or the uncommitted changes): the facts it added, changed and retired, with their diff."""

    KEY, ACTION, FOOTER = "enter", "show_commit", "Open"


class MarkRevision(Command):
    """Mark the highlighted commit as the older side of a diff (m on it again unmarks it)."""

    KEY, ACTION, FOOTER = "m", "mark", "Mark"


class DiffRevisions(Command):
    """The memory's change, fact by fact, from the marked commit to the highlighted one (foundry memory diff)."""

    KEY, ACTION, FOOTER = "d", "diff", "Diff"


class InitProject(Command):
    """Set this repository up for Foundry (`foundry init`): folders, config, hooks, the MCP entry."""

    KEY, ACTION, FOOTER = "i", "init", "Run foundry init"
    OPERATION = "project.init"


# First in every main screen's footer (ConfirmingScreen's bindings, running the app's actions):
# whatever the width, the keys panel that lists every key the screen answers, and Quit.
LEADING_COMMANDS: tuple[type[Command], ...] = (ShowKeys, Quit)
APP_COMMANDS: tuple[type[Command], ...] = (
    ShowMemory,
    ShowBlackboard,
    ShowLibrary,
    ShowHealth,
    ShowCurator,
    ShowSessions,
    ShowHistory,
    ShowApprovals,
    ShowKeys,
    Quit,
)
MEMORY_COMMANDS: tuple[type[Command], ...] = (
    FocusSearch,
    ToggleInactive,
    WriteFact,
    EditFact,
    OpenSource,
    RetireFact,
    ConfirmRefs,
    ShowCodeDiff,
    AddWhy,
    RebuildIndex,
    ShowDoctor,
)


BOARD_COMMANDS: tuple[type[Command], ...] = (
    FocusFilter,
    CycleValidity,
    ClearFilters,
    MarkArtifact,
    DiffArtifacts,
    NextInvalid,
    CopyArtifactPath,
    EditArtifact,
)
# The curator's stale view (issue 30): its keys answer, and show, on that tab only (CuratorScreen.check_action).
STALE_COMMANDS: tuple[type[Command], ...] = (ConfirmStale, RetireStale, SupersedeStale, ShowStaleDiff)
CURATOR_COMMANDS: tuple[type[Command], ...] = (
    *STALE_COMMANDS,  # first: shown on their tab only, and then first in the footer
    MergeGroup,
    UndoMerge,
    AddTag,
    RetireSelected,
    ResolveConflict,
    ShowDoctor,  # the status header's "doctor: N problems (d)" holds here too
)
HISTORY_COMMANDS: tuple[type[Command], ...] = (ShowCommit, MarkRevision, DiffRevisions)
SESSIONS_COMMANDS: tuple[type[Command], ...] = (PromoteWorkingFact,)
EMPTY_COMMANDS: tuple[type[Command], ...] = (InitProject,)
APPROVALS_COMMANDS: tuple[type[Command], ...] = (
    ApproveProposal,
    RejectProposal,
    TickProposal,
    FilterAuthor,
    ConfirmPreferencesClear,
)


ALL_COMMANDS: tuple[type[Command], ...] = tuple(Command.__subclasses__())
# Every action that writes (refused when the app is read-only): the commands that name an operation.
WRITE_ACTIONS = frozenset(command.ACTION for command in ALL_COMMANDS if command.OPERATION)


class FoundryCommands(Provider):
    """The command palette's entries: the commands of the screen shown and of the app,
    each when the node that runs it allows it now (its `check_action`)."""

    def _commands(self) -> Iterator[tuple[type[Command], Screen[Any] | App[Any]]]:
        screen = self.screen
        own: tuple[type[Command], ...] = getattr(screen, "SCREEN_COMMANDS", ())
        for command in (*own, *APP_COMMANDS):
            target: Screen[Any] | App[Any] = screen if command in own else self.app
            if target.check_action(*command.parsed_action()):
                yield command, target

    def _run(self, command: type[Command], target: Screen[Any] | App[Any]) -> None:
        self.app.call_later(target.run_action, command.ACTION)

    async def discover(self) -> Hits:
        for command, target in self._commands():
            yield DiscoveryHit(command.title(), partial(self._run, command, target), help=command.help())

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command, target in self._commands():
            score = matcher.match(command.title())
            if score > 0:
                yield Hit(
                    score, matcher.highlight(command.title()), partial(self._run, command, target), help=command.help()
                )
