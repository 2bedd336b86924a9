"""The demo as `foundry tui --demo` opens it (issue 31, item 17): something to act on in
every screen without the CLI: `k` on a contradiction, `p` on a session's working fact,
`a` on a pending proposal and `d` on a reviewer's two waves."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable, OptionList

from foundry_tui.core.gate.proposals import list_proposals
from foundry_tui.core.paths import Layout
from foundry_tui.core.trust.principal import Caller, Principal
from foundry_tui.demo import make_demo_copy, remove_demo_copy
from foundry_tui.demo_run import RECHECK_WAVE
from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.board.artifact_diff import ArtifactDiffScreen
from foundry_tui.tui.board.screen import BlackboardScreen
from foundry_tui.tui.curator.approvals import ApprovalsScreen
from foundry_tui.tui.curator.resolve import ResolveScreen
from foundry_tui.tui.curator.screen import CuratorScreen
from foundry_tui.tui.memory.write_fact import WriteFactScreen
from foundry_tui.tui.sessions.screen import SessionsScreen
from tests.helpers import TODAY
from tests.tui_helpers import open_mode, option_ids, press, select, select_artifact, settle, snapshot_steps

SIZE = (120, 40)
SIZES = [SIZE, (80, 24)]  # issue 31: every behaviour at 80x24 too


@pytest.fixture
def demo_run() -> Iterator[Path]:
    path = make_demo_copy(history=False, run=True)
    yield path
    remove_demo_copy(path)


def _app(root: Path) -> FoundryApp:
    return FoundryApp(root, TODAY, watch=False, root_label="demo", caller=Caller(Principal("user", "alice")))


def test_only_the_tuis_demo_holds_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """`foundry tui --demo` opens the demo with the run's leftovers; `foundry --demo
    blackboard waves` prints the bundled files' two waves, as the README quotes."""
    import argparse

    from foundry_tui import cli
    from foundry_tui.demo_run import RECHECK_WAVE

    monkeypatch.setenv("FOUNDRY_NO_CACHE", "")  # the demo sets both: put back after the test
    monkeypatch.setenv("FOUNDRY_DATA_DIR", "")
    seen: list[bool] = []

    def handler(args: argparse.Namespace) -> int:
        seen.append((Path(args.root) / ".foundry/blackboard" / RECHECK_WAVE).is_dir())
        return 0

    for command in ("tui", "blackboard"):
        cli._run(argparse.Namespace(handler=handler, demo=True, root=None, command=command))
    assert seen == [True, False]


@pytest.mark.parametrize("size", SIZES)
async def test_the_demo_has_a_contradiction_to_keep_one_of(demo_run: Path, size: tuple[int, int]) -> None:
    app = _app(demo_run)
    async with app.run_test(size=size) as pilot:
        await open_mode(pilot, "f6", CuratorScreen, tab="conflicts-tab")
        assert option_ids(pilot, "#conflicts") == ["conflict:0"]
        await select(pilot, "conflict:0", "#conflicts")
        await press(pilot, "k")
        assert isinstance(app.screen, ResolveScreen)


@pytest.mark.parametrize("size", SIZES)
async def test_the_demo_has_a_session_with_working_facts_to_promote(demo_run: Path, size: tuple[int, int]) -> None:
    app = _app(demo_run)
    async with app.run_test(size=size) as pilot:
        await open_mode(pilot, "f7", SessionsScreen)
        working = app.screen.query_one("#working", DataTable)
        assert working.row_count == 3
        working.focus()
        await settle(pilot)
        await press(pilot, "p")
        assert isinstance(app.screen, WriteFactScreen)


@pytest.mark.parametrize("size", SIZES)
async def test_the_demo_has_a_pending_proposal_to_approve(demo_run: Path, size: tuple[int, int]) -> None:
    app = _app(demo_run)
    async with app.run_test(size=size) as pilot:
        await open_mode(pilot, "f9", ApprovalsScreen)
        assert app.screen.query_one("#proposals", OptionList).option_count == 1
        await press(pilot, "a", "ctrl+s")
    assert [p.status for p in list_proposals(Layout(demo_run))] == ["approved"]


@pytest.mark.parametrize("size", SIZES)
async def test_the_demo_has_two_waves_by_the_same_reviewer_to_diff(demo_run: Path, size: tuple[int, int]) -> None:
    app = _app(demo_run)
    async with app.run_test(size=size) as pilot:
        await open_mode(pilot, "f3", BlackboardScreen)
        await select_artifact(pilot, f"{RECHECK_WAVE}/perf-reviewer.json")
        await press(pilot, "d")
        assert isinstance(app.screen, ArtifactDiffScreen)
        assert app.screen.title_text == f"audit/perf-reviewer.json → {RECHECK_WAVE}/perf-reviewer.json"


# ---- the run's leftovers at 80x24 (the narrow layouts: FoundryApp.HORIZONTAL_BREAKPOINTS) -------


@pytest.mark.parametrize("key", ["f7", "f9"])
def test_sessions_and_approvals_at_80x24(snap_compare: Callable[..., bool], demo_run: Path, key: str) -> None:
    """F7 with the run's session and its three working facts; F9 with its pending proposal,
    highlighted (the active fact beside the proposed one)."""
    select_first = ["down"] if key == "f9" else []
    assert snap_compare(_app(demo_run), terminal_size=(80, 24), run_before=snapshot_steps(key, *select_first))


async def test_a_working_fact_wraps_at_80_columns_and_unwraps_when_wider(demo_run: Path) -> None:
    """The run's first working fact (80 characters) takes two rows at 80x24, where the
    sessions stack above the detail, and one once the terminal is 160 wide."""
    from foundry_tui.demo_run import WORKING_FACTS
    from foundry_tui.tui.sessions.screen import WorkingFacts

    app = _app(demo_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_mode(pilot, "f7", SessionsScreen)
        working = app.screen.query_one(WorkingFacts)
        heights = {str(key.value): row.height for key, row in working.rows.items()}
        assert heights == {WORKING_FACTS[0]: 2, WORKING_FACTS[1]: 2, WORKING_FACTS[2]: 1}
        assert working.size.width == 74  # the detail as wide as the screen, less its border and padding
        await pilot.resize_terminal(160, 45)
        await settle(pilot)
        heights = {str(key.value): row.height for key, row in working.rows.items()}
        assert heights == dict.fromkeys(WORKING_FACTS, 1)
        assert [str(cell) for cell in working.get_column("fact")] == list(WORKING_FACTS)


async def test_approvals_stack_the_list_above_the_proposal_at_80x24(demo_run: Path) -> None:
    app = _app(demo_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_mode(pilot, "f9", ApprovalsScreen)
        proposals, proposal = app.screen.query_one("#proposals"), app.screen.query_one("#proposal")
        assert proposals.region.height == 5  # its one proposal's three lines, in its border
        assert (proposal.region.x, proposal.region.y) == (0, proposals.region.bottom)
        sides = [app.screen.query_one(f"#proposal-{side}").region.width for side in ("active", "proposed")]
        assert sides == [40, 40]
        await pilot.resize_terminal(160, 45)
        await settle(pilot)
        assert proposal.region.x == proposals.region.right and proposal.region.y == proposals.region.y
