"""Retiring facts by setting `expires`: the file keeps everything else; nothing is deleted."""

from __future__ import annotations

import pytest

from foundry_tui.core.errors import InputError, NotFoundError
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.writing.write import retire_facts
from tests.helpers import TODAY


def test_retire_sets_expires_and_keeps_the_rest(demo: Project) -> None:
    path = demo.layout.facts_dir / "fact-0012.md"
    path.write_text(path.read_text().replace("supersedes: null\n", "supersedes: null\nreviewed_by: ana\n"))
    before = path.read_text()
    report = retire_facts(demo, ["fact-0012", "fact-0003"], "2026-11-29", TODAY)
    after = path.read_text()
    assert after == before.replace("expires: null", "expires: 2026-11-29")
    assert report.index.active == 11
    index = demo.layout.index_path.read_text()
    assert "fact-0012" not in index and "fact-0003" not in index
    assert sorted(p.name for p in demo.layout.facts_dir.iterdir()) == [f"fact-{n:04d}.md" for n in range(1, 17)]


def test_retire_refuses_unknown_ids_and_bad_dates(demo: Project) -> None:
    with pytest.raises(NotFoundError):
        retire_facts(demo, ["fact-0404"], "2026-11-29", TODAY)
    with pytest.raises(InputError, match="expires 'tomorrow' is not a date"):
        retire_facts(demo, ["fact-0003"], "tomorrow", TODAY)
