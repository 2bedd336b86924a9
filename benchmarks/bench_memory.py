"""Benchmark of the memory engine and its agent side over generated facts (a benchmark, not a test).

Generates N synthetic facts (realistic ~100-word bodies, 3-5 tags) in a temporary
folder and prints, for each N: cold load (parse every file), warm load (from the
parse cache), search p50/p95 (one-shot scan, and in a long-lived process with the
word index and the file watcher), how long an edit on disk takes to show in that
process, index rebuild, prune, doctor and one memory_write.

The agent side, side by side in one run: spawn of `foundry mcp` to its initialize
reply against `node -e ''`; memory_search through a running server (the first call
after start, then p50/p95 once its word index is built, and how long an edit on disk
takes to show); and `foundry hook user-prompt-submit` as a whole process.

    python benchmarks/bench_memory.py                 # 1,000 and 10,000 facts
    python benchmarks/bench_memory.py --sizes 1000 10000 100000
    python benchmarks/bench_memory.py --agent-only    # just the server and hook figures
"""

from __future__ import annotations

import argparse
import json
import os
import random
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from foundry_tui.core.curation.neardup import find_dupes
from foundry_tui.core.memory.model.facts import TYPES
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.doctor import run_doctor
from foundry_tui.core.memory.reports.prune import prune_candidates, render_prune
from foundry_tui.core.memory.search.reply import memory_search
from foundry_tui.core.memory.storage.store import FactStore
from foundry_tui.core.memory.writing.write import memory_index, memory_write
from foundry_tui.core.paths import resolve_today

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import command_line, conditions, markdown_table, write_section

DOC_SECTION = "memory"  # <!-- bench:memory --> in docs/benchmarks.md

TODAY = resolve_today("2026-11-30")
COMMON = tuple(
    [
        "the",
        "of",
        "and",
        "to",
        "in",
        "is",
        "that",
        "for",
        "it",
        "with",
        "as",
        "on",
        "be",
        "by",
        "this",
        "are",
        "we",
        "our",
        "use",
        "when",
        "not",
        "all",
        "an",
        "or",
        "from",
        "at",
        "which",
        "should",
        "must",
        "service",
        "database",
        "queue",
        "cache",
        "request",
        "response",
        "client",
        "server",
        "deploy",
        "build",
        "test",
        "migration",
        "schema",
        "table",
        "index",
        "api",
        "token",
        "user",
        "tenant",
        "order",
        "payment",
        "invoice",
        "billing",
        "export",
        "job",
        "worker",
        "retry",
        "timeout",
        "latency",
        "error",
        "log",
        "metric",
        "alert",
        "config",
        "secret",
        "key",
        "region",
        "backup",
        "restore",
        "release",
        "branch",
    ]
)


def vocabulary(rng: random.Random, size: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = set(COMMON)
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 11))))
    return sorted(words)


def generate(root: Path, count: int, seed: int = 7) -> list[str]:
    """Write `count` fact files (the format memory_write writes) and return the vocabulary."""
    rng = random.Random(seed)
    vocab = vocabulary(rng, 6000)
    rare = vocab[len(COMMON) :]
    facts = root / ".foundry" / "memory" / "facts"
    facts.mkdir(parents=True)
    old = time.time() - 3600
    for n in range(1, count + 1):
        words = [rng.choice(COMMON) if rng.random() < 0.55 else rng.choice(rare) for _ in range(rng.randint(85, 115))]
        title = " ".join(rng.choice(rare) for _ in range(rng.randint(4, 8))).capitalize()
        tags = ", ".join(rng.sample(rare, rng.randint(3, 5)))
        ftype = rng.choice(TYPES)
        body = " ".join(words) + "."
        if ftype in ("decision", "risk") and rng.random() < 0.9:
            body += "\n\n**Why:** " + " ".join(rng.choice(rare) for _ in range(6)) + "."
        supersedes = f"fact-{n - 1:04d}" if n > 1 and rng.random() < 0.03 else "null"
        expires = "2026-01-01" if rng.random() < 0.03 else "null"
        path = facts / f"fact-{n:04d}.md"
        path.write_text(
            f"---\nid: fact-{n:04d}\ntype: {ftype}\nscope: project\ntitle: {title}\ntags: [{tags}]\n"
            f"confidence: {rng.choice(('high', 'medium', 'low'))}\nsource: conversation\ncreated: 2026-05-01\n"
            f"expires: {expires}\nsupersedes: {supersedes}\n---\n\n{body}\n"
        )
        os.utime(path, (old, old))  # settled files, as in a real repository
    return vocab


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def queries(vocab: list[str], count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 3))) for _ in range(count)]


