"""The word index of long-lived processes (core/memory/search/word_index.py) on its own: build time,
memory and warm search time, outside the TUI and the MCP server (issue 13).

For each size, bench_memory.generate's facts are written and loaded (parse cache warm),
then, in a fresh process: the CPU seconds of building the index (best of --repeats), the
resident memory it adds (VmRSS after the build minus before; and the peak, VmHWM), and the
CPU time of a warm spec-ranker search through Project.search (median over 40 queries of
each query's best of 7). With --baseline, the same in another tree (its `foundry_tui`
first on the path), alternating, so that both see the same machine state.

    python benchmarks/bench_word_index.py --sizes 10000 100000
    python benchmarks/bench_word_index.py --sizes 100000 --baseline ../main
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import datetime as dt, gc, json, os, statistics, sys, time
from pathlib import Path
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search.word_index import SearchIndex
sys.path.append({bench!r})
from bench_memory import queries  # after foundry_tui: it puts its own tree first on the path

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
    return 0.0

root, repeats = Path({root!r}), {repeats}
project = Project(root)
project.sync()
facts = dict(project.store.facts)
gc.collect()
before = status("VmRSS:")
builds = []
for _ in range(repeats):
    start = time.process_time()
    index = SearchIndex()
    index.sync(facts, 1)
    builds.append(time.process_time() - start)
    if len(builds) < repeats:
        del index
        gc.collect()
gc.collect()
after = status("VmRSS:")
project.use_search_index()
today = dt.date(2026, 11, 30)
qs = queries(json.loads(Path({vocab!r}).read_text()), 40, seed=5)
for q in qs:
    project.search(q, today)
best = {{}}
for _ in range(7):
    for q in qs:
        start = time.process_time()
        project.search(q, today)
        best[q] = min(best.get(q, 1e9), (time.process_time() - start) * 1000)
import foundry_tui
print(json.dumps({{"build": min(builds), "rss": after - before, "peak": status("VmHWM:"),
                  "search": statistics.median(best.values()), "code": foundry_tui.__file__}}))
"""


def measure(root: Path, vocab: Path, cache: Path, code: Path | None, repeats: int) -> dict[str, float]:
    env = {**os.environ, "FOUNDRY_CACHE_DIR": str(cache), "FOUNDRY_TODAY": "2026-11-30"}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    script = CHILD.format(bench=str(HERE), root=str(root), vocab=str(vocab), repeats=repeats)
    # From the facts' folder: `python -c` puts the working directory first on the path.
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=root, capture_output=True, text=True, check=True)
    got: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="index builds per process (best CPU time; the memory is read after the last)",
    )
    parser.add_argument("--baseline", type=Path, help="another tree to measure alongside (e.g. ../main)")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_memory import generate

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    trees: list[tuple[str, Path | None]] = [("this tree", None)]
    if args.baseline is not None:
        trees.append((str(args.baseline), args.baseline.resolve()))
    for count in args.sizes:
        base = Path(tempfile.mkdtemp(prefix=f"foundry-word-index-{count}-"))
        try:
            vocab = base / "vocab.json"
            vocab.write_text(json.dumps(generate(base / "project", count)))
            measure(base / "project", vocab, base / "cache", None, 1)  # the parse cache, written once
            for label, code in trees:
                got = measure(base / "project", vocab, base / "cache", code, args.repeats)
                print(
                    f"{count:,} facts, {label}: index build {got['build']:.2f} s CPU (best of {args.repeats}); "
                    f"resident memory it adds {got['rss']:.0f} MB (process peak {got['peak']:.0f} MB); "
                    f"warm search {got['search']:.2f} ms CPU (median of 40 queries, best of 7 each); {got['code']}",
                    flush=True,
                )
        finally:
            shutil.rmtree(base, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
