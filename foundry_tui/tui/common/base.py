"""FoundryScreen: the base of every screen and dialog. It gives the app, the project
and today's date one way (`self.foundry`, `self.project`, `self.today`), reports the
failures of its workers (foundry_tui.tui.common.workers), and redraws when the theme
changes, so colours built in Python follow it. Asking before a write is ConfirmingScreen's
(foundry_tui.tui.common.confirming), so that a dialog's base imports no dialog."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual.actions import parse
from textual.app import App
from textual.binding import Binding
from textual.events import Resize
from textual.notifications import SeverityLevel
from textual.screen import Screen, ScreenResultType
from textual.theme import Theme
from textual.worker import Worker, WorkerState

from foundry_tui.tui.commands import NARROW_KEY, WRITE_ACTIONS
from foundry_tui.tui.common.text import shown_lines, unmarked
from foundry_tui.tui.common.workers import worker_state_changed

if TYPE_CHECKING:
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.ops.actor import Actor
    from foundry_tui.tui.app import FoundryApp
    from foundry_tui.tui.commands import Command


PALETTE_KEY_WIDTH = 13  # the footer's "▏^p palette " on the right
BUSY_DELAY = 0.4  # seconds a write may take before its screen shows it is working


class FoundryScreen(Screen[ScreenResultType]):
    """Subclasses list their commands in SCREEN_COMMANDS (and bind them in BINDINGS)."""

    SCREEN_COMMANDS: ClassVar[tuple[type[Command], ...]] = ()
    BUSY_KEEPS: ClassVar[frozenset[str]] = frozenset()  # ids of children a busy indicator leaves in view

    @property
    def foundry(self) -> FoundryApp:
        return cast("FoundryApp", self.app)

    @property
    def project(self) -> Project:
        return self.foundry.project

    @property
    def today(self) -> _dt.date:
        return self.foundry.today

    @property
    def actor(self) -> Actor:
        """Who changes what, for the door (`core/ops/`): the app's principal, project and day."""
        from foundry_tui.core.ops.actor import Actor

        return Actor(self.project, self.foundry.caller, self.today)

    @property
    def yesterday(self) -> str:
        """The default expiry of a retirement: earlier than today, so inactive at once."""
        return (self.today - _dt.timedelta(days=1)).isoformat()

    def fact_file(self, fact_id: str) -> str:
        """A fact's file as shown to the user (from the project's layout, relative to its root)."""
        layout = self.project.layout
        return layout.relative(layout.fact_path(fact_id))

    def facts_folder(self) -> str:
        layout = self.project.layout
        return f"{layout.relative(layout.facts_dir)}/"

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A notification names facts, tags, queries and errors quoting them: text, never
        markup (a tag `[/]` would close the app), no control characters, and the core's
        `**Why:**` as the word it marks."""
        super().notify(unmarked(shown_lines(message)), title=title, severity=severity, timeout=timeout, markup=markup)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme: Theme) -> None:
        self.recolour()

    def recolour(self) -> None:
        """Show again what was built with the old theme's colours (nothing by default)."""

    @property
    def narrow(self) -> bool:
        """Whether the footer has no room for every key it is fed at full width: then the
        WIDE_ONLY commands leave it (commands.NARROW_KEY), so that none is cut."""
        return self.size.width < self.full_footer_width()

    def full_footer_width(self) -> int:
        """The columns Textual's Footer takes for every shown key of this screen and of the
        app (" key name " each, each action once) and the palette's key on the right."""
        keys: set[str] = set()  # a key bound by the screen hides the app's binding of it
        labels: dict[str, int] = {}  # one label per action, as the Footer groups them
        for node in (*type(self).__mro__, type(self.app)):
            for binding in Binding.make_bindings(node.__dict__.get("BINDINGS", ())):
                if binding.key in keys or binding.action.startswith(NARROW_KEY):  # not the twins
                    continue
                keys.add(binding.key)
                if binding.show:
                    width = len(self.app.get_key_display(binding)) + len(binding.description) + 3
                    labels.setdefault(binding.action, width)
        return sum(labels.values()) + PALETTE_KEY_WIDTH

    def on_resize(self, _event: Resize) -> None:
        """A new width may cross the breakpoint: the footer picks its keys again (the
        narrow twins, commands.NARROW_KEY), once the layout's classes follow."""
        self.call_after_refresh(self.refresh_bindings)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A memory opened as of a past revision (`foundry tui --at REV`) is read-only. A
        narrow twin (commands.NARROW_KEY) is on only when the footer has no room, as its action is."""
        if action == NARROW_KEY:
            if not self.narrow or not parameters:
                return False
            namespace, name, inner = parse(str(parameters[0]))
            node: FoundryScreen[Any] | App[Any] = self.app if namespace == "app" else self
            return node.check_action(name, inner)
        if self.foundry.read_only and action in WRITE_ACTIONS:
            return False
        return super().check_action(action, parameters)

    async def action_narrow_key(self, action: str) -> None:
        """A narrow twin's key: the action it wraps, as the key's own binding runs it."""
        await self.run_action(action)

    def busy_groups(self) -> frozenset[str]:
        """The groups of this screen's workers that show a busy indicator past BUSY_DELAY:
        its writes and what opens from an editor (a LiveScreen adds its load)."""
        return frozenset({"write", "edit", "open"})

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_state_changed(self, event)
        if event.worker.group not in self.busy_groups():
            return
        if event.state is WorkerState.RUNNING:
            self.set_timer(BUSY_DELAY, lambda: self._show_busy(self._writing()))
        elif event.worker.is_finished:
            self._show_busy(self._writing())

    def _writing(self) -> bool:
        """Whether a worker of this screen that shows as busy is under way."""
        groups = self.busy_groups()
        return any(w.group in groups and w.node is self and not w.is_finished for w in self.workers)

    def _show_busy(self, busy: bool) -> None:
        """A write (or a load) still under way after BUSY_DELAY: cover the screen's content with
        a loading indicator (the header, the title and the key footer stay), so that a slow one
        (waiting for the memory lock, say) is never mistaken for a hang; gone when the last ends."""
        from textual.widgets import Footer

        from foundry_tui.tui.common.status_header import StatusHeader

        for child in self.children:
            if not isinstance(child, StatusHeader | Footer) and child.id not in self.BUSY_KEEPS:
                child.loading = busy
