"""The health figures (core/artefacts/health.py, core/history/timeline.py), `foundry health`
and `foundry tokens --json`, and the demo's git history made at copy time."""

from __future__ import annotations

import datetime as _dt
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from foundry_tui.core.artefacts.health import NO_EVENTS, health_figures
from foundry_tui.core.history.timeline import memory_timeline
from foundry_tui.core.memory.project import Project
from foundry_tui.demo import make_demo_copy, remove_demo_copy
from tests.helpers import TODAY, run_cli


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def test_the_demo_copy_has_its_history_and_a_clean_working_tree(demo_repo: Path) -> None:
    log = _git(demo_repo, "log", "--format=%ad %an", "--date=short").splitlines()
    assert len(log) == 16
    assert log[-1] == "2026-02-03 Alice Moreau" and log[0] == "2026-09-20 Bob Okafor"
    assert _git(demo_repo, "status", "--porcelain") == ""  # the last commit is the copy, byte for byte


def test_every_demo_copy_has_the_same_commits(demo_repo: Path) -> None:
    other = make_demo_copy()
    try:
        assert _git(other, "rev-parse", "HEAD") == _git(demo_repo, "rev-parse", "HEAD")
    finally:
        remove_demo_copy(other)


def test_health_figures_of_the_demo(demo_repo: Path) -> None:
    figures = health_figures(Project(demo_repo), TODAY)
    assert (figures.search_total, figures.empty_total, len(figures.searches)) == (185, 59, 30)
    assert figures.searches[0].day == "2026-10-31" and figures.searches[-1].day == "2026-11-29"
    assert figures.missed[0] == ("kubernetes deploy", 29)
    totals = {o: sum(d.outcomes[o] for d in figures.writes) for o in figures.writes[0].outcomes}
    assert totals == {"created": 15, "updated": 6, "unchanged": 4, "parked": 7, "denied": 2}
    assert sum(d.gate_denials for d in figures.writes) == 5
    points = {p.date: p for p in figures.timeline.points}
    assert len(points) == 16 and figures.timeline.commits == 16
    assert points["2026-02-03"].active == {"constraint": 1}
    # fact-0004 supersedes fact-0002 on 04-22: still two decisions (0006 is one until it expires)
    assert points["2026-04-22"].active["decision"] == 2
    assert points["2026-07-15"].active["decision"] == 2  # 0006 expired on 06-30; 0011 came on 06-12
    assert points["2026-06-12"].active["decision"] == 3
    last = figures.timeline.points[-1]
    assert sum(last.active.values()) == 13  # what the memory screen counts today
    assert last.index_tokens == figures.tokens.index == 404


def test_the_timeline_reads_git_objects_never_the_working_tree(demo_repo: Path) -> None:
    before = memory_timeline(Project(demo_repo).layout).points
    for path in (demo_repo / ".foundry/memory/facts").iterdir():
        path.unlink()
    (demo_repo / ".foundry/memory/INDEX.md").write_text("# edited by hand\n")
    assert memory_timeline(Project(demo_repo).layout).points == before


