"""The MCP server driven by the official Python SDK client as a real peer."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from foundry_tui.core.events import read_events
from foundry_tui.core.paths import Layout
from foundry_tui.core.program import installed_program
from foundry_tui.core.setup.init import init_project
from foundry_tui.core.tokens import estimate_tokens
from tests.helpers import TODAY

NINE = [
    "memory_search",
    "memory_write",
    "memory_index",
    "runbook_list",
    "runbook_get",
    "contract_validate",
    "blackboard_write",
    "blackboard_read",
    "token_report",
]


# The trust subsystem's tools follow the spec's nine (ADR 0019).
PREFERENCE_TOOLS = ["get_user_preferences", "save_user_preferences", "clear_user_preferences"]


def _params(
    root: Path, command: str | None = None, args: list[str] | None = None, cwd: Path | None = None
) -> StdioServerParameters:
    env = {
        "FOUNDRY_CACHE_DIR": os.environ["FOUNDRY_CACHE_DIR"],
        "FOUNDRY_TODAY": "2026-11-30",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return StdioServerParameters(
        command=command or sys.executable,
        args=args or ["-m", "foundry_tui", "mcp", "--root", str(root)],
        env=env,
        cwd=str(cwd) if cwd else None,
    )


async def _text(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    result = await client.call_tool(name, arguments)
    return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_handshake_and_tool_list(demo_root: Path, mode: str) -> None:
    async with Client(_params(demo_root), mode=mode) as client:
        assert client.protocol_version == "2025-06-18"
        assert client.server_info is not None and client.server_info.name == "foundry"
        assert client.instructions is not None and client.instructions.startswith("Foundry memory and contracts.")
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert list(tools) == [*NINE, "memory", "memory_observe", "memory_reflect", *PREFERENCE_TOOLS]
        search = tools["memory_search"].input_schema
        assert search["required"] == ["query"]
        assert search["properties"]["limit"] == {
            "type": "integer",
            "minimum": 1,
            "maximum": 25,
            "description": "Default memoryRetrieval.maxFacts (8)",
        }
        assert search["properties"]["type"]["enum"] == [
            "decision",
            "constraint",
            "convention",
            "domain",
            "risk",
            "metric",
            "glossary",
        ]
        assert tools["memory_write"].input_schema["required"] == ["title", "body", "type"]
        assert tools["blackboard_write"].input_schema["required"] == ["wave", "agent", "schema", "data"]
        assert "instead of reading files under .foundry/memory/" in (tools["memory_search"].description or "")


async def test_every_tool(demo_root: Path) -> None:
    (demo_root / ".foundry/metrics/events.jsonl").unlink()  # count this session's calls alone
    async with Client(_params(demo_root)) as client:
        error, text = await _text(client, "memory_search", {"query": "snake_case json", "limit": 1})
        assert not error and text.startswith(
            "### fact-0007 · convention · confidence high\n**API responses use snake_case JSON keys**"
        )
        error, text = await _text(client, "memory_search", {"query": "kubernetes"})
        assert text == 'No stored fact matches "kubernetes". Memory holds 13 active facts.'

        error, text = await _text(
            client,
            "memory_write",
            {
                "title": "Feature flags live in LaunchDarkly",
                "body": "Why: one place to flip.\nHow to apply: no env toggles.",
                "type": "decision",
                "tags": ["flags"],
                "confidence": "high",
            },
        )
        index_tokens = estimate_tokens((demo_root / ".foundry/memory/INDEX.md").read_text())
        assert (error, text) == (False, f"created: fact-0017\nIndex: 14/14 facts listed, ~{index_tokens} tokens.")
        error, text = await _text(client, "memory_index", {})
        assert text == f"Rebuilt {demo_root}/.foundry/memory/INDEX.md\n14/14 facts listed, ~{index_tokens} tokens."

        error, text = await _text(client, "runbook_list", {})
        assert text == (
            "- **deploy-production** — Deploy to production\n  trigger: deploy, release to prod\n"
            "- **rotate-api-keys** — Rotate third-party API keys"
        )
        error, text = await _text(client, "runbook_get", {"slug": "rotate-api-keys"})
        assert text == (demo_root / ".foundry/runbooks/rotate-api-keys.md").read_text()
        error, text = await _text(client, "runbook_get", {"slug": "deploy-staging"})
        assert (error, text) == (
            True,
            "runbook_get failed: no runbook 'deploy-staging'; available: deploy-production, rotate-api-keys",
        )

        finding = {
            "title": "IDOR on /api/orders",
            "severity": "high",
            "summary": "Orders of other tenants are readable.",
        }
        error, text = await _text(client, "contract_validate", {"schema": "finding.v1", "data": finding})
        assert text == (
            'INVALID against finding.v1:\n- missing required property "failureScenario"\n'
            '- missing required property "producedBy"\n- missing required property "schema"'
        )
        error, text = await _text(client, "contract_validate", {"schema": "finding.v1"})
        assert (error, text) == (True, "contract_validate failed: Provide either `data` or `path`.")

        error, text = await _text(
            client,
            "blackboard_write",
            {"wave": "sdk-audit", "agent": "appsec-reviewer", "schema": "finding.v1", "data": finding},
        )
        assert (error, text) == (
            True,
            'Rejected: artifact does not satisfy finding.v1.\n- missing required property "failureScenario"\nFix and call again.',
        )
        assert not (demo_root / ".foundry/blackboard/sdk-audit").exists()
        finding["failureScenario"] = "A customer changes the id in the URL and reads another tenant's order."
        error, text = await _text(
            client,
            "blackboard_write",
            {"wave": "sdk-audit", "agent": "appsec-reviewer", "schema": "finding.v1", "data": finding},
        )
        written = (demo_root / ".foundry/blackboard/sdk-audit/appsec-reviewer.json").read_text()
        assert text == (
            f"Wrote .foundry/blackboard/sdk-audit/appsec-reviewer.json ({len(written.encode())} bytes, ~{estimate_tokens(written)} tokens).\n"
            "Return to your caller ONLY this path and a summary of at most 300 tokens."
        )
        assert json.loads(written)["producedBy"] == "appsec-reviewer" and json.loads(written)["schema"] == "finding.v1"
        error, text = await _text(client, "blackboard_read", {"wave": "sdk-audit"})
        assert text == (
            f"- **appsec-reviewer.json** · schema finding.v1 · by appsec-reviewer · ~{estimate_tokens(written)} tokens\n"
            "  Orders of other tenants are readable."
        )

        error, text = await _text(client, "token_report", {})
        assert text.startswith("# Foundry token report\n\n- Memory index: ~")
        assert (
            "- Recorded events: memory_search=2, memory_write=1, memory_index=1, runbook_list=1, runbook_get=2, "
            "contract_validate=2, blackboard_write=2, blackboard_read=1"
        ) in text
    searches = [e for e in read_events(Layout(demo_root)) if e["kind"] == "memory_search"]
    assert [(e["query"], e["hits"]) for e in searches] == [("snake_case json", 1), ("kubernetes", 0)]
    assert all(isinstance(time := e["time"], str) and time.endswith("+00:00") for e in searches)


async def test_resources(demo_root: Path) -> None:
    (demo_root / ".foundry/memory/INDEX.md").unlink()
    async with Client(_params(demo_root)) as client:
        resources = {str(r.uri): r for r in (await client.list_resources()).resources}
        assert list(resources) == [
            "foundry://memory/index",
            "foundry://contracts",
            "foundry://runbooks/deploy-production",
            "foundry://runbooks/rotate-api-keys",
        ]
        assert resources["foundry://runbooks/deploy-production"].name == "Runbook: Deploy to production"
        assert resources["foundry://runbooks/deploy-production"].description == "deploy, release to prod"
        assert {r.mime_type for r in resources.values()} == {"text/markdown"}
        index = (await client.read_resource("foundry://memory/index")).contents[0]
        assert index.text.startswith("# Memory index\n")  # type: ignore[union-attr]
        assert (demo_root / ".foundry/memory/INDEX.md").exists()  # built on demand
        contracts = (await client.read_resource("foundry://contracts")).contents[0].text  # type: ignore[union-attr]
        assert all(f"**{cid}**" in contracts for cid in ("fact.v1", "finding.v1", "review.v1", "plan.v1"))
        book = (await client.read_resource("foundry://runbooks/deploy-production")).contents[0].text  # type: ignore[union-attr]
        assert book == (demo_root / ".foundry/runbooks/deploy-production.md").read_text()
        for uri in ("foundry://nope", "foundry://runbooks/../config", "foundry://runbooks/missing"):
            with pytest.raises(MCPError) as info:
                await client.read_resource(uri)
            assert info.value.error.code == -32602 and info.value.error.message == f"Unknown resource: {uri}"


async def test_a_client_configured_from_init(tmp_path: Path) -> None:
    init_project(tmp_path, today=TODAY)
    entry = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["foundry"]
    words = installed_program().command("mcp")  # the installed program, by its absolute path
    assert entry == {"type": "stdio", "command": words[0], "args": words[1:]}
    async with Client(_params(tmp_path, entry["command"], entry["args"], cwd=tmp_path)) as client:
        error, text = await _text(
            client, "memory_write", {"title": "Made through .mcp.json", "body": "It works.", "type": "domain"}
        )
        assert not error and text.startswith("created: fact-0001")
    assert (tmp_path / ".foundry/memory/facts/fact-0001.md").exists()
