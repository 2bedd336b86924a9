"""Issue 32, item 1: `foundry init --agent claude,codex,cursor,gemini` writes Foundry's MCP
server and hooks in each agent's own files and format, merges with what is there, runs
twice without a change, and `--remove` gives back every file's bytes; doctor checks each
agent's entries. Real files, real subprocesses."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from foundry_tui.core.hook_events import AGENT_HOOKS
from foundry_tui.core.program import installed_program
from tests.helpers import run_cli

PROGRAM = installed_program()


def init(root: Path, *args: str) -> str:
    run = run_cli("init", *args, cwd=root)
    assert run.code == 0, run.out + run.err
    return run.out


def hook_command(word: str, agent: str) -> str:
    return PROGRAM.shell("hook", word, *(["--agent", agent] if agent != "claude" else []))


def test_each_agent_gets_its_own_files_in_its_own_format(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    out = init(tmp_path, "--agent", "codex,cursor", "--agent", "gemini")
    shown = PROGRAM.shell()
    assert f'created   .codex/config.toml (server "foundry": {shown} mcp)\n' in out
    assert f"created   .codex/hooks.json (+4 hooks: {shown} hook <event> --agent codex)\n" in out
    assert f'created   .cursor/mcp.json (server "foundry": {shown} mcp)\n' in out
    assert f"created   .cursor/hooks.json (+5 hooks: {shown} hook <event> --agent cursor)\n" in out
    assert f'created   .gemini/settings.json (server "foundry": {shown} mcp)\n' in out
    assert f"merged    .gemini/settings.json (+4 hooks: {shown} hook <event> --agent gemini)\n" in out
    assert not (tmp_path / ".mcp.json").exists() and not (tmp_path / ".claude").exists()
    words = PROGRAM.command("mcp")

    codex = tomllib.loads((tmp_path / ".codex/config.toml").read_text())
    assert codex == {"mcp_servers": {"foundry": {"command": words[0], "args": words[1:]}}}
    codex_hooks = json.loads((tmp_path / ".codex/hooks.json").read_text())["hooks"]
    assert codex_hooks == {
        "SessionStart": [{"hooks": [{"type": "command", "command": hook_command("session-start", "codex")}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook_command("user-prompt-submit", "codex")}]}],
        "PreToolUse": [
            {
                "matcher": "Bash|apply_patch",
                "hooks": [{"type": "command", "command": hook_command("pre-tool-use", "codex")}],
            }
        ],
        "PostToolUse": [
            {
                "matcher": "apply_patch",
                "hooks": [{"type": "command", "command": hook_command("post-tool-use", "codex")}],
            }
        ],
    }

    assert json.loads((tmp_path / ".cursor/mcp.json").read_text()) == {
        "mcpServers": {"foundry": {"command": words[0], "args": words[1:]}}
    }
    assert json.loads((tmp_path / ".cursor/hooks.json").read_text()) == {
        "version": 1,
        "hooks": {
            "sessionStart": [{"command": hook_command("session-start", "cursor")}],
            "beforeSubmitPrompt": [{"command": hook_command("user-prompt-submit", "cursor")}],
            "beforeReadFile": [{"command": hook_command("pre-tool-use", "cursor")}],
            "preToolUse": [{"command": hook_command("pre-tool-use", "cursor")}],
            "afterFileEdit": [{"command": hook_command("post-tool-use", "cursor")}],
        },
    }

    gemini = json.loads((tmp_path / ".gemini/settings.json").read_text())
    assert gemini["mcpServers"] == {"foundry": {"command": words[0], "args": words[1:]}}
    assert list(gemini["hooks"]) == ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool"]
    assert gemini["hooks"]["BeforeTool"][0]["hooks"] == [
        {"name": "foundry-pre-tool-use", "type": "command", "command": hook_command("pre-tool-use", "gemini")}
    ]
    assert gemini["hooks"]["AfterTool"][0]["matcher"] == "write_file|replace"

    doctor = run_cli("doctor", cwd=tmp_path)
    assert doctor.code == 0, doctor.out
    assert "ok    commands: 16 commands for agents and 2 git hooks can start foundry" in doctor.out
    assert init(tmp_path) == "Foundry is already set up here; nothing changed.\n"  # the agents found


def test_without_agent_init_wires_the_agents_it_finds_else_claude(tmp_path: Path) -> None:
    (tmp_path / "found").mkdir()
    (tmp_path / "found/.cursor").mkdir()
    out = init(tmp_path / "found")
    assert ".cursor/hooks.json" in out and ".mcp.json" not in out and ".claude" not in out
    (tmp_path / "none").mkdir()
    out = init(tmp_path / "none")
    assert ".mcp.json" in out and ".claude/settings.json" in out and ".cursor" not in out


# The user's own entries, spaced as people write them: init merges, remove gives the bytes back.
USER_FILES = {
    "claude": {
        ".mcp.json": '{\n    "mcpServers": {\n        "github": { "command": "gh-mcp" }\n    }\n}\n',
        ".claude/settings.json": (
            '{\n  "permissions": {"allow": ["Bash(npm test)"]},\n  "hooks": {\n    "PreToolUse": [\n'
            '      {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-guard"}]}\n    ]\n  }\n}\n'
        ),
    },
    "codex": {
        ".codex/config.toml": (
            'model = "gpt-5-codex"\n\n[mcp_servers.github]\ncommand = "gh-mcp"\nargs = []\n\n'
            "[features]\nhooks = true   # the user's own comment\n"
        ),
        ".codex/hooks.json": '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}',
    },
    "cursor": {
        ".cursor/mcp.json": '{"mcpServers":{"github":{"command":"gh-mcp"}}}\n',
        ".cursor/hooks.json": '{\n\t"version": 1,\n\t"hooks": {\n\t\t"afterFileEdit": [{"command": "./format.sh"}]\n\t}\n}\n',
    },
    "gemini": {
        ".gemini/settings.json": (
            '{\n  "theme": "GitHub",\n  "hooks": {\n    "BeforeTool": [\n      {\n'
            '        "matcher": "write_file",\n        "hooks": [{"type": "command", "command": "scan", "name": "s"}]\n'
            "      }\n    ]\n  }\n}\n"
        ),
    },
}


@pytest.mark.parametrize("agent", list(USER_FILES))
def test_init_then_remove_gives_back_every_byte(tmp_path: Path, agent: str) -> None:
    for name, text in USER_FILES[agent].items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    out = init(tmp_path, "--agent", agent)
    for name, text in USER_FILES[agent].items():
        changed = (tmp_path / name).read_text()
        assert changed != text and f"{name} (" in out
        assert changed[:24] == text[:24]  # merged in place, not rewritten
    again = init(tmp_path, "--agent", agent)
    assert again == "Foundry is already set up here; nothing changed.\n"
    removed = init(tmp_path, "--agent", agent, "--remove")
    assert "removed   " in removed
    for name, text in USER_FILES[agent].items():
        assert (tmp_path / name).read_text() == text, name
    assert init(tmp_path, "--agent", agent, "--remove") == f"Foundry is not wired into {agent} here; nothing changed.\n"


@pytest.mark.parametrize("agent", list(USER_FILES))
def test_remove_deletes_the_files_init_created(tmp_path: Path, agent: str) -> None:
    init(tmp_path, "--agent", agent)
    created = {name for name in USER_FILES[agent] if (tmp_path / name).exists()}
    assert created == set(USER_FILES[agent])
    out = init(tmp_path, "--agent", agent, "--remove")
    assert all(f"deleted   {name} (it held only Foundry's" in out for name in created)
    assert not any((tmp_path / name).exists() for name in created)
    assert (tmp_path / ".foundry/memory/INDEX.md").exists()  # the memory is not an agent's


def test_a_bare_foundry_in_codexs_toml_is_updated_and_the_rest_kept(tmp_path: Path) -> None:
    (tmp_path / ".codex").mkdir()
    text = '# mine\n[mcp_servers.foundry]\ncommand = "foundry"\nargs = ["mcp"]\nenv = { LEVEL = "1" }\n'
    (tmp_path / ".codex/config.toml").write_text(text)
    out = init(tmp_path, "--agent", "codex")
    assert f'updated   .codex/config.toml (server "foundry": {PROGRAM.shell()} mcp)\n' in out
    words = PROGRAM.command("mcp")
    written = (tmp_path / ".codex/config.toml").read_text()
    assert tomllib.loads(written)["mcp_servers"]["foundry"] == {
        "command": words[0],
        "args": words[1:],
        "env": {"LEVEL": "1"},
    }
    assert written.startswith("# mine\n[mcp_servers.foundry]\n") and written.endswith('env = { LEVEL = "1" }\n')


def test_a_file_that_does_not_parse_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex/config.toml").write_text("model = \n")
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini/settings.json").write_text('{"theme": }')
    run = run_cli("init", "--agent", "codex,gemini", cwd=tmp_path)
    assert run.code == 1
    assert "problem   .codex/config.toml is not valid TOML (" in run.out
    assert "problem   .gemini/settings.json is not valid JSON (line 1, column 11" in run.out
    assert (tmp_path / ".codex/config.toml").read_text() == "model = \n"
    assert (tmp_path / ".gemini/settings.json").read_text() == '{"theme": }'
    assert (tmp_path / ".codex/hooks.json").exists()  # the other file is Codex's too, and fine


def test_an_unknown_agent_is_one_line(tmp_path: Path) -> None:
    run = run_cli("init", "--agent", "claude,vscode", cwd=tmp_path)
    assert run.code != 0 and "unknown agent 'vscode': use claude, codex, cursor, gemini" in run.err
    assert not (tmp_path / ".foundry").exists()


def test_doctor_names_each_missing_or_unreadable_agent_entry(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    init(tmp_path, "--agent", "cursor,codex")
    hooks = tmp_path / ".cursor/hooks.json"
    data = json.loads(hooks.read_text())
    del data["hooks"]["beforeReadFile"]
    hooks.write_text(json.dumps(data))
    (tmp_path / ".codex/config.toml").write_text("[mcp_servers\n")
    run = run_cli("doctor", cwd=tmp_path)
    assert run.code == 1
    assert "FAIL  commands: 2 agent entries missing or unreadable\n" in run.out
    assert (
        "Cursor: .cursor/hooks.json: no hook beforeReadFile (`hook pre-tool-use --agent cursor`): "
        "run `foundry init --agent cursor`" in run.out
    )
    assert "Codex CLI: .codex/config.toml cannot be read (" in run.out
    assert len(AGENT_HOOKS["cursor"]) == 5
