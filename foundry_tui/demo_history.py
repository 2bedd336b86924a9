"""The demo's git history, made at copy time (a package cannot ship a `.git` folder).

One commit per fact, on the day the fact was created, by one of two curators, each with
the INDEX.md of that day; the first also holds everything else of the memory (config,
runbooks, the blackboard, the ADRs). The last commit holds exactly the files of the copy,
so the working tree is clean. Every date, name and byte is fixed, so every copy has the
same commit ids. One `git fast-import` run: a few tens of milliseconds. Without git the
demo simply has no history (the Health screen says what would appear).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import subprocess
from pathlib import Path

from foundry_tui.core.memory.model.facts import Fact, FactFileError, parse_fact_text
from foundry_tui.core.memory.reports.index_file import build_index
from foundry_tui.core.paths import Layout

CURATORS = ("Alice Moreau <alice@example.com>", "Bob Okafor <bob@example.com>")
IGNORED = (".foundry/metrics/", ".foundry/scratch/")


def make_demo_history(root: Path) -> bool:
    """Give the copy at `root` its history; False (and no repository) when git is missing or fails."""
    layout = Layout(root)
    files = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not p.relative_to(root).as_posix().startswith(IGNORED)
    )
    facts_rel = layout.relative(layout.facts_dir) + "/"
    index_rel = layout.relative(layout.index_path)
    facts: list[tuple[str, Fact]] = []
    for rel in files:
        if rel.startswith(facts_rel):
            try:
                facts.append((rel, parse_fact_text((root / rel).read_text(encoding="utf-8"), None)))
            except (FactFileError, OSError, UnicodeDecodeError):
                continue
    facts.sort(key=lambda item: (item[1].created, item[1].order_key))
    if not facts:
        return False
    others = [rel for rel in files if not rel.startswith(facts_rel) and rel != index_rel]
    budget = int(json.loads((root / layout.relative(layout.config_path)).read_text()).get("indexTokenBudget", 4000))
    stream = bytearray()
    present: list[Fact] = []
    for number, (rel, fact) in enumerate(facts):
        present.append(fact)
        last = number + 1 == len(facts)
        day = _dt.date.fromisoformat(fact.created)
        if last:
            index = (root / index_rel).read_bytes()  # the copy's own INDEX.md: a clean working tree
        else:
            iso = day.isoformat()
            active = [f for f in present if f.id not in _replaced(present) and (f.expires is None or f.expires >= iso)]
            index = build_index(active, budget)[0].encode()
        changed = [rel, *(others if number == 0 else [])]
        blobs = [(path, (root / path).read_bytes()) for path in changed] + [(index_rel, index)]
        stamp = int(_dt.datetime.combine(day, _dt.time(10, number % 7 * 7), _dt.UTC).timestamp())
        who = CURATORS[number % 2]
        message = f"memory: {fact.id} ({fact.type}) {fact.title}".encode()
        stream += b"commit refs/heads/main\n"
        stream += f"mark :{number + 1}\nauthor {who} {stamp} +0000\ncommitter {who} {stamp} +0000\n".encode()
        stream += f"data {len(message)}\n".encode() + message + b"\n"
        if number:
            stream += f"from :{number}\n".encode()
        for path, data in blobs:
            stream += f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n"
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "LC_ALL": "C",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    try:
        steps: list[tuple[list[str], bytes | None]] = [
            (["init", "-q", "-b", "main"], None),
            (["fast-import", "--quiet"], bytes(stream)),
            (["reset", "-q"], None),  # the index from HEAD; the files are already the last commit's
        ]
        for args, stdin in steps:
            subprocess.run(["git", *args], cwd=root, input=stdin, env=env, capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        import shutil

        shutil.rmtree(root / ".git", ignore_errors=True)
        return False
    return True


def _replaced(facts: list[Fact]) -> set[str]:
    return {old for f in facts for old in f.replaced_ids() if old != f.id}
