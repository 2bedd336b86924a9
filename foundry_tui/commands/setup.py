"""`foundry init` and `foundry doctor`: setting a repository up (through the door's
`core.ops.setup`) and checking the memory's health."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from foundry_tui.commands.common import CommandGroup, caller_of, emit, emit_json_or_text, project_of, today_of
from foundry_tui.core.errors import InputError

if TYPE_CHECKING:
    import argparse


def cmd_doctor(args: argparse.Namespace) -> int:
    from foundry_tui.core.checkup import ALL_CHECKS
    from foundry_tui.core.memory.reports.doctor import run_doctor

    report = run_doctor(project_of(args), today_of(args), ALL_CHECKS)
    emit_json_or_text(args, report.to_dict(), report.text())
    return 0 if report.ok else 1


def cmd_init(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.setup import init_project
    from foundry_tui.core.paths import find_root

    root = find_root(args.root) if args.root else Path.cwd()
    from foundry_tui.core.agent_config import parse_agents

    try:
        agents = [name for text in args.agent for name in parse_agents(text)] if args.agent else None
    except ValueError as exc:
        raise InputError(str(exc)) from None
    report = init_project(
        root, caller_of(args), args.profile, today_of(args), trusted=args.trusted, agents=agents, remove=args.remove
    )
    emit(report.text())
    return 1 if report.problems else 0


def add_commands(commands: CommandGroup) -> None:
    """`doctor` and `init`, added to the parser by cli.build_parser."""
    p = commands.command("doctor", cmd_doctor, "check the memory's health (exit 1 on any FAIL)")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = commands.command(
        "init",
        cmd_init,
        "set this repository up: folders, config, .gitignore, each agent's MCP server and hooks",
    )
    p.add_argument(
        "--agent",
        action="append",
        metavar="NAMES",
        help="the agents to wire, comma-separated: claude, codex, cursor, gemini (default: those whose folders "
        "or settings are here, else claude; repeatable)",
    )
    p.add_argument(
        "--remove", action="store_true", help="take Foundry's entries out of the --agent files again, nothing else"
    )
    p.add_argument("--profile", help="startup-mvp (2500-token index), standard (4000) or full (6000)")
    p.add_argument(
        "--trusted",
        action="append",
        metavar="PRINCIPAL",
        help="write trust.trusted: who may change shared memory directly, e.g. user:alice (repeatable)",
    )
