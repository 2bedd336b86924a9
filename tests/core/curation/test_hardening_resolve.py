"""Hardening (issue 28, items 11, 14 and 15): `memory resolve` and conflict markers, the
collector frozen at most once, and a retire that leaves an inactive fact as it is."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import SelectionList

from foundry_tui.core.curation.resolve import conflict_hunks, split_conflict
from foundry_tui.core.memory.model.facts import MAX_FACT_FILE_BYTES
from tests.helpers import run_cli
from tests.test_team_git import git_env, make_repo
from tests.tui_helpers import make_app, open_mode

FACTS = ".foundry/memory/facts"


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under .foundry (the facts, INDEX.md, the proposals), byte for byte."""
    folder = root / ".foundry"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- 11: memory resolve and conflict markers ---------------------------------------------------

# The regular expression split_conflict used, the reference on small inputs (it backtracks:
# cubic in a file of marker lines); with one fix, `^` before a diff3 base's `=======`: it took
# any line ending in seven `=` (` =======`, `x=======`) for the separator.
REFERENCE_HUNK = re.compile(
    r"^<{7}(?: [^\n]*)?\n(.*?)^(?:\|{7}(?: [^\n]*)?\n.*?^)?={7}\n(.*?)^>{7}(?: [^\n]*)?\n", re.MULTILINE | re.DOTALL
)


def reference_split(text: str) -> tuple[str, str]:
    text = text if text.endswith("\n") else text + "\n"
    return REFERENCE_HUNK.sub(lambda m: m.group(1), text), REFERENCE_HUNK.sub(lambda m: m.group(2), text)


LINES = ["<<<<<<<", "<<<<<<< HEAD", "|||||||", "||||||| base", "=======", ">>>>>>>", ">>>>>>> theirs"]
LINES += ["x", "", "<<<<<<<<", "======= not one", ">>>>>>>x", " =======", "x=======", "========", "body"]


class CountedKinds(Sequence[str]):
    """The marker kinds of a file's lines, counting every look at one: the parser's work."""

    def __init__(self, kinds: list[str]) -> None:
        self.kinds = kinds
        self.looks = 0

    def __len__(self) -> int:
        return len(self.kinds)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]  # no slices are taken
        self.looks += 1
        return self.kinds[index]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=14), st.booleans())
def test_the_line_parser_splits_as_the_expression_did(lines: list[str], newline: bool) -> None:
    text = "\n".join(lines) + ("\n" if newline else "")
    assert split_conflict(text) == reference_split(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["<", "|", "=", ">", ""]), max_size=400))
def test_the_line_parser_looks_at_each_line_a_bounded_number_of_times(kinds: list[str]) -> None:
    counted = CountedKinds(kinds)
    conflict_hunks(counted)
    assert counted.looks <= 3 * len(kinds)


