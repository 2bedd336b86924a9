"""Benchmark of the hooks with session memory (a benchmark, not a test).

Copies the bundled demo project to a temporary folder, writes a Claude Code transcript
of TURNS assistant turns, and times `foundry hook user-prompt-submit` and `foundry hook
session-start` as whole processes (median of RUNS each) with a payload that names a
session and the transcript, as Claude Code sends it. Every run appends one more turn to
the transcript, so each run reads new usage, as in a real session.

    python benchmarks/bench_session_hook.py
    python benchmarks/bench_session_hook.py --runs 21 --turns 400
    python benchmarks/bench_session_hook.py --source /tmp/baseline   # another checkout, side by side
    python benchmarks/bench_session_hook.py --with-server            # with the agent's MCP server running
    python benchmarks/bench_session_hook.py --set heldout6 [--facts 1000] [--ranker bm25] [--with-server]

With `--source DIR` (one or more), each hook is also timed with DIR first on PYTHONPATH,
interleaved run by run with this checkout, so that a busy machine slows both alike (the
CPU time each hook process used is printed too: it is steadier than wall time under load);
`git archive <commit> | tar -x -C DIR` gives the code of the commit before a change.

With `--set NAME`, the memory is the retrieval benchmark's generated one (benchmarks/retrieval_corpus.py,
`--facts` facts, 1,000 by default, as the hook's relevance is measured) instead of the demo, and
user-prompt-submit is run once per prompt of benchmarks/data/hook_prompts.json's `known_NAME` and
`unknown_NAME`, each as a whole process: it prints the wall and CPU medians over those prompts, and
for this checkout the known prompts whose fact is injected at all and first, and the unknown ones
that inject nothing, as seen in the process's output. "heldout6" is issue 29's held-out set: score it once.
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
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from retrieval_corpus import write_corpus  # noqa: E402  (the benchmarks are scripts, not a package)

from foundry_tui.demo import make_demo_copy  # noqa: E402

PROMPTS = json.loads((HERE / "data" / "hook_prompts.json").read_text(encoding="utf-8"))


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


def named_prompts(name: str) -> list[tuple[str, str | None]]:
    """(prompt, its target fact's key, or None for a prompt about nothing the memory knows) of the
    named set of hook_prompts.json: the known prompts, then the unknown ones."""
    known = [(k["prompt"], k["target"]) for k in PROMPTS[f"known_{name}"]]
    return known + [(prompt, None) for prompt in PROMPTS[f"unknown_{name}"]]


def injected_facts(stdout: bytes) -> list[str]:
    """The ids of the facts a user-prompt-submit answer injects, in order."""
    if not stdout.strip():
        return []
    context = json.loads(stdout)["hookSpecificOutput"]["additionalContext"]
    return [line.split()[1] for line in context.splitlines() if line.startswith("### fact-")]


def relevance(answers: list[tuple[list[str], str | None]]) -> str:
    """Known prompts whose fact is injected / first, unknown prompts that inject nothing."""
    known = [(facts, target) for facts, target in answers if target is not None]
    unknown = [facts for facts, target in answers if target is None]
    anywhere = sum(target in facts for facts, target in known)
    first = sum(facts[:1] == [target] for facts, target in known)
    quiet = sum(not facts for facts in unknown)
    return f"known: injected {anywhere}/{len(known)}, first {first}/{len(known)}; unknown: quiet {quiet}/{len(unknown)}"


# The session part alone, in one fresh process: importing it (sqlite3 included) and one call.
IN_PROCESS = """
import statistics, sys, time
from pathlib import Path
import foundry_tui.hooks  # what the hook has loaded before the session part
start = time.perf_counter()
from foundry_tui.core.paths import Layout
from foundry_tui.core.sessions.context import hook_session_context
from foundry_tui.core.sessions import store
import sqlite3
imported = (time.perf_counter() - start) * 1000
root, session, transcript, runs = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
event = {"session_id": session, "transcript_path": transcript}
calls = []
for _ in range(runs):
    start = time.perf_counter()
    hook_session_context(Layout(root), event, 30_000, 40_000)
    calls.append((time.perf_counter() - start) * 1000)
print(f"session part in process: imports {imported:.1f} ms once, then each hook's call median "
      f"{statistics.median(calls):.2f} ms (opens the store, records the agent, reads the transcript, "
      f"checks the triggers, reads the tiers)")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--source", nargs="*", default=[], help="other checkouts to time side by side")
    parser.add_argument(
        "--with-server",
        action="store_true",
        help="keep this checkout's `foundry mcp` running meanwhile, as in a real agent session (it holds the store open)",
    )
    parser.add_argument(
        "--set",
        metavar="NAME",
        choices=sorted(name.removeprefix("known_") for name in PROMPTS if name.startswith("known_")),
        help="run user-prompt-submit on this named set's prompts over the generated memory, e.g. heldout6",
    )
    parser.add_argument("--facts", type=int, default=1000, help="with --set: the generated memory's size")
    parser.add_argument(
        "--ranker", help="with --set: the ranker config.json names (memoryRetrieval.ranker); default: none named"
    )
    args = parser.parse_args()
    if args.ranker is not None and args.set is None:
        parser.error("--ranker goes with --set")
    # Byte-compiled, as an installed package is (PYTHONDONTWRITEBYTECODE would make every run compile).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for folder in [str(Path(__file__).resolve().parent.parent / "foundry_tui"), *args.source]:
        subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=True)
    scratch = None
    ids: dict[str, str] = {}
    if args.set is None:
        root = make_demo_copy()
    else:
        scratch = Path(tempfile.mkdtemp(prefix="foundry-hook-set-"))
        os.environ["FOUNDRY_CACHE_DIR"] = str(scratch / "cache")
        os.environ["FOUNDRY_TODAY"] = "2026-11-30"  # the day the relevance benchmarks search on
        root = scratch / "project"
        ids = write_corpus(root, args.facts)
        if args.ranker is not None:
            config = {"memoryRetrieval": {"ranker": args.ranker}}
            (root / ".foundry" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    server = None
    if args.with_server:
        server = subprocess.Popen(
            [sys.executable, "-m", "foundry_tui", "mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert server.stdin is not None and server.stdout is not None
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}).encode())
        server.stdin.write(b"\n")
        server.stdin.flush()
        server.stdout.readline()
        time.sleep(2)  # the warm-up opens the store after the reply
    sources = {"this checkout": None, **{f"--source {s}": s for s in args.source}}
    try:
        session = "bench-" + uuid.uuid4().hex[:8]
        transcript = root / "transcript.jsonl"
        transcript.write_text("".join(turn(session, i) for i in range(args.turns)), encoding="utf-8")
        counter = args.turns
        command = [sys.executable, "-m", "foundry_tui", "--root", str(root), "hook"]
        if args.set is not None:
            prompts = named_prompts(args.set)
            times = {label: [] for label in sources}
            cpu = {label: [] for label in sources}
            answers: list[tuple[list[str], str | None]] = []
            for prompt, target in [prompts[0], *prompts]:  # the first run fills the caches
                for label, source in sources.items():
                    env = {**os.environ, "PYTHONPATH": source} if source else None
                    payload = json.dumps(
                        {
                            "session_id": session,
                            "transcript_path": str(transcript),
                            "cwd": str(root),
                            "hook_event_name": "UserPromptSubmit",
                            "prompt": prompt,
                        }
                    ).encode()
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    start = time.perf_counter()
                    run = subprocess.run(
                        [*command, "user-prompt-submit"], input=payload, capture_output=True, check=True, env=env
                    )
                    times[label].append((time.perf_counter() - start) * 1000)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu[label].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
                    if source is None:
                        answers.append((injected_facts(run.stdout), None if target is None else ids[target]))
            ranker = args.ranker or "the engine's default"
            print(f"{args.set}: {len(prompts)} prompts at {args.facts:,} facts, ranker {ranker}, one process each")
            for label, samples in times.items():
                print(
                    f"hook user-prompt-submit ({label}): wall median {statistics.median(samples[1:]):.1f} ms, "
                    f"CPU (user+sys) median {statistics.median(cpu[label][1:]):.1f} ms"
                )
            print(f"relevance (this checkout, {args.set}): {relevance(answers[1:])}")
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
        in_process = subprocess.run(
            [sys.executable, "-c", IN_PROCESS, str(root), session, str(transcript), str(args.runs)],
            capture_output=True,
            text=True,
            check=True,
        )
        print(in_process.stdout.strip())
        start = time.perf_counter()
        for _ in range(args.runs):
            subprocess.run([sys.executable, "-c", "pass"], check=True)
        print(f"python -c pass: mean {(time.perf_counter() - start) * 1000 / args.runs:.1f} ms")
    finally:
        if server is not None:
            server.kill()
            server.wait()
        shutil.rmtree(root if scratch is None else scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
