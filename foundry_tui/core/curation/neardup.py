"""Near-duplicate facts: pairs of active facts that likely state the same claim in
different words — the gap the spec names, which title-only dedup cannot see.

Offline and deterministic. Each fact becomes a sparse TF-IDF vector of normalised
words (stop words dropped, simple plural/tense endings folded, a small table of
common synonyms), with title words weighted up; a pair's score is the cosine of its
vectors blended with the overlap of the titles' character trigrams (which catches
reordering and inflection), plus a little for the same type. Candidates come from
an inverted index over each fact's rarest words, so a scan does not compare all pairs.
Pairs that chain are grouped (A~B, B~C: one group). Nothing is merged here.

Where the facts have sentence vectors (core/curation/meaning.py), a pair is also a candidate when
its vectors' cosine reaches meaning.DUPE_SIMILARITY and the difference rules find nothing that
tells the claims apart (`MEANING_VETO`): the same claim reworded, in words the other does not
use. Those pairs come from each fact's nearest neighbours by meaning, not from shared words.
"""

from __future__ import annotations

import bisect
import itertools
import math
import operator
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, KeysView, Sequence
from typing import TYPE_CHECKING

from foundry_tui.core.collector_hold import held
from foundry_tui.core.config import DEFAULT_DUPE_THRESHOLD
from foundry_tui.core.curation import claims
from foundry_tui.core.memory.model.facts import Fact, id_order

if TYPE_CHECKING:
    import datetime as _dt

    from foundry_tui.core.curation.meaning import FactVectors
    from foundry_tui.core.memory.project import Project

# Tags say which topic a fact is about, not what it claims: they propose candidates and count at
# half credit in the cover, but carry no weight in the cosine (shared tags are no shared claim).
TITLE_WEIGHT, TAG_WEIGHT = 2.0, 0.0  # a body word weighs 1 per occurrence
# The score is a logistic model over the pair's features; its weights were fitted on the tuning
# part of tests/data/neardup_labelled.json (benchmarks/bench_neardup.py reports the held-out part).
BIAS, W_COVER_MIN, W_COVER_MAX, W_COSINE, W_TITLES = -2.09, 1.52, 2.16, 2.36, 0.68
# Titles stating different numbers or names (or a number the other contradicts) never marked a
# duplicate in the tuning part: such a difference all but vetoes; a number on one side only does not.
AGAINST = {"numbers": -8.0, "names": -8.0, "opposites": -8.0, "one-sided number": -1.55, "polarity": 0.0}
WITH_POLARITY = False
# The differences that keep a pair similar in meaning from being a near-duplicate by meaning alone
# (chosen with meaning.DUPE_SIMILARITY on the tuning sets: a number on one side only counts too).
MEANING_VETO = frozenset(("numbers", "names", "opposites", "one-sided number"))
BODY_CREDIT = 0.5
SLACK = 1e-9  # how far a faster sum of a pair's signals may stray from signals' (far above rounding)
FLOOR = -6.0  # below this no difference can matter (the score stays under 0.01)
CANDIDATE_TERMS = 8  # each fact's rarest words that propose candidates
ALL_PAIRS_UP_TO = 400  # below this many facts, simply score every pair
MAX_POSTING, MAX_POSTING_SHARE = 200, 0.002  # a rare word is in at most this many facts (or this share)

_WORD = re.compile(r"[a-z]+|[0-9]+(?:\.[0-9]+)*")  # uuidv7 → uuid, 7: letters and digits apart
# ...but for the numeronyms people write as words (k8s, i18n), spelled out before the split.
_NUMERONYMS = frozenset(("k8s", "i18n", "l10n", "a11y", "o11y", "2fa", "e2e"))
_NUMERONYM = re.compile(r"\b(?:" + "|".join(_NUMERONYMS) + r")\b")
_NUMERONYM_HINT = re.compile("8s|18n|10n|11y|2fa|2e")  # a text without any of these holds no numeronym


def _words(text: str) -> list[str]:
    """The raw words of `text`, lowercased (numeronyms kept whole)."""
    return _lowered_words(text.lower())


def _lowered_words(lowered: str) -> list[str]:
    """The raw words of an already lowercased text (numeronyms kept whole)."""
    if _NUMERONYM_HINT.search(lowered):
        lowered = _NUMERONYM.sub(lambda m: "\x00" + m.group() + "\x00", lowered)
        return [w for part in lowered.split("\x00") for w in ([part] if part in _NUMERONYMS else _WORD.findall(part))]
    return _WORD.findall(lowered)


