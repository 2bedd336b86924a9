"""Runbooks, ADRs, contracts, the blackboard, the token report and the secret guard."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foundry_tui.core.artefacts.adr import list_adrs, render_adr_list
from foundry_tui.core.artefacts.adr_new import new_adr
from foundry_tui.core.artefacts.blackboard import blackboard_read, blackboard_write
from foundry_tui.core.artefacts.contracts import contract_validate
from foundry_tui.core.artefacts.runbook_new import new_runbook
from foundry_tui.core.artefacts.runbooks import EMPTY_TEXT, get_runbook, list_runbooks, render_runbook_list
from foundry_tui.core.artefacts.token_report import token_report
from foundry_tui.core.errors import FoundryError, InputError, NotFoundError
from foundry_tui.core.events import record_event
from foundry_tui.core.memory.project import Project
from foundry_tui.core.names import sanitise
from foundry_tui.core.paths import Layout
from foundry_tui.core.secrets import find_secret, refuse_secrets
from foundry_tui.core.tokens import estimate_tokens
from tests.helpers import TODAY, run_cli, write


def test_runbooks(demo: Project, root: Path) -> None:
    layout = demo.layout
    assert (
        render_runbook_list(list_runbooks(Layout(root)))
        == EMPTY_TEXT
        == ("No runbooks yet. Create one with the runbook-author skill after any task worth repeating.")
    )
    for slug in ("../config", "a/b", "..", ".hidden", "x\\y", ""):
        with pytest.raises(InputError):
            get_runbook(layout, slug)
    with pytest.raises(NotFoundError, match="no runbook 'nope'; available: deploy-production, rotate-api-keys"):
        get_runbook(layout, "nope")
    path = new_runbook(layout, "Restore a backup", trigger="restore, data loss")
    assert path.name == "restore-a-backup.md"
    assert "- **restore-a-backup** — Restore a backup\n  trigger: restore, data loss" in render_runbook_list(
        list_runbooks(layout)
    )
    with pytest.raises(InputError, match="already exists"):
        new_runbook(layout, "Restore a backup")


def test_adrs(demo: Project) -> None:
    layout = demo.layout
    assert render_adr_list(list_adrs(layout)) == (
        "0001 · Accepted · Record architecture decisions\n0002 · Accepted · Use PostgreSQL 16 as the only database"
    )
    path = new_adr(layout, "Use PostgreSQL 17", supersedes=2, today=TODAY)
    assert path.name == "0003-use-postgresql-17.md"
    text = path.read_text()
    for heading in (
        "## Status\n\nAccepted\n\nSupersedes [2. Use PostgreSQL 16 as the only database](0002-use-postgresql-16.md)",
        "## Context",
        "## Decision",
        "## Consequences",
        "Date: 2026-11-30",
    ):
        assert heading in text
    old = (layout.adr_dir / "0002-use-postgresql-16.md").read_text()
    assert "## Status\n\nSuperseded by [3. Use PostgreSQL 17](0003-use-postgresql-17.md)\n\n## Context" in old
    assert [a.status for a in list_adrs(layout)][1].startswith("Superseded by")
    with pytest.raises(NotFoundError):
        new_adr(layout, "X", supersedes=42)


FINDING = {"title": "IDOR", "severity": "high", "failureScenario": "Change the id, read another order."}


def test_contract_validate(demo: Project, tmp_path: Path) -> None:
    layout = demo.layout
    assert contract_validate(layout, "finding.v1", {**FINDING, "schema": "finding.v1", "producedBy": "me"}) == (
        True,
        "VALID against finding.v1",
    )
    valid, text = contract_validate(layout, "finding.v1", {"title": 3, "severity": "urgent"})
    assert not valid and text == (
        'INVALID against finding.v1:\n- missing required property "failureScenario"\n- missing required property "producedBy"\n'
        '- missing required property "schema"\n- property "/severity" must be one of "critical", "high", "medium", "low", "info"\n'
        '- property "/title" must be of type string, not integer'
    )
    with pytest.raises(InputError, match=r"^Provide either `data` or `path`\.$"):
        contract_validate(layout, "finding.v1")
    with pytest.raises(InputError, match=r"^Provide either `data` or `path`\.$"):
        contract_validate(layout, "finding.v1", {"a": 1}, "x.json")
    (demo.root / "artifact.json").write_text(json.dumps(FINDING))
    assert contract_validate(layout, "finding.v1", path="artifact.json")[1].startswith("INVALID against finding.v1:")
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    for bad in ("../outside.json", str(outside), "/etc/passwd"):
        with pytest.raises(InputError, match="outside the project root"):
            contract_validate(layout, "finding.v1", path=bad)
    with pytest.raises(
        NotFoundError, match=re.escape("unknown contract 'nope.v1'; available: fact.v1, finding.v1, plan.v1, review.v1")
    ):
        contract_validate(layout, "nope.v1", {})
    with pytest.raises(InputError):
        contract_validate(layout, "../../etc/passwd", {})


def test_project_contract_wins_and_fact_files_miss_two_properties(demo: Project) -> None:
    layout = demo.layout
    layout.contracts_dir.mkdir(parents=True)
    (layout.contracts_dir / "finding.v1.json").write_text(json.dumps({"type": "object", "required": ["ticket"]}))
    assert (
        contract_validate(layout, "finding.v1", FINDING)[1]
        == 'INVALID against finding.v1:\n- missing required property "ticket"'
    )
    demo.sync()
    fact = demo.store.facts["fact-0009"].to_dict()
    assert contract_validate(layout, "fact.v1", fact)[1] == (
        'INVALID against fact.v1:\n- missing required property "producedBy"\n- missing required property "schema"'
    )


def test_blackboard(demo: Project) -> None:
    layout = demo.layout
    shutil.rmtree(layout.blackboard_dir)
    outcome = blackboard_write(layout, "w/../../etc", "a/b c", "finding.v1", {**FINDING, "summary": "s" * 500})
    assert outcome.written and outcome.path == layout.blackboard_dir / "w-..-..-etc" / "a-b-c.json"
    for wave in ("..", "../../etc"):  # a dot name would be hidden: written but never listed
        with pytest.raises(InputError, match=r"starts with '\.'"):
            blackboard_write(layout, wave, "agent", "finding.v1", FINDING)
    assert sanitise("w" * 100, "wave") == "w" * 80
    listing = blackboard_read(layout, "w/../../etc")
    assert listing.splitlines()[1] == "  " + "s" * 400
    blackboard_write(layout, "plan", "planner", "plan.v1", {"goal": "Ship it", "steps": ["a"]})
    blackboard_write(layout, "plan", "other", "review.v1", {"summary": "Line one\nline two", "findings": []})
    (layout.blackboard_dir / "plan" / "bare.json").write_text('{"schema": "x", "producedBy": "y"}')
    (layout.blackboard_dir / "plan" / "broken.json").write_text("{oops")
    lines = blackboard_read(layout, "plan").splitlines()
    assert lines[0].startswith("- **bare.json** · schema x · by y · ~") and lines[1] == "  (no summary field)"
    assert lines[2].startswith("- **broken.json** · unreadable: not valid JSON")
    assert lines[4] == "  Line one line two" and lines[6] == "  Ship it"
    assert blackboard_read(layout, "plan", agent="planner").count("- **") == 1
    full = blackboard_read(layout, "plan", agent="planner", full=True)
    text = (layout.blackboard_dir / "plan/planner.json").read_text()
    assert full.endswith(f"```json\n{text.rstrip()}\n```")
    assert blackboard_read(layout, "empty") == "No artifacts in wave 'empty'."


def test_token_report(demo: Project) -> None:
    shutil.rmtree(demo.layout.blackboard_dir)  # start from the demo's facts alone
    shutil.rmtree(demo.layout.metrics_dir)
    blackboard_write(demo.layout, "audit", "rev", "finding.v1", FINDING)
    for kind in ("memory_search", "memory_search", "gate_blocked", "memory_write"):
        record_event(demo.layout, kind)
    report = token_report(demo, TODAY)
    index = estimate_tokens(demo.layout.index_path.read_text())
    facts = sum(estimate_tokens(p.read_text()) for p in demo.layout.facts_dir.glob("*.md"))
    board = estimate_tokens((demo.layout.blackboard_dir / "audit/rev.json").read_text())
    assert report == (
        "# Foundry token report\n\n"
        f"- Memory index: ~{index} tokens of a 4000 budget (always in context)\n"
        f"- Facts stored: 16, ~{facts} tokens total (retrieved on demand only)\n"
        f"- Blackboard artifacts: ~{board} tokens (never enter context wholesale)\n"
        "- Recorded events: memory_search=2, gate_blocked=1, memory_write=1\n\n"
        f"Loading all memory eagerly would cost ~{facts + board} tokens per session; the index-first path costs ~{index}."
    )
    assert run_cli("--root", str(demo.root), "tokens").out == report + "\n"


SECRETS = {
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----": "a private key block",
    "key AKIAIOSFODNN7EXAMPLQ in use": "an AWS access key id",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "an AWS secret access key",
    "token ghp_16C7e42F292c6912E7710c838347Ae178B4a ok": "a GitHub token",
    "use glpat-abcdefghij0123456789xyz": "a GitLab token",
    "xoxb-2048-1024-AbCdEfGhIjKlMnOp": "a Slack token",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q": "a Google API key",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc": "a Stripe secret key",
    "ANTHROPIC=sk-ant-api03-abcdefghijklmnopqrstuvwxyz": "an Anthropic API key",
    "postgres://app:Sup3rS3cr3t!@db.internal/shop": "a credential in a URL",
    "password = 'hunter2-Xq9#zT'": "a password assignment with a real-looking value",
    'api_key: "9f8e7d6c5b4a39281706f5e4"': "an API key assignment with a real-looking value",
    # Still caught beside the prose exemptions below: random letters, and a sentence's full stop after a value.
    "password: xKqPzWmTaB": "a password assignment with a real-looking value",
    "The deploy token = Zq8-rT2x!kP.": "a token assignment with a real-looking value",
}


@pytest.mark.parametrize(("text", "kind"), SECRETS.items())
def test_secret_guard_names_the_kind_and_never_echoes(project: Project, text: str, kind: str) -> None:
    assert find_secret(text) is not None and find_secret(text)[0] == kind  # type: ignore[index]
    with pytest.raises(InputError) as info:
        write(project, "Deploy credentials", f"Intro line.\n{text}")
    message = str(info.value)
    assert f"body, line 2 contains what looks like {kind}" in message
    secret_part = max(re.findall(r"[A-Za-z0-9/+=_!-]{8,}", text), key=len)
    assert secret_part not in message
    assert list(project.layout.facts_dir.iterdir()) == []
    with pytest.raises(InputError, match=r"data/notes(, line 1)? contains what looks like"):
        blackboard_write(project.layout, "w", "a", "finding.v1", {**FINDING, "notes": text})
    assert not project.layout.blackboard_dir.exists()


@pytest.mark.parametrize(
    "text",
    [
        "password = <your-password>",
        "api_key: ${API_KEY}",
        "token = os.environ['TOKEN']",
        "password: changeme",
        "The password policy requires 12 characters.",
        "secret = xxxxxxxxxxxx",
        "Set api_key=$STRIPE_KEY in CI",
        "We rotate the AWS keys every 90 days (see the rotate-api-keys runbook).",
        "postgres://localhost/shop",
        # Prose the guard once refused (found by test_plain_prose_is_never_a_secret):
        "Deploy token: Refreshed hourly by the gateway.",
        "Session token: rotated.",
        "API token: 2026-12-31 is when it expires.",
        "Secret: fact-0042 says where it lives.",
        "Client secret: docs/runbooks/vault.md has the steps.",
        "Token: PostgreSQL.",
    ],
)
def test_secret_guard_lets_ordinary_text_through(text: str) -> None:
    assert find_secret(text) is None


# Prose as facts are written: capitals, numbers, dates, versions, ids, punctuation, and the
# very words the guard keys on (password, token, secret, key), but no credential.
_PROSE_TEXT = (
    "the we use it is for and of to in on every after before never always only must should "
    "password passwords policy token tokens secret secrets key keys api API access auth credential "
    "Postgres PostgreSQL Redis Kubernetes GitHub AWS Vault Stripe Slack Google OpenAI JWT OAuth "
    "Deploy Rotate Refreshed Everything Administrator Production Migrations Gateway Release "
    "rotation rotated hourly weekly daily expire expires stored Stored managed Managed vault "
    "service services database migrations deploy release staging production orders checkout "
    "customers invoice retries timeout timeouts seconds minutes days characters requests"
)
_PROSE_WORDS = _PROSE_TEXT.split()
_prose_word = st.one_of(
    st.sampled_from(_PROSE_WORDS),
    st.integers(0, 100_000).map(str),
    st.tuples(st.integers(0, 20), st.integers(0, 99)).map(lambda v: f"{v[0]}.{v[1]}"),  # versions
    st.dates().map(lambda d: d.isoformat()),
    st.integers(1, 9999).map(lambda n: f"fact-{n:04d}"),
    st.sampled_from(["e.g.", "i.e.", "(see", "docs/adr/0007.md)", "5xx", "p95", "HTTP", "TLS 1.3", "UTF-8"]),
)
_punctuation = st.sampled_from(["", "", "", ",", ".", ":", ";", "!", "?", ")", " -", " =", "'s"])
_prose_token = st.tuples(_prose_word, _punctuation).map("".join)
_sentence = st.lists(_prose_token, min_size=1, max_size=14).map(
    lambda ws: " ".join(ws)[:1].upper() + " ".join(ws)[1:] + "."
)
_prose = st.lists(_sentence, min_size=1, max_size=8).map(lambda ss: " ".join(ss))


@settings(max_examples=400)
@given(_prose)
def test_plain_prose_is_never_a_secret(text: str) -> None:
    assert find_secret(text) is None
    # The title is cut at a space: a date cut in the middle ("tokens: 1987-01-") is no
    # longer prose, and the guard may take it for a value.
    title = text if len(text) <= 80 else text[:80].rsplit(" ", 1)[0]
    refuse_secrets({"title": title, "body": text, "tags": text.split()[:5]})  # raises on a refusal


def test_foundry_errors_are_one_line() -> None:
    with pytest.raises(FoundryError) as info:
        refuse_secrets({"tags": ["ok", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"]})
    assert "\n" not in str(info.value) and "tags/1" in str(info.value)
