"""Speed at scale (issue 13, and the two start-up latencies of issue 11), side by side in one run.

Every row of issue 13's table, for each size, a benchmark rather than a test:

- first paint in a real terminal: a tmux session of 160x45; the command is started in
  the pane and `tmux capture-pane` is polled until the expected text is on screen (for
  `foundry tui`, the first fact line of the index; for the bare Textual app, its table).
  The bare app (Header, Input, DataTable, Footer) is timed in the same run, alternating
  with `foundry tui`, so that both see the same load; medians of --repeats runs;
- importing `foundry_tui.tui.app` (a fresh interpreter, minus `python -c pass`);
- memory_write through a running `foundry mcp` (p50 of 15 writes, after the first search),
  and the memory_search sent right after each of them (p50);
- peak resident memory of `foundry memory search` (whole process) and of `foundry tui`
  (its pane process, once it has settled after the first paint: the full load, the word
  index and the doctor have run);
- first-ever load: `foundry memory search` with an empty cache directory (whole process);
- the near-duplicate scan (core `find_dupes`, in a fresh process, with a time limit);
- issue 11: the first memory_search sent the moment `foundry mcp` answers initialize
  (median of 7 fresh servers), and `foundry hook user-prompt-submit` as a whole process
  for ordinary questions (median of 11).

The facts are bench_memory.generate's (the same corpus as the other benchmarks); the
parse cache is warm unless a row says otherwise. Child processes may write bytecode
(`PYTHONDONTWRITEBYTECODE` is dropped, and each command runs once before it is timed),
as on an ordinary installation.

    python benchmarks/bench_speed.py                       # 1,000, 10,000 and 100,000 facts
    python benchmarks/bench_speed.py --sizes 10000 --repeats 5
    python benchmarks/bench_speed.py --sizes 10000 --only tui      # first paint only
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_memory import INIT, Server, foundry_command, generate, queries  # noqa: E402
from report import command_line, conditions, markdown_table, write_section  # noqa: E402

DOC_SECTION = "speed"  # <!-- bench:speed --> in docs/benchmarks.md

TODAY = "2026-11-30"
COLUMNS, LINES = 160, 45
BARE_APP = """
from textual.app import App
from textual.widgets import DataTable, Footer, Header, Input

class Bare(App):
    def compose(self):
        yield Header()
        yield Input(placeholder="search")
        yield DataTable()
        yield Footer()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns("id", "title")
        table.add_row("bare-0001", "bare app ready")

Bare().run()
"""


def child_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["FOUNDRY_CACHE_DIR"] = str(cache)
    env["FOUNDRY_TODAY"] = TODAY
    env.pop("FOUNDRY_NO_CACHE", None)
    return env


# ---- a real terminal ----------------------------------------------------------------------


class Terminal:
    """One tmux session of a fixed size whose pane runs one command at a time."""

    def __init__(self, env: dict[str, str]) -> None:
        self.name = f"foundry-bench-{os.getpid()}"
        self.env = env
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", str(COLUMNS), "-y", str(LINES), "sleep 100000"],
            check=True,
            env=env,
        )
        subprocess.run(["tmux", "set-option", "-t", self.name, "remain-on-exit", "on"], check=True)

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True, check=False
        ).stdout

    def paint(self, command: str, expected: str, timeout: float = 60.0) -> tuple[float, int]:
        """Seconds from starting `command` in the pane until `expected` is on screen, and the
        pane process's peak resident memory (KiB) once it has settled: what it does after the
        first paint (the full load, the doctor, the word index) can take far longer than the
        paint at 100,000 facts, so the peak is read once the process has been idle for
        SETTLE_IDLE seconds (at most SETTLE_LIMIT seconds after the paint)."""
        start = time.perf_counter()
        subprocess.run(["tmux", "respawn-pane", "-k", "-t", self.name, f"exec {command}"], check=True, env=self.env)
        while expected not in self.screen():
            if time.perf_counter() - start > timeout:
                raise RuntimeError(f"{expected!r} not on screen after {timeout:.0f} s:\n{self.screen()}")
            time.sleep(0.005)
        elapsed = time.perf_counter() - start
        pid = subprocess.run(
            ["tmux", "display-message", "-p", "-t", self.name, "#{pane_pid}"], capture_output=True, text=True
        ).stdout.strip()
        settle(pid)
        peak = 0
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1])
        except OSError:
            pass
        subprocess.run(["tmux", "respawn-pane", "-k", "-t", self.name, "sleep 100000"], check=True)
        return elapsed, peak

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], check=False)


SETTLE_LIMIT = 120.0
# Four seconds, not one: on a loaded machine one idle second came between the paint and the
# word index's build, and the memory was read before the index was there (671 MB for 1,971).
SETTLE_IDLE = 4


def cpu_ticks(pid: str) -> int:
    """The process's CPU time so far (all its threads), in clock ticks."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return -1
    return int(fields[11]) + int(fields[12])  # utime, stime


