"""Benchmark of the Health screen over a year of events and a long git history (a
benchmark, not a test).

Generates a project with `--events` lines in events.jsonl over 365 days and `--commits`
commits (each adds or restates a fact and regenerates INDEX.md; one `git fast-import`),
then prints:

- the core's figures (`health_figures`: events, token report, git timeline), with the
  timeline's cache cold (first run on a repository) and warm (every run after), and the
  CPU time they took in Python (every thread) and in git (a loaded machine stretches
  wall times; CPU times move less);
- with --terminal, the same F5 in a real terminal (tmux, 160x45; every cache removed first);
- in the real app (headless, 120×40): from pressing F5 to the charts painted (all four),
  cold and warm, and to the events' two charts painted (shown while git still reads the
  history); and the longest stall of the UI's event loop meanwhile (a 10 ms timer's largest
  gap: how responsive the rest of the app stays while the worker reads).

    python benchmarks/bench_health.py [--events 100000] [--commits 2000] [--repeat 3] [--terminal]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import itertools
from collections.abc import Callable

from foundry_tui.core.artefacts.health import health_figures
from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.model.vocabulary import TYPES
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.index_file import build_index
from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.health.screen import HealthScreen
from tests.tui_helpers import settle

TODAY = _dt.date(2026, 11, 30)
FIRST = TODAY - _dt.timedelta(days=365)
WORDS = [
    "orders",
    "billing",
    "tenant",
    "deploy",
    "cache",
    "schema",
    "api",
    "auth",
    "queue",
    "worker",
    "search",
    "index",
    "budget",
    "retry",
    "export",
]


def fact_text(number: int, ftype: str, created: str, rng: random.Random, supersedes: str | None) -> str:
    title = " ".join(rng.choice(WORDS) for _ in range(6)).capitalize() + f" rule {number}"
    body = " ".join(rng.choice(WORDS) for _ in range(40)) + "."
    if ftype in ("decision", "risk"):
        body += "\n\n**Why:** " + " ".join(rng.choice(WORDS) for _ in range(8)) + "."
    expires = "2026-03-01" if number % 17 == 0 else "null"
    return (
        f"---\nid: fact-{number:04d}\ntype: {ftype}\nscope: project\ntitle: {title}\ntags: [{rng.choice(WORDS)}]\n"
        f"confidence: medium\nsource: conversation\ncreated: {created}\nexpires: {expires}\n"
        f"supersedes: {supersedes or 'null'}\n---\n\n{body}\n"
    )


def make_history(root: Path, commits: int, rng: random.Random) -> None:
    from foundry_tui.core.memory.model.facts import parse_fact_text

    facts: dict[str, Fact] = {}
    stream = bytearray()
    for n in range(commits):
        day = FIRST + _dt.timedelta(days=n * 365 // commits)
        number = len(facts) + 1
        restate = facts and rng.random() < 0.2
        old = rng.choice(sorted(facts)) if restate else None
        text = fact_text(number, rng.choice(TYPES), day.isoformat(), rng, old)
        fact = parse_fact_text(text, None)
        facts[fact.id] = fact
        replaced = {o for f in facts.values() for o in f.replaced_ids()}
        active = [
            f for f in facts.values() if f.id not in replaced and (f.expires is None or f.expires >= day.isoformat())
        ]
        index = build_index(active, 6000)[0].encode()
        stamp = int(_dt.datetime.combine(day, _dt.time(9), _dt.UTC).timestamp()) + n
        body = text.encode()
        stream += f"commit refs/heads/main\nmark :{n + 1}\ncommitter Bench <b@example.com> {stamp} +0000\n".encode()
        stream += b"data 4\nwork\n" + (f"from :{n}\n".encode() if n else b"")
        stream += f"M 100644 inline .foundry/memory/facts/{fact.id}.md\ndata {len(body)}\n".encode() + body + b"\n"
        stream += f"M 100644 inline .foundry/memory/INDEX.md\ndata {len(index)}\n".encode() + index + b"\n"
    stream += b"commit refs/heads/main\ncommitter Bench <b@example.com> 1796000000 +0000\ndata 6\nconfig\n"
    config = b'{"indexTokenBudget": 6000}'
    stream += f"from :{commits}\nM 100644 inline .foundry/config.json\ndata {len(config)}\n".encode() + config + b"\n"
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args, data in ((["init", "-q", "-b", "main"], None), (["fast-import", "--quiet"], bytes(stream))):
        subprocess.run(["git", *args], cwd=root, input=data, env=env, check=True, capture_output=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, env=env, check=True)


def make_events(root: Path, lines: int, rng: random.Random) -> None:
    out = []
    for n in range(lines):
        moment = _dt.datetime.combine(FIRST, _dt.time(), _dt.UTC) + _dt.timedelta(seconds=n * 365 * 86400 // lines)
        time_text = moment.isoformat(timespec="milliseconds")
        roll = rng.random()
        if roll < 0.6:
            hits = 0 if rng.random() < 0.25 else rng.randint(1, 5)
            event = {"kind": "memory_search", "time": time_text, "query": " ".join(rng.sample(WORDS, 2)), "hits": hits}
        elif roll < 0.75:
            action = rng.choice(["created", "updated", "unchanged", "parked"])
            event = {"kind": "memory_write", "time": time_text, "action": action, "id": "fact-0001"}
        elif roll < 0.78:
            event = {"kind": "gate_blocked", "time": time_text, "tool": "Read", "target": ".foundry/memory/facts"}
        else:
            event = {"kind": "runbook_get", "time": time_text, "slug": "deploy"}
        out.append(json.dumps(event) + "\n")
    metrics = root / ".foundry/metrics"
    metrics.mkdir(parents=True, exist_ok=True)
    (metrics / "events.jsonl").write_text("".join(out))


def core_once() -> tuple[float, float, float]:
    """Wall time, this process's CPU time (every thread) and git's (the child processes)."""
    import resource

    def git_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    start, cpu, git = time.perf_counter(), time.process_time(), git_cpu()
    health_figures(Project(ROOT), TODAY)
    return time.perf_counter() - start, time.process_time() - cpu, git_cpu() - git


async def app_once() -> tuple[float, float, float, float]:
    """F5 to charts painted (all four: the screen built for the first time), the longest
    gap of a 10 ms timer meanwhile, F2 then F5 again to the charts painted anew, and F5
    to the events' charts painted (before the history's: seconds)."""
    app = FoundryApp(ROOT, TODAY, watch=False, root_label="bench")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.project.search_index_ready(timeout=60)  # the memory screen's start-up work is done
        await settle(pilot)
        ticks: list[float] = []
        timer = app.set_interval(0.01, lambda: ticks.append(time.perf_counter()))
        painted: list[float] = []
        events_painted: list[float] = []
        original = HealthScreen.on_health_screen_loaded
        original_events = HealthScreen.on_health_screen_events_loaded

        def loaded(self: HealthScreen, event: HealthScreen.Loaded) -> None:
            original(self, event)
            self.call_after_refresh(lambda: painted.append(time.perf_counter()))

        def events_loaded(self: HealthScreen, event: HealthScreen.EventsLoaded) -> None:
            original_events(self, event)
            self.call_after_refresh(lambda: events_painted.append(time.perf_counter()))

        HealthScreen.on_health_screen_loaded = loaded  # type: ignore[method-assign]
        HealthScreen.on_health_screen_events_loaded = events_loaded  # type: ignore[method-assign]
        start = time.perf_counter()
        await pilot.press("f5")
        while not painted:
            await asyncio.sleep(0.002)
        first = painted[0] - start
        events_first = (events_painted or painted)[0] - start
        timer.stop()
        gaps = [b - a for a, b in itertools.pairwise(ticks)] or [0.0]
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        painted.clear()
        start = time.perf_counter()
        await pilot.press("f5")
        while not painted:
            await asyncio.sleep(0.002)
        HealthScreen.on_health_screen_loaded = original  # type: ignore[method-assign]
        HealthScreen.on_health_screen_events_loaded = original_events  # type: ignore[method-assign]
        return first, max(gaps), painted[0] - start, events_first


def terminal_runs(repeat: int) -> tuple[list[float], list[float]]:
    """`foundry tui` in tmux (bench_speed's Terminal), every cache removed before it starts:
    once its index is on screen and its start-up work done, F5 until the four charts are on
    screen (no "loading…" left), then F2, F5 again."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_speed import Terminal, child_env

    cache = Path(os.environ["FOUNDRY_CACHE_DIR"])
    terminal = Terminal(child_env(cache))

    def until(shown: Callable[[str], bool], limit: float = 60.0) -> float:
        start = time.perf_counter()
        while not shown(terminal.screen()):
            if time.perf_counter() - start > limit:
                raise RuntimeError(f"not on screen after {limit:.0f} s:\n{terminal.screen()}")
            time.sleep(0.005)
        return time.perf_counter() - start

    def charted(screen: str) -> bool:
        upper, _, lower = screen.partition("INDEX.md tokens against the budget, over the git history")
        return "┤" in upper and "┤" in lower and "loading…" not in screen

    def keys(key: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", terminal.name, key], check=True)

    first, again = [], []
    try:
        for _ in range(repeat):
            clear_cache()
            command = f"exec {sys.executable} -m foundry_tui tui --root {ROOT} --today {TODAY.isoformat()}"
            subprocess.run(["tmux", "respawn-pane", "-k", "-t", terminal.name, command], check=True, env=terminal.env)
            until(lambda screen: "fact-" in screen)
            time.sleep(4)  # the start-up work (the full load, the word index, the doctor) done
            keys("F5")
            first.append(until(charted))
            keys("F2")
            time.sleep(1.5)
            keys("F5")
            again.append(until(lambda screen: "Searches per day" in screen and charted(screen)))
    finally:
        terminal.close()
    return first, again


def clear_cache() -> None:
    shutil.rmtree(os.environ["FOUNDRY_CACHE_DIR"], ignore_errors=True)


def main() -> None:
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--terminal", action="store_true", help="also F5 in a real terminal (tmux 160x45), every cache removed first"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="foundry-bench-health-"))
    os.environ["FOUNDRY_CACHE_DIR"] = str(work / "cache")
    ROOT = work / "project"
    ROOT.mkdir()
    rng = random.Random(7)
    try:
        start = time.perf_counter()
        make_history(ROOT, args.commits, rng)
        make_events(ROOT, args.events, rng)
        print(f"generated {args.commits} commits and {args.events} events in {time.perf_counter() - start:.1f} s")
        print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        cold, warm, app_cold, app_warm = [], [], [], []
        for _ in range(args.repeat):
            clear_cache()
            cold.append(core_once())
            warm.append(core_once())
        for _ in range(args.repeat):
            clear_cache()
            app_cold.append(asyncio.run(app_once()))
            app_warm.append(asyncio.run(app_once()))

        def ms(values: list[float]) -> str:
            return f"median {statistics.median(values) * 1000:.0f} ms (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"

        for label, core in (("cold", cold), ("warm", warm)):
            print(
                f"health_figures, timeline cache {label}: {ms([c[0] for c in core])}; "
                f"CPU: Python {ms([c[1] for c in core])}, git {ms([c[2] for c in core])}"
            )
        for label, runs in (("cold", app_cold), ("warm", app_warm)):
            print(
                f"F5 to charts painted, {label}: {ms([r[0] for r in runs])}; "
                f"longest UI stall {ms([r[1] for r in runs])}; shown again (F2, F5) {ms([r[2] for r in runs])}"
            )
            print(f"  (the events' charts, before the history's: painted {ms([r[3] for r in runs])})")
        if args.terminal:
            first, again = terminal_runs(args.repeat)
            print(f"in a real terminal, F5 to the four charts, first look ever: {ms(first)}; F2, F5 again: {ms(again)}")
        print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    finally:
        shutil.rmtree(work, ignore_errors=True)


ROOT = Path()

if __name__ == "__main__":
    main()
