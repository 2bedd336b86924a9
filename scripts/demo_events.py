"""Write the bundled demo's month of events (foundry_tui/demo_project/foundry/metrics/events.jsonl).

    python scripts/demo_events.py

Deterministic (a seeded generator): 2026-10-31 to 2026-11-29, busier on weekdays, with the
share of searches that find nothing falling as the month goes on (the curator tagged the
facts that were missed), a few writes a day, the odd parked write, two unattended writes
denied, and the read gate blocking an agent now and then. The snapshots and screenshots
are drawn from this file: run the script again only to change it on purpose.
"""

from __future__ import annotations

import datetime as _dt
import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "foundry_tui/demo_project/foundry/metrics/events.jsonl"
FIRST = _dt.date(2026, 10, 31)
DAYS = 30

FOUND = [
    ("postgres migrations", 3),
    ("json field naming camelCase", 2),
    ("tenant isolation", 1),
    ("orders table", 2),
    ("api versioning", 1),
    ("python version", 1),
    ("deploy window", 2),
    ("error budget", 1),
    ("snake_case json", 1),
    ("billing tenant", 2),
]
MISSED = [  # most frequent first
    "kubernetes deploy",
    "k8s helm chart",
    "feature flags",
    "redis cache ttl",
    "on-call rotation",
]
MISSED_WEIGHTS = [6, 4, 3, 2, 2]
TARGETS = [
    (".foundry/memory/facts/fact-0009.md", "Read"),
    (".foundry/memory/facts", "Grep"),
    ("cat .foundry/memory/facts/fact-0004.md", "Bash"),
]


def events() -> list[dict[str, object]]:
    rng = random.Random(16)
    out: list[dict[str, object]] = []
    next_id = 17
    proposal = 1
    for number in range(DAYS):
        day = FIRST + _dt.timedelta(days=number)
        weekday = day.weekday() < 5
        calls: list[dict[str, object]] = []
        empty_share = 0.45 - 0.3 * number / DAYS
        for _ in range(rng.randint(6, 14) if weekday else rng.randint(0, 3)):
            if rng.random() < empty_share:
                query = rng.choices(MISSED, MISSED_WEIGHTS)[0]
                calls.append({"kind": "memory_search", "query": query, "hits": 0})
            else:
                query, hits = rng.choice(FOUND)
                calls.append({"kind": "memory_search", "query": query, "hits": hits + rng.randint(0, 2)})
        for _ in range(rng.randint(0, 3) if weekday else 0):
            action = rng.choices(["created", "updated", "unchanged", "parked"], [5, 2, 2, 1])[0]
            if action == "parked":
                calls.append({"kind": "memory_write", "action": "parked", "proposals": [f"prop-{proposal:04d}"]})
                proposal += 1
            else:
                calls.append({"kind": "memory_write", "action": action, "id": f"fact-{next_id:04d}"})
                next_id += 1 if action != "unchanged" else 0
        if number in (9, 22):
            calls.append({"kind": "write_denied", "operation": "write", "principal": "agent:ci"})
        if weekday and rng.random() < 0.35:
            target, tool = rng.choice(TARGETS)
            calls.append({"kind": "gate_blocked", "tool": tool, "target": target})
        if weekday and rng.random() < 0.5:
            calls.append({"kind": "runbook_get", "slug": rng.choice(["deploy-production", "rotate-api-keys"])})
        if weekday and rng.random() < 0.3:
            calls.append({"kind": "blackboard_write", "schema": "finding.v1", "written": True})
        seconds = sorted(rng.randint(8 * 3600, 19 * 3600) for _ in calls)
        for call, second in zip(calls, seconds, strict=True):
            time = _dt.datetime.combine(day, _dt.time(), _dt.UTC) + _dt.timedelta(seconds=second)
            out.append({"kind": call["kind"], "time": time.isoformat(timespec="milliseconds"), **call})
    return out


def main() -> None:
    OUT.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events()), encoding="utf-8")
    print(f"{OUT}: {len(events())} events")


if __name__ == "__main__":
    main()
