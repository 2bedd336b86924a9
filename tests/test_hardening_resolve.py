"""Hardening (issue 28, items 11, 14 and 15): `memory resolve` and conflict markers, the
collector frozen at most once, and a retire that leaves an inactive fact as it is."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from textual.widgets import SelectionList

from tests.helpers import run_cli
from tests.tui_helpers import make_app, open_mode

FACTS = ".foundry/memory/facts"


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under .foundry (the facts, INDEX.md, the proposals), byte for byte."""
    folder = root / ".foundry"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- 14: the collector frozen at most once -----------------------------------------------------

# A long-running process: the work between reloads leaves garbage cycles for the collector (a
# caught exception keeps its traceback, which keeps the frame that holds it), and a watcher
# reloads a changed fact file. Run in a fresh interpreter: the freeze is once per process.
RELOAD_LOOP = """
import gc, sys
from pathlib import Path
from foundry_tui.core.memory.project import Project

facts = Path(sys.argv[1]) / ".foundry/memory/facts"
facts.mkdir(parents=True)
def fact(n, title):
    return f"---\\nid: fact-{n:04d}\\ntype: convention\\ntitle: {title}\\ncreated: 2026-11-01\\n---\\nbody {title}\\n"
for n in range(1, 21):
    (facts / f"fact-{n:04d}.md").write_text(fact(n, f"Fact {n}"))
project = Project(Path(sys.argv[1]), use_cache=False)
project.sync()

def work():
    try:
        raise ValueError("handled")
    except ValueError as exc:
        kept = exc  # a cycle only the collector frees

def reload(step):
    for _ in range(5):
        work()
    (facts / "fact-0001.md").write_text(fact(1, f"Fact 1, edit {step}" + "!" * (step % 2)))  # a new size
    changes = project.sync()
    assert changes.changed == ["fact-0001.md"], changes.changed

def alive():
    gc.collect()
    return len(gc.get_objects()) + gc.get_freeze_count()  # the frozen are out of get_objects

for step in range(20):  # start-up: the first load freezes, once
    reload(step)
before = alive()
for step in range(RELOADS):
    reload(step)
print(alive() - before, gc.get_freeze_count())
"""
RELOADS = 300


def test_a_project_reloaded_hundreds_of_times_holds_its_object_count_flat(tmp_path: Path) -> None:
    script = RELOAD_LOOP.replace("RELOADS", str(RELOADS))
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "project")], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    grown, _frozen = map(int, proc.stdout.split())
    # Freezing on every reload kept 25 objects of each reload's garbage for good (7,500 here).
    assert grown < RELOADS // 10, f"{grown} objects more after {RELOADS} reloads"


def test_only_the_end_of_the_tuis_start_up_freezes_the_collector(tmp_path: Path) -> None:
    """Loads and reloads never freeze; `foundry tui`'s pause and resume around its start-up
    freeze once, and the reloads after it add nothing to the frozen."""
    script = RELOAD_LOOP.replace("RELOADS", "5").replace(
        "print(alive() - before, gc.get_freeze_count())",
        textwrap.dedent(
            """
            counts = [gc.get_freeze_count()]
            from foundry_tui.tui import collector
            collector.pause()
            started = Project(Path(sys.argv[1]), use_cache=False)
            started.sync()
            collector.resume()
            counts.append(gc.get_freeze_count())
            for step in range(5):
                reload(step)
            started.sync()
            counts.append(gc.get_freeze_count())
            print(json.dumps(counts))
            """
        ),
    )
    proc = subprocess.run(
        [sys.executable, "-c", "import json\n" + script, str(tmp_path / "project")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    after_reloads, after_start_up, after_more_reloads = json.loads(proc.stdout)
    assert after_reloads == 0
    assert after_start_up > 1000 and after_more_reloads <= after_start_up  # the replaced facts are freed


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
