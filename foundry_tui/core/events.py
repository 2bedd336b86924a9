"""`.foundry/metrics/events.jsonl`: one JSON line per tool call and gate denial (not in git)."""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections import Counter
from typing import Any

from foundry_tui.core.paths import Layout


def record_event(layout: Layout, kind: str, **fields: Any) -> None:
    """Append one event. Never raises: accounting must not break the call it accounts for."""
    event = {"kind": kind, "time": _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds"), **fields}
    line = (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        layout.metrics_dir.mkdir(parents=True, exist_ok=True)
        # O_APPEND: concurrent writers' lines do not interleave (one write call per line).
        fd = os.open(layout.events_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        pass


def read_events(layout: Layout) -> list[dict[str, Any]]:
    """Every well-formed event; a damaged line is skipped."""
    try:
        text = layout.events_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    events = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # a damaged line, or one past the parser's limits
            continue
        if isinstance(event, dict) and isinstance(event.get("kind"), str):
            events.append(event)
    return events


def count_events(events: list[dict[str, Any]]) -> Counter[str]:
    """Counts by kind, in the order each kind first appears."""
    return Counter(e["kind"] for e in events)
