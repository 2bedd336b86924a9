"""The token report: what Foundry's memory costs, and what the index-first path saves."""

from __future__ import annotations

import datetime as _dt

from foundry_tui.core.artefacts.blackboard import blackboard_tokens
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.events import count_events, read_events
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.index_file import build_index
from foundry_tui.core.paths import decode_text, read_regular
from foundry_tui.core.tokens import estimate_tokens


class TokenFigures:
    """The numbers of the token report."""

    __slots__ = ("blackboard", "budget", "events", "fact_count", "facts", "index")

    def __init__(
        self, index: int, budget: int, fact_count: int, facts: int, blackboard: int, events: dict[str, int]
    ) -> None:
        self.index = index
        self.budget = budget
        self.fact_count = fact_count
        self.facts = facts
        self.blackboard = blackboard
        self.events = events

    @property
    def eager(self) -> int:
        """What loading all memory into every session would cost."""
        return self.facts + self.blackboard

    def text(self) -> str:
        events = ", ".join(f"{kind}={n}" for kind, n in self.events.items()) or "none yet"
        return "\n".join(
            [
                "# Foundry token report",
                "",
                f"- Memory index: ~{self.index} tokens of a {self.budget} budget (always in context)",
                f"- Facts stored: {self.fact_count}, ~{self.facts} tokens total (retrieved on demand only)",
                f"- Blackboard artifacts: ~{self.blackboard} tokens (never enter context wholesale)",
                f"- Recorded events: {events}",
                "",
                f"Loading all memory eagerly would cost ~{self.eager} tokens per session; the index-first path costs ~{self.index}.",
            ]
        )


def token_report(project: Project, today: _dt.date) -> str:
    """The token_report reply (and `foundry tokens`)."""
    return token_figures(project, today).text()


def token_figures(project: Project, today: _dt.date, event_counts: dict[str, int] | None = None) -> TokenFigures:
    """The report's figures; `event_counts`: the log already counted (the health figures read it once)."""
    project.sync()
    layout = project.layout
    config, _problem = project.config_or_defaults()  # the report still counts with a broken config.json
    try:
        index_text = layout.read_text(layout.index_path)
    except (OSError, UnicodeDecodeError):
        index_text, _ = build_index(project.active_facts(today), config.index_token_budget)
    index_tokens = estimate_tokens(index_text)
    fact_tokens = 0
    try:
        folder = layout.check_inside(layout.facts_dir)  # once; each file is then opened without following a link
        names = project.store.file_names()
    except (OSError, FoundryError):
        names = []
    for name in names:
        try:
            fact_tokens += estimate_tokens(decode_text(read_regular(folder / name, follow=False)))
        except (OSError, UnicodeDecodeError, FoundryError):
            continue
    board = blackboard_tokens(layout)
    counts = dict(count_events(read_events(layout))) if event_counts is None else event_counts
    return TokenFigures(index_tokens, config.index_token_budget, len(project.store.facts), fact_tokens, board, counts)
