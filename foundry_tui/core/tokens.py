"""Token estimates: one function for the whole product (ADR 0008: ceil(characters / 4))."""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text` as written: ceil(len / 4)."""
    return -(-len(text) // 4)


def tokens_for_chars(chars: int) -> int:
    """The same estimate for a character count already known."""
    return -(-chars // 4)
