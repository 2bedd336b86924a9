"""Near-duplicate detection: quality on the labelled pairs, and the scan's speed at scale
(a benchmark, not a test).

Quality: tests/data/neardup_fresh2.json (229 pairs, all held-out) was written and committed
before the fourth pass changed the scorer; everything earlier is tuning data:
tests/data/neardup_labelled.json (200 pairs; its "heldout" part was read while tuning the
second pass, so it is reported as "seen"), neardup_fresh.json (159 pairs, the third pass's
held-out set, read while tuning the fourth: "seen") and tests/data/neardup_pairs.py. For each set
this scores the pairs among that set's facts alone and prints precision and recall at the
default threshold (tests/core/curation/test_neardup.py keeps the figures; the issue's bar is 0.95 / 0.95).

Speed: a scan (`DupeFinder(facts).scan()`, what `foundry memory dupes` runs after loading)
of N generated facts of varied text plus the labelled ones; prints the best of `--repeat`
wall times (and CPU times: on a shared machine the wall time also measures the other
processes) and how many labelled duplicates the scan found among the noise.

    python benchmarks/bench_neardup.py                 # quality, then 10,000 and 100,000
    python benchmarks/bench_neardup.py --sizes 10000 --repeat 3
    python benchmarks/bench_neardup.py --set heldout6  # one named set, tests/data/neardup_NAME.json, alone

`--meaning` adds the facts' sentence vectors (issue 29, item 6; core/curation/meaning.py): the
labelled facts embedded by the installed model, the generated ones of a speed run given clustered
vectors (benchmarks/meaning_vectors.py), so each fact has its most neighbours to check.

    python benchmarks/bench_neardup.py --meaning --sizes 10000 --repeat 3

`--set NAME` scores only tests/data/neardup_NAME.json (precision, recall and F1 at the default
threshold) and times no scan unless `--sizes` is given too. "heldout6" is issue 29's held-out set
(40 reworded duplicates, 40 hard negatives): score it once.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

from foundry_tui.core.config import DEFAULT_DUPE_THRESHOLD
from foundry_tui.core.curation.neardup import DupeFinder
from foundry_tui.core.memory.model.facts import Fact

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' data readers
from meaning_vectors import clustered, embedded, joined  # the benchmarks are scripts, not a package

from tests.data.labelled_pairs import read_labelled

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
LABELLED = DATA / "neardup_labelled.json"
FRESH = DATA / "neardup_fresh.json"
FRESH2 = DATA / "neardup_fresh2.json"
TYPES = ("decision", "convention", "constraint", "domain", "risk", "glossary")
COMMON = str.split(
    "api service database cache queue order payment customer user tenant invoice billing export job worker "
    "retry timeout latency error log metric alert config secret key region backup restore release branch deploy "
    "build test review schema migration table index request response token session cookie upload image search "
    "email webhook event stream topic cluster node pod container image report dashboard admin account plan "
    "price discount shipping warehouse stock cart checkout refund return fraud rate limit version runtime "
    "library framework client server gateway proxy certificate storage bucket file folder ticket team owner"
)
GLUE = str.split("the a is are must should never always only each every after before when with without for from in on")
SYLLABLES = str.split("ka ro mi tu ne sa vo li pe da zu fi go ha ber tan sol mar kin dex ul or an et ix qua vi")


def labelled(split: str | None = None, path: Path = LABELLED) -> tuple[list[Fact], list[tuple[str, str, str]]]:
    """The labelled facts (ids fact-0001…, in file order) and their pairs (a, b, label)."""
    return read_labelled(path, split)


def precision_recall(finder: DupeFinder, pairs: list[tuple[str, str, str]], threshold: float) -> tuple[float, float]:
    flagged = {(a, b) for a, b, _label in pairs if finder.flags(a, b, threshold)}
    true = {(a, b) for a, b, label in pairs if label == "duplicate"}
    hit = len(flagged & true)
    return (hit / len(flagged) if flagged else 1.0), hit / len(true)


def named_set(name: str) -> Path:
    """tests/data/neardup_NAME.json, the set `--set NAME` asks for."""
    return DATA / f"neardup_{name}.json"


def f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def varied_facts(count: int, first_number: int, seed: int = 5) -> list[Fact]:
    """`count` facts of sentence-like text: common engineering words, glue words, numbers and a
    long tail of made-up words drawn with a Zipf-like skew (as real vocabularies are)."""
    rng = random.Random(seed)
    tail = sorted({"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(30000)})
    cumulative = list(itertools.accumulate(1 / (rank + 10) for rank in range(len(tail))))

    def words(n: int) -> list[str]:
        out = []
        picks = rng.choices(tail, cum_weights=cumulative, k=n)
        for i in range(n):
            roll = rng.random()
            if roll < 0.3:
                out.append(rng.choice(GLUE))
            elif roll < 0.6:
                out.append(rng.choice(COMMON))
            elif roll < 0.65:
                out.append(str(rng.choice((2, 3, 5, 10, 15, 30, 50, 100, 250, 500, 1000))))
            else:
                out.append(picks[i])
        return out

    facts = []
    for n in range(first_number, first_number + count):
        title = " ".join(words(rng.randint(5, 10))).capitalize()
        body = ". ".join(" ".join(words(rng.randint(6, 14))).capitalize() for _ in range(rng.randint(1, 5))) + "."
        tags = tuple(rng.sample(COMMON, rng.randint(1, 3)))
        facts.append(Fact(id=f"fact-{n:04d}", type=rng.choice(TYPES), title=title, body=body, tags=tags))
    return facts


def quality(named: str | None = None, meaning: bool = False) -> None:
    with_meaning = " with the sentence vectors" if meaning else ""
    print(f"quality at the default threshold {DEFAULT_DUPE_THRESHOLD:.2f}{with_meaning} (each set's facts alone):")
    sets = (
        ("tuning", "neardup_labelled.json, tuning part", "tuning", LABELLED),
        ("seen", "neardup_labelled.json, old held-out part (read while tuning)", "heldout", LABELLED),
        ("seen", "neardup_fresh.json, the third pass's held-out set (read while tuning)", None, FRESH),
        ("seen", "neardup_fresh2.json, held out until issue 29 chose its similarity on it", None, FRESH2),
    )
    if named is not None:
        sets = ((named, named_set(named).name, None, named_set(named)),)
    for name, about, split, path in sets:
        facts, pairs = labelled(split, path)
        vectors = embedded(facts) if meaning else None
        precision, recall = precision_recall(DupeFinder(facts, vectors), pairs, DEFAULT_DUPE_THRESHOLD)
        dupes = sum(label == "duplicate" for _a, _b, label in pairs)
        score = f", F1 {f1(precision, recall):.2f}" if named is not None else ""
        print(
            f"  {name:<8} {len(pairs):>3} pairs ({dupes} duplicates): precision {precision:.2f}, recall {recall:.2f}"
            f"{score}  [{about}]"
        )


def speed(sizes: list[int], repeat: int, meaning: bool = False) -> None:
    facts, pairs = labelled()  # the older set: the fresh one stays out of everything but its figures
    true = {(a, b) for a, b, label in pairs if label == "duplicate"}
    labelled_vectors = embedded(facts) if meaning and sizes else None
    for size in sizes:
        generated = varied_facts(size, len(facts) + 1)
        everything = facts + generated
        best = best_cpu = float("inf")
        found: set[tuple[str, str]] = set()
        for _ in range(repeat):
            vectors = None
            if labelled_vectors is not None:  # built afresh each run: its neighbours are part of the scan
                vectors = joined([labelled_vectors, clustered(generated)])
            start, start_cpu = time.perf_counter(), time.process_time()
            candidates = DupeFinder(everything, vectors).scan(DEFAULT_DUPE_THRESHOLD)
            best = min(best, time.perf_counter() - start)
            best_cpu = min(best_cpu, time.process_time() - start_cpu)
            found = {(c.a, c.b) for c in candidates}
        print(
            f"  scan of {size:,} varied facts + {len(facts)} labelled: best of {repeat} {best:.2f} s wall, "
            f"{best_cpu:.2f} s CPU; "
            f"{len(found)} pairs flagged, {len(found & true)}/{len(true)} labelled duplicates among them"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=None, help="default: 10000 100000 (none with --set)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--set", metavar="NAME", help="quality on tests/data/neardup_NAME.json alone, e.g. heldout6")
    parser.add_argument("--meaning", action="store_true", help="with the facts' sentence vectors (the model installed)")
    args = parser.parse_args()
    if args.set is not None and not named_set(args.set).is_file():
        parser.error(f"no set {args.set!r}: {named_set(args.set)} does not exist")
    quality(args.set, args.meaning)
    sizes = args.sizes if args.sizes is not None else [] if args.set else [10_000, 100_000]
    speed(sizes, args.repeat, args.meaning)


if __name__ == "__main__":
    main()
