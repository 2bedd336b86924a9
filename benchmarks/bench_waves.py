"""What `foundry blackboard waves` and each reload of the F3 board cost: `inspect_waves`
(read every artifact, validate it against its contract, place its violations) on a run of
WAVES waves of AGENTS artifacts each, a fifth of them invalid; and the board's reload after
an agent writes one more (with the WaveCache the screen keeps). Best of 5 runs. Then the
real app (Pilot, the file watcher on): from blackboard_write returning to the artifact in
the F3 board's artifacts pane, best of 5.

    python benchmarks/bench_waves.py [--waves 20] [--agents 10]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import shutil
import tempfile
import time
from pathlib import Path

from textual.widgets.tree import TreeNode

from foundry_tui.core.artefacts.blackboard import blackboard_write
from foundry_tui.core.artefacts.waves import InspectedArtifact, WaveCache, inspect_waves
from foundry_tui.core.paths import Layout
from foundry_tui.tui.board.artifact_tree import ArtifactTree

FINDING = {
    "title": "Checkout p95 regressed",
    "severity": "medium",
    "location": "src/shop/checkout/totals.py:57",
    "failureScenario": "A cart with 40 lines takes 900 ms to price.",
    "recommendation": "Cache the tax rates per region for a minute.",
}


async def board_latency(root: Path) -> float:
    """Milliseconds from a write to its artifact in the board's artifacts pane (best of 5)."""
    from foundry_tui.tui.app import FoundryApp

    app = FoundryApp(root, datetime.date(2026, 11, 30), watch=True, root_label="bench")
    best = float("inf")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f3")
        await asyncio.sleep(1.0)  # the first load, and the watcher's OS watch in place
        tree = app.screen.query_one(ArtifactTree)
        for run in range(5):
            begin = time.perf_counter()
            assert blackboard_write(Layout(root), "live", f"writer-{run}", "finding.v1", FINDING).written
            key = f"live/writer-{run}.json"
            while not any(leaf.data is not None and leaf.data.key == key for leaf in _leaves(tree)):
                await asyncio.sleep(0.005)
            best = min(best, time.perf_counter() - begin)
            await asyncio.sleep(0.3)
    return best * 1000


def _leaves(tree: ArtifactTree) -> list[TreeNode[InspectedArtifact | None]]:
    return [leaf for wave in tree.root.children for leaf in wave.children]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--waves", type=int, default=20)
    parser.add_argument("--agents", type=int, default=10)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-waves-"))
    try:
        layout = Layout(root)
        layout.blackboard_dir.mkdir(parents=True)
        for wave in range(args.waves):
            for agent in range(args.agents):
                assert blackboard_write(layout, f"wave-{wave:03d}", f"agent-{agent:02d}", "finding.v1", FINDING).written
                if agent % 5 == 0:  # made invalid by hand afterwards, as a careless tool would
                    path = layout.blackboard_dir / f"wave-{wave:03d}" / f"agent-{agent:02d}.json"
                    path.write_text(path.read_text().replace('"failureScenario"', '"scenario"'))
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            waves = inspect_waves(layout)
            best = min(best, time.perf_counter() - start)
        count = sum(len(w.items) for w in waves)
        invalid = sum(w.invalid for w in waves)
        print(f"inspect_waves: {len(waves)} waves, {count} artifacts ({invalid} invalid): {best * 1000:.1f} ms")
        reload = float("inf")
        for run in range(5):
            cache = WaveCache()
            inspect_waves(layout, cache)
            assert blackboard_write(layout, "late", f"agent-{run}", "finding.v1", FINDING).written
            start = time.perf_counter()
            inspect_waves(layout, cache)
            reload = min(reload, time.perf_counter() - start)
        print(f"the board's reload after one more artifact: {reload * 1000:.1f} ms")
        print(f"written to shown on the board (watcher on): {asyncio.run(board_latency(root)):.0f} ms")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
