"""What every `foundry` command module shares: the parser they add their commands to
(`parser_class`, `global_options`, `CommandGroup`), printing a reply (control characters
escaped), the project, the date, the caller and the actor an operation of the door takes.

No argparse import at the top: a plain `foundry tui` imports this module and reaches its
app without argparse (`cli._plain_tui`); argparse is imported where a parser is built."""

from __future__ import annotations

import functools
import json
import sys
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    Handler = Callable[[argparse.Namespace], int]


@functools.cache
def parser_class() -> type[argparse.ArgumentParser]:
    import argparse

    class _Parser(argparse.ArgumentParser):
        """argparse, but a usage error is one line on stderr and exit code 2, and the arguments
        added are kept in `arguments` (argparse lists them only privately), for the reference."""

        def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
            action = super().add_argument(*args, **kwargs)
            if "arguments" not in vars(self):  # ArgumentParser.__init__ adds -h before ours runs
                self.arguments: list[argparse.Action] = []
            self.arguments.append(action)
            return action

        def error(self, message: str) -> NoReturn:
            self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")

    return _Parser


def global_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """--root, --today and --demo, which every command takes before or after its name."""
    import argparse

    # Sub-parsers default to SUPPRESS so an option given before the subcommand is not reset.
    default: Any = None if top else argparse.SUPPRESS
    parser.add_argument(
        "--root",
        metavar="DIR",
        default=default,
        help="project root (default: FOUNDRY_ROOT, else the nearest folder with .foundry/ or .git/)",
    )
    parser.add_argument(
        "--today",
        metavar="YYYY-MM-DD",
        default=default,
        help="the date that decides expiry (default: FOUNDRY_TODAY, else today)",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        default=False if top else argparse.SUPPRESS,
        help="run on a fresh temporary copy of the bundled demo project",
    )


class CommandGroup:
    """One level of `foundry`'s commands (the top, or a group such as `foundry memory`), where
    a command module adds its commands and groups. Each parser added is recorded in `parsers`
    by its program's words ("foundry memory write"), each command's handler in `handlers` by
    its words ("memory write"): the registers `cli.build_parser` passes down (`cli.PARSERS`,
    `cli.COMMANDS`)."""

    def __init__(
        self, subparsers: Any, handlers: dict[str, Handler], parsers: dict[str, argparse.ArgumentParser]
    ) -> None:
        self.subparsers = subparsers  # what ArgumentParser.add_subparsers returned
        self.handlers = handlers
        self.parsers = parsers

    def command(self, name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        """Add the command `name`, run by `handler`; its parser, for its own arguments."""
        parser: argparse.ArgumentParser = self.subparsers.add_parser(name, help=help_text, description=help_text)
        global_options(parser, top=False)
        parser.set_defaults(handler=handler)
        self.handlers[parser.prog.removeprefix("foundry ")] = handler
        self.parsers[parser.prog] = parser
        return parser

    def group(self, name: str, help_text: str) -> CommandGroup:
        """Add the group `name` (`foundry NAME ACTION`); named without an action, it says so."""
        parser: argparse.ArgumentParser = self.subparsers.add_parser(name, help=help_text, description=help_text)
        global_options(parser, top=False)
        parser.set_defaults(handler=lambda _a: _missing(parser))
        self.parsers[parser.prog] = parser
        actions = parser.add_subparsers(dest=f"{name}_command", metavar="ACTION", parser_class=parser_class())
        return CommandGroup(actions, self.handlers, self.parsers)


def _missing(parser: argparse.ArgumentParser) -> int:
    sys.stderr.write(f"{parser.prog}: error: name an action (see `{parser.prog} --help`)\n")
    return 2


def emit(text: str) -> None:
    """Print a reply. Control characters other than line feeds and tabs are printed as
    escapes: a hand-written fact or runbook must not drive the terminal (ANSI/OSC)."""
    from foundry_tui.core.memory.model.facts import escape_controls

    text = escape_controls(text, keep_lines=True)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


class StderrProgress:
    """A long job's progress on stderr (`foundry memory vectors`): on a terminal one line that
    `show` rewrites in place (carriage return) and `end` finishes; elsewhere (a pipe, a file, a
    CI log) only the last figures, one line at `end`; nothing at all when `show` was never
    called with work to do."""

    def __init__(self, text: Callable[[int, int], str] | None = None) -> None:
        from foundry_tui.core.memory.project import vector_progress_text

        self._text = text or vector_progress_text
        self._last: tuple[int, int] | None = None
        self._drawn = 0  # cells of the line drawn last on a terminal (0: none)
        self._tty = sys.stderr.isatty()

    def show(self, done: int, total: int) -> None:
        if total <= 0:
            return
        self._last = (done, total)
        if self._tty:
            line = self._text(done, total)
            sys.stderr.write("\r" + line.ljust(self._drawn))
            sys.stderr.flush()
            self._drawn = len(line)

    def end(self) -> None:
        if self._last is None:
            return
        if self._tty:
            sys.stderr.write("\n")
        else:
            sys.stderr.write(self._text(*self._last) + "\n")
        sys.stderr.flush()
        self._last = None


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
