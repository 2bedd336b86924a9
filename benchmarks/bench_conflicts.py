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
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from foundry_tui.core.curation.conflicts import ClaimShape, disagreement, find_conflicts_in
from foundry_tui.core.memory.model.facts import Fact

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_neardup import varied_facts  # the benchmarks are scripts, not a package

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
LABELLED = DATA / "conflicts_labelled.json"
FRESH = DATA / "conflicts_fresh.json"
FRESH2 = DATA / "conflicts_fresh2.json"
FRESH3 = DATA / "conflicts_fresh3.json"


def labelled(split: str | None = None, path: Path = LABELLED) -> list[tuple[Fact, Fact, bool]]:
    """(a, b, contradicts) for each labelled pair of `split` (all when None)."""
    pairs = json.loads(path.read_text(encoding="utf-8"))["pairs"]
    out = []
    for number, pair in enumerate(pairs):
        if split is None or pair["split"] == split:
            a = Fact(id=f"fact-{2 * number + 1:04d}", type="decision", title=pair["a"], body="")
            b = Fact(id=f"fact-{2 * number + 2:04d}", type="decision", title=pair["b"], body="")
            out.append((a, b, pair["label"] == "contradiction"))
    return out


def precision_recall(pairs: list[tuple[Fact, Fact, bool]]) -> tuple[float, float]:
    found = [(bool(disagreement(ClaimShape(a), ClaimShape(b))), truth) for a, b, truth in pairs]
    hits = sum(flagged and truth for flagged, truth in found)
    flagged = sum(flagged for flagged, _truth in found)
    return (hits / flagged if flagged else 1.0), hits / sum(truth for _f, truth in found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sets = (
        ("tuning", "conflicts_labelled.json, tuning part", "tuning", LABELLED),
        ("seen", "conflicts_labelled.json, old held-out part (read while tuning)", "heldout", LABELLED),
        ("seen", "conflicts_fresh.json, the third pass's held-out set (read while tuning)", None, FRESH),
        ("seen", "conflicts_fresh2.json, the fourth pass's held-out set (read since)", None, FRESH2),
        ("held-out", "conflicts_fresh3.json (never tuned on)", None, FRESH3),
    )
    for name, about, split, path in sets:
        pairs = labelled(split, path)
        precision, recall = precision_recall(pairs)
        print(f"  {name:<8} {len(pairs):>3} pairs: precision {precision:.2f}, recall {recall:.2f}  [{about}]")
    facts = [fact for a, b, _truth in labelled() for fact in (a, b)]
    for size in args.sizes:
        everything = facts + varied_facts(size, len(facts) + 1)
        best = best_cpu = float("inf")
        count = 0
        for _ in range(args.repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            count = len(find_conflicts_in(everything))
            best = min(best, time.perf_counter() - start)
            best_cpu = min(best_cpu, time.process_time() - start_cpu)
        print(
            f"  {size:,} varied facts + {len(facts)} labelled: best of {args.repeat} {best:.2f} s wall, "
            f"{best_cpu:.2f} s CPU; {count} pairs found"
        )


if __name__ == "__main__":
    main()
