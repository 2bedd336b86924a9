"""Where each agent Foundry wires keeps its MCP servers and hooks, and how Foundry's own
entries there are recognised and read back (doctor's `commands` check, `foundry init`).

| agent | MCP server | hooks | documented at |
| --- | --- | --- | --- |
| claude | `.mcp.json` `mcpServers` | `.claude/settings.json` `hooks` (event → groups) | https://code.claude.com/docs/en/hooks |
| codex | `.codex/config.toml` `[mcp_servers.foundry]` | `.codex/hooks.json` (event → groups) | https://developers.openai.com/codex/mcp, https://developers.openai.com/codex/hooks |
| cursor | `.cursor/mcp.json` `mcpServers` | `.cursor/hooks.json` `version: 1`, event → flat list | https://cursor.com/docs/context/mcp, https://cursor.com/docs/agent/hooks |
| gemini | `.gemini/settings.json` `mcpServers` | the same file's `hooks` (event → groups) | https://geminicli.com/docs/tools/mcp-server, https://geminicli.com/docs/hooks/reference |

Reading needs json and tomllib only (the doctor imports this for its `commands` check).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from foundry_tui.core.hook_events import AGENT_HOOKS, AGENT_NAMES, DEFAULT_AGENT
from foundry_tui.core.paths import Layout
from foundry_tui.core.program import (
    MCP_FILE,
    MCP_SERVER,
    SETTINGS_FILE,
    ConfiguredCommand,
    is_foundry_command,
    mcp_words,
    split_command,
)


@dataclass(frozen=True)
class AgentFiles:
    """One agent's files, relative to the project root."""

    name: str
    label: str
    mcp_file: str
    mcp_format: Literal["json", "toml"]
    hooks_file: str
    hooks_format: Literal["grouped", "flat"]
    # Any of these in the repository means the agent is used here (init's default).
    markers: tuple[str, ...]

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((self.mcp_file, self.hooks_file)))


AGENTS: dict[str, AgentFiles] = {
    "claude": AgentFiles("claude", "Claude Code", MCP_FILE, "json", SETTINGS_FILE, "grouped", (".claude", MCP_FILE)),
    "codex": AgentFiles(
        "codex", "Codex CLI", ".codex/config.toml", "toml", ".codex/hooks.json", "grouped", (".codex",)
    ),
    "cursor": AgentFiles("cursor", "Cursor", ".cursor/mcp.json", "json", ".cursor/hooks.json", "flat", (".cursor",)),
    "gemini": AgentFiles(
        "gemini", "Gemini CLI", ".gemini/settings.json", "json", ".gemini/settings.json", "grouped", (".gemini",)
    ),
}
assert tuple(AGENTS) == AGENT_NAMES


def hook_tail(word: str, agent: str) -> tuple[str, ...]:
    """The words after the program in an agent's hook command: Claude Code's stay as they
    were before there were other agents (`hook WORD`), the others name their dialect."""
    return ("hook", word) if agent == DEFAULT_AGENT else ("hook", word, "--agent", agent)


def is_agent_hook(command: object, word: str, agent: str) -> bool:
    """Whether a hook command is Foundry's `hook WORD` for `agent` (by any program form)."""
    words = split_command(command) if isinstance(command, str) else None
    if words is None:
        return False
    tails = [hook_tail(word, agent)] + ([("hook", word, "--agent", agent)] if agent == DEFAULT_AGENT else [])
    return any(is_foundry_command(words, *tail) for tail in tails)


def parse_agents(text: str) -> list[str]:
    """`claude,codex` → ["claude", "codex"]; ValueError naming an unknown one."""
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in AGENTS]
    if unknown or not names:
        raise ValueError(f"unknown agent '{', '.join(unknown) or text}': use {', '.join(AGENT_NAMES)}")
    return list(dict.fromkeys(names))


def detected_agents(layout: Layout) -> list[str]:
    """The agents whose folders or settings exist in the repository; Claude Code when none do."""
    found = [name for name, agent in AGENTS.items() if any((layout.root / m).exists() for m in agent.markers)]
    return found or [DEFAULT_AGENT]


class Unreadable(Exception):
    """A file that exists and cannot be read as its format."""