def settle(pid: str) -> None:
    """Wait until the process has used under 2% of a core over the last SETTLE_IDLE seconds, or SETTLE_LIMIT.

    Counted over the whole window, not per half second: a settled TUI still wakes for its
    cursor's blink (about one clock tick a second), so no half second of 0 ticks in a row of
    eight is to be expected, and the per-slice test made every paint wait the full limit."""
    deadline = time.perf_counter() + SETTLE_LIMIT
    time.sleep(1.0)
    per_second = os.sysconf("SC_CLK_TCK")
    window: list[int] = [cpu_ticks(pid)]
    while time.perf_counter() < deadline and window[-1] >= 0:
        time.sleep(0.5)
        window = [*window[-2 * SETTLE_IDLE :], cpu_ticks(pid)]
        if len(window) > 2 * SETTLE_IDLE and 0 <= window[-1] - window[0] < 0.02 * SETTLE_IDLE * per_second:
            return


def first_index_line(root: Path) -> str:
    """The id the index pane shows first (index order: type, then id)."""
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.memory.reports.index_file import index_order
    from foundry_tui.core.paths import resolve_today

    project = Project(root)
    project.sync()
    return index_order(project.active_facts(resolve_today(TODAY)))[0].id


# ---- processes ------------------------------------------------------------------------------


