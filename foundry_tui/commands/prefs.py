"""`foundry prefs …`: your own standing notes for agents, kept outside the repository:
show, save, clear (save and clear through the door's `core.ops.preferences`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from foundry_tui.commands.common import CommandGroup, caller_of, emit
from foundry_tui.core.errors import InputError

if TYPE_CHECKING:
    import argparse


def cmd_prefs_show(args: argparse.Namespace) -> int:
    from foundry_tui.core.trust.preferences import get_preferences

    emit(get_preferences(caller_of(args)))
    return 0


def cmd_prefs_save(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.preferences import save

    try:
        content = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read --file {args.file}: {getattr(exc, 'strerror', None) or exc}") from None
    emit(save(caller_of(args), content))
    return 0


def cmd_prefs_clear(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.preferences import confirm_clear, request_clear

    emit(confirm_clear(caller_of(args)) if args.confirm else request_clear(caller_of(args)))
    return 0


def add_commands(commands: CommandGroup) -> None:
    """The `prefs` group, added to the parser by cli.build_parser."""
    prefs = commands.group("prefs", "your own standing notes for agents, outside the repository: show, save, clear")
    prefs.command("show", cmd_prefs_show, "print your preferences")
    p = prefs.command("save", cmd_prefs_save, "replace your preferences with a file's text (at most 20,000 characters)")
    p.add_argument("--file", required=True, metavar="FILE", help="the whole new text (- for stdin)")
    p = prefs.command(
        "clear", cmd_prefs_clear, "ask to delete your preferences; --confirm carries a pending request out"
    )
    p.add_argument("--confirm", action="store_true", help="delete them now (a clear request must be pending)")
