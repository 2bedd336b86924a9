"""What every `foundry` command module shares: printing a reply (control characters
escaped), the project, the date, the caller and the actor an operation of the door takes."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def emit(text: str) -> None:
    """Print a reply. Control characters other than line feeds and tabs are printed as
    escapes: a hand-written fact or runbook must not drive the terminal (ANSI/OSC)."""
    from foundry_tui.core.memory.model.facts import escape_controls

    text = escape_controls(text, keep_lines=True)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def emit_json_or_text(args: argparse.Namespace, data: object, text: str) -> None:
    """With --json, `data` as indented JSON (non-ASCII kept as it is); otherwise `text`."""
    emit(json.dumps(data, indent=2, ensure_ascii=False) if args.json else text)


def project_of(args: argparse.Namespace) -> Any:
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.paths import find_root

    return Project(find_root(args.root))


def today_of(args: argparse.Namespace) -> Any:
    from foundry_tui.core.paths import resolve_today

    return resolve_today(args.today)


def actor_of(args: argparse.Namespace, project: Any = None) -> Any:
    """Who runs this command, on which project and day: what every write through the door takes."""
    from foundry_tui.core.ops.actor import Actor

    return Actor(project if project is not None else project_of(args), caller_of(args), today_of(args))


def caller_of(args: argparse.Namespace) -> Any:
    """The principal this process acts as, fixed when the command started (never an argument)."""
    caller = getattr(args, "caller", None)
    if caller is None:
        from foundry_tui.core.trust.principal import resolve_caller

        caller = args.caller = resolve_caller()
    return caller
