"""The agent-side commands of the `foundry` CLI: same texts as the MCP tools, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from foundry_tui.core.events import read_events
from foundry_tui.core.paths import Layout
from tests.helpers import run_cli

FINDING = {"title": "IDOR", "severity": "high", "failureScenario": "Change the id, read another order."}


def test_runbook_commands(demo_root: Path) -> None:
    r = ["--root", str(demo_root)]
    assert run_cli(*r, "runbook", "list").out.startswith("- **deploy-production** — Deploy to production\n")
    assert run_cli(*r, "runbook", "get", "rotate-api-keys").out.startswith("---\ntitle: Rotate third-party API keys")
    bad = run_cli(*r, "runbook", "get", "../../etc/passwd")
    assert bad.code == 2 and "is not a plain name" in bad.err
    missing = run_cli(*r, "runbook", "get", "nope")
    assert (
        missing.code == 1
        and missing.err == "foundry: error: no runbook 'nope'; available: deploy-production, rotate-api-keys\n"
    )
    made = run_cli(*r, "runbook", "new", "Rotate TLS certificates", "--trigger", "certificate expiry")
    assert made.out == "Created .foundry/runbooks/rotate-tls-certificates.md\n"


def test_adr_commands(demo_root: Path) -> None:
    r = ["--root", str(demo_root), "--today", "2026-11-30"]
    assert run_cli(*r, "adr", "new", "Adopt OpenTelemetry", "--supersedes", "1").out == (
        "Created docs/adr/0003-adopt-opentelemetry.md (supersedes ADR 0001)\n"
    )
    listing = run_cli(*r, "adr", "list").out.splitlines()
    assert listing[0].startswith("0001 · Superseded by [3. Adopt OpenTelemetry](0003-adopt-opentelemetry.md)")
    assert listing[2] == "0003 · Accepted · Adopt OpenTelemetry"


def test_blackboard_and_contract_commands(demo_root: Path) -> None:
    r = ["--root", str(demo_root)]
    rejected = run_cli(
        *r,
        "blackboard",
        "write",
        "--wave",
        "cli-audit",
        "--agent",
        "rev",
        "--schema",
        "finding.v1",
        "--data",
        json.dumps({"title": "x"}),
    )
    assert rejected.code == 1 and rejected.out.startswith("Rejected: artifact does not satisfy finding.v1.\n")
    events_before = read_events(Layout(demo_root))
    wrote = run_cli(
        *r,
        "blackboard",
        "write",
        "--wave",
        "cli-audit",
        "--agent",
        "rev",
        "--schema",
        "finding.v1",
        stdin=json.dumps(FINDING),
    )
    assert wrote.code == 0 and wrote.out.startswith("Wrote .foundry/blackboard/cli-audit/rev.json (")
    assert run_cli(*r, "blackboard", "read", "cli-audit").out.startswith(
        "- **rev.json** · schema finding.v1 · by rev · ~"
    )
    assert (
        run_cli(
            *r, "blackboard", "write", "--wave", "a", "--agent", "b", "--schema", "finding.v1", "--data", "{oops"
        ).code
        == 2
    )
    (demo_root / "f.json").write_text(json.dumps({**FINDING, "schema": "finding.v1", "producedBy": "me"}))
    ok = run_cli(*r, "contract", "validate", "finding.v1", "--path", "f.json")
    assert (ok.code, ok.out) == (0, "VALID against finding.v1\n")
    bad = run_cli(*r, "contract", "validate", "finding.v1", "--data", "{}")
    assert bad.code == 1 and bad.out.startswith("INVALID against finding.v1:\n- missing required property")
    neither = run_cli(*r, "contract", "validate", "finding.v1")
    assert neither.code == 2 and neither.err == "foundry: error: Provide either `data` or `path`.\n"
    assert "- **review.v1** (shipped)" in run_cli(*r, "contract", "list").out
    # CLI use is not an agent's tool call: nothing is recorded.
    assert read_events(Layout(demo_root)) == events_before