def bench(count: int) -> dict[str, str]:
    base = Path(tempfile.mkdtemp(prefix=f"foundry-bench-{count}-"))
    os.environ["FOUNDRY_CACHE_DIR"] = str(base / "cache")
    root = base / "project"
    try:
        vocab = generate(root, count)
        qs = queries(vocab, 300)
        row: dict[str, str] = {"facts": f"{count:,}"}

        project = Project(root)
        row["cold load"] = f"{timed(project.store.refresh):.0f} ms"
        row["warm load"] = f"{timed(FactStore(project.layout).refresh):.0f} ms"

        oneshot = [timed(lambda q=q: memory_search(Project(root), q, TODAY)) for q in qs[:20]]
        row["one-shot search p50"] = f"{percentiles(oneshot)[0]:.1f} ms"

        live = Project(root)
        live.sync()
        row["index build"] = f"{timed(live.use_search_index):.0f} ms"  # in a thread in the MCP server / TUI
        live.watch()
        time.sleep(0.3)
        samples = [timed(lambda q=q: memory_search(live, q, TODAY)) for q in qs]
        p50, p95 = percentiles(samples)
        row["warm search p50"] = f"{p50:.2f} ms"
        row["warm search p95"] = f"{p95:.2f} ms"
        # An edit on disk, appended in place by another writer: how long until a search sees it?
        target = root / ".foundry/memory/facts/fact-0001.md"
        with target.open("a") as handle:
            handle.write("\nzzqbenchmarker\n")
        start = time.perf_counter()
        while not memory_search(live, "zzqbenchmarker", TODAY)[1]:
            if time.perf_counter() - start > 5:
                break
            time.sleep(0.005)
        row["edit visible after"] = f"{(time.perf_counter() - start) * 1000:.0f} ms"
        live.close()

        row["index rebuild"] = f"{timed(lambda: memory_index(project, TODAY)):.0f} ms"
        project.sync()
        row["prune"] = f"{timed(lambda: render_prune(prune_candidates(project.store, TODAY))):.0f} ms"
        row["doctor"] = f"{timed(lambda: run_doctor(project, TODAY)):.0f} ms"
        row["near-duplicate scan"] = (
            f"{timed(lambda: find_dupes(project, TODAY)):.0f} ms" if count <= 20000 else "skipped"
        )
        req = WriteRequest(title="Benchmark writes one more fact", body="**Why:** measured.", type="decision")
        row["memory_write"] = f"{timed(lambda: memory_write(project, req, TODAY)):.0f} ms"
        return row
    finally:
        shutil.rmtree(base, ignore_errors=True)


def foundry_command() -> list[str]:
    script = Path(sys.executable).parent / "foundry"
    return [str(script)] if script.exists() else [sys.executable, "-m", "foundry_tui"]


INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


