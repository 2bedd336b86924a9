"""Contradictions: two active facts about one subject that disagree, where neither
supersedes the other ("PostgreSQL 15 is the production database" / "PostgreSQL 16 is the
only supported database"; "Deploys need two approvals" / "Deploys need one approval").
Worse than duplicates: an agent gets both and picks one.

Read from the titles (a fact's title states its claim). Two titles are about one subject
when they open with the same word (the subject comes first: "Checkout p95..." and "Search
p95..." are two subjects) and say mostly the same words once the parts that can disagree
are set aside. They disagree when those parts differ: their numbers or versions (each
states one the other does not), their names or codes (each names a tool, product or
place the other does not: Postmark / Amazon SES), or their polarity (one is negated:
"...are scanned" / "...are not scanned"). A pair whose numbers AND names both differ is
read as two subjects (iOS 16 / Android 10), not a disagreement.

Where the facts have sentence vectors (core/curation/meaning.py), pairs near in meaning are
candidates too, whatever words they open with: a pair at meaning.CONFLICT_SIMILARITY or more is
taken as one subject, and contradicts when the same rules find a number, a name or a negation
that differs (`meaning_disagreement`: the rules without the shared-subject and shared-words
tests, which the similarity stands in for). Its similarity is shown beside the differences.

Nothing is changed here; resolving (one stands, the other is superseded or retired) goes
through the gate: the change is built by `resolve_change` (core/gate/changes.py).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from foundry_tui.core.curation import claims
from foundry_tui.core.curation.neardup import surface, terms
from foundry_tui.core.memory.model.facts import Fact, id_order

if TYPE_CHECKING:
    from foundry_tui.core.curation.meaning import FactVectors
    from foundry_tui.core.memory.project import Project

FRAME_SLACK = 1  # words either frame may have that the other lacks when their numbers differ
SAME_WORDS = 0.5  # the smaller share of either title's other words the other title says
ALL_PAIRS_UP_TO = 60  # a subject with this many facts or fewer: compare all its pairs
_WORD = re.compile(r"[A-Za-z0-9]+(?:[.\-_/'][A-Za-z0-9]+)*")


class ClaimShape:
    """A title split into what it is about (its words but the parts that can disagree, in
    order) and those parts: numbers, names and codes, polarity."""

    __slots__ = ("codes", "fact", "frame", "frame_set", "names", "numbers", "polarity", "said", "subject")

    def __init__(self, fact: Fact) -> None:
        self.fact = fact
        title = fact.title
        self.numbers = claims.numbers(title)
        self.codes = claims.codes(title)
        self.names = frozenset(_term(n) for n in claims.names(title))
        self.polarity = claims.polarity_of(title)
        parts = self.names | self.codes | set(self.numbers)
        words = terms(title)
        self.frame = [t for t in words if t not in parts and not _is_number(t) and t not in _TURNING_TERMS]
        # The subject comes first, after a quantifier or a negation ("All services...", "Never deploy...").
        self.subject = next((t for t in words if not _is_number(t) and t not in _NOT_SUBJECTS), "")
        self.frame_set = frozenset(self.frame)
        self.said = self.frame_set | self.names | self.codes


def _term(word: str) -> str:
    found = terms(word)
    return found[0] if found else word.lower()


def _is_number(term: str) -> bool:
    return term.replace(".", "", 1).isdigit()


_NEGATIVE_TERMS = frozenset(_term(w) for w in claims.NEGATIONS) | frozenset(_term(w) for w in claims.OPPOSITES)
# A claim's frame leaves out the words that turn it around, and their opposites (include/exclude).
_TURNING_TERMS = _NEGATIVE_TERMS | frozenset(_term(w) for w in claims.OPPOSITES.values())
# Words a title may open with before its subject: quantifiers and the words that turn it around.
_NOT_SUBJECTS = _TURNING_TERMS | frozenset(_term(w) for w in ("all", "any", "both", "most", "some", "many", "few"))


class Conflict:
    """Two active facts that disagree, and where: [(what, in a, in b)], e.g. ("numbers", "15", "16")."""

    __slots__ = ("a", "b", "parts", "similarity")

    def __init__(self, a: Fact, b: Fact, parts: list[tuple[str, str, str]], similarity: float | None = None) -> None:
        self.a, self.b = a, b
        self.parts = parts
        self.similarity = similarity  # the cosine of the facts' sentence vectors, when both have one

    @property
    def ids(self) -> tuple[str, str]:
        return self.a.id, self.b.id

    def differs(self) -> str:
        """The differing parts in one line: numbers 15 vs 16; names postmark vs amazon/ses."""
        return "; ".join(f"{what} {mine or '(none)'} vs {theirs or '(none)'}" for what, mine, theirs in self.parts)

    def about(self) -> str:
        """differs(), then the similarity when the facts have vectors: numbers 15 vs 16 (similarity 0.91)."""
        if self.similarity is None:
            return self.differs()
        return f"{self.differs()} (similarity {self.similarity:.2f})"

    def highlights(self, fact: Fact) -> list[str]:
        """The words of `fact`'s title that carry the disagreement (those `parts` names), to highlight."""
        mine = self.a if fact.id == self.a.id else self.b
        side = 1 if mine is self.a else 2
        kinds = {part[0]: part[side] for part in self.parts}
        numbers = set(kinds.get("numbers", "").split("/")) - {""}
        named = {_term(n) for n in re.split(r"[/ ]", kinds.get("names", "") + " " + kinds.get("words", "")) if n}
        out = []
        for word in _WORD.findall(mine.title):
            lower = word.lower()
            negation = "polarity" in kinds and (
                lower in claims.NEGATIONS or _term(word) in _NEGATIVE_TERMS or lower.endswith("n't")
            )
            if (claims.numbers(word) & numbers) or _term(word) in named or negation:
                out.append(word)
        return out

    def to_dict(self) -> dict[str, object]:
        return {
            "a": self.a.id,
            "b": self.b.id,
            "titles": [self.a.title, self.b.title],
            "differs": [{"kind": what, "a": mine, "b": theirs} for what, mine, theirs in self.parts],
        } | ({} if self.similarity is None else {"similarity": round(self.similarity, 3)})


