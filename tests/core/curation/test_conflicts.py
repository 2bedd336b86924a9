"""Contradictions: the labelled set's held-out figures, the finder, the CLI (exact texts),
the doctor's warning, the resolve changes through the trust gate, and properties."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foundry_tui.core.curation.conflicts import ClaimShape, disagreement, find_conflicts, find_conflicts_in
from foundry_tui.core.errors import InputError
from foundry_tui.core.gate.changes import MergeChange, resolve_change
from foundry_tui.core.gate.guard import guarded_write
from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.project import Project
from foundry_tui.core.trust.principal import Caller, Principal
from tests.helpers import TODAY, run_cli, write

LABELLED = Path(__file__).parents[2] / "data" / "conflicts_labelled.json"  # tuning data
FRESH = Path(__file__).parents[2] / "data" / "conflicts_fresh.json"  # the third pass's held-out set, read in the fourth
FRESH2 = Path(__file__).parents[2] / "data" / "conflicts_fresh2.json"  # the fourth pass's held-out set, read since
FRESH3 = (
    Path(__file__).parents[2] / "data" / "conflicts_fresh3.json"
)  # held out until issue 29 tuned its similarity on it
# The figures (docs/benchmarks.md, benchmarks/bench_conflicts.py); these tests keep them. "Seen": the old
# held-out part of LABELLED, read while tuning, so no longer a held-out figure.
HELD_OUT_PRECISION, HELD_OUT_RECALL = 0.82, 0.17
SEEN_PRECISION, SEEN_RECALL = 1.0, 0.88
SEEN_FRESH_PRECISION, SEEN_FRESH_RECALL = 0.86, 0.61
SEEN_FRESH2_PRECISION, SEEN_FRESH2_RECALL = 0.94, 0.12
PG15 = ("PostgreSQL 15 is the production database", "We run 15 in production.\n\n**Why:** the upgrade waits.")


def _fact(number: int, title: str, **kw: object) -> Fact:
    return Fact(id=f"fact-{number:04d}", type="decision", title=title, body="", **kw)  # type: ignore[arg-type]


def test_labelled_set_is_big_enough_and_split() -> None:
    pairs = json.loads(LABELLED.read_text(encoding="utf-8"))["pairs"]
    labels = [p["label"] for p in pairs]
    assert labels.count("contradiction") >= 60 and labels.count("compatible") >= 60
    assert {p["split"] for p in pairs} == {"tuning", "heldout"}


def _precision_recall(pairs: list[dict[str, str]]) -> tuple[float, float]:
    found = [(bool(disagreement(ClaimShape(_fact(1, p["a"])), ClaimShape(_fact(2, p["b"])))), p) for p in pairs]
    hits = sum(flagged and p["label"] == "contradiction" for flagged, p in found)
    precision = hits / sum(flagged for flagged, _p in found)
    return precision, hits / sum(p["label"] == "contradiction" for p in pairs)


@pytest.mark.parametrize(("path", "at_least"), [(FRESH, 40), (FRESH2, 60), (FRESH3, 100)])
def test_fresh_held_out_sets_are_big_enough(path: Path, at_least: int) -> None:
    labels = [p["label"] for p in json.loads(path.read_text(encoding="utf-8"))["pairs"]]
    assert labels.count("contradiction") >= at_least and labels.count("compatible") >= at_least


def test_held_out_precision_and_recall() -> None:
    precision, recall = _precision_recall(json.loads(FRESH3.read_text(encoding="utf-8"))["pairs"])
    assert precision >= HELD_OUT_PRECISION and recall >= HELD_OUT_RECALL, (precision, recall)


def test_the_fourth_pass_held_out_set_read_since() -> None:
    precision, recall = _precision_recall(json.loads(FRESH2.read_text(encoding="utf-8"))["pairs"])
    assert precision >= SEEN_FRESH2_PRECISION and recall >= SEEN_FRESH2_RECALL, (precision, recall)


def test_the_third_pass_held_out_set_seen_while_tuning_the_fourth() -> None:
    precision, recall = _precision_recall(json.loads(FRESH.read_text(encoding="utf-8"))["pairs"])
    assert precision >= SEEN_FRESH_PRECISION and recall >= SEEN_FRESH_RECALL, (precision, recall)


def test_seen_precision_and_recall() -> None:
    pairs = [p for p in json.loads(LABELLED.read_text(encoding="utf-8"))["pairs"] if p["split"] == "heldout"]
    precision, recall = _precision_recall(pairs)
    assert precision >= SEEN_PRECISION and recall >= SEEN_RECALL, (precision, recall)


def test_a_title_may_open_with_a_quantifier_or_a_negation_before_its_subject() -> None:
    facts = [
        _fact(1, "Services run on Node 18 LTS"),
        _fact(2, "All services run on Node 20"),
        _fact(3, "Deploys to production are allowed on Fridays"),
        _fact(4, "Never deploy to production on Fridays"),
        _fact(5, "Checkout p95 latency must stay under 300 ms"),
        _fact(6, "All search p95 latency must stay under 150 ms"),
    ]
    found = {c.ids: c.differs() for c in find_conflicts_in(facts)}
    assert found == {
        ("fact-0001", "fact-0002"): "numbers 18 vs 20",
        ("fact-0003", "fact-0004"): "polarity affirmed vs negated",
    }


def test_the_issues_examples_and_their_differing_parts() -> None:
    facts = [
        _fact(1, "PostgreSQL 15 is the production database"),
        _fact(2, "PostgreSQL 16 is the only supported database"),
        _fact(3, "Deploys need two approvals"),
        _fact(4, "Deploys need one approval"),
        _fact(5, "Uploads are scanned for viruses"),
        _fact(6, "Uploads are not scanned for viruses"),
        _fact(7, "Email is sent through Postmark"),
        _fact(8, "Email is sent through Amazon SES"),
        _fact(9, "Checkout p95 latency must stay under 300 ms"),
        _fact(10, "Search p95 latency must stay under 150 ms"),
        _fact(11, "The mobile app supports iOS 16 and later"),
        _fact(12, "The mobile app supports Android 10 and later"),
    ]
    found = {c.ids: c for c in find_conflicts_in(facts)}
    assert set(found) == {
        ("fact-0001", "fact-0002"),
        ("fact-0003", "fact-0004"),
        ("fact-0005", "fact-0006"),
        ("fact-0007", "fact-0008"),
    }
    assert found["fact-0001", "fact-0002"].differs() == "numbers 15 vs 16"
    assert found["fact-0003", "fact-0004"].differs() == "numbers 2 vs 1"
    assert found["fact-0005", "fact-0006"].differs() == "polarity affirmed vs negated"
    assert found["fact-0007", "fact-0008"].differs() == "names postmark vs amazon/ses"
    assert found["fact-0003", "fact-0004"].highlights(facts[3]) == ["one"]
    assert found["fact-0005", "fact-0006"].highlights(facts[5]) == ["not"]
    assert found["fact-0007", "fact-0008"].highlights(facts[7]) == ["Amazon", "SES"]


def test_a_fact_that_supersedes_the_other_is_no_contradiction() -> None:
    facts = [_fact(1, "Deploys need one approval"), _fact(2, "Deploys need two approvals", supersedes="fact-0001")]
    assert find_conflicts_in(facts) == []


def test_cli_text_and_json(demo_root: Path) -> None:
    args = ("--root", str(demo_root), "--today", "2026-11-30", "memory", "conflicts")
    none = run_cli(*args)
    assert none.code == 0 and none.out == (
        "Contradictions among active facts (one subject, claims that disagree; nothing is changed):\n\n  none\n"
    )
    write(Project(demo_root), *PG15, type="decision")
    run = run_cli(*args)
    assert run.code == 0 and run.out == (
        "Contradictions among active facts (one subject, claims that disagree; nothing is changed):\n"
        "\n"
        "  fact-0009 vs fact-0017: numbers 16 vs 15\n"
        "    fact-0009 · decision · PostgreSQL 16 is the only supported database\n"
        "    fact-0017 · decision · PostgreSQL 15 is the production database\n"
        "\n"
        "Keep one: the curator's Contradictions tab (F6), or `foundry memory retire ID` the other.\n"
    )
    data = json.loads(run_cli(*args, "--json").out)
    assert data == {
        "conflicts": [
            {
                "a": "fact-0009",
                "b": "fact-0017",
                "titles": ["PostgreSQL 16 is the only supported database", "PostgreSQL 15 is the production database"],
                "differs": [{"kind": "numbers", "a": "16", "b": "15"}],
            }
        ]
    }
    bad = run_cli(*args, "--threshold", "2")
    assert bad.code == 2 and bad.err.startswith("foundry: error: unrecognized arguments: --threshold 2")


def test_doctor_warns_on_contradictions(demo_root: Path) -> None:
    ok = run_cli("--root", str(demo_root), "--today", "2026-11-30", "doctor")
    assert "ok    contradictions: no two active facts about one subject disagree" in ok.out.splitlines()
    write(Project(demo_root), *PG15, type="decision")
    lines = run_cli("--root", str(demo_root), "--today", "2026-11-30", "doctor").out.splitlines()
    at = lines.index("warn  contradictions: 1 pair of active facts disagree")
    assert lines[at + 1] == (
        "        - fact-0009 and fact-0017 disagree (numbers 16 vs 15): keep one in the curator's Contradictions "
        "tab or `foundry memory retire` the other"
    )
    assert lines[at - 1].startswith("ok    duplicate titles")


def test_resolve_by_superseding_and_by_retiring(demo: Project) -> None:
    write(demo, *PG15, type="decision")
    conflict = find_conflicts(demo, TODAY).conflicts[0]
    caller = Caller(Principal("user", "curator"))
    change = resolve_change(conflict.a, conflict.b, "supersede", TODAY)
    assert isinstance(change, MergeChange)  # one new fact stating a's claim, superseding both
    gate = guarded_write(demo, caller, change, TODAY)
    assert gate.written and gate.result is not None
    new = demo.store.facts[gate.result.fact_id]
    assert (new.title, new.type, new.supersedes) == (conflict.a.title, "decision", "fact-0017")
    assert new.extras["merged_from"] == ["fact-0017", "fact-0009"]
    assert find_conflicts(demo, TODAY).conflicts == []
    active = {f.id for f in demo.active_facts(TODAY)}
    assert "fact-0009" not in active and "fact-0017" not in active and new.id in active


def test_resolve_by_retiring_the_other_keeps_the_one_that_stands(demo: Project) -> None:
    write(demo, *PG15, type="decision")
    conflict = find_conflicts(demo, TODAY).conflicts[0]
    before = (demo.layout.facts_dir / "fact-0017.md").read_bytes()
    gate = guarded_write(
        demo, Caller(Principal("user", "curator")), resolve_change(conflict.b, conflict.a, "retire", TODAY), TODAY
    )
    assert gate.written
    assert demo.store.facts["fact-0009"].expires == "2026-11-29"
    assert (demo.layout.facts_dir / "fact-0017.md").read_bytes() == before
    assert [f.id for f in demo.active_facts(TODAY) if f.id in ("fact-0009", "fact-0017")] == ["fact-0017"]


def test_resolve_refuses_one_fact_twice_and_an_unknown_way(demo: Project) -> None:
    demo.sync()
    fact = demo.store.facts["fact-0009"]
    with pytest.raises(InputError, match="pick one fact to keep and another"):
        resolve_change(fact, fact, "retire", TODAY)
    with pytest.raises(InputError, match="resolve how\\? 'merge' is not one of supersede, retire"):
        resolve_change(fact, demo.store.facts["fact-0010"], "merge", TODAY)


words = st.lists(
    st.sampled_from(["deploys", "need", "approvals", "backups", "kept", "days", "the", "api"]), min_size=1, max_size=6
)


@given(words, st.integers(min_value=0, max_value=999), st.integers(min_value=0, max_value=999))
def test_a_pair_differing_only_in_its_number_disagrees_exactly_when_the_numbers_differ(
    phrase: list[str], first: int, second: int
) -> None:
    a = ClaimShape(_fact(1, f"{' '.join(phrase)} {first} units"))
    b = ClaimShape(_fact(2, f"{' '.join(phrase)} {second} units"))
    parts = disagreement(a, b)
    assert parts == [(kind, x, y) for kind, y, x in disagreement(b, a)]  # symmetric
    assert bool(parts) == (first != second)
    if parts:
        assert parts == [("numbers", str(first), str(second))]


def test_an_untrusted_curators_resolution_is_parked_then_approved_with_its_type(demo: Project) -> None:
    from foundry_tui.core.gate.proposals import approve_proposal, list_proposals

    config = demo.layout.root / ".foundry" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "trust": {"trusted": ["user:alice"]}}))
    write(demo, PG15[0], PG15[1], type="constraint")  # another type than fact-0009's decision
    conflict = find_conflicts(demo, TODAY).conflicts[0]
    before = sorted(p.name for p in demo.layout.facts_dir.glob("*.md"))
    gate = guarded_write(
        demo, Caller(Principal("user", "bob")), resolve_change(conflict.a, conflict.b, "supersede", TODAY), TODAY
    )
    assert not gate.written and sorted(p.name for p in demo.layout.facts_dir.glob("*.md")) == before
    (proposal,) = list_proposals(demo.layout)
    approve_proposal(demo, Caller(Principal("user", "alice")), proposal.id, TODAY)
    demo.sync()
    new = demo.store.facts["fact-0018"]
    assert (new.title, new.type, new.supersedes) == (
        "PostgreSQL 16 is the only supported database",
        "decision",
        "fact-0017",
    )
