"""The Claude Code hook events Foundry answers: the command word, the event's name in
settings.json and the tools each one matches. Imported by the launcher, so it imports nothing."""

# command word → (Claude Code event name, settings.json matcher or None for every tool)
HOOK_EVENTS: dict[str, tuple[str, str | None]] = {
    "session-start": ("SessionStart", None),
    "user-prompt-submit": ("UserPromptSubmit", None),
    "pre-tool-use": ("PreToolUse", "Read|Grep|Glob|LS|Bash|Edit|MultiEdit|Write|NotebookEdit"),
}
