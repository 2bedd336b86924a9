"""The background build of the sentence vectors in the TUI's header (issue 29, item 2): its
progress while it embeds, nothing once it is done. The real int8 model where [semantic] is
installed, else the tests' small float model (semantic_helpers)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from foundry_tui.core.memory.project import Project
from foundry_tui.tui.common.status_header import VECTORS_POLL, StatusHeader
from tests.core.memory.semantic_helpers import use_a_sentence_model
from tests.helpers import write
from tests.tui_helpers import make_app, settle

FACTS = 40  # more than one chunk of the builder's (hybrid.EMBED_CHUNK, 32)


@pytest.fixture
def facts(root: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    use_a_sentence_model(tmp_path_factory.mktemp("model"), monkeypatch)
    project = Project(root)
    for n in range(FACTS):
        write(project, f"Service {n} deploys to kubernetes from the release branch", f"Deploy number {n}.")
    return root


def _wait(predicate: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


async def test_the_header_shows_the_vectors_build_while_it_runs_and_hides_it_after(facts: Path) -> None:
    app = make_app(facts)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        header = app.screen.query_one(StatusHeader)
        assert not app.screen.query("#count-vectors")  # no build: no figure, no room taken
        project = app.project
        project.keep_vectors()
        # The builder has read the facts and embeds them; holding the Project's lock keeps it
        # from adding a chunk or ending (it takes the lock for both) while the header is read.
        _wait(lambda: project.vector_progress()[1] == FACTS)
        with project.lock:
            assert project.building_vectors()
            await pilot.pause(VECTORS_POLL * 3)
            shown = header.part("count-vectors")
            assert shown in {f"vectors 0/{FACTS}", f"vectors 32/{FACTS}"}
            line = app.screen.query_one("#count-vectors").render()
            assert str(line) == shown
        project.vectors_built(60)
        assert not project.building_vectors()
        assert project.vector_progress() == (FACTS, FACTS)
        await pilot.pause(VECTORS_POLL * 3)
        assert header.part("count-vectors") == ""
        assert not app.screen.query_one("#count-vectors").display
