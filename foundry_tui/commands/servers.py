"""`foundry mcp`, `foundry tui` and `foundry hook …`: the commands that hand over to another
adapter (the stdio MCP server, the Textual application, an agent's hook). The launcher starts
`mcp` and `hook` without this module when it can; a plain `foundry tui` reaches `cmd_tui`
without the parser being built (`cli._plain_tui`): so this module imports no argparse and
nothing heavy at the top, only inside the handlers."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from foundry_tui.commands.common import CommandGroup, today_of

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator


def cmd_mcp(args: argparse.Namespace) -> int:
    from foundry_tui.core.paths import find_root
    from foundry_tui.mcp.server import run

    return run(find_root(args.root), args.today)


def cmd_hook(args: argparse.Namespace) -> int:
    from foundry_tui.hooks import run_hook

    return run_hook(args.event, sys.stdin, sys.stdout, args.root, args.agent)


def root_label(root: Path, *, demo: bool = False) -> str:
    """The root the header names: its absolute path (never `.`: the header says which folder
    this is wherever the program was started; it shortens the path from the left when the
    line has no room), after `demo · ` for the demo's temporary copy."""
    path = str(root.absolute())
    return f"demo · {path}" if demo else path


def cmd_tui(args: argparse.Namespace) -> int:
    from foundry_tui.tui import startup  # the start-up's order, step by step

    with startup.collector_paused():  # until the first screen is drawn: Textual's objects are not garbage
        return _tui(args)


def _tui(args: argparse.Namespace) -> int:
    from foundry_tui.core.paths import find_root

    root = find_root(args.root)  # a root that does not exist is an error before the app starts
    today = today_of(args)
    preload = None
    if args.at is None:  # the parse cache's index is read while Textual is imported
        from foundry_tui.tui.startup import start_preload

        preload = start_preload(root, today)
    from foundry_tui.tui.app import FoundryApp
    from foundry_tui.tui.ending import run_until_ended

    label = root_label(root, demo=args.demo)
    if args.at is None:
        notice = f"The demo is a temporary copy in {root}: it is removed when you quit." if args.demo else None
        return run_until_ended(
            FoundryApp(root, today, watch=not args.no_watch, root_label=label, preload=preload, notice=notice)
        )
    from foundry_tui.core.history.git_history import memory_at
    from foundry_tui.core.paths import Layout

    os.environ["FOUNDRY_NO_CACHE"] = "1"  # a throwaway root: no cache files
    # A bad revision is one line, before the app starts; the temporary folder goes however the app ends.
    # The facts' refs are verified (and `D` diffs them) as of that revision too.
    with signals_end_the_program(), memory_at(Layout(root), args.at) as (past, done):
        if done.skipped:
            sys.stderr.write(f"foundry: warning: {done.warning()}\n")
        label = f"{label} at {args.at} ({done.commit}, read-only)"
        return run_until_ended(FoundryApp(past, today, watch=False, root_label=label, read_only=True))


@contextlib.contextmanager
def signals_end_the_program() -> Iterator[None]:
    """Inside the block, SIGTERM and SIGHUP (its terminal closed) raise SystemExit (the exit
    status a shell reports for the signal) wherever the program is, so the `finally` and
    `with` blocks it is in run on the way out; by default either signal ends the process
    at once and leaves a temporary folder behind (`--at`'s snapshot, `--demo`'s copy: cli.py).
    While the TUI runs, its event loop holds the signals instead (tui/ending.py). The previous
    handlers come back after."""
    import signal

    def end(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    ending = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {number: signal.signal(number, end) for number in ending}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def add_commands(commands: CommandGroup) -> None:
    """`mcp`, `tui` and `hook`, added to the parser by cli.build_parser."""
    from foundry_tui.core.hook_events import AGENT_NAMES, DEFAULT_AGENT, HOOK_WORDS

    commands.command("mcp", cmd_mcp, "run the stdio MCP server")
    p = commands.command("tui", cmd_tui, "open the terminal application")
    p.add_argument("--no-watch", action="store_true", help="do not watch the files for changes")
    p.add_argument("--at", metavar="REV", help="open the memory as of a git revision, read-only")
    p = commands.command("hook", cmd_hook, "run an agent's hook (its event JSON on stdin, its answer on stdout)")
    p.add_argument("event", choices=list(HOOK_WORDS))
    p.add_argument(
        "--agent",
        choices=list(AGENT_NAMES),
        default=DEFAULT_AGENT,
        help="whose event and answer format (default: claude)",
    )