def test_the_history_read_by_another_process_is_the_same_timeline(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """memory_timeline_apart (the Health screen's reading) hands back what memory_timeline
    reads, from another process: with this process's memory_timeline broken it still
    answers, from a cold cache and a warm one, for a repository, an empty one and none."""
    from foundry_tui.core.history import timeline as timeline_module
    from foundry_tui.core.history.timeline import memory_timeline_apart

    monkeypatch.setenv("FOUNDRY_CACHE_DIR", str(tmp_path / "cache"))
    empty, outside = tmp_path / "empty", tmp_path / "outside"
    for folder in (empty, outside):
        (folder / ".foundry/memory/facts").mkdir(parents=True)
    _git(empty, "init", "-q")
    roots = (demo_repo, demo_repo, empty, outside)  # the demo twice: the second from the cache the first wrote
    expected = [memory_timeline(Project(root).layout) for root in roots]
    (tmp_path / "cache").rename(tmp_path / "cache-before")

    def broken(*_args: object) -> None:
        raise AssertionError("read in this process")

    monkeypatch.setattr(timeline_module, "memory_timeline", broken)
    assert [memory_timeline_apart(Project(root).layout) for root in roots] == expected
    assert expected[0].points and expected[0].commits
    assert [expected[2].note, expected[3].note] == [
        "the repository has no commit yet",
        "the project is not in a git repository",
    ]


@pytest.mark.parametrize("child", ["/nonexistent/python", "/bin/echo"])
def test_a_history_process_that_fails_is_read_here(
    demo_repo: Path, child: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that cannot start, or answers something that is not a timeline, costs
    only time: this process reads the history itself."""
    from foundry_tui.core.history.timeline import memory_timeline_apart

    expected = memory_timeline(Project(demo_repo).layout)
    monkeypatch.setattr("sys.executable", child)
    assert memory_timeline_apart(Project(demo_repo).layout) == expected


def _child(folder: Path, output: str) -> str:
    """A stand-in for the Python that memory_timeline_apart starts: it prints `output`."""
    folder.mkdir(exist_ok=True)
    script = folder / "python"
    script.write_text(f"#!/bin/sh\ncat <<'END'\n{output}\nEND\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize(
    "output",
    ['{"points": [{"date": "d", "commit": "c", "index_tokens": 1, "active": []}], "note": "", "commits": 1}', "[]"],
)
def test_a_history_process_that_answers_no_timeline_is_read_here(
    demo_repo: Path, tmp_path: Path, output: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from foundry_tui.core.history.timeline import memory_timeline_apart

    expected = memory_timeline(Project(demo_repo).layout)
    monkeypatch.setattr("sys.executable", _child(tmp_path, output))
    assert memory_timeline_apart(Project(demo_repo).layout) == expected


def test_a_git_error_in_the_history_process_is_raised_here_as_it_is(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other process's one-line error is this one's: the history is not read twice."""
    from foundry_tui.core.history import timeline as timeline_module
    from foundry_tui.core.history.git_history import GitError
    from foundry_tui.core.history.timeline import memory_timeline_apart

    def failing(_layout: object) -> None:
        raise GitError("git log failed: fatal: bad object HEAD")

    monkeypatch.setattr(timeline_module, "memory_timeline", failing)
    assert json.loads(timeline_module._main(str(demo_repo))) == {"error": "git log failed: fatal: bad object HEAD"}
    monkeypatch.setattr("sys.executable", _child(tmp_path, '{"error": "git log failed: fatal: bad object HEAD"}'))
    monkeypatch.setattr(timeline_module, "memory_timeline", lambda _layout: pytest.fail("read twice"))
    with pytest.raises(GitError, match=r"^git log failed: fatal: bad object HEAD$"):
        memory_timeline_apart(Project(demo_repo).layout)


def test_the_history_process_imports_nothing_from_the_working_folder(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A json.py (or a foundry_tui/) in the folder the TUI was started from is not run."""
    from foundry_tui.core.history import timeline as timeline_module
    from foundry_tui.core.history.timeline import memory_timeline_apart

    expected = memory_timeline(Project(demo_repo).layout)
    here = tmp_path / "here"
    (here / "foundry_tui").mkdir(parents=True)
    (here / "json.py").write_text("raise SystemExit(7)\n")
    (here / "foundry_tui" / "__init__.py").write_text("raise SystemExit(8)\n")
    monkeypatch.chdir(here)
    monkeypatch.setattr(timeline_module, "memory_timeline", lambda _layout: pytest.fail("read in this process"))
    assert memory_timeline_apart(Project(demo_repo).layout) == expected


def test_points_are_cached_and_a_damaged_cache_is_dropped(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOUNDRY_CACHE_DIR", str(tmp_path / "cache"))
    layout = Project(demo_repo).layout
    first = memory_timeline(layout).points
    [cache] = (tmp_path / "cache").glob("timeline-*.json")
    data = json.loads(cache.read_text())
    assert set(data["points"]) == {p.commit for p in first}
    # A cached point is used as it is (git objects never change): proven by a planted value.
    planted = first[0].commit
    data["points"][planted] = [7, {"domain": 99}]
    cache.write_text(json.dumps(data))
    assert memory_timeline(layout).points[0].active == {"domain": 99}
    cache.write_text("{not json")
    assert memory_timeline(layout).points == first


def test_an_empty_project_says_what_will_appear(tmp_path: Path) -> None:
    (tmp_path / ".foundry/memory/facts").mkdir(parents=True)
    figures = health_figures(Project(tmp_path), TODAY)
    assert figures.searches == [] and figures.writes == [] and figures.timeline.points == []
    assert figures.timeline.note == "the project is not in a git repository"
    text = figures.text()
    assert f"- {NO_EVENTS}" in text
    assert "- No history of the memory in git yet (the project is not in a git repository): once the memory" in text
    _git(tmp_path, "init", "-q")
    assert memory_timeline(Project(tmp_path).layout).note == "the repository has no commit yet"


def test_stray_times_are_skipped_and_the_span_is_bounded(demo: Project) -> None:
    log = demo.layout.events_path
    with log.open("a", encoding="utf-8") as handle:
        handle.write('{"kind": "memory_search", "time": "yesterday", "query": "x", "hits": 0}\n')
        handle.write('{"kind": "memory_search", "time": 5, "query": "x", "hits": 0}\n')
        handle.write('{"kind": "memory_search", "time": "0001-01-01T00:00:00Z", "query": "old", "hits": 1}\n')
    figures = health_figures(demo, TODAY)
    assert len(figures.searches) == 366 and figures.searches[-1].day == "2026-11-29"


def test_cli_health_and_tokens_json_are_the_same_figures(demo_repo: Path) -> None:
    health = run_cli("--root", str(demo_repo), "--today", "2026-11-30", "health", "--json")
    tokens = run_cli("--root", str(demo_repo), "--today", "2026-11-30", "tokens", "--json")
    assert health.code == tokens.code == 0 and health.err == ""
    assert health.out == tokens.out
    data = json.loads(health.out)
    assert data["tokens"] == {
        "index": 404,
        "budget": 4000,
        "facts": 16,
        "fact_tokens": data["tokens"]["fact_tokens"],
        "blackboard": data["tokens"]["blackboard"],
        "eager": data["tokens"]["fact_tokens"] + data["tokens"]["blackboard"],
        "index_first": 404,
    }
    assert data["searches"]["top_missed"][0] == {"query": "kubernetes deploy", "count": 29}
    assert data["searches"]["days"][0] == {"day": "2026-10-31", "searches": 2, "empty": 1}
    assert data["writes"]["outcomes"] == ["created", "updated", "unchanged", "parked", "denied"]
    assert data["history"]["points"][0] == {
        "date": "2026-02-03",
        "commit": data["history"]["points"][0]["commit"],
        "index_tokens": 51,
        "active": {"constraint": 1},
    }
    assert data["events"]["memory_search"] == 185


def test_cli_health_text(demo_repo: Path) -> None:
    result = run_cli("--root", str(demo_repo), "--today", "2026-11-30", "health")
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0] == "# Foundry token report"
    assert "- Searches 2026-10-31 to 2026-11-29: 185, 59 found nothing (32%)" in lines
    assert "- Writes: created 15, updated 6, unchanged 4, parked 7, denied 2" in lines
    assert (
        "- History 2026-02-03 to 2026-09-20 (16 commits): INDEX.md ~51 → ~404 tokens of 4000; active facts 1 → 13"
        in lines
    )


def test_cli_tokens_without_json_is_the_report(demo_root: Path) -> None:
    result = run_cli("--root", str(demo_root), "tokens")
    assert result.code == 0 and result.out.startswith("# Foundry token report\n") and "## Over time" not in result.out


def test_cli_health_of_an_empty_project(tmp_path: Path) -> None:
    (tmp_path / ".foundry/memory/facts").mkdir(parents=True)
    result = run_cli("--root", str(tmp_path), "health", "--json")
    data = json.loads(result.out)
    assert result.code == 0
    assert data["searches"] == {"total": 0, "empty": 0, "days": [], "top_missed": []}
    assert data["history"]["points"] == [] and data["history"]["note"] == "the project is not in a git repository"


def _commit_fact(root: Path, number: int, day: str, message: str) -> None:
    text = (root / ".foundry/memory/facts/fact-0001.md").read_text()
    path = root / f".foundry/memory/facts/fact-{number:04d}.md"
    path.write_text(text.replace("id: fact-0001", f"id: fact-{number:04d}").replace("type: constraint", "type: domain"))
    _git(root, "add", "-A")
    env = {"GIT_AUTHOR_DATE": f"{day}T12:00:00Z", "GIT_COMMITTER_DATE": f"{day}T12:00:00Z"}
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message],
        cwd=root, check=True, env={**__import__("os").environ, **env},
    )  # fmt: skip


def test_new_commits_are_walked_on_from_the_cached_walk(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = Project(demo_repo).layout
    memory_timeline(layout)  # walks and caches
    _commit_fact(demo_repo, 20, "2026-09-20", "same day as the last point")
    _commit_fact(demo_repo, 21, "2026-10-02", "a new day")
    resumed = memory_timeline(layout)
    monkeypatch.setenv("FOUNDRY_NO_CACHE", "1")
    fresh = memory_timeline(layout)
    assert resumed == fresh and resumed.commits == 18
    assert [p.date for p in resumed.points[-2:]] == ["2026-09-20", "2026-10-02"]
    assert resumed.points[-1].active["domain"] == 3


def test_a_rewritten_history_is_walked_again(demo_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Project(demo_repo).layout
    memory_timeline(layout)
    _git(demo_repo, "reset", "-q", "--hard", "HEAD~3")
    _commit_fact(demo_repo, 30, "2026-10-05", "after the reset")
    rewritten = memory_timeline(layout)
    monkeypatch.setenv("FOUNDRY_NO_CACHE", "1")
    assert rewritten == memory_timeline(layout) and rewritten.commits == 14


_kinds = st.sampled_from(["memory_search", "memory_write", "write_denied", "gate_blocked", "runbook_get", "k\\ind"])
_events = st.lists(
    st.fixed_dictionaries(
        {
            "kind": _kinds,
            "time": st.dates(min_value=_dt.date(2026, 1, 1), max_value=_dt.date(2026, 3, 1)).map(
                lambda d: f"{d.isoformat()}T10:00:00.000+00:00"
            ),
        },
        optional={
            "query": st.text(max_size=20),
            "hits": st.one_of(st.integers(0, 3), st.just(0.0), st.text(max_size=2)),
            "action": st.sampled_from(["created", "updated", "unchanged", "parked", "odd", 'q"uote']),
            "error": st.booleans(),
        },
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=_events)
def test_the_fast_reading_counts_as_json_would(events: list[dict[str, object]], tmp_path: Path) -> None:
    """Lines as record_event writes them are sliced, not parsed; the same events written
    compactly (so every line goes through json) must count the same."""
    counted = []
    for separators in ((", ", ": "), (",", ":")):
        root = tmp_path / f"p{len(separators[0])}"
        (root / ".foundry/memory/facts").mkdir(parents=True, exist_ok=True)
        (root / ".foundry/metrics").mkdir(exist_ok=True)
        lines = "".join(json.dumps(e, separators=separators) + "\n" for e in events)
        (root / ".foundry/metrics/events.jsonl").write_text(lines)
        figures = health_figures(Project(root), TODAY)
        counted.append((figures.to_dict()["searches"], figures.to_dict()["writes"], figures.tokens.events))
    assert counted[0] == counted[1]


def test_the_events_are_counted_on_from_the_cached_tally(demo: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    log = demo.layout.events_path
    first = health_figures(demo, TODAY)
    line = '{"kind": "memory_search", "time": "2026-11-29T20:00:00.000+00:00", "query": "new miss", "hits": 0}\n'
    with log.open("a", encoding="utf-8") as handle:
        handle.write(line + line[:30])  # the second is still being written
    grown = health_figures(demo, TODAY)
    assert grown.search_total == first.search_total + 1
    assert ("new miss", 1) in grown.missed
    with log.open("a", encoding="utf-8") as handle:
        handle.write(line[30:])  # now whole: counted once, not twice
    assert health_figures(demo, TODAY).search_total == first.search_total + 2
    log.write_text(line)  # rewritten, not grown: counted from the start
    assert health_figures(demo, TODAY).search_total == 1
    monkeypatch.setenv("FOUNDRY_NO_CACHE", "1")
    assert health_figures(demo, TODAY).search_total == 1


def test_the_demo_events_are_what_the_script_writes() -> None:
    """scripts/demo_events.py (seeded) is the source of the bundled month of events."""
    import importlib.util

    from tests.helpers import REPO

    spec = importlib.util.spec_from_file_location("demo_events", REPO / "scripts/demo_events.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in module.events())
    assert (REPO / "foundry_tui/demo_project/foundry/metrics/events.jsonl").read_text(encoding="utf-8") == expected


_values = st.one_of(
    st.integers(-2, 12),
    st.just(0),
    st.just(0.0),
    st.booleans(),
    st.none(),
    st.text(max_size=6),
    st.lists(st.integers(), max_size=2),
)
_event = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(
            ["memory_search", "memory_write", "write_denied", "gate_blocked", "runbook_get", "k\\ind", "é"]
        ),
        "time": st.one_of(
            st.dates(min_value=_dt.date(2026, 1, 1), max_value=_dt.date(2026, 1, 9)).map(
                lambda d: f"{d.isoformat()}T10:00:00.000+00:00"
            ),
            st.text(max_size=12),
        ),
    },
    optional={
        "query": st.one_of(
            st.text(max_size=12), st.sampled_from(["Orders  API", "orders api", "a\u2028b", 'q"x\\y']), _values
        ),
        "hits": st.one_of(st.integers(0, 3), st.integers(0, 3), _values),
        "action": st.one_of(st.sampled_from(["created", "updated", "unchanged", "parked", 'q"uote']), _values),
        "error": st.booleans(),
    },
)


_text = st.one_of(
    st.text(max_size=12),
    st.text(alphabet="ab Z-é", max_size=8),
    st.sampled_from(["Orders  API", "orders api", "a\u2028b", "a\x85b", 'q"x\\y', "tab\there", "", " ", "é"]),
)
_day_time = st.dates(min_value=_dt.date(2026, 1, 1), max_value=_dt.date(2026, 1, 9)).map(
    lambda d: f"{d.isoformat()}T10:00:00.000+00:00"
)
# Events with the fields record_event writes, in its order (what most of a real log is).
_searches = st.fixed_dictionaries(
    {
        "kind": st.just("memory_search"),
        "time": _day_time,
        "query": _text,
        "hits": st.one_of(st.integers(0, 3), st.just(0), st.just(12)),
    }
)
_recorded = st.one_of(
    _searches,
    _searches,
    st.fixed_dictionaries(
        {
            "kind": st.just("memory_search"),
            "time": _day_time,
            "query": _text,
            "hits": st.one_of(st.integers(0, 3), st.just(0), st.just(12)),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("memory_write"),
            "time": _day_time,
            "action": st.one_of(st.sampled_from(["created", "updated", "unchanged", "parked"]), _text),
            "id": st.just("fact-0001"),
        }
    ),
    st.fixed_dictionaries(
        {"kind": st.just("memory_write"), "time": _day_time, "action": st.just("parked"), "proposals": st.just(["p-1"])}
    ),
    st.fixed_dictionaries({"kind": st.just("gate_blocked"), "time": _day_time, "tool": _text, "target": _text}),
    st.fixed_dictionaries({"kind": st.just("write_denied"), "time": _day_time, "operation": _text, "principal": _text}),
    st.fixed_dictionaries(
        {"kind": st.sampled_from(["runbook_get", "", "é", "k\\ind"]), "time": _day_time, "slug": _text}
    ),
)


@st.composite
def _log_lines(draw: st.DrawFn) -> str:
    """Lines as record_event writes them (fields in any order, ASCII or not), and damaged:
    cut short, a character changed, compact separators, or any text."""
    lines = []
    for event in draw(st.lists(st.one_of(_event, _recorded), max_size=30)):
        keys = list(event)
        shuffle = draw(
            st.sampled_from(["none", "none", "fields", "all"])
        )  # as written, fields after kind and time, all
        if shuffle == "fields":
            order = ["kind", "time", *draw(st.permutations(keys[2:]))]
        else:
            order = draw(st.permutations(keys)) if shuffle == "all" else keys
        line = json.dumps({k: event[k] for k in order}, ensure_ascii=draw(st.booleans()))
        damage = draw(st.sampled_from(["none"] * 4 + ["cut", "change", "field", "field", "compact", "text"]))
        marks = [m for m in ('"hits": ', '"query": "', '"action": "', '"time": "') if m in line]
        if damage == "field" and marks:  # something odd inside, or right after, a field the inline reading slices
            start = line.index(draw(st.sampled_from(marks)))
            value = start + line[start:].index(" ") + 1
            end = value + 1
            while end < len(line) and line[end] not in ',}"':
                end += 1
            at = draw(st.sampled_from([value, value + 1, end, end + 1, min(end + 2, len(line))]))
            odd = draw(st.sampled_from(['"', "\\", "\\u12", ",", "}", "x", "\t", "\x01", "7", "\u00b2", "\u0663"]))
            line = line[:at] + odd + line[at:]
        elif damage == "cut":
            line = line[: draw(st.integers(0, len(line)))]
        elif damage == "change":
            at = draw(st.integers(0, len(line) - 1))
            line = (
                line[:at] + draw(st.sampled_from(['"', "\\", ",", "}", "0", " ", "\u0663", "\u00b2"])) + line[at + 1 :]
            )
        elif damage == "compact":
            line = json.dumps(event, separators=(",", ":"))
        elif damage == "text":
            line = draw(st.text(max_size=20))
        lines.append(line)
    return "".join(line + draw(st.sampled_from(["\n", "\r\n", "\n"])) for line in lines)


def _tally_state(tally: Any) -> tuple[object, ...]:
    return (
        list(tally.kinds.items()),  # in the order each kind first appears
        {d: (s.searches, s.empty) for d, s in tally.searches.items()},
        {d: (w.outcomes, w.gate_denials) for d, w in tally.writes.items()},
        dict(tally.missed),
        tally.spelled,  # each missed query as first spelled
        tally.days,
    )


_SEARCH = '{"kind": "memory_search", "time": "2026-01-0'


@settings(max_examples=300)
@given(text=_log_lines())
@example(text=_SEARCH + '1T10:00:00.000+00:00", "query": "a", "hits": 0x}\n')  # not a plain count
@example(text=_SEARCH + '1T10:00:00.000+00:00", "query": "a", "hits": 3}')  # the last line, unended
@example(text=_SEARCH + '1T10:00:00.000+00:00", "query": "a\tb", "hits": 0}\n')  # a raw tab: json refuses it
@example(text=_SEARCH + '2T10:00:00.000+00:00", "query": "a\\qb", "hits": 0}\n')  # a bad escape
@example(text=_SEARCH + '2T10:00:00.000+00:00", "query": "\\u00e9t\u00e9", "hits": 0}\n')  # escapes, decoded
@example(text=_SEARCH + '2T10:00:00.000+00:00", "hits": 0, "query": "late"}\n')  # the query after the count
@example(text=_SEARCH + '3T10:00:00.000+00:00", "query": "a\u2028b", "hits": 0}\n')  # a line break inside
@example(text=_SEARCH + '3T10:00:00.000+00:00", "query": "x", "hits": \u0663}\n')  # a digit int() reads
@example(text=_SEARCH + '3T10:00:00.000+00:00", "query": "x", "hits": \u00b2}\n')  # a digit it does not
@example(text='{"kind": "memory_write", "time": "2026-01-04T10:00:00.000+00:00", "action": "created}\n')  # unended
@example(text='{"kind": "memory_write", "time": "2026-01-04", "id": "fact-0001"}\n')  # no action
@example(text=_SEARCH + '5T10:00:00.000+00:00", "hits": 0}\n')  # no query
def test_the_inline_reading_counts_as_the_line_by_line_reading(text: str) -> None:
    """Lines record_event wrote are read inline in the counting loop; every line read by
    `_fast`/`_slow` instead (the reading the inline one replaces) counts the same."""
    from foundry_tui.core.artefacts.health import _Tally

    inline, reference = _Tally(), _Tally()
    inline._count_lines(text.encode("utf-8", "surrogatepass"))
    reference._count_lines(text.encode("utf-8", "surrogatepass"), bulk=False)
    assert _tally_state(inline) == _tally_state(reference)


@settings(max_examples=200)
@given(text=_log_lines(), piece=st.integers(min_value=1, max_value=200))
def test_the_bulk_reading_in_pieces_counts_as_in_one(text: str, piece: int) -> None:
    """The bulk reading matches a piece of whole lines at a time (so that the lock is not
    held for the whole log); cut anywhere, down to one character a piece, it counts as
    the line-by-line reading does, in the same order."""
    from foundry_tui.core.artefacts.health import _Tally

    pieces, reference = _Tally(), _Tally()
    pieces._count_lines(text.encode("utf-8", "surrogatepass"), piece=piece)
    reference._count_lines(text.encode("utf-8", "surrogatepass"), bulk=False)
    assert _tally_state(pieces) == _tally_state(reference)


@settings(max_examples=200)
@given(
    events=st.lists(_recorded, max_size=40),
    ascii_only=st.booleans(),
    ending=st.sampled_from(["\n", "\r\n"]),
)
def test_recorded_lines_count_in_bulk_as_line_by_line(
    events: list[dict[str, object]], ascii_only: bool, ending: str
) -> None:
    """Most of a real log is lines as record_event writes them, which the bulk reading
    matches whole; with any query, action or kind text they count as read line by line."""
    from foundry_tui.core.artefacts.health import _Tally

    text = "".join(json.dumps(e, ensure_ascii=ascii_only) + ending for e in events)
    bulk, reference = _Tally(), _Tally()
    bulk._count_lines(text.encode("utf-8"))
    reference._count_lines(text.encode("utf-8"), bulk=False)
    assert _tally_state(bulk) == _tally_state(reference)


def _fake_git(folder: Path, script: str) -> str:
    """A PATH whose `git` is `script` (a shell script), and nothing else."""
    folder.mkdir()
    git = folder / "git"
    git.write_text(f"#!/bin/sh\n{script}\n")
    git.chmod(0o755)
    return str(folder)


def test_git_that_does_not_answer_is_stopped_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """run_git waits for git once (no pipe pumped in Python), still at most GIT_TIMEOUT: a git
    that hangs is killed and named in one line; its output and errors come back whole."""
    import time

    from foundry_tui.core.history import git_history
    from foundry_tui.core.history.git_history import GitError, run_git

    monkeypatch.setenv("PATH", _fake_git(tmp_path / "bin", '/bin/cat; echo "to stderr" >&2; exec /bin/sleep 30'))
    monkeypatch.setattr(git_history, "GIT_TIMEOUT", 1.0)
    start = time.monotonic()
    with pytest.raises(GitError) as raised:
        run_git(tmp_path, "log", stdin=b"x" * 300_000)
    assert str(raised.value) == "git log took over 1 seconds: try a narrower --since"
    assert time.monotonic() - start < 10

    monkeypatch.setenv("PATH", _fake_git(tmp_path / "bin2", '/bin/cat; echo "fatal: no such thing" >&2; exit 3'))
    done = run_git(tmp_path, "cat-file", stdin=b"y" * 300_000, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (3, b"y" * 300_000, b"fatal: no such thing\n")
    with pytest.raises(GitError, match=r"^git cat-file failed: fatal: no such thing$"):
        run_git(tmp_path, "cat-file", stdin=b"")

    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(GitError, match=r"^git is not installed"):
        run_git(tmp_path, "log")
