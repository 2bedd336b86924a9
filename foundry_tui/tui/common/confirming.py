"""ConfirmingScreen: a FoundryScreen that asks before a write, the one way (`confirm`):
it says what will change on disk and runs the write once confirmed. Apart from
FoundryScreen because the question is a dialog, and a dialog is a FoundryScreen too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.screen import Screen, ScreenResultType

from foundry_tui.tui.commands import APP_COMMANDS, LEADING_COMMANDS, ShowMemory, narrow_key, narrow_twins
from foundry_tui.tui.common.base import FoundryScreen


class ConfirmingScreen(FoundryScreen[ScreenResultType]):
    """A screen whose writes are confirmed first (ConfirmScreen is imported on first use).

    Every main screen is one (the dialogs are not): its footer starts with the keys panel
    (F1, which lists every key the screen answers, those the footer has no room for too)
    and Quit, bound here before the screen's own keys, so that both show at any width.

    Where the footer has no room for every key (FoundryScreen.narrow: at 80x24, and on the
    memory screen up to some 190 columns) it would cut the last one: the
    WIDE_ONLY commands (the screen switches, and keys such as R, d or c that the status
    line or the panel names) leave it and stay behind F1. Their narrow twins are bound here
    for the app's commands (with Escape's, named as F2's) and added before the screen's own
    bindings of them by `__init_subclass__` (`commands.narrow_twins`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(command.binding("app.") for command in LEADING_COMMANDS),
        *(command.narrow_twin("app.") for command in APP_COMMANDS if command.WIDE_ONLY),
        Binding(
            "escape",
            narrow_key(f"app.{ShowMemory.ACTION}"),
            ShowMemory.FOOTER or ShowMemory.title(),
            show=False,
            key_display=ShowMemory.KEY_DISPLAY,
            tooltip=ShowMemory.help(),
        ),
    ]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        own = cls.__dict__.get("BINDINGS")
        if own is not None:  # before Textual merges the bindings of the class and its bases
            cls.BINDINGS = narrow_twins(own)
        super().__init_subclass__(**kwargs)

    def confirm(
        self, title: str, changes: list[str], then: Callable[[str], object], field: tuple[str, str] | None = None
    ) -> None:
        """Say what will change on disk and ask; once confirmed, `then` gets the field's value ("" without one)."""
        confirm_on(self, title, changes, then, field)


def confirm_on(
    screen: Screen[Any],
    title: str,
    changes: list[str],
    then: Callable[[str], object],
    field: tuple[str, str] | None = None,
) -> None:
    """ConfirmingScreen.confirm for a screen that is not a main screen (the write form asks over
    itself, without the main screens' F1 and Quit keys, which would end a draft)."""
    from foundry_tui.tui.common.confirm import ConfirmScreen  # dialogs load on first use

    def answered(answer: str | None) -> None:
        if answer is not None:
            then(answer)

    screen.app.push_screen(ConfirmScreen(title, changes, field), answered)
