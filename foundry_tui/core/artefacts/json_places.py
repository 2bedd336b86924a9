"""Where each value of a JSON text is: a JSON pointer (RFC 6901) for every value, with
its span in the text as written, so a contract violation can point at its exact place
(line and column) and a viewer can highlight it.

The text has already been parsed by `json.loads`; this scanner only finds positions, and
it is iterative, so nesting depth costs no recursion."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_TOKEN = re.compile(r'[ \t\n\r]*(?:(")|([{}\[\],:])|([^ \t\n\r{}\[\],:"]+))')
_STRING_REST = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)


@dataclass(frozen=True)
class Place:
    """A value's span: `start` is its key's opening quote for an object member (so the
    place reads `"severity": 5`), else the value's first character; `end` is just after it."""

    start: int
    value_start: int
    end: int


def escape_token(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(path: Iterable[str | int]) -> str:
    """`("findings", 0, "severity")` → `/findings/0/severity`; the whole document is ``."""
    return "".join("/" + escape_token(part) for part in path)


@dataclass
class _Open:
    kind: str  # "{" or "["
    pointer: str
    start: int
    value_start: int
    index: int = 0
    key: str | None = None
    key_start: int = 0
    wants_key: bool = field(default=True)


def value_places(text: str) -> dict[str, Place]:
    """Every value's place by its pointer (a repeated key: its last value, as json.loads keeps)."""
    import json

    places: dict[str, Place] = {}
    stack: list[_Open] = []

    def next_value(at: int) -> tuple[str, int]:
        """The pointer of a value starting at `at`, and where its place starts."""
        if not stack:
            return "", at
        parent = stack[-1]
        if parent.kind == "[":
            return f"{parent.pointer}/{parent.index}", at
        return f"{parent.pointer}/{escape_token(parent.key or '')}", parent.key_start

    pos = 0
    while True:
        match = _TOKEN.match(text, pos)
        if match is None:
            break
        if match.group(1):
            start = match.start(1)
            rest = _STRING_REST.match(text, start + 1)
            end = rest.end() if rest else len(text)
            pos = end
            parent = stack[-1] if stack else None
            if parent is not None and parent.kind == "{" and parent.wants_key:
                try:
                    parent.key = json.loads(text[start:end])
                except ValueError:
                    parent.key = text[start + 1 : end - 1]
                parent.key_start, parent.wants_key = start, False
                continue
            ptr, place_start = next_value(start)
            places[ptr] = Place(place_start, start, end)
        elif match.group(2):
            char, at = match.group(2), match.start(2)
            pos = match.end()
            if char in "{[":
                ptr, place_start = next_value(at)
                stack.append(_Open(char, ptr, place_start, at))
            elif char in "}]" and stack:
                closed = stack.pop()
                places[closed.pointer] = Place(closed.start, closed.value_start, pos)
            elif char == "," and stack:
                if stack[-1].kind == "[":
                    stack[-1].index += 1
                else:
                    stack[-1].wants_key = True
        else:
            start, pos = match.start(3), match.end(3)
            ptr, place_start = next_value(start)
            places[ptr] = Place(place_start, start, pos)
    return places


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of `offset` in `text`."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def first_line_end(text: str, place: Place) -> int:
    """The end of a place shown as a highlight: a whole object or array would light up the
    screen, so a multi-line value is marked on its first line only."""
    newline = text.find("\n", place.start, place.end)
    return place.end if newline < 0 else newline
