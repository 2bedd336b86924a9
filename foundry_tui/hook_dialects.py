"""How Codex CLI, Cursor and Gemini CLI ask their hooks, and how each wants the answer.

hooks.py decides (the index at session start, the facts for a prompt, the read gate, the
after-edit notice); a dialect only reads the agent's event JSON into the core's terms
(Claude Code's tool names: Read, Grep, Glob, LS, Bash, Edit, Write) and writes the answer in
the agent's own fields. Whatever comes in, a dialect answers valid JSON for its agent or
nothing: a payload from another agent, or with fields it does not know, gets the quiet
answer. Event names come from core/hook_events.py. On the start-up path of every hook:
standard library only, nothing imported at the top.

Each dialect names the page it follows; where that page is silent, the comment says so and
the answer chosen is the quiet one.
"""

from __future__ import annotations

from foundry_tui.core.hook_events import AGENT_HOOKS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject

    # (tool in Claude Code's terms, its input, a folder the call runs in relative to cwd or "")
    ToolCall = tuple[str, JSONObject, str]


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _first(data: JSONObject, *keys: str) -> str:
    for key in keys:
        if isinstance(data.get(key), str) and data[key]:
            return str(data[key])
    return ""


def _input_of(event: JSONObject) -> JSONObject:
    """`tool_input` as an object (Cursor has sent it as a JSON string): {} for anything else."""
    value = event.get("tool_input")
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


