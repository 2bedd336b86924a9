"""The terminal application driven by Pilot: the curator's flows, end to end, on real files."""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.color import Color
from textual.content import Content
from textual.pilot import Pilot
from textual.style import Style
from textual.widgets import Input, Select, Static, TextArea

from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.commands import FoundryCommands
from foundry_tui.tui.common.confirm import ConfirmScreen
from foundry_tui.tui.common.empty import EmptyScreen
from foundry_tui.tui.memory.fact_detail import FactDetail
from foundry_tui.tui.memory.screen import MemoryScreen
from foundry_tui.tui.memory.search_pane import SearchResults
from foundry_tui.tui.memory.write_fact import WriteFactScreen
from tests.helpers import TODAY, run_cli
from tests.tui_helpers import make_app, notices, option_ids, select, select_artifact, settle


def _detail_text(app: object) -> str:
    detail = app.screen.query_one(FactDetail)  # type: ignore[attr-defined]
    return "\n".join(str(w.render()) for w in detail.query(Static))


async def test_search_then_select(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"snake json")
        await settle(pilot)
        assert option_ids(pilot, "#results") == ["fact-0007", "fact-0014"]
        await select(pilot, "fact-0014", "#results")
        assert "fact-0014 · convention · active" in _detail_text(app)
        assert str(app.screen.query_one("#detail-score", Static).render()) == (
            "score 8.00 = 8 points\n"
            '  "snake" title +3, body +1\n'
            '  "json" title +3, body +1\n'
            "  × 1 (convention) × 1 (confidence medium)"
        )


async def test_fact_with_chain_and_selecting_through_it(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0009")
        assert option_ids(pilot, "#chain") == ["fact-0004", "fact-0002"]
        await select(pilot, "fact-0004", "#chain")
        text = _detail_text(app)
        assert "fact-0004 · decision · inactive: superseded by fact-0009" in text
        assert option_ids(pilot, "#chain") == ["fact-0009", "fact-0002"]


async def test_retire_a_fact_and_see_it_leave_the_index(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "fact-0003" in option_ids(pilot, "#index")
        await select(pilot, "fact-0003")
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.query_one("#dialog-field", Input).value == "2026-11-29"  # yesterday: inactive today
        await pilot.click("#confirm")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen)
        assert "fact-0003" not in option_ids(pilot, "#index")
        text = (demo_root / ".foundry/memory/facts/fact-0003.md").read_text()
        assert "expires: 2026-11-29" in text
        assert "fact-0003" not in (demo_root / ".foundry/memory/INDEX.md").read_text()


async def test_cancelling_changes_nothing(demo_root: Path) -> None:
    before = {p.name: p.read_bytes() for p in (demo_root / ".foundry/memory/facts").iterdir()}
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0003")
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen)
        for key in ("x", "w"):  # the Cancel button of the confirmation and of the form
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen | WriteFactScreen)
            await pilot.click("#cancel")
            await settle(pilot)
            assert isinstance(app.screen, MemoryScreen)
    assert {p.name: p.read_bytes() for p in (demo_root / ".foundry/memory/facts").iterdir()} == before


async def test_write_a_fact(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, WriteFactScreen)
        form.query_one("#type", Select).value = "convention"  # chosen: the form presets no type
        form.query_one("#title", Input).value = "x" * 90
        form.query_one("#body", TextArea).text = "Too long a title."
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "Not saved: title is 90 characters, 10 over the 80-character limit" in str(
            form.query_one("#form-error").render()
        )
        form.query_one("#title", Input).value = "Feature flags live in LaunchDarkly"
        form.query_one("#body", TextArea).text = "One place to flip them."
        form.query_one("#tags", Input).value = "flags, launchdarkly"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "fact-0017" in option_ids(pilot, "#index")
        fact = parse_fact_text((demo_root / ".foundry/memory/facts/fact-0017.md").read_text(), "fact-0017")
        assert (fact.title, fact.type, fact.tags) == (
            "Feature flags live in LaunchDarkly",
            "convention",
            ("flags", "launchdarkly"),
        )
        assert any("created: fact-0017" in n.message for n in notices(app))


async def test_add_why_supersedes_the_decision(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0011", "#prune")
        await pilot.press("y")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, WriteFactScreen)
        body = form.query_one("#body", TextArea)
        assert body.text.endswith("\n\n**Why:** ")
        body.text += "one broker for every queue, already run by ops."
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        new = parse_fact_text((demo_root / ".foundry/memory/facts/fact-0017.md").read_text(), "fact-0017")
        assert new.supersedes == "fact-0011" and new.has_why
        assert "fact-0011" not in option_ids(pilot, "#index") and "fact-0017" in option_ids(pilot, "#index")
        screen = app.screen
        assert isinstance(screen, MemoryScreen) and screen.overview is not None
        # It is now a superseded fact, no longer one missing its reasoning.
        assert [(e.fact_id, e.group) for e in screen.overview.prune if e.fact_id == "fact-0011"] == [
            ("fact-0011", "superseded")
        ]