_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "do",
        "does",
        "each",
        "every",
        "for",
        "from",
        "has",
        "have",
        "in",
        "into",
        "is",
        "it",
        "its",
        "may",
        "must",
        "no",
        "not",
        "of",
        "on",
        "one",
        "only",
        "or",
        "our",
        "so",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "under",
        "up",
        "us",
        "was",
        "we",
        "were",
        "when",
        "which",
        "while",
        "who",
        "will",
        "with",
        "within",
        "without",
        "you",
        "your",
    ]
)
# Words people use interchangeably in engineering notes (generic on purpose: no pair's own words).
_SYNONYM_GROUPS = {
    "database": "db datastore",
    "postgres": "postgresql pg psql",
    "secret": "credential password",
    "repository": "repo git",
    "pull": "pr",
    "api": "http endpoint rest route",
    "frontend": "ui interface",
    "time": "timezone datetime timestamp date",
    "flag": "toggle",
    "kubernetes": "k8s kube",
    "deploy": "deployment release rollout ship",
    "task": "job worker async asynchronous background",
    "user": "customer client member person people someone consumer",
    "pii": "personal",
    "required": "must require need needs mandatory obligatory",
    "min": "minimum least oldest",
    "max": "maximum most largest",
    "key": "field keys",
    "serialize": "serialise",
    "logging": "log logs",
    "weekday": "weekend saturday sunday monday friday",
    "delete": "remove erase purge drop wipe",
    "expire": "lapse",
    "mask": "redact hide obscure",
    "money": "currency",
    "store": "keep kept retain hold held persist save",
    "repeat": "idempotent duplicate twice again retry double",
    "error": "exception failure fail",
    "crash": "oom kill",
    "start": "boot startup launch begin",
    "allow": "permit",
    "limit": "cap budget quota",
    "approve": "approval signoff",
    "organisation": "organization org company business",
    "item": "product goods",
    "shipment": "parcel package",
    "order": "purchase buy bought",
    "config": "configuration setting settings",
    "environment": "env",
    "doc": "docs documentation",
    "dependency": "library requirement",
    "notification": "notice alert alarm",
    "image": "photo picture thumbnail",
    "large": "big huge",
    "old": "legacy previous prior",
    "send": "sent",
    "build": "built",
    "write": "written wrote",
    "pay": "paid payout",
    "use": "chose chosen choose adopt adopted",
    "run": "ran",
    "production": "prod live",
    # General software shorthand (abbreviations and their long forms; none taken from a labelled pair).
    "javascript": "js ecmascript",
    "java": "jdk jvm openjdk",
    "nodejs": "node",
    "golang": "go",
    "opentelemetry": "otel",
    "typescript": "ts",
    "terraform": "tf",
    "python": "py",
    "mongodb": "mongo",
    "elasticsearch": "elastic",
    "authentication": "auth authn login signin",
    "authorization": "authz authorisation",
    "mfa": "2fa otp totp",
    "message": "msg",
    "request": "req",
    "response": "resp",
    "infrastructure": "infra",
    "certificate": "cert",
    "application": "app",
    "service": "svc microservice",
    "administrator": "admin",
    "performance": "perf",
    "variable": "var",
    "directory": "dir folder",
    "package": "pkg",
    "millisecond": "ms msec",
    "internationalization": "i18n internationalisation localization localisation l10n translation",
    "accessibility": "a11y",
    "observability": "o11y",
    "end": "e2e",
    "day": "daily",
    "night": "nightly",
    "week": "weekly",
    "month": "monthly",
    "year": "yearly annual annually",
    "hour": "hourly",
    "malware": "virus antivirus",
    "restart": "reboot",
    "outage": "downtime",
    "statistic": "stats",
    "specification": "spec",
    "dev": "development",
    "merge": "mr",
}
_SYNONYMS = {word: canonical for canonical, words in _SYNONYM_GROUPS.items() for word in words.split()}
_NUMBER_WORDS = {
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "twelve": "12",
    "fifteen": "15",
    "twenty": "20",
    "thirty": "30",
    "fifty": "50",
    "ninety": "90",
    "hundred": "100",
}
_SYNONYMS.update(_NUMBER_WORDS)

_CANONICAL = frozenset(_SYNONYMS.values())


_DERIVED = (
    *("ments", "ment", "ition", "ature", "ions", "ion", "ness", "ivity", "ity", "able", "ible", "ally", "ive"),
    *("ly", "al", "ers", "er"),
)


