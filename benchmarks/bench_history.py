"""Benchmark of the History screen's load (`memory_log` and the work tree's changes, as
HistoryScreen.load reads them) over facts with refs (issue 30, item 5; a benchmark, not a test).

Makes bench_verify's repository (FILES source files, N facts citing one to three each, 2%
of the files edited, 1% renamed), then COMMITS more commits, each editing a few cited and
uncited files (code only, no fact file), and a few fact commits between them. Times the
load's median over RUNS calls, in one process. Run it against another checkout (the
figures before a change) with `--against PATH`: the same repository, that checkout's code.

    python benchmarks/bench_history.py [--facts 1000] [--files 2000] [--commits 100] [--runs 5] [--against /work/main]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from benchmarks.bench_verify import git, make_repo  # noqa: E402

TIMER = """
import statistics, sys, time
from pathlib import Path
from foundry_tui.core.history.git_history import memory_log, uncommitted_changes
from foundry_tui.core.paths import Layout
layout, times = Layout(Path(sys.argv[1])), []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    uncommitted_changes(layout)
    log = memory_log(layout)
    times.append(time.perf_counter() - start)
codes = sum(1 for e in log.events if e.action == "code")
print(f"{statistics.median(times) * 1000:.0f} ms median, {len(log.events)} rows ({codes} code)")
"""


def add_commits(root: Path, commits: int, rng: random.Random) -> None:
    paths = git(root, "ls-files", "src").split()
    for n in range(commits):
        for path in rng.sample(paths, 3):
            (root / path).write_text((root / path).read_text() + f"# {n}\n")
        git(root, "commit", "-q", "-am", f"code {n}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--facts", type=int, default=1000)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--commits", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", type=Path, action="append", default=[])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rng = random.Random(7)
        make_repo(root, args.facts, args.files, rng)
        add_commits(root, args.commits, rng)
        for checkout in [HERE, *args.against]:
            done = subprocess.run(
                [sys.executable, "-c", TIMER, str(root), str(args.runs)],
                cwd=checkout,
                env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"},
                capture_output=True,
                text=True,
                check=True,
            )
            print(f"{checkout}: {done.stdout.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
