"""`foundry hook user-prompt-submit` as a whole process, with the agent's MCP server running (the
hook asks its local socket, core/local_socket.py) and without one (the hook searches itself),
side by side with a bare interpreter and node in one alternation, on bench_memory's facts.

    python benchmarks/bench_hook_socket.py                        # 10,000 facts, 21 runs of each
    python benchmarks/bench_hook_socket.py --facts 1000 --runs 31
    python benchmarks/bench_hook_socket.py --baseline /tmp/main   # and another tree's hook (no server), e.g. today's
    python benchmarks/bench_hook_socket.py --write-docs           # also docs/benchmarks.md's "hook-socket" section
    python benchmarks/bench_hook_socket.py --ranker hybrid        # the server answers on the sentence model (ADR 43)

Each run is one fresh process; every variant is run once per round, in the same order, so
that a busy machine slows them alike. The CPU time of each process (user + system) is printed
beside its wall time: it is steadier under load. The hook's answers are checked to be the
same bytes with and without the server, and FOUNDRY_DEBUG's line confirms which path served.
The socket folder is the benchmark's own (XDG_RUNTIME_DIR set for the server and the hooks
that should find it, an empty one for the hooks that should not). `--baseline TREE`: a source
tree (`git archive <commit> | tar -x -C TREE`) whose hook is run through PYTHONPATH.

`--ranker NAME` writes memoryRetrieval.ranker into the memory's config.json. With `hybrid` the
facts' vectors are put in the derived cache before the server starts (embedded once, then kept
in FOUNDRY_BENCH_HOOK_VECTORS, default /tmp/foundry-bench-hook-vectors-FACTS.npz, keyed by
fingerprint), so that the server's model is warm and no build competes with the runs; the hook
with the server then answers on similarity (ADR 43) and may differ from the hook alone, which
answers with bm25's rule: the bytes are compared only for the other rankers. Embedding 10,000
facts takes 10 to 30 minutes on this machine; `--stand-in-vectors` puts seeded random unit vectors
in their place (the answer's cost does not depend on their values; which facts it names does).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
sys.path.insert(0, str(CHECKOUT))
sys.path.insert(0, str(HERE))

from bench_memory import INIT, generate  # noqa: E402
from report import write_section  # noqa: E402

from foundry_tui.core.local_socket import socket_path  # noqa: E402
from foundry_tui.core.memory.project import Project  # noqa: E402

ROOMS = ("kitchen", "bedroom", "hallway", "bathroom", "attic", "garage", "porch", "study", "nursery", "cellar")
SEASONS = ("spring", "summer", "autumn", "winter")


def prompts(root: Path, runs: int) -> dict[str, list[str]]:
    """For each kind, one new prompt per run (and one for the check before the runs): as in a real
    session, the server never has the prompt's vector kept. "facts injected" names another fact's
    subject each time (the hook injects facts); "nothing injected" asks about nothing stored."""
    facts = root / ".foundry/memory/facts"
    count = len(list(facts.iterdir()))
    injected, quiet = [], []
    for n in range(runs + 2):
        text = (facts / f"fact-{(42 + 97 * n) % count + 1:04d}.md").read_text()
        title = next(line for line in text.splitlines() if line.startswith("title: ")).removeprefix("title: ")
        injected.append(f"How do we handle {' '.join(title.lower().split()[:4])} here?")
        room, season = ROOMS[n % len(ROOMS)], SEASONS[n // len(ROOMS) % len(SEASONS)]
        quiet.append(f"What colour should the {room} walls be painted this {season}?")
    return {"facts injected": injected, "nothing injected": quiet}


def run(command: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float, bytes, bytes]:
    """(wall ms, CPU ms, stdout, stderr) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, check=True)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu, done.stdout, done.stderr


