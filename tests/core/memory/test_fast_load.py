"""The fast load paths give what the slow ones give: the YAML-free frontmatter path
(facts.simple_frontmatter) and the parse on several cores (store.parse_files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from frontmatter.default_handlers import YAMLHandler
from hypothesis import given, settings
from hypothesis import strategies as st

from foundry_tui.core.memory.model.facts import (
    FM_BOUNDARY,
    Fact,
    FactFileError,
    YamlDate,
    _yaml_handler,
    parse_fact_text,
    simple_frontmatter,
)

# Characters that matter to YAML (indicators, quotes, spaces, digits) and plain letters.
ALPHABET = "abcyYnNtTfFoOlLuUeEsS0129 -_.,:;#'\"[]{}()!?&*%@`|>=+/~\\\t"
WORDS = ["yes", "No", "null", "NULL", "~", "on", "Off", "true", "2026-05-01", "2026-13-45", "fact-0001", "1e3", "0x1f"]

NEAR_SIMPLE = "abyYnNoO01 -_.,;:#'()!?&%=+/"
scalar = st.one_of(
    st.text(alphabet=ALPHABET, max_size=14),
    st.sampled_from(WORDS),
    st.builds(lambda first, rest: first + rest, st.sampled_from("aynoNT"), st.text(alphabet=NEAR_SIMPLE, max_size=12)),
)
value = st.one_of(
    scalar,
    st.lists(scalar, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
    st.lists(scalar, max_size=4).map(lambda items: "[" + ",".join(items) + "]"),
)
key = st.one_of(
    st.sampled_from(["id", "type", "title", "tags", "created", "expires", "yes", "null", "on"]),
    st.text(alphabet="abz_09-", min_size=1, max_size=6),
)


def yaml_load(text: str) -> Any:
    try:
        return _yaml_handler().load(text)
    except Exception:
        return "error"


def same(a: Any, b: Any) -> bool:
    return (
        a == b
        and type(a) is type(b)
        and (all(same(x, y) for x, y in zip(a, b, strict=True)) if isinstance(a, list) else True)
        and (all(same(a[k], b[k]) for k in a) if isinstance(a, dict) else True)
    )


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(key, st.sampled_from([": ", ": ", ": ", ":", ":  "]), value), min_size=1, max_size=5))
def test_simple_frontmatter_equals_yaml(lines: list[tuple[str, str, str]]) -> None:
    text = "\n" + "\n".join(k + sep + v for k, sep, v in lines) + "\n"
    fast = simple_frontmatter(text)
    if fast is not None:
        assert same(fast, yaml_load(text)), text


def test_the_written_form_takes_the_fast_path() -> None:
    text = (
        "\nid: fact-0001\ntype: decision\nscope: project\ntitle: Use PostgreSQL 16 (not MySQL); see ADR-0003\n"
        "tags: [database, postgres]\nconfidence: high\nsource: conversation\ncreated: 2026-05-01\n"
        "expires: null\nsupersedes: null\n"
    )
    fast = simple_frontmatter(text)
    assert fast is not None and same(fast, yaml_load(text))
    assert isinstance(fast["created"], YamlDate)


def test_the_boundary_is_python_frontmatters() -> None:
    assert FM_BOUNDARY.pattern == YAMLHandler.FM_BOUNDARY.pattern
    assert FM_BOUNDARY.flags == YAMLHandler.FM_BOUNDARY.flags


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=ALPHABET + "\n-", max_size=120))
def test_parse_gives_the_yaml_paths_fact_or_message(front: str) -> None:
    from foundry_tui.core.memory.model import facts

    text = f"---\nid: fact-0001\ntype: domain\ntitle: T\ncreated: 2026-01-01\n{front}\n---\nBody."

    def outcome(parse: Any) -> Any:
        try:
            return parse(text, "fact-0001")
        except FactFileError as exc:
            return str(exc)

    assert outcome(parse_fact_text) == outcome(facts._parse_with_yaml)


near_simple = st.builds(
    lambda first, rest: first + rest, st.sampled_from("aynoNTx"), st.text(alphabet=NEAR_SIMPLE, max_size=12)
)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["id", "title", "tags", "expires", "merged_from", "Yes", "x"]),
            st.one_of(
                near_simple,
                st.sampled_from(WORDS),
                st.lists(st.one_of(near_simple, st.sampled_from(WORDS)), max_size=3).map(
                    lambda items: "[" + ", ".join(items) + "]"
                ),
            ),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_near_simple_frontmatter_equals_yaml(lines: list[tuple[str, str]]) -> None:
    text = "\n" + "\n".join(f"{k}: {v}" for k, v in lines) + "\n"
    fast = simple_frontmatter(text)
    if fast is not None:
        assert same(fast, yaml_load(text)), text


def test_parsing_on_several_cores_gives_what_one_process_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from foundry_tui.core.memory.storage import store

    folder = tmp_path / "facts"
    folder.mkdir()
    names = []
    for n in range(1, 41):
        name = f"fact-{n:04d}.md"
        names.append(name)
        text = (
            f"---\nid: fact-{n:04d}\ntype: domain\ntitle: Fact {n}\ntags: [a, b]\ncreated: 2026-01-01\n---\nBody {n}.\n"
        )
        if n % 7 == 0:
            text = text.replace("type: domain", "type: nonsense")  # broken, with its message
        if n % 11 == 0:
            text = text.replace(f"title: Fact {n}", f"title: 'Quoted: fact {n}'")  # the YAML path
        (folder / name).write_text(text)
    (folder / "fact-0099.md").symlink_to(folder / "fact-0001.md")
    names.append("fact-0099.md")
    one = store._parse_chunk(str(folder), names)
    monkeypatch.setattr(store, "PARALLEL_PARSE_MIN", 2)
    monkeypatch.setattr("os.cpu_count", lambda: 3)
    many = store.parse_files(str(folder), names)
    assert [repr(item) for item in many] == [repr(item) for item in one]
    assert sum(isinstance(item, store.BrokenFile) for item in many) == 6
    assert isinstance(many[10], Fact) and many[10].title == "Quoted: fact 11"


# Repository paths as a fact's `refs` holds them (issue 30): leading `.` or `_`, globs, `@<id>`,
# and the single-quoted `path::Name` the YAML writer makes.
PATHISH = "abyYnNoO019 -_./*@:,'#!?&%=+;()"
path_item = st.one_of(
    st.builds(
        lambda first, rest: first + rest,
        st.sampled_from(["", ".", "_", "a", "./", "src/", ".i"]),
        st.text(alphabet=PATHISH, max_size=12),
    ),
    st.text(alphabet=PATHISH, max_size=10).map(lambda inner: f"'{inner}'"),
    st.sampled_from([".inf", ".NaN", ".nan", "._5", ".5", "_", ".", "a::b", "'a::b'", "'a,b'", "''", "'it''s'"]),
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(path_item, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"))
def test_ref_lists_on_the_fast_path_equal_yaml(value: str) -> None:
    text = f"\nrefs: {value}\n"
    fast = simple_frontmatter(text)
    if fast is not None:
        assert same(fast, yaml_load(text)), text


def test_the_written_refs_take_the_fast_path() -> None:
    from foundry_tui.core.memory.model.facts import render_fact_text

    oid = "0123456789abcdef0123456789abcdef01234567"
    items = [
        f"payments/webhook.py@{oid}",
        f"src/store.py::Store.load@{oid}",
        f".ci/run@{oid}",
        "docs/*.md",
        "_build/x.py",
    ]
    fact = Fact(
        "fact-0001", "domain", "Retries live in the webhook", "See `payments/webhook.py`.", created="2026-05-01"
    )
    fact.extras = {"refs": items}
    text = render_fact_text(fact)
    front = text.split("---\n")[1]
    fast = simple_frontmatter(front)
    assert fast is not None and fast["refs"] == items
    assert parse_fact_text(text).extras == {"refs": items}


repeating_line = st.tuples(
    st.sampled_from(["type", "scope", "confidence", "source", "created", "expires", "supersedes"]),
    st.one_of(near_simple, st.sampled_from(WORDS), st.sampled_from(["domain", "project", "high", "2026-05-01"])),
)


@settings(max_examples=800, deadline=None)
@given(st.lists(repeating_line, min_size=1, max_size=4))
def test_a_remembered_line_decodes_as_yaml_does(lines: list[tuple[str, str]]) -> None:
    text = "\n" + "\n".join(f"{k}: {v}" for k, v in lines) + "\n"
    first, again = simple_frontmatter(text), simple_frontmatter(text)  # the second from the line memo
    assert same(first, again) if first is not None else again is None
    if again is not None:
        assert same(again, yaml_load(text)), text


def test_a_remembered_line_twice_still_goes_to_yaml() -> None:
    assert simple_frontmatter("type: domain\n") == {"type": "domain"}
    assert simple_frontmatter("type: domain\ntype: domain\n") is None  # a repeated key: YAML's rules decide


def test_the_line_and_date_memos_are_bounded() -> None:
    import datetime as dt

    from foundry_tui.core.memory.model import facts

    for n in range(facts.LINE_MEMO_MAX + 50):
        day = (dt.date(2000, 1, 1) + dt.timedelta(days=n)).isoformat()
        parsed = parse_fact_text(
            f"---\nid: fact-0001\ntype: domain\ntitle: T\ncreated: {day}\nsource: s{n}\n---\nBody.", "fact-0001"
        )
        assert (parsed.source, parsed.created) == (f"s{n}", day)
    assert len(facts._LINE_MEMO) == facts.LINE_MEMO_MAX
    assert len(facts._DATES) == facts.LINE_MEMO_MAX
    late = parse_fact_text("---\nid: fact-0002\ntype: domain\ntitle: T\ncreated: 2026-02-03\n---\nB.", "fact-0002")
    assert (late.type, late.created) == ("domain", "2026-02-03")  # past the bound: decoded, not remembered
