"""The prune report: candidates for retirement. It only reports; nothing is changed."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from foundry_tui.core.memory.storage.store import FactStore

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.code_refs import Verification

HEADER = "Prune candidates (nothing is deleted automatically):"


@dataclass(frozen=True)
class PruneEntry:
    fact_id: str
    group: str  # expired | superseded | missing reasoning | code gone | code changed
    detail: str  # the text after the dash

    def line(self) -> str:
        return f"    - {self.fact_id} — {self.detail}"


GROUPS = ("expired", "superseded", "missing reasoning", "code gone", "code changed")


def prune_candidates(store: FactStore, today: _dt.date, verification: Verification | None = None) -> list[PruneEntry]:
    """Expired facts, superseded facts, and active decisions or risks without **Why:**; with
    a `verification` of the active facts' refs (issue 30), those whose code is gone, then
    those whose code changed or moved.

    A fact appears once, in the first group that applies: one reason to retire it is enough."""
    iso = today.isoformat()
    replaced = store.superseded_by()
    entries: list[PruneEntry] = []
    facts = store.sorted_facts()
    expired = {f.id for f in facts if f.expires is not None and f.expires < iso}
    for fact in facts:
        if fact.id in expired:
            entries.append(PruneEntry(fact.id, "expired", f"expired {fact.expires}"))
    for fact in facts:
        if fact.id in replaced and fact.id not in expired:
            entries.append(PruneEntry(fact.id, "superseded", "superseded by a newer fact"))
    for fact in facts:
        if fact.needs_why and fact.id not in replaced and fact.id not in expired:
            entries.append(PruneEntry(fact.id, "missing reasoning", "add a **Why:** line"))
    if verification is not None:
        listed = {e.fact_id for e in entries}
        for group, wanted in (("code gone", ("gone",)), ("code changed", ("changed", "moved"))):
            for fact in facts:
                check = verification.checks.get(fact.id)
                if check is None or check.state not in wanted or fact.id in listed:
                    continue
                cited = ", ".join(s.line() for s in check.refs if s.state in ("gone", "changed", "moved"))
                entries.append(PruneEntry(fact.id, group, f"{cited}: check it, confirm or supersede it"))
                listed.add(fact.id)
    return entries


def render_prune(entries: list[PruneEntry]) -> str:
    """The spec's report: header, then the non-empty groups in order; `  none` when empty."""
    lines = [HEADER, ""]
    if not entries:
        lines.append("  none")
    for group in GROUPS:
        members = [e for e in entries if e.group == group]
        if members:
            lines.append(f"  {group}:")
            lines.extend(e.line() for e in members)
    return "\n".join(lines)


def prune_json(entries: list[PruneEntry], store: FactStore) -> list[dict[str, str | None]]:
    replaced = store.superseded_by()
    return [
        {"id": e.fact_id, "group": e.group, "detail": e.detail, "supersededBy": replaced.get(e.fact_id)}
        for e in entries
    ]
