"""`foundry runbook …` (list, get, new) and `foundry adr …` (list, new): the project's T2
runbooks and T3 architecture decision records (new ones through the door)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foundry_tui.commands.common import CommandGroup, actor_of, emit, project_of

if TYPE_CHECKING:
    import argparse


def cmd_runbook_list(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.runbooks import list_runbooks, render_runbook_list

    emit(render_runbook_list(list_runbooks(project_of(args).layout)))
    return 0


def cmd_runbook_get(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.runbooks import get_runbook

    emit(get_runbook(project_of(args).layout, args.slug))
    return 0


def cmd_runbook_new(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.library import new_runbook

    actor = actor_of(args)
    path = new_runbook(actor, args.title, args.trigger, args.slug)
    emit(f"Created {actor.project.layout.relative(path)}")
    return 0


def cmd_adr_list(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.adr import list_adrs, render_adr_list

    emit(render_adr_list(list_adrs(project_of(args).layout)))
    return 0


def cmd_adr_new(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.library import new_adr

    actor = actor_of(args)
    path = new_adr(actor, args.title, args.supersedes)
    emit(
        f"Created {actor.project.layout.relative(path)}"
        + (f" (supersedes ADR {args.supersedes:04d})" if args.supersedes else "")
    )
    return 0


def add_commands(commands: CommandGroup) -> None:
    """The `runbook` and `adr` groups, added to the parser by cli.build_parser."""
    runbook = commands.group("runbook", "T2 runbooks: list, get, new")
    runbook.command("list", cmd_runbook_list, "list runbooks with their triggers")
    p = runbook.command("get", cmd_runbook_get, "print one runbook")
    p.add_argument("slug")
    p = runbook.command("new", cmd_runbook_new, "create a runbook from the template")
    p.add_argument("title")
    p.add_argument("--trigger", help="when to use it, e.g. 'deploy, release to prod'")
    p.add_argument("--slug", help="file name (default: from the title)")

    adr = commands.group("adr", "T3 architecture decision records: list, new")
    adr.command("list", cmd_adr_list, "list ADRs with their status")
    p = adr.command("new", cmd_adr_new, "write the next ADR from the template")
    p.add_argument("title")
    p.add_argument("--supersedes", type=int, metavar="N", help="mark ADR N superseded by the new one")