def peak_rss_kib(command: list[str], env: dict[str, str]) -> tuple[float, int, float]:
    """Wall seconds, peak resident memory (KiB) and CPU seconds (its own and its
    children's: the parse on other cores) of one whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def python_import_ms(code: str, env: dict[str, str], runs: int = 5) -> float:
    def once(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        return time.perf_counter() - start

    once(code)
    base = statistics.median(once("pass") for _ in range(runs))
    return (statistics.median(once(code) for _ in range(runs)) - base) * 1000


def server_figures(root: Path, env: dict[str, str], qs: list[str]) -> tuple[float, float, float]:
    """The first search after start (median of 7 fresh servers), memory_write p50, and the
    p50 of the search sent right after each write (issue 11/13: incremental re-indexing)."""
    old = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)  # bench_memory.Server inherits this process's environment
    try:
        firsts = []
        for attempt in range(7):
            fresh = Server(root)
            fresh.request("initialize", INIT["params"])  # type: ignore[arg-type]
            firsts.append(fresh.search(qs[attempt])[0])
            fresh.close()
        server = Server(root)
        server.request("initialize", INIT["params"])  # type: ignore[arg-type]
        server.search(qs[0])
        # The watcher and the word index start after the first call; the index takes about
        # 0.13 ms of CPU per fact to build (before it is ready a search scans every fact).
        time.sleep(max(2.0, len(list((root / ".foundry/memory/facts").iterdir())) / 2000))
        writes, after = [], []
        for n in range(16):
            ms, answer = server.request(
                "tools/call",
                {
                    "name": "memory_write",
                    "arguments": {"title": f"Benchmark write {os.getpid()} {n}", "body": "Measured.", "type": "domain"},
                },
            )
            text = answer["result"]["content"][0]["text"]  # type: ignore[index]
            if not text.startswith("created"):
                raise RuntimeError(f"memory_write answered: {text}")
            writes.append(ms)
            after.append(server.search(qs[n % len(qs)])[0])
            time.sleep(0.05)
        server.close()
        return statistics.median(firsts), statistics.median(writes[1:]), statistics.median(after[1:])
    finally:
        os.environ.clear()
        os.environ.update(old)


def hook_ms(root: Path, env: dict[str, str], qs: list[str]) -> float:
    event = json.dumps(
        {"hook_event_name": "UserPromptSubmit", "prompt": f"How do we handle {qs[1]} and {qs[2]}?", "cwd": str(root)}
    ).encode()
    runs = []
    for _ in range(12):
        start = time.perf_counter()
        subprocess.run(
            [*foundry_command(), "hook", "user-prompt-submit"], input=event, env=env, capture_output=True, check=True
        )
        runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(runs[1:])


NEARDUP = """
import sys, time
from pathlib import Path
from foundry_tui.core.curation.neardup import find_dupes
from foundry_tui.core.memory.project import Project
from foundry_tui.core.paths import resolve_today
project = Project(Path(sys.argv[1]))
project.sync()
start = time.perf_counter()
find_dupes(project, resolve_today(sys.argv[2]))
print(time.perf_counter() - start)
"""


def neardup_seconds(root: Path, env: dict[str, str], limit: float) -> str:
    try:
        out = subprocess.run(
            [sys.executable, "-c", NEARDUP, str(root), TODAY], env=env, capture_output=True, text=True, timeout=limit
        )
    except subprocess.TimeoutExpired:
        return f"over {limit:.0f} s"
    if out.returncode:
        return "failed: " + out.stderr.strip().splitlines()[-1]
    return f"{float(out.stdout):.2f} s"


# ---- one size ------------------------------------------------------------------------------


def bench(count: int, repeats: int, neardup_limit: float, only: set[str], ranker: str = "spec") -> dict[str, str]:
    base = Path(tempfile.mkdtemp(prefix=f"foundry-speed-{count}-"))
    root = base / "project"
    env = child_env(base / "cache")
    row: dict[str, str] = {}
    terminal = None
    try:
        vocab = generate(root, count)
        if ranker != "spec":  # memoryRetrieval.ranker for the server and hook rows
            (root / ".foundry" / "config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": ranker}}))
        qs = queries(vocab, 40, seed=5)
        search = [*foundry_command(), "memory", "search", "--root", str(root), "--today", TODAY, qs[0]]

        seconds, _, cpu = peak_rss_kib(search, env)  # empty cache: parse every file
        if "cli" in only:
            row["first-ever load (no cache), CLI search"] = f"{seconds:.2f} s (CPU {cpu:.1f} s)"
            peak_rss_kib(search, env)
            _, kib, _ = peak_rss_kib(search, env)
            row["resident memory, CLI search"] = f"{kib / 1024:.0f} MB"

        if "mcp" in only:
            first, write, after = server_figures(root, env, qs)
            row["memory_write in a running server (p50)"] = f"{write:.1f} ms"
            row["memory_search right after a memory_write (p50)"] = f"{after:.1f} ms"
            if count <= 10000:  # issue 11's bars are at 1,000 and 10,000
                row["first memory_search after start (issue 11)"] = f"{first:.0f} ms"
                row["hook user-prompt-submit (issue 11)"] = f"{hook_ms(root, env, qs):.0f} ms"
        if "tui" in only:
            terminal = Terminal(env)
            tui = f"{' '.join(foundry_command())} tui --root {root} --today {TODAY}"
            bare = f"{sys.executable} -c '{BARE_APP}'"
            expected = first_index_line(root)
            terminal.paint(tui, expected)  # bytecode written, cache warm
            terminal.paint(bare, "bare app ready")
            bare_runs, tui_runs, tui_peaks = [], [], []
            for _ in range(repeats):
                bare_runs.append(terminal.paint(bare, "bare app ready")[0])
                seconds, peak = terminal.paint(tui, expected)
                tui_runs.append(seconds)
                tui_peaks.append(peak)
            bare_s, tui_s = statistics.median(bare_runs), statistics.median(tui_runs)
            row["bare Textual app first paint (same run)"] = f"{bare_s:.2f} s"
            row["foundry tui first paint (cache warm)"] = f"{tui_s:.2f} s ({tui_s / bare_s:.2f}x bare)"
            row["resident memory, foundry tui"] = f"{max(tui_peaks) / 1024:.0f} MB"

        if "neardup" in only:
            row["near-duplicate scan"] = neardup_seconds(root, env, neardup_limit)
        return row
    finally:
        if terminal is not None:
            terminal.close()
        shutil.rmtree(base, ignore_errors=True)


BARS = {
    "first-ever load (no cache), CLI search": "100,000: < 10 s",
    "resident memory, CLI search": "100,000: < 300 MB",
    "memory_write in a running server (p50)": "10,000: < 50 ms; 100,000: < 200 ms",
    "memory_search right after a memory_write (p50)": "as any search: the index re-reads the written fact only",
    "first memory_search after start (issue 11)": "10,000: < 150 ms",
    "hook user-prompt-submit (issue 11)": "1,000: < 100 ms; 10,000: < 250 ms",
    "bare Textual app first paint (same run)": "the reference",
    "foundry tui first paint (cache warm)": "10,000: <= 1.5x bare; 100,000: < 2.5 s",
    "resident memory, foundry tui": "100,000: < 1 GB",
    "near-duplicate scan": "10,000: < 3 s; 100,000: < 30 s",
}


GROUPS = {"cli", "mcp", "tui", "neardup"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--repeats", type=int, default=5, help="first-paint runs per app and size (median)")
    parser.add_argument("--neardup-limit", type=float, default=120.0, help="seconds before the scan is called over")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=sorted(GROUPS),
        default=sorted(GROUPS),
        help="measure only these groups of rows (cli: first-ever load and resident memory of a search; "
        "mcp: the server and hook rows; tui: first paint; neardup: the scan)",
    )
    parser.add_argument("--ranker", choices=("spec", "bm25"), default="spec", help="memoryRetrieval.ranker (spec)")
    parser.add_argument("--write-docs", action="store_true", help="also write the table into docs/benchmarks.md")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("bench_speed: tmux is needed for the first-paint rows (apt-get install tmux)")
    load = os.getloadavg()[0]
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {load:.1f} at start; ranker {args.ranker}",
        flush=True,
    )
    env = child_env(Path(tempfile.gettempdir()) / "foundry-speed-import-cache")
    ours = python_import_ms("import foundry_tui.tui.app", env)
    bare = python_import_ms("import textual.app; from textual.widgets import DataTable, Footer, Header, Input", env)
    print(
        f"importing foundry_tui.tui.app: {ours:.0f} ms (textual.app and the bare app's widgets: {bare:.0f} ms)",
        flush=True,
    )
    rows = []
    for n in args.sizes:
        rows.append(bench(n, args.repeats, args.neardup_limit, set(args.only), args.ranker))
        print(f"{n:,} facts: " + "; ".join(f"{k} {v}" for k, v in rows[-1].items()), flush=True)
    width = max(len(k) for k in BARS)
    print(f"{'':<{width}}  " + "  ".join(f"{n:>24,}" for n in args.sizes) + "  bar")
    for key, bar in BARS.items():
        print(f"{key:<{width}}  " + "  ".join(f"{row.get(key, '-'):>24}" for row in rows) + f"  {bar}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    if args.write_docs:
        header = ["", *(f"{n:,}" for n in args.sizes), "bar"]
        table = [[key, *(row.get(key, "-") for row in rows), bar] for key, bar in BARS.items()]
        write_section(DOC_SECTION, conditions(command_line(), load) + "\n\n" + markdown_table(header, table))


if __name__ == "__main__":
    main()
