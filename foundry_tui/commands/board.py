"""`foundry blackboard …` (waves, diff, read, write) and `foundry contract …` (list,
validate): the artifacts agents hand each other and the JSON Schema contracts they follow."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foundry_tui.commands.common import CommandGroup, actor_of, emit, emit_json_or_text, project_of
from foundry_tui.core.errors import InputError

if TYPE_CHECKING:
    import argparse


def _json_argument(text: str | None, file: str | None, what: str) -> Any:
    if text is not None and file is not None:
        raise InputError(f"give the {what} with --data or --file, not both")
    raw = text if text is not None else (sys.stdin.read() if file in (None, "-") else None)
    if raw is None:
        try:
            raw = Path(str(file)).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read --file {file}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"the {what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # the parser's digit and nesting limits
        limit = "nested too deeply" if isinstance(exc, RecursionError) else "a number has more than 4300 digits"
        raise InputError(f"the {what} is not valid JSON ({limit})") from None


def cmd_blackboard_write(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.board import blackboard_write

    data = _json_argument(args.data, args.file, "artifact")
    outcome = blackboard_write(actor_of(args), args.wave, args.agent, args.schema, data)
    emit(outcome.text)
    return 0 if outcome.written else 1


def cmd_blackboard_read(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.blackboard import blackboard_read

    emit(blackboard_read(project_of(args).layout, args.wave, args.agent, args.full))
    return 0


def cmd_blackboard_waves(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.waves import find_wave, inspect_waves, wave_text, waves_json, waves_text

    waves = inspect_waves(project_of(args).layout)
    if args.wave is None:
        emit_json_or_text(args, waves_json(waves), waves_text(waves))
        return 0
    wave = find_wave(waves, args.wave)
    emit_json_or_text(args, waves_json([wave]), wave_text(wave))
    return 0


def cmd_blackboard_diff(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.waves import diff_artifacts, diff_text, inspect_waves

    waves = inspect_waves(project_of(args).layout)
    new, old = (args.first, None) if args.second is None else (args.second, args.first)
    emit(diff_text(diff_artifacts(waves, new, old)))
    return 0


def cmd_contract_list(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.contracts import describe_contracts

    emit(describe_contracts(project_of(args).layout))
    return 0


def cmd_contract_validate(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.contracts import contract_validate

    data = _json_argument(args.data, None, "artifact") if args.data is not None else None
    valid, text = contract_validate(
        project_of(args).layout, args.schema, data, args.path, has_data=args.data is not None
    )
    emit(text)
    return 0 if valid else 1


def add_commands(commands: CommandGroup) -> None:
    """The `blackboard` and `contract` groups, added to the parser by cli.build_parser."""
    board = commands.group("blackboard", "artifacts agents hand each other: waves, diff, read, write")
    p = board.command("waves", cmd_blackboard_waves, "the waves in the order they happened, with their counts")
    p.add_argument("wave", nargs="?", help="one wave: its artifacts, each with its contract check")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = board.command("diff", cmd_blackboard_diff, "the diff of two artifacts' JSON (keys sorted)")
    p.add_argument("first", metavar="WAVE/AGENT", help="alone: diffed with the same agent's artifact a wave earlier")
    p.add_argument("second", metavar="WAVE/AGENT", nargs="?", help="the newer side, FIRST being the older")
    p = board.command("read", cmd_blackboard_read, "summaries of a wave's artifacts")
    p.add_argument("wave")
    p.add_argument("--agent", help="only this producer")
    p.add_argument("--full", action="store_true", help="each artifact verbatim")
    p = board.command(
        "write", cmd_blackboard_write, "validate and write an artifact (JSON from --data, --file or stdin)"
    )
    p.add_argument("--wave", required=True)
    p.add_argument("--agent", required=True)
    p.add_argument("--schema", required=True, help="contract id, e.g. finding.v1")
    p.add_argument("--data", help="the artifact as JSON")
    p.add_argument("--file", help="read the artifact from FILE (- for stdin)")

    contract = commands.group("contract", "JSON Schema contracts: list, validate")
    contract.command("list", cmd_contract_list, "every available contract id")
    p = contract.command("validate", cmd_contract_validate, "validate an artifact (--data JSON or --path FILE)")
    p.add_argument("schema", help="contract id, e.g. finding.v1")
    p.add_argument("--data", help="the artifact as JSON")
    p.add_argument("--path", help="a JSON file, relative to the project root")
