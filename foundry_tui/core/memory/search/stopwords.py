"""English stop words, dropped from every query in every ranker (ADR 0024).

Agents ask questions ("which database do we use", "how should we ...") and hooks pass
whole prompts; the glue words of such sentences occur in nearly every fact, so under
the spec's substring rule they add points to everything ("the" alone scored 4.14 on a
fact about PostgreSQL). The list is short on purpose: function words, question words,
auxiliaries and the filler of requests ("please", "use"), never a word that names a
thing a fact could be about. It is applied to queries only; facts are indexed whole.
"""

from __future__ import annotations

STOP_WORDS: frozenset[str] = frozenset(
    """
    a an the and or nor but if then than so as of at by for from in into onto on off to
    up out over under with within without about above below after before again once
    between through during until while against per via

    i me my mine we us our ours you your yours he him his she her hers it its they them
    their theirs this that these those there here

    is am are was were be been being do does did doing done have has had having
    can could shall should will would may might must ought need needs

    what which who whom whose when where why how whether

    all any both each every few more most other some such no not only own same too very
    just also still yet ever even else

    please thanks thank ok okay hi hello let lets

    use uses used using get gets got make makes made
    """.split()  # noqa: SIM905 (the grouped text is the readable list)
)


# The glue of questions and requests beyond STOP_WORDS: words that say what kind of answer
# is wanted ("how long", "how many", "what is the best way", "can I ask") rather than what it
# is about ("go" and "sort" are not here: a language, an operation). Dropped by the bm25
# ranker only: the spec ranker's terms are the spec's.
QUESTION_WORDS: frozenset[str] = frozenset(
    """
    long many much often way ways good best better right fine supposed
    happen happens happened thing things stuff ask asked tell know want wants like
    really actually currently usually someone something anything somewhere kind
    """.split()  # noqa: SIM905 (the grouped text is the readable list)
)


def is_stop_word(word: str) -> bool:
    """Whether `word` (lowercase) is glue that no query should search for."""
    return word in STOP_WORDS