def _stem(word: str, keep_canonical: bool = True) -> str:
    """Fold plural, tense and derived endings so that one word's forms meet: databases →
    database, locked → lock, deletion/deleted → delet, approval/approved → approv."""
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes", "zes", "ches", "shes")) and len(word) > 4:
        word = word[:-2]
    else:
        for suffix in ("ing", "ed", "s"):
            if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
                word = word[: len(word) - len(suffix)]
                break
    if keep_canonical and word in _CANONICAL:
        return word
    for suffix in _DERIVED:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: len(word) - len(suffix)]
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word[:8]


_STEMMED_SYNONYMS = {_stem(w, False): c for w, c in _SYNONYMS.items()} | {_stem(c, False): c for c in _CANONICAL}
_MEMO_LIMIT = 200_000  # words remembered (a memory of generated text could hold millions)
_NORMAL: dict[str, str] = {}
_TERMS: dict[str, str] = {}
_SURFACE: dict[str, str] = {}  # term → the first word seen folding to it (for explanations)


def _normal(word: str) -> str:
    """A word's normal form (memoised: the same few thousand words recur in every fact)."""
    found = _NORMAL.get(word)
    if found is None:
        found = _SYNONYMS.get(word, word)
        if found not in _CANONICAL:  # canonical words stay as they are (postgres, not postgre)
            stem = _stem(found)
            found = _STEMMED_SYNONYMS.get(stem, stem)
        if found in _STOP:
            found = ""
        if len(_NORMAL) < _MEMO_LIMIT:
            _NORMAL[word] = found
    return found


def _term(word: str) -> str:
    """One word's term, or "" for a stop word or a lone letter (memoised in _TERMS)."""
    found = "" if word in _STOP or (len(word) < 2 and not word.isdigit()) else _normal(word)
    if len(_TERMS) < _MEMO_LIMIT:
        _TERMS[word] = found
        _SURFACE.setdefault(found, word)
    return found


def _antonym_terms() -> dict[str, frozenset[str]]:
    """claims.ANTONYMS as terms (the normal forms titles are compared in)."""
    out: dict[str, frozenset[str]] = {}
    for word, opposites in claims.ANTONYMS.items():
        term = _normal(word)
        others = frozenset(_normal(o) for o in opposites) - {term}
        if term and others:
            out[term] = out.get(term, frozenset()) | others
    return out


def _spellings(facts: Iterable[Fact]) -> dict[str, str]:
    """Each term as these facts first write it (title, tags, body, in order): an explanation
    that reads the same whatever else this process has read before (unlike `surface`)."""
    out: dict[str, str] = {}
    for fact in facts:
        for text in (fact.title, *fact.tags, fact.body):
            for word in _words(text):
                found = _TERMS.get(word)
                if found is None:
                    found = _term(word)
                if found:
                    out.setdefault(found, word)
    return out


def surface(term: str) -> str:
    """A word as people write it for a term (snake, not snak): the first word seen that folds to it."""
    return _SURFACE.get(term, term)


_ANTONYM_TERMS = _antonym_terms()


def _token_terms(token: str) -> tuple[str, ...]:
    """The terms of one lowercased whitespace-free token ("uuidv7" → uuid, 7; "the" → none)."""
    known = _TERMS
    out = []
    for word in _lowered_words(token):
        found = known.get(word)
        if found is None:
            found = _term(word)
        if found:
            out.append(found)
    return tuple(out)


# A lowercased token (the text between two runs of whitespace) → its terms. No word spans
# whitespace, so a text's terms are its tokens' terms in order: a text is split and looked up
# by C code, and each token is read by the word regex and normalised once per process.
_TOKENS: dict[str, tuple[str, ...]] = {}


def _token_lookup(tokens: list[str]) -> Callable[[str], tuple[str, ...]]:
    """Each of `tokens`' terms: the memo, once the tokens it lacks are added to it (or, the memo
    full, the tokens normalised afresh)."""
    memo = _TOKENS
    missing = set(tokens).difference(memo)
    if len(memo) + len(missing) > _MEMO_LIMIT:
        return _token_terms
    for token in missing:
        memo[token] = _token_terms(token)
    return memo.__getitem__


def terms(text: str) -> list[str]:
    """Normalised words of `text`: lowercase, stop words out, endings folded, synonyms mapped."""
    tokens = text.lower().split()
    try:  # every token seen before (most texts, once a few thousand facts are read)
        return list(itertools.chain.from_iterable(map(_TOKENS.__getitem__, tokens)))
    except KeyError:
        return list(itertools.chain.from_iterable(map(_token_lookup(tokens), tokens)))


def term_counts(text: str) -> Counter[str]:
    """How often each normalised word of `text` occurs (as `Counter(terms(text))`, counted by
    C code: a new token is normalised once, then every token is looked up)."""
    tokens = text.lower().split()
    try:
        return Counter(itertools.chain.from_iterable(map(_TOKENS.__getitem__, tokens)))
    except KeyError:
        return Counter(itertools.chain.from_iterable(map(_token_lookup(tokens), tokens)))


