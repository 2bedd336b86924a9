"""Fields that would break the index or a terminal (issue 9, items 12 and the low ones):
control characters, tag count and length, invisible titles, NFC/NFD spellings, and
hand-written facts that carry such characters."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.facts import escape_controls, fingerprint, normalise
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.model.vocabulary import MAX_LINE_FIELD_CHARS, MAX_TAG_CHARS, MAX_TAGS
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.doctor import run_doctor
from foundry_tui.core.memory.reports.index_file import index_line
from foundry_tui.core.memory.search.reply import memory_search
from foundry_tui.core.memory.writing.write import add_tag, memory_index, memory_write
from tests.helpers import TODAY, run_cli, write


def _refusal(project: Project, **fields: object) -> str:
    req = {"title": "A title", "body": "A body.", "type": "convention", **fields}
    with pytest.raises(InputError) as info:
        memory_write(project, WriteRequest(**req), TODAY)  # type: ignore[arg-type]
    assert list(project.layout.facts_dir.iterdir()) == []  # nothing written
    message = str(info.value)
    assert "\n" not in message and "\r" not in message and "\x1b" not in message
    return message


def test_tag_with_carriage_return_is_refused(project: Project) -> None:
    assert _refusal(project, tags=["a\rb"]) == (
        "tag 'a\\rb' contains a control character (U+000D): use plain words on one line"
    )


@pytest.mark.parametrize("field", ["title", "scope", "source", "expires"])
@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x07", "\x7f", "\x85", "\x9b", "\u2028"])
def test_control_characters_are_refused_in_every_one_line_field(project: Project, field: str, char: str) -> None:
    value = {"expires": "2027-01-01"}.get(field, "plain") + char + "x"
    message = _refusal(project, **{field: value})
    assert message.startswith(f"{field} contains a control character (U+{ord(char):04X}):")


def test_newlines_in_title_keep_their_message(project: Project) -> None:
    assert _refusal(project, title="two\nlines") == (
        "title spans several lines: put the fact in one line of at most 80 characters"
    )


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x07", "\x0b", "\x0c", "\x7f", "\x85", "\x9d", "\r"])
def test_body_refuses_controls_other_than_newline_and_tab(project: Project, char: str) -> None:
    message = _refusal(project, body=f"A body{char}]0;title\x07 with an escape.")
    assert message.startswith(f"body contains a control character (U+{ord(char):04X}")


def test_body_keeps_newlines_tabs_and_windows_line_ends(project: Project) -> None:
    write(project, "Tabs and lines", "Line one\r\n\tindented line two\nthree")
    text = (project.layout.facts_dir / "fact-0001.md").read_bytes().decode("utf-8")
    assert "Line one\n\tindented line two\nthree" in text and "\r" not in text


def test_tag_count_and_length_limits_say_the_numbers(project: Project) -> None:
    assert _refusal(project, tags=[f"tag{n}" for n in range(3000)]) == (
        f"3000 tags, {3000 - MAX_TAGS} over the limit of {MAX_TAGS}: keep the words searches will use and not find elsewhere"
    )
    long_tag = "x" * 100_000
    assert _refusal(project, tags=["ok", long_tag]) == (
        f"tag 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' is 100000 characters, {100_000 - MAX_TAG_CHARS} over "
        f"the {MAX_TAG_CHARS}-character tag limit: use a short retrieval word"
    )
    # Exactly at the limits is fine.
    reply = write(project, "At the limits", tags=[f"{n:02d}" + "t" * (MAX_TAG_CHARS - 2) for n in range(MAX_TAGS)])
    assert reply.startswith("created: fact-0001")


def test_add_tag_refuses_past_the_limits(project: Project) -> None:
    write(project, "Full of tags", tags=[f"t{n}" for n in range(MAX_TAGS)])
    with pytest.raises(InputError) as info:
        add_tag(project, "fact-0001", "one-more", TODAY)
    assert str(info.value) == (
        f"fact-0001 already has {MAX_TAGS} tags, the limit: replace one through memory_write instead"
    )
    with pytest.raises(InputError) as info:
        add_tag(project, "fact-0001", "a\x1b[31mb", TODAY)
    assert str(info.value) == "tag 'a\\u001b[31mb' contains a control character (U+001B): use plain words on one line"


@pytest.mark.parametrize("title", ["\u200b", "\u200b\u200c\u200d\u2060\ufeff", " \u00ad ", "\u3164", "\u034f\ufe0f"])
def test_title_of_invisible_characters_is_refused(project: Project, title: str) -> None:
    assert _refusal(project, title=title) == (
        "title has no visible characters (only zero-width or other invisible ones): state the fact in words"
    )


def test_invisible_tag_is_refused(project: Project) -> None:
    assert _refusal(project, tags=["ok", "\u200b"]) == ("tag '\u200b' has no visible characters: use plain words")


def test_nfc_and_nfd_spellings_are_one_fact(project: Project) -> None:
    nfc = "Café orders are idempotent"
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfc != nfd and normalise(nfc) == normalise(nfd)
    assert fingerprint(nfc, "Body é.") == fingerprint(nfd, unicodedata.normalize("NFD", "Body é."))
    write(project, nfc, "Body é.")
    assert write(project, nfd, unicodedata.normalize("NFD", "Body é.")).startswith("unchanged: fact-0001")
    assert write(project, nfd, "Another body.").startswith("updated: fact-0002 (supersedes fact-0001)")


# ---- hand-written fact files carrying what memory_write refuses -----------------------------


def _hand_written(project: Project, fact_id: str, title: str, tags: str, body: str = "Body.") -> None:
    (project.layout.facts_dir / f"{fact_id}.md").write_text(
        f"---\nid: {fact_id}\ntype: constraint\ntitle: {title}\ntags: {tags}\ncreated: 2026-11-01\n---\n{body}\n",
        encoding="utf-8",
        newline="",
    )


def test_hand_written_control_characters_never_reach_the_index_raw(project: Project) -> None:
    _hand_written(project, "fact-0001", '"Evil\\e]0;pwned\\a title\\nsecond line"', '["a\\rb", "c\\0d"]')
    memory_index(project, TODAY)
    raw = project.layout.index_path.read_bytes().decode("utf-8")
    assert "\x1b" not in raw and "\x07" not in raw and "\r" not in raw and "\x00" not in raw
    assert "- **fact-0001** · constraint · Evil\\u001b]0;pwned\\u0007 title\\nsecond line `a\\rb` `c\\u0000d`" in raw
    report = run_doctor(project, TODAY)
    statuses = {c.name: c for c in report.checks}
    assert statuses["INDEX.md"].status == "ok"  # was: FAIL "INDEX.md was edited by hand"
    assert statuses["fact fields"].status == "warn"
    rewrite = "rewrite the fact through memory_write"
    assert statuses["fact fields"].problems == [  # one line per field; the first bad tag stands for the rest
        f".foundry/memory/facts/fact-0001.md: title contains a control character (U+001B), shown escaped: {rewrite}",
        f".foundry/memory/facts/fact-0001.md: tag 'a\\rb' contains a control character (U+000D), shown escaped: {rewrite}",
    ]


def test_hand_written_tag_flood_cannot_push_constraints_out(project: Project) -> None:
    _hand_written(project, "fact-0001", "A constraint that must stay listed", "[" + ", ".join(["x"] * 10) + "]")
    _hand_written(
        project,
        "fact-0002",
        "A flood of tags",
        # 3,000 tags and one 30,000-character tag: as much as a fact file under its 64 KiB cap can hold
        "[" + ", ".join(f"tag{n}" for n in range(3000)) + ", " + "y" * 30_000 + "]",
    )
    report = memory_index(project, TODAY)
    assert report.omitted == 0
    text = project.layout.index_path.read_text(encoding="utf-8")
    assert "fact-0001" in text and "fact-0002" in text
    flood = next(line for line in text.splitlines() if "fact-0002" in line)
    assert flood.count("`") == 2 * MAX_TAGS and flood.endswith(" …")
    doctor = {c.name: c for c in run_doctor(project, TODAY).checks}
    assert doctor["fact fields"].problems == [
        f".foundry/memory/facts/fact-0002.md: 3001 tags, over the limit of {MAX_TAGS}; the index lists the first "
        f"{MAX_TAGS}: rewrite the fact through memory_write",
        f".foundry/memory/facts/fact-0002.md: a tag of 30000 characters, over the {MAX_TAG_CHARS}-character limit; "
        "the index cuts it: rewrite the fact through memory_write",
    ]


def test_hand_written_escapes_never_reach_search_replies_or_the_terminal(root: Path, project: Project) -> None:
    _hand_written(project, "fact-0001", '"Escapes \\e[2J here"', "[terminal]", body="Body \x1b]52;c;cHdu\x07 end")
    text, _hits = memory_search(project, "escapes", TODAY)
    assert "\x1b" not in text and "\x07" not in text
    assert "**Escapes \\u001b[2J here**" in text and "Body \\u001b]52;c;cHdu\\u0007 end" in text
    for args in (["memory", "search", "escapes"], ["memory", "show", "fact-0001"], ["memory", "list"]):
        run = run_cli(*args, "--root", str(root), "--today", "2026-11-30")
        assert run.code == 0, run.err
        assert "\x1b" not in run.out and "\x07" not in run.out and "\\u001b" in run.out


@given(st.text())
def test_escape_controls_leaves_no_control_character(text: str) -> None:
    shown = escape_controls(text)
    assert not any(unicodedata.category(c) == "Cc" for c in shown)
    assert "\u2028" not in shown and "\u2029" not in shown
    if all(unicodedata.category(c) != "Cc" and c not in "\u2028\u2029" for c in text):
        assert shown == text


def test_index_line_of_an_ordinary_fact_is_unchanged() -> None:
    from foundry_tui.core.memory.model.facts import Fact

    fact = Fact(id="fact-0004", type="decision", title="Über-fast café builds", body="", tags=("naïve", "x y"))
    assert index_line(fact) == "- **fact-0004** · decision · Über-fast café builds `naïve` `x y`"


def test_the_mcp_schema_states_the_same_tag_limits() -> None:
    from foundry_tui.mcp.registry import tool_named

    tags = tool_named("memory_write").schema["properties"]["tags"]
    assert tags["maxItems"] == MAX_TAGS and tags["items"]["maxLength"] == MAX_TAG_CHARS
    assert f"at most {MAX_TAGS}, each at most {MAX_TAG_CHARS} characters" in tags["description"]


def test_ordinary_whitespace_around_values_is_still_trimmed(project: Project) -> None:
    reply = write(
        project,
        "Trailing newline from a shell\n",
        "Body.\r\n",
        scope=" module:x\n",
        source="code\n",
        tags=[" a \n", "b\t"],
        expires="2027-01-01\n",
    )
    assert reply.startswith("created: fact-0001")
    fact = project.store.facts["fact-0001"]
    assert (fact.title, fact.body, fact.scope, fact.source, fact.tags, fact.expires) == (
        "Trailing newline from a shell",
        "Body.",
        "module:x",
        "code",
        ("a", "b"),
        "2027-01-01",
    )


_any_text = st.text(st.characters(codec="utf-8"), max_size=60)


@given(
    title=_any_text,
    body=_any_text,
    scope=_any_text,
    source=_any_text,
    tags=st.lists(_any_text, max_size=15),
)
def test_validate_request_either_refuses_in_one_clean_line_or_yields_a_clean_fact(
    title: str, body: str, scope: str, source: str, tags: list[str]
) -> None:
    from foundry_tui.core.memory.model.facts import CONTROL_RE, field_problems
    from foundry_tui.core.memory.model.request import validate_request

    req = WriteRequest(title=title, body=body, type="domain", scope=scope, tags=tags, source=source)
    try:
        fact = validate_request(req)
    except InputError as exc:
        assert not CONTROL_RE.search(str(exc)), repr(str(exc))
        return
    assert field_problems(fact) == []
    line = index_line(fact)
    assert not CONTROL_RE.search(line)


@given(title=st.text(max_size=200), tags=st.lists(st.text(max_size=60), max_size=20))
def test_any_hand_written_fact_makes_one_clean_index_line(title: str, tags: list[str]) -> None:
    from foundry_tui.core.memory.model.facts import CONTROL_RE, Fact

    line = index_line(Fact(id="fact-0001", type="risk", title=title, body="", tags=tuple(tags)))
    assert not CONTROL_RE.search(line)
    assert len(line) <= 40 + 6 * (80 + MAX_TAGS * (MAX_TAG_CHARS + 3)) + 3


@pytest.mark.parametrize("field", ["scope", "source"])
def test_scope_and_source_have_a_length_limit(project: Project, field: str) -> None:
    assert _refusal(project, **{field: "x" * 100_000}) == (
        f"{field} is 100000 characters, {100_000 - MAX_LINE_FIELD_CHARS} over the {MAX_LINE_FIELD_CHARS}-character "
        "limit: name the module or the source briefly"
    )
    assert write(project, "At the limit", **{field: "x" * MAX_LINE_FIELD_CHARS}).startswith("created: fact-0001")


def test_doctor_warns_about_a_hand_written_huge_source(project: Project) -> None:
    (project.layout.facts_dir / "fact-0001.md").write_text(
        f"---\nid: fact-0001\ntype: domain\ntitle: Huge source\nsource: {'s' * 5000}\ncreated: 2026-11-01\n---\nB.\n"
    )
    doctor = {c.name: c for c in run_doctor(project, TODAY).checks}
    assert doctor["fact fields"].problems == [
        ".foundry/memory/facts/fact-0001.md: source of 5000 characters, over the 200-character limit: "
        "rewrite the fact through memory_write"
    ]
