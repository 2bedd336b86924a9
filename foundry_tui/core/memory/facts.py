"""The fact: its model, parsing and writing of fact files, normalisation and fingerprint.

A fact file is markdown with YAML frontmatter (spec 000, "The fact schema"); parsing
and writing go through python-frontmatter, imported only when a file is really read
or written, so that processes answering from the parse cache never pay for YAML.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from typing import Any

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.vocabulary import CONFIDENCES as CONFIDENCES  # re-exported: the TUI reads it here
from foundry_tui.core.memory.vocabulary import (
    DEFAULT_CONFIDENCE,
    DEFAULT_SCOPE,
    DEFAULT_SOURCE,
    MAX_BODY_WORDS,
    MAX_TITLE_CHARS,
    REASONED_TYPES,
    TAG_FORBIDDEN_CHARS,
)
from foundry_tui.core.memory.vocabulary import TYPES as TYPES  # re-exported: the TUI reads it here

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
# (also the parse cache's columns, core/memory/snapshot.py).
RECORD_FIELDS: tuple[str, ...] = (*FIELD_ORDER, "body", "extras")
REQUIRED_FIELDS: tuple[str, ...] = ("id", "type", "title", "created")
WHY_MARKER = "**Why:**"
MERGED_FROM = "merged_from"  # frontmatter key of a merged fact: every source it replaces
HOW_MARKER = "**How to apply:**"

ID_RE = re.compile(r"fact-(\d{4,})")
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
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
        extras: dict[str, Any] | None = None,
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
        self.extras: dict[str, Any] = extras if extras is not None else {}
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

    def to_record(self) -> tuple[Any, ...]:
        """The fields as plain marshal-able values, in RECORD_FIELDS order (the snapshot's columns)."""
        record = {name: getattr(self, name) for name in RECORD_FIELDS}
        record["tags"] = list(self.tags)
        record["extras"] = _plain(self.extras) if self.extras else None
        return tuple(record.values())

    def to_dict(self) -> dict[str, Any]:
        """The fact as JSON-ready data, fields in the spec's order, then the body."""
        data: dict[str, Any] = {name: getattr(self, name) for name in FIELD_ORDER}
        data["tags"] = list(self.tags)
        data.update(_plain(self.extras))
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


def normalise(text: str) -> str:
    """Lowercase with whitespace collapsed (spec: the identity normalisation)."""
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


def _plain(value: Any) -> Any:
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


def _date_field(meta: dict[str, Any], key: str, nullable: bool) -> str | None:
    value = meta.get(key)
    if value is None:
        if nullable:
            return None
        raise FactFileError(f"'{key}' is missing: add '{key}: YYYY-MM-DD'")
    if isinstance(value, str) and DATE_RE.fullmatch(value.strip()):
        try:
            return _dt.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            pass
    raise FactFileError(f"'{key}' is {str(value)!r}, not a date: write YYYY-MM-DD{' or null' if nullable else ''}")


def _text_field(meta: dict[str, Any], key: str, default: str | None) -> str:
    value = meta.get(key, default)
    if value is None:
        if default is None:
            raise FactFileError(f"'{key}' is missing: add it to the frontmatter")
        return default
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise FactFileError(f"'{key}' must be text, not {type(value).__name__}")
    return str(value)


def fact_from_metadata(meta: Any, body: str, file_stem: str | None = None) -> Fact:
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


_HANDLER: Any = None


def _yaml_handler() -> Any:
    """A frontmatter YAML handler that reads timestamps as YamlDate text (built once, lazily)."""
    global _HANDLER
    if _HANDLER is None:
        import yaml
        from frontmatter.default_handlers import YAMLHandler

        base_loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        base_dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        loader: Any = type("FactLoader", (base_loader,), {})
        dumper: Any = type("FactDumper", (base_dumper,), {})
        loader.add_constructor("tag:yaml.org,2002:timestamp", lambda ld, node: YamlDate(ld.construct_scalar(node)))
        dumper.add_representer(
            YamlDate, lambda dp, value: dp.represent_scalar("tag:yaml.org,2002:timestamp", str(value))
        )

        def represent_str(dp: Any, value: str) -> Any:
            # PyYAML writes a string of Unicode spaces (e.g. a no-break space) plain, and reads it
            # back as null: quote any string whose ends are whitespace in Python's sense.
            style = '"' if value and value != value.strip() else None
            return dp.represent_scalar("tag:yaml.org,2002:str", value, style=style)

        dumper.add_representer(str, represent_str)

        class FactYAMLHandler(YAMLHandler):
            def load(self, fm: str, **kwargs: object) -> Any:
                return yaml.load(fm, Loader=loader)

            def export(self, metadata: dict[str, object], **kwargs: object) -> str:
                kwargs["Dumper"] = dumper
                return str(super().export(metadata, **kwargs))

        _HANDLER = FactYAMLHandler()
    return _HANDLER


def parse_fact_text(text: str, file_stem: str | None = None) -> Fact:
    """Parse a fact file's text. Raises FactFileError with a one-line reason."""
    import frontmatter
    import yaml

    if not text.lstrip("\ufeff").startswith("---"):
        raise FactFileError("no YAML frontmatter: start the file with '---', the fact's fields, then '---'")
    try:
        post = frontmatter.loads(text.lstrip("\ufeff"), handler=_yaml_handler())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FactFileError(
            f"frontmatter is not valid YAML{where} ({problem}): fix the YAML between the '---' lines"
        ) from None
    except ValueError as exc:
        raise FactFileError(f"frontmatter cannot be split from the body ({exc}): check the '---' lines") from None
    return fact_from_metadata(post.metadata, post.content, file_stem)


def render_fact_text(fact: Fact) -> str:
    """The file text for `fact`: the spec's fields in the spec's order, then unknown keys kept."""
    import frontmatter

    meta: dict[str, Any] = {name: getattr(fact, name) for name in FIELD_ORDER}
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


# ---- validation of what a caller asks memory_write to store -------------------------------


def check_title(title: str) -> str:
    title = title.strip()
    if not title:
        raise InputError("title is empty: give the fact a title that states the fact itself")
    if "\n" in title or "\r" in title:
        raise InputError(f"title spans several lines: put the fact in one line of at most {MAX_TITLE_CHARS} characters")
    if len(title) > MAX_TITLE_CHARS:
        over = len(title) - MAX_TITLE_CHARS
        raise InputError(
            f"title is {len(title)} characters, {over} over the {MAX_TITLE_CHARS}-character limit: state the fact more briefly"
        )
    return title


def check_body(body: str) -> str:
    body = body.strip()
    if not body:
        raise InputError("body is empty: state the claim, and for a decision or risk its **Why:** line")
    words = len(body.split())
    if words > MAX_BODY_WORDS:
        raise InputError(
            f"body is {words} words, {words - MAX_BODY_WORDS} over the {MAX_BODY_WORDS}-word limit: shorten it or split it into two facts"
        )
    return body


def check_choice(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise InputError(f"unknown {what} '{value}': use one of {', '.join(allowed)}")
    return value


def check_date(value: str, what: str) -> str:
    text = value.strip()
    if DATE_RE.fullmatch(text):
        try:
            return _dt.date.fromisoformat(text).isoformat()
        except ValueError:
            pass
    raise InputError(f"{what} '{value}' is not a date: use YYYY-MM-DD")


def check_line(value: str, what: str, default: str) -> str:
    text = value.strip() or default
    if "\n" in text or "\r" in text:
        raise InputError(f"{what} spans several lines: give it on one line")
    return text


def check_tags(tags: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for raw in tags:
        if not isinstance(raw, str):
            raise InputError(f"tag {raw!r} is not text: give tags as strings")
        tag = raw.strip()
        if not tag:
            continue
        if any(char in tag for char in TAG_FORBIDDEN_CHARS):
            raise InputError(f"tag '{tag}' contains a backtick or a line break: use plain words")
        seen.setdefault(tag, None)
    return tuple(seen)
