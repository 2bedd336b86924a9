"""The memory's health over time: the figures behind the Health screen, `foundry health`
and `foundry tokens --json` (one function feeds all three).

From `events.jsonl`: searches per day with how many found nothing, the most missed
queries, writes per day by outcome, gate denials per day, and the event counts. From git
(objects only, see core/history/timeline.py): INDEX.md's tokens and the active facts by
type at each day's last commit. And the token report's figures, as today.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import os
import re
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C string scanner json itself uses
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from foundry_tui.core.artefacts.token_report import TokenFigures, token_figures
from foundry_tui.core.events import MAX_LOG_BYTES, missed_key
from foundry_tui.core.history.timeline import Timeline, memory_timeline, memory_timeline_apart
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.storage.cache import cache_file
from foundry_tui.core.paths import Layout

if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject

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

    def to_dict(self) -> JSONObject:
        return {"day": self.day, "searches": self.searches, "empty": self.empty}


@dataclass
class WriteDay:
    day: str
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(WRITE_OUTCOMES, 0))
    gate_denials: int = 0  # the read gate's blocks (`gate_blocked`: a tool call reading fact files)

    def to_dict(self) -> JSONObject:
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

    def to_dict(self) -> JSONObject:
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


def health_figures(
    project: Project,
    today: _dt.date,
    events_read: Callable[[HealthFigures], None] | None = None,
    *,
    history_apart: bool = False,
) -> HealthFigures:
    """Read the events once and the git history once, and count.

    The git history is read in a thread meanwhile: most of its time is git's, in other
    processes, so on a second core it costs the events' reading little. `events_read`,
    if given, is called with the figures of the events (and a timeline still empty) as
    soon as they are counted, before the history is waited for (the Health screen draws
    them meanwhile). `history_apart`: the history is read by another process
    (memory_timeline_apart: for a caller whose other threads keep the interpreter busy)."""
    history = _Background(memory_timeline_apart if history_apart else memory_timeline, project.layout)
    # The project's lock for what reads the memory, not while git reads the history:
    # the TUI's own thread takes that lock too, and must not wait seconds for git.
    with project.lock:
        tally = _Tally()
        tally.read(project.layout)
        tokens = token_figures(project, today, dict(tally.kinds))
    days = tally.days
    span = _days(min(days), max(days))[-MAX_DAYS:] if days else []
    top = sorted(tally.missed.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_MISSED]
    figures = HealthFigures(
        tokens,
        [tally.searches.get(d) or SearchDay(d) for d in span],
        [tally.writes.get(d) or WriteDay(d) for d in span],
        [(tally.spelled[k], n) for k, n in top],
        Timeline(),
    )
    if events_read is not None:
        events_read(figures)
    return dataclasses.replace(figures, timeline=history.result())  # a new object: the first is the caller's


R = TypeVar("R")


class _Background(Generic[R]):
    """`function(*args)` run in a thread; `result()` waits for it and returns what it
    returned, or raises what it raised."""

    def __init__(self, function: Callable[..., R], *args: object) -> None:
        self._outcome: tuple[R | None, BaseException | None] = (None, None)
        self._thread = threading.Thread(target=self._run, args=(function, args), name="foundry-health", daemon=True)
        self._thread.start()

    def _run(self, function: Callable[..., R], args: tuple[object, ...]) -> None:
        try:
            self._outcome = (function(*args), None)
        except BaseException as exc:  # handed to the caller of result()
            self._outcome = (None, exc)

    def result(self) -> R:
        self._thread.join()
        value, error = self._outcome
        if error is not None:
            raise error
        return cast(R, value)


TALLY_VERSION = 1


def _tally_cache(layout: Layout) -> Path | None:
    """Beside the parse cache (FOUNDRY_NO_CACHE turns it off too)."""
    snapshot = cache_file(layout.root)
    return snapshot.with_name(snapshot.name.replace("facts-", "events-", 1) + ".json") if snapshot else None


def _tail(data: bytes, size: int) -> str:
    """What the log's last 4 KiB before `size` were (a rewritten log reads differently)."""
    return hashlib.sha256(data[max(size - 4096, 0) : size]).hexdigest()


