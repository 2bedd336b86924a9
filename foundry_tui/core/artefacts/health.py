"""The memory's health over time: the figures behind the Health screen, `foundry health`
and `foundry tokens --json` (one function feeds all three).

From `events.jsonl`: searches per day with how many found nothing, the most missed
queries, writes per day by outcome, gate denials per day, and the event counts. From git
(objects only, see core/memory/timeline.py): INDEX.md's tokens and the active facts by
type at each day's last commit. And the token report's figures, as today.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from foundry_tui.core.artefacts.token_report import TokenFigures, token_figures
from foundry_tui.core.curation.missed import missed_key
from foundry_tui.core.events import read_events
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.timeline import Timeline, memory_timeline

# The outcomes of a write, in the order the charts stack them. `denied` is the trust
# gate's refusal of an unattended write (a `write_denied` event); the rest are the
# `action` a memory_write call recorded.
WRITE_OUTCOMES = ("created", "updated", "unchanged", "parked", "denied")
TOP_MISSED = 10
MAX_DAYS = 366  # the charts' span ends at the last recorded day (a stray date must not make millions of days)


@dataclass
class SearchDay:
    day: str
    searches: int = 0
    empty: int = 0  # found nothing

    @property
    def empty_share(self) -> float:
        return self.empty / self.searches if self.searches else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"day": self.day, "searches": self.searches, "empty": self.empty}


@dataclass
class WriteDay:
    day: str
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(WRITE_OUTCOMES, 0))
    gate_denials: int = 0  # the read gate's blocks (`gate_blocked`: a tool call reading fact files)

    def to_dict(self) -> dict[str, Any]:
        return {"day": self.day, **self.outcomes, "gate_denials": self.gate_denials}


@dataclass
class HealthFigures:
    """Everything the Health screen draws, as plain data."""

    tokens: TokenFigures
    searches: list[SearchDay]  # every day from the first recorded event to the last, gaps as zeros
    writes: list[WriteDay]  # the same days
    missed: list[tuple[str, int]]  # the most frequent searches that found nothing, as first spelled
    timeline: Timeline

    @property
    def search_total(self) -> int:
        return sum(d.searches for d in self.searches)

    @property
    def empty_total(self) -> int:
        return sum(d.empty for d in self.searches)

    def to_dict(self) -> dict[str, Any]:
        t = self.tokens
        return {
            "tokens": {
                "index": t.index,
                "budget": t.budget,
                "facts": t.fact_count,
                "fact_tokens": t.facts,
                "blackboard": t.blackboard,
                "eager": t.eager,
                "index_first": t.index,
            },
            "events": dict(t.events),
            "searches": {
                "total": self.search_total,
                "empty": self.empty_total,
                "days": [d.to_dict() for d in self.searches],
                "top_missed": [{"query": q, "count": n} for q, n in self.missed],
            },
            "writes": {"outcomes": list(WRITE_OUTCOMES), "days": [d.to_dict() for d in self.writes]},
            "history": {
                "budget": t.budget,
                "commits": self.timeline.commits,
                "note": self.timeline.note,
                "points": [p.to_dict() for p in self.timeline.points],
            },
        }

    def text(self) -> str:
        """`foundry health`: the token report, then one line per chart."""
        lines = [self.tokens.text(), "", "## Over time", ""]
        if self.searches:
            first, last = self.searches[0].day, self.searches[-1].day
            share = self.empty_total / self.search_total if self.search_total else 0.0
            lines.append(
                f"- Searches {first} to {last}: {self.search_total}, {self.empty_total} found nothing ({share:.0%})"
            )
            if self.missed:
                lines.append("- Most missed: " + ", ".join(f'"{q}" ×{n}' for q, n in self.missed))
            totals = Counter[str]()
            for day in self.writes:
                totals.update(day.outcomes)
            lines.append("- Writes: " + ", ".join(f"{o} {totals[o]}" for o in WRITE_OUTCOMES))
            lines.append(f"- Gate denials: {sum(d.gate_denials for d in self.writes)}")
        else:
            lines.append(f"- {NO_EVENTS}")
        points = self.timeline.points
        if points:
            first_point, last_point = points[0], points[-1]
            lines.append(
                f"- History {first_point.date} to {last_point.date} ({self.timeline.commits} commits): "
                f"INDEX.md ~{first_point.index_tokens or 0} → ~{last_point.index_tokens or 0} tokens of {self.tokens.budget}; "
                f"active facts {sum(first_point.active.values())} → {sum(last_point.active.values())}"
            )
        else:
            lines.append(f"- {no_history(self.timeline)}")
        return "\n".join(lines)


NO_EVENTS = (
    "No events recorded yet: once agents search and write the memory through the MCP server, "
    "searches per day (and the share that found nothing) and writes per day appear here."
)


def no_history(timeline: Timeline) -> str:
    reason = f" ({timeline.note})" if timeline.note else ""
    return (
        f"No history of the memory in git yet{reason}: once the memory is committed, INDEX.md's tokens "
        "against the budget and the active facts by type appear here, one point per day."
    )


def health_figures(project: Project, today: _dt.date) -> HealthFigures:
    """Read the events once and the git history once, and count."""
    events = read_events(project.layout)
    tokens = token_figures(project, today, events)
    searches: dict[str, SearchDay] = {}
    writes: dict[str, WriteDay] = {}
    missed: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    days: set[str] = set()
    for event in events:
        time = event.get("time")
        if not isinstance(time, str) or len(time) < 10:
            continue
        day = time[:10]
        if not (day[:4].isdigit() and day[5:7].isdigit() and day[8:10].isdigit()):
            continue  # a hand-edited time: not a day to chart
        kind = event["kind"]
        if kind == "memory_search":
            days.add(day)
            search = searches.get(day) or searches.setdefault(day, SearchDay(day))
            search.searches += 1
            if event.get("hits") == 0:
                search.empty += 1
                key = missed_key(event.get("query"))
                if key is not None:
                    missed[key] += 1
                    spelled.setdefault(key, str(event["query"]).strip())
        elif kind in ("memory_write", "write_denied", "gate_blocked"):
            days.add(day)
            write = writes.get(day) or writes.setdefault(day, WriteDay(day))
            if kind == "gate_blocked":
                write.gate_denials += 1
            elif kind == "write_denied":
                write.outcomes["denied"] += 1
            elif event.get("action") in write.outcomes:
                write.outcomes[event["action"]] += 1
    span = _days(min(days), max(days))[-MAX_DAYS:] if days else []
    top = sorted(missed.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_MISSED]
    return HealthFigures(
        tokens,
        [searches.get(d) or SearchDay(d) for d in span],
        [writes.get(d) or WriteDay(d) for d in span],
        [(spelled[k], n) for k, n in top],
        memory_timeline(project.layout),
    )


def _days(first: str, last: str) -> list[str]:
    try:
        start, end = _dt.date.fromisoformat(first), _dt.date.fromisoformat(last)
    except ValueError:  # 2026-02-31: not a day
        return sorted({first, last})
    start = max(start, end - _dt.timedelta(days=MAX_DAYS - 1))
    return [(start + _dt.timedelta(days=n)).isoformat() for n in range((end - start).days + 1)]
