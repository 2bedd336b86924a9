"""The door for a curator's decisions: approve or reject a proposal, undo a merge, and
settle the memory after a git merge. Each is for a trusted principal in an attended run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foundry_tui.core.ops.actor import Actor, require_curator
from foundry_tui.core.ops.registry import operation

if TYPE_CHECKING:
    from foundry_tui.core.curation.merge import Undo
    from foundry_tui.core.curation.resolve import ResolveReport


@operation("proposal.approve", "curator", "apply a parked proposal as the approving curator")
def approve(actor: Actor, proposal_id: str) -> str:
    from foundry_tui.core.gate.proposals import approve_proposal

    return approve_proposal(actor.project, actor.caller, proposal_id, actor.today)


@operation("proposal.reject", "curator", "mark a parked proposal rejected, with the reason")
def reject(actor: Actor, proposal_id: str, reason: str) -> str:
    from foundry_tui.core.gate.proposals import reject_proposal

    return reject_proposal(actor.project, actor.caller, proposal_id, reason, actor.today)


@operation("merge.undo", "curator", "restore every file a merge touched, byte for byte")
def undo_merge(actor: Actor, undo: Undo) -> None:
    require_curator(actor, "undo a merge")
    undo.restore(actor.project)


@operation("memory.resolve", "curator", "settle the facts after a git merge (renumber, combine, reindex)")
def resolve_merge(actor: Actor) -> ResolveReport:
    from foundry_tui.core.curation.resolve import resolve_memory

    require_curator(actor, "settle the memory after a merge (a trusted person runs `foundry memory resolve`)")
    return resolve_memory(actor.project, actor.today)
