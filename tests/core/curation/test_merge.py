"""Merging near-duplicates: one new fact, every source inactive with the chain readable,
doctor clean, the index rebuilt, nothing deleted, and an exact undo."""

from __future__ import annotations

from pathlib import Path

import pytest

from foundry_tui.core.curation.merge import merge_facts, merge_plan
from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.doctor import run_doctor
from foundry_tui.core.memory.reports.prune import prune_candidates
from foundry_tui.core.memory.reports.views import older_chain
from tests.helpers import TODAY, run_cli, write


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted((root / ".foundry/memory").rglob("*")) if p.is_file()
    }


def test_merge_writes_one_fact_and_retires_the_sources(demo: Project) -> None:
    before = _tree(demo.root)
    plan = merge_plan(demo, ["fact-0007", "fact-0014"])
    assert plan.request.title == "API responses use snake_case JSON keys"
    assert plan.request.tags == ["api", "json", "naming", "http", "serialization", "style"]
    assert plan.request.confidence == "high" and plan.request.source == "conversation"
    preview = plan.preview(demo, TODAY)
    assert preview.splitlines()[:5] == [
        "Merge fact-0007, fact-0014 into a new fact:",
        "",
        "  write   .foundry/memory/facts/fact-0017.md (the next free id at write time)",
        "  keep    .foundry/memory/facts/fact-0007.md (unchanged; inactive, superseded by fact-0017)",
        "  keep    .foundry/memory/facts/fact-0014.md (unchanged; inactive, superseded by fact-0017)",
    ]
    assert _tree(demo.root) == before  # a plan writes nothing
    result = merge_facts(demo, plan, TODAY)
    assert result.text().splitlines()[0] == "merged: fact-0017 (from fact-0007, fact-0014)"
    merged = parse_fact_text((demo.layout.facts_dir / "fact-0017.md").read_text(), "fact-0017")
    assert merged.supersedes == "fact-0007" and merged.extras["merged_from"] == ["fact-0007", "fact-0014"]
    assert (demo.layout.facts_dir / "fact-0007.md").read_bytes() == before[".foundry/memory/facts/fact-0007.md"]
    demo.sync()
    assert demo.store.inactive_reason(demo.store.facts["fact-0014"], TODAY) == "superseded by fact-0017"
    assert older_chain(demo, merged) == ["fact-0007", "fact-0014"]
    index = demo.layout.index_path.read_text()
    assert "fact-0017" in index and "fact-0007" not in index and "fact-0014" not in index
    groups = {e.fact_id: e.group for e in prune_candidates(demo.store, TODAY)}
    assert groups["fact-0007"] == groups["fact-0014"] == "superseded"
    problems = [c for c in run_doctor(demo, TODAY).checks if c.status == "FAIL"]
    assert [c.name for c in problems] == ["reasoning"]  # only the demo's planted fact-0011, nothing new
    # Undo restores every touched file byte for byte.
    result.undo.restore(demo)
    assert _tree(demo.root) == before


def test_merge_on_a_clean_project_passes_doctor(project: Project) -> None:
    write(
        project, "Deploys need a green main", "A deploy starts only from a green main.", "constraint", tags=["deploy"]
    )
    write(
        project,
        "Only deploy when main is green",
        "Production deploys wait for main's CI to pass.",
        "constraint",
        tags=["ci"],
    )
    project.layout.root.joinpath(".gitignore").write_text(".foundry/scratch/\n.foundry/metrics/\n")
    merge_facts(project, merge_plan(project, ["fact-0001", "fact-0002"], title="Deploy only from a green main"), TODAY)
    report = run_doctor(project, TODAY)
    assert report.ok, report.text()


def test_merge_refusals(demo: Project) -> None:
    with pytest.raises(InputError, match="at least two different facts"):
        merge_plan(demo, ["fact-0007", "fact-0007"])
    plan = merge_plan(demo, ["fact-0007", "fact-0014"])
    write(demo, "Something else", "Body.")
    merge_facts(demo, plan, TODAY)
    with pytest.raises(InputError, match="fact-0007 is no longer active"):
        merge_facts(demo, merge_plan(demo, ["fact-0007", "fact-0003"]), TODAY)


