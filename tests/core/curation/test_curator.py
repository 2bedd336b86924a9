"""The curator's tools: missed searches and their nearest facts, adding a tag, bulk retire, over budget."""

from __future__ import annotations

import json
from pathlib import Path

from foundry_tui.core.curation.budget import over_budget
from foundry_tui.core.curation.missed import missed_searches, render_missed
from foundry_tui.core.events import record_event
from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search.reply import memory_search
from foundry_tui.core.memory.writing.write import add_tag
from tests.helpers import TODAY, run_cli


def test_missed_searches_from_the_demo_events(demo: Project) -> None:
    missed = missed_searches(demo, TODAY)
    assert [(m.query, m.count) for m in missed] == [
        ("kubernetes deploy", 29),
        ("k8s helm chart", 13),
        ("on-call rotation", 7),
        ("feature flags", 6),
        ("redis cache ttl", 4),
    ]
    assert render_missed(missed).splitlines()[2].startswith('  "kubernetes deploy" × 29: nearest ')


def test_adding_a_missed_word_as_a_tag_makes_the_search_find_it(demo: Project) -> None:
    assert memory_search(demo, "kubernetes", TODAY)[1] == []
    before = (demo.layout.facts_dir / "fact-0013.md").read_text()
    report = add_tag(demo, "fact-0013", "kubernetes", TODAY)
    after = parse_fact_text((demo.layout.facts_dir / "fact-0013.md").read_text(), "fact-0013")
    assert after.tags == ("python", "runtime", "compatibility", "kubernetes")
    assert (
        before.replace("compatibility]", "compatibility, kubernetes]")
        == (demo.layout.facts_dir / "fact-0013.md").read_text()
    )
    assert "kubernetes" in demo.layout.index_path.read_text() and report.listed == 13
    assert [h.fact.id for h in memory_search(demo, "kubernetes", TODAY)[1]] == ["fact-0013"]


def test_bulk_retire_and_tag_cli(demo_root: Path) -> None:
    r = ["--root", str(demo_root), "--today", "2026-11-30"]
    run = run_cli(*r, "memory", "retire", "fact-0003", "fact-0016")
    assert run.code == 0 and run.out.startswith(
        "retired: fact-0003, fact-0016 (expires 2026-11-29)\nIndex: 11/11 facts listed"
    )
    run = run_cli(*r, "memory", "tag", "fact-0009", "pg")
    assert run.out.startswith("tagged: fact-0009 +pg\n")
    assert run_cli(*r, "memory", "tag", "fact-0404", "x").code == 1
    assert run_cli(*r, "memory", "missed").out.startswith("Searches that found nothing (most frequent first):")


def test_over_budget_suggests_the_cheapest_consolidations(demo: Project) -> None:
    demo.layout.config_path.write_text(json.dumps({"indexTokenBudget": 300}))
    omitted, options = over_budget(demo, TODAY)
    assert omitted and omitted[-1] == "fact-0012"  # glossary goes first
    assert options[0].ids == ["fact-0007", "fact-0014"] and options[0].saved_tokens > 10
    record_event(demo.layout, "memory_search", query="x", hits=0)  # events never break it
    assert (
        run_cli("--root", str(demo.root), "--today", "2026-11-30", "memory", "budget").out.splitlines()[0]
        == "Over budget:"
    )
