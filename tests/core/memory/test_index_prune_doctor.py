"""INDEX.md, the prune report and doctor, with the spec's exact texts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.doctor import run_doctor
from foundry_tui.core.memory.reports.index_file import build_index, index_line, index_state, omission_note
from foundry_tui.core.memory.reports.prune import prune_candidates, render_prune
from foundry_tui.core.memory.writing.write import memory_index
from foundry_tui.core.tokens import estimate_tokens
from tests.helpers import TODAY, write


def test_index_line_is_the_spec_form() -> None:
    fact = Fact(
        id="fact-0004",
        type="decision",
        title="PostgreSQL 16 is the only supported database",
        body="",
        tags=("database", "postgres", "migrations"),
    )
    assert (
        index_line(fact)
        == "- **fact-0004** · decision · PostgreSQL 16 is the only supported database `database` `postgres` `migrations`"
    )
    assert (
        index_line(Fact(id="fact-0001", type="metric", title="No tags", body=""))
        == "- **fact-0001** · metric · No tags"
    )


def test_index_order_and_rebuild_reply(demo: Project) -> None:
    report = memory_index(demo, TODAY)
    text = demo.layout.index_path.read_text()
    ids = [line.split("**")[1] for line in text.splitlines() if line.startswith("- **")]
    assert ids == [
        "fact-0009",
        "fact-0011",
        "fact-0001",
        "fact-0013",
        "fact-0003",
        "fact-0007",
        "fact-0014",
        "fact-0016",
        "fact-0005",
        "fact-0015",
        "fact-0008",
        "fact-0010",
        "fact-0012",
    ]
    assert report.rebuild_text() == (
        f"Rebuilt {demo.layout.index_path}\n13/13 facts listed, ~{estimate_tokens(text)} tokens."
    )


def test_budget_cuts_the_least_decisive_types_first() -> None:
    facts = [
        Fact(id=f"fact-{n:04d}", type=t, title=f"Title {n} " + "x" * 40, body="")
        for n, t in enumerate(["glossary", "decision", "metric", "constraint", "domain", "decision"], start=1)
    ]
    text, report = build_index(facts, budget=80)
    assert report.listed + report.omitted == 6
    ordered = ["fact-0002", "fact-0006", "fact-0004", "fact-0005", "fact-0003", "fact-0001"]
    assert report.omitted >= 1 and report.listed >= 2  # both decisions kept, the tail dropped
    assert report.omitted_ids == ordered[report.listed :]
    head = text[: text.index("\n\n> ")] if report.omitted else text
    assert estimate_tokens(head + "\n") <= 80  # the cap holds before the note…
    assert text.rstrip("\n").endswith(omission_note(report.omitted, 80))  # …which is appended after it
    assert omission_note(14, 4000) == (
        "> 14 entries omitted to stay inside the 4000-token index budget. Consolidate or expire facts: `foundry memory prune`."
    )


def test_index_state_detects_missing_stale_and_hand_edits(demo: Project) -> None:
    memory_index(demo, TODAY)
    path = demo.layout.index_path
    expected, _ = build_index(demo.active_facts(TODAY), 4000)
    assert index_state(path, expected, inside=demo.layout) == "current"
    write(demo, "A new convention", "Body.")  # rebuilds INDEX.md
    assert index_state(path, expected, inside=demo.layout) == "stale"
    path.write_text(path.read_text().replace("Celery", "Huey"))
    assert index_state(path, expected, inside=demo.layout) == "edited"
    path.unlink()
    assert index_state(path, expected, inside=demo.layout) == "missing"


def test_prune_report_is_the_spec_text(demo: Project) -> None:
    demo.sync()
    assert render_prune(prune_candidates(demo.store, TODAY)) == (
        "Prune candidates (nothing is deleted automatically):\n"
        "\n"
        "  expired:\n"
        "    - fact-0006 — expired 2026-06-30\n"
        "  superseded:\n"
        "    - fact-0002 — superseded by a newer fact\n"
        "    - fact-0004 — superseded by a newer fact\n"
        "  missing reasoning:\n"
        "    - fact-0011 — add a **Why:** line"
    )


def test_prune_with_no_candidates_changes_nothing(project: Project) -> None:
    write(project, "Only fact", "Body.")
    before = {p: p.read_bytes() for p in project.layout.foundry.rglob("*") if p.is_file()}
    project.sync()
    assert (
        render_prune(prune_candidates(project.store, TODAY))
        == "Prune candidates (nothing is deleted automatically):\n\n  none"
    )
    assert {p: p.read_bytes() for p in project.layout.foundry.rglob("*") if p.is_file()} == before


def _statuses(project: Project) -> dict[str, str]:
    return {c.name: c.status for c in run_doctor(project, TODAY).checks}


def test_doctor_on_the_demo(demo: Project) -> None:
    report = run_doctor(demo, TODAY)
    assert not report.ok
    assert [c.name for c in report.checks if c.status == "FAIL"] == ["reasoning"]
    reasoning = next(c for c in report.checks if c.name == "reasoning")
    assert reasoning.lines() == [
        "FAIL  reasoning: 1 active decision or risk fact without **Why:**",
        "        - fact-0011 (.foundry/memory/facts/fact-0011.md): add a **Why:** line through memory_write, or retire it",
    ]
    assert report.text().splitlines()[-1] == "doctor: 1 FAIL, 0 warn"


def test_doctor_reports_every_problem_and_the_rest_still_loads(project: Project) -> None:
    write(project, "Good fact", "Body.")
    facts = project.layout.facts_dir
    (facts / "fact-0002.md").write_text("---\ntitle: [broken\n---\n")
    (facts / "fact-0003.md").write_text("---\nid: fact-0099\ntype: domain\ntitle: T\ncreated: 2026-01-01\n---\nb\n")
    (facts / "fact-0004.md").write_text(
        "---\nid: fact-0004\ntype: domain\ntitle: Good fact\ncreated: 2026-01-01\nsupersedes: fact-0042\n---\nb\n"
    )
    (facts / "fact-0005.md").write_text(
        "---\nid: fact-0005\ntype: domain\ntitle: Loop A\ncreated: 2026-01-01\nsupersedes: fact-0006\n---\nb\n"
    )
    (facts / "fact-0006.md").write_text(
        "---\nid: fact-0006\ntype: domain\ntitle: Loop B\ncreated: 2026-01-01\nsupersedes: fact-0005\n---\nb\n"
    )
    (facts / ".fact-0007.md.123.0.tmp").write_text("half")
    project.layout.config_path.write_text("{not json")
    report = run_doctor(project, TODAY)
    by_name = {c.name: c for c in report.checks}
    assert by_name["config"].status == "FAIL"
    assert "config.json: not valid JSON (line 1, column 2" in by_name["config"].problems[0]
    assert by_name["fact files"].status == "FAIL"
    assert by_name["fact files"].summary == "2 files of 6 cannot be loaded (the rest still load)"
    assert any(
        p.startswith(".foundry/memory/facts/fact-0003.md: id 'fact-0099' does not match the file name")
        for p in by_name["fact files"].problems
    )
    assert by_name["leftover temp files"].status == "warn"
    assert by_name["duplicate titles"].status == "FAIL"
    assert by_name["supersedes"].problems == [
        "fact-0004 supersedes fact-0042, which does not exist: fix the id or set null",
        "supersedes cycle fact-0005 → fact-0006 → fact-0005: break it by setting one supersedes to null",
    ]
    assert by_name["INDEX.md"].status == "FAIL"
    assert len(project.store.facts) == 4  # the broken files did not stop the others


def test_doctor_budget_and_git_ignore(project: Project) -> None:
    project.layout.config_path.write_text(json.dumps({"indexTokenBudget": 45}))
    for n in range(3):
        write(project, f"Convention number {n}", "Body.")
    subprocess.run(["git", "init", "-q", str(project.root)], check=True)
    statuses = _statuses(project)
    assert statuses["index budget"] == "FAIL"
    assert statuses["git ignore"] == "warn"
    Path(project.root, ".gitignore").write_text(".foundry/scratch/\n.foundry/metrics/\n")
    assert _statuses(project)["git ignore"] == "ok"


def test_doctor_clean_project_passes(project: Project) -> None:
    write(project, "Use Redis", "**Why:** fast.\n**How to apply:** redis://", "decision")
    report = run_doctor(project, TODAY)
    assert report.ok and report.text().splitlines()[-1] == "doctor: all checks ok"


def test_profiles_set_the_budget(project: Project) -> None:
    from foundry_tui.core.config import profile_config

    project.layout.config_path.write_text('{"profile": "startup-mvp"}')
    assert project.config().index_token_budget == 2500
    project.layout.config_path.write_text('{"profile": "full", "indexTokenBudget": 5000}')
    assert project.config().index_token_budget == 5000  # an explicit budget wins over the profile
    assert profile_config("full")["indexTokenBudget"] == 6000
    project.layout.config_path.write_text('{"profile": "huge"}')
    statuses = _statuses(project)
    assert statuses["config"] == "FAIL"
