"""Restating a fact keeps what it knew (issue 9, item 15): an `updated` write that leaves
fields out carries them over from the fact it supersedes, and says so. Through the core,
the CLI (a real subprocess) and the MCP server (the official SDK client)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.facts import Fact, parse_fact_text
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.writing.write import memory_write
from tests.helpers import TODAY, run_cli, write

WHY = "**Why:** we need MERGE.\n**How to apply:** plain SQL migrations."
RICH: dict[str, Any] = {
    "scope": "module:db",
    "tags": ["database", "postgres"],
    "confidence": "high",
    "source": "adr-0007",
    "expires": "2027-06-30",
}
CARRIED_ALL = (
    "Carried over from fact-0001 (left out of this write): scope module:db; tags database, postgres; "
    "confidence high; source adr-0007; expires 2027-06-30."
)


def _fact(project: Project, fact_id: str) -> Fact:
    path = project.layout.facts_dir / f"{fact_id}.md"
    return parse_fact_text(path.read_text(encoding="utf-8"), fact_id)


def _kept(fact: Fact) -> dict[str, object]:
    return {
        "scope": fact.scope,
        "tags": list(fact.tags),
        "confidence": fact.confidence,
        "source": fact.source,
        "expires": fact.expires,
    }


def test_an_update_that_leaves_fields_out_keeps_them(project: Project) -> None:
    write(project, "PostgreSQL 16 is the only database", WHY, "decision", **RICH)
    reply = write(project, "PostgreSQL 16 is the only database", WHY + " Also pgvector.", "decision")
    lines = reply.splitlines()
    assert lines[0] == "updated: fact-0002 (supersedes fact-0001)"  # the spec's first line, unchanged
    assert lines[1].startswith("Index: 1/1 facts listed")
    assert lines[2:] == [CARRIED_ALL]
    assert _kept(_fact(project, "fact-0002")) == RICH


def test_given_fields_win_even_when_they_are_the_defaults(project: Project) -> None:
    write(project, "Deploys happen on Tuesdays", "Body one.", **RICH)
    # confidence "medium" and source "conversation" are the defaults, but given: they are not carried.
    reply = write(
        project, "Deploys happen on Tuesdays", "Body two.", confidence="medium", source="conversation", tags=[]
    )
    assert reply.splitlines()[2:] == [
        "Carried over from fact-0001 (left out of this write): scope module:db; expires 2027-06-30."
    ]
    assert _kept(_fact(project, "fact-0002")) == {
        "scope": "module:db",
        "tags": [],
        "confidence": "medium",
        "source": "conversation",
        "expires": "2027-06-30",
    }


def test_nothing_to_say_when_the_old_fact_had_the_defaults(project: Project) -> None:
    write(project, "Plain fact", "Body one.")
    reply = write(project, "Plain fact", "Body two.")
    assert len(reply.splitlines()) == 2 and reply.startswith("updated: fact-0002 (supersedes fact-0001)")


def test_created_and_unchanged_carry_nothing(project: Project) -> None:
    assert len(write(project, "Brand new", "Body.", tags=["x"]).splitlines()) == 2
    assert write(project, "Brand new", "Body.").splitlines()[0] == "unchanged: fact-0001"


def test_the_warning_line_stays_last(project: Project) -> None:
    write(project, "We use Celery", "Jobs run on Celery.", "decision", confidence="high")
    lines = write(project, "We use Celery", "Jobs run on Celery 5.", "decision").splitlines()
    assert lines[2] == "Carried over from fact-0001 (left out of this write): confidence high."
    assert lines[3].startswith("Warning: decision fact-0002 has no **Why:** line")


def test_a_hand_written_value_memory_write_refuses_is_not_carried(project: Project) -> None:
    (project.layout.facts_dir / "fact-0001.md").write_text(
        '---\nid: fact-0001\ntype: domain\ntitle: Hand written\ntags: ["a\\rb"]\ncreated: 2026-11-01\n---\nOld.\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as info:
        memory_write(project, WriteRequest(title="Hand written", body="New.", type="domain"), TODAY)
    assert str(info.value) == (
        "cannot carry tags over from fact-0001 (tag 'a\\rb' contains a control character (U+000D)): "
        "give tags in this write"
    )
    assert sorted(p.name for p in project.layout.facts_dir.iterdir()) == ["fact-0001.md"]
    # Giving the field explicitly is the way through.
    reply = memory_write(project, WriteRequest(title="Hand written", body="New.", type="domain", tags=["ab"]), TODAY)
    assert reply.text().splitlines()[0] == "updated: fact-0002 (supersedes fact-0001)"


def test_the_cli_tells_left_out_from_given(root: Path, project: Project) -> None:
    base = ["memory", "write", "--root", str(root), "--today", "2026-11-30", "--type", "convention"]
    first = run_cli(*base, "--title", "Use ruff", "--body", "One.", "--tags", "lint,style", "--confidence", "high")
    assert first.code == 0, first.err
    carried = run_cli(*base, "--title", "Use ruff", "--body", "Two.")
    assert carried.code == 0, carried.err
    assert carried.out.splitlines()[2] == (
        "Carried over from fact-0001 (left out of this write): tags lint, style; confidence high."
    )
    cleared = run_cli(*base, "--title", "Use ruff", "--body", "Three.", "--tags", "", "--confidence", "medium")
    assert cleared.code == 0, cleared.err
    assert len(cleared.out.splitlines()) == 2
    assert _fact(project, "fact-0002").tags == ("lint", "style")
    fact = _fact(project, "fact-0003")
    assert (fact.tags, fact.confidence) == ((), "medium")


async def test_the_mcp_tool_tells_left_out_from_given(root: Path, project: Project) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "foundry_tui", "mcp", "--root", str(root)],
        env={"FOUNDRY_CACHE_DIR": os.environ["FOUNDRY_CACHE_DIR"], "FOUNDRY_TODAY": "2026-11-30"},
    )
    async with Client(params) as client:
        first = {"title": "Retries back off", "body": "One.", "type": "convention", **RICH}
        assert not (await client.call_tool("memory_write", first)).is_error
        result = await client.call_tool(
            "memory_write", {"title": "Retries back off", "body": "Two.", "type": "convention"}
        )
        text = result.content[0].text  # type: ignore[union-attr]
        assert text.splitlines()[0] == "updated: fact-0002 (supersedes fact-0001)"
        assert text.splitlines()[2] == CARRIED_ALL
        result = await client.call_tool(
            "memory_write",
            {"title": "Retries back off", "body": "Three.", "type": "convention", "tags": [], "expires": ""},
        )
        text = result.content[0].text  # type: ignore[union-attr]
        assert not result.is_error, text
        assert text.splitlines()[2] == (
            "Carried over from fact-0002 (left out of this write): scope module:db; confidence high; source adr-0007."
        )
    assert _kept(_fact(project, "fact-0002")) == RICH
    assert _kept(_fact(project, "fact-0003")) == {**RICH, "tags": [], "expires": None}
