"""The peers benchmark runs end to end for foundry alone, at a tiny size (the peers are not installed here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_bench_peers_runs_for_foundry_alone(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_peers.py", "--peers", "foundry", "--counts", "100", "--concurrent", "5"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": str(Path(sys.executable).parent), "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    table = done.stdout[done.stdout.index("|  | foundry |") :].splitlines()
    assert table[:2] == ["|  | foundry |", "| --- | --- |"]
    assert [line.split(" | ")[0] for line in table[2:]] == [
        "| version",
        "| spawn to initialize",
        "| write p50 (into 100)",
        "| 2 writers x 5 at once: kept",
        "| first search, 100",
        "| warm search p50, 100",
        "| recall@8 / MRR (heldout4, 100)",
        "| resident memory, 100",
    ]
    assert "| 2 writers x 5 at once: kept | 10/10 |" in table
    assert not (tmp_path / ".cache" / "foundry-bench-peers").exists()  # foundry alone installs nothing
