"""Fact files: parsing, writing, normalisation, fingerprint and validation."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.facts import (
    CONFIDENCES,
    TYPES,
    Fact,
    FactFileError,
    bold_reasoning_lines,
    check_body,
    check_date,
    check_title,
    fingerprint,
    normalise,
    parse_fact_text,
    render_fact_text,
)

SPEC_FACT = """---
id: fact-0004
type: decision
scope: project
title: PostgreSQL 16 is the only supported database
tags: [database, postgres, migrations]
confidence: high
source: adr-0004
created: 2026-08-27
expires: null
supersedes: fact-0002
---

**Why:** we depend on MERGE and partition-wise joins.
**How to apply:** write migrations as plain SQL.
"""


def test_spec_example_round_trips_byte_for_byte() -> None:
    fact = parse_fact_text(SPEC_FACT, "fact-0004")
    assert fact.id == "fact-0004" and fact.type == "decision" and fact.confidence == "high"
    assert fact.tags == ("database", "postgres", "migrations")
    assert fact.created == "2026-08-27" and fact.expires is None and fact.supersedes == "fact-0002"
    assert render_fact_text(fact) == SPEC_FACT


def test_unknown_keys_are_kept_after_the_spec_fields() -> None:
    text = SPEC_FACT.replace("supersedes: fact-0002\n", "reviewed_by: ana\nsupersedes: fact-0002\nnotes: {ticket: 7}\n")
    fact = parse_fact_text(text, "fact-0004")
    assert fact.extras == {"reviewed_by": "ana", "notes": {"ticket": 7}}
    out = render_fact_text(fact)
    keys = [line.split(":")[0] for line in out.split("---")[1].strip().splitlines() if not line.startswith(" ")]
    assert keys == [
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
        "reviewed_by",
        "notes",
    ]
    assert parse_fact_text(out, "fact-0004").extras == fact.extras


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no frontmatter here", "no YAML frontmatter"),
        # The line of the mistake (the unclosed `[`, the open quote), not the one after it.
        ("---\nid: fact-0001\ntype: [unclosed\n---\nbody", "frontmatter is not valid YAML at line 3 ("),
        ('---\nid: fact-0001\ntitle: "open\ntype: x\n---\nbody', "frontmatter is not valid YAML at line 3 ("),
        ("---\nid: fact-0001\ntype: domain\ntitle: a: b\n---\nbody", "frontmatter is not valid YAML at line 4 ("),
        ("---\nid: fact-0001\ntype: decision\n---\nbody", "missing required fields title, created"),
        (
            "---\nid: fact-0001\ntype: opinion\ntitle: T\ncreated: 2026-01-01\n---\nb",
            "type 'opinion' is not one of decision",
        ),
        (
            "---\nid: fact-0001\ntype: domain\ntitle: T\ncreated: 2026-01-01\nconfidence: sure\n---\nb",
            "confidence 'sure' is not one of",
        ),
        (
            "---\nid: fact-0001\ntype: domain\ntitle: T\ncreated: 2026-13-01\n---\nb",
            "'created' is '2026-13-01', not a date",
        ),
        (
            "---\nid: fact-0001\ntype: domain\ntitle: T\ncreated: 2026-01-01\ntags: {a: 1}\n---\nb",
            "tags must be a list of strings",
        ),
        (
            "---\nid: fact-0001\ntype: domain\ntitle: T\ncreated: 2026-01-01\nsupersedes: 12\n---\nb",
            "supersedes 12 is not a fact id",
        ),
        (
            "---\nid: fact-1\ntype: domain\ntitle: T\ncreated: 2026-01-01\n---\nb",
            "id 'fact-1' is not of the form fact-NNNN",
        ),
        (
            "---\nid: fact-0002\ntype: domain\ntitle: T\ncreated: 2026-01-01\n---\nb",
            "does not match the file name fact-0001.md",
        ),
        ("---\n- a list\n---\nb", "the frontmatter is a YAML list, not fields"),
    ],
)
def test_broken_files_give_a_reason(text: str, reason: str) -> None:
    with pytest.raises(FactFileError) as info:
        parse_fact_text(text, "fact-0001")
    assert reason in str(info.value)
    assert "\n" not in str(info.value)


def test_normalise_and_fingerprint() -> None:
    assert normalise("  PostgreSQL\t16\n is  ") == "postgresql 16 is"
    assert fingerprint("A  Title", "Body\ntext") == fingerprint("a title", "  body   TEXT ")
    assert fingerprint("a", "b c") != fingerprint("a b", "c")


def test_bolding_of_reasoning_lines() -> None:
    body = "Intro.\nWhy: because.\n  how to apply: do it\n**Why:** already\nNot Why: inline"
    assert (
        bold_reasoning_lines(body)
        == "Intro.\n**Why:** because.\n  **How to apply:** do it\n**Why:** already\nNot Why: inline"
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: check_title("x" * 93),
            "title is 93 characters, 13 over the 80-character limit: state the fact more briefly",
        ),
        (lambda: check_title("   "), "title is empty: give the fact a title that states the fact itself"),
        (
            lambda: check_body(" ".join(["word"] * 134)),
            "body is 134 words, 14 over the 120-word limit: shorten it or split it into two facts",
        ),
        (lambda: check_body(""), "body is empty: state the claim, and for a decision or risk its **Why:** line"),
        (lambda: check_date("2026-02-30", "expires"), "expires '2026-02-30' is not a date: use YYYY-MM-DD"),
    ],
)
def test_refusals_say_what_to_change(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as info:
        call()
    assert str(info.value) == message


# ---- properties ---------------------------------------------------------------------------

safe_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\u2028\u2029\x85"),
    min_size=1,
    max_size=60,
)
tag = (
    st.text(alphabet=string.ascii_letters + string.digits + "-_. :#'\"", min_size=1, max_size=15)
    .map(str.strip)
    .filter(bool)
)


@st.composite
def facts(draw: st.DrawFn) -> Fact:
    title = draw(safe_text.map(lambda s: " ".join(s.split())).filter(bool))
    body = draw(
        st.text(min_size=1, max_size=300)
        .map(lambda s: s.replace("\r", "").replace("\x85", "").strip())
        .filter(
            lambda s: (
                bool(s)
                and not s.startswith("---")
                and "\n---" not in s
                and all(c.isprintable() or c == "\n" for c in s)
            )
        )
    )
    return Fact(
        id=f"fact-{draw(st.integers(1, 99999)):04d}",
        type=draw(st.sampled_from(TYPES)),
        title=title,
        body=body,
        scope=draw(st.sampled_from(["project", "module:billing", "vertical:shop"])),
        tags=tuple(dict.fromkeys(draw(st.lists(tag, max_size=5)))),
        confidence=draw(st.sampled_from(CONFIDENCES)),
        source=draw(st.sampled_from(["conversation", "code", "adr-0007", "external:https://x.test/a?b=c#d"])),
        created=draw(st.dates().map(lambda d: d.isoformat())),
        expires=draw(st.none() | st.dates().map(lambda d: d.isoformat())),
        supersedes=draw(st.none() | st.integers(1, 9999).map(lambda n: f"fact-{n:04d}")),
        extras=dict(
            draw(
                st.dictionaries(
                    st.sampled_from(["reviewed_by", "ticket", "x-note"]), st.integers() | safe_text, max_size=2
                )
            )
        ),
    )


@settings(max_examples=150, deadline=None)
@given(facts())
def test_render_then_parse_is_identity(fact: Fact) -> None:
    parsed = parse_fact_text(render_fact_text(fact), fact.id)
    assert parsed == fact


@given(st.text(max_size=80), st.text(max_size=200))
def test_fingerprint_ignores_case_and_spacing(title: str, body: str) -> None:
    assert fingerprint(title, body) == fingerprint(f"  {title.lower()}  ", body.replace(" ", "  "))
    assert normalise(normalise(body)) == normalise(body)


@given(st.text(max_size=500))
def test_parser_never_crashes_on_garbage(text: str) -> None:
    try:
        parse_fact_text(text, "fact-0001")
    except FactFileError as exc:
        assert str(exc)
