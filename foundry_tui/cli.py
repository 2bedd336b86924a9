"""The `foundry` command line: a thin adapter over `foundry_tui.core`, one module per command
group under `foundry_tui/commands/` (memory, library, board, proposals, prefs, sessions, setup,
reports, servers). This module assembles them (`build_parser`), keeps the registers of every
command and parser (`COMMANDS`, `PARSERS`) and runs a command (`main`); a plain `foundry tui`
(`_plain_tui`) skips building the parser.

Every command takes `--root`, `--today` and `--demo` before or after the subcommand,
prints the same text as its MCP tool, and exits 0 on success, 1 when a check fails
and 2 on bad usage, with a one-line error on stderr and never a traceback.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

from foundry_tui.commands.common import caller_of
from foundry_tui.core.errors import FoundryError, InputError

# argparse (with gettext) is imported where a parser is built: a plain `foundry tui`
# (`_plain_tui`) reaches the app without it.
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from foundry_tui.commands.common import Handler


# Every command's handler by its words ("memory write"), filled as build_parser adds them: the
# register a test walks (every writing command through the door) and the CLI reference reads.
COMMANDS: dict[str, Handler] = {}
# Every parser by its program's words ("foundry memory", "foundry memory write"), groups too,
# in the order they were added: what the CLI reference walks.
PARSERS: dict[str, argparse.ArgumentParser] = {}


def command_handlers() -> dict[str, Handler]:
    """Every command of `foundry` (its words, e.g. "memory write") and its handler."""
    build_parser()
    return dict(COMMANDS)


def build_parser() -> argparse.ArgumentParser:
    from foundry_tui.commands import board, library, memory, prefs, proposals, reports, servers, sessions, setup
    from foundry_tui.commands.common import CommandGroup, global_options, parser_class

    parser = parser_class()(prog="foundry", description="Foundry project memory for AI coding agents.")
    global_options(parser, top=True)
    parser.add_argument("--version", action="version", version=f"foundry {_version()}")
    commands = CommandGroup(
        parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class()), COMMANDS, PARSERS
    )
    # In the order `foundry --help` lists them (and the CLI reference).
    memory.add_commands(commands)
    setup.add_commands(commands)
    library.add_commands(commands)
    board.add_commands(commands)
    proposals.add_commands(commands)
    prefs.add_commands(commands)
    sessions.add_commands(commands)
    reports.add_commands(commands)
    servers.add_commands(commands)
    return parser


def _version() -> str:
    from foundry_tui import __version__

    return __version__


def _run(args: argparse.Namespace) -> int:
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        sys.stderr.write("foundry: error: name a command (see `foundry --help`)\n")
        return 2
    if not args.demo:
        return _call(handler, args)
    from foundry_tui.demo import make_demo_copy, remove_demo_copy, use_demo_environment

    if args.root:
        raise InputError("--demo and --root cannot be combined: --demo runs on a temporary copy of the demo project")
    from foundry_tui.commands.servers import signals_end_the_program

    # The copy goes however the command ends: its own end, q, Ctrl+C, or SIGTERM and SIGHUP (the
    # terminal closed), which become a SystemExit here. The TUI says where the copy lives
    # before it takes the terminal, and that it is gone after.
    with signals_end_the_program():
        # The TUI's demo holds what an agent run leaves behind (demo_run.py), so each screen has
        # something to act on; the other commands print the bundled files' figures (the README's).
        root = make_demo_copy(run=getattr(args, "command", None) == "tui")
        args.root = str(root)
        use_demo_environment(root)  # a throwaway root: no cache files, and never the user's own preferences
        interactive = args.command == "tui"
        if interactive:
            sys.stderr.write(f"foundry: the demo is a temporary copy in {root} (removed when you quit)\n")
        try:
            return _call(handler, args)
        finally:
            remove_demo_copy(root)
            if interactive:
                sys.stderr.write(f"foundry: removed the demo copy {root}\n")


def _call(handler: Handler, args: argparse.Namespace) -> int:
    """Run a command; an OS error becomes the same one line its MCP tool would report."""
    try:
        return handler(args)
    except (BrokenPipeError, FoundryError):  # FoundryError: some are OSErrors too (a refused link)
        raise
    except OSError as exc:
        from foundry_tui.core.errors import os_error_text
        from foundry_tui.core.paths import find_root

        try:
            root = find_root(args.root)
        except FoundryError:
            root = None
        raise FoundryError(os_error_text(exc, root)) from None


def _plain_tui(argv: list[str]) -> argparse.Namespace | None:
    """`foundry tui` with nothing but --root, --today and --no-watch (before or after `tui`):
    the namespace argparse would make, without building the whole command line (about 40 ms
    of the first paint) or importing argparse. None for anything else, which argparse
    handles, errors included."""
    values: dict[str, Any] = {"root": None, "today": None, "no_watch": False}
    words: list[str] = []
    items = iter(argv)
    for item in items:
        name, equals, value = item.partition("=")
        if name in ("--root", "--today"):
            if not equals:
                value = next(items, "")
            if not value or value.startswith("-"):
                return None
            values[name[2:]] = value
        elif item == "--no-watch" and words:  # an option of `tui`'s own: after it only
            values["no_watch"] = True
        elif item.startswith("-"):
            return None
        else:
            words.append(item)
    if words != ["tui"]:
        return None
    from foundry_tui.commands.servers import cmd_tui

    # The handlers read a namespace's attributes only: argparse's own is not needed.
    return cast("argparse.Namespace", SimpleNamespace(**values, demo=False, command="tui", at=None, handler=cmd_tui))


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _plain_tui(argv) or build_parser().parse_args(argv)
        if getattr(args, "command", None) not in (None, "hook"):  # a hook never stops the agent
            caller_of(args)  # a malformed FOUNDRY_PRINCIPAL stops every command here, with one line
        return _run(args)
    except FoundryError as exc:
        from foundry_tui.core.memory.model.facts import escape_controls

        sys.stderr.write(f"foundry: error: {escape_controls(str(exc))}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # a bug, not the user's mistake: still no traceback unless asked
        if os.environ.get("FOUNDRY_DEBUG"):
            raise
        sys.stderr.write(f"foundry: internal error: {type(exc).__name__}: {exc} (set FOUNDRY_DEBUG=1 for details)\n")
        return 1
