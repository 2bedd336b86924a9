"""How the commands `foundry init` writes start Foundry (.mcp.json, .claude/settings.json,
git hooks): the installed program by its absolute path, never a bare `foundry` that
needs PATH, and never anything from the work tree.

Agents and git hooks start Foundry inside the project's work tree, which a branch can
fill with anything; a top-level `foundry_tui/` there must not be imported. The program
is, first found:

- the `foundry` console script of this installation (beside the interpreter, in its
  scripts folder, or the user's): Python puts the script's own folder, not the working
  directory, first on sys.path;
- else `<this interpreter> -I -m foundry_tui`: `-I` ignores PYTHONPATH, the user's site
  folder and the working directory. init starts it once to check that it imports.
"""

from __future__ import annotations

import os
import shlex
import shutil
import site
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SCRIPT_NAME = "foundry"
MODULE = "foundry_tui"
ISOLATED_MODULE = ("-I", "-m", MODULE)
# A console script names the module it starts near its top (`from foundry_tui.launcher import ...`).
SCRIPT_PEEK_BYTES = 4096
# Starting the interpreter once to check it imports Foundry in isolated mode.
START_CHECK_TIMEOUT_SECONDS = 30
# Where agents read the commands init writes, relative to the project root.
MCP_FILE = ".mcp.json"
SETTINGS_FILE = ".claude/settings.json"
MCP_SERVER = "foundry"


@dataclass(frozen=True)
class Program:
    """The words that start Foundry; `problem` says why they may not (init could not check them)."""

    words: tuple[str, ...]
    problem: str | None = None

    def command(self, *tail: str) -> list[str]:
        return [*self.words, *tail]

    def shell(self, *tail: str) -> str:
        """The command as one shell line (Claude Code and git hooks run it through sh)."""
        return shlex.join(self.command(*tail))


def _script_dirs(python: str) -> list[Path]:
    """Where this installation's console scripts go: beside the interpreter (a virtualenv,
    pipx), the scheme's scripts folder (/usr/local/bin beside /usr/bin/python3), the user's."""
    dirs = [Path(python).parent]
    if python == sys.executable:
        dirs.append(Path(sysconfig.get_path("scripts")))
        if site.ENABLE_USER_SITE:
            dirs.append(Path(sysconfig.get_path("scripts", f"{os.name}_user")))
    return list(dict.fromkeys(dirs))


def _is_foundry_script(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(SCRIPT_PEEK_BYTES)
    except OSError:
        return False
    return os.access(path, os.X_OK) and MODULE.encode() in head


def installed_program(python: str = sys.executable, script_dirs: Sequence[Path] | None = None) -> Program:
    """The program the written commands run: see the module's docstring for the order."""
    for folder in _script_dirs(python) if script_dirs is None else script_dirs:
        script = folder / SCRIPT_NAME
        if script.is_file() and _is_foundry_script(script):
            return Program((str(script.absolute()),))
    python = os.path.abspath(python)  # not resolved: a virtualenv's python is a link out of it
    words = (python, *ISOLATED_MODULE)
    try:
        check = subprocess.run(
            [python, "-I", "-c", f"import {MODULE}"],
            capture_output=True,
            text=True,
            timeout=START_CHECK_TIMEOUT_SECONDS,
        )
        started = check.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        started = False
    if started:
        return Program(words)
    return Program(
        words,
        f"{python} cannot import {MODULE} in isolated mode (-I) and no `{SCRIPT_NAME}` script was found "
        f"beside it, so the commands written may not start: install foundry-tui (pip install) "
        "and run `foundry init` again",
    )


def program_length(words: Sequence[str]) -> int | None:
    """How many of `words` name Foundry's program (a `foundry` script, bare or by path,
    or `PYTHON [-I] -m foundry_tui`); None when they name something else."""
    if words and Path(words[0]).name == SCRIPT_NAME:
        return 1
    for flags in (ISOLATED_MODULE, ("-m", MODULE)):
        if len(words) > len(flags) and tuple(words[1 : 1 + len(flags)]) == flags:
            return 1 + len(flags)
    return None


def is_foundry_command(words: Sequence[str], *tail: str) -> bool:
    """Whether `words` are Foundry's program followed by exactly `tail` (e.g. "hook", "session-start")."""
    length = program_length(words)
    return length is not None and tuple(words[length:]) == tail


def split_command(line: str) -> list[str] | None:
    """A shell command line's words; None when it does not split (an unclosed quote)."""
    try:
        return shlex.split(line)
    except ValueError:
        return None


def find_program(word: str) -> str | None:
    """Where the command word `word` leads: a path when it is an executable file (a name
    with no slash is looked up on PATH, as a shell does); None when it cannot be found."""
    if "/" not in word:
        return shutil.which(word)
    return word if os.path.isfile(word) and os.access(word, os.X_OK) else None


def is_stale(words: Sequence[str]) -> bool:
    """A Foundry command init replaces: its program is a bare name (it needs PATH) or is not there."""
    return not words or "/" not in words[0] or find_program(words[0]) is None


def mcp_words(entry: object) -> list[str] | None:
    """An .mcp.json server entry's command and args as words; None when they are not strings."""
    if not isinstance(entry, dict):
        return None
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return None
    return [command, *args]


def is_foundry_hook(command: object, word: str) -> bool:
    """Whether a settings.json hook command is Foundry's `hook WORD` (by any program form)."""
    words = split_command(command) if isinstance(command, str) else None
    return words is not None and is_foundry_command(words, "hook", word)


@dataclass(frozen=True)
class ConfiguredCommand:
    """A command of Foundry's an agent runs: the file it is in, which entry, its words."""

    file: str
    entry: str
    words: tuple[str, ...]
