"""Two checkouts side by side: `foundry tui` first paint (with the bare Textual app) or the
first memory_search after `foundry mcp` starts, alternating A, B (and bare) run by run so
that both see the same load of a busy machine. Each tree is used through PYTHONPATH, so
pass two source trees of foundry-tui (for instance `git archive` of two commits), or more:
trees after the second (C, D, …) are variants measured in the same alternation.

    python benchmarks/bench_speed_ab.py /tmp/before /tmp/after --count 10000 --repeats 7 --what tui
    python benchmarks/bench_speed_ab.py /tmp/before /tmp/after --count 10000 --repeats 9 --what mcp
    python benchmarks/bench_speed_ab.py /tmp/before /tmp/after --count 10000 --repeats 21 --what mcp-init
    python benchmarks/bench_speed_ab.py /tmp/before /tmp/after --count 10000 --repeats 5 --what neardup
    python benchmarks/bench_speed_ab.py /tmp/before /tmp/after --count 100000 --repeats 3 --what cli-search
    python benchmarks/bench_speed_ab.py /tmp/before /tmp/after --root /tmp/big/project --repeats 3 --what cold-load

`--what mcp-init` times `foundry mcp` from spawn to its initialize reply (what every agent
session waits for), then the `tools/list` that follows it ("A tools/list", "B tools/list"),
with `node -e ''` (when node is on PATH) and `python -c pass` run to their exit in the same
alternation, and each tree's median as a multiple of node's (issue 33's bar: 0.25x).
`--what neardup` times `find_dupes` on bench_memory's facts (bench_speed.py's row), and
`--what neardup-varied` a scan of bench_neardup.py's varied text plus its labelled facts; each
run is a fresh process that prints its wall and CPU seconds. `--what cli-search` runs
`foundry memory search` (cache warm, a query of common words) as a whole process: its wall
seconds and peak resident memory ("A MB", "B MB", from wait4), and stops if two trees print
different hits. `--what cold-load` runs the same search as a first-ever load: each run with
an empty FOUNDRY_CACHE_DIR of its own, so every fact file is parsed and the derived cache
written; its wall seconds and CPU seconds ("A cpu", "B cpu": the process and the parsing
processes it waited for, from wait4), stopping if two trees print different replies.
`--root` searches an existing project instead of generating one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import bench_speed  # noqa: E402
from bench_memory import INIT, Server, generate, queries  # noqa: E402


def tui_runs(trees: dict[str, str], root: Path, env: dict[str, str], repeats: int) -> dict[str, list[float]]:
    terminal = bench_speed.Terminal(env)
    try:
        line = bench_speed.first_index_line(root)
        today = bench_speed.TODAY
        commands = {
            # From the tree's folder: `-m` puts the working folder first on sys.path, before
            # PYTHONPATH, so run from any checkout both would otherwise be that checkout. (`env -C`,
            # not `cd … &&`: the pane runs `exec COMMAND`, and `exec cd` is no command.)
            name: f"env -C {tree} PYTHONPATH={tree} {sys.executable} -m foundry_tui tui --root {root} --today {today}"
            for name, tree in trees.items()
        }
        commands["bare"] = f"{sys.executable} -c '{bench_speed.BARE_APP}'"
        expected = {name: line for name in trees} | {"bare": "bare app ready"}
        for name, command in commands.items():
            terminal.paint(command, expected[name])  # bytecode written, cache warm
        runs: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(repeats):
            for name, command in commands.items():
                runs[name].append(terminal.paint(command, expected[name])[0])
        return runs
    finally:
        terminal.close()


def mcp_runs(trees: dict[str, str], root: Path, env: dict[str, str], repeats: int) -> dict[str, list[float]]:
    qs = queries(generate_vocab[0], 40, seed=5)
    runs: dict[str, list[float]] = {name: [] for name in trees}
    old, here = dict(os.environ), os.getcwd()
    try:
        for attempt in range(repeats):
            for name, tree in trees.items():
                os.environ.clear()
                os.environ.update(env)  # bench_memory.Server inherits this process's environment
                os.environ["PYTHONPATH"] = tree
                os.chdir(tree)  # the server is `python -m`: the working folder comes before PYTHONPATH
                server = Server(root)
                server.request("initialize", INIT["params"])  # type: ignore[arg-type]
                runs[name].append(server.search(qs[attempt % len(qs)])[0])
                server.close()
    finally:
        os.chdir(here)
        os.environ.clear()
        os.environ.update(old)
    return runs


generate_vocab: list[object] = []


# What a start-up is compared with (issue 33's bar: `foundry mcp` at most 0.25x node's).
def references() -> dict[str, list[str]]:
    node = shutil.which("node")
    found = {"node -e ''": [node, "-e", ""]} if node is not None else {}
    return found | {"python -c pass": [sys.executable, "-c", "pass"]}


def mcp_init_runs(trees: dict[str, str], root: Path, env: dict[str, str], repeats: int) -> dict[str, list[float]]:
    """Milliseconds from spawning `foundry mcp` to its initialize reply, and of the tools/list after it."""
    runs: dict[str, list[float]] = {}
    old, here = dict(os.environ), os.getcwd()
    try:
        for attempt in range(repeats + 1):  # the first round writes bytecode and warms the disk cache
            for name, tree in trees.items():
                os.environ.clear()
                os.environ.update(env)  # bench_memory.Server inherits this process's environment
                os.environ["PYTHONPATH"] = tree
                os.chdir(tree)  # the server is `python -m`: the working folder comes before PYTHONPATH
                start = time.perf_counter()
                server = Server(root)
                server.request("initialize", INIT["params"])  # type: ignore[arg-type]
                spawned = (time.perf_counter() - start) * 1000
                listed = server.request("tools/list", {})[0]
                server.close()
                if attempt:
                    runs.setdefault(name, []).append(spawned)
                    runs.setdefault(f"{name} tools/list", []).append(listed)
            for name, command in references().items():  # in the same alternation, the same load
                start = time.perf_counter()
                subprocess.run(command, env=env, check=True)
                if attempt:
                    runs.setdefault(name, []).append((time.perf_counter() - start) * 1000)
    finally:
        os.chdir(here)
        os.environ.clear()
        os.environ.update(old)
    return runs


NEARDUP_VARIED = """
import sys, time
sys.path.insert(0, sys.argv[2])
from bench_neardup import labelled, varied_facts
from foundry_tui.core.curation.neardup import DupeFinder
facts, _pairs = labelled()
facts += varied_facts(int(sys.argv[1]), len(facts) + 1)
start, cpu = time.perf_counter(), time.process_time()
DupeFinder(facts).scan()
print(time.perf_counter() - start, time.process_time() - cpu)
"""
NEARDUP = bench_speed.NEARDUP.replace(
    "start = time.perf_counter()", "start, cpu = time.perf_counter(), time.process_time()"
)
NEARDUP = NEARDUP.replace(
    "print(time.perf_counter() - start)", "print(time.perf_counter() - start, time.process_time() - cpu)"
)


def neardup_runs(
    trees: dict[str, str], root: Path, env: dict[str, str], repeats: int, varied: int | None
) -> dict[str, list[float]]:
    """Wall seconds of each run, and (under "A cpu", "B cpu") CPU seconds."""
    runs: dict[str, list[float]] = {}
    for _ in range(repeats):
        for name, tree in trees.items():
            if varied is None:
                command = [sys.executable, "-c", NEARDUP, str(root), bench_speed.TODAY]
            else:
                command = [sys.executable, "-c", NEARDUP_VARIED, str(varied), str(HERE)]
            # In the tree's folder: `python -c` puts the working folder first on sys.path, before PYTHONPATH.
            out = subprocess.run(
                command, env=env | {"PYTHONPATH": tree}, cwd=tree, capture_output=True, text=True, check=True
            )
            wall, cpu = map(float, out.stdout.split())
            runs.setdefault(name, []).append(wall)
            runs.setdefault(f"{name} cpu", []).append(cpu)
    return runs


CLI_QUERY = "the error retry"  # common words: each in most facts (bench_memory.COMMON)


def cli_search_runs(trees: dict[str, str], root: Path, env: dict[str, str], repeats: int) -> dict[str, list[float]]:
    """Wall seconds of `foundry memory search` (under "A", "B") and its peak resident memory
    in MB (under "A MB", "B MB"), alternating the trees run by run."""
    today = bench_speed.TODAY

    def once(name: str, tree: str) -> tuple[float, float, bytes]:
        command = [sys.executable, "-m", "foundry_tui", "memory", "search", "--root", str(root), "--today", today]
        # Each tree its own parse cache: a tree whose snapshot format differs would rewrite the other's.
        own = env | {"PYTHONPATH": tree, "FOUNDRY_CACHE_DIR": f"{env['FOUNDRY_CACHE_DIR']}-{name}"}
        start = time.perf_counter()
        # In the tree's folder: `-m` puts the working folder first on sys.path, before PYTHONPATH.
        proc = subprocess.Popen([*command, CLI_QUERY], env=own, cwd=tree, stdout=subprocess.PIPE)
        out = proc.stdout.read() if proc.stdout is not None else b""
        _pid, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status):
            raise RuntimeError(f"{tree}: the search failed")
        return time.perf_counter() - start, usage.ru_maxrss / 1024, out

    replies = {name: once(name, tree)[2] for name, tree in trees.items()}  # the cache warm, bytecode written
    if len(set(replies.values())) != 1:
        raise RuntimeError("the trees' searches printed different replies")
    runs: dict[str, list[float]] = {}
    for _ in range(repeats):
        for name, tree in trees.items():
            seconds, mb, out = once(name, tree)
            if out != replies[name]:
                raise RuntimeError(f"{name}: a repeated search printed another reply")
            runs.setdefault(name, []).append(seconds)
            runs.setdefault(f"{name} MB", []).append(mb)
    return runs


def cold_load_runs(trees: dict[str, str], root: Path, env: dict[str, str], repeats: int) -> dict[str, list[float]]:
    """Wall seconds of a first-ever `foundry memory search` (under "A", "B": no derived cache,
    each run an empty cache folder of its own) and its CPU seconds (under "A cpu", "B cpu"),
    alternating the trees run by run; the trees' replies must be the same bytes."""
    today = bench_speed.TODAY
    command = [sys.executable, "-m", "foundry_tui", "memory", "search", "--root", str(root), "--today", today]

    def once(name: str, tree: str, run: int) -> tuple[float, float, bytes]:
        cache = Path(f"{env['FOUNDRY_CACHE_DIR']}-cold-{name}-{run}")
        shutil.rmtree(cache, ignore_errors=True)
        own = env | {"PYTHONPATH": tree, "FOUNDRY_CACHE_DIR": str(cache)}
        start = time.perf_counter()
        # In the tree's folder: `-m` puts the working folder first on sys.path, before PYTHONPATH.
        proc = subprocess.Popen([*command, CLI_QUERY], env=own, cwd=tree, stdout=subprocess.PIPE)
        out = proc.stdout.read() if proc.stdout is not None else b""
        _pid, status, usage = os.wait4(proc.pid, 0)  # its usage counts the children it waited for
        seconds = time.perf_counter() - start
        shutil.rmtree(cache, ignore_errors=True)
        if os.waitstatus_to_exitcode(status):
            raise RuntimeError(f"{tree}: the search failed")
        return seconds, usage.ru_utime + usage.ru_stime, out

    runs: dict[str, list[float]] = {}
    replies: dict[str, bytes] = {}
    for run in range(repeats + 1):  # the first round writes bytecode and warms the disk's cache
        for name, tree in trees.items():
            seconds, cpu, out = once(name, tree, run)
            if replies.setdefault(name, out) != out:
                raise RuntimeError(f"{name}: a repeated search printed another reply")
            if run:
                runs.setdefault(name, []).append(seconds)
                runs.setdefault(f"{name} cpu", []).append(cpu)
        if len(set(replies.values())) != 1:
            raise RuntimeError("the trees' searches printed different replies")
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="source tree A (the one before)")
    parser.add_argument("b", help="source tree B (the one after)")
    parser.add_argument("more", nargs="*", help="further trees C, D, … (variants measured in the same run)")
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--what",
        choices=["tui", "mcp", "mcp-init", "neardup", "neardup-varied", "cli-search", "cold-load"],
        default="tui",
    )
    parser.add_argument(
        "--root", type=Path, help="an existing project to search (cli-search, cold-load) instead of generated facts"
    )
    args = parser.parse_args()
    paths = [args.a, args.b, *args.more]
    trees = {chr(ord("A") + i): str(Path(path).resolve()) for i, path in enumerate(paths)}
    for name, tree in trees.items():
        print(f"{name}: {tree}", flush=True)
    base = Path(tempfile.mkdtemp(prefix=f"foundry-ab-{args.count}-"))
    root = args.root.resolve() if args.root is not None else base / "project"
    env = bench_speed.child_env(base / "cache")
    try:
        if args.what != "neardup-varied" and args.root is None:
            generate_vocab.append(generate(root, args.count))
        print(f"load average {os.getloadavg()[0]:.1f} at start", flush=True)
        if args.what == "tui":
            real_sleep = time.sleep
            # Terminal.paint waits 3 s for the resident-memory figure: not needed here.
            bench_speed.time.sleep = lambda s: None if s >= 1 else real_sleep(s)  # type: ignore[assignment]
            runs = tui_runs(trees, root, env, args.repeats)
            bench_speed.time.sleep = real_sleep  # type: ignore[assignment]
            unit = "s"
        elif args.what == "mcp":
            runs = mcp_runs(trees, root, env, args.repeats)
            unit = "ms"
        elif args.what == "cli-search":
            runs = cli_search_runs(trees, root, env, args.repeats)
            unit = "s"
        elif args.what == "cold-load":
            runs = cold_load_runs(trees, root, env, args.repeats)
            unit = "s"
        elif args.what == "mcp-init":
            runs = mcp_init_runs(trees, root, env, args.repeats)
            unit = "ms"
        else:
            varied = args.count if args.what == "neardup-varied" else None
            runs = neardup_runs(trees, root, env, args.repeats, varied)
            unit = "s"
        for name, values in runs.items():
            shown = " ".join(f"{v:.2f}" for v in values)
            median = statistics.median(values)
            extra = f" ({median / statistics.median(runs['bare']):.2f}x bare)" if "bare" in runs else ""
            shown_unit = "MB" if name.endswith(" MB") else unit
            print(f"{name}: median {median:.2f} {shown_unit}{extra}   runs: {shown}")
        if args.what == "mcp-init":
            node = runs.get("node -e ''")
            if node is None:
                print("node is not on PATH: no ratio to `node -e ''`")
            else:
                for name in [*trees, "python -c pass"]:
                    ratio = statistics.median(runs[name]) / statistics.median(node)
                    print(f"{name}: {ratio:.2f}x node -e ''")
        print(f"load average {os.getloadavg()[0]:.1f} at the end", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
