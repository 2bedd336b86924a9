"""The blackboard screen (F3) driven by Pilot on real files: waves in order, filters, live
arrival with a highlight, violations placed in the JSON beside the contract, and diffs."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.binding import Binding
from textual.content import Content
from textual.pilot import Pilot
from textual.style import Style
from textual.widgets import Input, Static

from foundry_tui.core.artefacts.blackboard import blackboard_write
from foundry_tui.core.artefacts.waves import contract_text
from foundry_tui.core.paths import Layout
from foundry_tui.tui.board.artifact_diff import ArtifactDiffScreen
from foundry_tui.tui.board.artifact_tree import ArtifactTree
from foundry_tui.tui.board.artifact_view import ArtifactView
from foundry_tui.tui.board.contract_view import ContractView
from foundry_tui.tui.board.revealing_scroll import row_of
from foundry_tui.tui.board.screen import BlackboardScreen
from foundry_tui.tui.board.wave_table import WaveTable
from foundry_tui.tui.commands import FoundryCommands
from tests.core.artefacts.test_waves import REVIEW
from tests.tui_helpers import make_app, notifications, open_mode, press, select_artifact, settle

SIZES = [(120, 40), (80, 24)]  # issue 31: every behaviour at 80x24 too


async def _board(pilot: Pilot[Any]) -> BlackboardScreen:
    return await open_mode(pilot, "f3", BlackboardScreen)


def _leaves(pilot: Pilot[Any]) -> dict[str, Text]:
    """Every artifact shown in the artifacts pane, by key, with its label."""
    tree = pilot.app.screen.query_one(ArtifactTree)
    return {
        leaf.data.key: Text(leaf.label) if isinstance(leaf.label, str) else leaf.label
        for wave in tree.root.children
        for leaf in wave.children
        if leaf.data is not None
    }


def _table_rows(pilot: Pilot[Any]) -> list[list[str]]:
    table = pilot.app.screen.query_one(WaveTable)
    return [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]


async def _wait_for(pilot: Pilot[Any], condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await settle(pilot)
        if condition():
            return True
        await asyncio.sleep(0.05)
    return False


async def test_waves_in_order_with_counts(demo_root: Path) -> None:
    async with make_app(demo_root).run_test(size=(120, 40)) as pilot:
        await _board(pilot)
        assert _table_rows(pilot) == [
            ["1", "plan", "2026-11-30 09:12:04", "09:12:04", "1", "0", "376", "94"],
            ["2", "audit", "2026-11-30 09:31:40", "09:33:02", "2", "1", "1231", "308"],
        ]
        assert list(_leaves(pilot)) == ["plan/planner.json", "audit/appsec-reviewer.json", "audit/perf-reviewer.json"]


async def test_the_invalid_count_keeps_no_background_of_a_focus_gone(demo_root: Path) -> None:
    """The count of invalid artifacts is coloured, not given the table's background of the
    moment: drawn while the table had focus (tinted), it kept that tint after the focus left."""
    async with make_app(demo_root).run_test(size=(120, 40)) as pilot:
        screen = await _board(pilot)
        table = screen.query_one(WaveTable)
        table.focus()
        await settle(pilot)
        screen.load()  # drawn anew while the table has focus
        await settle(pilot)
        screen.set_focus(None)
        await settle(pilot)
        invalid = table.get_row_at(1)[5]
        assert str(invalid) == "1"
        style = invalid.style
        assert not isinstance(style, str)
        assert style.color is not None and style.bold
        assert style.bgcolor is None


async def test_filters_by_text_validity_agent_and_schema(demo_root: Path) -> None:
    async with make_app(demo_root).run_test(size=(120, 40)) as pilot:
        await _board(pilot)
        await pilot.press("slash")
        assert pilot.app.focused is pilot.app.screen.query_one("#filter-text", Input)
        await press(pilot, *"tax service")
        assert list(_leaves(pilot)) == ["audit/perf-reviewer.json"]
        tree = pilot.app.screen.query_one(ArtifactTree)
        assert tree.border_subtitle == "1 of 3"
        assert [str(node.label) for node in tree.root.children] == ["audit  1 of 2"]  # plan has none: left out

        pilot.app.screen.query_one(ArtifactTree).focus()
        await pilot.press("c")  # clear
        await settle(pilot)
        assert len(_leaves(pilot)) == 3
        await pilot.press("v")  # invalid only
        await settle(pilot)
        assert list(_leaves(pilot)) == ["audit/perf-reviewer.json"]
        await pilot.press("v")  # valid only
        await settle(pilot)
        assert list(_leaves(pilot)) == ["plan/planner.json", "audit/appsec-reviewer.json"]
        await pilot.press("v")  # all again
        await settle(pilot)
        assert len(_leaves(pilot)) == 3

        screen = pilot.app.screen
        screen.query_one("#filter-agent").value = "planner"  # type: ignore[attr-defined]
        await settle(pilot)
        assert list(_leaves(pilot)) == ["plan/planner.json"]
        screen.query_one("#filter-agent").clear()  # type: ignore[attr-defined]
        screen.query_one("#filter-schema").value = "review.v1"  # type: ignore[attr-defined]
        await settle(pilot)
        assert list(_leaves(pilot)) == ["audit/appsec-reviewer.json"]
        await press(pilot, "slash", *"no such words")
        assert _leaves(pilot) == {}
        assert [str(node.label) for node in tree.root.children] == ["No artifact matches the filters (c clears them)."]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_escape_in_the_filter_goes_back_to_the_artifacts(demo_root: Path, size: tuple[int, int]) -> None:
    async with make_app(demo_root).run_test(size=size) as pilot:
        board = await _board(pilot)
        await press(pilot, "slash", *"tax service")
        await press(pilot, "escape")
        assert pilot.app.screen is board  # not the memory screen
        assert pilot.app.focused is board.query_one(ArtifactTree)
        assert board.query_one("#filter-text", Input).value == "tax service"  # the filter stays
        assert list(_leaves(pilot)) == ["audit/perf-reviewer.json"]


async def test_new_artifacts_arrive_live_and_are_highlighted(demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("foundry_tui.tui.board.screen.FRESH_SECONDS", 1.0)
    app = make_app(demo_root, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await _board(pilot)
        await asyncio.sleep(0.3)  # the watcher sets up its OS watch
        fresh = pilot.app.screen.query_one(ArtifactTree).get_component_rich_style("artifact-tree--fresh")
        assert fresh.bgcolor is not None

        def highlighted(key: str) -> bool:
            label = _leaves(pilot).get(key)
            return label is not None and any(span.style == fresh for span in label.spans)

        assert not highlighted("audit/perf-reviewer.json")  # what was there at the start is not new
        written = blackboard_write(Layout(demo_root), "re-audit", "appsec-reviewer", "review.v1", REVIEW)
        assert written.written
        assert await _wait_for(pilot, lambda: highlighted("re-audit/appsec-reviewer.json"))
        assert [row[1] for row in _table_rows(pilot)] == ["plan", "audit", "re-audit"]
        table = pilot.app.screen.query_one(WaveTable)
        lit = table.get_component_rich_style("wave-table--fresh")
        assert [any(s.style == lit for s in table.get_row_at(row)[1].spans) for row in range(3)] == [False, False, True]
        assert "Written: re-audit/appsec-reviewer.json" in notifications(pilot)
        assert await _wait_for(pilot, lambda: not highlighted("re-audit/appsec-reviewer.json"), seconds=4)
        assert "re-audit/appsec-reviewer.json" in _leaves(pilot)  # it stays, no longer highlighted


async def test_the_shown_artifact_stays_selected_when_others_arrive(demo_root: Path) -> None:
    async with make_app(demo_root).run_test(size=(120, 40)) as pilot:
        screen = await _board(pilot)
        await select_artifact(pilot, "audit/perf-reviewer.json")
        blackboard_write(Layout(demo_root), "a-new-wave", "x", "review.v1", REVIEW)
        screen.load()
        await settle(pilot)
        await settle(pilot)
        tree = screen.query_one(ArtifactTree)
        assert tree.cursor_node is not None and tree.cursor_node.data is not None
        assert tree.cursor_node.data.key == "audit/perf-reviewer.json"
        assert screen.shown == "audit/perf-reviewer.json"
        for name in ("b", "c", "d"):
            blackboard_write(Layout(demo_root), "a-new-wave", name, "review.v1", REVIEW)
        screen.load()
        await settle(pilot)
        assert notifications(pilot)[-1] == ("Written: a-new-wave/b.json, a-new-wave/c.json, a-new-wave/d.json")
        for name in ("e", "f", "g", "h"):
            blackboard_write(Layout(demo_root), "a-new-wave", name, "review.v1", REVIEW)
        screen.load()
        await settle(pilot)
        assert notifications(pilot)[-1] == (
            "Written: a-new-wave/e.json, a-new-wave/f.json, a-new-wave/g.json and 1 more"
        )
        (Layout(demo_root).blackboard_dir / "audit/perf-reviewer.json").unlink()
        screen.load()
        await settle(pilot)
        assert screen.shown is None
        assert str(screen.query_one("#artifact-head", Static).render()) == "Select an artifact."


def _marked(pilot: Pilot[Any]) -> list[str]:
    """The stretches of the artifact's JSON marked as a violation's place."""
    view = pilot.app.screen.query_one(ArtifactView)
    style = Style.from_rich_style(view.get_component_rich_style("artifact-view--violation"))
    body = view.query_one("#artifact-json", Static).render()
    assert isinstance(body, Content)
    return [body.plain[span.start : span.end] for span in body.spans if span.style == style]


def _rules(pilot: Pilot[Any]) -> list[str]:
    """The stretches of the contract marked as a broken rule."""
    view = pilot.app.screen.query_one(ContractView)
    style = Style.from_rich_style(view.get_component_rich_style("contract-view--rule"))
    body = view.query_one("#contract-json", Static).render()
    assert isinstance(body, Content)
    return [body.plain[span.start : span.end] for span in body.spans if span.style == style]


async def test_violations_point_at_their_place_beside_the_contract(demo_root: Path) -> None:
    bad = json.loads(json.dumps(REVIEW))
    bad["findings"][0]["severity"] = 5
    bad["findings"][0]["title"] = "IDOR \x9b[31m shown escaped: the places after it still line up"
    del bad["summary"]
    path = Layout(demo_root).blackboard_dir / "late" / "rev.json"
    path.parent.mkdir()
    path.write_text(json.dumps({**bad, "schema": "review.v1", "producedBy": "rev"}, indent=2, ensure_ascii=False))
    os.utime(path, (1_796_040_000, 1_796_040_000))
    async with make_app(demo_root).run_test(size=(120, 40)) as pilot:
        screen = await _board(pilot)
        await select_artifact(pilot, "late/rev.json")
        problems = str(screen.query_one("#artifact-problems", Static).render())
        assert problems.splitlines() == [
            '- missing required property "summary" at / (the artifact), line 1, column 1',
            '- property "/findings/0/severity" must be one of "critical", "high", "medium", "low", "info" '
            "at /findings/0/severity, line 6, column 7",
        ]
        assert _marked(pilot) == ["{", '"severity": 5']
        assert _rules(pilot) == ['"summary"', '"enum": [']
        assert screen.query_one(ContractView).border_subtitle == "2 rules broken"
        assert str(screen.query_one("#contract").border_title) == "Contract review.v1"
        contract = str(screen.query_one("#contract-json", Static).render())
        assert json.loads(contract)["$id"] == "review.v1"

        await select_artifact(pilot, "audit/perf-reviewer.json")
        assert _marked(pilot) == ["{"]
        assert _rules(pilot) == ['"failureScenario"']
        assert str(screen.query_one("#contract").border_title) == "Contract finding.v1"
        await select_artifact(pilot, "plan/planner.json")
        assert _marked(pilot) == [] and _rules(pilot) == []
        assert str(screen.query_one("#artifact-problems", Static).render()) == ""


async def test_a_malformed_artifact_is_shown_as_unreadable(demo_root: Path) -> None:
    path = Layout(demo_root).blackboard_dir / "audit" / "broken.json"
    path.write_text('{"summary": [unclosed\n')
    (path.parent / "odd.json").write_text(json.dumps({"schema": "[/]", "producedBy": "[b]x"}))  # markup, never parsed
    async with make_app(demo_root).run_test(size=(120, 40)) as pilot:
        screen = await _board(pilot)
        await select_artifact(pilot, "audit/broken.json")
        assert str(screen.query_one("#artifact-problems", Static).render()) == (
            "- not valid JSON (line 1: Expecting value)"
        )
        assert screen.query_one(ArtifactView).border_subtitle == "unreadable"
        assert _table_rows(pilot)[1][4:6] == ["4", "3"]
        await select_artifact(pilot, "audit/odd.json")
        assert str(screen.query_one("#contract").border_title) == "Contract \\[/]"  # escaped: drawn as written
        assert str(screen.query_one("#artifact-problems", Static).render()).startswith(
            "- contract id '[/]' is not a plain name"
        )


async def test_diff_of_the_same_agent_a_wave_earlier_and_of_any_two(demo_root: Path) -> None:
    blackboard_write(Layout(demo_root), "re-audit", "appsec-reviewer", "review.v1", {**REVIEW, "verdict": "approve"})
    async with make_app(demo_root).run_test(size=(120, 40)) as pilot:
        screen = await _board(pilot)
        await select_artifact(pilot, "re-audit/appsec-reviewer.json")
        await press(pilot, "d")
        diff = pilot.app.screen
        assert isinstance(diff, ArtifactDiffScreen)
        assert diff.title_text == "audit/appsec-reviewer.json → re-audit/appsec-reviewer.json"
        lines = str(diff.query_one("#diff-lines", Static).render()).splitlines()
        assert '-  "verdict": "request-changes"' in lines and '+  "verdict": "approve"' in lines
        await press(pilot, "escape")
        assert pilot.app.screen is screen

        await select_artifact(pilot, "plan/planner.json")
        await pilot.press("d")  # no earlier wave holds the planner's
        await settle(pilot)
        assert pilot.app.screen is screen
        assert any("No earlier wave holds an artifact of planner" in m for m in notifications(pilot))

        await press(pilot, "m")
        assert "◆ diff base" in str(_leaves(pilot)["plan/planner.json"])
        await select_artifact(pilot, "audit/perf-reviewer.json")
        await press(pilot, "d")
        second = pilot.app.screen
        assert isinstance(second, ArtifactDiffScreen)
        assert second.title_text == "plan/planner.json → audit/perf-reviewer.json"
        await press(pilot, "escape")
        await select_artifact(pilot, "plan/planner.json")
        await pilot.press("m")  # unmark
        await settle(pilot)
        assert screen.marked is None and "◆" not in str(_leaves(pilot)["plan/planner.json"])


async def test_enter_on_a_wave_goes_to_its_artifacts(demo_root: Path) -> None:
    async with make_app(demo_root).run_test(size=(120, 40)) as pilot:
        screen = await _board(pilot)
        table = screen.query_one(WaveTable)
        table.focus()
        await press(pilot, "down", "enter")
        tree = screen.query_one(ArtifactTree)
        assert pilot.app.focused is tree
        assert tree.cursor_node is not None and tree.cursor_node.data is not None
        assert tree.cursor_node.data.key == "audit/appsec-reviewer.json"


async def test_a_long_artifact_opens_at_its_first_violation(demo_root: Path) -> None:
    long = json.loads(json.dumps(REVIEW))
    long["findings"] = [{**REVIEW["findings"][0], "title": f"Finding {n}"} for n in range(40)]
    long["findings"][35]["severity"] = "urgent"
    blackboard_write(Layout(demo_root), "late", "long", "review.v1", {**long, "findings": long["findings"][:1]})
    path = Layout(demo_root).blackboard_dir / "late" / "long.json"
    path.write_text(json.dumps({**long, "schema": "review.v1", "producedBy": "long"}, indent=2))
    async with make_app(demo_root).run_test(size=(100, 30)) as pilot:
        screen = await _board(pilot)
        await select_artifact(pilot, "late/long.json")
        view = screen.query_one(ArtifactView)
        item = screen._find("late/long.json")
        assert item is not None
        [violation] = item.violations
        row = view.json_row(path.read_text(), violation.line)
        assert view.scroll_y > 0
        assert view.scroll_y <= row < view.scroll_y + view.scrollable_content_region.height
        await select_artifact(pilot, "audit/perf-reviewer.json")  # its rule is far down the contract
        contract = screen.query_one(ContractView)
        text = contract_text(Layout(demo_root), "finding.v1")
        line = text.splitlines().index('    "failureScenario"') + 1
        rule_row = row_of(contract.query_one("#contract-json", Static), text, line)
        assert contract.scroll_y > 0
        assert contract.scroll_y <= rule_row < contract.scroll_y + contract.scrollable_content_region.height
        await select_artifact(pilot, "plan/planner.json")
        assert view.scroll_y == 0 and contract.scroll_y == 0


async def test_the_boards_commands_are_in_the_palette_and_bound(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _board(pilot)
        titles = [str(hit.text) async for hit in FoundryCommands(app.screen).discover()]
        assert titles[:8] == [
            "Focus Filter",
            "Cycle Validity",
            "Clear Filters",
            "Mark Artifact",
            "Diff Artifacts",
            "Next Invalid",
            "Copy Artifact Path",
            "Edit Artifact",
        ]
        keys = {binding.action: binding.key for binding in app.screen.BINDINGS if isinstance(binding, Binding)}
        assert keys == {
            "focus_filter": "slash",
            "cycle_validity": "v",
            "clear_filters": "c",
            "mark": "m",
            "diff": "d",
            "next_invalid": "n",
            "copy_path": "y",
            "edit_artifact": "e",
        }


async def test_hostile_names_are_shown_as_text(demo_root: Path) -> None:
    """A wave folder, a file and a producer named with markup and an escape: drawn as written."""
    folder = Layout(demo_root).blackboard_dir / "[b]\x1b[31m"
    folder.mkdir()
    (folder / "[b]x.json").write_text(json.dumps({**REVIEW, "schema": "review.v1", "producedBy": "[/]\x1b"}))
    async with make_app(demo_root).run_test(size=(120, 40)) as pilot:
        screen = await _board(pilot)
        assert "[b]\\u001b[31m" in [row[1] for row in _table_rows(pilot)]
        await select_artifact(pilot, "[b]\x1b[31m/[b]x.json")
        head = str(screen.query_one("#artifact-head", Static).render())
        assert head.splitlines()[0] == "[b]\\u001b[31m/[b]x.json"
        assert "by [/]\\u001b" in head


@pytest.mark.parametrize("size", SIZES)
async def test_n_goes_to_the_next_invalid_artifact_and_y_copies_its_path(
    demo_root: Path, size: tuple[int, int]
) -> None:
    """Issue 31, item 16."""
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        screen = await _board(pilot)
        await select_artifact(pilot, "plan/planner.json")
        await press(pilot, "n")
        assert screen.shown == "audit/perf-reviewer.json"  # the demo's one invalid artifact
        await press(pilot, "n")  # wraps round to it again
        assert screen.shown == "audit/perf-reviewer.json"
        await press(pilot, "y")
        path = str((demo_root / ".foundry/blackboard/audit/perf-reviewer.json").resolve())
        assert app.clipboard == path
        assert notifications(pilot)[-1] == f"Copied {path}"


async def test_the_verdict_leads_each_row_and_the_contract_goes_under_the_artifact_at_80x24(
    demo_root: Path,
) -> None:
    """Issue 31 item 7: at 80x24 the tree cut the verdict ("appsec-reviewer.json v") and the
    contract pane was 24 columns wide. The mark comes first; the contract stacks under the
    artifact below 100 columns, beside it above."""
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await _board(pilot)
        labels = {key: label.plain.split("  ")[0] for key, label in _leaves(pilot).items()}
        assert labels == {
            "plan/planner.json": "✓ planner.json valid",
            "audit/appsec-reviewer.json": "✓ appsec-reviewer.json valid",
            "audit/perf-reviewer.json": "✗ perf-reviewer.json 1 violation",
        }
        tree = app.screen.query_one(ArtifactTree)
        artifact, contract = app.screen.query_one(ArtifactView), app.screen.query_one(ContractView)
        assert tree.size.width == 26  # the pane's inside: "├── ✓ appsec-reviewer.json" is 26
        assert (artifact.region.x, artifact.region.width) == (contract.region.x, contract.region.width) == (28, 52)
        assert contract.region.y == artifact.region.bottom
        await pilot.resize_terminal(160, 45)
        await settle(pilot)
        assert contract.region.y == artifact.region.y and contract.region.x == artifact.region.right
