"""`foundry tokens` and `foundry health`: the token report and the memory's figures over
time (`tokens --json` prints the same figures as `health --json`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foundry_tui.commands.common import CommandGroup, emit, emit_json_or_text, project_of, today_of

if TYPE_CHECKING:
    import argparse


def cmd_tokens(args: argparse.Namespace) -> int:
    if args.json:  # the same figures as `foundry health --json`
        return cmd_health(args)
    from foundry_tui.core.artefacts.token_report import token_report

    emit(token_report(project_of(args), today_of(args)))
    return 0


def cmd_health(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.health import health_figures

    figures = health_figures(project_of(args), today_of(args))
    emit_json_or_text(args, figures.to_dict(), figures.text())
    return 0


def add_commands(commands: CommandGroup) -> None:
    """`tokens` and `health`, added to the parser by cli.build_parser."""
    p = commands.command("tokens", cmd_tokens, "the token report")
    p.add_argument("--json", action="store_true", help="the figures as JSON (the same as `foundry health --json`)")
    p = commands.command("health", cmd_health, "the memory over time: searches, writes, INDEX.md and facts by type")
    p.add_argument("--json", action="store_true", help="machine-readable output")
