"""memory_search's continuation cursor: where the next page of a search starts.

A cursor is opaque to the caller: base64url (no padding) of
`<offset>.<limit>.<max_tokens>.<type>.<check>`, where `offset` is the rank of the next page's
first hit (1 to MAX_DEPTH - 1), `limit` the page size, `max_tokens` the page's token budget
(0: none), `type` the type filter ("" for none) and `check` 12 hex digits of a BLAKE2b digest
of those fields with the query and the ranker. A cursor is therefore bound to the search that
gave it: another query, type or ranker, or any changed character, fails the check. Nothing in
it is secret, and a forged cursor that passes can only ask for a page within MAX_DEPTH of the
same search, which a caller may ask for anyway; it is bounded (MAX_CURSOR_CHARS) and read
without a single conversion that could fail unchecked.

Pages reach as deep as the largest `limit` does (config.MAX_LIMIT hits): paging is how an
agent reads what a bigger limit would have given it, a page at a time.
"""

from __future__ import annotations

import re

from foundry_tui.core.config import MAX_CURSOR_CHARS, MAX_LIMIT, MAX_TOKENS
from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.vocabulary import TYPES

MAX_DEPTH = MAX_LIMIT  # the ranks a search pages through: those of its largest limit
__all__ = ["MAX_CURSOR_CHARS", "MAX_DEPTH", "MAX_TOKENS"]  # the limits, kept in config for the tools' schemas
_CURSOR_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
_PAYLOAD_RE = re.compile(r"([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{1,7})\.([a-z]{0,12})\.([0-9a-f]{12})")
BAD_CURSOR = "cursor is not one memory_search gave for this search (garbled, cut short, or from another query, type or ranker): search again without it"


class Cursor:
    """Where a page starts, and the page size and budget the search was asked with."""

    __slots__ = ("limit", "max_tokens", "offset", "type")

    def __init__(self, offset: int, limit: int, max_tokens: int | None, type: str | None) -> None:
        self.offset = offset
        self.limit = limit
        self.max_tokens = max_tokens
        self.type = type

    def encode(self, query: str, ranker: str) -> str:
        import base64

        fields = f"{self.offset}.{self.limit}.{self.max_tokens or 0}.{self.type or ''}"
        payload = f"{fields}.{_check(fields, query, ranker)}"
        return base64.urlsafe_b64encode(payload.encode("ascii")).decode("ascii").rstrip("=")


def _check(fields: str, query: str, ranker: str) -> str:
    import hashlib

    digest = hashlib.blake2b(f"cursor 1\0{fields}\0{ranker}\0{query}".encode(errors="replace"), digest_size=6)
    return digest.hexdigest()


def decode_cursor(text: str, query: str, ranker: str, type: str | None) -> Cursor:
    """The cursor `text` names for a search of `query` with `ranker` (and `type`, when the
    call names one: it must be the cursor's); one InputError line for anything else."""
    import base64
    import binascii

    if len(text) > MAX_CURSOR_CHARS:
        raise InputError(f"cursor is longer than {MAX_CURSOR_CHARS} characters, so not one memory_search gave")
    if not _CURSOR_RE.fullmatch(text):
        raise InputError(BAD_CURSOR)
    try:
        payload = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("ascii")
    except (binascii.Error, ValueError):  # not base64, or not ASCII once decoded
        raise InputError(BAD_CURSOR) from None
    match = _PAYLOAD_RE.fullmatch(payload)
    if match is None:
        raise InputError(BAD_CURSOR)
    offset, limit, budget = int(match[1]), int(match[2]), int(match[3])
    given_type = match[4] or None
    fields = payload.rsplit(".", 1)[0]
    if (
        not 1 <= offset < MAX_DEPTH
        or not 1 <= limit <= MAX_LIMIT
        or budget > MAX_TOKENS
        or (given_type is not None and given_type not in TYPES)
        or (type is not None and type != given_type)
        or match[5] != _check(fields, query, ranker)
    ):
        raise InputError(BAD_CURSOR)
    return Cursor(offset, limit, budget or None, given_type)