def disagreement(a: ClaimShape, b: ClaimShape) -> list[tuple[str, str, str]]:
    """Where two titles about one subject disagree ([] when they are two subjects or agree)."""
    a_frame, b_frame = a.frame_set, b.frame_set
    if not a_frame or not b_frame or a.subject != b.subject:
        return []
    shared = len(a_frame & b_frame)
    if shared < SAME_WORDS * len(a_frame) or shared < SAME_WORDS * len(b_frame):
        return []
    parts: list[tuple[str, str, str]] = []
    # Numbers disagree about one thing only when the rest says the same: at most one word of
    # either frame is not in the other ("within 4 hours on weekdays" / "24 hours at weekends": two).
    same_rest = len(a_frame - b_frame) <= FRAME_SLACK and len(b_frame - a_frame) <= FRAME_SLACK
    numbers_differ = bool(a.numbers - b.numbers) and bool(b.numbers - a.numbers) and same_rest
    a_names, b_names = (a.names | a.codes) - b_frame, (b.names | b.codes) - a_frame
    names_differ = bool(a_names - b_names) and bool(b_names - a_names)
    if numbers_differ and names_differ:
        return []  # iOS 16 / Android 10: two subjects, each with its own number
    if numbers_differ:
        parts.append(("numbers", "/".join(sorted(a.numbers - b.numbers)), "/".join(sorted(b.numbers - a.numbers))))
    if names_differ:
        mine = "/".join(sorted(surface(n) for n in a_names - b_names))
        theirs = "/".join(sorted(surface(n) for n in b_names - a_names))
        parts.append(("names", mine, theirs))
    a_said, b_said = a.said, b.said
    if not parts and len(a_said - b_said) == 1 and len(b_said - a_said) == 1 and a.polarity == b.polarity:
        # One word swapped for another, the rest the same: managed with Poetry / with uv.
        parts.append(("words", surface(next(iter(a_said - b_said))), surface(next(iter(b_said - a_said)))))
    if a.polarity != b.polarity and (a_frame <= b_frame or b_frame <= a_frame):  # else two claims, one negated
        parts.append(
            ("polarity", "negated" if a.polarity < 0 else "affirmed", "negated" if b.polarity < 0 else "affirmed")
        )
    return parts


