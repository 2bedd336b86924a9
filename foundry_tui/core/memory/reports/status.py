"""The memory's status line: active and total facts, and INDEX.md's tokens against its budget
(what the TUI's header shows on every screen; cheaper than a whole Overview)."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.index_file import build_index


@dataclass(frozen=True)
class MemoryStatus:
    active: int
    total: int  # facts that load, and files that do not
    index_tokens: int
    budget: int


def memory_status(project: Project, today: _dt.date) -> MemoryStatus:
    """Counted as the memory screen counts (the index as it would be built today)."""
    project.sync()
    store = project.store
    active = store.active_facts(today)
    config, _problem = project.config_or_defaults()
    _text, report = build_index(active, config.index_token_budget)
    return MemoryStatus(len(active), len(store.facts) + len(store.broken), report.tokens, config.index_token_budget)
