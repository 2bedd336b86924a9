"""The door for the blackboard: a run's agents write their artifacts there (T2, the run's
own scratch; the reserved proposals wave is refused by the room itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foundry_tui.core.ops.actor import Actor
from foundry_tui.core.ops.registry import operation

if TYPE_CHECKING:
    from foundry_tui.core.artefacts.blackboard import WriteOutcome


@operation("blackboard.write", "open", "write one agent's artifact into a wave, checked against its contract")
def blackboard_write(actor: Actor, wave: str, agent: str, schema: str, data: object) -> WriteOutcome:
    from foundry_tui.core.artefacts.blackboard import blackboard_write as write

    return write(actor.project.layout, wave, agent, schema, data)
