"""`foundry proposals …`: the memory changes parked for a trusted curator: list, show,
approve, reject (the last two through the door's `core.ops.curator`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from foundry_tui.commands.common import CommandGroup, actor_of, emit, project_of, today_of

if TYPE_CHECKING:
    import argparse


def cmd_proposals_list(args: argparse.Namespace) -> int:
    from foundry_tui.core.gate.proposals import list_proposals, render_proposals

    project = project_of(args)
    proposals = list_proposals(project.layout)
    if args.json:
        emit(json.dumps({"proposals": [p.to_dict() for p in proposals]}, indent=2, ensure_ascii=False))
    else:
        emit(render_proposals(project, proposals, today_of(args)))
    return 0


def cmd_proposals_show(args: argparse.Namespace) -> int:
    from foundry_tui.core.gate.proposals import load_proposal, render_proposal

    project = project_of(args)
    emit(render_proposal(project, load_proposal(project.layout, args.id), today_of(args)))
    return 0


def cmd_proposals_approve(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.curator import approve

    emit(approve(actor_of(args), args.id))
    return 0


def cmd_proposals_reject(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.curator import reject

    emit(reject(actor_of(args), args.id, args.reason))
    return 0


def add_commands(commands: CommandGroup) -> None:
    """The `proposals` group, added to the parser by cli.build_parser."""
    proposals = commands.group("proposals", "memory changes parked for a trusted curator: list, show, approve, reject")
    p = proposals.command("list", cmd_proposals_list, "every proposal, pending first in age order, broken ones marked")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = proposals.command("show", cmd_proposals_show, "one proposal beside the active fact it would change (a diff)")
    p.add_argument("id", help="the proposal id, e.g. prop-0003")
    p = proposals.command("approve", cmd_proposals_approve, "apply a pending proposal (you must be trusted)")
    p.add_argument("id", help="the proposal id, e.g. prop-0003")
    p = proposals.command("reject", cmd_proposals_reject, "reject a pending proposal; it is kept with the reason")
    p.add_argument("id", help="the proposal id, e.g. prop-0003")
    p.add_argument("--reason", required=True, help="why (kept with the proposal)")
