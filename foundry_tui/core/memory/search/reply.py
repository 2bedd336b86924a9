"""The memory_search reply (spec 002's text, exactly), the hint a no-hit search gets, and the
facts the prompt hook injects."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.facts import escape_controls
from foundry_tui.core.memory.model.hits import Hit
from foundry_tui.core.memory.search.rankers import Ranker, SearchedMemory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt


class RepliedMemory(SearchedMemory, Protocol):
    """What a reply asks of the memory (the Project, core/memory/project.py)."""

    def sync(self) -> object: ...

    def active_count(self, today: _dt.date) -> int: ...

    def has_terms(self, query: str, ranker: str | None = None) -> bool: ...

    def ranker_of(self, override: str | None = None) -> Ranker: ...


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


def render_hit(hit: Hit, explain: bool = False) -> str:
    """The spec's block for one hit."""
    fact = hit.fact
    # A hand-written fact's control characters are shown as escapes, never sent raw.
    lines = [
        f"### {fact.id} · {fact.type} · confidence {fact.confidence}",
        f"**{escape_controls(fact.title)}**",
        escape_controls(served_body(fact.body), keep_lines=True),
        f"_source: {escape_controls(fact.source)} · scope: {escape_controls(fact.scope)}_",
    ]
    if explain:
        lines.append(hit.explain())
    return "\n".join(lines)


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
    with `explain`, search_hint's line follows a no-hit reply."""
    _check_query(query)
    project.sync()
    hits = project.search(query, today, type=type, limit=limit, ranker=ranker)
    text = render_results(hits, query, project.active_count(today), explain)
    hint = search_hint(project, query, hits, ranker) if explain else ""
    return (f"{text}\n{hint}" if hint else text), hits


def prompt_hits(project: RepliedMemory, prompt: str, today: _dt.date, limit: int) -> list[Hit]:
    """The facts the prompt hook injects for `prompt`: the configured ranker's best hits that clear its relevance bar."""
    return project.ranker_of().prompt_hits(project, prompt, today, limit)
