"""Hostile project contracts (issue 9, Medium 10): a catastrophic-backtracking pattern
never hangs validation, and a bad `$ref` is a one-line error, never an internal error."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from foundry_tui.core.artefacts.contracts import contract_validate
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.paths import Layout
from tests.helpers import run_cli
from tests.mcp.test_mcp_raw import RawServer, running_server

EVIL = "^(a+)+$"
SLOW_INPUT = "a" * 40 + "!"  # about 2**40 steps for a backtracking engine


def _contract(root: Path, contract_id: str, schema: dict[str, Any]) -> None:
    folder = root / ".foundry" / "contracts"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{contract_id}.json").write_text(json.dumps(schema), encoding="utf-8")


@pytest.fixture
def hostile_root(root: Path) -> Path:
    _contract(root, "evil.v1", {"type": "object", "properties": {"name": {"type": "string", "pattern": EVIL}}})
    _contract(root, "evilkeys.v1", {"type": "object", "patternProperties": {EVIL: {"type": "integer"}}})
    _contract(root, "missing.v1", {"type": "object", "properties": {"a": {"$ref": "#/$defs/nowhere"}}})
    _contract(root, "remote.v1", {"$ref": "https://example.invalid/schema.json"})
    _contract(root, "loop.v1", {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})
    _contract(root, "self.v1", {"$ref": "#"})
    _contract(root, "lookaround.v1", {"properties": {"x": {"type": "string", "pattern": "(?=a)a"}}})
    return root


def test_a_backtracking_pattern_is_validated_in_bounded_time(hostile_root: Path) -> None:
    layout = Layout(hostile_root)
    start = time.monotonic()
    valid, text = contract_validate(layout, "evil.v1", {"name": SLOW_INPUT})
    assert not valid
    assert text == f"INVALID against evil.v1:\n- property \"/name\": '{SLOW_INPUT}' does not match '{EVIL}'"
    assert contract_validate(layout, "evil.v1", {"name": "aaaa"}) == (True, "VALID against evil.v1")
    valid, text = contract_validate(layout, "evilkeys.v1", {SLOW_INPUT: "x", "aaa": 1})
    assert valid
    valid, text = contract_validate(layout, "evilkeys.v1", {"aaa": "x"})
    assert not valid and "must be of type integer" in text
    assert time.monotonic() - start < 2


@pytest.mark.parametrize(
    ("contract_id", "message"),
    [
        (
            "missing.v1",
            "contract missing.v1 cannot be used: its $ref '#/$defs/nowhere' cannot be resolved: fix the contract",
        ),
        (
            "remote.v1",
            "contract remote.v1 cannot be used: its $ref 'https://example.invalid/schema.json' cannot be resolved: "
            "fix the contract",
        ),
        ("loop.v1", "contract loop.v1 cannot be used: its $ref chain never reaches a schema: fix the contract"),
        ("self.v1", "contract self.v1 cannot be used: its $ref chain never reaches a schema: fix the contract"),
        (
            "lookaround.v1",
            "contract lookaround.v1 cannot be used: pattern '(?=a)a' is not supported (invalid perl operator: (?=): "
            "contracts match patterns in linear time, without backreferences or lookaround: rewrite it",
        ),
    ],
)
def test_a_bad_contract_is_a_one_line_error(hostile_root: Path, contract_id: str, message: str) -> None:
    with pytest.raises(FoundryError) as caught:
        contract_validate(Layout(hostile_root), contract_id, {"a": 1, "x": "a"})
    assert str(caught.value) == message
    result = run_cli("--root", str(hostile_root), "contract", "validate", contract_id, "--data", '{"a": 1, "x": "a"}')
    assert result.code == 1
    assert result.err == f"foundry: error: {message}\n"


@pytest.fixture
def server(hostile_root: Path) -> Iterator[RawServer]:
    yield from running_server(hostile_root)


def _call(srv: RawServer, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    request = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    return srv.ask(request, timeout=10)


def test_the_server_answers_a_hostile_contract_and_keeps_serving(server: RawServer) -> None:
    result = _call(
        server, "blackboard_write", {"wave": "w", "agent": "a", "schema": "evil.v1", "data": {"name": SLOW_INPUT}}
    )
    assert result["result"]["isError"] is True
    result = _call(server, "contract_validate", {"schema": "self.v1", "data": {}})
    assert result["result"] == {
        "content": [
            {
                "type": "text",
                "text": "contract_validate failed: contract self.v1 cannot be used: its $ref chain never reaches a "
                "schema: fix the contract",
            }
        ],
        "isError": True,
    }
    assert server.ask({"jsonrpc": "2.0", "id": 4, "method": "ping"})["result"] == {}


def test_cli_validation_of_the_evil_pattern_returns(hostile_root: Path) -> None:
    command = [sys.executable, "-m", "foundry_tui", "--root", str(hostile_root), "contract", "validate", "evil.v1"]
    proc = subprocess.run(
        [*command, "--data", json.dumps({"name": SLOW_INPUT})],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert proc.returncode == 1
    assert "does not match" in proc.stdout


@pytest.mark.parametrize("text", ["[" * 100_000, '{"n": ' + "9" * 5000 + "}"], ids=["deep", "digits"])
def test_hostile_json_files_are_one_line_errors(root: Path, text: str) -> None:
    layout = Layout(root)
    (root / "artifact.json").write_text(text)
    with pytest.raises(FoundryError) as caught:
        contract_validate(layout, "finding.v1", path="artifact.json")
    assert "\n" not in str(caught.value) and "'artifact.json' is not valid JSON" in str(caught.value)
    (root / ".foundry" / "contracts").mkdir(parents=True, exist_ok=True)
    (root / ".foundry" / "contracts" / "bad.v1.json").write_text(text)
    with pytest.raises(FoundryError) as caught:
        contract_validate(layout, "bad.v1", {})
    assert str(caught.value).startswith("contract .foundry/contracts/bad.v1.json cannot be used (")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("[" * 100_000, "the artifact is not valid JSON (nested too deeply)"),
        ('{"n": ' + "9" * 5000 + "}", "the artifact is not valid JSON (a number has more than 4300 digits)"),
    ],
    ids=["deep", "digits"],
)
def test_hostile_cli_data_is_a_one_line_error(root: Path, data: str, message: str) -> None:
    result = run_cli("--root", str(root), "contract", "validate", "finding.v1", "--data", data)
    assert (result.code, result.err) == (2, f"foundry: error: {message}\n")
