"""The hook events Foundry answers, for each agent it wires: the command word, the event's
name in that agent's settings and the tools each one matches. Imported by the launcher,
so it imports nothing.

`foundry hook WORD [--agent NAME]` runs one of Foundry's four hooks; each agent names the
moment differently (the dialects in foundry_tui/hook_dialects.py read and answer them).
"""

# command word → (Claude Code event name, settings.json matcher or None for every tool)
HOOK_EVENTS: dict[str, tuple[str, str | None]] = {
    "session-start": ("SessionStart", None),
    "user-prompt-submit": ("UserPromptSubmit", None),
    "pre-tool-use": ("PreToolUse", "Read|Grep|Glob|LS|Bash|Edit|MultiEdit|Write|NotebookEdit"),
    # After an edit: the facts that cite the edited file (issue 30, core/edit_notice.py).
    "post-tool-use": ("PostToolUse", "Edit|MultiEdit|Write|NotebookEdit"),
}

# Every word `foundry hook` takes.
HOOK_WORDS = ("session-start", "user-prompt-submit", "pre-tool-use", "post-tool-use")

AGENT_NAMES = ("claude", "codex", "cursor", "gemini")
DEFAULT_AGENT = "claude"

# agent → the hooks init writes: (command word, the agent's event name, its matcher or None).
# One word may serve two events (Cursor's beforeReadFile and preToolUse both ask the gate).
AGENT_HOOKS: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    "claude": tuple((word, event, matcher) for word, (event, matcher) in HOOK_EVENTS.items()),
    # https://developers.openai.com/codex/hooks: matchers filter PreToolUse/PostToolUse by
    # tool name ("Bash", "apply_patch" and MCP tool names); Codex reads files through Bash.
    "codex": (
        ("session-start", "SessionStart", None),
        ("user-prompt-submit", "UserPromptSubmit", None),
        ("pre-tool-use", "PreToolUse", "Bash|apply_patch"),
        ("post-tool-use", "PostToolUse", "apply_patch"),
    ),
    # https://cursor.com/docs/agent/hooks (not stored for us to read whole: see
    # hook_dialects.py). preToolUse gets no matcher: a tool name spelt otherwise than we
    # guess would skip the gate silently, so every tool asks it (unknown tools: no answer).
    "cursor": (
        ("session-start", "sessionStart", None),
        ("user-prompt-submit", "beforeSubmitPrompt", None),
        ("pre-tool-use", "beforeReadFile", None),
        ("pre-tool-use", "preToolUse", None),
        ("post-tool-use", "afterFileEdit", None),
    ),
    # https://geminicli.com/docs/hooks/reference: BeforeTool/AfterTool matchers are regular
    # expressions over the tool's name (https://geminicli.com/docs/tools).
    "gemini": (
        ("session-start", "SessionStart", None),
        ("user-prompt-submit", "BeforeAgent", None),
        (
            "pre-tool-use",
            "BeforeTool",
            "read_file|read_many_files|write_file|replace|run_shell_command|glob|search_file_content|grep_search"
            "|list_directory",
        ),
        ("post-tool-use", "AfterTool", "write_file|replace"),
    ),
}
