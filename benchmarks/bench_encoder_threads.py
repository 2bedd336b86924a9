"""The int8 sentence model's embedding speed with one intra-op thread against two, alternating,
on the retrieval corpus's first 128 facts shortest first (as Project.build_vectors feeds them):
facts per second (wall) and per CPU-second, with the load average before each run.

    python benchmarks/bench_encoder_threads.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from retrieval_corpus import build_corpus  # noqa: E402

from foundry_tui.core.memory.search.encoder_onnx import OnnxEncoder  # noqa: E402
from foundry_tui.core.memory.search.vectors import fact_text  # noqa: E402


def main() -> None:
    facts, _ids = build_corpus(10000)
    texts = sorted((fact_text(str(f["title"]), list(f["tags"]), str(f["body"])) for f in facts[:128]), key=len)  # type: ignore[call-overload]
    encoders = {"1 thread": OnnxEncoder.load(threads=1), "2 threads": OnnxEncoder.load(threads=2)}
    for encoder in encoders.values():
        encoder.encode(texts[:8])  # warm
    for round_ in range(2):
        for name, encoder in encoders.items():
            load = os.getloadavg()[0]
            wall, cpu = time.perf_counter(), time.process_time()
            encoder.encode(texts)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(
                f"round {round_}, {name} (load {load:.1f}): {len(texts) / wall:.1f} facts/s, "
                f"{len(texts) / cpu:.1f} per CPU-second",
                flush=True,
            )


if __name__ == "__main__":
    main()
