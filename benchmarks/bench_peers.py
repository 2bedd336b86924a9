"""Foundry beside the memory servers a user would pick instead, on the same work, in one run.

The peers are installed, at pinned versions, into a folder of their own outside the
package (`--peers-dir`, default ~/.cache/foundry-bench-peers/): basic-memory from PyPI
(in a venv of a Python >= 3.12, which it needs; its text search, with semantic search
switched off and every model hub offline, so it never downloads a model) and the MCP
reference memory server `@modelcontextprotocol/server-memory` from npm. Each server,
`foundry mcp` included, is driven over stdio by the official MCP SDK client, and each
stores the same facts (benchmarks/retrieval_corpus.py) in its own form: foundry a fact
file per fact, basic-memory a note per fact, server-memory an entity per fact (name:
the title; type: the fact's type; observations: the body and the tags). The bulk of
each memory is laid down in that form on disk before the server starts, as a
previous session would have left it; the writes measured go through the MCP tool.

Figures per server: spawn to initialize (median of 5); first search after start
(median of 3 fresh servers) and warm search p50 at each count, the searches being
the newest held-out questions (benchmarks/data/retrieval_questions.json, "heldout4")
sent as they are; recall@8 and MRR on them at each count; resident memory (the
server's process tree) at each count; write p50 (30 writes into the smallest memory);
two server processes writing 500 memories each at once into one store: how many of
the 1,000 survive. Foundry runs twice: with its default ranker (spec) and with bm25.

    python benchmarks/bench_peers.py                              # all, at 1,000 and 10,000
    python benchmarks/bench_peers.py --counts 1000 --peers basic-memory
    python benchmarks/bench_peers.py --peers foundry --counts 200 --concurrent 20
    python benchmarks/bench_peers.py --cap basic-memory=1000 --write-docs   # the run in docs/benchmarks.md

A peer that cannot be installed or driven here is reported in one line; the rest runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from report import command_line, conditions, markdown_table, write_section  # noqa: E402
from retrieval_corpus import build_corpus, write_corpus  # noqa: E402

DOC_SECTION = "peers"
QUESTIONS = json.loads((HERE / "data" / "retrieval_questions.json").read_text())
HELDOUT = "heldout4"
BASIC_MEMORY = "basic-memory==0.24.1"
SERVER_MEMORY = "@modelcontextprotocol/server-memory@2026.8.31"
PEERS = ("foundry", "foundry-bm25", "basic-memory", "server-memory")
LIMIT = 25  # results asked for; recall counts the first 8, MRR the first 25
TIMEOUT = 120.0

Fact = dict[str, Any]


class Unavailable(Exception):
    """The peer cannot be installed or driven here; the message says why, in one line."""


def _run(command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 900) -> None:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise Unavailable(f"`{' '.join(command[:4])} ...` failed: {last[:200]}")


def _tree_rss_mb(root_pid: int) -> float:
    """Resident memory of a process and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def _server_pids() -> set[int]:
    """The direct children of this process: the MCP servers the SDK client spawned."""
    me, found = os.getpid(), set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == me:
                    found.add(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _text(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


class Peer:
    """One memory server: how to install it, lay down a memory, start it, write and search."""

    name = ""
    version = ""

    def __init__(self, peers_dir: Path) -> None:
        self.peers_dir = peers_dir

    def install(self) -> None:
        """Make the server runnable, or raise Unavailable."""

    def store(self, base: Path) -> Path:
        return base / self.name

    def lay_down(self, store: Path, facts: list[Fact]) -> None:
        raise NotImplementedError

    def params(self, store: Path) -> StdioServerParameters:
        raise NotImplementedError

    async def ready(self, client: Client, store: Path, count: int) -> None:
        """Wait until a server on a freshly laid memory has indexed it (default: nothing to wait for)."""

    async def write(self, client: Client, fact: Fact) -> None:
        raise NotImplementedError

    async def search(self, client: Client, query: str) -> list[str]:
        """The ids of the facts found, best first."""
        raise NotImplementedError

    def survivors(self, store: Path, titles: set[str]) -> int:
        """How many of `titles` are stored, read from the store on disk."""
        raise NotImplementedError


class Foundry(Peer):
    name = "foundry"

    def __init__(self, peers_dir: Path) -> None:
        super().__init__(peers_dir)
        from foundry_tui import __version__

        self.version = __version__

    def lay_down(self, store: Path, facts: list[Fact]) -> None:
        write_corpus(store, len(facts))

    def params(self, store: Path) -> StdioServerParameters:
        script = Path(sys.executable).parent / "foundry"
        command = [str(script)] if script.exists() else [sys.executable, "-m", "foundry_tui"]
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(store.parent / "home"),
            "FOUNDRY_CACHE_DIR": str(store.parent / "foundry-cache"),
            "FOUNDRY_TODAY": "2026-11-30",
        }
        return StdioServerParameters(command=command[0], args=[*command[1:], "mcp", "--root", str(store)], env=env)

    async def ready(self, client: Client, store: Path, count: int) -> None:
        await self.search(client, "warm the parse cache")  # a previous session left it behind
        await asyncio.sleep(max(2.0, count / 4000))  # the word index builds in the background

    async def write(self, client: Client, fact: Fact) -> None:
        arguments = {"title": fact["title"], "body": fact["body"], "type": fact["type"], "tags": list(fact["tags"])}
        result = await client.call_tool("memory_write", arguments)
        if result.is_error:
            raise RuntimeError(_text(result)[:200])

    async def search(self, client: Client, query: str) -> list[str]:
        result = await client.call_tool("memory_search", {"query": query, "limit": LIMIT})
        return re.findall(r"^### (fact-\d+)", _text(result), flags=re.MULTILINE)

    def survivors(self, store: Path, titles: set[str]) -> int:
        found = set()
        for path in (store / ".foundry" / "memory" / "facts").glob("*.md"):
            match = re.search(r'^title: "?(.*?)"?$', path.read_text(encoding="utf-8"), flags=re.MULTILINE)
            if match:
                found.add(match.group(1).replace('\\"', '"'))
        return len(found & titles)


class FoundryBm25(Foundry):
    """Foundry with its other ranker (`memoryRetrieval.ranker: bm25` in .foundry/config.json)."""

    name = "foundry-bm25"

    def lay_down(self, store: Path, facts: list[Fact]) -> None:
        super().lay_down(store, facts)
        (store / ".foundry" / "config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": "bm25"}}))


