"""structuredContent beside the text, for the replies a program parses: memory_search,
blackboard_read and contract_validate. The official SDK client validates every result of a
tool with an outputSchema against it (ClientSession.validate_tool_result, mcp 2.x) and raises
when it does not conform; each result is validated here with jsonschema too, so the test
does not rest on one client's habit."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
from mcp import Client
from mcp_types import CallToolResult

from foundry_tui.core.tokens import estimate_tokens
from tests.mcp.test_mcp_sdk import _params


async def _call(client: Client, schemas: dict[str, Any], name: str, arguments: dict[str, Any]) -> CallToolResult:
    result = await client.call_tool(name, arguments)  # the SDK has validated it against the schema
    if not result.is_error:
        jsonschema.validate(result.structured_content, schemas[name])
    return result


def _text(result: CallToolResult) -> str:
    return result.content[0].text  # type: ignore[union-attr]


async def _schemas(client: Client) -> dict[str, Any]:
    return {t.name: t.output_schema for t in (await client.list_tools()).tools if t.output_schema is not None}


async def test_memory_search_pages_and_their_structured_hits(demo_root: Path) -> None:
    async with Client(_params(demo_root)) as client:
        schemas = await _schemas(client)
        assert set(schemas) == {"memory_search", "blackboard_read", "contract_validate"}
        query = "database migrations api json orders payments"
        plain = await _call(client, schemas, "memory_search", {"query": query})
        everything = [h["id"] for h in plain.structured_content["hits"]]
        assert re.findall(r"^### (fact-\d+)", _text(plain), re.M) == everything and len(everything) > 3
        assert plain.structured_content["next_cursor"] is None
        seen: list[str] = []
        arguments: dict[str, Any] = {"query": query, "max_tokens": 200}
        while True:
            page = await _call(client, schemas, "memory_search", arguments)
            data = page.structured_content
            assert data is not None and data["offset"] == len(seen)
            ids = [h["id"] for h in data["hits"]]
            assert re.findall(r"^### (fact-\d+)", _text(page), re.M) == ids
            assert len(ids) == 1 or estimate_tokens(_text(page)) <= 200
            seen += ids
            if data["next_cursor"] is None:
                break
            assert _text(page).endswith(f'search again with cursor "{data["next_cursor"]}".')
            arguments = {"query": query, "cursor": data["next_cursor"]}
        assert seen == everything
        first = plain.structured_content["hits"][0]
        fact = (demo_root / f".foundry/memory/facts/{first['id']}.md").read_text()
        assert first["title"] in fact and first["body"] in fact
        assert f"**{first['title']}**" in _text(plain) and first["body"] in _text(plain)
        none = await _call(client, schemas, "memory_search", {"query": "kubernetes"})
        assert none.structured_content == {
            "query": "kubernetes",
            "ranker": "spec",
            "offset": 0,
            "hits": [],
            "next_cursor": None,
        }
        failed = await client.call_tool("memory_search", {"query": query, "cursor": "forged"})
        assert failed.is_error and failed.structured_content is None


async def test_blackboard_read_structured(demo_root: Path) -> None:
    wave = demo_root / ".foundry/blackboard/audit"
    (wave / "broken.json").write_text("{not json")
    async with Client(_params(demo_root)) as client:
        schemas = await _schemas(client)
        result = await _call(client, schemas, "blackboard_read", {"wave": "audit"})
        data = result.structured_content
        assert data is not None and data["wave"] == "audit"
        names = sorted(p.name for p in wave.iterdir() if not p.name.startswith("."))
        assert [a["file"] for a in data["artifacts"]] == names
        for entry, line in zip(data["artifacts"], _text(result).split("\n- "), strict=False):
            assert f"**{entry['file']}**" in line
        broken = next(a for a in data["artifacts"] if a["file"] == "broken.json")
        assert broken["problem"] and broken["summary"] is None and broken["schema"] is None and "data" not in broken
        good = next(a for a in data["artifacts"] if a["file"] != "broken.json")
        on_disk = json.loads((wave / good["file"]).read_text())
        assert (good["schema"], good["producedBy"], good["path"]) == (
            on_disk["schema"],
            on_disk["producedBy"],
            f".foundry/blackboard/audit/{good['file']}",
        )
        assert good["summary"] in _text(result) and f"~{good['tokens']} tokens" in _text(result)
        full = await _call(
            client, schemas, "blackboard_read", {"wave": "audit", "agent": good["file"][:-5], "full": True}
        )
        assert full.structured_content["artifacts"][0]["data"] == on_disk
        empty = await _call(client, schemas, "blackboard_read", {"wave": "no-such-wave"})
        assert empty.structured_content == {"wave": "no-such-wave", "artifacts": []}


async def test_contract_validate_structured(demo_root: Path) -> None:
    async with Client(_params(demo_root)) as client:
        schemas = await _schemas(client)
        finding = {"title": "IDOR", "severity": 5, "summary": "Orders are readable."}
        result = await _call(client, schemas, "contract_validate", {"schema": "finding.v1", "data": finding})
        data = result.structured_content
        assert data is not None and (data["schema"], data["valid"]) == ("finding.v1", False)
        lines = _text(result).splitlines()
        assert lines[0] == "INVALID against finding.v1:"
        assert [f"- {v['message']}" for v in data["violations"]] == lines[1:]
        assert {"message": 'missing required property "failureScenario"', "path": ""} in data["violations"]
        assert any(v["path"] == "/severity" for v in data["violations"]), data["violations"]
        finding |= {"severity": "high", "failureScenario": "x", "producedBy": "a", "schema": "finding.v1"}
        valid = await _call(client, schemas, "contract_validate", {"schema": "finding.v1", "data": finding})
        assert (_text(valid), valid.structured_content) == (
            "VALID against finding.v1",
            {"schema": "finding.v1", "valid": True, "violations": []},
        )
        neither = await client.call_tool("contract_validate", {"schema": "finding.v1"})
        assert neither.is_error and neither.structured_content is None
