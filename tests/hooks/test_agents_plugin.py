"""Issue 32, item 3: the Claude Code plugin at the repository's root
(`.claude-plugin/plugin.json`) holds the documented manifest fields only
(https://code.claude.com/docs/en/plugins/manifest-reference, as a schema in
tests/data/agents/claude/plugin.schema.json), and installing it gives what
`foundry init --agent claude` writes: the same events, matchers and subcommands, and
the same MCP entry. Its program is `foundry` on PATH: a plugin is the same files on
every machine, so it cannot name where foundry is installed (init can, and does)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import jsonschema

from foundry_tui import __version__
from foundry_tui.core.program import MCP_SERVER, Program, installed_program, program_length
from foundry_tui.core.setup.agents import claude_hooks, mcp_entry
from tests.helpers import REPO, run_cli

PLUGIN = REPO / ".claude-plugin"
BARE = Program(("foundry",))


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PLUGIN / "plugin.json").read_text(encoding="utf-8"))
    return data


def test_the_manifest_holds_the_documented_fields() -> None:
    schema = json.loads((REPO / "tests/data/agents/claude/plugin.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(manifest(), schema)
    assert manifest()["version"] == __version__
    market = json.loads((PLUGIN / "marketplace.json").read_text(encoding="utf-8"))
    assert [(p["name"], p["source"]) for p in market["plugins"]] == [(manifest()["name"], "./")]


def test_the_plugin_runs_foundry_from_path_with_inits_hooks_and_server() -> None:
    assert manifest()["hooks"] == claude_hooks(BARE)
    assert manifest()["mcpServers"] == {MCP_SERVER: mcp_entry(BARE)}


def _without_program(words: list[str]) -> list[str]:
    length = program_length(words)
    assert length is not None, words
    return words[length:]


def test_installing_the_plugin_gives_what_init_writes_for_claude(tmp_path: Path) -> None:
    run = run_cli("init", "--agent", "claude", cwd=tmp_path)
    assert run.code == 0, run.out
    written = json.loads((tmp_path / ".claude/settings.json").read_text())["hooks"]

    def shape(hooks: dict[str, Any]) -> dict[str, list[tuple[str | None, list[str]]]]:
        return {
            event: [
                (group.get("matcher"), _without_program(shlex.split(hook["command"])))
                for group in groups
                for hook in group["hooks"]
            ]
            for event, groups in hooks.items()
        }

    assert shape(manifest()["hooks"]) == shape(written)
    server = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"][MCP_SERVER]
    plugin_server = manifest()["mcpServers"][MCP_SERVER]
    assert _without_program([server["command"], *server["args"]]) == _without_program(
        [plugin_server["command"], *plugin_server["args"]]
    )
    assert {k: v for k, v in server.items() if k not in ("command", "args")} == {"type": "stdio"}
    assert installed_program().words != BARE.words  # init names the program; the plugin cannot
