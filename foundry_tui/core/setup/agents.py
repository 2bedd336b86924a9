"""`foundry init --agent NAME [--remove]`: Foundry's MCP server and hooks in each agent's
own files and format (core/agent_config.py says which), merged into what is there.

- A file that does not exist is created; one that exists is edited in place (core/setup/json_text.py
  for JSON, a block of its own for Codex's TOML), so everything Foundry does not own keeps
  its bytes, and `--remove` takes out exactly what init put in: init then remove gives the
  file back byte for byte (a file init created is deleted again).
- Foundry's entry written earlier with a bare `foundry`, or with a program that is gone, is
  updated in place; one whose program is there is kept (no churn between clones).
- A file that cannot be parsed is reported and left untouched.

Known limits, said here because they are the only places where remove is not init's exact
inverse: an empty container that was there before init (`"hooks": {}`) goes with Foundry's
last entry in it; `"version": 1` added to a Cursor hooks file that lacked it stays; a TOML
file that did not end with a newline gets one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from foundry_tui.core.agent_config import AGENTS, AgentFiles, hook_entries, hook_tail, is_agent_hook
from foundry_tui.core.atomic import atomic_write
from foundry_tui.core.hook_events import AGENT_HOOKS, DEFAULT_AGENT
from foundry_tui.core.paths import Layout
from foundry_tui.core.program import MCP_SERVER, Program, is_foundry_command, is_stale, mcp_words, split_command
from foundry_tui.core.setup.json_text import (
    add_member,
    append_element,
    pointer,
    remove_upward,
    remove_value,
    replace_value,
)

if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject, JSONValue

Report = Callable[[str, str], None]  # (verb, what) → one line of init's report
EMPTY_OBJECT = "{\n}\n"  # a new file's text before the first edit: json_text indents it by two
CURSOR_HOOKS_VERSION = 1  # https://cursor.com/docs/agent/hooks: "version": 1


def mcp_entry(program: Program, agent: str = DEFAULT_AGENT) -> JSONObject:
    """Foundry's server entry: Claude Code's .mcp.json names the transport
    (https://code.claude.com/docs/en/mcp); Cursor's and Gemini's take command and args
    (https://cursor.com/docs/context/mcp, https://geminicli.com/docs/tools/mcp-server)."""
    words = program.command("mcp")
    entry: JSONObject = {"command": words[0], "args": [*words[1:]]}
    return {"type": "stdio", **entry} if agent == DEFAULT_AGENT else entry


def hook_entry(agent: str, word: str, matcher: str | None, command: str) -> JSONObject:
    """One hook as the agent's file holds it."""
    if AGENTS[agent].hooks_format == "flat":  # Cursor: {"command", "matcher"?} in the event's list
        return {"command": command, **({"matcher": matcher} if matcher else {})}
    hook: JSONObject = {"type": "command", "command": command}
    if agent == "gemini":  # https://geminicli.com/docs/hooks/reference: `name` identifies it in logs
        hook = {"name": f"foundry-{word}", **hook}
    return {**({"matcher": matcher} if matcher else {}), "hooks": [hook]}


def claude_hooks(program: Program) -> dict[str, list[JSONObject]]:
    """The hooks object `foundry init --agent claude` writes into a settings file that has
    none (the plugin's manifest holds the same, tests/hooks/test_agents_plugin.py)."""
    return {
        event: [hook_entry(DEFAULT_AGENT, word, matcher, program.shell(*hook_tail(word, DEFAULT_AGENT)))]
        for word, event, matcher in AGENT_HOOKS[DEFAULT_AGENT]
    }


def read_json(path: Path, layout: Layout, problems: list[str]) -> tuple[bool, str | None, JSONObject | None]:
    """(usable, text, data): text and data are None when the file does not exist; a blank file is {}."""
    try:
        text = layout.read_text(path)
    except FileNotFoundError:
        return True, None, None
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{layout.relative(path)} cannot be read ({exc}); left untouched")
        return False, None, None
    try:
        data: JSONValue = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        problems.append(
            f"{layout.relative(path)} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "left untouched: fix it, then run `foundry init` again"
        )
        return False, None, None
    if not isinstance(data, dict):
        problems.append(f"{layout.relative(path)} is not a JSON object; left untouched")
        return False, None, None
    return True, text, data


def _editable(text: str | None) -> str:
    return text if text is not None and text.strip() else EMPTY_OBJECT


def _write(layout: Layout, path: Path, text: str) -> None:
    atomic_write(path, text, inside=layout)


# ---- MCP, JSON files ----------------------------------------------------------------------


def _wire_mcp_json(layout: Layout, agent: AgentFiles, program: Program, add: Report, problems: list[str]) -> None:
    path = layout.root / agent.mcp_file
    usable, text, data = read_json(path, layout, problems)
    if not usable:
        return
    servers = (data or {}).get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        problems.append(f"{agent.mcp_file}: mcpServers is not an object; left untouched")
        return
    entry = mcp_entry(program, agent.name)
    current = (servers or {}).get(MCP_SERVER)
    new = _editable(text)
    if isinstance(current, dict):
        words = mcp_words(current)
        if words is None or not is_foundry_command(words, "mcp") or not is_stale(words):
            return  # someone's own server entry, or Foundry's that starts: kept
        verb = "updated"
        at = pointer("mcpServers", MCP_SERVER)
        new = replace_value(new, at + "/command", entry["command"])
        new = (
            replace_value(new, at + "/args", entry["args"])
            if "args" in current
            else add_member(new, at, "args", entry["args"])
        )
    elif current is not None:
        return  # not an object: not Foundry's to rewrite
    else:
        verb = "merged" if text is not None else "created"
        new = (
            add_member(new, pointer("mcpServers"), MCP_SERVER, entry)
            if servers is not None
            else add_member(new, "", "mcpServers", {MCP_SERVER: entry})
        )
    _write(layout, path, new)
    add(verb, f'{agent.mcp_file} (server "{MCP_SERVER}": {program.shell("mcp")})')


def _unwire_mcp_json(text: str, data: JSONObject) -> str:
    servers = data.get("mcpServers")
    current = servers.get(MCP_SERVER) if isinstance(servers, dict) else None
    words = mcp_words(current)
    if words is not None and is_foundry_command(words, "mcp"):
        return remove_upward(text, pointer("mcpServers", MCP_SERVER))
    return text


# ---- hooks, JSON files --------------------------------------------------------------------


def _our_hooks(agent: AgentFiles, data: JSONObject, word: str, event: str) -> list[tuple[str, JSONObject]]:
    """(pointer, entry) of each of Foundry's hooks for `word` under `event`."""
    hooks = data.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    found: list[tuple[str, JSONObject]] = []
    for g, group in enumerate(groups if isinstance(groups, list) else []):
        if agent.hooks_format == "flat":
            if isinstance(group, dict) and is_agent_hook(group.get("command"), word, agent.name):
                found.append((pointer("hooks", event, g), group))
            continue
        entries = group.get("hooks") if isinstance(group, dict) else None
        for h, hook in enumerate(entries if isinstance(entries, list) else []):
            if isinstance(hook, dict) and is_agent_hook(hook.get("command"), word, agent.name):
                found.append((pointer("hooks", event, g, "hooks", h), hook))
    return found


def _wire_hooks(layout: Layout, agent: AgentFiles, program: Program, add: Report, problems: list[str]) -> None:
    path = layout.root / agent.hooks_file
    usable, text, data = read_json(path, layout, problems)
    if not usable:
        return
    data = data if data is not None else {}
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        problems.append(f"{agent.hooks_file}: hooks is not an object; left untouched")
        return
    for _word, event, _matcher in AGENT_HOOKS[agent.name]:
        if not isinstance(hooks.get(event, []), list):
            problems.append(f"{agent.hooks_file}: hooks.{event} is not a list; left untouched")
            return
    new = _editable(text)
    if agent.hooks_format == "flat" and "version" not in data:
        new = add_member(new, "", "version", CURSOR_HOOKS_VERSION)
    added = updated = 0
    for word, event, matcher in AGENT_HOOKS[agent.name]:
        current = json.loads(new)
        command = program.shell(*hook_tail(word, agent.name))
        ours = _our_hooks(agent, current, word, event)
        if any(not is_stale(split_command(str(hook["command"])) or []) for _at, hook in ours):  # a str: is_agent_hook
            continue  # Foundry's hook is there and starts
        if ours:  # each stale one (a bare `foundry`, a program that is gone) now runs this program
            for at, _hook in ours:
                new = replace_value(new, at + "/command", command)
            updated += 1
            continue
        entry = hook_entry(agent.name, word, matcher, command)
        if "hooks" not in current:
            new = add_member(new, "", "hooks", {event: [entry]})
        elif event not in current["hooks"]:
            new = add_member(new, pointer("hooks"), event, [entry])
        else:
            new = append_element(new, pointer("hooks", event), entry)
        added += 1
    if added or updated:
        verb = "updated" if text is not None and not added else "merged" if text is not None else "created"
        _write(layout, path, new)
        changes = [f"+{n} hook{'s' if n > 1 else ''}" for n in [added] if n]
        changes += [f"{n} hook{'s' if n > 1 else ''} updated" for n in [updated] if n]
        shown = program.shell("hook") + " <event>" + ("" if agent.name == DEFAULT_AGENT else f" --agent {agent.name}")
        add(verb, f"{agent.hooks_file} ({', '.join(changes)}: {shown})")


def _unwire_hooks(agent: AgentFiles, text: str) -> tuple[str, int]:
    """`text` without Foundry's hooks (a group left with none goes too); and how many were taken out."""
    removed = 0
    while True:
        data = json.loads(text)
        target = next(
            (
                (at, word, event)
                for word, event, _matcher in AGENT_HOOKS[agent.name]
                for at, _hook in _our_hooks(agent, data, word, event)
            ),
            None,
        )
        if target is None:
            return text, removed
        at, word, event = target
        removed += 1
        if agent.hooks_format == "grouped":
            group_at = at.rsplit("/", 2)[0]
            group = hook_entries(agent, {"hooks": {event: [_get(data, group_at)]}}, event)
            if all(is_agent_hook(hook.get("command"), word, agent.name) for hook in group):
                text = remove_upward(text, group_at)  # the group held only Foundry's hook
                continue
            text = remove_value(text, at)
            continue
        text = remove_upward(text, at)


def _get(data: JSONValue, at: str) -> JSONValue:
    for token in at.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(data, list):
            data = data[int(token)]
        elif isinstance(data, dict):
            data = data[token]
        else:
            raise TypeError(f"{at}: {token} is not inside an array or an object")
    return data


# ---- Codex's config.toml --------------------------------------------------------------------

TOML_HEADER = f"[mcp_servers.{MCP_SERVER}]"
TOML_MARK = (
    "# Foundry's MCP server: written by `foundry init --agent codex`, "
    "taken out by `foundry init --agent codex --remove`"
)
_TABLE_LINE = re.compile(r"^[ \t]*\[", re.MULTILINE)
_OUR_TABLE = re.compile(
    rf'^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*"?{MCP_SERVER}"?[ \t]*\][ \t]*(?:#.*)?$', re.MULTILINE
)
_OUR_SUBTABLE = re.compile(rf'^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*"?{MCP_SERVER}"?[ \t]*\.')


def _toml_value(value: object) -> str:
    """A TOML basic string or array of them: JSON's escapes are TOML's (https://toml.io/en/v1.0.0#string)."""
    return json.dumps(value)


def _toml_block(program: Program) -> str:
    words = program.command("mcp")
    return f"{TOML_MARK}\n{TOML_HEADER}\ncommand = {_toml_value(words[0])}\nargs = {_toml_value(words[1:])}\n"


def _toml_server(text: str) -> object:
    import tomllib

    servers = tomllib.loads(text).get("mcp_servers")
    return servers.get(MCP_SERVER) if isinstance(servers, dict) else None


def _our_block(text: str) -> tuple[int, int] | None:
    """The span of `[mcp_servers.foundry]` (with its marker line and sub-tables) in `text`."""
    header = _OUR_TABLE.search(text)
    if header is None:
        return None
    start = header.start()
    before = text[:start].rstrip("\n").rsplit("\n", 1)[-1]
    if before == TOML_MARK:
        start = text.rfind(TOML_MARK, 0, start)
    end = len(text)
    for table in _TABLE_LINE.finditer(text, header.end()):
        line = text[table.start() : text.find("\n", table.start()) % (len(text) + 1)]
        if not _OUR_SUBTABLE.match(line):
            end = table.start()
            break
    return start, end


def _wire_toml(layout: Layout, agent: AgentFiles, program: Program, add: Report, problems: list[str]) -> None:
    import tomllib

    path = layout.root / agent.mcp_file
    try:
        text: str | None = layout.read_text(path)
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{agent.mcp_file} cannot be read ({exc}); left untouched")
        return
    try:
        current = _toml_server(text or "")
    except tomllib.TOMLDecodeError as exc:
        problems.append(
            f"{agent.mcp_file} is not valid TOML ({exc}); left untouched: fix it, then run `foundry init` again"
        )
        return
    words = program.command("mcp")
    if isinstance(current, dict):
        found = mcp_words(current)
        if found is None or not is_foundry_command(found, "mcp") or not is_stale(found):
            return  # someone's own server, or Foundry's that starts: kept
        span = _our_block(text or "")
        verb = "updated"
        new = text or ""
        if span is not None:
            block = new[span[0] : span[1]]
            block = re.sub(r"(?m)^command[ \t]*=.*$", f"command = {_toml_value(words[0])}", block, count=1)
            block = re.sub(r"(?m)^args[ \t]*=.*$", f"args = {_toml_value(words[1:])}", block, count=1)
            new = new[: span[0]] + block + new[span[1] :]
    elif current is not None:
        return
    else:
        verb = "merged" if text is not None else "created"
        separator = "" if not text else "\n" if text.endswith("\n") else "\n\n"
        new = (text or "") + separator + _toml_block(program)
    try:
        written = _toml_server(new)
    except tomllib.TOMLDecodeError:
        written = None
    if mcp_words(written) != words:  # mcp_servers as an inline table, dotted keys, an args on two lines
        problems.append(
            f"{agent.mcp_file}: Foundry's table could not be written beside what is there; left untouched: "
            f"add it by hand:\n{_toml_block(program)}"
        )
        return
    _write(layout, path, new)
    add(verb, f'{agent.mcp_file} (server "{MCP_SERVER}": {program.shell("mcp")})')


def _unwire_toml(text: str) -> str:
    span = _our_block(text)
    if span is None:
        return text
    start, end = span
    if text[:start].endswith("\n\n"):  # the blank line init put before the block
        start -= 1
    return text[:start] + text[end:]


# ---- one agent --------------------------------------------------------------------------------


def wire_agent(layout: Layout, name: str, program: Program, add: Report, problems: list[str]) -> None:
    """Write Foundry's server and hooks into agent `name`'s files."""
    agent = AGENTS[name]
    if agent.mcp_format == "toml":
        _wire_toml(layout, agent, program, add, problems)
    else:
        _wire_mcp_json(layout, agent, program, add, problems)
    _wire_hooks(layout, agent, program, add, problems)


def unwire_agent(layout: Layout, name: str, add: Report, problems: list[str]) -> None:
    """Take Foundry's server and hooks out of agent `name`'s files; everything else keeps its bytes."""
    agent = AGENTS[name]
    for file in agent.files:
        path = layout.root / file
        if file.endswith(".toml"):
            try:
                text: str | None = layout.read_text(path)
            except FileNotFoundError:
                continue
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(f"{file} cannot be read ({exc}); left untouched")
                continue
            new = _unwire_toml(text or "")
            what = f'server "{MCP_SERVER}"'
            left_empty = not new.strip()
        else:
            usable, text, data = read_json(path, layout, problems)
            if not usable or text is None or data is None:
                continue
            new, parts = text, []
            if file == agent.mcp_file:
                new = _unwire_mcp_json(new, data)
                parts += [f'server "{MCP_SERVER}"'] if new != text else []
            if file == agent.hooks_file:
                new, removed = _unwire_hooks(agent, new)
                parts += [f"{removed} hook{'s' if removed != 1 else ''}"] if removed else []
            what = ", ".join(parts)
            left = json.loads(new) if new.strip() else {}
            left_empty = left in ({}, {"version": CURSOR_HOOKS_VERSION})
        if new == text:
            continue
        if left_empty:  # it held only Foundry's entries: init created it
            path.unlink()
            add("deleted", f"{file} (it held only Foundry's {what})")
            _remove_empty_folder(layout, path.parent)
        else:
            _write(layout, path, new)
            add("removed", f"{file} ({what})")


def _remove_empty_folder(layout: Layout, folder: Path) -> None:
    if folder != layout.root and not any(folder.iterdir()):
        folder.rmdir()
