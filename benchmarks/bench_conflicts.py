"""Contradictions: precision and recall on the labelled pairs, and the time to find them
among many facts (a benchmark, not a test).

Quality: tests/data/conflicts_fresh3.json (110 contradicting, 107 compatible pairs of fact
titles, all held-out) was written and committed before the last change to the detector
(core/curation/conflicts.py) and its errors were never read; everything earlier is tuning
data: conflicts_labelled.json (62 + 62), conflicts_fresh.json (42 + 42) and
conflicts_fresh2.json (128 + 99), the third and fourth passes' held-out sets, read since,
reported as "tuning" and "seen". Prints precision and recall per set (tests/core/curation/test_conflicts.py
keeps the figures).

Speed: `find_conflicts_in` over N generated facts of varied text (benchmarks/bench_neardup.py's
generator) plus the labelled ones; prints the best of `--repeat` wall and CPU times.

    python benchmarks/bench_conflicts.py
    python benchmarks/bench_conflicts.py --sizes 10000 100000 --repeat 3
    python benchmarks/bench_conflicts.py --set heldout6   # one named set, tests/data/conflicts_NAME.json, alone

`--meaning` adds the facts' sentence vectors (issue 29, item 6; core/curation/meaning.py): the
labelled pairs embedded by the installed model, the generated facts of a speed run given
clustered vectors (benchmarks/meaning_vectors.py).

    python benchmarks/bench_conflicts.py --meaning --sizes 10000 --repeat 3

`--set NAME` scores only tests/data/conflicts_NAME.json (precision and recall, and the recall of
each `wording` of its contradictions when it records one) and times nothing unless `--sizes` is
given too. Its pairs may be titles or whole facts ({type, title, body}). "heldout6" is issue 29's
held-out set (35 contradictions, two thirds reworded, and 35 compatible pairs): score it once.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from foundry_tui.core.curation.conflicts import ClaimShape, contradicts, find_conflicts_in
from foundry_tui.core.curation.meaning import FactVectors
from foundry_tui.core.memory.model.facts import Fact

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_neardup import varied_facts  # the benchmarks are scripts, not a package
from meaning_vectors import clustered, embedded, joined

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
LABELLED = DATA / "conflicts_labelled.json"
FRESH = DATA / "conflicts_fresh.json"
FRESH2 = DATA / "conflicts_fresh2.json"
FRESH3 = DATA / "conflicts_fresh3.json"


def named_set(name: str) -> Path:
    """tests/data/conflicts_NAME.json, the set `--set NAME` asks for."""
    return DATA / f"conflicts_{name}.json"


def _side(number: int, side: str | dict[str, str]) -> Fact:
    """A pair's side: a title (a decision without a body) or a whole fact {type, title, body}."""
    if isinstance(side, str):
        return Fact(id=f"fact-{number:04d}", type="decision", title=side, body="")
    return Fact(id=f"fact-{number:04d}", type=side["type"], title=side["title"], body=side["body"])


def labelled(split: str | None = None, path: Path = LABELLED) -> list[tuple[Fact, Fact, bool]]:
    """(a, b, contradicts) for each labelled pair of `split` (all when None)."""
    pairs = json.loads(path.read_text(encoding="utf-8"))["pairs"]
    out = []
    for number, pair in enumerate(pairs):
        if split is None or pair["split"] == split:
            a, b = _side(2 * number + 1, pair["a"]), _side(2 * number + 2, pair["b"])
            out.append((a, b, pair["label"] == "contradiction"))
    return out


def flagged(a: Fact, b: Fact, meaning: FactVectors | None) -> bool:
    """Whether the detector finds the pair contradicting (with the vectors' similarity, when given)."""
    similarity = meaning.similarity(a.id, b.id) if meaning is not None else None
    return bool(contradicts(ClaimShape(a), ClaimShape(b), similarity))


def wording_recall(path: Path, meaning: FactVectors | None = None) -> str:
    """The recall of each `wording` of the contradictions of `path` ("" when it records none)."""
    pairs = json.loads(path.read_text(encoding="utf-8"))["pairs"]
    found = {}
    for (a, b, truth), pair in zip(labelled(None, path), pairs, strict=True):
        if truth and "wording" in pair:
            found.setdefault(pair["wording"], []).append(flagged(a, b, meaning))
    return "; ".join(f"recall {kind} {sum(hits) / len(hits):.2f} ({len(hits)})" for kind, hits in sorted(found.items()))


def vectors_of(pairs: list[tuple[Fact, Fact, bool]]) -> FactVectors:
    return embedded([fact for a, b, _truth in pairs for fact in (a, b)])


def precision_recall(pairs: list[tuple[Fact, Fact, bool]], meaning: FactVectors | None = None) -> tuple[float, float]:
    found = [(flagged(a, b, meaning), truth) for a, b, truth in pairs]
    hits = sum(said and truth for said, truth in found)
    said = sum(said for said, _truth in found)
    return (hits / said if said else 1.0), hits / sum(truth for _f, truth in found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=None, help="default: 10000 100000 (none with --set)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--set", metavar="NAME", help="quality on tests/data/conflicts_NAME.json alone, e.g. heldout6")
    parser.add_argument("--meaning", action="store_true", help="with the facts' sentence vectors (the model installed)")
    args = parser.parse_args()
    if args.set is not None and not named_set(args.set).is_file():
        parser.error(f"no set {args.set!r}: {named_set(args.set)} does not exist")
    sizes = args.sizes if args.sizes is not None else [] if args.set else [10_000, 100_000]
    sets = (
        ("tuning", "conflicts_labelled.json, tuning part", "tuning", LABELLED),
        ("seen", "conflicts_labelled.json, old held-out part (read while tuning)", "heldout", LABELLED),
        ("seen", "conflicts_fresh.json, the third pass's held-out set (read while tuning)", None, FRESH),
        ("seen", "conflicts_fresh2.json, the fourth pass's held-out set (read since)", None, FRESH2),
        ("seen", "conflicts_fresh3.json, held out until issue 29 chose its similarity on it", None, FRESH3),
    )
    if args.set is not None:
        sets = ((args.set, named_set(args.set).name, None, named_set(args.set)),)
    for name, about, split, path in sets:
        pairs = labelled(split, path)
        meaning = vectors_of(labelled(None, path)) if args.meaning else None
        precision, recall = precision_recall(pairs, meaning)
        kinds = f"; {wording_recall(path, meaning)}" if args.set is not None and wording_recall(path) else ""
        print(f"  {name:<8} {len(pairs):>3} pairs: precision {precision:.2f}, recall {recall:.2f}{kinds}  [{about}]")
    facts = [fact for a, b, _truth in labelled() for fact in (a, b)]
    labelled_vectors = vectors_of(labelled()) if args.meaning and sizes else None
    for size in sizes:
        generated = varied_facts(size, len(facts) + 1)
        everything = facts + generated
        best = best_cpu = float("inf")
        count = 0
        for _ in range(args.repeat):
            vectors = None
            if labelled_vectors is not None:  # built afresh each run: its neighbours are part of the scan
                vectors = joined([labelled_vectors, clustered(generated)])
            start, start_cpu = time.perf_counter(), time.process_time()
            count = len(find_conflicts_in(everything, vectors))
            best = min(best, time.perf_counter() - start)
            best_cpu = min(best_cpu, time.process_time() - start_cpu)
        print(
            f"  {size:,} varied facts + {len(facts)} labelled: best of {args.repeat} {best:.2f} s wall, "
            f"{best_cpu:.2f} s CPU; {count} pairs found"
        )


if __name__ == "__main__":
    main()
