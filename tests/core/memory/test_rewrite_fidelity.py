"""In-place rewrites (retire, tag) change only the lines they mean to: a hand-written fact
keeps its comments, quoting, list style and unknown keys byte for byte."""

from __future__ import annotations

import difflib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.writing.frontmatter_edit import edit_frontmatter
from foundry_tui.core.memory.writing.write import add_tag, retire_facts
from tests.helpers import TODAY

HAND_WRITTEN = """---
# Written by hand during the 2026 incident review; keep the comments.
id: fact-0001
type: convention    # a team rule, not a decision
scope: project
title: "Use zoneinfo, not pytz"
tags:
    - time
    - python   # the language, not the snake
confidence: high
source: conversation
created: 2026-08-27
expires: null   # review in a year
supersedes:
reviewed_by: 'ana'
---

**Why:** pytz's localize() is easy to forget; zoneinfo is in the standard library.
**How to apply:** `from zoneinfo import ZoneInfo`.
"""

FLOW_LIST = HAND_WRITTEN.replace(
    "tags:\n    - time\n    - python   # the language, not the snake\n", "tags: [time, python]  # flow\n"
)


def _changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def _project_with(root: Path, text: str) -> tuple[Project, Path]:
    path = root / ".foundry" / "memory" / "facts" / "fact-0001.md"
    path.write_text(text, encoding="utf-8")
    return Project(root), path


def test_retiring_a_hand_written_fact_changes_only_its_expires_line(root: Path) -> None:
    project, path = _project_with(root, HAND_WRITTEN)
    retire_facts(project, ["fact-0001"], "2026-11-29", TODAY)
    assert _changed_lines(HAND_WRITTEN, path.read_text()) == [
        "-expires: null   # review in a year",
        "+expires: 2026-11-29   # review in a year",
    ]
    assert parse_fact_text(path.read_text(), "fact-0001").expires == "2026-11-29"


def test_tagging_keeps_a_block_list_a_block_list(root: Path) -> None:
    project, path = _project_with(root, HAND_WRITTEN)
    add_tag(project, "fact-0001", "timezone", TODAY)
    assert _changed_lines(HAND_WRITTEN, path.read_text()) == ["+    - timezone"]
    assert parse_fact_text(path.read_text(), "fact-0001").tags == ("time", "python", "timezone")


def test_tagging_keeps_a_flow_list_a_flow_list(root: Path) -> None:
    project, path = _project_with(root, FLOW_LIST)
    add_tag(project, "fact-0001", "timezone", TODAY)
    assert _changed_lines(FLOW_LIST, path.read_text()) == [
        "-tags: [time, python]  # flow",
        "+tags: [time, python, timezone]  # flow",
    ]


def test_a_tag_already_there_leaves_the_file_untouched(root: Path) -> None:
    project, path = _project_with(root, HAND_WRITTEN)
    add_tag(project, "fact-0001", "python", TODAY)
    assert path.read_text() == HAND_WRITTEN


def test_a_missing_key_is_added_in_the_spec_order(root: Path) -> None:
    text = HAND_WRITTEN.replace("expires: null   # review in a year\n", "")
    project, path = _project_with(root, text)
    retire_facts(project, ["fact-0001"], "2026-11-29", TODAY)
    assert _changed_lines(text, path.read_text()) == ["+expires: 2026-11-29"]
    lines = path.read_text().splitlines()
    assert lines.index("expires: 2026-11-29") == lines.index("created: 2026-08-27") + 1


def test_text_without_frontmatter_is_left_to_the_caller() -> None:
    assert edit_frontmatter("no frontmatter here\n", {"expires": "2026-01-01"}) is None
    assert edit_frontmatter("---\nid: x\n", {"expires": "2026-01-01"}) is None  # never closed


@given(st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True), min_size=1, max_size=5, unique=True))
def test_editing_tags_round_trips_through_the_loader(tags: list[str]) -> None:
    edited = edit_frontmatter(HAND_WRITTEN, {"tags": tags})
    assert edited is not None
    fact = parse_fact_text(edited, "fact-0001")
    assert list(fact.tags) == tags
    assert fact.title == "Use zoneinfo, not pytz" and "keep the comments" in edited
    assert edited.split("\n---\n", 1)[1] == HAND_WRITTEN.split("\n---\n", 1)[1]  # the body, byte for byte