async def _wait_for(pilot: object, condition: object, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await settle(pilot)  # type: ignore[arg-type]
        if condition():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.05)
    return False


async def test_watcher_picks_up_another_process_and_broken_files(demo_root: Path) -> None:
    app = make_app(demo_root, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await asyncio.sleep(0.3)  # the watcher sets up its OS watch
        subprocess.run(
            [
                sys.executable,
                "-m",
                "foundry_tui",
                "--root",
                str(demo_root),
                "memory",
                "write",
                "--title",
                "Written by another process",
                "--body",
                "Seen live.",
                "--type",
                "domain",
            ],
            check=True,
            capture_output=True,
        )
        # Seen at all (how fast is the benchmark's business: benchmarks/bench_tui.py, "edit on disk visible").
        assert await _wait_for(pilot, lambda: "fact-0017" in option_ids(pilot, "#index"))
        assert any(n.message == "fact-0017 added" for n in notices(app))
        broken = demo_root / ".foundry/memory/facts/fact-0018.md"
        broken.write_text("---\ntitle: [unclosed\n---\n")
        assert await _wait_for(pilot, lambda: "broken:fact-0018.md" in option_ids(pilot, "#index"))
        await select(pilot, "broken:fact-0018.md")
        assert "frontmatter is not valid YAML" in _detail_text(app)
        assert "fact-0009" in option_ids(pilot, "#index")  # the rest stays usable
        broken.write_text("---\nid: fact-0018\ntype: domain\ntitle: Fixed now\ncreated: 2026-11-30\n---\nRepaired.\n")
        assert await _wait_for(pilot, lambda: "fact-0018" in option_ids(pilot, "#index"))
        assert "broken:fact-0018.md" not in option_ids(pilot, "#index")


async def init_from_empty_screen(pilot: Pilot[Any]) -> None:
    """`i` on the empty screen, then confirm: `foundry init`, and the memory screen."""
    await pilot.press("i")
    await settle(pilot)
    await pilot.click("#confirm")
    await settle(pilot)


async def test_empty_repository_offers_init(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, EmptyScreen)
        await init_from_empty_screen(pilot)
        assert isinstance(app.screen, MemoryScreen)
    assert (tmp_path / ".foundry/memory/INDEX.md").exists() and (tmp_path / ".mcp.json").exists()


async def test_the_start_holds_no_frame_but_init_and_later_switches_do(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual holds frames 50 ms on a switch of mode to hide the old screen: not at start
    (the memory screen is the app's default screen: no switch), but after `foundry init` on
    the empty screen and on every later switch."""
    holds: list[str] = []
    monkeypatch.setattr(App, "delay_update", lambda self, delay=0.05: holds.append(self.current_mode))
    app = make_app(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen) and holds == []
        await pilot.press("f3")
        await settle(pilot)
        assert app.current_mode == "blackboard" and holds == ["memory"]
    holds.clear()
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, EmptyScreen) and holds == []
        await init_from_empty_screen(pilot)
        assert isinstance(app.screen, MemoryScreen)
        assert holds == ["memory"]  # the empty screen was on the terminal


async def test_screens_palette_and_keys(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key, mode in (("f3", "blackboard"), ("f4", "library"), ("f5", "health"), ("f2", "memory")):
            await pilot.press(key)
            await settle(pilot)
            assert app.current_mode == mode
        await pilot.press("question_mark")
        await settle(pilot)
        assert app.screen.query("HelpPanel")
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"toggle inactive", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryScreen) and screen.show_inactive
        assert "fact-0006" in option_ids(pilot, "#index")


async def test_rebuild_index_and_notifications(demo_root: Path) -> None:
    index = demo_root / ".foundry/memory/INDEX.md"
    index.write_text("hand edited\n")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert index.read_text().startswith("# Memory index\n")
        assert any("13/13 facts listed" in n.message for n in notices(app))


async def test_a_disk_error_in_a_write_is_one_notification(demo_root: Path) -> None:
    """Not only the core's refusals: an OSError in a worker used to close the app."""
    index = demo_root / ".foundry/memory/INDEX.md"
    index.unlink()
    index.mkdir()  # INDEX.md cannot be replaced by a file now
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, MemoryScreen)
        [error] = [n.message for n in notices(app) if n.severity == "error"]
        assert error.startswith("Not rebuilt: [Errno 21] Is a directory: ") and error.endswith(f"-> '{index}'")
        await select(pilot, "fact-0009")  # still usable
        assert "fact-0009 · decision · active" in _detail_text(app)


def test_a_missing_root_is_an_error_before_the_app_starts() -> None:
    run = run_cli("tui", "--root", "/does/not/exist")
    assert run.code == 2 and run.err.startswith("foundry: error: project root /does/not/exist is not a directory")


async def test_runs_under_no_color(demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.no_color
        assert "fact-0009" in option_ids(pilot, "#index")


def _score_colour(app: FoundryApp, row: int) -> str:
    """The colour of the score at the start of a search result's line, as drawn."""
    first = next(iter(app.screen.query_one(SearchResults).render_line(row)))
    assert first.text.strip() and first.style is not None and first.style.color is not None
    return first.style.color.get_truecolor().hex.upper()


async def test_colours_follow_the_theme(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"snake json")
        await settle(pilot)
        assert _score_colour(app, 1) == app.get_css_variables()["text-success"] == "#8AD4A1"  # textual-dark
        app.theme = "textual-light"
        await settle(pilot)
        assert _score_colour(app, 1) == app.get_css_variables()["text-success"] == "#337E4A"
        head = app.screen.query_one("#detail-head", Static).render()
        assert isinstance(head, Content)
        active = next(span for span in head.spans if head.plain[span.start : span.end] == "active")
        assert isinstance(active.style, Style)  # the fact shown is active, in the light theme's colour
        assert (active.style.foreground, active.style.bold) == (Color.parse("#337E4A"), True)


async def test_the_blackboard_follows_the_theme(demo_root: Path) -> None:
    """The verdict of the artifact shown is drawn again in the new theme's colour."""

    def verdict_colour() -> Color | None:
        head = app.screen.query_one("#artifact-head", Static).render()
        assert isinstance(head, Content)
        [verdict] = [span for span in head.spans if "violation" in head.plain[span.start : span.end]]
        assert isinstance(verdict.style, Style)
        return verdict.style.foreground

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await select_artifact(pilot, "audit/perf-reviewer.json")  # the invalid finding
        assert verdict_colour() == Color.parse("#D17E92")  # textual-dark's $text-error
        app.theme = "textual-light"
        await settle(pilot)
        assert verdict_colour() == Color.parse("#7A273C")  # textual-light's


async def test_screens_are_imported_when_first_shown(demo_root: Path) -> None:
    """Start-up pays only for the screen shown: the other modes' modules load on first use."""
    # Self-contained, and run outside the checkout: under tox the installed package is the one tested.
    script = f"""
import asyncio, datetime, sys
from pathlib import Path
from typing import Any
from foundry_tui.tui.app import FoundryApp

def screens():  # the loaded modules of foundry_tui.tui that define a screen
    from textual.screen import Screen
    return sorted(
        name.removeprefix("foundry_tui.tui.")
        for name, module in list(sys.modules.items())
        if name.startswith("foundry_tui.tui.")
        and any(isinstance(v, type) and issubclass(v, Screen) and v.__module__ == name for v in vars(module).values())
    )

async def settled(pilot):
    for _ in range(4):
        for worker in list(pilot.app.workers):
            try:
                await worker.wait()
            except Exception:
                pass
        await pilot.pause(0.02)

async def main():
    app = FoundryApp(Path({str(demo_root)!r}), datetime.date(2026, 11, 30), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        print(type(app.screen).__name__, *screens())
        await pilot.press("f6")
        await settled(pilot)
        print(type(app.screen).__name__, *screens())

asyncio.run(main())
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=demo_root, check=True)
    at_start, after_f6 = run.stdout.splitlines()
    assert (
        at_start == "MemoryScreen common.base common.confirming memory.screen"
    )  # the dialogs and the doctor's screen load on first use too
    assert (
        after_f6
        == "CuratorScreen common.base common.confirming common.dialog common.draft common.live curator.merge curator.screen memory.screen"
    )


async def test_palette_lists_the_commands_of_the_screen_shown(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        on_memory = await _palette_titles(app)
        await pilot.press("f6")
        await settle(pilot)
        on_curator = await _palette_titles(app)
        await pilot.press("f7")
        await settle(pilot)
        on_sessions = await _palette_titles(app)
    app_titles = [
        "Show Memory",
        "Show Blackboard",
        "Show Library",
        "Show Health",
        "Show Curator",
        "Show Sessions",
        "Show History",
        "Show Approvals",
        "Show Keys",
        "Quit",
    ]
    assert on_memory == [
        "Focus Search",
        "Toggle Inactive",
        "Write Fact",
        "Edit Fact",
        "Open Source",
        "Retire Fact",
        "Confirm Refs",
        "Show Code Diff",
        "Add Why",
        "Rebuild Index",
        "Show Doctor",
        *app_titles,
    ]
    assert on_curator == [
        "Merge Group",
        "Undo Merge",
        "Add Tag",
        "Retire Selected",
        "Resolve Conflict",
        "Show Doctor",
        *app_titles,
    ]
    assert on_sessions == ["Promote Working Fact", *app_titles]


async def test_palette_leaves_out_what_check_action_refuses(demo_root: Path) -> None:
    class NoQuitting(FoundryApp):
        CSS_PATH = str(
            Path(inspect.getfile(FoundryApp)).with_name("app.tcss")
        )  # else it is looked for beside this test

        def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
            return action != "quit"

    app = NoQuitting(demo_root, TODAY, watch=False, root_label="demo")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = await _palette_titles(app)
    assert "Quit" not in titles and "Show Doctor" in titles


async def _palette_titles(app: FoundryApp) -> list[str]:
    provider = FoundryCommands(app.screen)
    return [str(hit.text) async for hit in provider.discover()]