_VERSIONED = re.compile(r"^([a-z]{3,}?)v?[0-9]+(?:\.[0-9]+)*$")  # uuidv7, python3: the name, then its version


def _names(found: Iterable[str]) -> frozenset[str]:
    """Names compared by their normal form (Indian/India, PostgreSQL/Postgres meet); a version
    written onto a name is left to the numbers (UUIDv7 is the name UUID, version 7)."""
    out = set()
    for name in found:
        versioned = _VERSIONED.match(name)
        name = versioned.group(1) if versioned else name
        out.add(_normal(name) or name)
    return frozenset(out)


class Features:
    """One fact's weighted words (by field), title trigrams, and (read when a pair could pass)
    the parts that tell claims apart: numbers, codes, names, polarity (core/curation/claims.py)."""

    __slots__ = ("_parts", "fact", "tags", "title", "trigrams", "weights")

    def __init__(self, fact: Fact) -> None:
        self.fact = fact
        title_terms = terms(fact.title)
        self.title = set(title_terms)
        self.tags = {t for tag in fact.tags for t in terms(tag)}
        squeezed = " ".join(title_terms)
        self.trigrams = {squeezed[i : i + 3] for i in range(max(len(squeezed) - 2, 0))}
        # Every word of the fact and its weight: once per body occurrence, more in the title and tags
        # (DupeFinder scales them by rarity in place: one dict per fact, at 100,000 facts too).
        weights: dict[str, float] = dict(term_counts(fact.body))
        for word in self.tags:
            weights[word] = weights.get(word, 0.0) + TAG_WEIGHT
        for word in title_terms:
            weights[word] = weights.get(word, 0.0) + TITLE_WEIGHT
        self.weights = weights
        self._parts: ClaimParts | None = None

    @property
    def everything(self) -> KeysView[str]:
        """Every word of the fact (title, tags, body)."""
        return self.weights.keys()

    @property
    def parts(self) -> ClaimParts:
        if self._parts is None:
            self._parts = ClaimParts(self.fact)
        return self._parts


class ClaimParts:
    """A fact's numbers, codes and names (in its title; anywhere in it) and its title's polarity."""

    __slots__ = (
        "all_codes",
        "all_names",
        "all_numbers",
        "all_sizes",
        "polarity",
        "title_codes",
        "title_names",
        "title_numbers",
        "title_sizes",
    )

    def __init__(self, fact: Fact) -> None:
        self.title_numbers = claims.numbers(fact.title, with_one=False)
        self.all_numbers = self.title_numbers | claims.numbers(fact.body, with_one=False)
        # A number with a unit is also its size (15 minutes = 900 seconds = 900).
        self.title_sizes = claims.quantities(fact.title)
        self.all_sizes = frozenset(self.title_sizes.values()) | frozenset(claims.quantities(fact.body).values())
        self.title_codes = claims.codes(fact.title)
        self.all_codes = self.title_codes | claims.codes(fact.body)
        self.title_names = _names(claims.names(fact.title))
        self.all_names = self.title_names | _names(claims.names(fact.body)) | _names(fact.tags)
        self.polarity = claims.polarity_of(fact.title)


def _unmatched_both_ways(
    mine: frozenset[str], theirs_all: frozenset[str], theirs: frozenset[str], mine_all: frozenset[str]
) -> bool:
    """Each title states something (a number, a name) the other fact does not mention at all."""
    return bool(mine) and bool(theirs) and bool(_missing(mine, theirs_all)) and bool(_missing(theirs, mine_all))


def _numbers_unsaid(mine: ClaimParts, theirs: ClaimParts) -> frozenset[str]:
    """The numbers of my title that the other fact does not state, as written or as a size
    (a title's "15 minutes" is said by a body's "900 seconds")."""
    return frozenset(
        n for n in mine.title_numbers if n not in theirs.all_numbers and mine.title_sizes.get(n) not in theirs.all_sizes
    )


def _missing(mine: frozenset[str], theirs: frozenset[str]) -> list[str]:
    """Those of `mine` that `theirs` lacks; a long word matches by its first five letters
    (India/Indian, Kubernetes/kubernetes' stem)."""
    prefixes = {w[:5] for w in theirs if len(w) >= 5}
    return [w for w in mine if w not in theirs and not (len(w) >= 5 and w[:5] in prefixes)]