def start_server(root: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [sys.executable, "-m", "foundry_tui", "mcp", "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps(INIT).encode() + b"\n")
    server.stdin.flush()
    server.stdout.readline()
    return server


def seed_vectors(root: Path, facts: int, stand_in: bool) -> None:
    """Every active fact's vector in `root`'s derived cache (the hybrid ranker's), from the kept file when it has them."""
    import numpy as np

    from foundry_tui.core.memory.search import hybrid
    from foundry_tui.core.memory.storage import cache

    kept = Path(os.environ.get("FOUNDRY_BENCH_HOOK_VECTORS", f"/tmp/foundry-bench-hook-vectors-{facts}.npz"))
    project = Project(root)
    project.sync()
    store = project.vector_store()
    assert store is not None, "the sentence model is not installed (pip install 'foundry-tui[semantic]')"
    scan, _postings = project.scan_with_postings(project_today())
    fingerprints, _texts = hybrid.scan_texts(scan)
    if kept.exists():
        data = np.load(kept)
        known = dict(zip((bytes(row) for row in data["fingerprints"]), data["vectors"], strict=True))
        present = [fp for fp in fingerprints if fp in known]
        if present:
            store.add(present, np.stack([known[fp] for fp in present]).astype(np.float32))
    if stand_in:
        # Unit vectors from a fixed seed in place of the model's: what the server's answer costs
        # (the prompt embedded, a 384-wide product per fact, the fusion) does not depend on them.
        rng = np.random.default_rng(29)
        missing = [fp for fp in dict.fromkeys(fingerprints) if fp not in store.rows]
        if missing:
            vectors = rng.standard_normal((len(missing), store.matrix.shape[1])).astype(np.float32)
            store.add(missing, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
    start = time.perf_counter()
    embedded = project.build_vectors(project_today())
    if embedded:
        print(f"embedded {embedded} facts in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        rows = [fp for fp in dict.fromkeys(fingerprints) if fp in store.rows]
        table = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), 16)
        np.savez(kept, fingerprints=table, vectors=np.stack([store.matrix[store.rows[fp]] for fp in rows]))
    assert project.store.cache_path is not None
    store.save(cache.vectors_file(project.store.cache_path))


def project_today() -> _dt.date:
    from foundry_tui.core.paths import resolve_today

    return resolve_today("2026-11-30")


def wait_for(path: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"no socket at {path} after {timeout} s")
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--baseline", help="another source tree whose hook (without a server) runs in the alternation")
    parser.add_argument("--write-docs", action="store_true", help="write the table into docs/benchmarks.md")
    parser.add_argument("--ranker", help="memoryRetrieval.ranker for the memory (default: the config's, the spec's)")
    parser.add_argument(
        "--no-session",
        action="store_true",
        help="events without session_id and transcript_path (Claude Code sends both; session memory reads them)",
    )
    parser.add_argument(
        "--stand-in-vectors",
        action="store_true",
        help="with --ranker hybrid: seeded random unit vectors for the facts instead of embedding them (minutes)",
    )
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # byte-compiled, as an installed package is
    for tree in [str(CHECKOUT / "foundry_tui"), *([args.baseline] if args.baseline else [])]:
        subprocess.run([sys.executable, "-m", "compileall", "-q", tree], check=True)
    base = Path(tempfile.mkdtemp(prefix="foundry-hook-socket-"))
    server = None
    try:
        root = base / "project"
        generate(root, args.facts)
        common = {
            **os.environ,
            "FOUNDRY_CACHE_DIR": str(base / "cache"),
            "FOUNDRY_TODAY": "2026-11-30",
            "PYTHONPATH": str(CHECKOUT),
        }
        common.pop("FOUNDRY_NO_SOCKET", None)
        common.pop("FOUNDRY_SOCKET_DEADLINE_MS", None)
        common.pop("FOUNDRY_SOCKET_REPLY_MS", None)
        # The checks before the runs wait long enough that a busy machine does not decide the path.
        patient = {"FOUNDRY_SOCKET_DEADLINE_MS": "1000", "FOUNDRY_SOCKET_REPLY_MS": "5000"}
        os.environ["FOUNDRY_CACHE_DIR"] = common["FOUNDRY_CACHE_DIR"]
        if args.ranker:
            (root / ".foundry/config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": args.ranker}}))
        Project(root).sync()  # a previous session left the parse cache behind, as on a real machine
        if args.ranker == "hybrid":
            seed_vectors(root, args.facts, args.stand_in_vectors)
        (base / "run").mkdir(mode=0o700)
        (base / "empty").mkdir(mode=0o700)
        served_env = {**common, "XDG_RUNTIME_DIR": str(base / "run")}
        alone_env = {**common, "XDG_RUNTIME_DIR": str(base / "empty")}
        # Every process runs in the project, as an agent runs its hooks: `python -m` puts the working
        # folder first on sys.path, so from a checkout it would run that checkout, not PYTHONPATH's tree.
        os.chdir(root)
        server = start_server(root, served_env)
        os.environ["XDG_RUNTIME_DIR"] = served_env["XDG_RUNTIME_DIR"]
        path = socket_path(root)
        wait_for(path)
        if args.ranker == "hybrid":
            time.sleep(15)  # the server loads the model in a thread after its warm-up (1 to 5 s here)
        hook = [sys.executable, "-m", "foundry_tui", "hook", "user-prompt-submit"]
        variants: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], common),
        }
        if shutil.which("node"):
            variants["node -e ''"] = (["node", "-e", ""], common)
        variants["hook, server running"] = (hook, served_env)
        variants["hook, no server"] = (hook, alone_env)
        if args.baseline:
            variants["baseline hook, server running"] = (hook, {**served_env, "PYTHONPATH": args.baseline})
            variants["baseline hook, no server"] = (hook, {**alone_env, "PYTHONPATH": args.baseline})
        # As Claude Code sends a prompt: with the session's id and transcript, so the hook also runs
        # session memory (its SQLite store; the transcript is missing, so no turns are read).
        session = (
            {} if args.no_session else {"session_id": f"bench-{os.getpid()}", "transcript_path": str(base / "t.jsonl")}
        )
        rows: list[tuple[str, str, float, float, float]] = []
        for label, texts in prompts(root, args.runs).items():

            def event_of(prompt: str) -> bytes:
                event = {"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": str(root), **session}
                return json.dumps(event).encode()

            event = event_of(texts[0])
            # The server's first answer (it prepares its word index after it), given time; then
            # which path answered, and the same bytes from both.
            run(hook, event_of(texts[-1]), {**served_env, **patient})
            time.sleep(max(2.0, args.facts / 2500))
            answers = {}
            for name, env in (("served", served_env), ("alone", alone_env)):
                *_, out, err = run(hook, event, {**env, "FOUNDRY_DEBUG": "1", **patient})
                answers[name] = out
                expected = f"facts from the server at {path}" if name == "served" else "no server socket"
                assert expected in err.decode(), (name, err)
            if args.ranker != "hybrid":
                assert answers["served"] == answers["alone"], "the hook's answer differs with the server"
            assert bool(answers["served"]) == (label == "facts injected"), (label, answers["served"][:200])
            walls: dict[str, list[float]] = {name: [] for name in variants}
            cpus: dict[str, list[float]] = {name: [] for name in variants}
            # The runs the server answered within the hook's deadlines (FOUNDRY_DEBUG's line), and those
            # whose hook injected facts, of every variant run with the server.
            served = dict.fromkeys(variants, 0)
            spoke = dict.fromkeys(variants, 0)
            for attempt in range(args.runs + 1):  # the first round warms the disk cache
                event = event_of(texts[attempt])  # a new prompt each round, the same for every variant
                for name, (command, env) in variants.items():
                    wall, cpu, out, err = run(command, event, {**env, "FOUNDRY_DEBUG": "1"})
                    if attempt:
                        walls[name].append(wall)
                        cpus[name].append(cpu)
                        served[name] += b"facts from the server" in err
                        spoke[name] += bool(out)
            for name in variants:
                ordered = sorted(walls[name])
                p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
                shown = name
                if name.endswith("hook, server running"):
                    shown = f"{name} ({served[name]}/{args.runs} served, {spoke[name]} injected)"
                rows.append((label, shown, statistics.median(ordered), p95, statistics.median(cpus[name])))
        load = os.getloadavg()[0]
        lines = [
            f"{args.facts:,} facts, {args.runs} runs of each, alternating, events "
            f"{'without' if args.no_session else 'with'} a session id; load average {load:.1f}, "
            f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, {time.strftime('%Y-%m-%d')}",
            "",
            "| prompt | process | wall p50 | wall p95 | CPU p50 |",
            "| --- | --- | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {label} | {name} | {p50:.1f} ms | {p95:.1f} ms | {cpu:.1f} ms |" for label, name, p50, p95, cpu in rows
        ]
        table = "\n".join(lines)
        print(table)
        if args.write_docs:
            write_section("hook-socket", table)
    finally:
        if server is not None:
            assert server.stdin is not None
            server.stdin.close()
            server.wait(timeout=30)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
