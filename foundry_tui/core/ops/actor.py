"""Who asks for a change, on which project, on which day: what every operation of the door
takes first. The principal is fixed when the process starts (`core/trust/principal.py`),
never taken from a tool argument."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import datetime as _dt

    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.trust.principal import Caller


class Actor:
    """The caller of an operation, the project it acts on, and the date that decides expiry."""

    __slots__ = ("caller", "project", "today")

    def __init__(self, project: Project, caller: Caller, today: _dt.date) -> None:
        self.project = project
        self.caller = caller
        self.today = today


def require_curator(actor: Actor, action: str) -> None:
    """The `curator` policy: refuse (one line, with a `write_denied` event when unattended)
    unless a trusted principal runs attended."""
    from foundry_tui.core.trust.policy import require_curator as check

    check(actor.project, actor.caller, action)
