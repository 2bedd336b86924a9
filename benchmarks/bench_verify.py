"""Benchmark of verifying facts' refs against git (issue 30; a benchmark, not a test).

Makes a git repository of FILES source files in a temporary folder, writes N facts citing
one to three of them each (the refs recorded with the files' blob ids, as memory_write
records them), commits, then edits 2% of the files (half committed, half left in the
working copy) and renames 1% of them. Then times, in one process:

- cold: the first `verify_active` (git's index listing read, the parse cache built);
- warm: the median of the next RUNS calls (the listing cached against HEAD and the index;
  `git diff-files` still runs on each, the working copy is never assumed);
- cli: `foundry memory verify` as a whole process (median of 3), the details included;
- write: memory_write's median over WRITES writes without refs and WRITES with two refs
  given (alternating, in the same memory of N facts): what recording the refs costs (a
  write with refs asks git for the index listing, the ignored paths and the blob ids).

    python benchmarks/bench_verify.py [--sizes 1000 10000] [--files 2000] [--runs 7] [--writes 9] [--write-docs]

The bar (issue 30): 10,000 facts with refs verified in under 1 s warm.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import command_line, conditions, markdown_table, write_section
from foundry_tui.core.memory.model.facts import Fact, render_fact_text
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.grounding import verify_active
from foundry_tui.core.paths import resolve_today

TODAY = resolve_today("2026-11-30")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b.invalid", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def make_repo(root: Path, facts: int, files: int, rng: random.Random) -> None:
    git(root, "init", "-q", "-b", "main")
    paths = [f"src/pkg{n % 40}/module_{n}.py" for n in range(files)]
    for n, path in enumerate(paths):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"def f{n}():\n    return {n}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "code")
    blobs = {}
    for entry in git(root, "ls-files", "-s").splitlines():
        meta, path = entry.split("\t")
        blobs[path] = meta.split(" ")[1]
    facts_dir = root / ".foundry" / "memory" / "facts"
    facts_dir.mkdir(parents=True)
    for n in range(1, facts + 1):
        cited = rng.sample(paths, rng.randint(1, 3))
        fact = Fact(f"fact-{n:04d}", "domain", f"Module fact number {n}", f"About `{cited[0]}`.", created="2026-11-01")
        fact.extras = {"refs": [f"{p}@{blobs[p]}" for p in cited]}
        (facts_dir / f"{fact.id}.md").write_text(render_fact_text(fact))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "facts")
    changed = rng.sample(paths, files // 50)
    for path in changed[: len(changed) // 2]:
        (root / path).write_text((root / path).read_text() + "# edited\n")
    git(root, "commit", "-q", "-am", "edits")
    for path in changed[len(changed) // 2 :]:
        (root / path).write_text((root / path).read_text() + "# uncommitted\n")
    for path in rng.sample([p for p in paths if p not in changed], files // 100):
        git(root, "mv", path, path.replace(".py", "_moved.py"))
    git(root, "commit", "-q", "-m", "renames")


def measure_writes(project: Project, root: Path, writes: int) -> tuple[float, float]:
    """memory_write's median without refs and with two refs given (seconds), alternating."""
    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.core.memory.writing.write import memory_write

    cited = sorted(p for p in git(root, "ls-files", "src/pkg0").splitlines() if not p.endswith("_moved.py"))[:2]
    plain: list[float] = []
    with_refs: list[float] = []
    for k in range(writes):
        for refs, times in ((None, plain), (cited, with_refs)):
            name = "cited" if refs else "plain"
            request = WriteRequest(title=f"Bench write {name} {k}", body="A body.", type="domain", refs=refs)
            start = time.perf_counter()
            memory_write(project, request, TODAY)
            times.append(time.perf_counter() - start)
    return statistics.median(plain), statistics.median(with_refs)


def measure(size: int, files: int, runs: int, writes: int) -> list[object]:
    rng = random.Random(size)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_repo(root, size, files, rng)
        os.environ["FOUNDRY_CACHE_DIR"] = str(root / "cache")
        project = Project(root)
        start = time.perf_counter()
        verification = verify_active(project, TODAY)
        cold = time.perf_counter() - start
        warm = []
        for _ in range(runs):
            start = time.perf_counter()
            verify_active(project, TODAY)
            warm.append(time.perf_counter() - start)
        cli = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "foundry_tui",
                    "memory",
                    "verify",
                    "--root",
                    str(root),
                    "--today",
                    TODAY.isoformat(),
                ],
                check=True,
                capture_output=True,
            )
            cli.append(time.perf_counter() - start)
        plain, with_refs = measure_writes(project, root, writes)
        counts = verification.counts()
        states = ", ".join(f"{counts[s]} {s}" for s in ("fresh", "changed", "moved", "gone") if counts[s])
        return [
            f"{size:,}",
            f"{files:,}",
            states,
            f"{cold * 1000:.0f} ms",
            f"{statistics.median(warm) * 1000:.0f} ms",
            f"{statistics.median(cli) * 1000:.0f} ms",
            f"{plain * 1000:.1f} ms",
            f"{with_refs * 1000:.1f} ms (+{(with_refs - plain) * 1000:.1f})",
        ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--writes", type=int, default=9)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    header = [
        "facts with refs",
        "files",
        "states",
        "cold",
        "warm (median)",
        "`foundry memory verify`",
        "memory_write, no refs",
        "memory_write, 2 refs",
    ]
    rows = [measure(size, args.files, args.runs, args.writes) for size in args.sizes]
    table = markdown_table(header, rows)
    print(table)
    if args.write_docs:
        write_section("verify", f"{conditions(command_line(), load)}\n\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
