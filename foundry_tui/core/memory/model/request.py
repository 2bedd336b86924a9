"""What a caller asks memory_write to store, and its checks: the request model every
adapter builds (the write itself is the door's, `core/ops/facts.py`)."""

from __future__ import annotations

from foundry_tui.core.memory.model.facts import (
    Fact,
    bold_reasoning_lines,
    check_body,
    check_choice,
    check_date,
    check_line,
    check_tags,
    check_title,
)
from foundry_tui.core.memory.model.vocabulary import (
    CONFIDENCES,
    DEFAULT_CONFIDENCE,
    DEFAULT_SCOPE,
    DEFAULT_SOURCE,
    TYPES,
)


class WriteRequest:
    """What a caller asks memory_write to store (the MCP tool's fields).

    An optional field left as None was left out by the caller: `created` gives it its
    default, `updated` carries it over from the fact it supersedes. A given value, even
    the default's (`confidence="medium"`, `tags=[]`, `expires=""` for none), is kept."""

    __slots__ = ("body", "confidence", "expires", "refs", "scope", "source", "tags", "title", "type")

    def __init__(
        self,
        title: str,
        body: str,
        type: str,
        scope: str | None = None,
        tags: list[str] | tuple[str, ...] | None = None,
        confidence: str | None = None,
        source: str | None = None,
        expires: str | None = None,
        refs: list[str] | tuple[str, ...] | None = None,
    ) -> None:
        self.title = title
        self.body = body
        self.type = type
        self.scope = scope
        self.tags = tags
        self.confidence = confidence
        self.source = source
        self.expires = expires
        # Repository paths the fact is about (issue 30, core/code_refs.py): None when left out,
        # then the fact a restatement replaces gives its refs; the body's backticked paths join them.
        self.refs = refs

    def left_out(self) -> tuple[str, ...]:
        """The optional fields the caller did not give, in the spec's order."""
        return tuple(name for name in CARRIED_FIELDS if getattr(self, name) is None)


# The optional fields, in the spec's order: what an `updated` write carries over.
CARRIED_FIELDS: tuple[str, ...] = ("scope", "tags", "confidence", "source", "expires")


def validate_request(req: WriteRequest) -> Fact:
    """Check every field and return the fact to store (id and created not yet set)."""
    title = check_title(req.title)
    body = bold_reasoning_lines(check_body(req.body))
    ftype = check_choice(req.type, TYPES, "type")
    confidence = check_choice(req.confidence or DEFAULT_CONFIDENCE, CONFIDENCES, "confidence")
    expires = check_date(req.expires, "expires") if req.expires else None
    from foundry_tui.core.secrets import refuse_secrets

    refuse_secrets(
        {
            "title": title,
            "body": body,
            "tags": list(req.tags or ()),
            "scope": req.scope or "",
            "source": req.source or "",
        }
    )
    return Fact(
        id="",
        type=ftype,
        title=title,
        body=body,
        scope=check_line(req.scope or "", "scope", DEFAULT_SCOPE),
        tags=check_tags(list(req.tags or ())),
        confidence=confidence,
        source=check_line(req.source or "", "source", DEFAULT_SOURCE),
        expires=expires,
    )
