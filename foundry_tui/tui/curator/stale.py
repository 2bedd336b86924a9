"""The curator's stale view (issue 30): the active facts whose cited code changed, moved or
is gone since they were written, one row each naming the state and the ref; the selected
one's refs and body beside it. What the rows are made of is the Overview's verification,
read in the curator's load worker; the actions (confirm, retire, supersede, the diff) are
CuratorScreen's, and what a confirm or a supersede writes is the door's `ops.facts.restating`."""

from __future__ import annotations

from rich.text import Text

from foundry_tui.core.code_refs import STALE_STATES, FactCheck
from foundry_tui.core.memory.model.facts import Fact, id_order
from foundry_tui.core.memory.reports.views import Overview
from foundry_tui.tui.common.row_list import Row
from foundry_tui.tui.common.text import marked, shown
from foundry_tui.tui.common.theme import ThemeColours

NO_STALE = "No active fact cites code that changed since it was written."
NOTHING_SELECTED = "Select a stale fact: c confirms it, r retires it, s supersedes it, D shows the diff."


def stale_checks(overview: Overview) -> list[FactCheck]:
    """The active facts' checks whose state is changed, moved or gone, in id order."""
    verification = overview.verification
    if verification is None:
        return []
    found = [c for c in verification.stale() if c.fact_id in overview.facts and c.fact_id not in overview.inactive]
    return sorted(found, key=lambda c: id_order(c.fact_id))


def stale_refs_text(check: FactCheck) -> str:
    """`changed app.py; gone old.py`: the refs that are not fresh, each with its state."""
    return "; ".join(state.line() for state in check.refs if state.state in STALE_STATES)


def stale_rows(overview: Overview, checks: list[FactCheck], colours: ThemeColours) -> list[Row]:
    rows: list[Row] = [
        (
            check.fact_id,
            Text.assemble(
                (check.fact_id, "bold"),
                " ",
                (shown(stale_refs_text(check)), colours.warning),
                f"  {shown(overview.facts[check.fact_id].title)}",
            ),
        )
        for check in checks
    ]
    return rows or [(None, Text(NO_STALE, style="dim"))]


def stale_detail(fact: Fact, check: FactCheck, colours: ThemeColours) -> Text:
    """The selected stale fact: its head, every ref with its state, its body."""
    out = Text()
    out.append(f"{fact.id} · {fact.type} · {check.state}\n", style="bold")
    out.append(f"{shown(fact.title)}\n\n", style="bold")
    for state in check.refs:
        style = colours.warning if state.state in STALE_STATES else "dim"
        out.append(f"{shown(state.line())}\n", style=style)
    out.append("\n")
    out.append_text(marked(fact.body, "dim", lines=True))  # **Why:** bold, not markdown
    out.append("\n")
    return out