class Dialect:
    """One agent's events and answers. The defaults are Claude Code's shape, which Codex shares."""

    agent = ""

    def native_event(self, word: str, event: JSONObject) -> str:
        """The agent's name for this event: the payload's own when it is one of the agent's
        names for `word`, else the first one init wires for it."""
        names = [name for w, name, _m in AGENT_HOOKS[self.agent] if w == word]
        said = event.get("hook_event_name")
        return said if isinstance(said, str) and said in names else names[0]

    def base_dir(self, event: JSONObject) -> str:
        """The folder the agent runs in (where the project root is looked for)."""
        cwd = event.get("cwd")
        return cwd if isinstance(cwd, str) else ""

    def prompt(self, event: JSONObject) -> str:
        return _text(event.get("prompt"))

    def quiet(self, word: str, event: JSONObject) -> JSONObject | None:
        """The answer that changes nothing: no output at all."""
        return None

    def context_answer(self, native: str, context: str) -> JSONObject:
        return {"hookSpecificOutput": {"hookEventName": native, "additionalContext": context}}

    def deny_answer(self, native: str, reason: str) -> JSONObject:
        return {
            "hookSpecificOutput": {
                "hookEventName": native,
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }

    def tool_calls(self, native: str, event: JSONObject) -> list[ToolCall]:
        return []

    def edited_paths(self, native: str, event: JSONObject) -> list[str]:
        return []


def patch_paths(patch: str) -> list[str]:
    """The files an apply_patch text adds, updates, deletes or moves to (`*** Update File: a.py`)."""
    marks = ("*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:")
    return [
        line.split(":", 1)[1].strip()
        for line in patch.splitlines()
        if line.startswith(marks) and line.split(":", 1)[1].strip()
    ]


class Codex(Dialect):
    """Codex CLI, https://developers.openai.com/codex/hooks, and the schemas Codex publishes
    for each event (openai/codex, codex-rs/hooks/schema/generated/*.command.{input,output}.schema.json):
    SessionStart and UserPromptSubmit answer `hookSpecificOutput.additionalContext`;
    PreToolUse denies with `hookSpecificOutput.permissionDecision: "deny"` and a reason, as
    Claude Code does; exit 0 with no output changes nothing. Tools: `Bash` (`tool_input.command`),
    `apply_patch` (the patch text; Codex reads files through Bash) and MCP tools (not ours to gate)."""

    agent = "codex"

    def tool_calls(self, native: str, event: JSONObject) -> list[ToolCall]:
        tool, tool_input = event.get("tool_name"), _input_of(event)
        command = tool_input.get("command")
        if isinstance(command, list) and all(isinstance(word, str) for word in command):
            command = " ".join(
                word for word in command if isinstance(word, str)
            )  # an argv, as older Codex builds sent it
        if tool == "Bash" and isinstance(command, str):
            return [("Bash", {"command": command}, "")]
        if tool == "apply_patch":
            patch = command if isinstance(command, str) else _first(tool_input, "patch", "input")
            return [("Edit", {"file_path": path}, "") for path in patch_paths(patch)]
        return []

    def edited_paths(self, native: str, event: JSONObject) -> list[str]:
        return [
            path
            for tool, tool_input, _where in self.tool_calls(native, event)
            if tool == "Edit" and isinstance(path := tool_input.get("file_path"), str)
        ]


class Cursor(Dialect):
    """Cursor, https://cursor.com/docs/agent/hooks. That page is not stored where we could
    read it whole; its fields here are as the adapters quoting it give them
    (https://cupcake.eqtylab.io/reference/harnesses/cursor,
    https://pivanov.github.io/agent-hooks-bridge/adapters/cursor.html): every event carries
    `workspace_roots`; sessionStart answers `additional_context`; beforeSubmitPrompt can only
    let the prompt through or stop it (`continue`), it cannot add context, so the facts for a
    prompt are not given in Cursor (the agent searches memory itself); beforeReadFile
    (`file_path`) and preToolUse (`tool_name`, `tool_input`) deny with `permission: "deny"`,
    `user_message` for the person and, on preToolUse, `agent_message` for the model;
    afterFileEdit (`file_path`, `edits`) is told nothing. Where a field is not known the
    answer is `{}` (beforeSubmitPrompt: `continue: true`), which changes nothing."""

    agent = "cursor"
    # Cursor's tool names → the core's (both the documented names and the older internal ones).
    TOOLS = {
        "Shell": "Bash",
        "run_terminal_cmd": "Bash",
        "Read": "Read",
        "read_file": "Read",
        "Write": "Write",
        "Edit": "Edit",
        "StrReplace": "Edit",
        "MultiEdit": "Edit",
        "Delete": "Write",
        "edit_file": "Edit",
        "search_replace": "Edit",
        "delete_file": "Write",
        "Grep": "Grep",
        "grep_search": "Grep",
        "Glob": "Glob",
        "glob_file_search": "Glob",
        "LS": "LS",
        "list_dir": "LS",
    }
    READ_FILE = "beforeReadFile"
    SUBMIT_PROMPT = "beforeSubmitPrompt"
    FILE_EDITED = "afterFileEdit"

    def base_dir(self, event: JSONObject) -> str:
        roots = event.get("workspace_roots")
        if isinstance(roots, list) and roots and isinstance(roots[0], str):
            return roots[0]
        return super().base_dir(event)

    def quiet(self, word: str, event: JSONObject) -> JSONObject | None:
        return {"continue": True} if self.native_event(word, event) == self.SUBMIT_PROMPT else {}

    def context_answer(self, native: str, context: str) -> JSONObject:
        if native == self.SUBMIT_PROMPT:
            return {"continue": True}
        if native == self.FILE_EDITED:  # its answer carries nothing (issue 30: no notice in Cursor)
            return {}
        return {"additional_context": context}

    def deny_answer(self, native: str, reason: str) -> JSONObject:
        if native == self.READ_FILE:
            return {"permission": "deny", "user_message": reason}
        return {"permission": "deny", "user_message": reason, "agent_message": reason}

    def tool_calls(self, native: str, event: JSONObject) -> list[ToolCall]:
        if native == self.READ_FILE:
            path = _text(event.get("file_path"))
            return [("Read", {"file_path": path}, "")] if path else []
        tool = self.TOOLS.get(_text(event.get("tool_name")))
        tool_input = _input_of(event)
        where = _text(tool_input.get("cwd")) or _text(tool_input.get("working_directory"))
        if tool == "Bash":
            command = _text(tool_input.get("command"))
            return [("Bash", {"command": command}, where)] if command else []
        path = _first(tool_input, "file_path", "path", "target_file", "target_directory")
        if tool in ("Read", "Write", "Edit"):
            return [(tool, {"file_path": path}, "")] if path else []
        if tool == "LS":
            return [("LS", {"path": path}, "")] if path else []
        if tool in ("Grep", "Glob"):
            pattern = _first(tool_input, "pattern", "query", "glob_pattern")
            found: JSONObject = {"pattern": pattern, **({"path": path} if path else {})}
            return [(tool, found, "")] if pattern or path else []
        return []

    def edited_paths(self, native: str, event: JSONObject) -> list[str]:
        path = _text(event.get("file_path"))
        return [path] if path else []


class Gemini(Dialect):
    """Gemini CLI, https://geminicli.com/docs/hooks/reference (and /docs/hooks/writing-hooks):
    stdout must be JSON and nothing else; SessionStart and BeforeAgent answer
    `hookSpecificOutput.additionalContext` (with `hookEventName`); BeforeTool denies with
    `decision: "deny"` and a `reason` the model reads; AfterTool can append context (nothing
    yet). `{}` changes nothing. The project is `GEMINI_PROJECT_DIR`, else `cwd`. Tool names
    and arguments: https://geminicli.com/docs/tools."""

    agent = "gemini"

    def base_dir(self, event: JSONObject) -> str:
        import os

        return os.environ.get("GEMINI_PROJECT_DIR") or super().base_dir(event)

    def quiet(self, word: str, event: JSONObject) -> JSONObject | None:
        return {}

    def deny_answer(self, native: str, reason: str) -> JSONObject:
        return {"decision": "deny", "reason": reason}

    def tool_calls(self, native: str, event: JSONObject) -> list[ToolCall]:
        tool, tool_input = _text(event.get("tool_name")), _input_of(event)
        path = _first(tool_input, "file_path", "absolute_path", "path", "dir_path")
        folder = _first(tool_input, "dir_path", "directory")
        if tool == "run_shell_command":
            command = _text(tool_input.get("command"))
            return [("Bash", {"command": command}, folder)] if command else []
        if tool == "read_file":
            return [("Read", {"file_path": path}, "")] if path else []
        if tool in ("write_file", "replace"):
            return [("Write" if tool == "write_file" else "Edit", {"file_path": path}, "")] if path else []
        if tool == "list_directory":
            return [("LS", {"path": path}, "")] if path else []
        if tool in ("glob", "search_file_content", "grep_search"):
            found: JSONObject = {"pattern": _text(tool_input.get("pattern")), **({"path": path} if path else {})}
            if isinstance(tool_input.get("include"), str):
                found["glob"] = tool_input["include"]
            return [("Glob" if tool == "glob" else "Grep", found, "")]
        if tool == "read_many_files":
            listed = [tool_input.get(key) for key in ("paths", "include")]
            patterns = [
                value for values in listed if isinstance(values, list) for value in values if isinstance(value, str)
            ]
            return [("Glob", {"pattern": pattern}, "") for pattern in patterns]
        return []

    def edited_paths(self, native: str, event: JSONObject) -> list[str]:
        return [
            path
            for tool, tool_input, _where in self.tool_calls(native, event)
            if tool in ("Write", "Edit") and isinstance(path := tool_input.get("file_path"), str)
        ]


DIALECTS: dict[str, Dialect] = {dialect.agent: dialect for dialect in (Codex(), Cursor(), Gemini())}
