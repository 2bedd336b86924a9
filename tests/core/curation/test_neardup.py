"""Near-duplicate detection: quality on the labelled set, grouping, the CLI, properties."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foundry_tui.core.config import DEFAULT_DUPE_THRESHOLD
from foundry_tui.core.curation.neardup import Candidate, DupeFinder, group, term_counts, terms
from foundry_tui.core.memory.model.facts import Fact, id_order
from tests.data.labelled_pairs import read_labelled
from tests.data.neardup_pairs import PARAPHRASES, RELATED, UNRELATED
from tests.helpers import run_cli

# The figures on the first labelled set (tests/data/neardup_pairs.py, training data) at the
# default threshold; this test keeps them. The second set (tests/data/neardup_labelled.json)
# is tuning data too: its old held-out part was read while tuning ("seen"), and so was the
# third pass's held-out set (tests/data/neardup_fresh.json) during the fourth. The held-out
# figures are the fourth pass's fresh set's (tests/data/neardup_fresh2.json; issue 29 tuned its similarity on it),
# reported in docs/benchmarks.md; the issue's bar (0.95 / 0.95) is not met.
MIN_PRECISION = 0.8
MIN_RECALL = 1.0
HELD_OUT_PRECISION, HELD_OUT_RECALL = 0.55, 0.56
SEEN_PRECISION, SEEN_RECALL = 0.91, 0.94
SEEN_FRESH_PRECISION, SEEN_FRESH_RECALL = 0.78, 0.67
LABELLED = Path(__file__).parents[2] / "data" / "neardup_labelled.json"
FRESH = Path(__file__).parents[2] / "data" / "neardup_fresh.json"
FRESH2 = Path(__file__).parents[2] / "data" / "neardup_fresh2.json"


def _labelled() -> tuple[DupeFinder, list[tuple[str, str, str]]]:
    facts: list[Fact] = []
    labelled = []

    def add(spec: tuple[str, str, str, list[str]]) -> str:
        ftype, title, body, tags = spec
        facts.append(Fact(id=f"fact-{len(facts) + 1:04d}", type=ftype, title=title, body=body, tags=tuple(tags)))
        return facts[-1].id

    for label, pairs in (("paraphrase", PARAPHRASES), ("related", RELATED), ("unrelated", UNRELATED)):
        for a, b in pairs:
            labelled.append((add(a), add(b), label))
    return DupeFinder(facts), labelled


def test_labelled_set_is_big_and_balanced() -> None:
    assert len(PARAPHRASES) == len(RELATED) == len(UNRELATED) and len(PARAPHRASES) * 3 >= 60


def test_precision_and_recall_at_the_default_threshold() -> None:
    finder, labelled = _labelled()
    flagged = {(a, b) for a, b, _label in labelled if finder.score(a, b).score >= DEFAULT_DUPE_THRESHOLD}
    true_pairs = {(a, b) for a, b, label in labelled if label == "paraphrase"}
    tp = len(flagged & true_pairs)
    precision = tp / len(flagged)
    recall = tp / len(true_pairs)
    assert precision >= MIN_PRECISION and recall >= MIN_RECALL, (precision, recall)
    # The scan (candidate generation) finds the flagged pairs too, not just the pairwise score.
    scanned = {(c.a, c.b) for c in finder.scan(DEFAULT_DUPE_THRESHOLD)}
    assert true_pairs & flagged <= scanned


def test_related_claims_score_below_paraphrases_on_average() -> None:
    finder, labelled = _labelled()
    mean = {
        label: sum(finder.score(a, b).score for a, b, lab in labelled if lab == label) / 22
        for label in ("paraphrase", "related", "unrelated")
    }
    assert mean["paraphrase"] > mean["related"] > mean["unrelated"]


def test_grouping_chains_pairs() -> None:
    pairs = [
        Candidate("fact-0001", "fact-0002", 0.9, 0.9, 0.9, []),
        Candidate("fact-0002", "fact-0003", 0.8, 0.8, 0.8, []),
        Candidate("fact-0007", "fact-0009", 0.7, 0.7, 0.7, []),
    ]
    assert group(pairs) == [["fact-0001", "fact-0002", "fact-0003"], ["fact-0007", "fact-0009"]]


def test_demo_pair_is_found_with_reasons(demo_root: object) -> None:
    run = run_cli("--root", str(demo_root), "--today", "2026-11-30", "memory", "dupes")
    lines = run.out.splitlines()
    assert lines[0] == "Near-duplicate candidates (threshold 0.50; nothing is merged automatically):"
    assert lines[2] == "  group 1: fact-0007, fact-0014"
    assert lines[5] == (
        "    fact-0007 ~ fact-0014  0.95  shared: api (title/tags/body), case (title/body), json (title/tags/body), "
        "snake (title/body), keys (title/body), responses (title); words 0.79, titles 0.63"
    )
    data = json.loads(run_cli("--root", str(demo_root), "--today", "2026-11-30", "memory", "dupes", "--json").out)
    assert data["groups"][0]["ids"] == ["fact-0007", "fact-0014"]
    none = run_cli("--root", str(demo_root), "--today", "2026-11-30", "memory", "dupes", "--threshold", "0.99").out
    assert none.splitlines()[-1] == "  none"
    bad = run_cli("--root", str(demo_root), "memory", "dupes", "--threshold", "7")
    assert bad.code == 2 and bad.err.startswith("foundry: error: threshold 7.0 is out of range")


words = st.lists(
    st.sampled_from(["orders", "payment", "database", "postgres", "cache", "redis", "queue", "api", "json", "tenant"]),
    min_size=1,
    max_size=8,
)


@given(words, words)
def test_scores_are_symmetric_bounded_and_self_similar(a: list[str], b: list[str]) -> None:
    facts = [
        Fact(id="fact-0001", type="domain", title=" ".join(a), body=" ".join(b)),
        Fact(id="fact-0002", type="domain", title=" ".join(b), body=" ".join(a)),
    ]
    finder = DupeFinder(facts)
    ab, ba = finder.score("fact-0001", "fact-0002"), finder.score("fact-0002", "fact-0001")
    assert abs(ab.score - ba.score) < 1e-9 and 0 <= ab.score <= 1
    assert finder.score("fact-0001", "fact-0001").score >= ab.score - 1e-9


def test_terms_fold_endings_and_synonyms() -> None:
    assert terms("The Databases are PostgreSQL repos") == ["database", "postgres", "repository"]


def test_candidate_generation_keeps_the_true_pairs() -> None:
    """At scale the finder scores only facts sharing rare words: it must still propose the paraphrases."""
    finder, labelled = _labelled()
    proposed = finder.candidate_pairs(all_pairs_up_to=0)
    true_pairs = {(a, b) for a, b, label in labelled if label == "paraphrase"}
    found = len(true_pairs & proposed) / len(true_pairs)
    assert found >= 0.9, found
    assert len(proposed) < len(finder.features) ** 2 / 8  # far fewer than all pairs


def test_groups_and_pairs_follow_the_id_order_past_fact_9999() -> None:
    """Ids sort by number everywhere (facts.id_order), so fact-10000 comes after fact-9999."""
    pairs = [
        Candidate("fact-9999", "fact-10000", 0.9, 0.9, 0.9, []),
        Candidate("fact-0002", "fact-10001", 0.8, 0.8, 0.8, []),
        Candidate("fact-0002", "fact-0003", 0.8, 0.8, 0.8, []),
    ]
    assert group(pairs) == [["fact-0002", "fact-0003", "fact-10001"], ["fact-9999", "fact-10000"]]
    facts = [
        Fact(id=f"fact-{n:04d}", type="domain", title="Retry failed uploads three times", body="Then give up.")
        for n in (10000, 9999, 10001)
    ]
    assert [(c.a, c.b) for c in DupeFinder(facts).scan(0.5)] == [
        ("fact-9999", "fact-10000"),
        ("fact-9999", "fact-10001"),
        ("fact-10000", "fact-10001"),
    ]


def _split(split: str, path: Path = LABELLED) -> tuple[DupeFinder, list[tuple[str, str, str]]]:
    """One split of a labelled set, its facts alone (ids in file order)."""
    facts, pairs = read_labelled(path, split)
    return DupeFinder(facts), pairs


def test_larger_labelled_set_is_split_and_a_third_hard() -> None:
    pairs = json.loads(LABELLED.read_text(encoding="utf-8"))["pairs"]
    assert len(pairs) >= 200 and 3 * sum(p["label"] == "hard_negative" for p in pairs) >= len(pairs)
    assert {p["split"] for p in pairs} == {"tuning", "heldout"}


def _precision_recall(finder: DupeFinder, pairs: list[tuple[str, str, str]]) -> tuple[float, float]:
    flagged = {(a, b) for a, b, _label in pairs if finder.score(a, b).score >= DEFAULT_DUPE_THRESHOLD}
    true_pairs = {(a, b) for a, b, label in pairs if label == "duplicate"}
    return len(flagged & true_pairs) / len(flagged), len(flagged & true_pairs) / len(true_pairs)


@pytest.mark.parametrize(("path", "at_least"), [(FRESH, 150), (FRESH2, 200)])
def test_fresh_held_out_sets_are_big_with_a_third_hard_and_a_third_duplicates(path: Path, at_least: int) -> None:
    pairs = json.loads(path.read_text(encoding="utf-8"))["pairs"]
    labels = [p["label"] for p in pairs]
    assert len(pairs) >= at_least and {p["split"] for p in pairs} == {"heldout"}
    assert 3 * labels.count("hard_negative") >= len(pairs) and 3 * labels.count("duplicate") >= len(pairs)


def test_held_out_precision_and_recall_at_the_default_threshold() -> None:
    precision, recall = _precision_recall(*_split("heldout", FRESH2))
    assert precision >= HELD_OUT_PRECISION and recall >= HELD_OUT_RECALL, (precision, recall)


def test_the_third_pass_held_out_set_seen_while_tuning_the_fourth() -> None:
    precision, recall = _precision_recall(*_split("heldout", FRESH))
    assert precision >= SEEN_FRESH_PRECISION and recall >= SEEN_FRESH_RECALL, (precision, recall)


def test_seen_precision_and_recall_at_the_default_threshold() -> None:
    precision, recall = _precision_recall(*_split("heldout"))
    assert precision >= SEEN_PRECISION and recall >= SEEN_RECALL, (precision, recall)


def test_differing_numbers_and_names_are_evidence_against() -> None:
    facts = [
        Fact(id="fact-0001", type="constraint", title="Checkout p95 latency must stay under 300 ms", body=""),
        Fact(id="fact-0002", type="constraint", title="Search p95 latency must stay under 150 ms", body=""),
        Fact(id="fact-0003", type="constraint", title="Checkout p95 latency has to stay below 300 ms", body=""),
        Fact(id="fact-0004", type="decision", title="Email is sent through Postmark", body=""),
        Fact(id="fact-0005", type="decision", title="Email is sent through Amazon SES", body=""),
    ]
    finder = DupeFinder(facts)
    different = finder.score("fact-0001", "fact-0002")
    assert different.score < DEFAULT_DUPE_THRESHOLD
    assert different.why().endswith("; differs: numbers 300 vs 150")
    assert finder.score("fact-0001", "fact-0003").score >= DEFAULT_DUPE_THRESHOLD
    names = finder.score("fact-0004", "fact-0005")
    assert names.score < DEFAULT_DUPE_THRESHOLD and names.differs == ["names postmark vs amazon/ses"]


def test_candidate_generation_keeps_the_larger_sets_duplicates() -> None:
    finder, pairs = _split("tuning")
    proposed = finder.candidate_pairs(all_pairs_up_to=0)
    true_pairs = {(a, b) for a, b, label in pairs if label == "duplicate"}
    assert len(true_pairs & proposed) / len(true_pairs) >= 0.75


vocabulary = st.sampled_from(
    ["orders", "payment", "postgres", "15", "16", "cache", "redis", "queue", "deploys", "two", "one", "Vault", "not"]
)


@given(st.lists(st.lists(vocabulary, min_size=2, max_size=7), min_size=2, max_size=12))
def test_the_scan_returns_exactly_the_proposed_pairs_that_score_over_the_threshold(titles: list[list[str]]) -> None:
    facts = [
        Fact(id=f"fact-{n + 1:04d}", type="decision", title=" ".join(words), body="") for n, words in enumerate(titles)
    ]
    finder = DupeFinder(facts)
    for up_to in (0, 400):  # candidates from the index, and every pair
        proposed = finder.candidate_pairs(all_pairs_up_to=up_to)
        assert all(id_order(a) < id_order(b) for a, b in proposed)
    scanned = [(c.a, c.b) for c in finder.scan(0.5)]
    expected = {(a, b) for a, b in finder.candidate_pairs() if finder.score(a, b).score >= 0.5}
    assert set(scanned) == expected and len(scanned) == len(expected)
    scores = [c.score for c in finder.scan(0.5)]
    assert scores == sorted(scores, reverse=True)


def test_the_issues_examples_titles_alone() -> None:
    """Issue 14's misses and false alarms: a paraphrase sharing few words, two same-shape claims."""
    pairs = [
        (
            "The billing webhook handler must be idempotent",
            "Billing webhooks can arrive more than once and must not double charge",
            True,
        ),
        ("Checkout p95 latency must stay under 300 ms", "Search p95 latency must stay under 150 ms", False),
        ("Secrets are read from Vault at startup", "Vault tokens are rotated every 24 hours", False),
    ]
    facts = [
        Fact(id=f"fact-{n:04d}", type="decision", title=title, body="")
        for n, title in enumerate((t for a, b, _same in pairs for t in (a, b)), start=1)
    ]
    finder = DupeFinder(facts)
    for number, (_a, _b, same) in enumerate(pairs):
        score = finder.score(facts[2 * number].id, facts[2 * number + 1].id).score
        assert (score >= DEFAULT_DUPE_THRESHOLD) == same, (number, score)