def meaning_disagreement(a: ClaimShape, b: ClaimShape) -> list[tuple[str, str, str]]:
    """Where two titles near in meaning disagree: `disagreement`'s parts without its tests of
    one subject word and shared words (the similarity stands for them): numbers each states
    that the other does not, names or codes each names that the other does not say, one title
    negated; numbers AND names both differing are still two subjects."""
    if not a.frame_set or not b.frame_set:
        return []
    parts: list[tuple[str, str, str]] = []
    numbers_differ = bool(a.numbers - b.numbers) and bool(b.numbers - a.numbers)
    a_names, b_names = (a.names | a.codes) - b.frame_set, (b.names | b.codes) - a.frame_set
    names_differ = bool(a_names - b_names) and bool(b_names - a_names)
    if numbers_differ and names_differ:
        return []
    if numbers_differ:
        parts.append(("numbers", "/".join(sorted(a.numbers - b.numbers)), "/".join(sorted(b.numbers - a.numbers))))
    if names_differ:
        mine = "/".join(sorted(surface(n) for n in a_names - b_names))
        theirs = "/".join(sorted(surface(n) for n in b_names - a_names))
        parts.append(("names", mine, theirs))
    if a.polarity != b.polarity:
        parts.append(
            ("polarity", "negated" if a.polarity < 0 else "affirmed", "negated" if b.polarity < 0 else "affirmed")
        )
    return parts


def contradicts(a: ClaimShape, b: ClaimShape, similarity: float | None) -> list[tuple[str, str, str]]:
    """The parts two facts disagree in: by their words (`disagreement`), else, when their vectors'
    cosine is meaning.CONFLICT_SIMILARITY or more, by `meaning_disagreement`."""
    parts = disagreement(a, b)
    if parts or similarity is None:
        return parts
    from foundry_tui.core.curation import meaning

    if not meaning.CONTRADICTIONS_BY_MEANING:
        return []
    return meaning_disagreement(a, b) if similarity >= meaning.CONFLICT_SIMILARITY else []


def find_conflicts_in(facts: Sequence[Fact], meaning: FactVectors | None = None) -> list[Conflict]:
    """Every pair of `facts` (taken as the active ones) that disagree about one subject.

    Pairs are proposed by their subject word; within a large group, a fact meets only the
    facts holding one of its n//2 + 1 rarest frame words: a title sharing at least half of
    a frame's n words holds one of any n//2 + 1 of them, so nothing that can pass is skipped.
    With `meaning` (the facts' vectors), each fact's nearest neighbours by meaning at
    meaning.CONFLICT_SIMILARITY or more are proposed too (`contradicts`)."""
    by_subject: dict[str, list[ClaimShape]] = defaultdict(list)
    for fact in facts:
        shape = ClaimShape(fact)
        if shape.subject:
            by_subject[shape.subject].append(shape)
    df: dict[str, int] = defaultdict(int)
    for shapes in by_subject.values():
        for shape in shapes:
            for word in set(shape.frame):
                df[word] += 1
    found = []
    for shapes in by_subject.values():
        shapes.sort(key=lambda s: id_order(s.fact.id))
        for a, b in _pairs(shapes, df):
            if a.fact.supersedes == b.fact.id or b.fact.supersedes == a.fact.id:
                continue
            parts = disagreement(a, b)
            if parts:
                similarity = meaning.similarity(a.fact.id, b.fact.id) if meaning is not None else None
                found.append(Conflict(a.fact, b.fact, parts, similarity))
    if meaning is not None and _meaning_proposes():
        found += _by_meaning(facts, meaning, {c.ids for c in found})
    found.sort(key=lambda c: (id_order(c.a.id), id_order(c.b.id)))
    return found


def _meaning_proposes() -> bool:
    """Whether pairs near in meaning are proposed as contradictions (meaning.CONTRADICTIONS_BY_MEANING)."""
    from foundry_tui.core.curation import meaning

    return meaning.CONTRADICTIONS_BY_MEANING


