"""Whether a question shares a content word with its target fact: the check behind the
`shares_word` flag of the held-out questions (benchmarks/data/retrieval_questions.json,
"heldout6"). Not a ranker and not the product's tokenizer: its own stop words and a crude,
deliberately eager stemmer, so that "no shared word" is a strict claim.

Two words are shared when their stems are equal, or when both stems have at least five
letters and their first five letters are equal ("configure" / "configuration").
A fact's words are those of its title, its tags (split at hyphens) and its body.

    python tests/data/shared_words.py heldout6     # prints each question's flag and the words it shares
"""

from __future__ import annotations

import re

STOP_WORDS = frozenset(
    str.split(
        """a about above after again against all allowed also am an and any are aren as at be because been
        before being below between both but by can cannot could did do does doing don done down during each
        either else ever every few for from further get gets go goes going got had has have having he her here
        how i if in into is isn it its it's itself just let like made make may me might more most must my need
        needs new no nor not now of off ok okay on once one only or other our ours out over own per please
        same shall she should so some such than that the their them then there these they this those through
        to too under until up upon us use used uses using very via was way we were what when where whether
        which while who whom why will with within without would yes yet you your i'm we're i've what's
        where's how's who's it's let's there's that's isn't don't doesn't can't won't shouldn't
        thing things something someone anything everything way ways kind sort lot want wants try tell know
        right still really much many well back first last next"""
    )
)
SUFFIXES = (
    "ational",
    "ations",
    "ation",
    "ments",
    "ment",
    "ings",
    "ing",
    "edly",
    "ed",
    "ies",
    "ers",
    "er",
    "es",
    "ly",
    "s",
)
WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def stem(word: str) -> str:
    """`word` without its possessive and one common suffix (when at least three letters remain)."""
    word = word.removesuffix("'s")
    for suffix in SUFFIXES:
        if suffix == "es" and not word.endswith(("ses", "xes", "zes", "ches", "shes")):
            continue  # "pages" is "page" + "s", "boxes" is "box" + "es"
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def content_stems(text: str) -> set[str]:
    """The stems of `text`'s content words: lower-cased, split at anything but letters and
    digits, stop words and single characters left out."""
    words = WORD_RE.findall(text.lower().replace("_", " ").replace("-", " "))
    return {stem(w) for w in words if len(w) > 1 and w not in STOP_WORDS}


def _same(a: str, b: str) -> bool:
    return a == b or (len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5])


def shared_words(question: str, fact_text: str) -> list[str]:
    """The stems of `question` that match a stem of `fact_text`, sorted."""
    facts = content_stems(fact_text)
    return sorted(q for q in content_stems(question) if any(_same(q, f) for f in facts))


def fact_text(title: str, tags: tuple[str, ...], body: str) -> str:
    return "\n".join((title, " ".join(tags), body))


if __name__ == "__main__":
    import importlib.util
    import json
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("retrieval_targets", repo / "benchmarks" / "retrieval_targets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    texts = {key: fact_text(title, tags, body) for key, _t, _c, title, tags, body in module.TARGETS}
    questions = json.loads((repo / "benchmarks/data/retrieval_questions.json").read_text())[sys.argv[1]]
    free = 0
    for q in questions:
        words = sorted({w for key in q["targets"] for w in shared_words(q["question"], texts[key])})
        free += not words
        print(f"{'shares' if words else 'free  '} {q['question']!r} {words}")
    print(f"{free} of {len(questions)} share no content word")