def _opposed(mine: set[str], theirs: set[str]) -> tuple[str, str] | None:
    """A word of my title whose opposite (claims.ANTONYMS: include/exclude, request/response)
    is in the other title, neither title having both."""
    for word in sorted(mine - theirs):  # sorted: the same explanation on every run
        for other in sorted(_ANTONYM_TERMS.get(word, ())):
            if other in theirs and other not in mine:
                return word, other
    return None


def differences(fa: Features, fb: Features, with_polarity: bool = True) -> list[tuple[str, str]]:
    """Why two similar facts may be different claims, as (kind, what): the numbers, codes or
    names their titles state that the other does not mention, and (`with_polarity`) a title
    turned around (one negated, one not)."""
    found = []
    pa, pb = fa.parts, fb.parts
    a_words = frozenset(fa.everything | pa.all_names | pa.all_codes)
    b_words = frozenset(fb.everything | pb.all_names | pb.all_codes)
    a_unsaid, b_unsaid = _numbers_unsaid(pa, pb), _numbers_unsaid(pb, pa)
    if a_unsaid and b_unsaid:
        found.append(("numbers", f"numbers {'/'.join(sorted(a_unsaid))} vs {'/'.join(sorted(b_unsaid))}"))
    elif a_unsaid or b_unsaid:
        alone = sorted(a_unsaid | b_unsaid)
        found.append(("one-sided number", f"{'/'.join(alone)} on one side only"))
    opposed = _opposed(fa.title, fb.title)
    if opposed:
        found.append(("opposites", f"{surface(opposed[0])} vs {surface(opposed[1])}"))
    a_names, b_names = pa.title_names | pa.title_codes, pb.title_names | pb.title_codes
    if _unmatched_both_ways(a_names, b_words, b_names, a_words):
        mine, theirs = sorted(_missing(a_names, b_words)), sorted(_missing(b_names, a_words))
        found.append(("names", f"names {'/'.join(mine)} vs {'/'.join(theirs)}"))
    if with_polarity and pa.polarity != pb.polarity:
        found.append(("polarity", "one title is negated"))
    return found


class Candidate:
    """A pair of facts that may state the same claim, with why."""

    __slots__ = ("a", "b", "cosine", "differs", "score", "shared", "similarity", "title_overlap", "vetoed")

    def __init__(
        self,
        a: str,
        b: str,
        score: float,
        cosine: float,
        title_overlap: float,
        shared: list[tuple[str, list[str]]],
        differs: list[str] | None = None,
        similarity: float | None = None,
        vetoed: bool = False,
    ) -> None:
        self.a, self.b = a, b
        self.score = score
        self.cosine = cosine
        self.title_overlap = title_overlap
        self.shared = shared  # (word, fields of both facts it appears in), strongest first
        self.differs = differs or []  # what tells the two claims apart (numbers 300 vs 150, ...)
        self.similarity = similarity  # the cosine of the facts' sentence vectors, when both have one
        self.vetoed = vetoed  # a difference of MEANING_VETO's kinds: never a duplicate by meaning alone

    def flagged(self, threshold: float) -> bool:
        """A near-duplicate: its words score `threshold` or more, or (vectors) its meaning is
        meaning.DUPE_SIMILARITY or more with no difference that tells the claims apart."""
        if self.score >= threshold:
            return True
        if self.similarity is None or self.vetoed:
            return False
        from foundry_tui.core.curation.meaning import DUPE_SIMILARITY

        return self.similarity >= DUPE_SIMILARITY

    def rank(self) -> float:
        """What orders the candidates: the words' score, or the similarity when it is higher."""
        return self.score if self.similarity is None else max(self.score, self.similarity)

    def why(self) -> str:
        words = ", ".join(f"{w} ({'/'.join(fields)})" for w, fields in self.shared[:6])
        text = f"shared: {words or 'nothing notable'}; words {self.cosine:.2f}, titles {self.title_overlap:.2f}"
        if self.similarity is not None:
            text += f", meaning {self.similarity:.2f}"
        return f"{text}; differs: {', '.join(self.differs)}" if self.differs else text

    def to_dict(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "score": round(self.score, 3),
            "cosine": round(self.cosine, 3),
            "titleOverlap": round(self.title_overlap, 3),
            "shared": [w for w, _f in self.shared],
            "differs": self.differs,
        } | ({} if self.similarity is None else {"similarity": round(self.similarity, 3)})


