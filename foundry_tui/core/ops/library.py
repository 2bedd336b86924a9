"""The door for runbooks and ADRs. SessionStart lists the runbooks in every session, so a
new one is a curator's (a trusted principal in an attended run), like a fact approved."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foundry_tui.core.ops.actor import Actor, require_curator
from foundry_tui.core.ops.registry import operation

if TYPE_CHECKING:
    from pathlib import Path


@operation("runbook.new", "curator", "create .foundry/runbooks/<slug>.md from the template")
def new_runbook(actor: Actor, title: str, trigger: str | None = None, slug: str | None = None) -> Path:
    from foundry_tui.core.artefacts.runbook_new import new_runbook as create

    require_curator(actor, "create runbooks (every session lists them)")
    return create(actor.project.layout, title, trigger, slug)


@operation("adr.new", "curator", "create docs/adr/NNNN-<slug>.md (and mark the one it supersedes)")
def new_adr(actor: Actor, title: str, supersedes: int | None = None) -> Path:
    from foundry_tui.core.artefacts.adr_new import new_adr as create

    require_curator(actor, "create ADRs")
    return create(actor.project.layout, title, supersedes, actor.today)
