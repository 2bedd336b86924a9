"""Reading a labelled set of fact pairs (neardup_labelled.json, neardup_fresh.json): one
place for the tests and benchmarks/bench_neardup.py, so both number the facts alike."""

from __future__ import annotations

import json
from pathlib import Path

from foundry_tui.core.memory.model.facts import Fact


def read_labelled(path: Path, split: str | None = None) -> tuple[list[Fact], list[tuple[str, str, str]]]:
    """The facts of `path`'s pairs (of one split, or all; ids fact-0001… in file order) and
    the pairs themselves as (id a, id b, label)."""
    facts: list[Fact] = []
    pairs: list[tuple[str, str, str]] = []
    for pair in json.loads(path.read_text(encoding="utf-8"))["pairs"]:
        if split is not None and pair["split"] != split:
            continue
        ids = []
        for side in (pair["a"], pair["b"]):
            facts.append(
                Fact(id=f"fact-{len(facts) + 1:04d}", type=side["type"], title=side["title"], body=side["body"])
            )
            ids.append(facts[-1].id)
        pairs.append((ids[0], ids[1], pair["label"]))
    return facts, pairs
