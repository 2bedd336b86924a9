"""The curator sees meaning (issue 29, item 6), driven by Pilot: where the derived cache holds
the facts' vectors, a reworded duplicate and a reworded contradiction that share too few words
are in the curator's lists, each with its similarity."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search import encoder_probe
from foundry_tui.tui.curator.screen import CuratorScreen
from tests.core.memory.semantic_helpers import save_vectors, tiny_model_zip
from tests.helpers import TODAY, write
from tests.tui_helpers import make_app, open_mode, option_ids, select

SIZE = (120, 40)
# Found by the words (contradictions by meaning alone are off, ADR 0042); shown with their similarity.
PG = ("PostgreSQL 15 is the production database", "PostgreSQL 16 is the production database")
MIGRATIONS = (
    "Migrations must be backwards compatible for one release",
    "A schema change has to work with the previous version of the app",
)


@pytest.fixture
def meaning_root(root: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(encoder_probe.MODEL_ZIP_ENV, str(tiny_model_zip(tmp_path_factory.mktemp("model"))))
    project = Project(root)
    write(project, PG[0], "The main database.")
    write(project, PG[1], "Upgraded in March.")
    write(project, MIGRATIONS[0], "Deploys roll back.")
    write(project, MIGRATIONS[1], "Old pods keep running.")
    save_vectors(root, TODAY, [0.9, 0.7])
    return root


async def test_the_panes_show_pairs_found_by_meaning_with_their_similarity(meaning_root: Path) -> None:
    app = make_app(meaning_root)
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(pilot, "f6", CuratorScreen, tab="conflicts-tab")
        assert option_ids(pilot, "#conflicts") == ["conflict:0"]
        await select(pilot, "conflict:0", "#conflicts")
        detail = str(app.screen.query_one("#conflict-text", Static).render())
        assert detail.rstrip().endswith("They disagree: numbers 15 vs 16 (similarity 0.90)")
        await open_mode(pilot, "f6", CuratorScreen, tab="dupes-tab")
        assert option_ids(pilot, "#groups") == ["group:0"]
        await select(pilot, "group:0", "#groups")
        group = str(app.screen.query_one("#group-text", Static).render())
        assert "fact-0003 ~ fact-0004" in group
        assert group.rstrip().endswith("meaning 0.70")
