"""The curator sees meaning (issue 29, item 6): near-duplicate and contradiction candidates from
the facts' sentence vectors as well as from shared words, with the similarity shown; the bounds on
that work; the CLI and the doctor reading the vectors from the derived cache (never loading the
model); and memory_write's note about close facts, never paid for by a one-shot process."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from foundry_tui.core.curation import meaning
from foundry_tui.core.curation.conflicts import find_conflicts_in
from foundry_tui.core.curation.meaning import FactVectors, text_of, vectors_of
from foundry_tui.core.curation.neardup import DupeFinder, DupeReport
from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search import encoder_probe
from foundry_tui.core.memory.search.vectors import VectorStore, fingerprint
from foundry_tui.core.ops.actor import Actor
from foundry_tui.core.ops.facts import close_to_written
from foundry_tui.core.trust.principal import resolve_caller
from tests.core.memory.semantic_helpers import pair_vectors, save_vectors, tiny_model_zip
from tests.helpers import TODAY, run_cli, write

# Reworded: the same claim in other words (the word scorer leaves it under its threshold).
MIGRATIONS = (
    "Migrations must be backwards compatible for one release",
    "A schema change has to work with the previous version of the app",
)
# Same subject, a different number, in other words (the word detector needs one opening word).
DLQ = ("Dead-lettered messages are kept for 14 days", "The DLQ retention is 4 days")


def _fact(number: int, title: str, body: str = "") -> Fact:
    return Fact(id=f"fact-{number:04d}", type="convention", title=title, body=body)


# ---- the vectors' neighbours --------------------------------------------------------------------


def test_neighbours_are_each_facts_nearest_above_the_floor() -> None:
    vectors = FactVectors(["fact-0001", "fact-0002", "fact-0003", "fact-0004"], pair_vectors([0.9, 0.5]))
    assert vectors.similarity("fact-0001", "fact-0002") == pytest.approx(0.9)
    assert vectors.similarity("fact-0001", "fact-0009") is None
    assert {p: round(s, 3) for p, s in vectors.neighbours(0.6).items()} == {("fact-0001", "fact-0002"): 0.9}
    assert set(vectors.neighbours(0.4)) == {("fact-0001", "fact-0002"), ("fact-0003", "fact-0004")}


def test_each_fact_meets_at_most_neighbours_facts_and_blocks_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    count = 3 * meaning.NEIGHBOURS + 5
    matrix = (np.ones((count, 16)) + 0.05 * rng.standard_normal((count, 16))).astype(np.float32)  # all alike
    ids = [f"fact-{n:04d}" for n in range(1, count + 1)]
    whole = FactVectors(ids, matrix).neighbours(0.0)
    assert len(whole) <= meaning.NEIGHBOURS * count
    for fact_id in ids:  # a fact's own nearest are at most NEIGHBOURS (the rest come from the others' lists)
        assert len([p for p in whole if fact_id in p]) >= min(meaning.NEIGHBOURS, count - 1)
    brute = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    for (a, b), similarity in whole.items():
        assert similarity == pytest.approx(float(brute[ids.index(a)] @ brute[ids.index(b)]), abs=1e-5)
    monkeypatch.setattr(meaning, "BLOCK_ROWS", 7)  # blocks of 7 rows: the same pairs
    assert FactVectors(ids, matrix).neighbours(0.0).keys() == whole.keys()
    # Each fact's own nearest, from a brute force: every pair is some fact's, and each fact's are in.
    similarity = brute @ brute.T
    np.fill_diagonal(similarity, -np.inf)
    expected = set()
    for i, fact_id in enumerate(ids):
        for j in np.argsort(-similarity[i])[: meaning.NEIGHBOURS]:
            expected.add(tuple(sorted((fact_id, ids[int(j)]))))
    assert set(whole) == expected


def test_at_most_max_pairs_pairs_the_most_similar_first(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [f"fact-{n:04d}" for n in range(1, 9)]
    vectors = FactVectors(ids, pair_vectors([0.6, 0.9, 0.7, 0.8]))
    monkeypatch.setattr(meaning, "MAX_PAIRS", 2)
    assert {p: round(s, 2) for p, s in vectors.neighbours(0.5).items()} == {
        ("fact-0003", "fact-0004"): 0.9,
        ("fact-0007", "fact-0008"): 0.8,
    }


def test_vectors_are_looked_up_by_the_builders_fingerprint() -> None:
    facts = [_fact(1, "Postgres is the database", "We run it."), _fact(2, "Redis is the cache")]
    store = VectorStore("model-a", 8)
    store.add([fingerprint(text_of(facts[0]))], pair_vectors([0.9])[:1])
    found = vectors_of(store, facts)
    assert found is not None and found.ids == ["fact-0001"]
    assert text_of(facts[0]) == "postgres is the database. Tags: . we run it."
    assert vectors_of(VectorStore("model-a", 8), facts) is None  # none known: words only
    assert vectors_of(None, facts) is None


# ---- near-duplicates --------------------------------------------------------------------------


def test_a_reworded_duplicate_is_found_by_its_meaning_and_shows_its_similarity() -> None:
    facts = [_fact(1, MIGRATIONS[0]), _fact(2, MIGRATIONS[1])]
    assert DupeFinder(facts).scan(0.5) == []  # the words alone miss it
    vectors = FactVectors(["fact-0001", "fact-0002"], pair_vectors([0.71]))
    found = DupeFinder(facts, vectors).scan(0.5)
    assert [(c.a, c.b, round(c.similarity or 0, 2)) for c in found] == [("fact-0001", "fact-0002", 0.71)]
    report = DupeReport({f.id: f for f in facts}, found, 0.5)
    assert report.text().splitlines()[-1] == (
        f"    fact-0001 ~ fact-0002  {found[0].score:.2f}  shared: nothing notable; words 0.00, titles "
        f"{found[0].title_overlap:.2f}, meaning 0.71"
    )
    assert report.to_dict()["groups"] == [
        {
            "ids": ["fact-0001", "fact-0002"],
            "pairs": [
                {
                    "a": "fact-0001",
                    "b": "fact-0002",
                    "score": round(found[0].score, 3),
                    "cosine": 0.0,
                    "titleOverlap": round(found[0].title_overlap, 3),
                    "shared": [],
                    "differs": [],
                    "similarity": 0.71,
                }
            ],
        }
    ]


def test_below_the_threshold_or_told_apart_a_similar_pair_is_no_duplicate() -> None:
    facts = [_fact(1, MIGRATIONS[0]), _fact(2, MIGRATIONS[1])]
    below = FactVectors(["fact-0001", "fact-0002"], pair_vectors([meaning.DUPE_SIMILARITY - 0.01]))
    assert DupeFinder(facts, below).scan(0.5) == []
    # Numbers that differ tell the claims apart, however close the meaning: a contradiction, not a duplicate.
    dlq = [_fact(1, DLQ[0]), _fact(2, DLQ[1])]
    close = FactVectors(["fact-0001", "fact-0002"], pair_vectors([0.95]))
    assert DupeFinder(dlq, close).scan(0.5) == []


def test_without_vectors_the_scan_is_todays() -> None:
    facts = [
        _fact(1, "Deploys need two approvals", "Two reviewers approve every deploy."),
        _fact(2, "Every deploy needs two approvals", "Two people approve each deploy."),
        _fact(3, MIGRATIONS[0]),
        _fact(4, MIGRATIONS[1]),
    ]
    words = DupeFinder(facts).scan(0.5)
    assert [(c.a, c.b) for c in words] == [("fact-0001", "fact-0002")]
    assert all(c.similarity is None for c in words)
    assert "meaning" not in words[0].why() and "similarity" not in words[0].to_dict()


# ---- contradictions -----------------------------------------------------------------------------


PG = ("PostgreSQL 15 is the production database", "PostgreSQL 16 is the production database")


def test_contradictions_by_meaning_alone_are_off_by_default() -> None:
    """On heldout6 they found none the words missed and lowered precision (ADR 0042)."""
    assert meaning.CONTRADICTIONS_BY_MEANING is False
    facts = [_fact(1, DLQ[0]), _fact(2, DLQ[1])]
    assert find_conflicts_in(facts, FactVectors(["fact-0001", "fact-0002"], pair_vectors([0.99]))) == []


def test_a_reworded_contradiction_is_found_by_its_meaning_and_shows_its_similarity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(meaning, "CONTRADICTIONS_BY_MEANING", True)
    facts = [_fact(1, DLQ[0]), _fact(2, DLQ[1])]
    assert find_conflicts_in(facts) == []  # two opening words: the words alone miss it
    vectors = FactVectors(["fact-0001", "fact-0002"], pair_vectors([0.9]))
    (conflict,) = find_conflicts_in(facts, vectors)
    assert conflict.ids == ("fact-0001", "fact-0002")
    assert conflict.about() == "numbers 14 vs 4 (similarity 0.90)"
    assert conflict.to_dict()["similarity"] == 0.9
    below = FactVectors(["fact-0001", "fact-0002"], pair_vectors([meaning.CONFLICT_SIMILARITY - 0.01]))
    assert find_conflicts_in(facts, below) == []


def test_a_pair_near_in_meaning_that_says_the_same_is_no_contradiction() -> None:
    facts = [_fact(1, "Dead-lettered messages are kept for 14 days"), _fact(2, "The DLQ keeps messages 14 days")]
    vectors = FactVectors(["fact-0001", "fact-0002"], pair_vectors([0.95]))
    assert find_conflicts_in(facts, vectors) == []


def test_a_word_found_contradiction_shows_its_similarity_too() -> None:
    facts = [_fact(1, "PostgreSQL 15 is the production database"), _fact(2, "PostgreSQL 16 is the production database")]
    (plain,) = find_conflicts_in(facts)
    assert plain.about() == "numbers 15 vs 16" and "similarity" not in plain.to_dict()
    (seen,) = find_conflicts_in(facts, FactVectors(["fact-0001", "fact-0002"], pair_vectors([0.97])))
    assert seen.about() == "numbers 15 vs 16 (similarity 0.97)"


# ---- a project: vectors from the derived cache ----------------------------------------------------


@pytest.fixture
def tiny_zip(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A model that is "installed" (a small random one): the vectors file is the project's own."""
    path = tiny_model_zip(tmp_path_factory.mktemp("model"))
    monkeypatch.setenv(encoder_probe.MODEL_ZIP_ENV, str(path))
    return path