def _by_meaning(facts: Sequence[Fact], meaning: FactVectors, seen: set[tuple[str, str]]) -> list[Conflict]:
    """The pairs near in meaning (each fact's meaning.NEIGHBOURS nearest) that the words did not find."""
    from foundry_tui.core.curation.meaning import CONFLICT_SIMILARITY

    by_id = {fact.id: fact for fact in facts}
    shapes: dict[str, ClaimShape] = {}
    found = []
    for (a, b), similarity in meaning.neighbours(CONFLICT_SIMILARITY).items():
        if (a, b) in seen or a not in by_id or b not in by_id:
            continue
        fa, fb = by_id[a], by_id[b]
        if fa.supersedes == b or fb.supersedes == a:
            continue
        sa = shapes.get(a) or shapes.setdefault(a, ClaimShape(fa))
        sb = shapes.get(b) or shapes.setdefault(b, ClaimShape(fb))
        parts = meaning_disagreement(sa, sb)
        if parts:
            found.append(Conflict(fa, fb, parts, similarity))
    return found


def _pairs(shapes: list[ClaimShape], df: dict[str, int]) -> Iterator[tuple[ClaimShape, ClaimShape]]:
    if len(shapes) <= ALL_PAIRS_UP_TO:
        for i, a in enumerate(shapes):
            for b in shapes[i + 1 :]:
                yield a, b
        return
    postings: dict[str, list[int]] = defaultdict(list)
    for position, shape in enumerate(shapes):
        for word in set(shape.frame):
            postings[word].append(position)
    pairs: set[tuple[int, int]] = set()
    for position, shape in enumerate(shapes):
        words = sorted(set(shape.frame), key=lambda w: (df[w], w))
        for word in words[: len(words) // 2 + 1]:
            pairs.update((position, other) for other in postings[word] if other > position)
    for i, j in sorted(pairs):
        yield shapes[i], shapes[j]


class ConflictReport:
    """`foundry memory conflicts`: the contradicting pairs among the active facts."""

    def __init__(self, conflicts: list[Conflict]) -> None:
        self.conflicts = conflicts

    def text(self) -> str:
        lines = ["Contradictions among active facts (one subject, claims that disagree; nothing is changed):", ""]
        if not self.conflicts:
            lines.append("  none")
        for conflict in self.conflicts:
            lines.append(f"  {conflict.a.id} vs {conflict.b.id}: {conflict.about()}")
            for fact in (conflict.a, conflict.b):
                lines.append(f"    {fact.id} · {fact.type} · {fact.title}")
        if self.conflicts:
            lines += ["", "Keep one: the curator's Contradictions tab (F6), or `foundry memory retire ID` the other."]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        return {"conflicts": [c.to_dict() for c in self.conflicts]}


def find_conflicts(project: Project, today: _dt.date) -> ConflictReport:
    """The contradicting pairs among the project's active facts."""
    project.sync()
    active = project.active_facts(today)
    return ConflictReport(find_conflicts_in(active, project_meaning(project, active)))


def project_meaning(project: Project, active: Sequence[Fact]) -> FactVectors | None:
    """The vectors the derived cache holds for `active` (None when the model is off or none has one)."""
    if not project.semantic_enabled():
        return None
    from foundry_tui.core.curation.meaning import project_vectors

    return project_vectors(project, active)


def resolve_steps(keep: Fact, other: Fact, how: str, facts_dir: str) -> list[str]:
    """What resolving will change on disk, in words, for the confirmation."""
    if how == "supersede":
        return [
            f"{facts_dir}/fact-NNNN.md: a new fact (the next free id) stating {keep.id}'s claim: {keep.title}",
            f"{facts_dir}/{other.id}.md: unchanged, inactive (superseded by the new fact)",
            f"{facts_dir}/{keep.id}.md: unchanged, inactive (restated by the new fact)",
            "INDEX.md is rebuilt; no file is deleted",
        ]
    return [
        f"{facts_dir}/{other.id}.md: expires is set to yesterday (retired): {other.title}",
        f"{facts_dir}/{keep.id}.md: unchanged, stays active",
        "INDEX.md is rebuilt; no file is deleted",
    ]


def conflict_lines(conflicts: list[Conflict]) -> Iterator[str]:
    """One line per contradiction, for the doctor's warning."""
    for conflict in conflicts:
        yield (
            f"{conflict.a.id} and {conflict.b.id} disagree ({conflict.about()}): keep one in the curator's "
            f"Contradictions tab or `foundry memory retire` the other"
        )
