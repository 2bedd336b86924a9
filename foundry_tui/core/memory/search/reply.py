"""The memory_search reply (spec 002's text, exactly), the hint a no-hit search gets, and the
facts the prompt hook injects."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.facts import escape_controls
from foundry_tui.core.memory.model.hits import Hit
from foundry_tui.core.memory.search.rankers import Ranker, SearchedMemory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt

    from foundry_tui.core.config import Config
    from foundry_tui.core.paths import Layout


class RepliedMemory(SearchedMemory, Protocol):
    """What a reply asks of the memory (the Project, core/memory/project.py)."""

    def sync(self) -> object: ...

    def active_count(self, today: _dt.date) -> int: ...

    def has_terms(self, query: str, ranker: str | None = None) -> bool: ...

    def ranker_of(self, override: str | None = None) -> Ranker: ...

    def ranker(self, override: str | None = None) -> str: ...

    def config(self) -> Config: ...

    @property
    def layout(self) -> Layout: ...


# What one hit may carry of its body in a reply (memory_search, the prompt hook): a body
# within the 120-word limit is under a thousand characters; a hand-written one far over it
# must not flood the agent's context.
MAX_SERVED_BODY_CHARS = 2000


def served_body(body: str) -> str:
    """The body as a reply carries it: cut at MAX_SERVED_BODY_CHARS, saying so."""
    if len(body) <= MAX_SERVED_BODY_CHARS:
        return body
    rest = len(body) - MAX_SERVED_BODY_CHARS
    from foundry_tui.core.memory.model.vocabulary import MAX_BODY_WORDS

    return (
        f"{body[:MAX_SERVED_BODY_CHARS]}… [{rest} more characters not shown: this fact is far over the "
        f"{MAX_BODY_WORDS}-word limit; split it]"
    )


def render_hit(hit: Hit, explain: bool = False, code: str | None = None) -> str:
    """The spec's block for one hit; `code`, a stale fact's refs (issue 30), one line more."""
    fact = hit.fact
    # A hand-written fact's control characters are shown as escapes, never sent raw.
    lines = [
        f"### {fact.id} · {fact.type} · confidence {fact.confidence}",
        f"**{escape_controls(fact.title)}**",
        escape_controls(served_body(fact.body), keep_lines=True),
        f"_source: {escape_controls(fact.source)} · scope: {escape_controls(fact.scope)}_",
    ]
    if code:
        lines.append(f"_code: {escape_controls(code)}; check it still holds, or supersede it_")
    if explain:
        lines.append(hit.explain())
    return "\n".join(lines)


def stale_code(layout: Layout, hits: Sequence[Hit]) -> dict[str, str]:
    """fact id -> its stale refs, e.g. `changed payments/webhook.py`, for the hits whose cited
    code changed, moved or is gone; git is read only when a hit has refs (core/code_refs.py)."""
    if not any(hit.fact.extras and "refs" in hit.fact.extras for hit in hits):
        return {}
    from foundry_tui.core.code_refs import STALE_STATES, refs_of, verify

    verification = verify(layout, [(hit.fact.id, refs_of(hit.fact.extras)) for hit in hits])
    return {
        fid: ", ".join(s.line() for s in check.refs if s.state in STALE_STATES)
        for fid, check in verification.checks.items()
        if check.state in STALE_STATES
    }


NO_TERMS_HINT = (
    'Every word of the query is too short or too common to search for (such as "the", "which", "how"): '
    "search with the words that name what you need, such as a tool, a service or a topic."
)


# The no-hit reply quotes the query (spec 002: No stored fact matches "<query>". ...): its first
# MAX_QUOTED_QUERY_CHARS characters, then "…" only when it is longer, so a pasted log of 150,000
# words is not echoed back whole. A query within the bound is quoted exactly as the spec says.
MAX_QUOTED_QUERY_CHARS = 200


def quoted_query(query: str) -> str:
    """The query as a reply quotes it: whole up to MAX_QUOTED_QUERY_CHARS, else cut there and "…" added."""
    return query if len(query) <= MAX_QUOTED_QUERY_CHARS else query[:MAX_QUOTED_QUERY_CHARS] + "…"


def no_hit_reply(query: str, active_count: int) -> str:
    """Spec 002's reply when nothing matches, exactly."""
    return f'No stored fact matches "{quoted_query(query)}". Memory holds {active_count} active facts.'


def render_results(hits: Sequence[Hit], query: str, active_count: int, explain: bool = False) -> str:
    """The memory_search reply: one block per hit, separated by a blank line; with no hits, the spec's reply."""
    if not hits:
        return no_hit_reply(query, active_count)
    return "\n\n".join(render_hit(hit, explain) for hit in hits)


def search_hint(project: RepliedMemory, query: str, hits: Sequence[Hit], ranker: str | None = None) -> str:
    """NO_TERMS_HINT when nothing matched because every word of `query` was dropped, else "".
    Never part of the reply (the spec's text is exact): the CLI prints it on stderr, --explain after the reply."""
    return "" if hits or project.has_terms(query, ranker) else NO_TERMS_HINT


def _check_query(query: str) -> str:
    if not query.strip():
        raise InputError("query is empty: give keywords describing what you need to know")
    return query


def memory_search(
    project: RepliedMemory,
    query: str,
    today: _dt.date,
    *,
    type: str | None = None,
    limit: int | None = None,
    explain: bool = False,
    ranker: str | None = None,
) -> tuple[str, list[Hit]]:
    """The memory_search reply text and its hits (ranked by `ranker`, else the configured one);
    with `explain`, search_hint's line follows a no-hit reply. The first page of search_page."""
    page = search_page(project, query, today, type=type, limit=limit, explain=explain, ranker=ranker)
    return page.text, page.hits