def read_data(layout: Layout, name: str, file_format: str) -> dict[str, object] | None:
    """The file's top-level table (JSON or TOML values: TOML has dates too); None when it does not exist; Unreadable when it cannot be parsed."""
    try:
        text = layout.read_text(layout.root / name)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise Unreadable(str(exc)) from exc
    if not text.strip():
        return {}
    try:
        if file_format == "toml":
            import tomllib

            data: object = tomllib.loads(text)
        else:
            data = json.loads(text)
    except ValueError as exc:  # json.JSONDecodeError and tomllib.TOMLDecodeError both are
        raise Unreadable(str(exc)) from exc
    if not isinstance(data, dict):
        raise Unreadable("not an object")
    return data


def mcp_table(agent: AgentFiles, data: dict[str, object]) -> object:
    return data.get("mcp_servers" if agent.mcp_format == "toml" else "mcpServers")


def hook_entries(agent: AgentFiles, data: dict[str, object], event: str) -> list[dict[str, object]]:
    """The hook entries under `event` (each a dict with `command`, wherever the format nests them)."""
    hooks = data.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    if not isinstance(groups, list):
        return []
    if agent.hooks_format == "flat":
        return [entry for entry in groups if isinstance(entry, dict)]
    return [
        hook
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for hook in group["hooks"]
        if isinstance(hook, dict)
    ]


@dataclass
class AgentState:
    """What one agent's files hold of Foundry's: its commands, the entries missing, the files unreadable."""

    agent: AgentFiles
    commands: list[ConfiguredCommand]
    missing: list[str]
    unreadable: list[str]

    @property
    def configured(self) -> bool:
        return bool(self.commands)


def agent_state(layout: Layout, agent: AgentFiles) -> AgentState:
    state = AgentState(agent, [], [], [])
    try:
        mcp_data = read_data(layout, agent.mcp_file, agent.mcp_format)
    except Unreadable as exc:
        state.unreadable.append(f"{agent.mcp_file} cannot be read ({exc})")
        mcp_data = None
    servers = mcp_table(agent, mcp_data) if mcp_data is not None else None
    words = mcp_words(servers.get(MCP_SERVER)) if isinstance(servers, dict) else None
    if words is not None and is_foundry_command(words, "mcp"):
        state.commands.append(ConfiguredCommand(agent.mcp_file, f'server "{MCP_SERVER}"', tuple(words)))
    elif not state.unreadable:
        state.missing.append(f'{agent.mcp_file}: no server "{MCP_SERVER}"')
    try:
        hooks_data = read_data(layout, agent.hooks_file, "json")
    except Unreadable as exc:
        if agent.hooks_file != agent.mcp_file:
            state.unreadable.append(f"{agent.hooks_file} cannot be read ({exc})")
        hooks_data = None
    for word, event, _matcher in AGENT_HOOKS[agent.name]:
        if hooks_data is None and state.unreadable:
            break  # said once: the file cannot be read
        found = [
            command
            for entry in hook_entries(agent, hooks_data or {}, event)
            if isinstance(command := entry.get("command"), str) and is_agent_hook(command, word, agent.name)
        ]
        for command in found:
            state.commands.append(
                ConfiguredCommand(agent.hooks_file, f"hook {event}", tuple(split_command(command) or ()))
            )
        if not found:
            state.missing.append(f"{agent.hooks_file}: no hook {event} (`{' '.join(hook_tail(word, agent.name))}`)")
    return state


def agent_states(layout: Layout) -> list[AgentState]:
    return [agent_state(layout, agent) for agent in AGENTS.values()]


def all_configured_commands(layout: Layout) -> list[ConfiguredCommand]:
    return [command for state in agent_states(layout) for command in state.commands]


def agent_problems(layout: Layout) -> list[str]:
    """For each agent Foundry is wired into (one of its entries is there): the entries
    missing and the files that cannot be read, each with the command that puts it right."""
    problems = []
    for state in agent_states(layout):
        if not state.configured:
            continue
        fix = f"run `foundry init --agent {state.agent.name}`"
        problems += [f"{state.agent.label}: {line}: {fix}" for line in (*state.unreadable, *state.missing)]
    return problems