class ServerMemory(Peer):
    name = "server-memory"
    version = SERVER_MEMORY.rsplit("@", 1)[1]

    @property
    def folder(self) -> Path:
        return self.peers_dir / "server-memory"

    @property
    def entry(self) -> Path:
        return self.folder / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"

    def install(self) -> None:
        if shutil.which("node") is None or shutil.which("npm") is None:
            raise Unavailable("node and npm are not installed")
        package = self.entry.parent.parent / "package.json"
        if package.exists() and json.loads(package.read_text())["version"] == self.version:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "package.json").write_text('{"name": "foundry-bench-peers", "private": true}\n')
        _run(["npm", "install", "--no-audit", "--no-fund", "--save-exact", SERVER_MEMORY], cwd=self.folder)

    def names(self, facts: list[Fact]) -> dict[str, str]:
        """Entity name per fact id: the title, made unique with the id where two facts share one."""
        seen: set[str] = set()
        names = {}
        for fact in facts:
            name = fact["title"] if fact["title"] not in seen else f"{fact['title']} ({fact['id']})"
            seen.add(name)
            names[fact["id"]] = name
        return names

    def entity(self, fact: Fact, name: str) -> dict[str, Any]:
        tags = " ".join(f"#{t}" for t in fact["tags"])
        return {"name": name, "entityType": fact["type"], "observations": [fact["body"], *([tags] if tags else [])]}

    def lay_down(self, store: Path, facts: list[Fact]) -> None:
        store.mkdir(parents=True, exist_ok=True)
        names = self.names(facts)
        self.ids = {name: fact_id for fact_id, name in names.items()}
        lines = [json.dumps({"type": "entity", **self.entity(f, names[f["id"]])}) for f in facts]
        (store / "memory.jsonl").write_text("\n".join(lines), encoding="utf-8")

    def params(self, store: Path) -> StdioServerParameters:
        env = {"PATH": os.environ.get("PATH", ""), "MEMORY_FILE_PATH": str(store / "memory.jsonl")}
        return StdioServerParameters(command=shutil.which("node") or "node", args=[str(self.entry)], env=env)

    async def write(self, client: Client, fact: Fact) -> None:
        result = await client.call_tool("create_entities", {"entities": [self.entity(fact, fact["title"])]})
        if result.is_error:
            raise RuntimeError(_text(result)[:200])

    async def search(self, client: Client, query: str) -> list[str]:
        result = await client.call_tool("search_nodes", {"query": query})
        entities = (result.structured_content or json.loads(_text(result) or "{}")).get("entities", [])
        return [self.ids.get(e["name"], e["name"]) for e in entities[:LIMIT]]

    def survivors(self, store: Path, titles: set[str]) -> int:
        path = store / "memory.jsonl"
        if not path.exists():
            return 0
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return len({e["name"] for e in lines if e.get("type") == "entity"} & titles)


