"""The read gate's judgement: does a tool call read fact files?

Fact files are read through memory_search and INDEX.md, never wholesale. The PreToolUse
hook asks `tool_reads_facts` about Read/Grep/Glob/LS/NotebookRead inputs,
`command_reads_facts` about Bash commands and `edits_facts` about edits. A path counts when it reaches the facts folder by any spelling the filesystem
accepts: relative to the call's working directory (and to `cd` earlier in the command),
through `..`, a glob, a symbolic link, or other letter case (compared by inode, and by
case-folded name for paths that do not exist). A search counts when it would descend
into the facts folder and return content. What a gate on shell commands cannot promise
is in docs/guide/untrusted-repositories.md.

It also names the files an agent may not change (`edits_protected`, `command_writes_protected`:
PROTECTED_FILES, `.git/`, the user's Claude settings): they decide who is trusted, which MCP
servers and hooks run, and what git runs. `shell_writes` is what a command plainly writes.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from foundry_tui.core.paths import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# Canonical spelling of a fact file, relative to the root, for matching patterns.
_RELATIVE = Layout(Path())
_FACT_PARTS = (*_RELATIVE.facts_dir.parts, "fact-0001.md")
_FOUNDRY_NAME = _RELATIVE.foundry.name
_GLOB_CHARS = frozenset("*?[")
MAX_GLOB_MATCHES = 2000
MAX_GLOB_DEPTH = 8  # segments below the root; a deeper pattern is judged by its text alone

# Programs that print the content of the files they are given.
_READERS = frozenset(
    (
        "cat", "tac", "nl", "less", "more", "most", "head", "tail", "bat", "batcat", "strings", "od", "xxd",
        "hexdump", "sed", "awk", "gawk", "mawk", "cut", "sort", "uniq", "paste", "pr", "fold", "fmt", "column",
        "diff", "cmp", "comm", "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "jq", "yq", "view", "vim", "vi",
        "nvim", "emacs", "nano", "code", "base64", "iconv", "tr", "tee", "cp", "mv", "rsync", "tar", "zip", "gzip",
        "python", "python3", "node", "ruby", "perl", "php",
    )
)  # fmt: skip
# Wrappers whose arguments are another command (and shell keywords before one).
_WRAPPERS = frozenset(
    ("sudo", "env", "nice", "nohup", "time", "timeout", "command", "builtin", "exec", "xargs", "stdbuf", "do", "then",
     "else", "!", "{")
)  # fmt: skip
_OPTIONS_WITH_VALUE = {"xargs": ("-I", "-n", "-P", "-L", "-d", "-s", "-E", "-a"), "sudo": ("-u", "-g")}
_ASSIGNMENT_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
_SEPARATORS = frozenset(";|&\n()")


class _Facts:
    """The facts folder of one root, with the inodes of it and its ancestors up to the root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        layout = Layout(root)
        self.folder = layout.facts_dir
        self.folder_id = _inode(self.folder)
        self.folder_real = self.folder.resolve()
        self.root_real = root.resolve()
        # .foundry and .foundry/memory: a recursive search there reaches the facts.
        self.memory_ids = {i for i in (_inode(layout.foundry), _inode(layout.memory_dir)) if i}
        self.root_id = _inode(root)


