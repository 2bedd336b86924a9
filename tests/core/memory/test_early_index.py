"""The index the TUI paints first, from the parse cache's columns (views.early_index), is
the index the full load shows: the same ids in the same order, the same budget cut, the
same counts and broken files; and on screen, the same rows, row for row."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest
from rich.segment import Segment

from foundry_tui.core.memory.model.vocabulary import TYPES
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.index_file import index_order
from foundry_tui.core.memory.reports.views import IndexView, Overview, early_index
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.memory.index_pane import IndexPane
from foundry_tui.tui.memory.screen import MemoryScreen
from tests.helpers import TODAY
from tests.tui_helpers import make_app, settle

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "cache",
    "index",
    "budget",
    "token",
    "schema",
    "owner",
    "deploy",
    "rollback",
]


def generate(root: Path, count: int, seed: int, *, retiring: bool = True) -> None:
    """`count` fact files of every type, some expired, superseded (also by a merge, by a
    fact naming itself, or naming a missing id; none with `retiring=False`), with long
    titles, many tags, hostile text, and a few broken files; every file settled an hour ago
    (so the cache trusts it)."""
    rng = random.Random(seed)
    facts = root / ".foundry" / "memory" / "facts"
    facts.mkdir(parents=True)
    settled = time.time() - 3600
    for n in range(1, count + 1):
        fact_id = f"fact-{n:04d}" if rng.random() < 0.9 else f"fact-{n + 10000:05d}"
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 40 if rng.random() < 0.1 else 8)))
        if rng.random() < 0.05:
            title += " [bold]x[/] \\u001b"
        tags = ", ".join(rng.sample(WORDS, rng.randint(0, 9)))
        expires = rng.choice(["null"] * 8 + ["2026-01-01", "2026-11-30", "2027-01-01"])
        roll = rng.random() if retiring else 1.0
        supersedes = "null"
        extra = ""
        if roll < 0.06 and n > 1:
            supersedes = f"fact-{rng.randint(1, n - 1):04d}"
        elif roll < 0.07:
            supersedes = fact_id  # names itself: not retired by it
        elif roll < 0.08:
            supersedes = "fact-99999"  # no such fact
        elif roll < 0.1 and n > 2:
            extra = f"merged_from: [fact-{rng.randint(1, n - 1):04d}, fact-{rng.randint(1, n - 1):04d}]\n"
        body = "Some body." + ("\n\n**Why:** because." if rng.random() < 0.5 else "")
        path = facts / f"{fact_id}.md"
        path.write_text(
            f"---\nid: {fact_id}\ntype: {rng.choice(TYPES)}\nscope: project\ntitle: {title}\ntags: [{tags}]\n"
            f"confidence: medium\nsource: conversation\ncreated: 2026-05-01\nexpires: {expires}\n"
            f"supersedes: {supersedes}\n{extra}---\n\n{body}\n"
        )
        os.utime(path, (settled, settled))
    for name, text in (("fact-0900.md", "no frontmatter"), ("fact-0901.md", "---\nid: fact-0901\n---\n")):
        (facts / name).write_text(text)
        os.utime(facts / name, (settled, settled))


def warm(root: Path) -> Project:
    """A fresh project (a new process, as far as the store knows) over a warm parse cache."""
    Project(root).sync()  # parses every file and writes the cache
    project = Project(root)
    project.sync()
    assert project.store.pending_snapshot is not None, "the cache should be used unchanged"
    return project


def same_view(early: IndexView, full: IndexView) -> None:
    assert early.ordered == full.ordered
    assert early.types == full.types
    assert early.omitted == full.omitted
    assert (early.listed, early.active, early.total) == (full.listed, full.active, full.total)
    assert (early.index_tokens, early.budget) == (full.index_tokens, full.budget)
    assert early.broken == full.broken
    assert early.status() == full.status()
    for fact_id in full.ordered:
        assert early.entry(fact_id) == full.entry(fact_id), fact_id


@pytest.mark.parametrize(
    ("count", "seed", "budget", "retiring"),
    [(300, 1, 400, True), (300, 2, 100000, True), (60, 3, 20, True), (0, 4, 400, True), (300, 7, 400, False)],
)
def test_early_index_is_the_full_index(tmp_path: Path, count: int, seed: int, budget: int, retiring: bool) -> None:
    generate(tmp_path, count, seed, retiring=retiring)
    (tmp_path / ".foundry" / "config.json").write_text(f'{{"indexTokenBudget": {budget}}}')
    project = warm(tmp_path)
    early = early_index(project, TODAY)
    assert early is not None and early.inactive is None
    full = Overview(Project(tmp_path), TODAY, {}, with_doctor=False)
    fresh = Project(tmp_path)
    fresh.sync()
    active = fresh.active_facts(TODAY)  # the store's own active set, from the Facts
    assert early.ordered == [f.id for f in index_order(active)]
    if budget == 400 and count:
        assert full.omitted, "the budget should cut this index"
    same_view(early, full.index_view())


def test_early_index_needs_an_unchanged_cache(tmp_path: Path) -> None:
    generate(tmp_path, 30, 5)
    Project(tmp_path).sync()
    (tmp_path / ".foundry" / "memory" / "facts" / "fact-0003.md").write_text(
        "---\nid: fact-0003\ntype: domain\ntitle: Changed\n---\n\nNew body.\n"
    )
    project = Project(tmp_path)
    project.sync()
    assert project.store.pending_snapshot is None
    assert early_index(project, TODAY) is None


def rendered(pane: IndexPane) -> list[list[Segment]]:
    width = pane.scrollable_content_region.width
    return [list(pane._render_row(i, width, i == pane.highlighted)) for i in range(len(pane.rows))]


async def test_early_paint_is_the_full_load_paint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Row for row (text and style), with the same cursor, border and header counts."""
    generate(tmp_path, 400, 6)
    (tmp_path / ".foundry" / "config.json").write_text('{"indexTokenBudget": 600}')
    warm(tmp_path)
    paints: list[tuple[bool, list[list[Segment]], int | None, object, str]] = []
    show = IndexPane.show

    def recorded(self: IndexPane, view: IndexView, show_inactive: bool) -> None:
        show(self, view, show_inactive)

        def painted() -> None:  # as drawn, once laid out (with its scroll bar)
            counts = self.screen.query_one(StatusHeader).part("counts")
            paints.append((view.inactive is None, rendered(self), self.highlighted, self.border_subtitle, counts))

        self.call_after_refresh(painted)

    monkeypatch.setattr(IndexPane, "show", recorded)
    app = make_app(tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen)
    assert [early for early, *_ in paints] == [True, False], "one early paint, then the full load's"
    (_, early_rows, *early_rest), (_, full_rows, *full_rest) = paints
    assert len(early_rows) == len(full_rows) > 400 // 2
    for number, (early_row, full_row) in enumerate(zip(early_rows, full_rows, strict=True)):
        assert early_row == full_row, f"row {number}"
    assert early_rest == full_rest
