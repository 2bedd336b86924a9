"""The token report: what Foundry's memory costs, and what the index-first path saves."""

from __future__ import annotations

import datetime as _dt

from .blackboard import blackboard_tokens
from .config import Config
from .errors import ConfigError
from .events import count_events, read_events
from .index import build_index
from .memory import Project
from .tokens import estimate_tokens


def token_report(project: Project, today: _dt.date) -> str:
    project.sync()
    layout = project.layout
    try:
        config = project.config()
    except ConfigError:
        config = Config()
    try:
        index_text = layout.index_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        index_text, _ = build_index(project.active_facts(today), config.index_token_budget)
    index_tokens = estimate_tokens(index_text)
    fact_tokens = 0
    for name in project.store.file_names():
        try:
            fact_tokens += estimate_tokens((layout.facts_dir / name).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    board = blackboard_tokens(layout)
    counts = count_events(read_events(layout))
    events = ", ".join(f"{kind}={n}" for kind, n in counts.items()) or "none yet"
    return "\n".join(
        [
            "# Foundry token report",
            "",
            f"- Memory index: ~{index_tokens} tokens of a {config.index_token_budget} budget (always in context)",
            f"- Facts stored: {len(project.store.facts)}, ~{fact_tokens} tokens total (retrieved on demand only)",
            f"- Blackboard artifacts: ~{board} tokens (never enter context wholesale)",
            f"- Recorded events: {events}",
            "",
            f"Loading all memory eagerly would cost ~{fact_tokens + board} tokens per session; the index-first path costs ~{index_tokens}.",
        ]
    )
