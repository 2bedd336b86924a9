"""Headless first paint of `foundry tui` in several source trees, alternating run by run: wall
and CPU seconds from the process's start to the first row of facts drawn (as `cmd_tui` starts:
collector paused, the preload started before Textual is imported). CPU time is steadier than
the terminal's wall time on a shared machine; compare it beside bench_speed_ab.py's tmux figures.

    python benchmarks/bench_paint_cpu.py TREE [TREE ...] --count 10000 --repeats 9
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_memory import generate  # noqa: E402

CHILD = r"""
import sys, time
t0, c0 = time.perf_counter(), time.process_time()
import asyncio, datetime
from pathlib import Path
from foundry_tui.tui import collector
collector.pause()
from foundry_tui.core.memory.project import Project
from foundry_tui.tui.preload import Preload
root = Path(sys.argv[1]); today = datetime.date(2026, 11, 30)
preload = Preload(Project(root), today).start()
from foundry_tui.tui.app import FoundryApp
try:
    from foundry_tui.tui.memory.index_pane import IndexPane
except ImportError:  # trees from before the TUI was grouped by feature
    from foundry_tui.tui.widgets.index_pane import IndexPane
seen = []
draw = IndexPane.render_line
def render_line(self, y):
    if self.rows and not seen:
        seen.append((time.perf_counter() - t0, time.process_time() - c0))
    return draw(self, y)
IndexPane.render_line = render_line
async def main():
    app = FoundryApp(root, today, watch=False, root_label="bench", preload=preload)
    async with app.run_test(size=(160, 45)) as pilot:
        while not seen:
            await asyncio.sleep(0.002)
asyncio.run(main())
print(*seen[0])
"""


def paint(tree: str, root: Path, env: dict[str, str]) -> tuple[float, float]:
    # In the tree's folder: `python -c` puts the working folder first on sys.path, before PYTHONPATH.
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(root)],
        cwd=tree,
        env=env | {"PYTHONPATH": tree},
        check=True,
        capture_output=True,
        text=True,
    )
    wall, cpu = map(float, out.stdout.split())
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", help="source trees of foundry-tui (git archive of commits, or variants)")
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    trees = [str(Path(tree).resolve()) for tree in args.trees]
    base = Path(tempfile.mkdtemp(prefix=f"foundry-paint-{args.count}-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["FOUNDRY_CACHE_DIR"] = str(base / "cache")
    try:
        root = base / "project"
        generate(root, args.count)
        print(f"load average {os.getloadavg()[0]:.1f} at start", flush=True)
        for tree in trees:
            paint(tree, root, env)  # bytecode written, parse cache warm
        runs: dict[str, list[tuple[float, float]]] = {tree: [] for tree in trees}
        for _ in range(args.repeats):
            for tree in trees:
                runs[tree].append(paint(tree, root, env))
        for tree, values in runs.items():
            walls = [wall * 1000 for wall, _cpu in values]
            cpus = [cpu * 1000 for _wall, cpu in values]
            print(
                f"{tree}: wall median {statistics.median(walls):.0f} ms ({min(walls):.0f}-{max(walls):.0f})   "
                f"cpu median {statistics.median(cpus):.0f} ms ({min(cpus):.0f}-{max(cpus):.0f})"
            )
        print(f"load average {os.getloadavg()[0]:.1f} at the end", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
