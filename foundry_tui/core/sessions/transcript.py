"""The agent's own usage, read from the Claude Code transcript a hook payload names.

The transcript is JSONL. Each assistant entry carries the API message it belongs to
(`message.id`) and that message's `usage`; Claude Code writes one entry per content
block, so one message (one turn of the model) can appear on several lines with the
same id. A turn counts once, at the largest usage seen for it, whichever hook reads it
first: the store remembers each turn's id and what it counted, and how far into the
file it has read. A missing file, a line that is not JSON, an entry without usage: each
is skipped, nothing else changes.
"""

from __future__ import annotations

import json
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONValue

MAX_READ_BYTES = 64 * 1024 * 1024  # a transcript is read from where the last hook stopped


def turn_tokens(usage: object) -> int:
    """The tokens a turn added to the conversation: its new input (uncached and written to
    the cache) plus its output. Cache reads are the earlier conversation read again;
    counting them would count every turn once per later turn."""
    if not isinstance(usage, dict):
        return 0
    total = 0
    for key in ("input_tokens", "cache_creation_input_tokens", "output_tokens"):
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            total += value
    return total


def parse_turn(line: bytes) -> tuple[str, int] | None:
    """(turn id, tokens) of one transcript line, or None for anything that is not a
    main-conversation assistant turn with usage."""
    try:
        entry: JSONValue = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(entry, dict) or entry.get("type") != "assistant" or entry.get("isSidechain") is True:
        return None
    message = entry.get("message")
    if not isinstance(message, dict):
        return None
    tokens = turn_tokens(message.get("usage"))
    turn_id = message.get("id") or entry.get("uuid")
    if not isinstance(turn_id, str) or not turn_id or tokens <= 0:
        return None
    return turn_id, tokens


def read_turns(path: str, start: int) -> tuple[list[tuple[str, int]], int]:
    """The turns on the complete lines after byte `start`, and where the next read starts.
    A file shorter than `start` was replaced: it is read again from the beginning (the
    turn ids keep anything already counted from counting twice)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device would block or never end
            return [], start
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < start:
                start = 0
            handle.seek(start)
            data = handle.read(MAX_READ_BYTES)
    except OSError:
        return [], start
    end = data.rfind(b"\n") + 1  # a line still being written is read next time
    turns = []
    for line in data[:end].splitlines():
        if b'"usage"' in line:  # most lines (user turns, tool results) are skipped unparsed
            turn = parse_turn(line)
            if turn is not None:
                turns.append(turn)
    return turns, start + end