class BasicMemory(Peer):
    name = "basic-memory"
    version = BASIC_MEMORY.split("==")[1]

    @property
    def venv(self) -> Path:
        return self.peers_dir / "basic-memory-venv"

    @property
    def program(self) -> Path:
        return self.venv / "bin" / "basic-memory"

    def python(self) -> str:
        """A Python >= 3.12 (basic-memory needs it): on PATH, or one pyenv keeps."""
        candidates = [shutil.which(f"python3.{minor}") for minor in (13, 12)]
        pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
        candidates += [str(p / "bin" / "python3") for p in sorted(pyenv.glob("3.1[2-9]*"), reverse=True)]
        for candidate in candidates:
            if candidate and Path(candidate).exists():
                probe = subprocess.run(
                    [candidate, "-c", "import sys; print(sys.version_info >= (3, 12))"], capture_output=True, text=True
                )
                if probe.stdout.strip() == "True":
                    return candidate
        raise Unavailable("it needs Python >= 3.12, and none is installed")

    def install(self) -> None:
        check = self.venv / "bin" / "python"
        if check.exists():
            done = subprocess.run(
                [str(check), "-c", "import importlib.metadata as m; print(m.version('basic-memory'))"],
                capture_output=True,
                text=True,
            )
            if done.stdout.strip() == self.version and not list(self.venv.glob("lib/python3*/site-packages/fastembed")):
                return
        _run([self.python(), "-m", "venv", "--clear", str(self.venv)])
        _run([str(check), "-m", "pip", "install", "--quiet", BASIC_MEMORY], timeout=1800)
        # Its semantic search cannot be switched off in this version, and its embedding
        # provider would download a model at run time. Without these two packages it
        # says "Semantic search disabled ... Falling back to keyword-only search" and
        # never loads a model: its text search (SQLite FTS5) is what is measured.
        _run([str(check), "-m", "pip", "uninstall", "--yes", "--quiet", "fastembed", "sqlite-vec"])

    def env(self, store: Path) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(store.parent / "bm-home"),
            "BASIC_MEMORY_HOME": str(store),
            "BASIC_MEMORY_CONFIG_DIR": str(store.parent / "bm-home" / ".basic-memory"),
            "BASIC_MEMORY_SEMANTIC_SEARCH_ENABLED": "false",
            "BASIC_MEMORY_LOG_LEVEL": "WARNING",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "FASTEMBED_CACHE_PATH": str(store.parent / "bm-home" / "no-models"),
            "LOGFIRE_SEND_TO_LOGFIRE": "false",
            "DO_NOT_TRACK": "1",
            "FASTMCP_CHECK_FOR_UPDATES": "off",  # else every start asks PyPI for a newer fastmcp
            "FASTMCP_SHOW_SERVER_BANNER": "false",
        }

    def note(self, fact: Fact) -> str:
        tags = ", ".join(json.dumps(str(t)) for t in fact["tags"])
        return (
            f"---\ntitle: {json.dumps(fact['title'])}\ntype: note\npermalink: {fact['id']}\ntags: [{tags}]\n---\n\n"
            f"{fact['body']}\n"
        )

    def lay_down(self, store: Path, facts: list[Fact]) -> None:
        store.mkdir(parents=True, exist_ok=True)
        for fact in facts:
            (store / f"{fact['id']}.md").write_text(self.note(fact), encoding="utf-8")
        _run([str(self.program), "reindex"], env=self.env(store), timeout=3600)
        self.probe = facts[0]

    async def ready(self, client: Client, store: Path, count: int) -> None:
        deadline = time.perf_counter() + 600
        while self.probe["id"] not in await self.search(client, self.probe["title"]):
            if time.perf_counter() > deadline:
                raise Unavailable("its index did not show the laid-down notes within 600 s")
            await asyncio.sleep(0.5)

    def params(self, store: Path) -> StdioServerParameters:
        return StdioServerParameters(command=str(self.program), args=["mcp"], env=self.env(store))

    async def write(self, client: Client, fact: Fact) -> None:
        arguments = {
            "title": fact["title"],
            "content": fact["body"],
            "directory": "written",
            "tags": list(fact["tags"]),
        }
        result = await client.call_tool("write_note", arguments)
        if result.is_error:
            raise RuntimeError(_text(result)[:200])

    async def search(self, client: Client, query: str) -> list[str]:
        arguments = {"query": query, "search_type": "text", "page_size": LIMIT}
        result = await client.call_tool("search_notes", arguments)
        if result.is_error:
            raise RuntimeError(_text(result)[:200])
        # Its answer is markdown: one "### title" block per note, with a "- permalink: ..." line.
        return [p.rsplit("/", 1)[-1] for p in re.findall(r"^- permalink: (\S+)", _text(result), flags=re.MULTILINE)]

    def survivors(self, store: Path, titles: set[str]) -> int:
        found = set()
        for path in store.rglob("*.md"):
            match = re.search(r"^title: (.*)$", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
            if match:
                found.add(match.group(1).strip().strip("'\""))
        return len(found & titles)


async def timed(call: Awaitable[Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = await call
    return (time.perf_counter() - start) * 1000, value


class Session:
    """A running server and its SDK client; `started_ms` is spawn to initialize answered."""

    def __init__(self, peer: Peer, store: Path) -> None:
        self.client = Client(peer.params(store), mode="legacy", read_timeout_seconds=TIMEOUT)
        self.before = _server_pids()
        self.started_ms = 0.0

    async def __aenter__(self) -> Session:
        start = time.perf_counter()
        await self.client.__aenter__()
        self.started_ms = (time.perf_counter() - start) * 1000
        self.pids = _server_pids() - self.before
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.__aexit__(*exc)  # type: ignore[arg-type]

    def rss_mb(self) -> float:
        return sum(_tree_rss_mb(pid) for pid in self.pids)


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


def quality(peer: Peer, hits: dict[str, list[str]], ids: dict[str, str]) -> tuple[float, float]:
    found = reciprocal = 0.0
    for q in QUESTIONS[HELDOUT]:
        targets = {ids[k] for k in q["targets"]}
        rank = next((n for n, h in enumerate(hits[q["question"]], 1) if h in targets), None)
        found += rank is not None and rank <= 8
        reciprocal += 1 / rank if rank else 0
    return found / len(QUESTIONS[HELDOUT]), reciprocal / len(QUESTIONS[HELDOUT])


async def at_count(peer: Peer, base: Path, count: int, row: dict[str, str]) -> None:
    facts, ids = build_corpus(count)
    store = peer.store(base / f"at-{count}")
    start = time.perf_counter()
    peer.lay_down(store, facts)
    laid = time.perf_counter() - start
    questions = [q["question"] for q in QUESTIONS[HELDOUT]]
    async with Session(peer, store) as session:
        await peer.ready(session.client, store, count)
    firsts = []
    for attempt in range(3):
        async with Session(peer, store) as session:
            firsts.append((await timed(peer.search(session.client, questions[attempt])))[0])
    async with Session(peer, store) as session:
        for q in questions[:5]:
            await peer.search(session.client, q)
        hits, samples = {}, []
        for q in questions:
            ms, hits[q] = await timed(peer.search(session.client, q))
            samples.append(ms)
        row[f"first search, {count:,}"] = f"{p50(firsts):.0f} ms"
        row[f"warm search p50, {count:,}"] = f"{p50(samples):.1f} ms"
        print(
            f"  {peer.name} at {count:,}: laid down in {laid:.1f} s; first search {p50(firsts):.0f} ms "
            f"(median of 3 starts), warm p50 {p50(samples):.1f} ms over {len(samples)} questions"
        )
        recall, mrr = quality(peer, hits, ids)
        row[f"recall@8 / MRR ({HELDOUT}, {count:,})"] = f"{recall:.3f} / {mrr:.3f}"
        row[f"resident memory, {count:,}"] = f"{session.rss_mb():.0f} MB"
        print(f"  {peer.name} at {count:,}: recall@8 {recall:.3f}, MRR {mrr:.3f}; resident {session.rss_mb():.0f} MB")


def new_fact(tag: str, n: int) -> Fact:
    return {
        "id": f"new-{tag}-{n}",
        "type": "decision",
        "title": f"Benchmark decision {tag} {n:04d} about the rollout",
        "body": f"Measured write {n} from writer {tag}.\n\n**Why:** the benchmark needs it.",
        "tags": ("benchmark", tag),
    }


async def writes(peer: Peer, base: Path, count: int, row: dict[str, str]) -> None:
    facts, _ids = build_corpus(count)
    store = peer.store(base / "writes")
    peer.lay_down(store, facts)
    async with Session(peer, store) as session:
        await peer.ready(session.client, store, count)
        samples = [(await timed(peer.write(session.client, new_fact("w", n))))[0] for n in range(30)]
    row[f"write p50 (into {count:,})"] = f"{p50(samples):.1f} ms"
    print(f"  {peer.name}: write p50 {p50(samples):.1f} ms (30 writes into {count:,})")


async def concurrent(peer: Peer, base: Path, each: int, row: dict[str, str]) -> None:
    store = peer.store(base / "concurrent")
    peer.lay_down(store, build_corpus(100)[0])
    failures = [0, 0]

    async def writer(n: int, tag: str) -> None:
        async with Session(peer, store) as session:
            for i in range(each):
                try:
                    await peer.write(session.client, new_fact(tag, i))
                except Exception:
                    failures[n] += 1

    start = time.perf_counter()
    await asyncio.gather(writer(0, "a"), writer(1, "b"))
    took = time.perf_counter() - start
    titles = {new_fact(tag, i)["title"] for tag in "ab" for i in range(each)}
    kept = peer.survivors(store, titles)
    row[f"2 writers x {each} at once: kept"] = f"{kept}/{2 * each}"
    print(
        f"  {peer.name}: two writers of {each} at once: {kept}/{2 * each} kept "
        f"({sum(failures)} writes answered with an error) in {took:.1f} s"
    )


async def bench_peer(peer: Peer, counts: list[int], each: int) -> dict[str, str]:
    base = Path(tempfile.mkdtemp(prefix=f"bench-peers-{peer.name}-"))
    row: dict[str, str] = {"version": peer.version}
    try:
        spawns = []
        store = peer.store(base / "empty")
        peer.lay_down(store, build_corpus(100)[0])
        for _ in range(5):
            async with Session(peer, store) as session:
                spawns.append(session.started_ms)
        row["spawn to initialize"] = f"{p50(spawns):.0f} ms"
        print(f"  {peer.name}: spawn to initialize {p50(spawns):.0f} ms (median of 5)")
        await writes(peer, base, min(counts), row)
        await concurrent(peer, base, each, row)
        for count in sorted(counts):
            await at_count(peer, base, count, row)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--counts", type=int, nargs="+", default=[1000, 10000], help="memory sizes (default 1000 10000)"
    )
    parser.add_argument("--peers", nargs="+", choices=PEERS, default=list(PEERS), help="which servers (default: all)")
    parser.add_argument("--concurrent", type=int, default=500, metavar="N", help="writes per writer (default 500)")
    parser.add_argument("--peers-dir", type=Path, default=Path.home() / ".cache" / "foundry-bench-peers")
    parser.add_argument(
        "--cap",
        action="append",
        default=[],
        metavar="PEER=COUNT",
        help="measure PEER only at counts up to COUNT (a slow peer in a short run); repeatable",
    )
    parser.add_argument("--write-docs", action="store_true", help="also write the table into docs/benchmarks.md")
    args = parser.parse_args()
    if min(args.counts) < 100:
        parser.error("--counts: at least 100 (the question set's targets are placed among the facts)")
    load = os.getloadavg()[0]
    kinds: dict[str, Callable[[Path], Peer]] = {
        "foundry": Foundry,
        "foundry-bm25": FoundryBm25,
        "basic-memory": BasicMemory,
        "server-memory": ServerMemory,
    }
    rows: dict[str, dict[str, str]] = {}
    notes = []
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; peers in {args.peers_dir}")
    caps = {}
    for cap in args.cap:
        name, _, limit = cap.partition("=")
        if name not in PEERS or not limit.isdigit():
            parser.error(f"--cap {cap}: use PEER=COUNT, PEER one of {', '.join(PEERS)}")
        caps[name] = int(limit)
    for name in args.peers:
        peer = kinds[name](args.peers_dir)
        counts = [n for n in args.counts if n <= caps.get(name, n)]
        if counts != args.counts:
            skipped = ", ".join(f"{n:,}" for n in args.counts if n not in counts)
            notes.append(f"{name}: not measured at {skipped} memories in this run (--cap {name}={caps[name]})")
        if not counts:
            continue
        try:
            peer.install()
            rows[name] = asyncio.run(bench_peer(peer, counts, args.concurrent))
        except Unavailable as why:
            notes.append(f"{name}: not measured: {why}")
            print(notes[-1])
        except Exception as error:  # a peer that breaks mid-run: say so, run the others
            while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
                error = error.exceptions[0]  # type: ignore[assignment]
            notes.append(f"{name}: not measured: it failed while driven: {type(error).__name__}: {str(error)[:160]}")
            print(notes[-1])
        if rows:
            report(rows, notes, load, args.write_docs)


def report(rows: dict[str, dict[str, str]], notes: list[str], load: float, write_docs: bool) -> None:
    """Print the table of the servers measured so far (and write it into the page: a run cut short keeps them)."""
    keys = list(dict.fromkeys(k for row in rows.values() for k in row))
    table = markdown_table(["", *rows], [[k, *(row.get(k, "-") for row in rows.values())] for k in keys])
    print(table)
    for note in notes:
        print(note)
    if write_docs:
        text = conditions(command_line(), load) + "\n\n" + table
        if notes:
            text += "\n\n" + "\n".join(f"- {note}" for note in notes)
        write_section(DOC_SECTION, text)


if __name__ == "__main__":
    main()
