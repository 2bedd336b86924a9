"""User strings on screen are text, never markup or terminal control (issue 9, item 8 and
the low items): a fact whose tags, scope or source read `[/]` is selected and shown
literally, the write form survives echoing such a tag in its error, hand-written control
characters are shown escaped; and undo after another process wrote refuses (item 11)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from textual.widgets import Input, Select, TabbedContent, TextArea

from foundry_tui.core.memory.project import Project
from foundry_tui.tui.curator.merge import MergeScreen
from foundry_tui.tui.curator.screen import CuratorScreen
from foundry_tui.tui.memory.screen import MemoryScreen
from foundry_tui.tui.memory.write_fact import WriteFactScreen
from tests.helpers import TODAY, run_cli, write
from tests.tui_helpers import make_app, notifications, open_mode, option_ids, press, select, settle

SIZE = (160, 50)
MARKUP_TITLE = "Brackets [b]stay[/b] literal in titles"


def _screen_text(app: Any) -> str:
    """Every character on screen, as the terminal would show it."""
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


async def test_selecting_a_fact_with_markup_in_every_field_shows_it_literally(demo_root: Path) -> None:
    project = Project(demo_root)
    reply = write(
        project,
        MARKUP_TITLE,
        "A body with [/] and [red]markup[/red].",
        "domain",
        tags=["[/]", "[bold]loud[/bold]"],
        scope="[/]",
        source="[link=https://example.com]x[/link]",
    )
    assert reply.startswith("created: fact-0017")
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "fact-0017" in option_ids(pilot, "#index")
        await select(pilot, "fact-0017")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, MemoryScreen)
        shown = _screen_text(app)
        assert MARKUP_TITLE in shown
        assert "[/], [bold]loud[/bold]" in shown  # the tags row
        assert "[link=https://example.com]x[/link]" in shown  # the source row
        # and the search pane, which lists the same fact by its title
        await press(pilot, "slash", *"brackets")
        assert "fact-0017" in option_ids(pilot, "#results")
        await select(pilot, "fact-0017", "#results")
        assert app.is_running and MARKUP_TITLE in _screen_text(app)


async def test_the_write_form_survives_echoing_a_markup_tag(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        form = app.screen
        assert isinstance(form, WriteFactScreen)
        form.query_one("#title", Input).value = "Markup in a refused tag"
        form.query_one("#type", Select).value = "convention"
        form.query_one("#body", TextArea).text = "What was typed must survive."
        form.query_one("#tags", Input).value = "[/]`, [bold]"  # a backtick: refused, echoed in the error
        await press(pilot, "ctrl+s")
        assert app.is_running and app.screen is form
        error = str(form.query_one("#form-error").render())
        assert error == "Not saved: tag '[/]`' contains a backtick: use plain words"
        assert "tag '[/]`' contains a backtick" in _screen_text(app)
        # Nothing typed was lost.
        assert form.query_one("#title", Input).value == "Markup in a refused tag"
        assert form.query_one("#body", TextArea).text == "What was typed must survive."
        assert form.query_one("#tags", Input).value == "[/]`, [bold]"


async def test_hand_written_control_characters_are_shown_escaped(demo_root: Path) -> None:
    (demo_root / ".foundry/memory/facts/fact-0017.md").write_text(
        '---\nid: fact-0017\ntype: domain\ntitle: "Escape \\e[2J\\e]0;pwned\\a here"\ntags: ["a\\rb", "[/]"]\n'
        'scope: "x\\ey"\ncreated: 2026-11-01\n---\nBody \x1b[31mred\x1b[0m and \x00 NUL.\n',
        encoding="utf-8",
    )
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0017")
        await settle(pilot)
        assert app.is_running
        shown = _screen_text(app)
        assert "\x1b" not in shown and "\x07" not in shown and "\x00" not in shown and "\r" not in shown
        assert "Escape \\u001b[2J\\u001b]0;pwned\\u0007 here" in shown
        assert "a\\rb, [/]" in shown and "x\\u001by" in shown
        assert "Body \\u001b[31mred\\u001b[0m and \\u0000 NUL." in shown


async def test_a_broken_file_whose_error_quotes_markup_is_shown_literally(demo_root: Path) -> None:
    (demo_root / ".foundry/memory/facts/fact-0017.md").write_text(
        "---\nid: fact-0017\ntype: '[/]'\ntitle: Broken\ncreated: 2026-11-01\n---\nBody.\n", encoding="utf-8"
    )
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "broken:fact-0017.md")
        assert app.is_running
        assert "type '[/]' is not one of decision" in _screen_text(app)


async def test_undo_after_another_process_wrote_refuses_and_says_why(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(pilot, "f6", CuratorScreen)
        await select(pilot, "group:0", "#groups")
        await press(pilot, "m")
        await press(pilot, "ctrl+s")
        merged = demo_root / ".foundry/memory/facts/fact-0017.md"
        assert merged.exists()
        title = next(line for line in merged.read_text().splitlines() if line.startswith("title: "))[7:]
        # Another session restates the merged fact: fact-0018 supersedes fact-0017.
        run = run_cli(
            "memory", "write", "--root", str(demo_root), "--today", "2026-11-30",
            "--title", title, "--body", "Restated elsewhere.", "--type", "convention",
        )  # fmt: skip
        assert run.code == 0 and run.out.startswith("updated: fact-0018 (supersedes fact-0017)"), run.err
        facts_before = {p.name: p.read_bytes() for p in merged.parent.iterdir()}
        index_before = (demo_root / ".foundry/memory/INDEX.md").read_bytes()
        await press(pilot, "u")
        assert app.is_running
        assert (
            "Not undone: cannot undo the merge into fact-0017: fact-0018 was written and supersedes fact-0017 "
            "since the merge, and undoing would lose that; nothing was changed"
        ) in notifications(pilot)
        assert not any("every touched file is as it was" in m for m in notifications(pilot))
        assert {p.name: p.read_bytes() for p in merged.parent.iterdir()} == facts_before
        assert (demo_root / ".foundry/memory/INDEX.md").read_bytes() == index_before
    doctor = run_cli("doctor", "--root", str(demo_root), "--today", TODAY.isoformat())
    assert "INDEX.md is current" in doctor.out


async def test_curator_lists_merges_and_missed_searches_with_markup_literally(demo_root: Path) -> None:
    project = Project(demo_root)
    write(project, "Markup [/] in titles is shown [b]literally[/b] everywhere", "Lists show text.", "domain")
    write(project, "Markup [/] in titles is shown [b]literally[/b] in lists", "Lists show the text.", "domain")
    with (demo_root / ".foundry/metrics/events.jsonl").open("a", encoding="utf-8") as log:
        log.write(
            '{"kind": "memory_search", "time": "2026-11-29T10:00:00.000+00:00", "query": "[/] helm \\u001b[2J", "hits": 0}\n'
        )
    runbook = demo_root / ".foundry/runbooks/markup.md"
    runbook.write_text("---\ntitle: Rotate [/] keys\ntrigger: '[bold]always[/bold]'\n---\n\n# Steps [/]\n\n1. Go.\n")
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        curator = await open_mode(pilot, "f6", CuratorScreen, tab="missed-tab")
        assert app.is_running and "[/] helm \\u001b[2J" in _screen_text(app)  # the query, escaped
        curator.query_one(TabbedContent).active = "dupes-tab"
        await settle(pilot)
        assert option_ids(pilot, "#groups") == ["group:0", "group:1"]  # the demo's pair, then these two
        await select(pilot, "group:1", "#groups")
        assert "fact-0017 ~ fact-0018" in _screen_text(app)
        assert app.is_running and "Markup [/] in titles is shown [b]literally[/b]" in _screen_text(app)
        await press(pilot, "m")
        assert app.is_running and isinstance(app.screen, MergeScreen)
        assert "Markup [/] in titles is shown [b]literally[/b]" in _screen_text(app)
        await press(pilot, "escape")
        await press(pilot, "f4")
        assert app.is_running and "Rotate [/] keys" in _screen_text(app)


async def test_a_notification_naming_a_markup_tag_is_text(demo_root: Path) -> None:
    from foundry_tui.tui.common.confirm import ConfirmScreen

    app = make_app(demo_root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_mode(pilot, "f6", CuratorScreen, tab="missed-tab")
        await select(pilot, "missed:0", "#missed")
        near = option_ids(pilot, "#near")
        await select(pilot, near[0], "#near")
        await press(pilot, "t")
        assert isinstance(app.screen, ConfirmScreen)
        app.screen.query_one("#dialog-field", Input).value = "[/]kube"
        await press(pilot, "ctrl+s")
        assert app.is_running
        assert f"{near[0]} tagged [/]kube" in notifications(pilot)
        await _toasts_draw(pilot)


async def _toasts_draw(pilot: Any) -> None:
    """Every notification drawn as its toast (these runs show toasts: `notifications=True`):
    a message parsed as markup raises MarkupError as its toast renders, and closes the app."""
    await pilot.pause()
    assert pilot.app.is_running
    toasts = [str(toast.render()) for toast in pilot.app.screen.query("Toast")]
    assert toasts and set(notifications(pilot)) <= set(toasts)


async def test_add_why_refuses_a_fact_memory_write_would_refuse(demo_root: Path) -> None:
    facts = demo_root / ".foundry/memory/facts"
    (facts / "fact-0017.md").write_text(
        '---\nid: fact-0017\ntype: decision\ntitle: "No why \\e[1m here"\ncreated: 2026-11-01\n---\nUse it.\n',
        encoding="utf-8",
    )
    before = {p.name: p.read_bytes() for p in facts.iterdir()}
    app = make_app(demo_root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0017")
        await press(pilot, "y")
        assert isinstance(app.screen, MemoryScreen)  # no form: memory_write would refuse the title
        assert (
            "fact-0017 cannot get a new version here: its title contains a control character (U+001B), shown "
            "escaped (doctor lists it); write the fact anew through memory_write"
        ) in notifications(pilot)
        await _toasts_draw(pilot)
    assert {p.name: p.read_bytes() for p in facts.iterdir()} == before
