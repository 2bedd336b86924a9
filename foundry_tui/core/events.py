"""`.foundry/metrics/events.jsonl`: one JSON line per tool call and gate denial (not in git)."""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections import Counter
from collections.abc import Callable

from foundry_tui.core.paths import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject

MAX_LOG_BYTES = 512 * 1024 * 1024  # the log only grows; past this it is not read (doctor-level trouble)


def record_event(layout: Layout, kind: str, **fields: object) -> None:
    """Append one event. Never raises: accounting must not break the call it accounts for.
    A string the secret guard flags (a search query, a blocked command) is logged as a
    redaction marker: the log is a file anyone with the checkout can read."""
    from foundry_tui.core.secrets import redact

    event = {
        "kind": kind,
        "time": _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds"),
        **{name: _redacted(value, redact) for name, value in fields.items()},
    }
    line = (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        layout.check_parent_inside(layout.events_path)  # a metrics folder linked out of the root: doctor reports it
        layout.metrics_dir.mkdir(parents=True, exist_ok=True)
        # O_APPEND: concurrent writers' lines do not interleave (one write call per line).
        # O_NOFOLLOW: an events.jsonl that is a link is never appended through.
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK
        fd = os.open(layout.events_path, flags, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        pass


def _redacted(value: object, redact: Callable[[str], str]) -> object:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redacted(item, redact) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redacted(item, redact) for item in value]
    return value


def read_events(layout: Layout) -> list[JSONObject]:
    """Every well-formed event; a damaged line is skipped."""
    try:
        text = layout.read_bytes(layout.events_path, MAX_LOG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return []
    events: list[JSONObject] = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # a damaged line, or one past the parser's limits
            continue
        if isinstance(event, dict) and isinstance(event.get("kind"), str):
            events.append(event)
    return events


def count_events(events: list[JSONObject]) -> Counter[str]:
    """Counts by kind, in the order each kind first appears."""
    return Counter(kind for e in events if isinstance(kind := e["kind"], str))  # read_events keeps only text kinds


def missed_key(query: object) -> str | None:
    """The key a memory_search event that found nothing is counted under (case and spacing
    folded; the curator's missed searches and the health figures count by it), or None for
    one not to learn from (not text, or a query that carried a secret)."""
    from foundry_tui.core.secrets import REDACTED

    if not isinstance(query, str) or query == REDACTED:
        return None
    return " ".join(query.lower().split())
