"""memory_search a page at a time: a token budget, a continuation cursor, and the cursor's
checks against whatever a caller sends back instead."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Sequence

import pytest

from foundry_tui.core.config import MAX_LIMIT
from foundry_tui.core.curation.missed import missed_searches
from foundry_tui.core.errors import InputError
from foundry_tui.core.events import record_event
from foundry_tui.core.memory.model.hits import Hit
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search.cursor import BAD_CURSOR, MAX_CURSOR_CHARS, Cursor
from foundry_tui.core.memory.search.reply import continuation_line, memory_search, render_results, search_page
from foundry_tui.core.tokens import estimate_tokens
from tests.helpers import TODAY, run_cli, write
from tests.mcp.test_mcp_raw import RawServer, running_server

QUERY = "kafka consumer"


@pytest.fixture
def many(project: Project) -> Project:
    """30 facts that all match QUERY, more than the largest limit reaches."""
    for n in range(30):
        body = f"Consumer group {n} reads the orders topic. " + "Detail. " * (n % 7)
        write(project, f"Kafka consumer number {n} commits offsets", body, tags=["kafka"] if n % 3 else [])
    return project


def _ids(page_hits: Sequence[Hit]) -> list[str]:
    return [hit.fact.id for hit in page_hits]


def test_without_budget_or_cursor_the_reply_is_the_spec_s(many: Project) -> None:
    page = search_page(many, QUERY, TODAY, limit=3)
    text, hits = memory_search(many, QUERY, TODAY, limit=3)
    assert page.text == text == render_results(hits, QUERY, 30)
    assert "cursor" not in page.text  # more facts match, but the spec's reply does not say so
    assert page.next_cursor is not None and page.offset == 0


def test_pages_within_a_budget_walk_the_hits_of_the_largest_limit(many: Project) -> None:
    best = _ids(memory_search(many, QUERY, TODAY, limit=MAX_LIMIT)[1])
    assert len(best) == MAX_LIMIT
    seen: list[str] = []
    page = search_page(many, QUERY, TODAY, max_tokens=150)
    pages = 1
    while True:
        seen += _ids(page.hits)
        assert page.hits and page.offset == len(seen) - len(page.hits)
        if len(page.hits) > 1:
            assert estimate_tokens(page.text) <= 150, page.text
        if page.next_cursor is None:
            assert "cursor" not in page.text
            break
        assert page.text.endswith("\n\n" + continuation_line(page.next_cursor))
        page = search_page(many, QUERY, TODAY, cursor=page.next_cursor)  # the budget travels in the cursor
        pages += 1
    assert seen == best  # every hit once, in rank order, as deep as the largest limit
    assert pages > 3


def test_a_budget_below_one_hit_still_moves_on_one_hit_at_a_time(many: Project) -> None:
    page = search_page(many, QUERY, TODAY, max_tokens=1)
    assert len(page.hits) == 1 and page.next_cursor is not None
    second = search_page(many, QUERY, TODAY, cursor=page.next_cursor)
    assert len(second.hits) == 1 and _ids(second.hits) != _ids(page.hits)


def test_a_cursor_keeps_the_type_and_limit_and_a_call_may_change_the_page_size(many: Project) -> None:
    first = search_page(many, QUERY, TODAY, type="convention", limit=2, max_tokens=100_000)
    assert first.next_cursor is not None
    second = search_page(many, QUERY, TODAY, cursor=first.next_cursor)
    explicit = search_page(many, QUERY, TODAY, type="convention", cursor=first.next_cursor)
    assert _ids(second.hits) == _ids(explicit.hits) and len(second.hits) == 2
    assert len(search_page(many, QUERY, TODAY, cursor=first.next_cursor, limit=5).hits) == 5
    with pytest.raises(InputError) as info:
        search_page(many, QUERY, TODAY, type="decision", cursor=first.next_cursor)
    assert str(info.value) == BAD_CURSOR


def _forged(payload: str) -> str:
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def hostile_cursors(many: Project) -> list[str]:
    good = search_page(many, QUERY, TODAY, limit=2).next_cursor
    assert good is not None
    other_query = search_page(many, "orders topic", TODAY, limit=2).next_cursor
    assert other_query is not None
    return [
        "",
        "x",
        "=",
        "not a cursor",
        "é" * 10,
        "\x00" * 8,
        good[:-1],  # cut short
        good[:-2] + ("A" if good[-2] != "A" else "B") + good[-1],  # one character changed
        good + "AAAA",
        other_query,  # another search's
        _forged("99.8.0..000000000000"),  # past any depth
        _forged("0.8.0..000000000000"),  # the first page is not a continuation
        _forged("3.8.0.fact.000000000000"),  # not a type
        _forged("3.8.0..zzzzzzzzzzzz"),
        _forged("3.8.0." + "0" * 12),
        _forged("3.99.0..000000000000"),
        _forged("3.8.99999999..000000000000"),
        _forged("-1.8.0..000000000000"),
        _forged("3.8.0..000000000000.extra"),
        base64.urlsafe_b64encode(b"\xff\xfe\x00\x01" * 4).decode().rstrip("="),  # not ASCII inside
    ]


def test_every_hostile_cursor_is_one_clear_line(many: Project) -> None:
    for cursor in hostile_cursors(many):
        with pytest.raises(InputError) as info:
            search_page(many, QUERY, TODAY, cursor=cursor)
        assert str(info.value) == BAD_CURSOR, cursor
    for size in (MAX_CURSOR_CHARS + 1, 16 * 1024 * 1024):
        with pytest.raises(InputError) as info:
            search_page(many, QUERY, TODAY, cursor="A" * size)
        assert "\n" not in str(info.value) and f"longer than {MAX_CURSOR_CHARS}" in str(info.value)


def test_a_forged_cursor_that_passes_reads_only_within_the_same_search(many: Project) -> None:
    """Nothing in a cursor is secret: one built by hand for the same search is a page the
    caller could ask for anyway, and never a read past the ranks a search holds."""
    ranker = many.ranker()
    cursor = Cursor(MAX_LIMIT - 1, 25, None, None).encode(QUERY, ranker)
    page = search_page(many, QUERY, TODAY, cursor=cursor)
    assert len(page.hits) == 1 and page.next_cursor is None
    assert _ids(page.hits) == _ids(memory_search(many, QUERY, TODAY, limit=MAX_LIMIT)[1])[-1:]


def test_a_page_past_what_is_left_says_so(many: Project) -> None:
    first = search_page(many, "orders topic", TODAY, limit=MAX_LIMIT - 1, max_tokens=1_000_000)
    assert first.next_cursor is not None
    for path in (many.root / ".foundry/memory/facts").iterdir():
        path.unlink()  # the memory changed between the pages
    page = search_page(many, "orders topic", TODAY, cursor=first.next_cursor)
    assert (page.hits, page.next_cursor) == ([], None)
    assert page.text == f'No more facts match "orders topic" past the first {MAX_LIMIT - 1}.'


def test_a_budget_out_of_range_is_refused(many: Project) -> None:
    for budget in (0, -5, 1_000_001):
        with pytest.raises(InputError, match=r"max_tokens .* is out of range"):
            search_page(many, QUERY, TODAY, max_tokens=budget)


def test_an_empty_next_page_is_no_missed_search(project: Project) -> None:
    record_event(project.layout, "memory_search", query="kafka", hits=0, offset=8)
    assert missed_searches(project, TODAY) == []
    record_event(project.layout, "memory_search", query="kafka", hits=0)
    assert [m.query for m in missed_searches(project, TODAY)] == ["kafka"]


def test_the_cli_pages_with_the_same_text(many: Project) -> None:
    root = ["--root", str(many.root), "--today", TODAY.isoformat()]
    first = run_cli(*root, "memory", "search", QUERY, "--max-tokens", "150")
    page = search_page(many, QUERY, TODAY, max_tokens=150)
    assert first.code == 0 and first.out == page.text + "\n"
    assert page.next_cursor is not None
    data = json.loads(run_cli(*root, "memory", "search", QUERY, "--cursor", page.next_cursor, "--json").out)
    following = search_page(many, QUERY, TODAY, cursor=page.next_cursor)
    assert [h["id"] for h in data["hits"]] == _ids(following.hits)
    assert (data["offset"], data["next_cursor"]) == (following.offset, following.next_cursor)
    bad = run_cli(*root, "memory", "search", QUERY, "--cursor", "garbled")
    assert bad.code == 2 and bad.err.strip().endswith(BAD_CURSOR) and len(bad.err.strip().splitlines()) == 1


@pytest.fixture
def server(many: Project) -> Iterator[RawServer]:
    yield from running_server(many.root)


def test_the_mcp_tool_answers_a_hostile_cursor_with_one_line_and_goes_on(many: Project, server: RawServer) -> None:
    for n, cursor in enumerate([*hostile_cursors(many), "A" * 100_000], start=10):
        params = {"name": "memory_search", "arguments": {"query": QUERY, "cursor": cursor}}
        answer = server.ask({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params})
        result = answer["result"]
        assert result["isError"] is True and "structuredContent" not in result, cursor
        text = result["content"][0]["text"]
        assert text.startswith("memory_search failed: cursor ") and "\n" not in text, text
    for budget in (0, 1_000_001):
        params = {"name": "memory_search", "arguments": {"query": QUERY, "max_tokens": budget}}
        answer = server.ask({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": params})
        assert answer["error"]["code"] == -32602
    params = {"name": "memory_search", "arguments": {"query": QUERY, "max_tokens": 150}}
    answer = server.ask({"jsonrpc": "2.0", "id": 100, "method": "tools/call", "params": params})
    assert answer["result"]["structuredContent"]["next_cursor"] is not None
    assert server.close()[0] == 0
