"""Doctor as a tuple of named checks: the whole report, byte for byte, on projects that reach
every branch (the texts were recorded from the single-function doctor this replaced), and a
new check is one function added to the tuple."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.doctor import CHECKS, Check, DoctorContext, run_doctor
from foundry_tui.core.memory.writing.write import memory_index
from tests.helpers import TODAY, write


def _fact(project: Project, number: int, title: str, body: str = "b", **fields: object) -> None:
    meta = {"id": f"fact-{number:04d}", "type": "domain", "title": title, "created": "2026-01-01", **fields}
    lines = [f"{key}: {json.dumps(value)}" for key, value in meta.items()]
    path = project.layout.facts_dir / f"fact-{number:04d}.md"
    path.write_text("---\n" + "\n".join(lines) + "\n---\n" + body + "\n", encoding="utf-8")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_every_problem_at_once(project: Project) -> None:
    write(project, "Good fact", "Body.")
    memory_index(project, TODAY)
    index = project.layout.index_path
    index.write_text(index.read_text() + "hand edit\n")
    facts = project.layout.facts_dir
    (facts / "fact-0002.md").write_text("---\ntitle: [broken\n---\n")
    _fact(project, 3, "Good fact")
    _fact(project, 4, "T" * 90, " ".join(["word"] * 130))
    _fact(project, 5, "Loop A", supersedes="fact-0006")
    _fact(project, 6, "Loop B", supersedes="fact-0005")
    _fact(project, 7, "Self", supersedes="fact-0007")
    _fact(project, 8, "Merged", supersedes="fact-0009", merged_from=["fact-0009", "fact-0077"])
    _fact(project, 9, "Dangling", supersedes="fact-0042")
    _fact(project, 10, "A risk without reasons", type="risk")
    (facts / ".fact-0011.md.123.0.tmp").write_text("half")
    (facts / ".fact-0012.md.124.0.tmp").write_text("half")
    project.layout.config_path.write_text('{"indexTokenBudget": 0}')
    _git(project.root, "init", "-q")
    report = run_doctor(project, TODAY)
    assert report.text() == (
        "FAIL  config: config.json cannot be used; defaults assumed below\n"
        "        - config.json: indexTokenBudget must be a positive whole number, not 0\n"
        "FAIL  fact files: 1 file of 10 cannot be loaded (the rest still load)\n"
        "        - .foundry/memory/facts/fact-0002.md: frontmatter is not valid YAML at line 2 (did not find expected ',' "
        "or ']'): fix the YAML between the '---' lines\n"
        "warn  leftover temp files: 2 files left by an interrupted write\n"
        "        - .foundry/memory/facts/.fact-0011.md.123.0.tmp: delete it (the write it belonged to did not finish)\n"
        "        - .foundry/memory/facts/.fact-0012.md.124.0.tmp: delete it (the write it belonged to did not finish)\n"
        "warn  fact sizes: 2 facts over the size limits\n"
        "        - fact-0004: title is 90 characters, over 80: shorten it through memory_write\n"
        "        - fact-0004: body is 130 words, over 120: split or tighten it through memory_write\n"
        "ok    fact fields: no control characters, tags within limits\n"
        "FAIL  duplicate titles: 1 title shared by several active facts\n"
        "        - fact-0001, fact-0003 share a title: retire all but one (set expires) or rewrite one through memory_write\n"
        "FAIL  reasoning: 1 active decision or risk fact without **Why:**\n"
        "        - fact-0010 (.foundry/memory/facts/fact-0010.md): add a **Why:** line through memory_write, or retire it\n"
        "FAIL  supersedes: 4 broken links\n"
        "        - fact-0007 supersedes itself: set supersedes to the fact it replaces, or null\n"
        "        - fact-0008 lists fact-0077 in merged_from, which does not exist: fix the list\n"
        "        - fact-0009 supersedes fact-0042, which does not exist: fix the id or set null\n"
        "        - supersedes cycle fact-0005 → fact-0006 → fact-0005: break it by setting one supersedes to null\n"
        "ok    index budget: ~98 of 4000 tokens, 6/6 facts listed\n"  # the 90-character title is cut at 80
        "FAIL  INDEX.md: .foundry/memory/INDEX.md was edited by hand\n"
        "        - it is generated: run `foundry memory index` to regenerate it (hand edits are lost)\n"
        "warn  git ignore: .foundry/scratch/, .foundry/metrics/ not ignored by git\n"
        "        - add '.foundry/scratch/' to .gitignore (or run `foundry init`)\n"
        "        - add '.foundry/metrics/' to .gitignore (or run `foundry init`)\n"
        "doctor: 6 FAIL, 3 warn"
    )


def test_over_budget_with_a_missing_index(project: Project) -> None:
    project.layout.config_path.write_text('{"indexTokenBudget": 40}')
    for n in range(1, 15):
        _fact(project, n, f"Convention number {n}")
    _git(project.root, "init", "-q")
    (project.root / ".gitignore").write_text(".foundry/scratch/\n.foundry/metrics/\n")
    report = run_doctor(project, TODAY)
    assert report.text() == (
        "ok    config: config.json is valid\n"
        "ok    fact files: 14 fact files load\n"
        "ok    fact sizes: titles and bodies within limits\n"
        "ok    fact fields: no control characters, tags within limits\n"
        "ok    duplicate titles: no two active facts share a title\n"
        "ok    reasoning: every active decision and risk has a **Why:** line\n"
        "ok    supersedes: every supersedes names an existing fact, no cycles\n"
        "FAIL  index budget: 13 of 14 entries omitted over the 40-token budget\n"
        "        - consolidate or expire facts (`foundry memory prune`); omitted: fact-0002, fact-0003, fact-0004, "
        "fact-0005, fact-0006, fact-0007, fact-0008, fact-0009, fact-0010, fact-0011 …\n"
        "FAIL  INDEX.md: .foundry/memory/INDEX.md is missing\n"
        "        - run `foundry memory index` to generate it\n"
        "ok    git ignore: scratch and metrics are ignored by git\n"
        "doctor: 2 FAIL, 0 warn"
    )


def test_a_stale_index_and_a_clean_project(project: Project) -> None:
    write(project, "Use Redis", "**Why:** fast.\n**How to apply:** redis://", "decision")
    memory_index(project, TODAY)
    report = run_doctor(project, TODAY)
    assert report.text() == (
        "ok    config: no config.json; defaults in use\n"
        "ok    fact files: 1 fact file load\n"
        "ok    fact sizes: titles and bodies within limits\n"
        "ok    fact fields: no control characters, tags within limits\n"
        "ok    duplicate titles: no two active facts share a title\n"
        "ok    reasoning: every active decision and risk has a **Why:** line\n"
        "ok    supersedes: every supersedes names an existing fact, no cycles\n"
        "ok    index budget: ~32 of 4000 tokens, 1/1 facts listed\n"
        "ok    INDEX.md: .foundry/memory/INDEX.md is current\n"
        "ok    git ignore: not a git repository; nothing to ignore\n"
        "doctor: all checks ok"
    )
    _fact(project, 2, "Use Celery for jobs")  # by hand: memory_write would rebuild the index
    stale = {c.name: c.lines() for c in run_doctor(project, TODAY).checks}["INDEX.md"]
    assert stale == [
        "FAIL  INDEX.md: .foundry/memory/INDEX.md is stale",
        "        - facts changed since it was built: run `foundry memory index`",
    ]


def test_a_new_check_is_one_function_in_the_tuple(project: Project) -> None:
    write(project, "Only fact", "Body.")

    def check_fact_count(ctx: DoctorContext) -> Iterator[Check]:
        yield Check("fact count", "warn", f"{len(ctx.facts)} fact", ["write a second fact"])

    report = run_doctor(project, TODAY, checks=(*CHECKS, check_fact_count))
    assert report.checks[-1].lines() == ["warn  fact count: 1 fact", "        - write a second fact"]
    assert report.text().splitlines()[-1] == "doctor: 0 FAIL, 1 warn"
    assert [c.name for c in run_doctor(project, TODAY, checks=(CHECKS[0],)).checks] == ["config"]


def test_every_check_has_a_distinct_name() -> None:
    names = [check.__name__ for check in CHECKS]
    assert len(names) == len(set(names)) and all(name.startswith("check_") for name in names)