class SearchPage:
    """One page of a search: the reply text, its hits, the rank its first hit has (0 on the
    first page), the ranker's name, and the cursor of the next page (None when there is none)."""

    __slots__ = ("hits", "next_cursor", "offset", "ranker", "text")

    def __init__(self, text: str, hits: list[Hit], offset: int, ranker: str, next_cursor: str | None) -> None:
        self.text = text
        self.hits = hits
        self.offset = offset
        self.ranker = ranker
        self.next_cursor = next_cursor


def continuation_line(cursor: str) -> str:
    """The line a page asked for with a budget or a cursor ends with when more hits follow."""
    return f'More facts match: for the next page, search again with cursor "{cursor}".'


def past_the_end_reply(query: str, offset: int) -> str:
    """A cursor's page that finds nothing left (the memory changed since the page before)."""
    return f'No more facts match "{quoted_query(query)}" past the first {offset}.'


def search_page(
    project: RepliedMemory,
    query: str,
    today: _dt.date,
    *,
    type: str | None = None,
    limit: int | None = None,
    explain: bool = False,
    ranker: str | None = None,
    max_tokens: int | None = None,
    cursor: str | None = None,
) -> SearchPage:
    """A page of memory_search (the MCP tool and `foundry memory search` both): at most `limit`
    hits (default memoryRetrieval.maxFacts), and with `max_tokens` only as many as keep the
    reply within that many tokens (core/tokens.py), but always one. `cursor` (a page's
    next_cursor, search/cursor.py) starts where that page ended, with its type, limit and
    budget unless the call gives its own. Pages reach MAX_DEPTH hits deep, as far as the
    largest limit does. Without a budget or a cursor the text is spec 002's reply exactly,
    and never says a next page exists (the structured reply does)."""
    from foundry_tui.core.memory.search.cursor import MAX_DEPTH, MAX_TOKENS, Cursor, decode_cursor

    _check_query(query)
    if max_tokens is not None and not 1 <= max_tokens <= MAX_TOKENS:
        raise InputError(f"max_tokens {max_tokens} is out of range: use a whole number from 1 to {MAX_TOKENS}")
    ranker_name = project.ranker(ranker)
    offset = 0
    if cursor is not None:
        at = decode_cursor(cursor, query, ranker_name, type)
        offset, type = at.offset, at.type
        limit = at.limit if limit is None else limit
        max_tokens = at.max_tokens if max_tokens is None else max_tokens
    page_size = project.config().max_facts if limit is None else limit
    if not 1 <= page_size <= MAX_DEPTH:
        raise InputError(f"limit {page_size} is out of range: use a whole number from 1 to {MAX_DEPTH}")
    paging = cursor is not None or max_tokens is not None
    project.sync()
    # One hit past the page says whether another page exists; rankings are a total order, so
    # a deeper search starts with the same hits as a shallower one.
    depth = min(offset + page_size + 1, MAX_DEPTH)
    found = project.search(query, today, type=type, limit=depth, ranker=ranker_name)
    codes = stale_code(project.layout, found[offset : offset + page_size])
    blocks = [render_hit(hit, explain, codes.get(hit.fact.id)) for hit in found[offset : offset + page_size]]

    def next_cursor(shown: int) -> str | None:
        end = offset + shown
        return Cursor(end, page_size, max_tokens, type).encode(query, ranker_name) if end < len(found) else None

    shown = len(blocks)
    if max_tokens is not None:
        shown = _within_budget(blocks, max_tokens, next_cursor)
    following = next_cursor(shown)
    hits = found[offset : offset + shown]
    if hits:
        text = "\n\n".join(blocks[:shown])
        if paging and following is not None:
            text += "\n\n" + continuation_line(following)
    elif offset:
        text = past_the_end_reply(query, offset)
    else:
        text = no_hit_reply(query, project.active_count(today))
        hint = search_hint(project, query, hits, ranker_name) if explain else ""
        text = f"{text}\n{hint}" if hint else text
    return SearchPage(text, hits, offset, ranker_name, following)


def _within_budget(blocks: list[str], max_tokens: int, next_cursor: Callable[[int], str | None]) -> int:
    """How many of `blocks` a page shows within `max_tokens`, its continuation line counted:
    the most that fit, and at least one (a page that showed none would never move on)."""
    from foundry_tui.core.tokens import tokens_for_chars

    chars, fits = 0, 1
    for count, block in enumerate(blocks, start=1):
        chars += len(block) + (2 if count > 1 else 0)
        following = next_cursor(count)
        line = 2 + len(continuation_line(following)) if following is not None else 0
        if tokens_for_chars(chars + line) > max_tokens:
            break
        fits = count
    return fits


def prompt_hits(project: RepliedMemory, prompt: str, today: _dt.date, limit: int) -> list[Hit]:
    """The facts the prompt hook injects for `prompt`: the configured ranker's best hits that clear its relevance bar."""
    return project.ranker_of().prompt_hits(project, prompt, today, limit)


PROMPT_FACTS_HEADING = "Foundry memory: facts that may bear on this prompt."


def prompt_facts_text(project: RepliedMemory, prompt: str, today: _dt.date, limit: int) -> str:
    """What the prompt hook injects for `prompt` ("" for nothing), the memory synced first: one
    function whether the hook searched itself or asked the warm server (mcp/local_server.py),
    so that both answers are the same bytes."""
    project.sync()
    hits = prompt_hits(project, prompt, today, limit)
    if not hits:
        return ""
    return f"{PROMPT_FACTS_HEADING}\n\n{render_results(hits, prompt, 0)}"
