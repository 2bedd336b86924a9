"""Benchmark of the memory engine over generated facts (a benchmark, not a test).

Generates N synthetic facts (realistic ~100-word bodies, 3-5 tags) in a temporary
folder and prints, for each N: cold load (parse every file), warm load (from the
parse cache), search p50/p95 (one-shot scan, and in a long-lived process with the
word index and the file watcher), how long an edit on disk takes to show in that
process, index rebuild, prune, doctor and one memory_write.

    python benchmarks/bench_memory.py                 # 1,000 and 10,000 facts
    python benchmarks/bench_memory.py --sizes 1000 10000 100000
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from foundry_tui.core.doctor import run_doctor
from foundry_tui.core.facts import TYPES
from foundry_tui.core.memory import Project, WriteRequest, memory_index, memory_search, memory_write
from foundry_tui.core.paths import resolve_today
from foundry_tui.core.prune import prune_candidates, render_prune
from foundry_tui.core.store import FactStore

TODAY = resolve_today("2026-11-30")
COMMON = tuple(
    [
        "the",
        "of",
        "and",
        "to",
        "in",
        "is",
        "that",
        "for",
        "it",
        "with",
        "as",
        "on",
        "be",
        "by",
        "this",
        "are",
        "we",
        "our",
        "use",
        "when",
        "not",
        "all",
        "an",
        "or",
        "from",
        "at",
        "which",
        "should",
        "must",
        "service",
        "database",
        "queue",
        "cache",
        "request",
        "response",
        "client",
        "server",
        "deploy",
        "build",
        "test",
        "migration",
        "schema",
        "table",
        "index",
        "api",
        "token",
        "user",
        "tenant",
        "order",
        "payment",
        "invoice",
        "billing",
        "export",
        "job",
        "worker",
        "retry",
        "timeout",
        "latency",
        "error",
        "log",
        "metric",
        "alert",
        "config",
        "secret",
        "key",
        "region",
        "backup",
        "restore",
        "release",
        "branch",
    ]
)


def vocabulary(rng: random.Random, size: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = set(COMMON)
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 11))))
    return sorted(words)


def generate(root: Path, count: int, seed: int = 7) -> list[str]:
    """Write `count` fact files (the format memory_write writes) and return the vocabulary."""
    rng = random.Random(seed)
    vocab = vocabulary(rng, 6000)
    rare = vocab[len(COMMON) :]
    facts = root / ".foundry" / "memory" / "facts"
    facts.mkdir(parents=True)
    old = time.time() - 3600
    for n in range(1, count + 1):
        words = [rng.choice(COMMON) if rng.random() < 0.55 else rng.choice(rare) for _ in range(rng.randint(85, 115))]
        title = " ".join(rng.choice(rare) for _ in range(rng.randint(4, 8))).capitalize()
        tags = ", ".join(rng.sample(rare, rng.randint(3, 5)))
        ftype = rng.choice(TYPES)
        body = " ".join(words) + "."
        if ftype in ("decision", "risk") and rng.random() < 0.9:
            body += "\n\n**Why:** " + " ".join(rng.choice(rare) for _ in range(6)) + "."
        supersedes = f"fact-{n - 1:04d}" if n > 1 and rng.random() < 0.03 else "null"
        expires = "2026-01-01" if rng.random() < 0.03 else "null"
        path = facts / f"fact-{n:04d}.md"
        path.write_text(
            f"---\nid: fact-{n:04d}\ntype: {ftype}\nscope: project\ntitle: {title}\ntags: [{tags}]\n"
            f"confidence: {rng.choice(('high', 'medium', 'low'))}\nsource: conversation\ncreated: 2026-05-01\n"
            f"expires: {expires}\nsupersedes: {supersedes}\n---\n\n{body}\n"
        )
        os.utime(path, (old, old))  # settled files, as in a real repository
    return vocab


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def queries(vocab: list[str], count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 3))) for _ in range(count)]


def bench(count: int) -> dict[str, str]:
    base = Path(tempfile.mkdtemp(prefix=f"foundry-bench-{count}-"))
    os.environ["FOUNDRY_CACHE_DIR"] = str(base / "cache")
    root = base / "project"
    try:
        vocab = generate(root, count)
        qs = queries(vocab, 300)
        row: dict[str, str] = {"facts": f"{count:,}"}

        project = Project(root)
        row["cold load"] = f"{timed(project.store.refresh):.0f} ms"
        row["warm load"] = f"{timed(FactStore(project.layout).refresh):.0f} ms"

        oneshot = [timed(lambda q=q: memory_search(Project(root), q, TODAY)) for q in qs[:20]]
        row["one-shot search p50"] = f"{percentiles(oneshot)[0]:.1f} ms"

        live = Project(root)
        live.sync()
        row["index build"] = f"{timed(live.use_search_index):.0f} ms"  # in a thread in the MCP server / TUI
        live.watch()
        time.sleep(0.3)
        samples = [timed(lambda q=q: memory_search(live, q, TODAY)) for q in qs]
        p50, p95 = percentiles(samples)
        row["warm search p50"] = f"{p50:.2f} ms"
        row["warm search p95"] = f"{p95:.2f} ms"
        # An edit on disk, appended in place by another writer: how long until a search sees it?
        target = root / ".foundry/memory/facts/fact-0001.md"
        with target.open("a") as handle:
            handle.write("\nzzqbenchmarker\n")
        start = time.perf_counter()
        while not memory_search(live, "zzqbenchmarker", TODAY)[1]:
            if time.perf_counter() - start > 5:
                break
            time.sleep(0.005)
        row["edit visible after"] = f"{(time.perf_counter() - start) * 1000:.0f} ms"
        live.close()

        row["index rebuild"] = f"{timed(lambda: memory_index(project, TODAY)):.0f} ms"
        project.sync()
        row["prune"] = f"{timed(lambda: render_prune(prune_candidates(project.store, TODAY))):.0f} ms"
        row["doctor"] = f"{timed(lambda: run_doctor(project, TODAY)):.0f} ms"
        req = WriteRequest(title="Benchmark writes one more fact", body="**Why:** measured.", type="decision")
        row["memory_write"] = f"{timed(lambda: memory_write(project, req, TODAY)):.0f} ms"
        return row
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    rows = [bench(n) for n in args.sizes]
    keys = list(rows[0])
    width = max(len(k) for k in keys)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    for key in keys:
        print(f"{key:<{width}}  " + "  ".join(f"{row[key]:>12}" for row in rows))


if __name__ == "__main__":
    main()
