"""The prompt hook's relevance bar, per ranker (ADR 0025)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from foundry_tui.core.memory.model.hits import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt

    from foundry_tui.core.memory.project import Project

# What the prompt hook injects, per ranker (chosen on the tuning prompts and questions of
# benchmarks/data/, ADR 0025): among the ranker's best
# PROMPT_CANDIDATES hits, in the ranker's order, the first `limit` that are relevant.
# spec: a hit scoring at least PROMPT_MIN_SCORE whose terms carry at least PROMPT_MIN_SHARE of
# the prompt's rarity (the idf-weighted share of the prompt's terms it holds, so a fact that
# matches only the prompt's common words, however often, stays out); bm25: a hit whose BM25
# sum is at least PROMPT_MIN_COVERAGE of the most the prompt's words could score (raw scores
# grow with the size of the memory; both fractions do not). When no hit clears that bar, the
# hits whose tags hold PROMPT_TAG_TERMS of the prompt's words, each in at most
# PROMPT_TAG_MAX_SHARE of the active facts, are injected instead: words the memory has never
# seen weigh most in both fractions and may argue for silence, but two of one fact's tags named
# in a prompt say what it is about (issue 28, chosen on the tuning sets and '*_tags_tuning' of
# benchmarks/data/hook_prompts.json; a fallback, so a prompt that already finds its fact keeps it first).
PROMPT_CANDIDATES = 25
PROMPT_MIN_SCORE = 2.0
PROMPT_MIN_SHARE = 0.45
PROMPT_MIN_COVERAGE = 0.15
PROMPT_TAG_TERMS = 2
PROMPT_TAG_MAX_SHARE = 0.15
PROMPT_TAG_MIN_FACTS = 2


def rarity_share(hit: Hit, idf: Mapping[str, float]) -> float:
    """The share of the query's rarity that `hit` holds: the idf of the terms it matches over
    the idf of every term of the query (`idf`: term -> idf)."""
    total = sum(idf.values())
    return sum(idf.get(m.term, 0.0) for m in hit.matches) / total if total else 0.0


def tag_terms(hit: Hit) -> list[str]:
    """The distinct words of the query that are words of `hit`'s tags, as the ranker that made
    it matches words (`Hit.tag_terms`)."""
    return hit.tag_terms()


def tagged(project: Project, hits: Sequence[Hit], today: _dt.date) -> list[Hit]:
    """The hits (in their order) whose tags hold at least PROMPT_TAG_TERMS of the query's words,
    each in at most PROMPT_TAG_MAX_SHARE of the active facts (or PROMPT_TAG_MIN_FACTS of them,
    for a small memory): "second" and "file" name no subject, "postgres" and "migrations" do."""
    candidates = [(h, terms) for h in hits if len(terms := tag_terms(h)) >= PROMPT_TAG_TERMS]
    if not candidates:
        return []
    count, frequency = project.term_frequency(sorted({t for _h, terms in candidates for t in terms}), today)
    most = max(PROMPT_TAG_MIN_FACTS, PROMPT_TAG_MAX_SHARE * count)
    return [h for h, terms in candidates if sum(frequency[t] <= most for t in terms) >= PROMPT_TAG_TERMS]
