"""Benchmark of the hooks with session memory (a benchmark, not a test).

Copies the bundled demo project to a temporary folder, writes a Claude Code transcript
of TURNS assistant turns, and times `foundry hook user-prompt-submit` and `foundry hook
session-start` as whole processes (median of RUNS each) with a payload that names a
session and the transcript, as Claude Code sends it. Every run appends one more turn to
the transcript, so each run reads new usage, as in a real session.

    python benchmarks/bench_session_hook.py
    python benchmarks/bench_session_hook.py --runs 21 --turns 400
    python benchmarks/bench_session_hook.py --source /tmp/baseline   # another checkout, side by side

With `--source DIR` (one or more), each hook is also timed with DIR first on PYTHONPATH,
interleaved run by run with this checkout, so that a busy machine slows both alike (the
CPU time each hook process used is printed too: it is steadier than wall time under load);
`git archive <commit> | tar -x -C DIR` gives the code of the commit before a change.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from foundry_tui.demo import make_demo_copy


def turn(session: str, index: int) -> str:
    usage = {
        "input_tokens": 6,
        "cache_creation_input_tokens": 900,
        "cache_read_input_tokens": 20000,
        "output_tokens": 300,
    }
    entry = {
        "type": "assistant",
        "uuid": str(uuid.uuid4()),
        "sessionId": session,
        "isSidechain": False,
        "timestamp": "2026-11-30T09:00:00.000Z",
        "message": {
            "id": f"msg_{index:08d}",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Done. " * 40}],
            "usage": usage,
        },
    }
    return json.dumps(entry) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--source", nargs="*", default=[], help="other checkouts to time side by side")
    args = parser.parse_args()
    root = make_demo_copy()
    sources = {"this checkout": None, **{f"--source {s}": s for s in args.source}}
    try:
        session = "bench-" + uuid.uuid4().hex[:8]
        transcript = root / "transcript.jsonl"
        transcript.write_text("".join(turn(session, i) for i in range(args.turns)), encoding="utf-8")
        counter = args.turns
        command = [sys.executable, "-m", "foundry_tui", "--root", str(root), "hook"]
        for event, extra in (
            (
                "user-prompt-submit",
                {"hook_event_name": "UserPromptSubmit", "prompt": "how do we run database migrations?"},
            ),
            ("session-start", {"hook_event_name": "SessionStart", "source": "startup"}),
        ):
            payload = json.dumps(
                {"session_id": session, "transcript_path": str(transcript), "cwd": str(root), **extra}
            ).encode()
            times: dict[str, list[float]] = {label: [] for label in sources}
            cpu: dict[str, list[float]] = {label: [] for label in sources}
            for _ in range(args.runs + 1):
                for label, source in sources.items():
                    env = {**os.environ, "PYTHONPATH": source} if source else None
                    with transcript.open("a", encoding="utf-8") as handle:
                        handle.write(turn(session, counter))
                    counter += 1
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    start = time.perf_counter()
                    subprocess.run([*command, event], input=payload, capture_output=True, check=True, env=env)
                    times[label].append((time.perf_counter() - start) * 1000)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu[label].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
            for label, samples in times.items():
                samples = samples[1:]  # the first run fills the caches
                print(
                    f"hook {event} ({label}): wall median {statistics.median(samples):.1f} ms, "
                    f"min {min(samples):.1f} ms; CPU (user+sys) median {statistics.median(cpu[label][1:]):.1f} ms "
                    f"({args.runs} runs)"
                )
        start = time.perf_counter()
        for _ in range(args.runs):
            subprocess.run([sys.executable, "-c", "pass"], check=True)
        print(f"python -c pass: mean {(time.perf_counter() - start) * 1000 / args.runs:.1f} ms")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