CHARTED = frozenset({"memory_search", "memory_write", "write_denied", "gate_blocked"})
_KIND = '{"kind": "'
_TIME = '", "time": "'
_HITS = '"hits": '
_QUERY = '"query": "'
_ACTION = '"action": "'
# The lines record_event writes, matched whole by one regular expression over the log (in
# C, not line by line in Python: a year of events is 100,000 lines). Each alternative is a
# shape whose reading by `_fast` is plain: a digit-only day, no quote or escape before the
# fields read, a search's count of plain digits that ends the line, a missed query with
# no escape or control character (the text json would decode it to). Any other line
# falls to the last group and is read by `_fast` (then `_slow`) as before.
_DAY = r"([0-9]{4}-[0-9]{2}-[0-9]{2})"
_LINE = re.compile(
    r'\n(?:\{"kind": "(?:'
    r'memory_search", "time": "' + _DAY + r'[^"\\\n]*", "query": "'
    r'(?:[^"\\\n]*", "hits": 0*[1-9][0-9]*|([^"\\\x00-\x1f]*"), "hits": 0+)\}'  # found something | nothing
    r'|memory_write", "time": "' + _DAY + r'[^"\\\n]*", "action": "([^"\n]*)"[^\n]*'
    r'|(write_denied|gate_blocked)", "time": "' + _DAY + r"[^\n]*"
    r'|(?!(?:memory_search|memory_write|write_denied|gate_blocked)")([^"\\\n]*"), "time": "[^\n]*'
    r")(?=\n)|([^\n]*))"
)
# Where str.splitlines() (the line-by-line reading) also breaks a line; a log holding one is
# re-joined with newlines first, so that both readings see the same lines.
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


# Characters matched by one call of `_LINE.findall`: a call holds the interpreter's lock
# throughout (about 100 ms for a year's log in one piece), and the Health screen's reading
# of the git history, in another thread, stood still meanwhile.
BULK_PIECE = 1 << 18


def _matched_rows(text: str, piece: int) -> Counter[tuple[str, ...]]:
    """`_LINE`'s rows over the lines of `text`, counted, in the order each first appears;
    matched a piece of whole lines at a time (each piece between line breaks, so each line
    is matched as in the whole text; the empty rows the pieces' ends add count for nothing)."""
    rows: Counter[tuple[str, ...]] = Counter()
    start = 0
    while True:
        end = text.find("\n", start + piece)
        rows.update(_LINE.findall(f"\n{text[start : end if end >= 0 else len(text)]}\n"))
        if end < 0:
            return rows
        start = end + 1


