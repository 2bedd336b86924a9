"""The gate every T1 write goes through (ADR 0019): `guarded_write` applies a change for a
trusted principal, parks it as a proposal for anyone else, and refuses it when the run is
unattended, by the policy of `core/trust/policy.py`. Only the door (core/ops/) calls it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from foundry_tui.core.gate.changes import Applied, Change, WriteChange
from foundry_tui.core.trust.policy import deny_unattended, trust_settings

if TYPE_CHECKING:
    import datetime as _dt

    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.memory.writing.write import WriteResult
    from foundry_tui.core.trust.principal import Caller

R_co = TypeVar("R_co", covariant=True)


class GateResult(Generic[R_co]):
    """What the gate did: `written` (with the core's result) or `parked` (with proposal ids)."""

    __slots__ = ("applied", "proposal_ids", "status", "text")

    def __init__(
        self, status: str, text: str, applied: Applied[R_co] | None = None, proposal_ids: list[str] | None = None
    ) -> None:
        self.status = status
        self.text = text
        self.applied = applied
        self.proposal_ids = proposal_ids or []

    @property
    def written(self) -> bool:
        return self.status == "written"

    @property
    def result(self) -> R_co | None:
        """The core function's result when it was written (a MergeResult for a merge, ...)."""
        return self.applied.result if self.applied is not None else None

    def event_fields(self) -> dict[str, object]:
        """The fields an adapter records with the call's event."""
        if self.applied is not None:
            return {"action": self.applied.action, "id": self.applied.fact_id}
        return {"action": "parked", "proposals": self.proposal_ids}


R = TypeVar("R")


def guarded_write(project: Project, caller: Caller, change: Change[R], today: _dt.date) -> GateResult[R]:
    """Apply `change` if `caller` may, park it as a proposal if not, refuse it when unattended.
    Bad input is refused the same way in every case, before anything is parked."""
    deny_unattended(project, caller, change.operation)
    if trust_settings(project).is_trusted(caller.principal):
        applied = change.apply(project, today)
        return GateResult("written", applied.text, applied)
    from foundry_tui.core.gate.proposals import park, parked_text

    proposals = park(project, caller, change, today)
    return GateResult("parked", parked_text(caller, proposals), proposal_ids=[p.id for p in proposals])


def guarded_memory_write(
    project: Project, caller: Caller, req: WriteRequest, today: _dt.date, operation: str = "write"
) -> GateResult[WriteResult]:
    """memory_write through the gate; `operation="promote"` for a session-memory promotion."""
    return guarded_write(project, caller, WriteChange(req, operation), today)