def test_the_cli_and_the_doctor_read_the_vectors_and_never_load_the_model(
    project: Project, tiny_zip: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project, PG[0], "The main database.")
    write(project, PG[1], "Upgraded in March.")
    write(project, MIGRATIONS[0], "Deploys roll back.")
    write(project, MIGRATIONS[1], "Old pods keep running.")
    root = str(project.root)
    before = run_cli("memory", "conflicts", "--root", root, env={"FOUNDRY_TODAY": TODAY.isoformat()})
    assert "  fact-0001 vs fact-0002: numbers 15 vs 16" in before.out.splitlines()  # by the words alone
    save_vectors(project.root, TODAY, [0.9, 0.7])
    env = {"FOUNDRY_TODAY": TODAY.isoformat()}
    conflicts = run_cli("memory", "conflicts", "--root", root, env=env)
    assert conflicts.code == 0, conflicts.err
    assert conflicts.out.splitlines()[2:5] == [
        "  fact-0001 vs fact-0002: numbers 15 vs 16 (similarity 0.90)",
        f"    fact-0001 · convention · {PG[0]}",
        f"    fact-0002 · convention · {PG[1]}",
    ]
    dupes = run_cli("memory", "dupes", "--root", root, env=env)
    assert dupes.code == 0, dupes.err
    assert "  group 1: fact-0003, fact-0004" in dupes.out.splitlines()
    assert dupes.out.rstrip().endswith("meaning 0.70")
    doctor = run_cli("doctor", "--root", root, env=env)
    assert (
        "fact-0001 and fact-0002 disagree (numbers 15 vs 16 (similarity 0.90)): keep one in the curator's "
        "Contradictions tab or `foundry memory retire` the other"
    ) in doctor.out
    # Turned off: exactly as without vectors.
    off = run_cli("memory", "conflicts", "--root", root, env={**env, "FOUNDRY_SEMANTIC": "0"})
    assert off.out == before.out
    # The vectors came from the file: this process never loaded the model.
    monkeypatch.setenv("FOUNDRY_TODAY", TODAY.isoformat())
    reader = Project(project.root)
    from foundry_tui.core.curation.conflicts import find_conflicts

    assert [c.about() for c in find_conflicts(reader, TODAY).conflicts] == ["numbers 15 vs 16 (similarity 0.90)"]
    assert reader.warm_encoder() is None and not reader.building_vectors()