class _Tally:
    """The events counted in one pass. The lines `record_event` writes (`{"kind": …,
    "time": …, …}`, json.dumps's separators) are matched whole by one regular expression
    over the log and counted as distinct rows, not parsed: a year of events is 100,000
    lines. Anything else is read line by line, sliced where it can be (`_fast`), else
    parsed with json as `read_events` would (`_slow`), and skipped when it is not an event."""

    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()
        self.searches: dict[str, SearchDay] = {}
        self.writes: dict[str, WriteDay] = {}
        self.missed: Counter[str] = Counter()
        self.spelled: dict[str, str] = {}
        self.days: set[str] = set()
        self._seen = _Seen()  # what the lines being counted add (see _count_lines)

    def read(self, layout: Layout) -> None:
        """Count the log. The counts up to the last whole line are cached (the log only
        grows): the next read counts only the lines added since, unless the log was
        rewritten (its bytes before that point differ)."""
        try:
            data = layout.read_bytes(layout.events_path, MAX_LOG_BYTES)
        except OSError:
            return
        cache = _tally_cache(layout)
        start = self._restore(cache, data) if cache is not None else 0
        whole = data.rfind(b"\n", start) + 1 or start  # a line still being written is counted, not cached
        self._count_lines(data[start:whole])
        if cache is not None and whole > start:
            self._save(cache, data, whole)
        self._count_lines(data[whole:])

    def _count_lines(self, chunk: bytes, *, bulk: bool = True, piece: int = 0) -> None:
        """Count the lines of `chunk`. The lines record_event writes are matched whole by
        `_LINE` over the text and counted as distinct rows (a Counter, in C); every other
        line goes through `_fast` (then `_slow`), which read it as before. `bulk=False`
        sends every line there (the reference a hypothesis test holds the bulk reading
        equal to); `piece`, the characters matched at a time (BULK_PIECE unless given).

        The counts are kept in insertion order (the kinds are listed in the order they
        first appear; a missed query keeps its first spelling): a distinct row first
        appears where its first line is, so counting rows in that order keeps it."""
        seen = self._seen = _Seen()
        text = chunk.decode("utf-8", errors="replace")
        if not bulk:
            for line in text.splitlines():
                if not self._fast(line):
                    self._slow(line)
            self._fold(seen)
            return
        if any(mark in text for mark in _OTHER_BREAKS):
            text = "\n".join(text.splitlines())
        kinds, searched, missed, written = seen.kinds, seen.searched, seen.missed, seen.written
        for row, n in _matched_rows(text, piece or BULK_PIECE).items():
            search_day, empty_query, write_day, action, other_kind, other_day, kind, odd = row
            if search_day:
                kinds["memory_search"] += n
                searched[search_day] += n
                if empty_query:  # the query and its closing quote: a search that found nothing
                    missed[(search_day, empty_query[:-1])] += n
            elif write_day:
                kinds["memory_write"] += n
                written[("memory_write", write_day, action)] += n
            elif other_kind:
                kinds[other_kind] += n
                written[(other_kind, other_day, None)] += n
            elif kind:
                kinds[kind[:-1]] += n  # the kind and its closing quote
            elif odd:
                for _ in range(n):
                    if not self._fast(odd):
                        self._slow(odd)
        self._fold(seen)

    def _fold(self, seen: _Seen) -> None:
        """Add what the lines noted to the counts (in the lines' order where order matters)."""
        self.kinds.update(seen.kinds)
        charted = {day for day in seen.searched if _is_day(day)}  # (about a year of days: checked once each)
        for day in charted:
            self.days.add(day)
            search = self.searches.get(day) or self.searches.setdefault(day, SearchDay(day))
            search.searches += seen.searched[day]
        empty: Counter[str] = Counter()
        keys: dict[str | None, str | None] = {}  # query → its key (a query recurs on many days)
        missed, spelled = self.missed, self.spelled
        for (day, query), n in seen.missed.items():
            if day in charted:
                empty[day] += n
                key = keys[query] if query in keys else keys.setdefault(query, missed_key(query))
                if key is not None:
                    missed[key] += n
                    if key not in spelled:
                        spelled[key] = str(query).strip()
        for day, n in empty.items():
            self.searches[day].empty += n
        for (kind, day, action), n in seen.written.items():
            if not _is_day(day):
                continue
            self.days.add(day)
            write = self.writes.get(day) or self.writes.setdefault(day, WriteDay(day))
            if kind == "gate_blocked":
                write.gate_denials += n
            elif kind == "write_denied":
                write.outcomes["denied"] += n
            elif action in write.outcomes:
                write.outcomes[action] += n

    def _restore(self, cache: Path, data: bytes) -> int:
        """Where to go on counting from (0: from the start)."""
        try:
            saved = json.loads(cache.read_text(encoding="utf-8"))
            size = int(saved["size"])
            if saved["version"] != TALLY_VERSION or not 0 < size <= len(data) or saved["tail"] != _tail(data, size):
                return 0
            self.kinds = Counter({str(k): int(v) for k, v in saved["kinds"].items()})
            self.searches = {d: SearchDay(d, int(n), int(e)) for d, (n, e) in saved["searches"].items()}
            self.writes = {}
            for day, counts in saved["writes"].items():
                write = WriteDay(day, dict(zip(WRITE_OUTCOMES, map(int, counts[:-1]), strict=True)), int(counts[-1]))
                self.writes[day] = write
            self.missed = Counter({str(k): int(v) for k, v in saved["missed"].items()})
            self.spelled = {str(k): str(v) for k, v in saved["spelled"].items()}
            self.days = set(self.searches) | set(self.writes)
            return size
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.__init__()  # type: ignore[misc]  # a damaged cache: count from the start
            return 0

    def _save(self, cache: Path, data: bytes, size: int) -> None:
        saved = {
            "version": TALLY_VERSION,
            "size": size,
            "tail": _tail(data, size),
            "kinds": self.kinds,
            "searches": {d: [s.searches, s.empty] for d, s in self.searches.items()},
            "writes": {d: [*(w.outcomes[o] for o in WRITE_OUTCOMES), w.gate_denials] for d, w in self.writes.items()},
            "missed": self.missed,
            "spelled": self.spelled,
        }
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            temp = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
            temp.write_text(json.dumps(saved, ensure_ascii=False), encoding="utf-8")
            os.replace(temp, cache)
        except OSError:
            pass  # a cache that cannot be written only costs time

    def _fast(self, line: str) -> bool:
        if not line.startswith(_KIND):
            return False
        end = line.find('"', 10)
        kind = line[10:end]
        if end < 0 or "\\" in kind or not line.startswith(_TIME, end):
            return False
        if kind not in CHARTED:
            self._seen.kinds[kind] += 1
            return True
        start = end + len(_TIME)
        day = line[start : start + 10]
        if kind == "memory_search":
            hits: object = None
            at = line.find(_HITS, start)
            if at >= 0:
                digits_end = at + len(_HITS)
                while digits_end < len(line) and line[digits_end].isdecimal():  # what int() reads
                    digits_end += 1
                if digits_end == at + len(_HITS) or line[digits_end : digits_end + 1] not in (",", "}"):
                    return False  # not a plain count: let json say what it is
                hits = int(line[at + len(_HITS) : digits_end])
            query: object = None
            if hits == 0:
                at = line.find(_QUERY, start)
                if at >= 0:
                    try:
                        query = scanstring(line, at + len(_QUERY))[0]
                    except ValueError:
                        return False
            self.count(kind, day, hits=hits, query=query)
            return True
        action: object = None
        if kind == "memory_write":
            at = line.find(_ACTION, start)
            if at >= 0:
                action = line[at + len(_ACTION) : line.find('"', at + len(_ACTION))]
        self.count(kind, day, action=action)
        return True

    def _slow(self, line: str) -> None:
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            return
        if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
            return
        kind = event["kind"]
        time = event.get("time")
        if kind in CHARTED and isinstance(time, str):
            self.count(kind, time[:10], hits=event.get("hits"), query=event.get("query"), action=event.get("action"))
        else:
            self._seen.kinds[kind] += 1

    def count(self, kind: str, day: str, *, hits: object = None, query: object = None, action: object = None) -> None:
        """Note one charted event (a day that is not YYYY-MM-DD is left out when folded)."""
        seen = self._seen
        seen.kinds[kind] += 1
        if kind == "memory_search":
            seen.searched[day] += 1
            if hits == 0:  # a query that is not text is not learnt from (missed_key): noted as None
                seen.missed[(day, query if isinstance(query, str) else None)] += 1
            return
        seen.written[(kind, day, action if isinstance(action, str) else None)] += 1


class _Seen:
    """What the lines being counted add, counted in the order each first appears (see
    _Tally._count_lines)."""

    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()
        self.searched: Counter[str] = Counter()  # searches by day
        self.missed: Counter[tuple[str, str | None]] = Counter()  # searches that found nothing, by (day, query)
        self.written: Counter[tuple[str, str, str | None]] = Counter()  # writes, denials, blocks by (kind, day, action)


def _is_day(day: str) -> bool:
    """A hand-edited time is not a day to chart."""
    return len(day) == 10 and day[:4].isdigit() and day[5:7].isdigit() and day[8:10].isdigit()


def _days(first: str, last: str) -> list[str]:
    try:
        start, end = _dt.date.fromisoformat(first), _dt.date.fromisoformat(last)
    except ValueError:  # 2026-02-31: not a day
        return sorted({first, last})
    start = max(start, end - _dt.timedelta(days=MAX_DAYS - 1))
    return [(start + _dt.timedelta(days=n)).isoformat() for n in range((end - start).days + 1)]
