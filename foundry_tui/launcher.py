"""The console-script entry points. `foundry mcp` and `foundry hook …` start on every
agent session and every prompt, so they skip argparse and the engine's imports;
everything else goes to the full command line in `cli.py`."""

from __future__ import annotations

import sys

from foundry_tui.core.hook_events import AGENT_NAMES, DEFAULT_AGENT, HOOK_WORDS

# typing costs more to import than this whole start-up path: names for the type checker only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NoReturn


def _fast_args(argv: Sequence[str]) -> tuple[list[str], dict[str, str]] | None:
    """Split `[--root X] [--today Y] mcp|hook EVENT [--root X] [--today Y] [--agent NAME]` into
    words and options; None for anything else (argparse then handles it, help and errors included)."""
    words: list[str] = []
    options: dict[str, str] = {}
    items = list(argv)
    while items:
        item = items.pop(0)
        if item in ("--root", "--today", "--agent"):
            if not items:
                return None
            options[item[2:]] = items.pop(0)
        elif item.startswith(("--root=", "--today=", "--agent=")):
            key, _, value = item[2:].partition("=")
            options[key] = value
        elif item.startswith("-"):
            return None
        else:
            words.append(item)
    if options.get("agent", DEFAULT_AGENT) not in AGENT_NAMES:
        return None
    if words == ["mcp"] and "agent" not in options:
        return words, options
    if len(words) == 2 and words[0] == "hook" and words[1] in HOOK_WORDS:
        return words, options
    return None


UNSUPPORTED_PLATFORM = (
    "foundry: error: Windows is not supported: the memory's locks and id claims need POSIX "
    "(flock, hard links); run it under WSL, Linux or macOS\n"
)


def main(argv: Sequence[str] | None = None) -> int:
    if sys.platform == "win32":  # say so at once, rather than fail half-way through a write
        sys.stderr.write(UNSUPPORTED_PLATFORM)
        return 1
    args = list(sys.argv[1:] if argv is None else argv)
    fast = _fast_args(args)
    if fast is None:
        from foundry_tui.cli import main as cli_main

        return cli_main(args)
    words, options = fast
    if words[0] == "hook":
        from foundry_tui.hooks import run_hook

        return run_hook(words[1], sys.stdin, sys.stdout, options.get("root"), options.get("agent", DEFAULT_AGENT))
    from foundry_tui.core.errors import FoundryError
    from foundry_tui.core.paths import find_root

    try:
        root = find_root(options.get("root"))
    except FoundryError as exc:
        sys.stderr.write(f"foundry: error: {exc}\n")
        return exc.exit_code
    from foundry_tui.mcp.server import run

    return run(root, options.get("today"))


def entry_point() -> NoReturn:
    sys.exit(main())


def tui_entry_point() -> NoReturn:
    """`foundry-tui [options]`: the same as `foundry tui [options]`."""
    sys.exit(main(["tui", *sys.argv[1:]]))
