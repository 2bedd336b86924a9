"""Benchmark of the hooks with session memory (a benchmark, not a test).

Copies the bundled demo project to a temporary folder, writes a Claude Code transcript
of TURNS assistant turns, and times `foundry hook user-prompt-submit` and `foundry hook
session-start` as whole processes (median of RUNS each) with a payload that names a
session and the transcript, as Claude Code sends it. Every run appends one more turn to
the transcript, so each run reads new usage, as in a real session.

    python benchmarks/bench_session_hook.py
    python benchmarks/bench_session_hook.py --runs 21 --turns 400
"""

from __future__ import annotations

import argparse
import json
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
    args = parser.parse_args()
    root = make_demo_copy()
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
            subprocess.run([*command, event], input=payload, capture_output=True, check=True)  # warm the caches
            times = []
            for _ in range(args.runs):
                with transcript.open("a", encoding="utf-8") as handle:
                    handle.write(turn(session, counter))
                counter += 1
                start = time.perf_counter()
                subprocess.run([*command, event], input=payload, capture_output=True, check=True)
                times.append((time.perf_counter() - start) * 1000)
            print(f"hook {event}: median {statistics.median(times):.1f} ms, min {min(times):.1f} ms ({args.runs} runs)")
        start = time.perf_counter()
        for _ in range(args.runs):
            subprocess.run([sys.executable, "-c", "pass"], check=True)
        print(f"python -c pass: mean {(time.perf_counter() - start) * 1000 / args.runs:.1f} ms")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