def _inode(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


def _segments_match(pattern: list[str], parts: list[str]) -> bool:
    """Path-aware glob match: `*` stays within one segment, `**` spans any number. Runs of
    `**` are one `**` (the same match, without trying every way to split the parts)."""
    pattern = [p for i, p in enumerate(pattern) if not (p == "**" and i and pattern[i - 1] == "**")]
    return _match(pattern, parts)


def _match(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_match(rest, parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], head) and _match(rest, parts[1:])


def _home_expanded(value: str) -> str:
    """`~` and `~user` expanded as a shell would, or `value` as is when it cannot be."""
    try:
        return os.path.expanduser(value)
    except ValueError:  # a NUL in a `~user` name: no such user (and no file is named so)
        return value


def _relative_parts(value: str, cwd: Path, root: Path) -> list[str] | None:
    """`value` (relative to cwd, `..` folded lexically) as case-folded parts relative to root."""
    path = Path(os.path.normpath(cwd / _home_expanded(value)))
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    return [p.casefold() for p in rel.parts]


def _where(path: Path, facts: _Facts) -> str | None:
    """`facts` (the facts folder or inside it), `memory` (.foundry or .foundry/memory),
    `root` (the root or above it) or None, by inode: links and letter case resolved.
    A few stats, whatever the depth: inside the facts folder means the ancestor at the
    facts folder's depth is that folder."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    depth = len(facts.folder_real.parts)
    deep_enough = facts.folder_id is not None and len(real.parts) >= depth
    if deep_enough and _inode(Path(*real.parts[:depth])) == facts.folder_id:
        return "facts"
    ident = _inode(real)
    if ident is not None and ident in facts.memory_ids:
        return "memory"
    if (ident is not None and ident == facts.root_id) or real in facts.root_real.parents:
        return "root"
    return None


def path_reaches_facts(value: str, cwd: Path, facts: _Facts, recursive: bool) -> bool:
    """Whether a path argument reads fact files: it names a fact file or the facts folder,
    or (for a recursive reader) a folder the facts are under inside .foundry."""
    if not value or value.startswith("-"):
        return False
    parts = _relative_parts(value, cwd, facts.root)
    canonical = list(_FACT_PARTS)
    if parts is not None:
        if parts[:3] == canonical[:3]:
            return True  # any spelling of .foundry/memory/facts/…, existing or not
        if any(c in value for c in _GLOB_CHARS) and _segments_match(parts, canonical):
            return True  # .foundry/memory/*/*.md, **/facts/*.md
        if recursive and parts in (canonical[:1], canonical[:2]):
            return True
    paths = [Path(p) for p in _expand(value, cwd, facts.root)]
    for path in paths:
        where = _where(path, facts)
        if where == "facts" or (recursive and where == "memory"):
            return True
    return False


def _expand(value: str, cwd: Path, root: Path) -> list[str]:
    """The paths a shell would give for `value` (glob expanded against the disk, inside the
    root only and without `**` descent, at most MAX_GLOB_MATCHES), or it as is."""
    path = os.path.normpath(os.path.join(cwd, _home_expanded(value)))
    if not any(c in value for c in _GLOB_CHARS) or not (path + os.sep).startswith(str(root) + os.sep):
        return [path]
    import glob

    if path.count(os.sep) - str(root).count(os.sep) > MAX_GLOB_DEPTH:
        return [path]
    found = []
    try:
        for i, match in enumerate(glob.iglob(path, recursive=False)):
            if i >= MAX_GLOB_MATCHES:
                break
            found.append(match)
    except (OSError, RecursionError, ValueError):  # ValueError: a NUL in the name
        return [path]
    return found or [path]


def _names_memory(value: str) -> bool:
    """A literal mention of the facts folder, in any case (case-insensitive disks)."""
    return "foundry/memory/facts" in value.replace("\\", "/").casefold()


# ---- the tools -----------------------------------------------------------------------------------


def _tool_paths(tool: str, tool_input: Mapping[str, object], cwd: Path) -> tuple[str, list[str]]:
    def text(key: str) -> str:
        value = tool_input.get(key)
        return value if isinstance(value, str) else ""

    if tool in ("Read", "NotebookRead"):
        return "file", [text("file_path") or text("notebook_path")]
    if tool == "LS":
        return "file", [text("path")]
    if tool == "Grep":
        return "grep", [text("path") or str(cwd)]
    return "glob", [text("path") or str(cwd)]


def tool_reads_facts(tool: str, tool_input: Mapping[str, object], cwd: Path, root: Path) -> str | None:
    """The offending argument when a file tool reads fact files, else None."""
    facts = _Facts(root)
    mode, paths = _tool_paths(tool, tool_input, cwd)
    for key in ("file_path", "path", "pattern", "glob", "notebook_path"):
        value = tool_input.get(key)
        if isinstance(value, str) and _names_memory(value):
            return value
    for value in paths:
        if not value:
            continue
        if mode == "file":
            if path_reaches_facts(value, cwd, facts, recursive=False):
                return value
            continue
        base = Path(os.path.normpath(cwd / value))
        where = _where(base, facts)
        if where in ("facts", "memory") or path_reaches_facts(value, cwd, facts, recursive=True):
            return value
        if mode == "glob":
            pattern = tool_input.get("pattern")
            if isinstance(pattern, str) and pattern:
                joined = os.path.join(value, pattern)
                parts = _relative_parts(joined, cwd, root)
                if parts is not None and _segments_match(parts, list(_FACT_PARTS)) and "facts" in "".join(parts):
                    return pattern  # a pattern aimed at fact files (**/facts/*.md); **/*.md is names only
        elif mode == "grep" and where == "root":
            # The Grep tool is ripgrep, which skips hidden folders such as .foundry from the
            # root down (anthropics/claude-code#16936), unless a glob names them: a glob
            # overrides ripgrep's other filters.
            glob_value = tool_input.get("glob")
            if isinstance(glob_value, str) and any(w in glob_value.casefold() for w in ("facts", _FOUNDRY_NAME)):
                return glob_value
    return None


def edits_facts(value: str, cwd: Path, root: Path) -> bool:
    """Whether an edit tool's file path is a fact file (any spelling, link or case)."""
    return _names_memory(value) or path_reaches_facts(value, cwd, _Facts(root), recursive=False)


# ---- shell commands ------------------------------------------------------------------------------


def _words(command: str) -> list[str] | None:
    """Shell words with `;`, `|`, `&&`, `||`, `&`, newlines and parentheses as separate words."""
    import shlex

    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # an unbalanced quote: judge the raw text only
        return None


def _commands(words: list[str]) -> list[list[list[str]]]:
    """Pipelines of simple commands: [[cmd, cmd], …] split on ; && || & and |."""
    pipelines: list[list[list[str]]] = [[[]]]
    for word in words:
        if word in ("|", "|&"):
            pipelines[-1].append([])
        elif word and set(word) <= _SEPARATORS:
            pipelines.append([[]])
        else:
            pipelines[-1][-1].append(word)
    return [[c for c in p if c] for p in pipelines if any(p)]


def _program(command: list[str]) -> tuple[str, list[str]]:
    """The program a simple command runs (past VAR=x, sudo, env, xargs, `do` …) and its arguments."""
    i = 0
    while i < len(command):
        word = command[i]
        name = os.path.basename(word)
        if _ASSIGNMENT_WORD.fullmatch(word):
            i += 1
            continue
        if name in _WRAPPERS:
            i += 1
            while i < len(command) and (command[i].startswith("-") or (name == "timeout" and command[i][:1].isdigit())):
                i += 2 if command[i] in _OPTIONS_WITH_VALUE.get(name, ()) else 1
            continue
        return name, command[i + 1 :]
    return "", []


def _searches_hidden(program: str, args: list[str]) -> bool:
    """ripgrep, ag and ack skip hidden folders (.foundry) unless told otherwise."""
    if program == "rg":
        return any(a in ("--hidden", "-.") or (a.startswith("-u") and a.count("u") >= 2) for a in args)
    if program == "ag":
        return any(a in ("--hidden", "-u", "--unrestricted") for a in args)
    return program not in ("ack",)


def _recursive(program: str, args: list[str]) -> bool:
    if program in ("rg", "ag", "ack", "tar", "zip", "rsync"):
        return True
    if program in ("grep", "egrep", "fgrep", "zgrep"):
        return any(
            a in ("-r", "-R", "--recursive", "--dereference-recursive")
            or (a.startswith("-") and not a.startswith("--") and ("r" in a[1:] or "R" in a[1:]))
            for a in args
        )
    if program == "cp":
        return any(a in ("-r", "-R", "-a", "--recursive", "--archive") for a in args)
    return False


def _excludes_facts(program: str, args: list[str]) -> bool:
    """grep --include=*.py / --exclude-dir=.foundry, rg -g '*.py' / -g '!.foundry': facts left out."""
    includes = []
    for i, arg in enumerate(args):
        value = arg.split("=", 1)[1] if "=" in arg else (args[i + 1] if i + 1 < len(args) else "")
        if arg.startswith("--exclude-dir") and value.strip("/").casefold() in _FACT_PARTS[:-1]:
            return True
        if arg.startswith("--include"):
            includes.append(value)
        if (program == "rg" and arg in ("-g", "--glob", "--iglob")) or arg.startswith(("--glob=", "--iglob=")):
            if value.startswith("!") and any(w in value.casefold() for w in (_FOUNDRY_NAME, "facts")):
                return True
            if not value.startswith("!"):
                includes.append(value)
        if program == "rg" and arg in ("-t", "--type") and value not in ("md", "markdown"):
            return True
    return bool(includes) and not any(fnmatch.fnmatchcase(_FACT_PARTS[-1], p) for p in includes)


def _find_reads_facts(args: list[str], cwd: Path, facts: _Facts, piped_to_reader: bool) -> str | None:
    """`find X … -exec cat` or `find X … | xargs cat` over a folder the facts are under."""
    execs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-exec", "-execdir", "-ok", "-okdir")]
    if not (piped_to_reader or any(os.path.basename(e) in _READERS for e in execs)):
        return None
    roots = []
    for arg in args:
        if arg.startswith(("-", "(", "!")):
            break
        roots.append(arg)
    names = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-name", "-iname")]
    if names and not any(fnmatch.fnmatch(_FACT_PARTS[-1], n) for n in names):
        return None
    if any(w in " ".join(args).casefold() for w in ("-prune", "-not -path", "! -path")) and _FOUNDRY_NAME in " ".join(
        args
    ):
        return None
    for value in roots or ["."]:
        base = Path(os.path.normpath(cwd / value))
        if _where(base, facts) is not None or path_reaches_facts(value, cwd, facts, recursive=True):
            return value
    return None


def command_reads_facts(command: str, cwd: Path, root: Path) -> str | None:
    """The offending part when a shell command reads fact files, else None."""
    if _names_memory(command):
        return command
    words = _words(command)
    if words is None:
        return None
    facts = _Facts(root)
    where = cwd
    for pipeline in _commands(words):
        for position, simple in enumerate(pipeline):
            program, args = _program(simple)
            if program in ("cd", "pushd"):
                target = next((a for a in args if not a.startswith("-")), "~")
                where = Path(os.path.normpath(where / _home_expanded(target)))
                continue
            later = [_program(c)[0] for c in pipeline[position + 1 :]]
            piped_to_reader = any(p in _READERS or p in ("xargs", "while", "read") for p in later) or any(
                os.path.basename(w) in _READERS for c in pipeline[position + 1 :] for w in c
            )
            if program == "find":
                hit = _find_reads_facts(args, where, facts, piped_to_reader)
                if hit:
                    return hit
                continue
            if program == "git" and args[:1] == ["grep"]:
                program, args = "grep", ["-r", *args[1:]]
                if not [a for a in args[1:] if not a.startswith("-")][1:]:
                    args.append(".")
            if program not in _READERS:
                continue
            recursive = _recursive(program, args)
            if recursive and _excludes_facts(program, args):
                continue
            operands = [a for a in args if not a.startswith("-")]
            if program in ("grep", "egrep", "fgrep", "zgrep") and operands:
                operands = operands[1:]  # the first operand is the pattern
            if program in ("rg", "ag", "ack") and operands:
                operands = operands[1:]
            # A search from the root that does not skip hidden folders reads .foundry too
            # (copying or archiving the whole tree is not reading it into context).
            searcher = program in ("grep", "egrep", "fgrep", "zgrep", "rg", "ag")
            descends_hidden = searcher and recursive and _searches_hidden(program, args)
            for value in dict.fromkeys(operands):  # each distinct path once
                if path_reaches_facts(value, where, facts, recursive):
                    return value
                if descends_hidden and _where(Path(os.path.normpath(where / value)), facts) == "root":
                    return value  # grep -r (or rg --hidden) from the root descends into .foundry
            if descends_hidden and not operands and _where(where, facts) is not None:
                return "."
    return None


# ---- the files that decide who the agent is, which hooks run and who is trusted ------------------

# By path relative to the root (case-folded). `.git` at any depth is one more: its hooks and
# config run commands on git calls, and the trusted list is read from its commits.
PROTECTED_FILES: dict[tuple[str, ...], str] = {
    (_FOUNDRY_NAME, _RELATIVE.config_path.name): _RELATIVE.config_path.as_posix(),
    (".mcp.json",): ".mcp.json",
    (".claude", "settings.json"): ".claude/settings.json",
    (".claude", "settings.local.json"): ".claude/settings.local.json",
    (".gitattributes",): ".gitattributes",
    # The other agents' MCP servers and hooks (core/agent_config.py), for the same reasons.
    (".codex", "config.toml"): ".codex/config.toml",
    (".codex", "hooks.json"): ".codex/hooks.json",
    (".cursor", "mcp.json"): ".cursor/mcp.json",
    (".cursor", "hooks.json"): ".cursor/hooks.json",
    (".gemini", "settings.json"): ".gemini/settings.json",
}
GIT_DIR = ".git"
USER_SETTINGS = "~/.claude/settings.json"  # the user's Claude Code settings: hooks too (disableAllHooks)
# Programs that write the files named after their options (sed and perl only with -i).
_WRITERS = frozenset(("tee", "rm", "unlink", "shred", "truncate"))
_IN_PLACE = frozenset(("sed", "gsed", "perl"))
_COPIERS = frozenset(("cp", "mv", "install", "ln", "rsync"))
_REDIRECT = re.compile(r"(?:\d+|&)?(?:>>?\|?|<>)")  # >, >>, >|, 2>, &>, <>


def _protected_parts(parts: list[str]) -> str | None:
    """The protected name case-folded `parts` (relative to the root) spell, else None.
    Trailing dots and spaces are dropped, as Windows drops them."""
    parts = [p.rstrip(". ") or p for p in parts]
    if GIT_DIR in parts:
        return GIT_DIR
    return PROTECTED_FILES.get(tuple(parts))


class _Protected:
    """The protected files of one root: their inodes (hard links, other letter case) and the
    user's settings file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root_real = root.resolve()
        self.user_settings = Path(_home_expanded(USER_SETTINGS))
        named = {name: root / name for name in PROTECTED_FILES.values()}
        named[USER_SETTINGS] = self.user_settings
        self.inodes = {ident: name for name, path in named.items() if (ident := _inode(path)) is not None}

    def name_of(self, path: Path) -> str | None:
        """The protected file `path` (absolute, normalised) is, by any spelling, else None."""
        try:
            real = path.resolve()
        except (OSError, RuntimeError, ValueError):
            real = path
        for candidate, root in ((path, self.root), (real, self.root_real)):
            if GIT_DIR in (p.casefold() for p in candidate.parts):
                return GIT_DIR
            if str(candidate).casefold() == str(self.user_settings).casefold():
                return USER_SETTINGS
            try:
                found = _protected_parts([p.casefold() for p in candidate.relative_to(root).parts])
            except ValueError:
                continue
            if found:
                return found
        ident = _inode(path) if self.inodes else None
        return self.inodes.get(ident) if ident is not None else None


def edits_protected(value: str, cwd: Path, root: Path) -> str | None:
    """The protected file (`.foundry/config.json`, `.mcp.json`, `.claude/settings.json`, …,
    `.git`) an edit tool's path is, by any spelling, link or case; else None."""
    if not value:
        return None
    return _Protected(root).name_of(Path(os.path.normpath(cwd / _home_expanded(value))))


class ShellWrite:
    """One file a shell command writes (or removes, or moves away): its absolute path, and
    for a link the path it points at (resolved against the link's folder)."""

    __slots__ = ("link_to", "path")

    def __init__(self, path: Path, link_to: Path | None = None) -> None:
        self.path = path
        self.link_to = link_to


def _redirects(simple: list[str]) -> tuple[list[str], list[str]]:
    """(the words without their redirections, the files written by `>`, `>>`, `2>`, `&>` …)."""
    words: list[str] = []
    targets: list[str] = []
    i = 0
    while i < len(simple):
        word = simple[i]
        operator = _REDIRECT.search(word)  # `x>>f` is the word x and a redirection (quotes are gone by now)
        if operator is None:
            words.append(word)
        else:
            if operator.start():
                words.append(word[: operator.start()])
            rest = word[operator.end() :]
            if rest.startswith("&") or word.endswith("&"):  # 2>&1: a descriptor, not a file
                pass
            elif rest:
                targets.append(rest)
            elif i + 1 < len(simple):
                targets.append(simple[i + 1])
                i += 1
        i += 1
    return words, targets


def _joined(words: list[str]) -> list[str]:
    """`>|` and `&>` as one word each (the lexer splits them at `|` and `&`)."""
    out: list[str] = []
    for word in words:
        if out and word == "|" and _REDIRECT.fullmatch(out[-1]) and out[-1].endswith(">"):
            out[-1] += "|"
        elif out and out[-1] == "&" and word.startswith(">"):
            out[-1] = "&" + word
        else:
            out.append(word)
    return out


def _copy_targets(program: str, args: list[str], where: Path) -> list[ShellWrite]:
    """What cp, mv, install, ln and rsync write: the destination (or each source's name in a
    destination folder, or in `-t DIR`), for mv the sources too (moved away), and for ln
    what each link points at."""
    target_dir: str | None = None
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-t", "--target-directory") and i + 1 < len(args):
            target_dir = args[i + 1]
            i += 1
        elif arg.startswith("--target-directory="):
            target_dir = arg.split("=", 1)[1]
        elif not arg.startswith("-") or arg == "-":
            operands.append(arg)
        i += 1

    def at(value: str) -> Path:
        return Path(os.path.normpath(where / _home_expanded(value)))

    folder: Path | None
    if target_dir is not None:
        sources, folder = operands, at(target_dir)
    elif program == "ln" and len(operands) == 1:  # `ln -s TARGET`: a link of its name here
        sources, folder = operands, where
    elif len(operands) >= 2:
        sources, last = operands[:-1], at(operands[-1])
        folder = last if "-T" not in args and (operands[-1].endswith("/") or last.is_dir()) else None
    else:
        return []
    if folder is None:
        destinations = [at(operands[-1])] * len(sources)
    else:
        destinations = [folder / os.path.basename(os.path.normpath(s)) for s in sources]
    symbolic = program == "ln" and any(a in ("-s", "--symbolic") or _short_flag(a, "s") for a in args)
    writes = []
    for source, destination in zip(sources, destinations, strict=True):
        link_to = None
        if program == "ln":
            # A symbolic link's relative target is relative to the link's folder (`ln -s
            # _proposals x` in .foundry/blackboard points x at .foundry/blackboard/_proposals).
            expanded = _home_expanded(source)
            base = destination.parent if symbolic else where
            link_to = Path(os.path.normpath(base / expanded))
        writes.append(ShellWrite(destination, link_to))
    if program == "mv":
        writes.extend(ShellWrite(at(s)) for s in sources)
    return writes


def _in_place(args: list[str]) -> bool:
    """`sed -i`, `sed --in-place`, `perl -pi`: the files named are rewritten."""
    return any(a.startswith("--in-place") or _short_flag(a, "i") for a in args)


def _short_flag(arg: str, letter: str) -> bool:
    """Whether a cluster of short options (`-sf`, `-pi`) holds `letter`."""
    return arg.startswith("-") and not arg.startswith("--") and letter in arg[1:]


def shell_writes(command: str, cwd: Path) -> list[ShellWrite]:
    """The files a shell command plainly writes: redirections (`>`, `>>`, `2>`, `&>`), tee,
    `sed -i` / `perl -i`, cp, mv (both ends), install, ln, rsync, rm, unlink, shred,
    truncate, `dd of=`, and `git config` setting a value (.git/config), relative to the
    call's folder and to `cd` earlier in the command. A program that opens a file itself
    (`python -c`) is not seen: this reads command text."""
    words = _words(command)
    if words is None:
        return []
    where = cwd
    writes: list[ShellWrite] = []

    def at(value: str) -> Path:
        return Path(os.path.normpath(where / _home_expanded(value)))

    for pipeline in _commands(_joined(words)):
        for simple in pipeline:
            remaining, redirected = _redirects(simple)
            writes.extend(ShellWrite(at(t)) for t in redirected)
            program, args = _program(remaining)
            operands = [a for a in args if not a.startswith("-")]
            if program in ("cd", "pushd"):
                where = at(next(iter(operands), "~"))
            elif program in _WRITERS or (program in _IN_PLACE and _in_place(args)):
                writes.extend(ShellWrite(at(a)) for a in operands)
            elif program in _COPIERS:
                writes.extend(_copy_targets(program, args, where))
            elif program == "dd":
                writes.extend(ShellWrite(at(a[3:])) for a in args if a.startswith("of="))
            elif program == "git" and _sets_git_config(args):
                writes.append(ShellWrite(at(GIT_DIR) / "config"))
    return writes


_GIT_CONFIG_READS = frozenset(("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--show-origin"))
_GIT_CONFIG_WRITES = frozenset(
    ("--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit")
)


def _sets_git_config(args: list[str]) -> bool:
    """`git config KEY VALUE`, `--unset`, `--add`, `--edit` …: a write of the repository's config
    (core.hooksPath, a filter's command). `--global` and `--system` write elsewhere."""
    if "config" not in args:
        return False
    rest = args[args.index("config") + 1 :]
    if any(a in ("--global", "--system", "--file", "-f") or a.startswith("--file=") for a in rest):
        return False
    if any(a in _GIT_CONFIG_WRITES for a in rest):
        return True
    if any(a in _GIT_CONFIG_READS for a in rest):
        return False
    return len([a for a in rest if not a.startswith("-")]) >= 2


def command_writes_protected(command: str, cwd: Path, root: Path) -> str | None:
    """The protected file a shell command writes, removes or moves away, else None."""
    writes = shell_writes(command, cwd)
    if not writes:
        return None
    protected = _Protected(root)
    for write in writes:
        name = protected.name_of(write.path)
        if name:
            return name
    return None
