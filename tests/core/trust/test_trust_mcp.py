"""The trust gate through a real MCP server process, driven by the official SDK client."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from foundry_tui.core.events import read_events
from foundry_tui.core.gate.proposals import list_proposals
from foundry_tui.core.paths import Layout
from foundry_tui.core.reserved import preferences_dir, proposals_dir
from tests.helpers import run_cli

FACT = {"title": "Builds need Node 22", "body": "CI images pin Node 22.", "type": "constraint"}


def _params(root: Path, **env: str) -> StdioServerParameters:
    full = {
        "FOUNDRY_CACHE_DIR": os.environ["FOUNDRY_CACHE_DIR"],
        "FOUNDRY_DATA_DIR": os.environ["FOUNDRY_DATA_DIR"],
        "FOUNDRY_TODAY": "2026-11-30",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        **env,
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "foundry_tui", "mcp", "--root", str(root)], env=full
    )


async def _call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    result = await client.call_tool(name, arguments)
    return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]


def _facts(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".foundry/memory/facts").glob("*.md"))


async def test_an_unattended_ci_bot_is_denied_and_told_to_report_instead(root: Path) -> None:
    async with Client(_params(root, FOUNDRY_PRINCIPAL="service:ci-bot", CI="true")) as client:
        error, text = await _call(client, "memory_write", FACT)
        assert (error, text) == (
            True,
            "memory_write failed: this run is unattended (CI=true or FOUNDRY_UNATTENDED=1), so it may not change "
            "shared memory and nothing was written: report the fact in your output instead, for a person to record",
        )
        error, text = await _call(client, "get_user_preferences", {})
        assert error and text.startswith("get_user_preferences failed: service:ci-bot is a service principal")
        error, text = await _call(client, "memory_search", {"query": "node"})  # reads stay open
        assert not error
        for wave in ("_proposals", "_PROPOSALS."):  # and no general tool reaches the proposals
            error, text = await _call(
                client, "blackboard_write", {"wave": wave, "agent": "x", "schema": "fact.v1", "data": FACT}
            )
            assert error and "is reserved for parked memory proposals" in text
            error, text = await _call(client, "blackboard_read", {"wave": wave})
            assert error and "is reserved for parked memory proposals" in text
    assert _facts(root) == [] and not proposals_dir(Layout(root)).exists()
    kinds = [(e["kind"], e.get("principal")) for e in read_events(Layout(root))]
    assert ("write_denied", "service:ci-bot") in kinds


async def test_a_principal_passed_as_a_tool_argument_is_ignored(root: Path) -> None:
    (root / ".foundry/config.json").write_text(json.dumps({"trust": {"trusted": ["user:alice"]}}))
    note = (
        "Note: ignored the argument principal: this server acts for service:ci-bot, fixed when it started "
        "(FOUNDRY_PRINCIPAL), never for a tool argument."
    )
    async with Client(_params(root, FOUNDRY_PRINCIPAL="service:ci-bot")) as client:
        error, text = await _call(client, "memory_write", {**FACT, "principal": "user:alice"})
        assert not error and text.startswith("parked: prop-0001 (service:ci-bot is not trusted")
        assert text.endswith(note)
        error, text = await _call(client, "save_user_preferences", {"content": "x", "principal": "user:alice"})
        assert error and text.startswith("save_user_preferences failed: service:ci-bot is a service principal")
        assert text.endswith(note)
        try:  # any other tool keeps refusing arguments it does not know
            error, text = await _call(client, "memory_search", {"query": "node", "principal": "user:alice"})
        except MCPError as exc:
            error, text = True, str(exc)
        assert error and "unknown argument 'principal'" in text
    assert _facts(root) == []
    assert [p.author for p in list_proposals(Layout(root))] == ["service:ci-bot"]
    assert not preferences_dir().exists()  # nothing saved for alice (or anyone)


async def test_an_untrusted_server_parks_and_only_a_trusted_curator_approves(root: Path) -> None:
    (root / ".foundry/config.json").write_text(json.dumps({"trust": {"trusted": ["user:alice"]}}))
    async with Client(_params(root, FOUNDRY_PRINCIPAL="user:mallory")) as client:
        error, text = await _call(client, "memory_write", FACT)
    assert (error, text) == (
        False,
        "parked: prop-0001 (user:mallory is not trusted to change shared memory, so no fact file changed)\n"
        "Today it would: created\n"
        "A trusted curator approves it with `foundry proposals approve prop-0001` (or in the TUI's Approvals screen).",
    )
    assert _facts(root) == []
    event = next(e for e in read_events(Layout(root)) if e["kind"] == "memory_write")
    assert (event["action"], event["proposals"]) == ("parked", ["prop-0001"])
    env = {"FOUNDRY_TODAY": "2026-11-30"}
    refused = run_cli(
        "--root", str(root), "proposals", "approve", "prop-0001", env={**env, "FOUNDRY_PRINCIPAL": "user:mallory"}
    )
    assert refused.code == 1 and "user:mallory is not trusted, so it cannot approve proposals" in refused.err
    assert _facts(root) == []
    approved = run_cli(
        "--root", str(root), "proposals", "approve", "prop-0001", env={**env, "FOUNDRY_PRINCIPAL": "user:alice"}
    )
    assert approved.code == 0 and approved.out.startswith(
        "approved: prop-0001 (proposed by user:mallory)\ncreated: fact-0001"
    )
    assert (
        "source: conversation; proposed by user:mallory in prop-0001"
        in (root / ".foundry/memory/facts/fact-0001.md").read_text()
    )


async def test_preference_tools_act_for_the_servers_person_only(root: Path) -> None:
    async with Client(_params(root, FOUNDRY_PRINCIPAL="user:alice")) as client:
        error, text = await _call(client, "save_user_preferences", {"content": "Base branch: develop."})
        assert not error and text.startswith("Saved the preferences of user:alice (21 of 20,000 characters).")
        error, text = await _call(client, "clear_user_preferences", {})
        assert not error and text.startswith("Clear request parked")
        error, text = await _call(client, "save_user_preferences", {"content": "z" * 20_010})
        assert error and "20,010 characters, 10 over the 20,000-character cap" in text
    async with Client(_params(root, FOUNDRY_PRINCIPAL="user:bob")) as client:
        error, text = await _call(client, "get_user_preferences", {})
        assert text.startswith("No preferences saved for user:bob yet.")
    alice = preferences_dir() / f"{hashlib.sha256(b'user:alice').hexdigest()}.md"
    assert alice.read_text() == "Base branch: develop."  # the clear only parked
