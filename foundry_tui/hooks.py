"""The hooks: `foundry hook session-start | user-prompt-submit | pre-tool-use | post-tool-use
[--agent claude|codex|cursor|gemini]`.

One core decides, whatever the agent: the index and the runbooks at session start
(`session_context`), the facts that bear on a prompt (`prompt_facts`), the read gate before
a read, an edit or a shell command (`gate_reason`), and after an edit `after_edit_notice`
(core/edit_notice.py; nothing yet). Each agent's event JSON comes in on stdin and its answer
goes out on stdout in its own format: Claude Code's here (`hookSpecificOutput`), the others'
in foundry_tui/hook_dialects.py. A hook never breaks the agent: on any internal error it
answers the agent's quiet answer (nothing, or `{}`) and exits 0.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from foundry_tui.core.hook_events import DEFAULT_AGENT, HOOK_EVENTS
from foundry_tui.core.paths import Layout

TYPE_CHECKING = False  # typing only for the type checker: a hook starts on every prompt
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import IO

    from foundry_tui.core.json_types import JSONObject, JSONValue

PROMPT_MIN_CHARS = 12  # only prompts longer than this get facts
PROMPT_MAX_FACTS = 5  # each above the ranker's threshold (search.prompt_hits)
READ_TOOLS = {"Read", "Grep", "Glob", "LS", "NotebookRead"}
EDIT_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}
# The layout under any root: its paths as an agent writes them (".foundry/memory/facts").
_RELATIVE = Layout(Path())
FACTS_MARK = _RELATIVE.facts_dir.as_posix()
DENY_READ = (
    f"Foundry memory: do not read {FACTS_MARK}/ directly: it loads every fact into context, the cost the "
    "index exists to avoid. Use the memory_search tool of the foundry MCP server (keywords), or read "
    f"{_RELATIVE.index_path.as_posix()} for the one-line index."
)
DENY_EDIT = (
    "Foundry memory: do not edit fact files by hand: that bypasses the fingerprint check, id allocation and the "
    "supersedes chain. Use the memory_write tool of the foundry MCP server."
)


def _root(event: JSONObject, explicit: str | None) -> Path:
    from foundry_tui.core.paths import find_root

    if explicit or os.environ.get("FOUNDRY_ROOT"):
        return find_root(explicit)
    base = os.environ.get("CLAUDE_PROJECT_DIR") or event.get("cwd")
    return find_root(None, Path(base) if isinstance(base, str) and Path(base).is_dir() else None)


def _output(event_name: str, **fields: JSONValue) -> JSONObject:
    return {"hookSpecificOutput": {"hookEventName": event_name, **fields}}


def git_summary(root: Path) -> str:
    """One line: branch and last commit, or why there is none."""
    import subprocess

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=5)
        return done.stdout.strip() if done.returncode == 0 else ""

    try:
        branch = git("rev-parse", "--abbrev-ref", "HEAD")
        if not branch:
            return "Git: not a git repository (or no commits yet)."
        last = git("log", "-1", "--format=%h %s (%cr)")
        dirty = len([line for line in git("status", "--porcelain").splitlines() if line])
    except (OSError, subprocess.SubprocessError):
        return "Git: unavailable."
    changes = f"; {dirty} uncommitted change{'s' if dirty != 1 else ''}" if dirty else ""
    return f"Git: on {branch}, last commit {last}{changes}."


def session_memory(event: JSONObject, root: Path) -> tuple[str, str]:
    """(the session's tiers, a memory request) for this hook (core/sessions/context.py);
    a junk session id or an unusable store is one line on stderr, and no session part."""
    if "session_id" not in event:
        return "", ""
    from foundry_tui.core.config import Config, load_config
    from foundry_tui.core.errors import ConfigError, FoundryError
    from foundry_tui.core.memory.search.ranker_names import RANKER_NAMES
    from foundry_tui.core.paths import Layout
    from foundry_tui.core.sessions.context import hook_session_context

    layout = Layout(root)
    try:
        config = load_config(layout.config_path, rankers=RANKER_NAMES)  # as the Project reads it
    except ConfigError:
        config = Config()
    try:
        return hook_session_context(layout, event, config.observation_trigger_tokens, config.reflection_trigger_tokens)
    except FoundryError as exc:
        print(f"foundry hook: session memory skipped: {exc}", file=sys.stderr)
        return "", ""
    except Exception as exc:  # a bug, or a Python without sqlite3: the facts still come
        print(f"foundry hook: session memory skipped: {type(exc).__name__}: {exc}", file=sys.stderr)
        return "", ""


def session_context(event: JSONObject, root: Path) -> str:
    """What an agent reads at session start: the session's tiers (with a session id), how to
    search, today's index, the person's preferences, the runbooks, git, a memory request."""
    from foundry_tui.core.artefacts.runbooks import list_runbooks, render_runbook_list
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.memory.reports.index_file import served_index
    from foundry_tui.core.paths import resolve_today

    project = Project(root)
    index = served_index(project, resolve_today()).rstrip("\n")  # today's: never INDEX.md as it was
    tiers, request = session_memory(event, root)
    parts = [
        tiers,
        f"Foundry project memory. Search it with the memory_search tool; never read {FACTS_MARK}/ directly.",
        index,
        *user_preferences_section(),
        "## Runbooks\n\n" + render_runbook_list(list_runbooks(project.layout)),
        git_summary(root),
        request,
    ]
    return "\n\n".join(part for part in parts if part)


def session_start(event: JSONObject, root: Path) -> JSONObject | None:
    return _output(HOOK_EVENTS["session-start"][0], additionalContext=session_context(event, root))


def user_preferences_section() -> list[str]:
    """The person's preferences, for SessionStart (after the index); none for a service or an
    app principal, a malformed FOUNDRY_PRINCIPAL, or a file that cannot be used."""
    from foundry_tui.core.errors import FoundryError
    from foundry_tui.core.trust.preferences import read_preferences
    from foundry_tui.core.trust.principal import resolve_caller

    try:
        principal = resolve_caller().principal
        text = read_preferences(principal) if principal.is_user else None
    except FoundryError:
        return []
    if not text or not text.strip():
        return []
    return [
        f"## Preferences of {principal} (standing notes; get_user_preferences / save_user_preferences)\n\n{text.strip()}"
    ]


def user_prompt_submit(event: JSONObject, root: Path) -> JSONObject | None:
    """The session's tiers, then the facts that may bear on the prompt, then a memory request."""
    tiers, request = session_memory(event, root)
    facts = prompt_facts(event, root)
    parts = [part for part in (tiers, facts, request) if part]
    if not parts:
        return None
    return _output(HOOK_EVENTS["user-prompt-submit"][0], additionalContext="\n\n".join(parts))


def prompt_facts(event: JSONObject, root: Path) -> str:
    """At most 5 facts that clear the hook's relevance bar (prompt_hits), for prompts longer than 12 characters; else ""."""
    prompt = event.get("prompt")
    if not isinstance(prompt, str) or len(prompt.strip()) <= PROMPT_MIN_CHARS:
        return ""
    from foundry_tui.core.paths import resolve_today, today_text

    if not Layout(root).facts_dir.is_dir():
        return ""
    # A running MCP server for this root answers from its warm memory (core/local_socket.py);
    # when none answers in time, or its answer cannot be used, the same search runs here. The
    # server reads the date as resolve_today does: a date it refuses is refused here too.
    from foundry_tui.core.local_socket import ask_prompt_facts

    served = ask_prompt_facts(root, prompt, today_text(), PROMPT_MAX_FACTS)
    if served is not None:
        return served
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.memory.search.reply import prompt_facts_text

    return prompt_facts_text(Project(root), prompt, resolve_today(), PROMPT_MAX_FACTS)


# One line per protected file (core/read_gate.py, PROTECTED_FILES): why an agent may not change it.
DENY_PROTECTED = {
    ".foundry/config.json": (
        "Foundry: agents do not change .foundry/config.json: its trust section decides whose memory writes land "
        "directly. Ask a person to change it and commit it (the trusted list is read from the commit at HEAD)."
    ),
    ".mcp.json": (
        "Foundry: agents do not change .mcp.json: it decides which MCP servers, and so which memory tools and "
        "which principal, this agent runs with. Ask a person to change it."
    ),
    ".claude/settings.json": (
        "Foundry: agents do not change .claude/settings.json: it decides which hooks run, this gate among them. "
        "Ask a person to change it."
    ),
    ".claude/settings.local.json": (
        "Foundry: agents do not change .claude/settings.local.json: it decides which hooks run, this gate among "
        "them. Ask a person to change it."
    ),
    "~/.claude/settings.json": (
        "Foundry: agents do not change ~/.claude/settings.json: it decides which hooks run (it can turn them all "
        "off). Ask a person to change it."
    ),
    ".git": (
        "Foundry: agents do not change files under .git by hand (nor run `git config` to set a value): its hooks "
        "and config run commands on git calls, and the trusted list is read from its commits. Use git commands."
    ),
    ".gitattributes": (
        "Foundry: agents do not change .gitattributes: it attaches filters and drivers that run commands on git "
        "calls. Ask a person to change it."
    ),
    **{
        name: f"Foundry: agents do not change {name}: it decides which MCP servers and which hooks {agent} runs "
        "with, this gate among them. Ask a person to change it."
        for name, agent in (
            (".codex/config.toml", "Codex"),
            (".codex/hooks.json", "Codex"),
            (".cursor/mcp.json", "Cursor"),
            (".cursor/hooks.json", "Cursor"),
            (".gemini/settings.json", "Gemini CLI"),
        )
    },
}
DENY_RESERVED = (
    "Foundry memory: the proposals wave (.foundry/blackboard/_proposals/) and the user-preferences folder are "
    "written only by Foundry's trust policy. Use the memory_write tool (it parks a proposal when you may not "
    "write) or save_user_preferences."
)


def _aims_at_reserved(tool: str, value: str, cwd: Path, root: Path) -> bool:
    """An edit (or a shell command) that would write a proposal or a preferences file by hand."""
    from foundry_tui.core.reserved import PREFERENCES_FOLDER, PROPOSALS_WAVE, is_reserved_path

    if tool == "Bash":  # a command line: look for the folders' names
        text = value.replace("\\", "/").lower()
        return f"blackboard/{PROPOSALS_WAVE}" in text or f"{PREFERENCES_FOLDER}/" in text
    try:
        path = Path(value).expanduser()
        return is_reserved_path(Layout(root), path if path.is_absolute() else cwd / path)
    except (OSError, ValueError):
        return False


def pre_tool_use(event: JSONObject, root: Path) -> JSONObject | None:
    tool = event.get("tool_name")
    tool_input = event.get("tool_input")
    if not isinstance(tool, str) or not isinstance(tool_input, dict):
        return None
    given_cwd = event.get("cwd")
    cwd = Path(given_cwd) if isinstance(given_cwd, str) else root
    reason = gate_reason(tool, tool_input, cwd, root)
    if reason is None:
        return None
    return _output(HOOK_EVENTS["pre-tool-use"][0], permissionDecision="deny", permissionDecisionReason=reason)


def gate_reason(tool: str, tool_input: Mapping[str, object], cwd: Path, root: Path) -> str | None:
    """Why a call (in Claude Code's tool names: Read, Grep, Glob, LS, Bash, Edit, Write, …) is
    denied, or None: it reads or edits fact files, changes a file that decides trust and
    hooks, or writes a reserved folder by hand. A denial is logged (`gate_blocked`)."""
    if tool not in READ_TOOLS | EDIT_TOOLS | {"Bash"}:
        return None
    from foundry_tui.core import read_gate

    if tool == "Bash":
        command = tool_input.get("command")
        hit = read_gate.command_reads_facts(command, cwd, root) if isinstance(command, str) else None
    elif tool in EDIT_TOOLS:
        path = tool_input.get("file_path") or tool_input.get("notebook_path")
        hit = path if isinstance(path, str) and read_gate.edits_facts(path, cwd, root) else None
    else:
        hit = read_gate.tool_reads_facts(tool, tool_input, cwd, root)
    reason = DENY_EDIT if tool in EDIT_TOOLS else DENY_READ
    if hit is None:  # the files that decide who the agent is, which hooks run and who is trusted
        protected = _protected_write(tool, tool_input, cwd, root)
        if protected is not None:
            hit, reason = protected
    if hit is None:  # reading a proposal is fine; writing one (or preferences) by hand is not
        hit = _reserved_write(tool, tool_input, cwd, root)
        reason = DENY_RESERVED
    if hit is None:
        return None
    from foundry_tui.core.events import record_event

    record_event(Layout(root), "gate_blocked", tool=tool, target=hit[:200])
    return reason


def post_tool_use(event: JSONObject, root: Path) -> JSONObject | None:
    """After an edit (Edit, MultiEdit, Write, NotebookEdit): the facts that cite the file, as
    context for the model, or nothing."""
    tool_input = event.get("tool_input")
    path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    notice = edit_notice(root, [path] if isinstance(path, str) else [])
    return None if notice is None else _output(HOOK_EVENTS["post-tool-use"][0], additionalContext=notice)


def edit_notice(root: Path, paths: Sequence[str]) -> str | None:
    """The one line after an edit naming the active facts that cite the edited files (issue 30);
    the facts' refs are read only when an edited path is inside the root."""
    from foundry_tui.core.edit_notice import after_edit_notice, edited_in

    edited = edited_in(Layout(root), paths)
    if not edited:
        return None
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.memory.reports.grounding import active_refs
    from foundry_tui.core.paths import resolve_today

    return after_edit_notice(edited, active_refs(Project(root), resolve_today(), near=edited))


def _protected_write(tool: str, tool_input: Mapping[str, object], cwd: Path, root: Path) -> tuple[str, str] | None:
    """(the call's target, the reason) when an edit or a shell command changes a protected file."""
    from foundry_tui.core import read_gate

    if tool == "Bash":
        command = tool_input.get("command")
        name = read_gate.command_writes_protected(command, cwd, root) if isinstance(command, str) else None
        return (command, DENY_PROTECTED[name]) if isinstance(command, str) and name else None
    if tool not in EDIT_TOOLS:
        return None
    path = tool_input.get("file_path") or tool_input.get("notebook_path")
    name = read_gate.edits_protected(path, cwd, root) if isinstance(path, str) else None
    return (path, DENY_PROTECTED[name]) if isinstance(path, str) and name else None


def _reserved_write(tool: str, tool_input: Mapping[str, object], cwd: Path, root: Path) -> str | None:
    """The target of an edit, or a writing shell command, aimed at a reserved folder (a link
    made to one included: a wave folder linked to the proposals wave is that wave)."""
    if tool == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str):
            return None
        if _aims_at_reserved(tool, command, cwd, root) and _writes(command):
            return command
        return command if _links_or_writes_reserved(command, cwd, root) else None
    if tool not in EDIT_TOOLS:
        return None
    path = tool_input.get("file_path") or tool_input.get("notebook_path")
    return path if isinstance(path, str) and path and _aims_at_reserved(tool, path, cwd, root) else None


