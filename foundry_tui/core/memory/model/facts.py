"""The fact: its model, parsing and writing of fact files, normalisation and fingerprint.

A fact file is markdown with YAML frontmatter (spec 000, "The fact schema"); parsing
and writing go through python-frontmatter, imported only when a file is really read
or written, so that processes answering from the parse cache never pay for YAML.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.vocabulary import CONFIDENCES as CONFIDENCES  # re-exported: the TUI reads it here
from foundry_tui.core.memory.model.vocabulary import (
    DEFAULT_CONFIDENCE,
    DEFAULT_SCOPE,
    DEFAULT_SOURCE,
    MAX_BODY_WORDS,
    MAX_LINE_FIELD_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TITLE_CHARS,
    REASONED_TYPES,
    TAG_FORBIDDEN_CHARS,
)
from foundry_tui.core.memory.model.vocabulary import TYPES as TYPES  # re-exported: the TUI reads it here

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from frontmatter.default_handlers import YAMLHandler

    from foundry_tui.core.json_types import JSONObject, JSONValue

# The spec's frontmatter fields, in the order a fact file is written.
FIELD_ORDER: tuple[str, ...] = (
    "id",
    "type",
    "scope",
    "title",
    "tags",
    "confidence",
    "source",
    "created",
    "expires",
    "supersedes",
)
# Every field a Fact holds: the frontmatter's, the body, and the unknown keys kept as they were
# (also the parse cache's columns, core/memory/storage/snapshot.py).
RECORD_FIELDS: tuple[str, ...] = (*FIELD_ORDER, "body", "extras")
REQUIRED_FIELDS: tuple[str, ...] = ("id", "type", "title", "created")
# A fact is at most 120 words: a file past this is not one, and is never parsed or served.
MAX_FACT_FILE_BYTES = 64 * 1024
WHY_MARKER = "**Why:**"
MERGED_FROM = "merged_from"  # frontmatter key of a merged fact: every source it replaces
HOW_MARKER = "**How to apply:**"

ID_RE = re.compile(r"fact-(\d{4,})")
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Git's conflict markers, each at the start of a line (`=======` alone on its line).
CONFLICT_MARKER_RE = re.compile(r"^(?:<{7} |<{7}$|={7}$|>{7} |>{7}$)", re.MULTILINE)
RENUMBERED_FROM = "renumbered_from"  # frontmatter key: the id a fact had before `memory resolve` renumbered it
CONFLICT_REASON = "merge conflict: git left conflict markers in this file: run `foundry memory resolve`"
_UNBOLDED_LINE = re.compile(r"^([ \t]*)(why|how to apply):(?!\*)", re.IGNORECASE | re.MULTILINE)


class FactFileError(ValueError):
    """A fact file that cannot be loaded; the message says what is wrong and what to do."""


class Fact:
    """One T1 fact as loaded from `.foundry/memory/facts/<id>.md`.

    A hand-written class, not a dataclass: this module is on the start-up path of the
    hooks and the MCP server, and importing dataclasses costs more than the search."""

    __slots__ = (*RECORD_FIELDS, "search_text")

    def __init__(
        self,
        id: str,
        type: str,
        title: str,
        body: str,
        scope: str = DEFAULT_SCOPE,
        tags: tuple[str, ...] = (),
        confidence: str = DEFAULT_CONFIDENCE,
        source: str = DEFAULT_SOURCE,
        created: str = "",
        expires: str | None = None,
        supersedes: str | None = None,
        extras: dict[str, object] | None = None,
    ) -> None:
        self.id = id
        self.type = type
        self.title = title
        self.body = body
        self.scope = scope
        self.tags = tags
        self.confidence = confidence
        self.source = source
        self.created = created
        self.expires = expires
        self.supersedes = supersedes
        self.extras: dict[str, object] = extras if extras is not None else {}
        # Lowercased "title\0tags\0body", made on first search (derived, never compared).
        self.search_text: str | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fact):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in RECORD_FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        return "Fact(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in RECORD_FIELDS) + ")"

    @property
    def number(self) -> int:
        return int(self.id[5:])  # ids are validated as fact-NNNN on load

    @property
    def order_key(self) -> tuple[int, str]:
        return id_order(self.id)

    @property
    def has_why(self) -> bool:
        return WHY_MARKER in self.body

    @property
    def needs_why(self) -> bool:
        """A decision or risk without the literal **Why:** line (doctor fails, prune lists it)."""
        return self.type in REASONED_TYPES and WHY_MARKER not in self.body

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.title, self.body)

    def replaced_ids(self) -> tuple[str, ...]:
        """The ids this fact retires: its `supersedes`, and for a merged fact every id in
        `merged_from` (the spec's supersedes holds one id; a merge retires several)."""
        ids = [self.supersedes] if self.supersedes else []
        merged = self.extras.get(MERGED_FROM) if self.extras else None
        if isinstance(merged, list):
            ids += [m for m in merged if isinstance(m, str) and ID_RE.fullmatch(m) and m not in ids]
        return tuple(ids)

    def to_record(self) -> tuple[object, ...]:
        """The fields as plain marshal-able values, in RECORD_FIELDS order (the snapshot's columns)."""
        record = {name: getattr(self, name) for name in RECORD_FIELDS}
        record["tags"] = list(self.tags)
        record["extras"] = _plain(self.extras) if self.extras else None
        return tuple(record.values())

    def to_dict(self) -> JSONObject:
        """The fact as JSON-ready data, fields in the spec's order, then the body."""
        data: JSONObject = {name: getattr(self, name) for name in FIELD_ORDER}
        data["tags"] = list(self.tags)
        data.update((str(key), _plain(value)) for key, value in self.extras.items())  # _plain of the dict, item by item
        data["body"] = self.body
        return data


def id_order(fact_id: str) -> tuple[int, str]:
    """The one sort key of fact ids: by number, without parsing them (fact-0999 < fact-1000 < fact-10000)."""
    return (len(fact_id), fact_id)


def fact_number(fact_id: str) -> int:
    match = ID_RE.fullmatch(fact_id)
    return int(match.group(1)) if match else -1


def format_id(number: int) -> str:
    return f"fact-{number:04d}"


def has_conflict_markers(text: str) -> bool:
    """True when git left a conflict in `text` (an opening and a closing marker)."""
    if "<<<<<<<" not in text:  # every opening marker holds it: most files skip the regex
        return False
    starts = {m.group(0)[:1] for m in CONFLICT_MARKER_RE.finditer(text)}
    return "<" in starts and ">" in starts


def normalise(text: str) -> str:
    """NFC, lowercase, whitespace collapsed: the spec's identity normalisation, plus NFC so
    that the composed and decomposed spellings of one title (é as one or two code points)
    are one fact."""
    if not text.isascii():
        import unicodedata

        text = unicodedata.normalize("NFC", text)
    return " ".join(text.lower().split())


def fingerprint(title: str, body: str) -> str:
    """SHA-256 of the normalised title and body together."""
    return hashlib.sha256(f"{normalise(title)}\n{normalise(body)}".encode()).hexdigest()


def bold_reasoning_lines(body: str) -> str:
    """Write an unbolded `Why:` / `How to apply:` line start as `**Why:**` / `**How to apply:**`."""

    def repl(match: re.Match[str]) -> str:
        label = "Why" if match.group(2).lower() == "why" else "How to apply"
        return f"{match.group(1)}**{label}:**"

    return _UNBOLDED_LINE.sub(repl, body)


def _plain(value: object) -> JSONValue:
    """YAML values as JSON/marshal-safe data (dates become YYYY-MM-DD)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, str):
        return str(value)
    if value is None or isinstance(value, (int, float, bool)):
        return value
    return str(value)


# Each date text found valid, as its ISO form (at most LINE_MEMO_MAX): facts share few days.
_DATES: dict[str, str] = {}


def _date_field(meta: dict[str, object], key: str, nullable: bool) -> str | None:
    value = meta.get(key)
    if value is None:
        if nullable:
            return None
        raise FactFileError(f"'{key}' is missing: add '{key}: YYYY-MM-DD'")
    if isinstance(value, str):
        known = _DATES.get(value)
        if known is not None:
            return known
        if DATE_RE.fullmatch(value.strip()):
            try:
                date = _dt.date.fromisoformat(value.strip()).isoformat()
            except ValueError:
                pass
            else:
                if len(_DATES) < LINE_MEMO_MAX:
                    _DATES[value] = date
                return date
    raise FactFileError(f"'{key}' is {str(value)!r}, not a date: write YYYY-MM-DD{' or null' if nullable else ''}")


def _text_field(meta: dict[str, object], key: str, default: str | None) -> str:
    value = meta.get(key, default)
    if value is None:
        if default is None:
            raise FactFileError(f"'{key}' is missing: add it to the frontmatter")
        return default
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise FactFileError(f"'{key}' must be text, not {type(value).__name__}")
    return str(value)


def fact_from_metadata(meta: object, body: str, file_stem: str | None = None) -> Fact:
    """Build and validate a Fact from decoded frontmatter; raise FactFileError if it is unusable."""
    if not isinstance(meta, dict) or not meta:
        raise FactFileError("no YAML frontmatter: start the file with '---', the fact's fields, then '---'")
    missing = [key for key in REQUIRED_FIELDS if meta.get(key) in (None, "")]
    if missing:
        raise FactFileError(
            f"missing required field{'s' if len(missing) > 1 else ''} {', '.join(missing)}: add {'them' if len(missing) > 1 else 'it'} to the frontmatter"
        )
    fact_id = _text_field(meta, "id", None)
    if not ID_RE.fullmatch(fact_id):
        raise FactFileError(f"id '{fact_id}' is not of the form fact-NNNN")
    if file_stem is not None and file_stem != fact_id:
        raise FactFileError(
            f"id '{fact_id}' does not match the file name {file_stem}.md: rename the file or fix the id"
        )
    ftype = _text_field(meta, "type", None)
    if ftype not in TYPES:
        raise FactFileError(f"type '{ftype}' is not one of {', '.join(TYPES)}")
    confidence = _text_field(meta, "confidence", DEFAULT_CONFIDENCE)
    if confidence not in CONFIDENCES:
        raise FactFileError(f"confidence '{confidence}' is not one of {', '.join(CONFIDENCES)}")
    tags_value = meta.get("tags") or []
    if isinstance(tags_value, str):
        tags_value = [tags_value]
    if not isinstance(tags_value, list) or not all(
        isinstance(t, (str, int, float)) and not isinstance(t, bool) for t in tags_value
    ):
        raise FactFileError("tags must be a list of strings, e.g. tags: [database, postgres]")
    supersedes = meta.get("supersedes")
    if supersedes is not None and (not isinstance(supersedes, str) or not ID_RE.fullmatch(supersedes)):
        raise FactFileError(f"supersedes {supersedes!r} is not a fact id (fact-NNNN) or null")
    extras = {k: v for k, v in meta.items() if k not in FIELD_ORDER}
    return Fact(
        id=fact_id,
        type=ftype,
        title=_text_field(meta, "title", None),
        body=body,
        scope=_text_field(meta, "scope", DEFAULT_SCOPE),
        tags=tuple(str(t) for t in tags_value),
        confidence=confidence,
        source=_text_field(meta, "source", DEFAULT_SOURCE),
        created=_date_field(meta, "created", nullable=False) or "",
        expires=_date_field(meta, "expires", nullable=True),
        supersedes=supersedes,
        extras=extras,
    )


class YamlDate(str):
    """A YAML date kept as its text, so that a bad date gets our message, not YAML's,
    and a date under an unknown key is written back unquoted."""


_HANDLER: YAMLHandler | None = None


def _yaml_handler() -> YAMLHandler:
    """A frontmatter YAML handler that reads timestamps as YamlDate text (built once, lazily)."""
    global _HANDLER
    if _HANDLER is None:
        import yaml
        from frontmatter.default_handlers import YAMLHandler

        base_loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        base_dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        # Classes made at run time from the C or the pure loader, whichever PyYAML has: no static type.
        loader: Any = type("FactLoader", (base_loader,), {})
        dumper: Any = type("FactDumper", (base_dumper,), {})
        loader.add_constructor("tag:yaml.org,2002:timestamp", lambda ld, node: YamlDate(ld.construct_scalar(node)))
        dumper.add_representer(
            YamlDate, lambda dp, value: dp.represent_scalar("tag:yaml.org,2002:timestamp", str(value))
        )

        def represent_str(dp: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
            # PyYAML writes a string of Unicode spaces (e.g. a no-break space) plain, and reads it
            # back as null: quote any string whose ends are whitespace in Python's sense.
            style = '"' if value and value != value.strip() else None
            return dp.represent_scalar("tag:yaml.org,2002:str", value, style=style)

        dumper.add_representer(str, represent_str)

        class FactYAMLHandler(YAMLHandler):
            def load(self, fm: str, **kwargs: object) -> Any:  # YAML's data, as YAMLHandler.load gives it
                return yaml.load(fm, Loader=loader)

            def export(self, metadata: dict[str, object], **kwargs: object) -> str:
                kwargs["Dumper"] = dumper
                return str(super().export(metadata, **kwargs))

        _HANDLER = FactYAMLHandler()
    return _HANDLER


def oversize_reason(size: int) -> str:
    """Why a fact file of `size` bytes is refused."""
    return (
        f"the file is {size // 1024} KiB, over the {MAX_FACT_FILE_BYTES // 1024} KiB limit for a fact file: "
        f"split it into facts of at most {MAX_BODY_WORDS} words"
    )


# python-frontmatter's YAMLHandler.FM_BOUNDARY, copied so that a simple file is split without
# importing it (tests/test_fast_frontmatter.py checks that the two stay the same).
FM_BOUNDARY = re.compile(r"^-{3,}\s*$", re.MULTILINE)
# The frontmatter a simple file holds, line by line: `key: value`, where the value is a plain
# ASCII scalar that YAML reads as text (it starts with a letter, holds no ':' or '#', and is
# not a YAML 1.1 boolean or null word), `null`, a YYYY-MM-DD date, or a flow list `[a, b]` of
# such scalars. Anything else (quotes, comments, block lists, other scalars, non-ASCII text)
# goes to the YAML loader, which is the reference: the two give equal data wherever the
# fast path answers (a hypothesis property test holds it).
_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIMPLE_TEXT = re.compile(r"[A-Za-z](?:[A-Za-z0-9 _.,;()/+'!?&%=\-]*[A-Za-z0-9_.,;()/+'!?&%=\-])?")
_SIMPLE_ITEM = re.compile(r"[A-Za-z](?:[A-Za-z0-9 _.;()/+'!?&%=\-]*[A-Za-z0-9_.;()/+'!?&%=\-])?")
# A list item may also be a repository path as a fact's `refs` holds it (core/code_refs.py): it
# may start with `_` or with `.` and a letter or `/` (`.ci/run`; never `.inf` or `.nan`, which
# YAML reads as numbers) and hold `*` and `@` (`src/*.py`, `app.py@<blob id>`); or, single-quoted
# as the YAML writer quotes `path::Name`, any printable ASCII but a quote or a comma.
_PATH_ITEM = re.compile(r"(?:[A-Za-z_]|\.(?=[A-Za-z/]))(?:[A-Za-z0-9 _.;()/+'!?&%=\-*@]*[A-Za-z0-9_.;()/+'!?&%=\-*@])?")
_QUOTED_ITEM = re.compile(r"'([ -&(-+\--~]*)'")
_YAML_FLOAT_WORDS = frozenset([".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"])
_SIMPLE_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# PyYAML's bool and null words (its implicit resolvers for scalars that start with a letter or '~').
_YAML_WORDS = frozenset(
    [
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "null",
        "Null",
        "NULL",
        "~",
    ]
)


def _simple_scalar(value: str, item: bool) -> object:
    """The value of a simple scalar, or _NOT_SIMPLE."""
    if value == "null" and not item:
        return None
    if value in _YAML_WORDS:
        return _NOT_SIMPLE
    if (_SIMPLE_ITEM if item else _SIMPLE_TEXT).fullmatch(value):
        return value
    if item and _PATH_ITEM.fullmatch(value) and value not in _YAML_FLOAT_WORDS:
        return value
    quoted = _QUOTED_ITEM.fullmatch(value) if item else None
    if quoted is not None:
        return quoted.group(1)
    if _SIMPLE_DATE.fullmatch(value):
        return YamlDate(value)
    return _NOT_SIMPLE


_NOT_SIMPLE = object()


# The fields whose lines repeat from fact to fact (`type: domain`, `expires: null`): a simple
# line of one of these is decoded once per process and its (key, value) kept, at most
# LINE_MEMO_MAX lines (a first-ever load of 100,000 facts decodes each such line once).
# Only scalars are kept: text, None and YamlDate are immutable, so sharing them is safe.
_REPEATING_KEYS = frozenset(["type", "scope", "confidence", "source", "created", "expires", "supersedes"])
LINE_MEMO_MAX = 4096
_LINE_MEMO: dict[str, tuple[str, object]] = {}


def simple_frontmatter(text: str) -> dict[str, object] | None:
    """The frontmatter `text` decoded without YAML when every line is simple (see above), else None."""
    if not text.isascii() or "\t" in text:
        return None
    meta: dict[str, object] = {}
    memo = _LINE_MEMO
    for line in text.split("\n"):
        if not line:
            continue
        known = memo.get(line)
        if known is not None:
            if known[0] in meta:
                return None
            meta[known[0]] = known[1]
            continue
        key, sep, value = line.partition(": ")
        if not sep or not _SIMPLE_KEY.fullmatch(key) or key in _YAML_WORDS or key in meta:
            return None
        if value.startswith("[") and value.endswith("]"):
            inner = value[1:-1]
            items = [item.strip(" ") for item in inner.split(",")] if inner.strip(" ") else []
            listed = [_simple_scalar(item, True) for item in items]
            if any(item is _NOT_SIMPLE or not isinstance(item, str) for item in listed):
                return None
            meta[key] = listed
        else:
            scalar = _simple_scalar(value, False)
            if scalar is _NOT_SIMPLE:
                return None
            meta[key] = scalar
            if key in _REPEATING_KEYS and len(memo) < LINE_MEMO_MAX:
                memo[line] = (key, scalar)
    return meta or None


def parse_fact_text(text: str, file_stem: str | None = None) -> Fact:
    """Parse a fact file's text. Raises FactFileError with a one-line reason. What the
    frontmatter may expand to is bounded (core/yaml_bounds.py: alias bombs).

    The frontmatter of a simple file (the form memory_write writes) is decoded without
    YAML (simple_frontmatter): about ten times faster, and no YAML import in a process
    that re-reads one changed file. Every other file goes through the YAML loader."""
    from foundry_tui.core.yaml_bounds import MAX_YAML_VALUES, YamlBoundsError, check_yaml_bounds

    if len(text) * 4 > MAX_FACT_FILE_BYTES:  # only then can the UTF-8 form be over the limit
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_FACT_FILE_BYTES:
            raise FactFileError(oversize_reason(size))
    if has_conflict_markers(text):
        raise FactFileError(CONFLICT_REASON)
    if not text.lstrip("\ufeff").startswith("---"):
        raise FactFileError("no YAML frontmatter: start the file with '---', the fact's fields, then '---'")
    stripped = text.lstrip("\ufeff").strip()
    parts = FM_BOUNDARY.split(stripped, 2)
    if len(parts) == 3 and FM_BOUNDARY.match(stripped.split("\n", 1)[0]):
        meta = simple_frontmatter(parts[1])
        if meta is not None:
            # Flat by construction: only the count of values can be out of bounds.
            count = 1 + 2 * len(meta) + sum(len(v) for v in meta.values() if isinstance(v, list))
            if count > MAX_YAML_VALUES:
                try:
                    check_yaml_bounds(meta)
                except YamlBoundsError as exc:
                    raise FactFileError(str(exc)) from None
            return fact_from_metadata(meta, parts[2].strip(), file_stem)
    return _parse_with_yaml(text, file_stem)


def _parse_with_yaml(text: str, file_stem: str | None) -> Fact:
    import yaml

    from foundry_tui.core.yaml_bounds import MAX_YAML_DEPTH, YamlBoundsError, check_yaml_bounds

    handler = _yaml_handler()
    # python-frontmatter's own steps (strip, split on the '---' lines, load), taken one by
    # one so that each way a file can fail gets its own message.
    stripped = text.lstrip("\ufeff").strip()
    first_line = stripped.split("\n", 1)[0]
    if not handler.FM_BOUNDARY.match(first_line):
        raise FactFileError(f"the first line is {first_line[:20]!r}, not '---': start the file with a line of '---'")
    try:
        _, frontmatter_text, content = handler.FM_BOUNDARY.split(stripped, 2)
    except ValueError:
        raise FactFileError(
            "the frontmatter has no closing '---' line: end the fact's fields with a line of '---'"
        ) from None
    try:
        meta = handler.load(frontmatter_text)
    except RecursionError:
        raise FactFileError(
            f"frontmatter is nested deeper than {MAX_YAML_DEPTH} levels: keep the fields flat"
        ) from None
    except UnicodeEncodeError:  # the C loader takes UTF-8: a lone surrogate cannot reach it
        raise FactFileError("frontmatter holds a lone UTF-16 surrogate, not text: save the file as UTF-8") from None
    except yaml.YAMLError as exc:
        # Where the mistake is: the line of what was left open (a `[`, a quote), when YAML names
        # one, else where YAML noticed it (for an unclosed `[`, the line after). The frontmatter
        # text starts on the opening '---' line: its line 0 is the file's line 1.
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FactFileError(
            f"frontmatter is not valid YAML{where} ({problem}): fix the YAML between the '---' lines"
        ) from None
    if meta is None or meta == {}:
        raise FactFileError(
            "the frontmatter is empty: put the fact's fields (id, type, title, created) between the '---' lines"
        )
    if not isinstance(meta, dict):
        kind = {list: "list", str: "text", bool: "true/false"}.get(
            type(meta), "number" if isinstance(meta, (int, float)) else "value"
        )
        raise FactFileError(
            f"the frontmatter is a YAML {kind}, not fields: write one 'key: value' line per field between the '---' lines"
        )
    odd = [key for key in meta if not isinstance(key, str)]  # `1:` or `null:` as a key
    if odd:
        raise FactFileError(f"frontmatter key {odd[0]!r} is not a name: write fields as 'name: value'")
    try:
        check_yaml_bounds(meta)
    except YamlBoundsError as exc:
        raise FactFileError(str(exc)) from None
    return fact_from_metadata(meta, content.strip(), file_stem)


def render_fact_text(fact: Fact) -> str:
    """The file text for `fact`: the spec's fields in the spec's order, then unknown keys kept."""
    import frontmatter

    meta: dict[str, object] = {name: getattr(fact, name) for name in FIELD_ORDER}
    meta["tags"] = list(fact.tags)
    meta["created"] = YamlDate(fact.created) if fact.created else None
    meta["expires"] = YamlDate(fact.expires) if fact.expires else None
    meta.update(fact.extras)
    post = frontmatter.Post(fact.body, handler=_yaml_handler(), **meta)
    return (
        frontmatter.dumps(
            post, handler=_yaml_handler(), sort_keys=False, default_flow_style=None, width=10**9, allow_unicode=True
        )
        + "\n"
    )


# ---- control and invisible characters ---------------------------------------------------

# C0 and C1 controls, DEL, and the Unicode line and paragraph separators. None of them
# belongs in a one-line field: a carriage return breaks INDEX.md's lines, an ESC starts a
# terminal escape sequence. A body may keep line feeds and tabs (BODY_CONTROL_RE).
CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
BODY_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Letters that draw nothing (Hangul fillers, the braille blank); with the categories below,
# what a title made only of "invisible" characters consists of.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cn", "Co", "Cs", "Zs", "Zl", "Zp", "Mn", "Me"})


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04x}"


def escape_controls(text: str, *, keep_lines: bool = False) -> str:
    """`text` with every control character written as a visible escape (`\\r`, `\\u001b`),
    for an index line, a reply or a screen. `keep_lines` keeps line feeds and tabs (a body).
    The escapes are also valid inside a JSON string."""
    if not keep_lines and text.isprintable():  # the common case, without the regex
        return text
    pattern = BODY_CONTROL_RE if keep_lines else CONTROL_RE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the last one an ellipsis when it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown(value: str, limit: int = 40) -> str:
    """A caller's value as an error message may quote it: escaped and short."""
    return escape_controls(clip(value, limit))


def has_visible(text: str) -> bool:
    """True when `text` draws at least one character (not only spaces, zero-width or
    other invisible code points)."""
    if text.isascii():
        return any(c.isprintable() and not c.isspace() for c in text)
    import unicodedata

    return any(unicodedata.category(c) not in _INVISIBLE_CATEGORIES and c not in _BLANK_LETTERS for c in text)


def _control_problem(value: str, what: str, *, keep_lines: bool = False) -> str | None:
    found = (BODY_CONTROL_RE if keep_lines else CONTROL_RE).search(value)
    return f"{what} contains a control character (U+{ord(found.group()):04X})" if found else None


def field_problems(fact: Fact) -> list[str]:
    """What a hand-written fact holds that memory_write refuses and that the index and
    the screens therefore show escaped or cut (doctor warns, one line each)."""
    problems = [
        f"{problem}, shown escaped"
        for problem in (
            _control_problem(fact.title, "title"),
            _control_problem(fact.scope, "scope"),
            _control_problem(fact.source, "source"),
            _control_problem(fact.body, "body", keep_lines=True),
            next((_control_problem(t, f"tag '{shown(t)}'") for t in fact.tags if CONTROL_RE.search(t)), None),
        )
        if problem
    ]
    problems += [
        f"{what} of {len(value)} characters, over the {MAX_LINE_FIELD_CHARS}-character limit"
        for what, value in (("scope", fact.scope), ("source", fact.source))
        if len(value) > MAX_LINE_FIELD_CHARS
    ]
    if len(fact.tags) > MAX_TAGS:
        problems.append(f"{len(fact.tags)} tags, over the limit of {MAX_TAGS}; the index lists the first {MAX_TAGS}")
    longest = max((len(t) for t in fact.tags), default=0)
    if longest > MAX_TAG_CHARS:
        problems.append(f"a tag of {longest} characters, over the {MAX_TAG_CHARS}-character limit; the index cuts it")
    return problems


# ---- validation of what a caller asks memory_write to store -------------------------------


def _refuse_controls(value: str, what: str, advice: str, *, keep_lines: bool = False) -> None:
    problem = _control_problem(value, what, keep_lines=keep_lines)
    if problem:
        raise InputError(f"{problem}: {advice}")


# Ordinary whitespace around a value (a trailing newline from a shell or a model) is
# trimmed before the checks, as it always was; a control character anywhere else is refused.
_ASCII_SPACE = " \t\n\r\x0b\x0c"


def check_title(title: str) -> str:
    title = title.strip(_ASCII_SPACE)
    if "\n" in title or "\r" in title:
        raise InputError(f"title spans several lines: put the fact in one line of at most {MAX_TITLE_CHARS} characters")
    _refuse_controls(title, "title", "remove it; a title is plain text on one line")
    title = title.strip()
    if not title:
        raise InputError("title is empty: give the fact a title that states the fact itself")
    if not has_visible(title):
        raise InputError(
            "title has no visible characters (only zero-width or other invisible ones): state the fact in words"
        )
    if len(title) > MAX_TITLE_CHARS:
        over = len(title) - MAX_TITLE_CHARS
        raise InputError(
            f"title is {len(title)} characters, {over} over the {MAX_TITLE_CHARS}-character limit: state the fact more briefly"
        )
    return title


def check_body(body: str) -> str:
    body = body.strip(_ASCII_SPACE).replace("\r\n", "\n")  # Windows line ends are line ends; a lone CR is refused below
    _refuse_controls(
        body,
        "body",
        "remove it (terminal escapes, NUL and the like); a body keeps only text, line breaks and tabs",
        keep_lines=True,
    )
    body = body.strip()
    if not body or not has_visible(body):
        raise InputError("body is empty: state the claim, and for a decision or risk its **Why:** line")
    words = len(body.split())
    if words > MAX_BODY_WORDS:
        raise InputError(
            f"body is {words} words, {words - MAX_BODY_WORDS} over the {MAX_BODY_WORDS}-word limit: shorten it or split it into two facts"
        )
    return body


def check_choice(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise InputError(f"unknown {what} '{shown(value)}': use one of {', '.join(allowed)}")
    return value


def check_date(value: str, what: str) -> str:
    _refuse_controls(value.strip(_ASCII_SPACE), what, "write the date as YYYY-MM-DD")
    text = value.strip()
    if DATE_RE.fullmatch(text):
        try:
            return _dt.date.fromisoformat(text).isoformat()
        except ValueError:
            pass
    raise InputError(f"{what} '{shown(value)}' is not a date: use YYYY-MM-DD")


def check_line(value: str, what: str, default: str) -> str:
    value = value.strip(_ASCII_SPACE)
    if "\n" in value or "\r" in value:
        raise InputError(f"{what} spans several lines: give it on one line")
    _refuse_controls(value, what, "remove it; give it as plain text on one line")
    value = value.strip()
    if len(value) > MAX_LINE_FIELD_CHARS:
        raise InputError(
            f"{what} is {len(value)} characters, {len(value) - MAX_LINE_FIELD_CHARS} over the "
            f"{MAX_LINE_FIELD_CHARS}-character limit: name the module or the source briefly"
        )
    return value or default


def check_tags(tags: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for raw in tags:
        if not isinstance(raw, str):
            raise InputError(f"tag {shown(repr(raw))} is not text: give tags as strings")
        tag = raw.strip(_ASCII_SPACE)
        _refuse_controls(tag, f"tag '{shown(tag)}'", "use plain words on one line")
        tag = tag.strip()
        if not tag:
            continue
        if any(char in tag for char in TAG_FORBIDDEN_CHARS):
            raise InputError(f"tag '{shown(tag)}' contains a backtick: use plain words")
        if not has_visible(tag):
            raise InputError(f"tag '{shown(tag)}' has no visible characters: use plain words")
        if len(tag) > MAX_TAG_CHARS:
            raise InputError(
                f"tag '{shown(tag)}' is {len(tag)} characters, {len(tag) - MAX_TAG_CHARS} over the "
                f"{MAX_TAG_CHARS}-character tag limit: use a short retrieval word"
            )
        seen.setdefault(tag, None)
    if len(seen) > MAX_TAGS:
        raise InputError(
            f"{len(seen)} tags, {len(seen) - MAX_TAGS} over the limit of {MAX_TAGS}: "
            "keep the words searches will use and not find elsewhere"
        )
    return tuple(seen)