class Server:
    """A running `foundry mcp` with timed request/response over its stdio."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [*foundry_command(), "mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.sel = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.next_id = 1

    def request(self, method: str, params: dict[str, object]) -> tuple[float, dict[str, object]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.next_id += 1
        start = time.perf_counter()
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()
        self.sel.select(30)
        answer = json.loads(self.proc.stdout.readline())
        return (time.perf_counter() - start) * 1000, answer

    def search(self, query: str) -> tuple[float, str]:
        ms, answer = self.request("tools/call", {"name": "memory_search", "arguments": {"query": query}})
        result = answer["result"]
        assert isinstance(result, dict)
        return ms, result["content"][0]["text"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def spawn_to_initialize() -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*foundry_command(), "mcp", "--root", tempfile.gettempdir()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(INIT).encode() + b"\n")
    proc.stdin.flush()
    proc.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    proc.stdin.close()
    proc.wait()
    return elapsed


def node_start() -> float:
    start = time.perf_counter()
    subprocess.run(["node", "-e", ""], check=True)
    return (time.perf_counter() - start) * 1000


def bench_agent(sizes: list[int]) -> None:
    runs = 21
    ours = statistics.median(spawn_to_initialize() for _ in range(runs))
    try:
        node = statistics.median(node_start() for _ in range(runs))
        ratio = f"{ours / node:.2f}x node"
    except FileNotFoundError:
        node, ratio = float("nan"), "node not installed"
    print(
        f"spawn to initialize reply: foundry mcp {ours:.1f} ms, node -e '' {node:.1f} ms ({ratio}; bar: at most 0.5x)"
    )
    for count in sizes:
        base = Path(tempfile.mkdtemp(prefix=f"foundry-agent-{count}-"))
        os.environ["FOUNDRY_CACHE_DIR"] = str(base / "cache")
        root = base / "project"
        try:
            vocab = generate(root, count)
            qs = queries(vocab, 300, seed=5)
            # A previous session left the parse cache behind, as it would on a real machine.
            Project(root).sync()
            # The first search, sent the moment initialize is answered (the worst case: the
            # server is still loading); a median over fresh servers, as one start is noisy.
            firsts = []
            for attempt in range(7):
                fresh = Server(root)
                fresh.request("initialize", INIT["params"])  # type: ignore[arg-type]
                firsts.append(fresh.search(qs[attempt])[0])
                fresh.close()
            first = statistics.median(firsts)
            server = Server(root)
            server.request("initialize", INIT["params"])  # type: ignore[arg-type]
            server.search(qs[0])
            time.sleep(max(2.0, count / 5000))  # the word index builds in the background
            samples = [server.search(q)[0] for q in qs]
            p50, p95 = percentiles(samples)
            target = root / ".foundry/memory/facts/fact-0002.md"
            with target.open("a") as handle:
                handle.write("\nqqzzvisible\n")
            start = time.perf_counter()
            while "### fact-0002" not in server.search("qqzzvisible")[1] and time.perf_counter() - start < 5:
                time.sleep(0.01)
            visible = (time.perf_counter() - start) * 1000
            server.close()
            event = json.dumps(
                {
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": f"How do we handle {qs[1]} and {qs[2]}?",
                    "cwd": str(root),
                }
            )
            hook_runs = []
            for _ in range(11):
                start = time.perf_counter()
                subprocess.run(
                    [*foundry_command(), "hook", "user-prompt-submit"],
                    input=event.encode(),
                    capture_output=True,
                    check=True,
                )
                hook_runs.append((time.perf_counter() - start) * 1000)
            print(
                f"{count:>7,} facts: server first search {first:.0f} ms (median of 7 starts, worst {max(firsts):.0f}; bar 150), search p50 {p50:.2f} ms / "
                f"p95 {p95:.2f} ms (bar p50 < 5), edit visible after {visible:.0f} ms (bar 1000); "
                f"hook user-prompt-submit {statistics.median(hook_runs):.0f} ms (bar 100 at 1,000, 250 at 10,000)"
            )
        finally:
            shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--agent-only", action="store_true", help="only the MCP server and hook figures")
    parser.add_argument(
        "--write-docs", action="store_true", help="also write the engine's table into docs/benchmarks.md"
    )
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    if not args.agent_only:
        rows = [bench(n) for n in args.sizes]
        keys = list(rows[0])
        width = max(len(k) for k in keys)
        for key in keys:
            print(f"{key:<{width}}  " + "  ".join(f"{row[key]:>12}" for row in rows))
        if args.write_docs:
            table = markdown_table(["", *(f"{n:,}" for n in args.sizes)], [[k, *(r[k] for r in rows)] for k in keys])
            write_section(DOC_SECTION, conditions(command_line(), load) + "\n\n" + table)
    bench_agent([n for n in args.sizes if n <= 10000])


if __name__ == "__main__":
    main()
