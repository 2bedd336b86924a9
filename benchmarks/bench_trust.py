"""Benchmark of the trust gate (a benchmark, not a test).

Over N generated facts (benchmarks/bench_memory.py's generator), in one process with the
memory loaded: memory_write called directly, through the gate as a trusted principal,
and parked by an untrusted one (each the median of several fresh titles); then
`foundry hook session-start` as a whole process with and without preferences to inject.

    python benchmarks/bench_trust.py                  # 10,000 facts
    python benchmarks/bench_trust.py --facts 1000 --repeat 9
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_memory import foundry_command, generate, timed

from foundry_tui.core.gate.guard import guarded_memory_write
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.writing.write import memory_write
from foundry_tui.core.paths import resolve_today
from foundry_tui.core.trust.preferences import save_preferences
from foundry_tui.core.trust.principal import Caller, Principal

TODAY = resolve_today("2026-11-30")


def _hook_ms(root: Path, env: dict[str, str], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [*foundry_command(), "--root", str(root), "hook", "session-start"],
            input="{}",
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="foundry-bench-trust-"))
    os.environ["FOUNDRY_CACHE_DIR"] = str(base / "cache")
    os.environ["FOUNDRY_DATA_DIR"] = str(base / "data")
    root = base / "project"
    try:
        generate(root, args.facts)
        (root / ".foundry" / "config.json").write_text(json.dumps({"trust": {"trusted": ["user:alice"]}}))
        project = Project(root)
        project.sync()
        alice, bob = Caller(Principal("user", "alice")), Caller(Principal("user", "bob"))

        def series(write: object, label: str) -> float:
            samples = []
            for n in range(args.repeat):
                req = WriteRequest(f"Benchmark {label} fact number {n}", "**Why:** measured.", "decision")
                samples.append(timed(lambda req=req: write(req)))  # type: ignore[operator]
            return statistics.median(samples)

        rows = {
            "memory_write, direct": series(lambda r: memory_write(project, r, TODAY), "direct"),
            "through the gate, trusted": series(lambda r: guarded_memory_write(project, alice, r, TODAY), "trusted"),
            "through the gate, parked": series(lambda r: guarded_memory_write(project, bob, r, TODAY), "parked"),
        }
        env = {**os.environ, "FOUNDRY_PRINCIPAL": "user:alice", "FOUNDRY_TODAY": "2026-11-30"}
        _hook_ms(root, env, 1)  # fill the parse cache, as any session after the first finds it
        rows["hook session-start, no preferences"] = _hook_ms(root, env, args.repeat)
        save_preferences(alice, "Base branch: develop. " * 200)
        rows["hook session-start, 4,400 characters of preferences"] = _hook_ms(root, env, args.repeat)
        print(f"{args.facts:,} facts, median of {args.repeat}:")
        for label, ms in rows.items():
            print(f"  {label:<52} {ms:7.1f} ms")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