def test_abbreviations_and_numeronyms_meet_their_long_forms() -> None:
    assert terms("k8s Kubernetes") == ["kubernetes", "kubernetes"]
    assert terms("PG Postgres PostgreSQL") == ["postgres"] * 3
    assert terms("TS TypeScript, JS JavaScript, 2FA MFA") == ["typescript"] * 2 + ["javascript"] * 2 + ["mfa"] * 2
    assert terms("prod production, env environment") == ["production"] * 2 + ["environment"] * 2


@given(st.text(alphabet="abk8s2fa i18n.-PGv7 ", max_size=60))
def test_term_counts_count_the_terms(text: str) -> None:
    assert term_counts(text) == Counter(terms(text))


def _pair_score(title_a: str, body_a: str, title_b: str, body_b: str) -> Candidate:
    facts = [
        Fact(id="fact-0001", type="constraint", title=title_a, body=body_a),
        Fact(id="fact-0002", type="constraint", title=title_b, body=body_b),
    ]
    return DupeFinder(facts).score("fact-0001", "fact-0002")


def test_a_quantity_in_other_units_is_the_same_number() -> None:
    same = _pair_score("Jobs must finish within 15 minutes", "", "Jobs must finish within 900 seconds", "")
    assert "differs" not in same.why()
    other = _pair_score("Jobs must finish within 15 minutes", "", "Jobs must finish within 20 minutes", "")
    assert other.score < DEFAULT_DUPE_THRESHOLD and other.differs == ["numbers 15 vs 20"]


def test_opposite_words_are_evidence_against() -> None:
    pair = _pair_score("Prices include VAT for EU customers", "", "Prices exclude VAT for EU customers", "")
    assert pair.score < DEFAULT_DUPE_THRESHOLD and pair.differs[0].startswith("include vs exclud")


def test_a_version_written_onto_a_name_is_the_name() -> None:
    pair = _pair_score("Use UUIDv7 for new primary keys", "", "New primary keys are UUID v7", "")
    assert not any(d.startswith("names") for d in pair.differs)
