"""User strings on screen: always text, never markup, never terminal control.

A fact's title, tags, scope or source, a runbook's trigger, a search query, a file name,
an error quoting any of them: each is written by someone else and may read `[/]`
(which Rich and Textual markup would parse, and refuse with a MarkupError that closes
the app) or hold an ESC, NUL or CR (which would reach the terminal). Everything the TUI
shows that it did not write itself goes through these, into `Text` (never parsed) with
its control characters shown as escapes (`\\r`, `\\u001b`).

The core's texts name the reasoning lines as a fact holds them (`**Why:**`, the spec's
literal string, as the CLI prints it); on screen that is markdown, not text: a toast says
`Why:` (`unmarked`), a report or a row shows it bold (`marked`)."""

from __future__ import annotations

from rich.text import Text

from foundry_tui.core.memory.model.facts import HOW_MARKER, WHY_MARKER, escape_controls

REASON_MARKERS = (WHY_MARKER, HOW_MARKER)


def shown(value: object) -> str:
    """A user string for one line of a `Text` (an argument of `Text.assemble`/`append`)."""
    return escape_controls(str(value))


def shown_lines(value: object) -> str:
    """A user string of several lines (a body, a report): line feeds and tabs stay."""
    return escape_controls(str(value), keep_lines=True)


def plain(value: object, style: str = "") -> Text:
    """A user string as literal one-line text."""
    return Text(shown(value), style=style)


def plain_lines(value: object, style: str = "") -> Text:
    """A user string of several lines as literal text."""
    return Text(shown_lines(value), style=style)


def counted(count: int, word: str, plural: str | None = None) -> str:
    """`1 hit`, `2 hits` (`plural` when adding an s will not do)."""
    return f"{count} {word if count == 1 else plural or word + 's'}"


def unmarked(value: str) -> str:
    """`**Why:**` and `**How to apply:**` as the words they mark (for a one-style text: a toast)."""
    for marker in REASON_MARKERS:
        value = value.replace(marker, marker.strip("*"))
    return value


def marked(value: object, style: str = "", lines: bool = False) -> Text:
    """A user string as literal text, `**Why:**` and `**How to apply:**` shown bold, unstarred."""
    text = Text(style=style)
    rest = shown_lines(value) if lines else shown(value)
    while rest:
        found = [(rest.find(m), m) for m in REASON_MARKERS if m in rest]
        if not found:
            text.append(rest)
            break
        at, marker = min(found)
        text.append(rest[:at])
        text.append(marker.strip("*"), style="bold")
        rest = rest[at + len(marker) :]
    return text


MAX_MARKED_TERMS = 32  # as many as a search has terms (core/memory/search/spec.py MAX_QUERY_TERMS)


def highlight_terms(text: Text, terms: list[str] | tuple[str, ...], style: str) -> Text:
    """`text` with every occurrence of each term styled, case-insensitively, as the search
    matches them (a term matches where a field contains it); the first MAX_MARKED_TERMS."""
    words = [t for t in dict.fromkeys(terms) if t][:MAX_MARKED_TERMS]
    if words:
        text.highlight_words(words, style=style, case_sensitive=False)
    return text