def test_memory_writes_note_needs_a_warm_model_and_a_one_shot_process_never_loads_it(
    project: Project, tiny_zip: Path
) -> None:
    write(project, DLQ[0], "The queue's retention.")
    write(project, DLQ[1], "Messages that fail go to the DLQ.")
    save_vectors(project.root, TODAY, [0.99])
    project.sync()
    actor = Actor(project, resolve_caller(), TODAY)
    assert close_to_written(actor, "fact-0002") == ""
    assert project.warm_encoder() is None and not project.building_vectors()


def test_memory_writes_note_names_at_most_max_close_facts_closest_first(project: Project, tiny_zip: Path) -> None:
    """With a warm model (the tiny one: every text of the same few words lands close), the note
    names the active facts at CLOSE_SIMILARITY or more, at most MAX_CLOSE, closest first."""
    titles = [f"The quick brown fox jumps over the lazy dog {n}" for n in range(meaning.MAX_CLOSE + 2)]
    for title in titles:
        write(project, title, "The quick brown fox.")
    project.sync()
    assert project.build_vectors(TODAY) == len(titles)  # loads the (tiny) model: now warm
    write(project, "The lazy dog jumps over the quick brown fox", "The quick brown fox.")
    project.sync()
    encoder = project.warm_encoder()
    assert encoder is not None
    close = meaning.close_facts(project, f"fact-{len(titles) + 1:04d}", TODAY)
    new = project.store.get(f"fact-{len(titles) + 1:04d}")
    assert new is not None
    mine = encoder.encode([text_of(new)])[0]
    expected = []
    for n in range(1, len(titles) + 1):
        fact = project.store.get(f"fact-{n:04d}")
        assert fact is not None
        similarity = float(encoder.encode([text_of(fact)])[0] @ mine)
        if similarity >= meaning.CLOSE_SIMILARITY:
            expected.append((round(-similarity, 6), fact.id))
    expected.sort()
    assert len(expected) > meaning.MAX_CLOSE  # the bound is what is tested here
    assert [c.fact.id for c in close] == [fact_id for _s, fact_id in expected[: meaning.MAX_CLOSE]]
    actor = Actor(project, resolve_caller(), TODAY)
    assert close_to_written(actor, new.id) == "\n".join(
        f'Close to {c.fact.id} "{c.fact.title}" (similarity {c.similarity:.2f}): supersede it if this replaces it.'
        for c in close
    )