def _links_or_writes_reserved(command: str, cwd: Path, root: Path) -> bool:
    """Whether a file the command writes, or a link it makes points at, is in a reserved folder."""
    from foundry_tui.core import read_gate
    from foundry_tui.core.reserved import is_reserved_path

    layout = Layout(root)
    for write in read_gate.shell_writes(command, cwd):
        for path in (write.path, write.link_to):
            if path is not None and is_reserved_path(layout, path):
                return True
    return False


def _writes(command: str) -> bool:
    """Whether a shell command looks like it writes (redirects, moves, copies, edits in place)."""
    import re

    return bool(re.search(r">|\b(tee|cp|mv|rm|sed\s+-i|touch|install|ln|truncate|dd)\b", command))


HANDLERS = {
    "session-start": session_start,
    "user-prompt-submit": user_prompt_submit,
    "pre-tool-use": pre_tool_use,
    "post-tool-use": post_tool_use,
}


def run_hook(name: str, stdin: IO[str], stdout: IO[str], root: str | None = None, agent: str = DEFAULT_AGENT) -> int:
    """Run one hook for `agent`. Always exits 0; answers the agent's quiet answer when it has
    nothing to say or fails (nothing for Claude Code and Codex, `{}` for Cursor and Gemini)."""
    quiet: JSONObject | None = None
    try:
        if agent != DEFAULT_AGENT:
            from foundry_tui.hook_dialects import DIALECTS

            quiet = DIALECTS[agent].quiet(name, {})
        raw = stdin.read()
        event = json.loads(raw) if raw.strip() else {}
        if agent != DEFAULT_AGENT and isinstance(event, dict):
            quiet = DIALECTS[agent].quiet(name, event)
        if not isinstance(event, dict):
            answer = None
        elif agent == DEFAULT_AGENT:
            answer = HANDLERS[name](event, _root(event, root))
        else:
            answer = dialect_answer(agent, name, event, root)
    except Exception as exc:  # never break the agent
        if os.environ.get("FOUNDRY_DEBUG"):
            print(f"foundry hook {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
        answer = None
    answer = answer if answer is not None else quiet
    if answer is not None:
        stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 0


def dialect_answer(agent: str, word: str, event: JSONObject, root: str | None) -> JSONObject | None:
    """The core's decision for another agent's event, in that agent's answer (hook_dialects.py)."""
    from foundry_tui.hook_dialects import DIALECTS

    dialect = DIALECTS[agent]
    native = dialect.native_event(word, event)
    base = dialect.base_dir(event)
    project = _root({"cwd": base} if base else {}, root)
    if word == "session-start":
        # The session tiers read Claude Code's transcript: another agent's session id is not asked about.
        context = session_context({k: v for k, v in event.items() if k != "session_id"}, project)
        return dialect.context_answer(native, context)
    if word == "user-prompt-submit":
        facts = prompt_facts({"prompt": dialect.prompt(event)}, project)
        return dialect.context_answer(native, facts) if facts else None
    if word == "pre-tool-use":
        cwd = Path(base) if base else project
        for tool, tool_input, where in dialect.tool_calls(native, event):
            reason = gate_reason(tool, tool_input, cwd / where if where else cwd, project)
            if reason is not None:
                return dialect.deny_answer(native, reason)
        return None
    notice = edit_notice(project, dialect.edited_paths(native, event))
    return dialect.context_answer(native, notice) if notice else None