class DupeFinder:
    """Scores pairs of facts; `scan()` finds every pair over a threshold without comparing all pairs."""

    def __init__(self, facts: Sequence[Fact], meaning: FactVectors | None = None) -> None:
        self.meaning = meaning  # the facts' sentence vectors, when they have them
        with held():  # many small sets and dicts, no cycles: the collector would only re-scan them
            self._build(facts)

    def _build(self, facts: Sequence[Fact]) -> None:
        self.features = {f.id: Features(f) for f in facts}
        df = Counter(itertools.chain.from_iterable(feat.weights for feat in self.features.values()))
        n = max(len(self.features), 1)
        self.idf = {word: math.log((1 + n) / (1 + count)) + 1.0 for word, count in df.items()}
        self.df = df
        self._vectors = {fid: self._vector(feat) for fid, feat in self.features.items()}
        idf = self.idf.__getitem__
        self._title_weight = {fid: sum(map(idf, feat.title)) for fid, feat in self.features.items()}

    def _vector(self, feat: Features) -> tuple[dict[str, float], float]:
        """The fact's TF-IDF vector (its weights scaled by rarity, in place of them) and its norm."""
        weights = feat.weights  # (C-level maps: this runs once per fact of the whole memory)
        values = list(map(operator.mul, weights.values(), map(self.idf.__getitem__, weights)))
        feat.weights = dict(zip(weights, values, strict=True))
        return feat.weights, math.hypot(*values) or 1.0

    def signals(self, a: str, b: str) -> tuple[float, float, float, float]:
        """The pair's evidence for "the same claim": how much of each title (idf-weighted) the
        other fact says — in its title in full, in its body or tags at half credit, shrunk for
        a title of few words (one shared word in a one-word title is weak evidence) — the
        smaller and the larger of the two; the words' cosine; the titles' trigram overlap.
        (One function of set operations: it runs for every candidate pair.)"""
        fa, fb = self.features[a], self.features[b]
        (va, na), (vb, nb) = self._vectors[a], self._vectors[b]
        shared = va.keys() & vb.keys()
        cosine = sum([va[w] * vb[w] for w in shared]) / (na * nb)
        ta, tb = fa.trigrams, fb.trigrams
        common = len(ta & tb)
        union = len(ta) + len(tb) - common
        overlap = common / union if union else 0.0
        idf = self.idf.__getitem__
        title_a, title_b = fa.title, fb.title
        in_titles = title_a & title_b
        in_titles_weight = sum(map(idf, in_titles))
        total_a, total_b = self._title_weight[a], self._title_weight[b]
        cover_a = cover_b = 0.0
        if total_a:
            said = in_titles_weight + BODY_CREDIT * sum(map(idf, (title_a & shared) - in_titles))
            cover_a = said / total_a * len(title_a) / (len(title_a) + 1)
        if total_b:
            said = in_titles_weight + BODY_CREDIT * sum(map(idf, (title_b & shared) - in_titles))
            cover_b = said / total_b * len(title_b) / (len(title_b) + 1)
        return min(cover_a, cover_b), max(cover_a, cover_b), cosine, overlap

    def _quick(self, a: str, b: str, threshold: float = 0.0) -> tuple[float, float, float]:
        """(score, cosine, title overlap) without the explanation; a pair that cannot reach
        `threshold` returns early with its score before the differences (an upper bound)."""
        cover_min, cover_max, cosine, overlap = self.signals(a, b)
        z = BIAS + W_COVER_MIN * cover_min + W_COVER_MAX * cover_max + W_COSINE * cosine + W_TITLES * overlap
        if z > FLOOR and 1.0 / (1.0 + math.exp(-z)) >= threshold:  # the differences can only lower it
            fa, fb = self.features[a], self.features[b]
            z += sum(AGAINST[kind] for kind, _text in differences(fa, fb, with_polarity=WITH_POLARITY))
        return 1.0 / (1.0 + math.exp(-z)), cosine, overlap

    def score(self, a: str, b: str) -> Candidate:
        score, cosine, overlap = self._quick(a, b)
        fa, fb = self.features[a], self.features[b]
        va, vb = self._vectors[a][0], self._vectors[b][0]
        spelled = _spellings((fa.fact, fb.fact))
        shared = []
        for word in sorted(set(va) & set(vb), key=lambda w: (-(va[w] + vb[w]), w)):  # ties by word: stable across runs
            fields = [
                name
                for name, words in (
                    ("title", fa.title | fb.title),
                    ("tags", fa.tags | fb.tags),
                    ("body", set(terms(fa.fact.body)) | set(terms(fb.fact.body))),
                )
                if word in words
            ]
            shared.append((spelled.get(word, word), fields))
        found = differences(fa, fb)
        differs = [text for _kind, text in found]
        similarity = self.meaning.similarity(a, b) if self.meaning is not None else None
        vetoed = any(kind in MEANING_VETO for kind, _text in found)
        return Candidate(a, b, score, cosine, overlap, shared, differs, similarity, vetoed)

    def flags(self, a: str, b: str, threshold: float) -> bool:
        """Whether the pair is a near-duplicate at `threshold` (Candidate.flagged)."""
        return self.score(a, b).flagged(threshold)

    def candidate_pairs(self, all_pairs_up_to: int = ALL_PAIRS_UP_TO) -> set[tuple[str, str]]:
        """Pairs worth scoring: all of them for a small memory; otherwise the facts sharing at
        least two of each other's rarest words (an inverted index over those words, so the work
        grows with the pairs that share them, not with the square of the facts)."""
        ids = sorted(self.features, key=id_order)
        if len(ids) <= all_pairs_up_to:
            return {(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]}
        with held():
            return {(ids[i], ids[j]) for i, later in self._index_pairs(ids) for j in later}

    def _index_pairs(self, ids: list[str]) -> Iterator[tuple[int, set[int]]]:
        """For each position i in `ids`, the later positions sharing at least two of its rarest
        words (and only words at most `limit` facts hold), as sets: (i, {j, ...})."""
        df = self.df
        # Words as their rank, rarest first (ties by word): ints sort by C comparisons alone.
        rank = {w: i for i, w in enumerate(sorted(df, key=lambda w: (df[w], w)))}.__getitem__
        features = self.features
        rarest = [sorted(map(rank, features[fid].weights))[:CANDIDATE_TERMS] for fid in ids]
        postings: dict[int, list[int]] = defaultdict(list)
        for position, words in enumerate(rarest):
            for word in words:
                postings[word].append(position)
        limit = max(MAX_POSTING, int(len(ids) * MAX_POSTING_SHARE))  # a word this common proposes nothing
        # A word no other fact holds among its rarest proposes nothing either.
        proposing = {word: posting for word, posting in postings.items() if 1 < len(posting) <= limit}
        for position, words in enumerate(rarest):
            held = [proposing[word] for word in words if word in proposing]
            if len(held) < 2:
                continue
            seen: set[int] = set()
            twice: set[int] = set()
            for posting in held:
                later = posting[bisect.bisect_right(posting, position) :]  # later facts: each pair once
                twice.update(seen.intersection(later))
                seen.update(later)
            if twice:
                yield position, twice

    def scan(self, threshold: float = DEFAULT_DUPE_THRESHOLD) -> list[Candidate]:
        """Every pair scoring at least `threshold`, best first: the candidate pairs (as
        `candidate_pairs`) that `_quick` scores at least `threshold`. A faster estimate of each
        pair's signals goes first, and only the pairs it cannot rule out are scored exactly."""
        ids = sorted(self.features, key=id_order)
        with held():
            if len(ids) <= ALL_PAIRS_UP_TO:
                later: Iterable[tuple[int, Iterable[int]]] = ((i, range(i + 1, len(ids))) for i in range(len(ids)))
            else:
                later = self._index_pairs(ids)
            found = [
                self.score(a, b)
                for a, b in self._could_reach(ids, later, threshold)
                if self._quick(a, b, threshold)[0] >= threshold
            ]
            found += self._by_meaning({(c.a, c.b) for c in found}, threshold)
        found.sort(key=lambda c: (-c.rank(), id_order(c.a), id_order(c.b)))
        return found

    def _by_meaning(self, seen: set[tuple[str, str]], threshold: float) -> list[Candidate]:
        """The pairs near in meaning (each fact's meaning.NEIGHBOURS nearest, at DUPE_SIMILARITY
        or more) that the words did not flag and no difference tells apart ([] without vectors)."""
        if self.meaning is None:
            return []
        from foundry_tui.core.curation.meaning import DUPE_SIMILARITY

        out = []
        features = self.features
        for a, b in sorted(self.meaning.neighbours(DUPE_SIMILARITY), key=lambda p: (id_order(p[0]), id_order(p[1]))):
            if (a, b) in seen or a not in features or b not in features:
                continue
            # The differences first (each fact's parts are read once): most pairs near in meaning
            # but told apart stop here, before the explanation is built.
            if any(kind in MEANING_VETO for kind, _text in differences(features[a], features[b], with_polarity=False)):
                continue
            out.append(self.score(a, b))
        return out

    def _could_reach(
        self, ids: list[str], pairs: Iterable[tuple[int, Iterable[int]]], threshold: float
    ) -> Iterator[tuple[str, str]]:
        """Those of `pairs` (i, later positions j) whose score before the differences could reach
        `threshold`: `signals`' formula with one fact's side worked out once for all its
        partners and the trigrams compared only when the rest leaves the pair a chance. It sums
        in another order than `signals`, so it keeps every pair within SLACK of the threshold
        (the differences only lower a score: AGAINST holds no positive weight)."""
        features, vectors, idf = self.features, self._vectors, self.idf.__getitem__
        title_weight = self._title_weight
        # A title's cover is said / total * n / (n + 1): the scale after `said`, 0 for no title.
        scale = [
            len(f.title) / (len(f.title) + 1) / title_weight[fid] if title_weight[fid] else 0.0
            for fid in ids
            for f in (features[fid],)
        ]
        exp, mul = math.exp, operator.mul
        for i, partners in pairs:
            a = ids[i]
            fa = features[a]
            va, na = vectors[a]
            keys_a, title_a, trigrams_a, scale_a = va.keys(), fa.title, fa.trigrams, scale[i]
            get_a = va.__getitem__
            for j in partners:
                b = ids[j]
                fb = features[b]
                vb, nb = vectors[b]
                shared = keys_a & vb.keys()
                cosine = sum(map(mul, map(get_a, shared), map(vb.__getitem__, shared))) / (na * nb)
                title_b = fb.title
                in_titles = sum(map(idf, title_a & title_b))
                cover_a = (in_titles + BODY_CREDIT * (sum(map(idf, vb.keys() & title_a)) - in_titles)) * scale_a
                cover_b = (in_titles + BODY_CREDIT * (sum(map(idf, keys_a & title_b)) - in_titles)) * scale[j]
                if cover_a > cover_b:
                    cover_a, cover_b = cover_b, cover_a
                z = BIAS + W_COVER_MIN * cover_a + W_COVER_MAX * cover_b + W_COSINE * cosine + SLACK
                trigrams_b = fb.trigrams
                size_a, size_b = len(trigrams_a), len(trigrams_b)
                if not size_a or not size_b:
                    overlap = 0.0
                else:  # the overlap is at most the smaller set's share of the larger
                    if 1.0 / (1.0 + exp(-(z + W_TITLES * min(size_a, size_b) / max(size_a, size_b)))) < threshold:
                        continue
                    common = len(trigrams_a & trigrams_b)
                    overlap = common / (size_a + size_b - common)
                if 1.0 / (1.0 + exp(-(z + W_TITLES * overlap))) >= threshold:
                    yield a, b


