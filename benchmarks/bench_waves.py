"""What `foundry blackboard waves` and each reload of the F3 board cost: `inspect_waves`
(read every artifact, validate it against its contract, place its violations) on a run of
WAVES waves of AGENTS artifacts each, a fifth of them invalid; and the board's reload after
an agent writes one more (with the WaveCache the screen keeps). Best of 5 runs.

    python benchmarks/bench_waves.py [--waves 20] [--agents 10]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from foundry_tui.core.artefacts.blackboard import blackboard_write
from foundry_tui.core.artefacts.waves import WaveCache, inspect_waves
from foundry_tui.core.paths import Layout

FINDING = {
    "title": "Checkout p95 regressed",
    "severity": "medium",
    "location": "src/shop/checkout/totals.py:57",
    "failureScenario": "A cart with 40 lines takes 900 ms to price.",
    "recommendation": "Cache the tax rates per region for a minute.",
}


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
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
