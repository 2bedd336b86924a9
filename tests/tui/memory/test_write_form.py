"""The write form's traps, driven by Pilot on the demo memory (issue 31): where `y` puts the
cursor, what Escape and a cancelled confirm do to a draft, the labels of every field,
the type chosen (never preset), and the warning a decision without its Why line gets
before the write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, TextArea

from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.tui.common.confirm import ConfirmScreen
from foundry_tui.tui.common.draft import DiscardDraftScreen
from foundry_tui.tui.memory.screen import MemoryScreen
from foundry_tui.tui.memory.write_fact import WriteFactScreen
from tests.tui_helpers import drawn, make_app, press, select, settle, text_of

SIZES = [(120, 40), (80, 24)]
CELERY = "Background jobs run on Celery with Redis as the broker"


@pytest.mark.parametrize("size", SIZES)
async def test_y_starts_in_the_body_after_the_why_marker(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0011", "#prune")
        await press(pilot, "y")
        form = app.screen
        assert isinstance(form, WriteFactScreen)
        body = form.query_one("#body", TextArea)
        assert app.focused is body
        assert body.cursor_location == body.document.end
        await pilot.press(*"ops runs it")
        await settle(pilot)
        assert body.text.endswith("\n\n**Why:** ops runs it")
        assert form.query_one("#title", Input).value == CELERY  # the title is not replaced


async def test_w_still_starts_in_the_title(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        assert isinstance(app.screen, WriteFactScreen)
        assert app.focused is app.screen.query_one("#title", Input)


def _top(app: App[Any]) -> Screen[Any]:
    """The screen on top (a function: mypy would keep the type an earlier assert narrowed)."""
    return app.screen


def _facts(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / ".foundry/memory/facts").iterdir())}


@pytest.mark.parametrize(("field", "size"), [("#title", (120, 40)), ("#body", (80, 24))])
async def test_escape_asks_before_a_draft_is_thrown_away(demo_root: Path, field: str, size: tuple[int, int]) -> None:
    before = _facts(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        form = app.screen
        assert isinstance(form, WriteFactScreen)
        form.query_one(field).focus()
        await pilot.press(*"Queues drain")
        await press(pilot, "escape")  # from inside the field typed in, the body's TextArea too
        assert isinstance(app.screen, DiscardDraftScreen)
        await press(pilot, "escape")  # the question's own Escape keeps the draft
        assert _top(app) is form
        typed = form.query_one("#title", Input).value if field == "#title" else form.query_one("#body", TextArea).text
        assert typed == "Queues drain"
        await press(pilot, "escape")
        assert isinstance(app.screen, DiscardDraftScreen)
        await pilot.click("#cancel")  # "Keep editing"
        await settle(pilot)
        assert _top(app) is form
        form.query_one("#cancel", Button).press()  # the form's Cancel asks too (below the fold at 80x24)
        await settle(pilot)
        assert isinstance(app.screen, DiscardDraftScreen)
        await pilot.click("#discard")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen)
    assert _facts(demo_root) == before


async def test_an_untouched_form_closes_without_a_question(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0011", "#prune")
        await press(pilot, "y")  # its preset is not a draft of the user's
        assert isinstance(app.screen, WriteFactScreen)
        await press(pilot, "escape")
        assert isinstance(app.screen, MemoryScreen)


@pytest.mark.parametrize("size", SIZES)
async def test_a_cancelled_confirm_returns_to_the_form(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        form = app.screen
        assert isinstance(form, WriteFactScreen)
        form.query_one("#title", Input).value = "Feature flgas live in LaunchDarkly"
        form.query_one("#type", Select).value = "convention"
        form.query_one("#body", TextArea).text = "One place to flip them."
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        await press(pilot, "escape")
        assert _top(app) is form  # the typo can be fixed
        assert form.query_one("#body", TextArea).text == "One place to flip them."
        form.query_one("#title", Input).value = "Feature flags live in LaunchDarkly"
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#cancel")
        await settle(pilot)
        assert _top(app) is form
        await press(pilot, "ctrl+s", "ctrl+s")
        assert isinstance(app.screen, MemoryScreen)
    fact = parse_fact_text((demo_root / ".foundry/memory/facts/fact-0017.md").read_text(), "fact-0017")
    assert fact.title == "Feature flags live in LaunchDarkly"


def _label(form: Screen[Any], label_id: str) -> str:
    return str(form.query_one(label_id, Label).render())


@pytest.mark.parametrize("size", SIZES)
async def test_every_field_is_labelled_and_no_type_is_preset(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "slash", *"orders")
        app.screen.query_one("#type-filter", Select).value = "risk"  # a search filter in force
        app.screen.query_one("#index").focus()
        await press(pilot, "w")
        form = app.screen
        assert isinstance(form, WriteFactScreen)
        assert [_label(form, f"#{i}-label") for i in ("scope", "source", "expires")] == [
            "Scope",
            "Source",
            "Expires (blank: never)",
        ]
        for field_id in ("scope", "source", "expires"):  # each label sits right above its box
            label, box = form.query_one(f"#{field_id}-label").region, form.query_one(f"#{field_id}").region
            assert (label.x, label.y + 1) == (box.x, box.y)
        type_select = form.query_one("#type", Select)
        assert type_select.selection is None  # neither the filter's risk nor any default
        form.query_one("#title", Input).value = "Staging resets nightly"
        form.query_one("#body", TextArea).text = "At 02:00 UTC."
        await press(pilot, "ctrl+s")
        assert _top(app) is form
        assert _label(form, "#form-error") == (
            "Not saved: choose a type (decision, constraint, convention, domain, risk, metric, glossary)."
        )
        type_select.value = "domain"
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_confirm_warns_a_decision_has_no_why_line(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        form = app.screen
        assert isinstance(form, WriteFactScreen)
        form.query_one("#title", Input).value = "Queues run on RabbitMQ"
        form.query_one("#type", Select).value = "decision"
        form.query_one("#body", TextArea).text = "One broker for every queue."
        await press(pilot, "ctrl+s")
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert confirm.changes[-1] == (
            "warning: this decision has no Why: line; doctor fails and prune lists it until one is added "
            "(Cancel returns to the form)"
        )
        await press(pilot, "escape")  # back to the form, to add it
        form.query_one("#body", TextArea).text = "One broker for every queue.\nWhy: ops already runs it."
        await press(pilot, "ctrl+s")
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert not any(line.startswith("warning:") for line in confirm.changes)


FIELDS = ("title", "type", "confidence", "body", "tags", "scope", "source", "expires")


@pytest.mark.parametrize(("size", "layout"), [((80, 24), "-short"), ((120, 40), "-tall"), ((160, 45), "-tall")])
async def test_every_field_its_label_and_the_keys_show_without_scrolling(
    demo_root: Path, size: tuple[int, int], layout: str
) -> None:
    """At 80x24 the form takes its one-line layout (issue 31): every field, its label, both
    buttons and the footer's keys lie within the screen and the form's frame, which does not
    scroll; from 37 rows on (120x40, 160x45) the boxed layout, whole too."""
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        form = _top(app)
        assert isinstance(form, WriteFactScreen)
        assert form.has_class(layout)
        screen = Region(0, 0, *size)
        dialog = form.query_one("#dialog")
        assert dialog.max_scroll_y == 0
        assert screen.contains_region(dialog.region)
        inside = dialog.content_region
        for widget_id in (*FIELDS, *(f"{field}-label" for field in FIELDS), "save", "cancel"):
            region = form.query_one(f"#{widget_id}").region
            assert region.height > 0 and inside.contains_region(region), (widget_id, region, inside)
        assert form.query_one("#title", Input).region.height == (1 if layout == "-short" else 3)
        footer = text_of(drawn(app, -1))
        assert "esc Cancel" in footer and "^s Save" in footer
        assert not dialog.region.overlaps(Region(0, size[1] - 1, size[0], 1))  # the footer's row is free