def group(candidates: Iterable[Candidate]) -> list[list[str]]:
    """Chain pairs into groups (union-find); each group sorted, groups by size then first id."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c in candidates:
        ra, rb = find(c.a), find(c.b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = defaultdict(list)
    for x in parent:
        groups[find(x)].append(x)
    return sorted((sorted(g, key=id_order) for g in groups.values()), key=lambda g: (-len(g), id_order(g[0])))


class DupeReport:
    """`foundry memory dupes`: the groups of near-duplicate active facts and their pairs."""

    def __init__(self, facts: dict[str, Fact], candidates: list[Candidate], threshold: float) -> None:
        self.facts = facts
        self.candidates = candidates
        self.threshold = threshold
        self.groups = group(candidates)

    def pairs_in(self, members: list[str]) -> list[Candidate]:
        inside = set(members)
        return [c for c in self.candidates if c.a in inside and c.b in inside]

    def text(self) -> str:
        lines = [f"Near-duplicate candidates (threshold {self.threshold:.2f}; nothing is merged automatically):", ""]
        if not self.groups:
            lines.append("  none")
        for number, members in enumerate(self.groups, start=1):
            lines.append(f"  group {number}: {', '.join(members)}")
            for fact_id in members:
                fact = self.facts[fact_id]
                lines.append(f"    {fact_id} · {fact.type} · {fact.title}")
            for pair in self.pairs_in(members):
                lines.append(f"    {pair.a} ~ {pair.b}  {pair.score:.2f}  {pair.why()}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        return {
            "threshold": self.threshold,
            "groups": [
                {"ids": members, "pairs": [p.to_dict() for p in self.pairs_in(members)]} for members in self.groups
            ],
        }


def find_dupes(project: Project, today: _dt.date, threshold: float | None = None) -> DupeReport:
    """Near-duplicate groups among the project's active facts (threshold from config unless given)."""
    project.sync()
    level = project.config().dupe_threshold if threshold is None else threshold
    if not 0 < level <= 1:
        from foundry_tui.core.errors import InputError

        raise InputError(f"threshold {level} is out of range: use a number above 0 and at most 1")
    active = project.active_facts(today)
    meaning = None
    if project.semantic_enabled():  # the vectors the derived cache holds; the model is never loaded here
        from foundry_tui.core.curation.meaning import project_vectors

        meaning = project_vectors(project, active)
    return DupeReport({f.id: f for f in active}, DupeFinder(active, meaning).scan(level), level)
