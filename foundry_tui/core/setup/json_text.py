"""Edits of a JSON text that leave every byte they do not touch as it was.

`foundry init` adds Foundry's entries to settings files people also edit by hand, and
`foundry init --remove` takes them out again: re-serialising the whole file would reorder
nothing but would rewrite its spacing and its escapes. Here an entry is appended after the
last member of its object (or element of its array), in the file's own indentation, and a
removal deletes exactly the separator and the text an append added, so init then remove
gives back the file's bytes.

Every edit takes valid JSON (already parsed by the caller) and finds places with
core/artefacts/json_places.py; pointers are RFC 6901 (`/hooks/PreToolUse/0`).
"""

from __future__ import annotations

import json

from foundry_tui.core.artefacts.json_places import Place, escape_token, value_places

DEFAULT_INDENT = "  "


def pointer(*parts: str | int) -> str:
    return "".join("/" + escape_token(part) for part in parts)


def _parent(at: str) -> str:
    return at.rsplit("/", 1)[0]


def _children(places: dict[str, Place], parent: str) -> list[Place]:
    prefix = parent + "/"
    return sorted(
        (place for ptr, place in places.items() if ptr.startswith(prefix) and "/" not in ptr[len(prefix) :]),
        key=lambda place: place.start,
    )


def _line_indent(text: str, offset: int) -> str | None:
    """The whitespace from the start of `offset`'s line up to it; None when other text comes first."""
    start = text.rfind("\n", 0, offset) + 1
    head = text[start:offset]
    return head if not head.strip() else None


def _indent_unit(text: str, places: dict[str, Place]) -> str | None:
    """The file's indentation step (its first member's); None for a file on one line."""
    if "\n" not in text.strip():
        return None
    first = _children(places, "")
    unit = _line_indent(text, first[0].start) if first else None
    return unit or DEFAULT_INDENT


def _render(value: object, base: str, unit: str | None) -> str:
    if unit is None:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, indent=unit).replace("\n", "\n" + base)


def _add(text: str, container: str, key: str | None, value: object) -> str:
    places = value_places(text)
    unit = _indent_unit(text, places)
    holder = places[container]
    label = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
    children = _children(places, container)
    if children:
        last = children[-1]
        indent = _line_indent(text, last.start) if unit is not None else None
        if indent is None:  # members side by side on one line
            return text[: last.end] + ", " + label + json.dumps(value, ensure_ascii=False) + text[last.end :]
        return text[: last.end] + ",\n" + indent + label + _render(value, indent, unit) + text[last.end :]
    opening, closing = text[holder.value_start], text[holder.end - 1]
    if unit is None:
        inner = label + json.dumps(value, ensure_ascii=False)
        return text[: holder.value_start] + opening + inner + closing + text[holder.end :]
    base = _line_indent(text, holder.start) or ""
    inner = "\n" + base + unit + label + _render(value, base + unit, unit) + "\n" + base
    return text[: holder.value_start] + opening + inner + closing + text[holder.end :]


def add_member(text: str, obj: str, key: str, value: object) -> str:
    """`text` with `"key": value` appended to the object at pointer `obj`."""
    return _add(text, obj, key, value)


def append_element(text: str, array: str, value: object) -> str:
    """`text` with `value` appended to the array at pointer `array`."""
    return _add(text, array, None, value)


def replace_value(text: str, at: str, value: object) -> str:
    """`text` with the value at pointer `at` written anew (a string or a short list stays on its line)."""
    places = value_places(text)
    place = places[at]
    unit = _indent_unit(text, places)
    base = _line_indent(text, place.start) or ""
    rendered = json.dumps(value, ensure_ascii=False) if not isinstance(value, dict) else _render(value, base, unit)
    return text[: place.value_start] + rendered + text[place.end :]


def remove_value(text: str, at: str) -> str:
    """`text` without the member or element at pointer `at`, nor the separator before it
    (after it, for a first one); an only child leaves its container empty."""
    places = value_places(text)
    place = places[at]
    siblings = _children(places, _parent(at))
    index = siblings.index(place)
    if index > 0:
        return text[: siblings[index - 1].end] + text[place.end :]
    if len(siblings) > 1:
        return text[: place.start] + text[siblings[1].start :]
    holder = places[_parent(at)]
    return text[: holder.value_start + 1] + text[holder.end - 1 :]


def remove_upward(text: str, at: str) -> str:
    """`text` without the value at `at`, and without each container above it (never the
    document itself) that the removal left empty: they held only what was taken out."""
    text = remove_value(text, at)
    parent = _parent(at)
    while parent:
        container = json.loads(text)
        for token in parent.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            container = container[int(token)] if isinstance(container, list) else container[token]
        if container:
            break
        text = remove_value(text, parent)
        parent = _parent(parent)
    return text