def test_a_64_kib_file_of_marker_lines_is_split_in_linear_work() -> None:
    from foundry_tui.core.curation.resolve import _marker_kind

    lines = (["<<<<<<< HEAD", "|||||||", "<<<<<<<", "======="] * MAX_FACT_FILE_BYTES)[: MAX_FACT_FILE_BYTES // 8]
    assert len("\n".join(lines)) >= MAX_FACT_FILE_BYTES - 16
    counted = CountedKinds([_marker_kind(line) for line in lines])
    assert conflict_hunks(counted) == []  # no `>>>>>>>`: no block closes
    assert counted.looks <= 3 * len(lines)


def test_resolve_finishes_on_a_64_kib_fact_of_marker_lines(tmp_path: Path) -> None:
    """The end to end bound (the expression took hours on this): well inside a generous timeout."""
    facts = tmp_path / FACTS
    facts.mkdir(parents=True)
    block = "<<<<<<< HEAD\n|||||||\n<<<<<<<\n=======\n=======\n"
    text = "---\nid: fact-0001\n>>>>>>> theirs\n" + block * (MAX_FACT_FILE_BYTES // len(block) - 1)
    (facts / "fact-0001.md").write_text(text)
    assert MAX_FACT_FILE_BYTES - len(block) < len(text) <= MAX_FACT_FILE_BYTES
    proc = subprocess.run(
        [sys.executable, "-m", "foundry_tui", "memory", "resolve", "--root", str(tmp_path)],
        env=git_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1] == (
        f"note: {FACTS}/fact-0001.md has lines like git's conflict markers, but git does not say it is unmerged; "
        "left as it is"
    )
    assert (facts / "fact-0001.md").read_text() == text


QUOTING_BODY = (
    "When git cannot merge a file it writes both sides:\n\n"
    "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> feature\n\n"
    "Run `foundry memory resolve` on the memory."
)


def test_a_fact_quoting_a_conflict_survives_merges_byte_for_byte(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)  # `foundry init`: its post-merge hook runs `foundry memory resolve`
    quoting = repo.root / FACTS / f"{repo.write('How a conflict looks', QUOTING_BODY)}.md"
    before = quoting.read_bytes()
    # An unrelated merge: no memory file changes on the side branch.
    repo.git("checkout", "-qb", "side")
    (repo.root / "notes.txt").write_text("side\n")
    repo.commit("notes")
    repo.git("checkout", "-q", "main")
    repo.write("Alice learned caching", "alice-1")
    result = repo.git("merge", "--no-edit", "side")
    assert "CONFLICT" not in result.stdout
    assert quoting.read_bytes() == before
    code, out, err = repo.cli("memory", "resolve")
    assert code == 0, err
    assert out.splitlines() == [
        "memory resolve: nothing to repair",
        f"note: {FACTS}/{quoting.name} has lines like git's conflict markers, but git does not say it is unmerged; "
        "left as it is",
    ]
    assert quoting.read_bytes() == before
    # A real conflict beside it (add/add on the next id): only the unmerged file is split.
    repo.git("checkout", "-qb", "bob")
    bob = repo.write("Bob learned queues", "bob-1")
    repo.git("checkout", "-q", "main")
    assert repo.write("Alice learned queues", "alice-2") == bob
    assert "CONFLICT (add/add)" in repo.git("merge", "--no-edit", "bob", check=False).stdout
    code, out, err = repo.cli("memory", "resolve")
    assert code == 0, err
    assert f"{FACTS}/{bob}.md: two facts; {bob} kept (Alice learned queues)" in out.splitlines()
    assert quoting.read_bytes() == before


def test_a_misnamed_fact_is_never_moved_over_a_file_that_does_not_load(tmp_path: Path) -> None:
    facts = tmp_path / FACTS
    facts.mkdir(parents=True)
    (facts / "fact-0001.md").write_text("notes, not a fact\n")
    (facts / "fact-0009.md").write_text(
        "---\nid: fact-0001\ntype: convention\ntitle: Claims one\ncreated: 2026-11-30\n---\nclaims-one\n"
    )
    before = {p.name: p.read_bytes() for p in facts.iterdir()}
    run = run_cli("memory", "resolve", "--root", str(tmp_path), env=git_env(tmp_path))
    assert run.code == 1
    about = [line for line in run.out.splitlines() if "fact-0009" in line]
    assert about == [
        f"problem: {FACTS}/fact-0009.md claims fact-0001, but fact-0001.md is there and does not load as a fact; "
        "both left as they are: repair or move fact-0001.md, then run `foundry memory resolve` again"
    ]
    assert {p.name: p.read_bytes() for p in facts.iterdir()} == before


# ---- 14: the collector frozen at most once -----------------------------------------------------

# A long-running process: the work between reloads leaves garbage cycles for the collector (a
# caught exception keeps its traceback, which keeps the frame that holds it), and a watcher
# reloads a changed fact file. Run in a fresh interpreter: the freeze is once per process.
RELOAD_LOOP = """
import gc, sys
FROZEN_AT_START = gc.get_freeze_count()  # Python 3.12 starts with some objects frozen already
def frozen():
    return gc.get_freeze_count() - FROZEN_AT_START
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
print(alive() - before, frozen())
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
        "print(alive() - before, frozen())",
        textwrap.dedent(
            """
            counts = [frozen()]
            from foundry_tui.tui import collector
            collector.pause()
            started = Project(Path(sys.argv[1]), use_cache=False)
            started.sync()
            collector.resume()
            counts.append(frozen())
            for step in range(5):
                reload(step)
            started.sync()
            counts.append(frozen())
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
    from foundry_tui.tui.curator.screen import CuratorScreen

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
