"""Edit a few frontmatter fields of a fact file and keep everything else byte for byte.

A fact file is a file people edit: comments, quoting, block or flow lists and key order
are theirs. Retiring (`expires`) and tagging (`tags`) change one field, so they go
through a round-trip YAML editor (ruamel.yaml, imported here only: loading stays on the
fast C loader) instead of re-rendering the whole file. The body after the closing `---`
is copied unchanged.
"""

from __future__ import annotations

import datetime as _dt
import io
import re
from collections.abc import Mapping

from foundry_tui.core.memory.model.facts import FIELD_ORDER as _KEY_ORDER  # a new key goes after the last it follows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap


def _split(text: str) -> tuple[str, str, str] | None:
    """(opening delimiter line, frontmatter, the rest from the closing delimiter on)."""
    first_end = text.find("\n")
    if first_end < 0 or text[:first_end].rstrip("\r") != "---":
        return None
    start = first_end + 1
    pos = start
    while True:
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        if line.rstrip("\r") == "---":
            return text[:start], text[start:pos], text[pos:]
        if end < 0:
            return None
        pos = end + 1


def _key_lines(data: CommentedMap, lines: int) -> tuple[int, dict[str, tuple[int, int]]]:
    """The line where the first key starts, and each top-level key's [first, end) lines."""
    starts = sorted((data.lc.key(key)[0], str(key)) for key in data)
    spans = {key: (line, starts[i + 1][0] if i + 1 < len(starts) else lines) for i, (line, key) in enumerate(starts)}
    return (starts[0][0] if starts else lines), spans


_COMMENT = re.compile(r"(\s+)(#[^\n]*)(\n?)$")


def _keep_comment_gap(old: str, new: str) -> str:
    """A changed one-line key keeps the spaces its author put before its comment."""
    was, now = _COMMENT.search(old), _COMMENT.search(new)
    if was and now and was.group(2) == now.group(2):
        return new[: now.start()] + was.group(1) + now.group(2) + now.group(3)
    return new


def _quoted_if_needed(value: object) -> object:
    """A string the C loader (YAML 1.1) would read as something else (`no`, `1e3`, `a: b`) is quoted."""
    import yaml as pyyaml
    from ruamel.yaml.scalarstring import SingleQuotedScalarString

    if isinstance(value, str):
        try:
            same = pyyaml.safe_load(value) == value
        except pyyaml.YAMLError:
            same = False
        return value if same else SingleQuotedScalarString(value)
    return value


def edit_frontmatter(text: str, changes: Mapping[str, object]) -> str | None:
    """`text` with each key of `changes` set to its value (dates as ISO strings, tags as a
    list of strings), or None when the file cannot be edited in place (the caller then
    re-renders it). Lines of the keys not changed are copied from the file as they were."""
    parts = _split(text)
    if parts is None:
        return None
    opening, front, rest = parts
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.comments import CommentedMap, CommentedSeq
        from ruamel.yaml.error import YAMLError
        from ruamel.yaml.util import load_yaml_guess_indent
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        _data, indent, seq_offset = load_yaml_guess_indent(front)
        yaml = YAML(typ="rt")
        yaml.preserve_quotes = True
        yaml.width = 10**9
        offset = seq_offset or 0
        yaml.indent(mapping=2 if indent is None else max(2, indent - offset), sequence=indent or 2, offset=offset)
        data = yaml.load(front)
    except (YAMLError, ValueError, TypeError):
        return None
    if not isinstance(data, CommentedMap):
        return None
    for key, value in changes.items():
        new_value: object = _quoted_if_needed(value)
        if isinstance(value, list | tuple):
            items = [_quoted_if_needed(v) for v in value]
            current = data.get(key)
            if isinstance(current, CommentedSeq) and list(current) == list(value)[: len(current)]:
                current.extend(items[len(current) :])  # appending keeps the list's style and comments
                continue
            new_value = CommentedSeq(items)
            new_value.fa.set_flow_style()
        elif isinstance(value, str) and key in ("expires", "created"):
            new_value = _dt.date.fromisoformat(value)
        if key in data:
            data[key] = new_value
        else:
            known = [k for k in _KEY_ORDER[: _KEY_ORDER.index(key)] if k in data] if key in _KEY_ORDER else []
            position = list(data).index(known[-1]) + 1 if known else len(data)
            data.insert(position, key, new_value)
    out = io.StringIO()
    try:
        yaml.dump(data, out)
        dumped = out.getvalue()
        redone = yaml.load(dumped)
    except (YAMLError, ValueError, TypeError):
        return None
    # ruamel re-spells some lines it did not need to touch (an empty value as `null`, comment
    # spacing): take every unchanged key's lines from the file itself.
    old_lines = front.splitlines(keepends=True)
    new_lines = dumped.splitlines(keepends=True)
    old_head, old_spans = _key_lines(yaml.load(front), len(old_lines))  # `data` was edited: read it afresh
    _new_head, new_spans = _key_lines(redone, len(new_lines))
    merged = old_lines[:old_head]
    for key, (first, end) in sorted(new_spans.items(), key=lambda item: item[1][0]):
        if key in old_spans and key not in changes:
            merged.extend(old_lines[slice(*old_spans[key])])
        elif key in old_spans and end - first == 1 and old_spans[key][1] - old_spans[key][0] == 1:
            merged.append(_keep_comment_gap(old_lines[old_spans[key][0]], new_lines[first]))
        else:
            merged.extend(new_lines[first:end])
    body = "".join(merged)
    if front and not body.endswith("\n"):
        body += "\n"
    return opening + body + rest
