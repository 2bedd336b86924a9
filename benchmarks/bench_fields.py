"""What the field checks cost: INDEX.md lines for 10,000 facts (each line is searched once
for control characters, and clipped only when over a limit) and memory_write's field
validation. Best of 9 runs; compare with a checkout without the checks by running this
script with PYTHONPATH pointing at it.

    python benchmarks/bench_fields.py
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.model.request import WriteRequest, validate_request
from foundry_tui.core.memory.reports.index_file import build_index, index_line

WORDS = ["alpha", "beta", "gamma", "delta", "café", "naïve", "schema", "deploy", "postgres", "queue"]


def best_ms(fn: Callable[[], object], runs: int = 9) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    rng = random.Random(7)
    facts = [
        Fact(
            id=f"fact-{n:04d}",
            type="domain",
            title=" ".join(rng.choice(WORDS) for _ in range(8)),
            body="x",
            tags=tuple(rng.choice(WORDS) for _ in range(4)),
        )
        for n in range(1, 10_001)
    ]
    request = WriteRequest(
        "Über-fast café builds need a warm cache", "**Why:** measured. " * 10, "decision", tags=["a"]
    )
    print(f"index_line × 10,000:       {best_ms(lambda: [index_line(f) for f in facts]):.1f} ms")
    print(f"build_index, 10,000 facts: {best_ms(lambda: build_index(facts, 10**9)):.1f} ms")
    print(f"validate_request × 1,000:  {best_ms(lambda: [validate_request(request) for _ in range(1000)]):.1f} ms")


if __name__ == "__main__":
    main()
