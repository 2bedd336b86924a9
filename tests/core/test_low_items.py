"""Issue 9, Low: replies carry no huge body, messages say what is really wrong, and
config.json is checked against its schema with one-line errors naming the key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from foundry_tui.core.artefacts.contracts import contract_validate
from foundry_tui.core.config import parse_config
from foundry_tui.core.errors import ConfigError, InputError
from foundry_tui.core.memory.model.facts import MAX_FACT_FILE_BYTES, FactFileError, parse_fact_text
from foundry_tui.core.memory.search.reply import MAX_SERVED_BODY_CHARS
from foundry_tui.core.paths import Layout
from tests.helpers import run_cli

HEAD = "---\nid: fact-0100\ntype: domain\ntitle: Postgres giant body\ncreated: 2026-01-01\n---\n"


def test_a_long_body_is_cut_in_search_replies_and_the_prompt_hook(demo_root: Path) -> None:
    body = "postgres " * ((MAX_FACT_FILE_BYTES - 200) // 9)  # under the file limit, far over 120 words
    (demo_root / ".foundry" / "memory" / "facts" / "fact-0100.md").write_text(HEAD + body)
    search = run_cli("--root", str(demo_root), "memory", "search", "postgres giant body", "--limit", "1")
    assert search.code == 0
    assert search.out.startswith("### fact-0100")
    cut = len(body.strip()) - MAX_SERVED_BODY_CHARS
    assert f"… [{cut} more characters not shown: this fact is far over the 120-word limit; split it]" in search.out
    assert len(search.out) < MAX_SERVED_BODY_CHARS + 500
    event = {"hook_event_name": "UserPromptSubmit", "prompt": "postgres giant body, what is it?"}
    hook = run_cli("--root", str(demo_root), "hook", "user-prompt-submit", stdin=json.dumps(event))
    context = json.loads(hook.out)["hookSpecificOutput"]["additionalContext"]
    assert "fact-0100" in context
    assert len(context) < 5 * (MAX_SERVED_BODY_CHARS + 500)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "---\nid: fact-0001\ntype: domain\n",
            "the frontmatter has no closing '---' line: end the fact's fields with a line of '---'",
        ),
        (
            "---\n---\nbody",
            "the frontmatter is empty: put the fact's fields (id, type, title, created) between the '---' lines",
        ),
        (
            "---\n\n---\n",
            "the frontmatter is empty: put the fact's fields (id, type, title, created) between the '---' lines",
        ),
        (
            "---\n- a\n- b\n---\nbody",
            "the frontmatter is a YAML list, not fields: write one 'key: value' line per field between the '---' lines",
        ),
        (
            "---\nhello\n---\nbody",
            "the frontmatter is a YAML text, not fields: write one 'key: value' line per field between the '---' lines",
        ),
        ("no dashes\n", "no YAML frontmatter: start the file with '---', the fact's fields, then '---'"),
    ],
)
def test_frontmatter_messages_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(FactFileError) as caught:
        parse_fact_text(text)
    assert str(caught.value) == message


def test_a_nul_in_a_path_is_named(root: Path) -> None:
    with pytest.raises(InputError) as caught:
        contract_validate(Layout(root), "finding.v1", path="a\x00b.json")
    assert str(caught.value) == "path 'a\\x00b.json' contains a NUL character: name a file without one"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"memoryRetrieval": {"minScore": float("nan")}},
            "memoryRetrieval.minScore must be a number of 0 or more, not NaN",
        ),
        (
            {"memoryRetrieval": {"minScore": float("inf")}},
            "memoryRetrieval.minScore must be a number of 0 or more, not Infinity",
        ),
        ({"profile": []}, "profile must be one of startup-mvp, standard, full, not []"),
        ({"profile": "huge"}, 'profile must be one of startup-mvp, standard, full, not "huge"'),
        ({"indexTokenBudget": 2.5}, "indexTokenBudget must be a positive whole number, not 2.5"),
        ({"indexTokenBudget": 0}, "indexTokenBudget must be a positive whole number, not 0"),
        (
            {"memoryRetrieval": {"maxFacts": True}},
            "memoryRetrieval.maxFacts must be a whole number from 1 to 25, not true",
        ),
        ({"memoryRetrieval": []}, "memoryRetrieval must be an object, not []"),
        (
            {"nearDuplicates": {"threshold": float("nan")}},
            "nearDuplicates.threshold must be a number above 0 and at most 1, not NaN",
        ),
        ([], "expected a JSON object at the top level, not []"),
    ],
)
def test_bad_config_values_are_one_line_errors_naming_the_key(config: Any, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(config)
    assert str(caught.value) == f"config.json: {message}"


def test_a_nan_in_config_json_fails_the_search_not_silently(demo_root: Path) -> None:
    (demo_root / ".foundry" / "config.json").write_text('{"memoryRetrieval": {"minScore": NaN}}')
    search = run_cli("--root", str(demo_root), "memory", "search", "postgres")
    assert (search.code, search.out) == (1, "")
    assert (
        search.err == "foundry: error: config.json: memoryRetrieval.minScore must be a number of 0 or more, not NaN\n"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000, "config.json: not valid JSON (nested too deeply); fix it or delete it to use the defaults"),
        (
            '{"indexTokenBudget": ' + "9" * 5000 + "}",
            "config.json: not valid JSON (a number has more than 4300 digits); fix it or delete it to use the defaults",
        ),
    ],
    ids=["deep", "digits"],
)
def test_a_hostile_config_is_a_one_line_error(demo_root: Path, text: str, message: str) -> None:
    (demo_root / ".foundry" / "config.json").write_text(text)
    search = run_cli("--root", str(demo_root), "memory", "search", "postgres")
    assert (search.code, search.err) == (1, f"foundry: error: {message}\n")


def test_a_hostile_events_line_is_skipped(demo_root: Path) -> None:
    metrics = demo_root / ".foundry" / "metrics"
    metrics.mkdir(exist_ok=True)
    with (metrics / "events.jsonl").open("a") as handle:
        handle.write("[" * 100_000 + "\n" + '{"kind": "x", "n": ' + "9" * 5000 + "}\n")
    for command in (["tokens"], ["memory", "missed"]):
        result = run_cli("--root", str(demo_root), *command)
        assert result.code == 0, result.err
