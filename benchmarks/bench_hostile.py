"""What the hardening of issue 9 costs and bounds (a benchmark, not a test).

Prints, on generated facts: the CPU time SessionStart spends on the index (built from
today's active facts so that an expired fact is never served) against reading INDEX.md
as it was; and, with hostile input: a 700-byte YAML alias bomb in the facts folder
(`memory search` as a whole process) and a backtracking contract pattern (`^(a+)+$`
against 40 a's and a '!', validated on RE2).

    python benchmarks/bench_hostile.py [--sizes 1000 10000]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_memory import generate

from foundry_tui.core.artefacts.contracts import violations
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.index_file import served_index
from foundry_tui.core.memory.writing.write import memory_index
from foundry_tui.core.paths import resolve_today

BOMB = (
    "---\nid: fact-{n}\ntype: domain\ntitle: Bomb\ncreated: 2026-01-01\nlol:\n"
    '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(f"  {b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True))
    + "---\nBody.\n"
)


def cpu_ms(fn: object, runs: int = 15) -> float:
    samples = []
    for _ in range(runs):
        start = time.process_time()
        fn()  # type: ignore[operator]
        samples.append((time.process_time() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    today = resolve_today()
    for count in args.sizes:
        base = Path(tempfile.mkdtemp(prefix=f"foundry-hostile-{count}-"))
        os.environ["FOUNDRY_CACHE_DIR"] = str(base / "cache")
        root = base / "project"
        try:
            generate(root, count)
            memory_index(Project(root), today)
            Project(root).sync()  # a previous session left the parse cache behind
            index_path = root / ".foundry" / "memory" / "INDEX.md"
            read = cpu_ms(lambda: index_path.read_text(encoding="utf-8"))  # noqa: B023
            built = cpu_ms(lambda: served_index(Project(root), today))  # noqa: B023
            print(
                f"{count:>7,} facts: SessionStart index, CPU: read INDEX.md {read:.1f} ms, served_index {built:.0f} ms"
            )
            (root / ".foundry" / "memory" / "facts" / f"fact-{count + 1:04d}.md").write_text(
                BOMB.format(n=f"{count + 1:04d}")
            )
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "foundry_tui", "--root", str(root), "memory", "search", "lol bomb"],
                capture_output=True,
                timeout=120,
                check=False,
            )
            took = (time.perf_counter() - start) * 1000
            print(
                f"{count:>7,} facts + a {len(BOMB)}-byte alias bomb: memory search {took:.0f} ms (exit {done.returncode})"
            )
        finally:
            shutil.rmtree(base, ignore_errors=True)
    schema = {"properties": {"name": {"type": "string", "pattern": "^(a+)+$"}}}
    data = {"name": "a" * 40 + "!"}
    for label in ("first call, jsonschema and RE2 imports included", "second call"):
        start = time.perf_counter()
        found = violations(schema, data, "evil.v1")
        took = (time.perf_counter() - start) * 1000
        print(
            f"contract pattern ^(a+)+$ against 40 a's and '!': {took:.1f} ms on RE2, {label} ({len(found)} violation)"
        )
    print(json.dumps({"note": "a backtracking engine takes about 2**40 steps for the same input"}))


if __name__ == "__main__":
    main()
