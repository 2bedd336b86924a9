"""Read-only views of facts shared by the CLI and the TUI: listings, detail, chains."""

from __future__ import annotations

import datetime as _dt
from typing import Any

from .adr import adr_for_source
from .facts import Fact
from .memory import Project


def older_chain(project: Project, fact: Fact) -> list[str]:
    """The ids this fact replaced, newest first (fact-0009 → fact-0004 → fact-0002)."""
    chain: list[str] = []
    current = fact.supersedes
    while current and current not in chain and current != fact.id:
        chain.append(current)
        older = project.store.get(current)
        current = older.supersedes if older else None
    return chain


def newer_chain(project: Project, fact: Fact) -> list[str]:
    """The ids that replaced this fact, oldest first."""
    replaced = project.store.superseded_by()
    chain: list[str] = []
    current = replaced.get(fact.id)
    while current and current not in chain and current != fact.id:
        chain.append(current)
        current = replaced.get(current)
    return chain


def render_fact_detail(project: Project, fact: Fact, today: _dt.date) -> str:
    """`foundry memory show`: state, file, chain both ways, then the file as on disk."""
    reason = project.store.inactive_reason(fact, today)
    path = project.layout.facts_dir / f"{fact.id}.md"
    lines = [
        f"{fact.id} · {fact.type} · {'inactive: ' + reason if reason else 'active'}",
        f"file: {project.layout.relative(path)}",
    ]
    newer = newer_chain(project, fact)
    older = older_chain(project, fact)
    if newer:
        lines.append(f"newer: {' → '.join(newer)}")
    if older:
        lines.append(f"older: {' → '.join(older)}")
    adr = adr_for_source(project.layout, fact.source)
    if adr is not None:
        ref, found = adr
        target = project.layout.relative(found.path) if found else "not found in docs/adr/"
        lines.append(f"source: [{ref}]({target})" if found else f"source: {ref} ({target})")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        text = f"(cannot read the file: {exc.strerror})"
    return "\n".join(lines) + "\n\n" + text.rstrip("\n")


def fact_listing(project: Project, today: _dt.date, *, include_inactive: bool) -> list[dict[str, Any]]:
    """Rows for `foundry memory list`: active facts, and with include_inactive the rest and broken files."""
    rows: list[dict[str, Any]] = []
    for fact in project.store.sorted_facts():
        reason = project.store.inactive_reason(fact, today)
        if reason and not include_inactive:
            continue
        rows.append(
            {
                "id": fact.id,
                "type": fact.type,
                "title": fact.title,
                "tags": list(fact.tags),
                "active": reason is None,
                "inactive": reason,
                "file": f"{fact.id}.md",
            }
        )
    if include_inactive:
        for broken in sorted(project.store.broken.values(), key=lambda b: b.name):
            rows.append({"id": None, "file": broken.name, "broken": broken.reason, "active": False})
    return rows


def render_listing(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "No facts yet: record one with `foundry memory write` or the memory_write tool."
    lines = []
    for row in rows:
        if row.get("broken"):
            lines.append(f"broken: {row['file']} — {row['broken']}")
        else:
            suffix = f" ({row['inactive']})" if row["inactive"] else ""
            lines.append(f"{row['id']} · {row['type']} · {row['title']}{suffix}")
    return "\n".join(lines)
