"""The TUI's words (issue 31, item 9): the core's `**Why:**` marker never reaches the screen as
markdown (toasts say `Why:`; the prune rows, the curator's bulk rows and panes and the doctor's
report show it bold), the
reasoning lines of a body are paragraphs of their own, and a long title in a dialog's
question wraps inside the dialog instead of being cut at its edge."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.content import Content
from textual.widgets import Input, Markdown, Select, SelectionList, Static, TabbedContent, TextArea
from textual.widgets.markdown import MarkdownBlock

from foundry_tui.core.memory.project import Project
from foundry_tui.tui.common.confirm import ConfirmScreen
from foundry_tui.tui.common.text import counted, marked, unmarked
from foundry_tui.tui.curator.screen import CuratorScreen
from foundry_tui.tui.health.doctor import DoctorScreen
from foundry_tui.tui.memory.fact_detail import reasoning_paragraphs
from foundry_tui.tui.memory.prune_list import PruneList
from tests.tui_helpers import drawn, make_app, notifications, open_mode, press, select, settle, text_of

SIZES = [(120, 40), (80, 24)]


def test_counted_says_one_and_many() -> None:
    assert [counted(n, "hit") for n in (0, 1, 2)] == ["0 hits", "1 hit", "2 hits"]
    assert counted(1, "fact") == "1 fact" and counted(3, "entry", "entries") == "3 entries"


def test_markers_are_words_in_toasts_and_bold_in_reports() -> None:
    assert unmarked("decision fact-0017 has no **Why:** line") == "decision fact-0017 has no Why: line"
    text = marked("add a **Why:** line, then **How to apply:** [/]")
    assert text.plain == "add a Why: line, then How to apply: [/]"
    assert [(text.plain[s.start : s.end], str(s.style)) for s in text.spans] == [
        ("Why:", "bold"),
        ("How to apply:", "bold"),
    ]
    assert marked("no markers \x1b").plain == "no markers \\u001b"  # still no terminal control


def test_reasoning_lines_start_paragraphs_outside_code() -> None:
    body = "Postgres only.\n**Why:** MERGE.\nstill why\n**How to apply:** plain SQL.\n```\n**Why:** code\n```"
    assert reasoning_paragraphs(body) == (
        "Postgres only.\n\n**Why:** MERGE.\nstill why\n\n**How to apply:** plain SQL.\n```\n**Why:** code\n```"
    )
    assert reasoning_paragraphs("**Why:** first line") == "**Why:** first line"


@pytest.mark.parametrize("size", SIZES)
async def test_why_and_how_on_consecutive_lines_are_two_paragraphs(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0009")  # **Why:** … then **How to apply:** on the next line
        await settle(pilot)
        body = app.screen.query_one("#detail-body", Markdown)
        paragraphs = [b.source or "" for b in body.query(MarkdownBlock) if b.name == "paragraph_open"]
        reasons = [p.split(":**", 1)[0] for p in paragraphs if p.startswith("**")]
        assert reasons == ["**Why", "**How to apply"], paragraphs  # one paragraph each, not one for both


async def test_prune_rows_and_the_doctor_show_the_marker_bold(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        prune = app.screen.query_one(PruneList)
        row = next(text for row_id, text in prune.rows if row_id == "fact-0011")
        line = row() if callable(row) else row
        assert line.plain.startswith("fact-0011 — add a Why: line  ")
        assert "**" not in line.plain
        await press(pilot, "d")
        assert isinstance(app.screen, DoctorScreen)
        report = str(app.screen.query_one("#doctor-report", Static).render())
        assert "1 active decision or risk fact without Why:" in report
        assert "**" not in report


def _bold_words(text: Text | Content) -> list[str]:
    return [text.plain[span.start : span.end] for span in text.spans if "bold" in str(span.style)]


async def test_the_curators_bulk_rows_and_panes_show_the_marker_bold_at_80x24(demo_root: Path) -> None:
    """The bulk-retire rows and the contradiction pane, as the memory screen's prune rows: the
    core's `**Why:**` and `**How to apply:**` are the bold words they mark, no stars."""
    from tests.helpers import write

    write(  # fact-0017, against the demo's fact-0009 (PostgreSQL 16)
        Project(demo_root),
        "PostgreSQL 15 is the production database",
        "We run 15 in production.\n\n**Why:** the upgrade waits.\n**How to apply:** pin 15.",
        type="decision",
    )
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_mode(pilot, "f6", CuratorScreen, tab="retire-tab")
        selection = screen.query_one("#retire-list", SelectionList)
        prompt = selection.get_option("fact-0011").prompt
        assert isinstance(prompt, Content)  # the list's own form of the row's Text
        assert prompt.plain.startswith("[ ] fact-0011 — add a Why: line")
        assert "Why:" in _bold_words(prompt) and "**" not in prompt.plain
        selection.focus()
        await settle(pilot)
        assert "[ ] fact-0011 — add a Why: line" in text_of(drawn(app, 4))
        screen.query_one(TabbedContent).active = "conflicts-tab"
        await settle(pilot)
        pane = screen.query_one("#conflict-text", Static).content
        assert isinstance(pane, Text)
        assert "We run 15 in production.\n\nWhy: the upgrade waits.\nHow to apply: pin 15." in pane.plain
        assert "**" not in pane.plain
        assert {"Why:", "How to apply:"} <= set(_bold_words(pane))


async def test_the_toast_after_a_decision_without_why_says_why_plainly(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        form = app.screen
        form.query_one("#title", Input).value = "Queues run on RabbitMQ"
        form.query_one("#type", Select).value = "decision"
        form.query_one("#body", TextArea).text = "One broker for every queue."
        await press(pilot, "ctrl+s", "ctrl+s")
        toast = notifications(pilot)[-1]
        assert "decision fact-0017 has no Why: line; doctor fails" in toast
        assert "**" not in toast


@pytest.mark.parametrize("size", SIZES)
async def test_a_long_title_in_a_question_wraps_inside_the_dialog(demo_root: Path, size: tuple[int, int]) -> None:
    title = "Every nightly export of the orders warehouse lands in the cold bucket within 2h"  # 79 characters
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        form = app.screen
        form.query_one("#title", Input).value = title
        form.query_one("#type", Select).value = "metric"
        form.query_one("#body", TextArea).text = "Checked by the export job."
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        heading = app.screen.query_one("#dialog-title")
        dialog = app.screen.query_one("#dialog")
        assert heading.region.right <= dialog.content_region.right
        assert heading.region.height >= 2  # wrapped: no dialog is 84 columns wide at either size
        shown = " ".join(
            text_of(drawn(app, y))[heading.region.x : heading.region.right].strip()
            for y in range(heading.region.y, heading.region.bottom)
        )
        assert " ".join(shown.split()) == f"Write “{title}”?"
