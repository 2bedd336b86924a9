"""Benchmark of the terminal application over generated memory (a benchmark, not a test).

Opens the real app headless (`App.run_test`) on N generated facts and prints: first
paint (from starting the app to the first line of facts drawn), typing latency (from
a key press in the search box to the results on screen, with the word index built),
and how long a fact written on disk by another writer takes to show (watcher on).

    python benchmarks/bench_tui.py [--facts 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_memory import TODAY, generate, queries

from foundry_tui.core.memory.project import Project
from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.memory.index_pane import IndexPane
from foundry_tui.tui.memory.screen import MemoryScreen
from foundry_tui.tui.memory.search_pane import SearchPane
from tests.tui_helpers import settle


async def run(root: Path, words: list[str]) -> dict[str, str]:
    painted: list[float] = []
    draw = IndexPane.render_line

    def render_line(self: IndexPane, y: int) -> object:
        if self.rows and not painted:  # the first line of facts drawn on screen
            painted.append(time.perf_counter())
        return draw(self, y)

    IndexPane.render_line = render_line  # type: ignore[method-assign,assignment]
    start = time.perf_counter()
    app = FoundryApp(root, TODAY, watch=True, root_label="bench")
    figures: dict[str, str] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        while not painted:
            await asyncio.sleep(0.005)
        figures["first paint"] = f"{(painted[0] - start) * 1000:.0f} ms"
        IndexPane.render_line = draw  # type: ignore[method-assign]
        assert isinstance(app.screen, MemoryScreen)
        app.project.search_index_ready(timeout=60)
        await settle(pilot)
        pane = app.screen.query_one(SearchPane)
        app.screen.query_one("#query").focus()

        async def type_and_wait(text: str) -> float:
            got: list[float] = []
            original = pane._show

            def shown(*args: object) -> None:
                original(*args)  # type: ignore[arg-type]
                got.append(time.perf_counter())

            pane._show = shown  # type: ignore[method-assign]
            begin = time.perf_counter()
            await pilot.press(*text)
            while not got:
                await asyncio.sleep(0.001)
            pane._show = original  # type: ignore[method-assign]
            await pilot.press(*["backspace"] * len(text))
            await settle(pilot)
            return (got[-1] - begin) * 1000

        figures["typing, first key"] = f"{await type_and_wait(words[0][:1]):.1f} ms"
        app.project.search_index_ready(timeout=30)  # the app builds it in the background after loading
        samples = [await type_and_wait(word[:1]) for word in words[1:30]]
        figures["typing p50 (index)"] = f"{statistics.median(samples):.1f} ms"

        screen = app.screen
        index = screen.query_one(IndexPane)
        await asyncio.sleep(0.3)  # the watcher's OS watch is in place
        new = root / ".foundry/memory/facts/fact-0001.md"
        text = new.read_text().replace("title: ", "title: Zz edited ", 1)
        begin = time.perf_counter()
        new.write_text(text)
        while "Zz edited" not in str(screen.overview.facts["fact-0001"].title if screen.overview else ""):
            await asyncio.sleep(0.005)
        figures["edit on disk visible"] = f"{(time.perf_counter() - begin) * 1000:.0f} ms"
        assert index.rows
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10000)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="foundry-tui-bench-"))
    os.environ["FOUNDRY_CACHE_DIR"] = str(base / "cache")
    try:
        vocab = generate(base / "project", args.facts)
        Project(base / "project").sync()  # a previous run left the parse cache
        words = queries(vocab, 40, seed=3)
        figures = asyncio.run(run(base / "project", words))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"{args.facts:,} facts: " + ", ".join(f"{k} {v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
