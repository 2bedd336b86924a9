"""Claude Code's side of session memory, for tests: transcript lines in the format Claude
Code writes (`~/.claude/projects/<project>/<session>.jsonl`) and hook payloads."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from .helpers import run_cli

SESSION = "5c1b8f7e-3a2d-4e61-9d0b-7f4e2a9c1d33"
OTHER_SESSION = "9e0d6c4a-1b2f-4c3d-8e5f-6a7b8c9d0e1f"


def usage(new_input: int = 4, cache_write: int = 0, cache_read: int = 0, output: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": new_input,
        "cache_creation_input_tokens": cache_write,
        "cache_read_input_tokens": cache_read,
        "cache_creation": {"ephemeral_5m_input_tokens": cache_write, "ephemeral_1h_input_tokens": 0},
        "output_tokens": output,
        "service_tier": "standard",
    }


def user_line(text: str, session: str = SESSION) -> str:
    entry = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/repo",
        "sessionId": session,
        "version": "2.0.14",
        "gitBranch": "main",
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": str(uuid.uuid4()),
        "timestamp": "2026-11-30T09:00:00.000Z",
    }
    return json.dumps(entry) + "\n"


def assistant_lines(
    message_id: str,
    use: dict[str, Any],
    blocks: int = 1,
    session: str = SESSION,
    sidechain: bool = False,
) -> str:
    """One model turn: Claude Code writes one line per content block, each with the
    message's id and usage."""
    lines = []
    for block in range(blocks):
        content = (
            [{"type": "text", "text": "Looking at the migration runner."}]
            if block == 0
            else [
                {"type": "tool_use", "id": f"toolu_{message_id}_{block}", "name": "Read", "input": {"file_path": "a"}}
            ]
        )
        entry = {
            "parentUuid": str(uuid.uuid4()),
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": "/repo",
            "sessionId": session,
            "version": "2.0.14",
            "gitBranch": "main",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": content,
                "stop_reason": None,
                "stop_sequence": None,
                "usage": use,
            },
            "requestId": f"req_{message_id}",
            "type": "assistant",
            "uuid": str(uuid.uuid4()),
            "timestamp": "2026-11-30T09:00:01.000Z",
        }
        lines.append(json.dumps(entry) + "\n")
    return "".join(lines)


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def payload(event: str, root: Path, transcript: Path | None, session: str = SESSION, **extra: Any) -> str:
    data: dict[str, Any] = {"session_id": session, "cwd": str(root), "hook_event_name": event, **extra}
    if transcript is not None:
        data["transcript_path"] = str(transcript)
    return json.dumps(data)


def hook(root: Path, word: str, body: str) -> tuple[str, str]:
    """Run `foundry hook WORD` as Claude Code does; (additionalContext or "", stderr)."""
    run = run_cli("--root", str(root), "hook", word, stdin=body)
    assert run.code == 0, run.err
    if not run.out.strip():
        return "", run.err
    return str(json.loads(run.out)["hookSpecificOutput"]["additionalContext"]), run.err


def prompt(root: Path, transcript: Path | None, text: str = "how do we run the database migrations?", **kw: Any) -> str:
    context, err = hook(root, "user-prompt-submit", payload("UserPromptSubmit", root, transcript, prompt=text, **kw))
    assert err == "", err
    return context


def start(root: Path, transcript: Path | None, source: str = "startup", **kw: Any) -> str:
    context, err = hook(root, "session-start", payload("SessionStart", root, transcript, source=source, **kw))
    assert err == "", err
    return context
