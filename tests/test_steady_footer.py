"""SteadyFooter: the same footer as Textual's, its keys styled once as they mount."""

from __future__ import annotations

from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.css.stylesheet import Stylesheet
from textual.widgets import Footer, Label
from textual.widgets._footer import FooterKey

from foundry_tui.tui.widgets.steady_footer import SteadyFooter

GROUP = Binding.Group("move")


class Keys(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "noop('a')", "Alpha"),
        Binding("b", "noop('b')", "Beta"),
        Binding("left", "noop('left')", "Left", group=GROUP),
        Binding("right", "noop('right')", "Right", group=GROUP),
        Binding("z", "noop('z')", "Hidden", show=False),
    ]

    def action_noop(self, _key: str) -> None:
        pass

    def __init__(self, footer: Footer) -> None:
        super().__init__()
        self.footer = footer

    def compose(self) -> ComposeResult:
        yield Label("body")
        yield self.footer


async def keys_of(footer: Footer) -> tuple[list[tuple[str, str, bool, frozenset[str]]], int]:
    """Each key as shown (key, description, compact, classes), and how many times keys were styled."""
    styled = 0
    apply = Stylesheet.apply

    def counted(self: Stylesheet, node: object, *args: object, **kwargs: object) -> None:
        nonlocal styled
        styled += isinstance(node, FooterKey)
        apply(self, node, *args, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Stylesheet, "apply", counted)
        app = Keys(footer)
        async with app.run_test(size=(100, 10)) as pilot:
            await pilot.pause()
            await pilot.pause()
            keys = [
                (key.key, key.description, key.compact, frozenset(key.classes))
                for key in app.screen.query(FooterKey).results(FooterKey)
            ]
            lines = app.screen._compositor.render_update(full=True)  # the footer as drawn
            assert lines is not None
    return keys, styled


@pytest.mark.parametrize("compact", [False, True])
async def test_the_steady_footer_is_textuals_footer_styled_once(compact: bool) -> None:
    plain, plain_styled = await keys_of(Footer(compact=compact))
    steady, steady_styled = await keys_of(SteadyFooter(compact=compact))
    assert steady == plain
    assert {k for k, _d, _c, _cl in plain} >= {"a", "b", "left", "right"}
    assert any("-command-palette" in classes for *_rest, classes in plain)
    assert steady_styled < plain_styled
