"""Hardening (issue 28, items 11, 14 and 15): `memory resolve` and conflict markers, the
collector frozen at most once, and a retire that leaves an inactive fact as it is."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import SelectionList

from tests.helpers import run_cli
from tests.tui_helpers import make_app, open_mode

FACTS = ".foundry/memory/facts"


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under .foundry (the facts, INDEX.md, the proposals), byte for byte."""
    folder = root / ".foundry"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- 15: retiring an inactive fact --------------------------------------------------------------


def test_retiring_an_expired_or_superseded_fact_leaves_it_as_it_is(demo_root: Path) -> None:
    r = ["--root", str(demo_root), "--today", "2026-11-30"]
    assert run_cli(*r, "memory", "index").code == 0
    before = _tree(demo_root)
    run = run_cli(*r, "memory", "retire", "fact-0006", "fact-0002")
    assert run.code == 0, run.err
    assert run.out.splitlines()[:2] == [
        "fact-0006 is already inactive (expired 2026-06-30); left as it is",
        "fact-0002 is already inactive (superseded by fact-0004); left as it is",
    ]
    assert run.out.splitlines()[2].startswith("Index: 13/13 facts listed")
    assert _tree(demo_root) == before  # the expiry of 2026-06-30 was not moved to 2026-11-29


def test_a_retire_of_active_and_inactive_facts_retires_only_the_active(demo_root: Path) -> None:
    r = ["--root", str(demo_root), "--today", "2026-11-30"]
    expired = (demo_root / FACTS / "fact-0006.md").read_bytes()
    run = run_cli(*r, "memory", "retire", "fact-0003", "fact-0006", "--expires", "2026-11-20")
    assert run.code == 0, run.err
    assert run.out.splitlines()[:2] == [
        "retired: fact-0003 (expires 2026-11-20)",
        "fact-0006 is already inactive (expired 2026-06-30); left as it is",
    ]
    assert "expires: 2026-11-20" in (demo_root / FACTS / "fact-0003.md").read_text()
    assert (demo_root / FACTS / "fact-0006.md").read_bytes() == expired


def test_a_retire_never_makes_an_active_fact_live_longer(demo_root: Path) -> None:
    r = ["--root", str(demo_root), "--today", "2026-11-30"]
    assert run_cli(*r, "memory", "retire", "fact-0003", "--expires", "2026-12-10").code == 0
    before = (demo_root / FACTS / "fact-0003.md").read_bytes()
    run = run_cli(*r, "memory", "retire", "fact-0003", "--expires", "2026-12-20")
    assert run.code == 0, run.err
    assert run.out.splitlines()[0] == "fact-0003 already expires 2026-12-10, no later than 2026-12-20; left as it is"
    assert (demo_root / FACTS / "fact-0003.md").read_bytes() == before


async def test_bulk_retire_in_the_curator_offers_active_facts_only(demo_root: Path) -> None:
    from foundry_tui.tui.screens.curator import CuratorScreen

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_mode(pilot, "f6", CuratorScreen, tab="retire-tab")
        selection = app.screen.query_one("#retire-list", SelectionList)
        offered = [selection.get_option_at_index(i).value for i in range(selection.option_count)]
    # The prune candidates are fact-0006 (expired), fact-0002 and fact-0004 (superseded) and
    # fact-0011 (no **Why:**); only fact-0011 is active.
    assert offered == ["fact-0011"]


def test_an_untrusted_retire_of_an_inactive_fact_parks_nothing(demo_root: Path) -> None:
    r = ["--root", str(demo_root), "--today", "2026-11-30"]
    before = _tree(demo_root)
    run = run_cli(*r, "memory", "retire", "fact-0006", env={"FOUNDRY_PRINCIPAL": "service:ci-bot"})
    assert run.code != 0 and run.out == ""
    assert run.err == (
        "foundry: error: fact-0006 is already inactive (expired 2026-06-30); left as it is: nothing to propose\n"
    )
    assert _tree(demo_root) == before  # no proposal parked
