"""Waves a developer can read: the core (order, counts, violations placed in the JSON,
filters, diffs), the JSON locator, and `foundry blackboard waves` as a real subprocess."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from foundry_tui.core.artefacts.blackboard import blackboard_write
from foundry_tui.core.artefacts.contracts import SHIPPED_DIR
from foundry_tui.core.artefacts.json_places import line_column, pointer, value_places
from foundry_tui.core.artefacts.waves import (
    ArtifactFilter,
    WaveCache,
    artifact_diff,
    contract_text,
    diff_counts,
    find_artifact,
    inspect_waves,
    previous_of,
    rule_spans,
    wave_text,
    waves_text,
)
from foundry_tui.core.paths import Layout
from tests.helpers import run_cli

REVIEW: dict[str, Any] = {
    "summary": "One finding.",
    "verdict": "request-changes",
    "findings": [
        {
            "title": "IDOR",
            "severity": "high",
            "location": "a.py:1",
            "failureScenario": "Another tenant's order is returned.",
            "recommendation": "Scope by tenant.",
        }
    ],
}


def _put(root: Path, wave: str, agent: str, data: Any, moment: int, text: str | None = None) -> Path:
    """An artifact written straight to disk (as a hand or an older tool would), at a given time."""
    path = Layout(root).blackboard_dir / wave / f"{agent}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text is not None else json.dumps(data, indent=2) + "\n")
    os.utime(path, (moment, moment))
    return path


# ---- the JSON locator -------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


def _walk(value: Any, path: tuple[str | int, ...] = ()) -> list[tuple[tuple[str | int, ...], Any]]:
    found = [(path, value)]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _walk(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _walk(child, (*path, index))
    return found


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from([None, 0, 2, "\t"]), st.booleans())
def test_every_value_is_placed_where_it_is_written(value: Any, indent: int | str | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    places = value_places(text)
    for path, expected in _walk(value):
        place = places[pointer(path)]
        assert json.loads(text[place.value_start : place.end]) == expected
        if path and isinstance(path[-1], str):  # a member's place starts at its key
            assert json.loads(text[place.start : place.value_start].rstrip().rstrip(":")) == path[-1]


def test_pointers_escape_and_line_columns_count_characters() -> None:
    text = '{\n  "a/b": {"~x": [1, "é", 3]}\n}'
    places = value_places(text)
    assert pointer(("a/b", "~x", 2)) == "/a~1b/~0x/2"
    assert text[places["/a~1b/~0x/2"].value_start] == "3"
    assert line_column(text, places["/a~1b/~0x/1"].value_start) == (2, 21)  # the quote before é
    assert line_column(text, 0) == (1, 1)


# ---- inspection ------------------------------------------------------------------------


def test_demo_waves_are_in_the_order_they_were_written(demo_root: Path) -> None:
    waves = inspect_waves(Layout(demo_root))
    assert [w.name for w in waves] == ["plan", "audit"]  # not alphabetical: plan was written first
    audit = waves[1]
    assert (len(audit.items), audit.invalid) == (2, 1)
    assert audit.size == sum(i.artifact.path.stat().st_size for i in audit.items)
    assert audit.tokens == sum(-(-len(i.artifact.path.read_text()) // 4) for i in audit.items)
    [perf] = [i for i in audit.items if not i.valid]
    assert perf.key == "audit/perf-reviewer.json"
    assert [(v.message, v.pointer, v.line, v.column, v.rule) for v in perf.violations] == [
        ('missing required property "failureScenario"', "", 1, 1, "/required/4")  # the name in the contract's list
    ]


def test_a_violation_points_at_its_value(root: Path) -> None:
    bad = json.loads(json.dumps(REVIEW))
    bad["findings"].append({**REVIEW["findings"][0], "severity": 5})
    path = _put(root, "audit", "rev", {**bad, "schema": "review.v1", "producedBy": "rev"}, 1_800_000_000)
    [item] = inspect_waves(Layout(root))[0].items
    [violation] = item.violations
    assert violation.pointer == "/findings/1/severity"
    assert violation.rule == "/properties/findings/items/properties/severity/enum"
    text = path.read_text()
    line = text.splitlines()[violation.line - 1]
    assert line[violation.column - 1 :] == '"severity": 5,'
    assert text[violation.start : violation.end] == '"severity": 5'
    assert item.problem_lines() == [
        'property "/findings/1/severity" must be one of "critical", "high", "medium", "low", "info" '
        "at /findings/1/severity, line 14, column 7"
    ]


def test_unreadable_and_contractless_artifacts_count_as_invalid(root: Path) -> None:
    _put(root, "w", "broken", None, 1_800_000_000, text='{"summary": "cut off",\n')
    _put(root, "w", "nameless", {"summary": "no schema"}, 1_800_000_001)
    _put(root, "w", "stranger", {"schema": "nope.v9", "producedBy": "x"}, 1_800_000_002)
    [wave] = inspect_waves(Layout(root))
    assert [(i.artifact.name, i.status) for i in wave.items] == [
        ("broken.json", "unreadable"),
        ("nameless.json", "no contract"),
        ("stranger.json", "no contract"),
    ]
    assert wave.invalid == 3
    assert wave.items[0].problem_lines() == [
        "not valid JSON (line 2: Expecting property name enclosed in double quotes)"
    ]
    assert wave.items[1].problem_lines() == ['it names no contract: the artifact has no "schema" field']
    assert wave.items[2].problem_lines()[0].startswith("unknown contract 'nope.v9'; available: ")
    assert wave.items[0].agent == "broken"  # no producedBy to read: the file's name


def test_empty_waves_come_last_and_ties_by_name(root: Path) -> None:
    (Layout(root).blackboard_dir / "empty").mkdir(parents=True)
    _put(root, "b", "x", {"schema": "plan.v1"}, 1_800_000_000)
    _put(root, "a", "x", {"schema": "plan.v1"}, 1_800_000_000)
    waves = inspect_waves(Layout(root))
    assert [w.name for w in waves] == ["a", "b", "empty"]
    assert waves[2].span() == "nothing written"
    assert wave_text(waves[2]) == "Wave empty: 0 artifacts, 0 invalid, 0 bytes, ~0 tokens; nothing written"


def test_filters(demo_root: Path) -> None:
    waves = inspect_waves(Layout(demo_root))
    items = [i for w in waves for i in w.items]

    def keys(only: ArtifactFilter) -> list[str]:
        return [i.key for i in items if only.matches(i)]

    assert keys(ArtifactFilter()) == [
        "plan/planner.json",
        "audit/appsec-reviewer.json",
        "audit/perf-reviewer.json",
    ]
    assert keys(ArtifactFilter(agent="planner")) == ["plan/planner.json"]
    assert keys(ArtifactFilter(schema="review.v1")) == ["audit/appsec-reviewer.json"]
    assert keys(ArtifactFilter(validity="invalid")) == ["audit/perf-reviewer.json"]
    assert keys(ArtifactFilter(validity="valid", text="IDOR")) == ["plan/planner.json", "audit/appsec-reviewer.json"]
    assert keys(ArtifactFilter(text="  tax SERVICE ")) == ["audit/perf-reviewer.json"]
    assert keys(ArtifactFilter(agent="planner", schema="review.v1")) == []
    assert not ArtifactFilter().active and ArtifactFilter(text="x").active


def test_diff_of_the_same_agent_across_two_waves(demo_root: Path) -> None:
    layout = Layout(demo_root)
    fixed = {**REVIEW, "verdict": "approve", "summary": "Fixed."}
    assert blackboard_write(layout, "re-audit", "appsec-reviewer", "review.v1", fixed).written
    waves = inspect_waves(layout)
    assert [w.name for w in waves] == ["plan", "audit", "re-audit"]
    new = find_artifact(waves, "re-audit", "appsec-reviewer")
    old = previous_of(waves, new)
    assert old is not None and old.key == "audit/appsec-reviewer.json"
    assert previous_of(waves, old) is None
    lines = artifact_diff(old, new)
    assert lines[0].text.startswith("--- audit/appsec-reviewer.json (2026-11-30 09:31:40 UTC, valid)")
    assert lines[1].text.startswith("+++ re-audit/appsec-reviewer.json (")
    changed = [(line.kind, line.text) for line in lines if line.kind in ("added", "removed")]
    assert ("removed", '-  "verdict": "request-changes"') in changed
    assert ("added", '+  "verdict": "approve"') in changed
    assert (
        "removed",
        '-  "summary": "Two findings, one high: any signed-in customer can read another tenant\'s order '
        'by changing its id in the URL.",',
    ) in changed
    assert diff_counts(lines) == f"{sum(x.kind == 'added' for x in lines)} lines added, " + (
        f"{sum(x.kind == 'removed' for x in lines)} removed"
    )
    same = artifact_diff(old, old)
    assert [line.text for line in same[2:]] == ["No difference: the same JSON (keys in any order)."]


def test_no_waves() -> None:
    assert waves_text([]) == "No waves yet: agents write them with blackboard_write."


# ---- the CLI ---------------------------------------------------------------------------


def test_cli_waves_overview(demo_root: Path) -> None:
    result = run_cli("--root", str(demo_root), "blackboard", "waves")
    assert (result.code, result.err) == (0, "")
    assert result.out == (
        "2 waves, in the order they were first written (times in UTC):\n"
        "1. plan   1 artifact, 0 invalid, 376 bytes, ~94 tokens; written 2026-11-30 09:12:04\n"
        "2. audit  2 artifacts, 1 invalid, 1231 bytes, ~308 tokens; written 2026-11-30 09:31:40 to 09:33:02\n"
    )


def test_cli_one_wave(demo_root: Path) -> None:
    result = run_cli("--root", str(demo_root), "blackboard", "waves", "audit")
    assert result.code == 0
    assert result.out == (
        "Wave audit: 2 artifacts, 1 invalid, 1231 bytes, ~308 tokens; written 2026-11-30 09:31:40 to 09:33:02 (UTC)\n"
        "- appsec-reviewer.json · review.v1 · by appsec-reviewer · valid · 955 bytes, ~239 tokens"
        " · 2026-11-30 09:31:40\n"
        "- perf-reviewer.json · finding.v1 · by perf-reviewer · 1 violation · 276 bytes, ~69 tokens"
        " · 2026-11-30 09:33:02\n"
        '  - missing required property "failureScenario" at / (the artifact), line 1, column 1\n'
    )


def test_cli_waves_json_shape(demo_root: Path) -> None:
    result = run_cli("--root", str(demo_root), "blackboard", "waves", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert list(data) == ["waves"]
    plan, audit = data["waves"]
    assert plan == {
        "wave": "plan",
        "firstWrite": "2026-11-30T09:12:04Z",
        "lastWrite": "2026-11-30T09:12:04Z",
        "artifacts": 1,
        "invalid": 0,
        "bytes": 376,
        "tokens": 94,
        "items": [
            {
                "name": "planner.json",
                "agent": "planner",
                "schema": "plan.v1",
                "status": "valid",
                "valid": True,
                "written": "2026-11-30T09:12:04Z",
                "bytes": 376,
                "tokens": 94,
                "problem": None,
                "violations": [],
            }
        ],
    }
    assert audit["items"][1]["violations"] == [
        {
            "message": 'missing required property "failureScenario"',
            "pointer": "",
            "line": 1,
            "column": 1,
            "rule": "/required/4",
        }
    ]
    one = json.loads(run_cli("--root", str(demo_root), "blackboard", "waves", "audit", "--json").out)
    assert one == {"waves": [audit]}


def test_cli_waves_bad_input(demo_root: Path) -> None:
    r = ("--root", str(demo_root), "blackboard", "waves")
    cases = [
        ("nope", 1, "no wave 'nope' on the blackboard: the waves are plan, audit"),
        ("../plan", 2, "wave '../plan' is a path, not a name: give the name as `foundry blackboard waves` lists it"),
        ("/etc", 2, "wave '/etc' is a path, not a name: give the name as `foundry blackboard waves` lists it"),
        ("..", 2, "wave '..' is a path, not a name: give the name as `foundry blackboard waves` lists it"),
        ("", 2, "the wave name is empty: give one that `foundry blackboard waves` lists"),
        (
            "_proposals",
            2,
            "wave '_proposals' is reserved for parked memory proposals: use another wave name "
            "(proposals are read with `foundry proposals list`)",
        ),
    ]
    for wave, code, message in cases:
        result = run_cli(*r, wave)
        assert (result.code, result.out, result.err) == (code, "", f"foundry: error: {message}\n"), wave


def test_cli_waves_with_a_malformed_artifact(demo_root: Path) -> None:
    _put(demo_root, "late", "broken", None, 1_796_040_000, text="{oops\n")
    result = run_cli("--root", str(demo_root), "blackboard", "waves", "late")
    assert result.code == 0
    assert result.out == (
        "Wave late: 1 artifact, 1 invalid, 6 bytes, ~2 tokens; written 2026-11-30 12:00:00 (UTC)\n"
        "- broken.json · ? · by broken · unreadable · 6 bytes, ~2 tokens · 2026-11-30 12:00:00\n"
        "  - not valid JSON (line 1: Expecting property name enclosed in double quotes)\n"
    )
    overview = run_cli("--root", str(demo_root), "blackboard", "waves").out
    assert overview.endswith("3. late   1 artifact, 1 invalid, 6 bytes, ~2 tokens; written 2026-11-30 12:00:00\n")


def test_cli_no_waves(root: Path) -> None:
    result = run_cli("--root", str(root), "blackboard", "waves")
    assert (result.code, result.out) == (0, "No waves yet: agents write them with blackboard_write.\n")
    assert json.loads(run_cli("--root", str(root), "blackboard", "waves", "--json").out) == {"waves": []}
    missing = run_cli("--root", str(root), "blackboard", "waves", "x")
    assert missing.err == "foundry: error: no wave 'x' on the blackboard: it has no waves yet\n"


def test_a_reload_reads_only_what_changed(demo_root: Path) -> None:
    layout = Layout(demo_root)
    cache = WaveCache()
    first = {i.key: i for w in inspect_waves(layout, cache) for i in w.items}
    again = {i.key: i for w in inspect_waves(layout, cache) for i in w.items}
    assert all(again[key] is first[key] for key in first)  # not read or checked again
    perf = layout.blackboard_dir / "audit/perf-reviewer.json"
    fixed = {**json.loads(perf.read_text()), "failureScenario": "A cart of 40 lines takes 900 ms to price."}
    perf.write_text(json.dumps(fixed, indent=2))
    os.utime(perf, (1_796_040_000, 1_796_040_000))
    after = {i.key: i for w in inspect_waves(layout, cache) for i in w.items}
    assert after["audit/perf-reviewer.json"].valid and after["plan/planner.json"] is first["plan/planner.json"]
    # A project contract that changes makes every verdict stale: all are checked again.
    layout.contracts_dir.mkdir(parents=True)
    stricter = json.loads((SHIPPED_DIR / "plan.v1.json").read_text())
    stricter["required"].append("owner")
    (layout.contracts_dir / "plan.v1.json").write_text(json.dumps(stricter))
    [planner] = [i for w in inspect_waves(layout, cache) for i in w.items if i.key == "plan/planner.json"]
    assert planner.status == "1 violation" and planner.violations[0].message == 'missing required property "owner"'
    perf.unlink()
    assert "audit/perf-reviewer.json" not in {i.key for w in inspect_waves(layout, cache) for i in w.items}


def test_cli_diff(demo_root: Path) -> None:
    written = blackboard_write(
        Layout(demo_root),
        "re-audit",
        "appsec-reviewer",
        "review.v1",
        {"summary": "ok", "verdict": "approve", "findings": []},
    )
    assert written.path is not None
    os.utime(written.path, (1_796_036_400, 1_796_036_400))
    r = ("--root", str(demo_root), "blackboard", "diff")
    result = run_cli(*r, "re-audit/appsec-reviewer")
    assert (result.code, result.err) == (0, "")
    lines = result.out.splitlines()
    assert lines[:4] == [
        "--- audit/appsec-reviewer.json (2026-11-30 09:31:40 UTC, valid)",
        "+++ re-audit/appsec-reviewer.json (2026-11-30 11:00:00 UTC, valid)",
        "@@ -1,22 +1,7 @@",
        " {",
    ]
    assert lines[-6:] == [
        '-  "summary": "Two findings, one high: any signed-in customer can read another tenant\'s order by changing '
        'its id in the URL.",',
        '-  "verdict": "request-changes"',
        '+  "summary": "ok",',
        '+  "verdict": "approve"',
        " }",
        "3 lines added, 18 removed",
    ]
    both = run_cli(*r, "audit/appsec-reviewer.json", "re-audit/appsec-reviewer")
    assert both.out == result.out  # the same two, named
    cases = [
        (("plan/planner",), 1, "no wave before 'plan' holds an artifact of planner: name the other artifact too"),
        (("plan/nobody",), 1, "no artifact of agent 'nobody' in wave 'plan': its agents are planner"),
        (("plan",), 2, "'plan' does not name an artifact: write WAVE/AGENT, e.g. audit/appsec-reviewer"),
        (
            ("../x/y",),
            2,
            "wave '..' is a path, not a name: give the name as `foundry blackboard waves` lists it",
        ),
        (
            ("plan/planner", "audit/../../x"),
            2,
            "agent '../../x' is a path, not a name: give the name as `foundry blackboard waves` lists it",
        ),
    ]
    for args, code, message in cases:
        bad = run_cli(*r, *args)
        assert (bad.code, bad.out, bad.err) == (code, "", f"foundry: error: {message}\n"), args


def test_a_rule_behind_a_ref_is_placed_at_the_ref(root: Path) -> None:
    layout = Layout(root)
    layout.contracts_dir.mkdir(parents=True)
    contract = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"size": {"$ref": "#/$defs/small"}},
        "$defs": {"small": {"type": "integer", "maximum": 3}},
    }
    (layout.contracts_dir / "sized.v1.json").write_text(json.dumps(contract))
    _put(root, "w", "a", {"schema": "sized.v1", "size": 9}, 1_800_000_000)
    [item] = inspect_waves(layout)[0].items
    [violation] = item.violations
    assert (violation.pointer, violation.rule) == ("/size", "/properties/size/maximum")  # as jsonschema says
    text = contract_text(layout, "sized.v1")
    assert [text[start:end] for start, end in rule_spans(text, item)] == ['"size": {']  # where the $ref is