def test_merge_cli(demo_root: Path) -> None:
    r = ["--root", str(demo_root), "--today", "2026-11-30"]
    dry = run_cli(*r, "memory", "merge", "fact-0007", "fact-0014", "--dry-run", "--title", "JSON keys are snake_case")
    assert (
        dry.code == 0
        and "title: JSON keys are snake_case" in dry.out
        and "merged_from: [fact-0007, fact-0014]" in dry.out
    )
    assert not (demo_root / ".foundry/memory/facts/fact-0017.md").exists()
    done = run_cli(
        *r,
        "memory",
        "merge",
        "fact-0007",
        "fact-0014",
        "--body-file",
        "-",
        stdin="Keys are snake_case in every JSON response.",
    )
    assert done.code == 0 and done.out.startswith(
        "merged: fact-0017 (from fact-0007, fact-0014)\nIndex: 12/12 facts listed"
    )
    show = run_cli(*r, "memory", "show", "fact-0017").out
    assert "older: fact-0007 → fact-0014" in show
    assert run_cli(*r, "memory", "dupes").out.splitlines()[-1] == "  none"


def test_merge_cli_chooses_the_type(demo_root: Path) -> None:
    r = ["--root", str(demo_root), "--today", "2026-11-30", "memory", "merge", "fact-0007", "fact-0014"]
    dry = run_cli(*r, "--type", "decision", "--dry-run")
    assert dry.code == 0 and "\ntype: decision\n" in dry.out
    bad = run_cli(*r, "--type", "opinion")
    assert bad.code == 2 and bad.err == (
        "foundry: error: unknown type 'opinion': use one of decision, constraint, convention, domain, risk, metric, glossary\n"
    )
    assert not (demo_root / ".foundry/memory/facts/fact-0017.md").exists()
    assert run_cli(*r, "--type", "decision").code == 0
    assert "fact-0017 · decision ·" in run_cli("--root", str(demo_root), "memory", "show", "fact-0017").out


# ---- undo after someone else wrote (issue 9, item 11) ---------------------------------------


def _restate_merged(demo: Project) -> None:
    merged = demo.store.facts["fact-0017"]
    write(demo, merged.title, "Restated by another session.", merged.type)


def _write_unrelated(demo: Project) -> None:
    write(demo, "Another session records this", "Unrelated.", "domain")


def _edit_merged(demo: Project) -> None:
    path = demo.layout.facts_dir / "fact-0017.md"
    path.write_text(path.read_text() + "Edited by hand.\n")


def _retire_other(demo: Project) -> None:
    from foundry_tui.core.memory.writing.write import retire_facts

    retire_facts(demo, ["fact-0003"], "2026-11-29", TODAY)


def _rebuild_index_by_hand(demo: Project) -> None:
    demo.layout.index_path.write_text(demo.layout.index_path.read_text() + "\nhand-written line\n")


def _remove_other(demo: Project) -> None:
    (demo.layout.facts_dir / "fact-0005.md").unlink()


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (_restate_merged, "fact-0018 was written and supersedes fact-0017"),
        (_write_unrelated, "fact-0018 was written"),
        (_edit_merged, "fact-0017.md was changed"),
        (_retire_other, "fact-0003.md was changed"),
        (_remove_other, "fact-0005.md was removed"),
        (_rebuild_index_by_hand, "INDEX.md was rebuilt or edited"),
    ],
)
def test_undo_refuses_when_anything_changed_since_the_merge(demo: Project, change: object, reason: str) -> None:
    result = merge_facts(demo, merge_plan(demo, ["fact-0007", "fact-0014"]), TODAY)
    demo.sync()
    change(demo)  # type: ignore[operator]
    after_change = _tree(demo.root)
    with pytest.raises(InputError) as info:
        result.undo.restore(demo)
    assert str(info.value) == (
        f"cannot undo the merge into fact-0017: {reason} since the merge, and undoing would lose that; "
        "nothing was changed"
    )
    assert _tree(demo.root) == after_change  # the refusal touched nothing
    if change is _restate_merged:  # the scenario of the issue: doctor stays clean of new FAILs
        fails = [c.name for c in run_doctor(demo, TODAY).checks if c.status == "FAIL"]
        assert fails == ["reasoning"]


def test_undo_from_another_process_view_still_works_when_nothing_changed(demo: Project) -> None:
    before = _tree(demo.root)
    result = merge_facts(demo, merge_plan(demo, ["fact-0007", "fact-0014"]), TODAY)
    other = Project(demo.root)  # a reader elsewhere loads the memory: reading changes nothing
    other.sync()
    result.undo.restore(demo)
    assert _tree(demo.root) == before
