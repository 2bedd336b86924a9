"""Symbolic links and special files: nothing is read from or written to a path that
resolves outside the project root, and a fact file that is a device or a FIFO is
broken, never read forever (issue 9, High 3 and Medium 4). Real links, a real FIFO,
through the CLI, the hooks and the MCP server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from foundry_tui.core.errors import FoundryError
from foundry_tui.core.paths import Layout, UnsafePathError
from tests.helpers import run_cli

CANARY = "FOUNDRY_CANARY_SECRET=sk-canary-0123456789abcdef"


def _outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("outside")
    (folder / "loot.md").write_text(f"---\ntitle: loot\n---\n{CANARY}\n")
    return folder


def _hook(event: str, payload: dict[str, Any], root: Path) -> dict[str, Any] | None:
    run = run_cli(
        "hook",
        event,
        "--root",
        str(root),
        stdin=json.dumps(payload),
        env={"FOUNDRY_TODAY": "2026-11-30", "FOUNDRY_CANARY": CANARY},
    )
    assert run.code == 0, run.err
    return json.loads(run.out) if run.out.strip() else None


def _link(link: Path, target: Path | str) -> None:
    if link.is_dir() and not link.is_symlink():
        import shutil

        shutil.rmtree(link)
    elif link.exists() or link.is_symlink():
        link.unlink()
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)


# ---- the base guard ----------------------------------------------------------------------------


def test_layout_names_the_link_that_leaves_the_root(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = _outside(tmp_path_factory)
    layout = Layout(tmp_path)
    _link(layout.runbooks_dir, outside)
    with pytest.raises(UnsafePathError) as caught:
        layout.check_inside(layout.runbooks_dir / "deploy.md")
    assert str(caught.value) == (
        f"refused: .foundry/runbooks is a symbolic link to {outside}, outside the project root; "
        "replace the link with a real folder or file inside the project"
    )
    assert isinstance(caught.value, FoundryError) and isinstance(caught.value, OSError)
    # a link that stays inside the root is fine
    (tmp_path / "shared").mkdir()
    _link(layout.contracts_dir, tmp_path / "shared")
    assert layout.check_inside(layout.contracts_dir / "x.json") == tmp_path.resolve() / "shared" / "x.json"


def test_layout_reads_only_regular_files_and_caps_the_size(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(UnsafePathError, match=r"^pipe.md is not a regular file \(a FIFO\)"):
        layout.read_text(fifo)
    _link(tmp_path / "zero.md", "/dev/zero")
    with pytest.raises(UnsafePathError, match=r"outside the project root"):
        layout.read_text(tmp_path / "zero.md")
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(UnsafePathError, match=r"^big.md is larger than 1024 bytes"):
        layout.read_text(big, limit=1024)
    assert layout.read_text(big, limit=4096) == "x" * 2048


def test_a_nul_in_a_path_is_a_one_line_refusal(tmp_path: Path) -> None:
    with pytest.raises(UnsafePathError, match="contains a NUL character"):
        Layout(tmp_path).read_text(tmp_path / "a\x00b.md")


def test_a_link_loop_is_refused_not_followed(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.foundry.mkdir()
    os.symlink("loop-b", layout.foundry / "loop-a")
    os.symlink("loop-a", layout.foundry / "loop-b")
    with pytest.raises(UnsafePathError, match="symbolic link loop"):
        layout.check_inside(layout.foundry / "loop-a" / "x")


# ---- reads: the hooks, the CLI, the MCP server ---------------------------------------------------


def test_session_start_never_serves_an_index_linked_outside(demo_root: Path) -> None:
    index = demo_root / ".foundry/memory/INDEX.md"
    _link(index, "/proc/self/environ")
    out = _hook("session-start", {"hook_event_name": "SessionStart", "cwd": str(demo_root)}, demo_root)
    assert out is not None
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "FOUNDRY_CANARY" not in context and "PATH=" not in context
    assert "API responses use snake_case JSON keys" in context  # the index built from the facts instead


def test_session_start_skips_a_runbook_linked_outside(
    demo_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = _outside(tmp_path_factory)
    _link(demo_root / ".foundry/runbooks/leak.md", outside / "loot.md")
    out = _hook("session-start", {"hook_event_name": "SessionStart", "cwd": str(demo_root)}, demo_root)
    assert out is not None
    context = out["hookSpecificOutput"]["additionalContext"]
    assert CANARY not in context and "loot" not in context
    assert "deploy-production" in context


def test_fact_files_that_are_devices_fifos_or_links_out_are_broken_not_read(
    demo_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    facts = demo_root / ".foundry/memory/facts"
    _link(facts / "fact-0901.md", "/dev/zero")
    os.mkfifo(facts / "fact-0902.md")
    _link(facts / "fact-0903.md", _outside(tmp_path_factory) / "loot.md")
    run = run_cli("--root", str(demo_root), "memory", "list", "--all")  # a 60 s timeout: /dev/zero would hang it
    assert run.code == 0, run.err
    assert CANARY not in run.out
    for name in ("fact-0901.md", "fact-0902.md", "fact-0903.md"):
        assert name in run.out
    search = run_cli("--root", str(demo_root), "memory", "search", "canary loot secret")
    assert CANARY not in search.out
    out = _hook(
        "user-prompt-submit",
        {"hook_event_name": "UserPromptSubmit", "prompt": "what is the canary loot secret about?"},
        demo_root,
    )
    assert out is None or CANARY not in json.dumps(out)


def test_a_facts_folder_linked_outside_is_refused_by_name(
    demo_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = _outside(tmp_path_factory)
    _link(demo_root / ".foundry/memory/facts", outside)
    run = run_cli("--root", str(demo_root), "memory", "list")
    assert run.code == 1
    assert run.err.strip() == (
        f"foundry: error: refused: .foundry/memory/facts is a symbolic link to {outside}, outside the project root; "
        "replace the link with a real folder or file inside the project"
    )
    write = run_cli(
        "--root", str(demo_root), "memory", "write", "--title", "Links stay in", "--body", "b", "--type", "glossary"
    )
    assert write.code == 1 and "memory/facts is a symbolic link" in write.err
    assert sorted(p.name for p in outside.iterdir()) == ["loot.md"]


def test_runbook_get_refuses_a_runbook_linked_outside(
    demo_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _link(demo_root / ".foundry/runbooks/leak.md", _outside(tmp_path_factory) / "loot.md")
    run = run_cli("--root", str(demo_root), "runbook", "get", "leak")
    assert run.code != 0 and CANARY not in run.out + run.err
    assert "leak" in run.err and "outside the project root" in run.err


def test_adr_contract_and_config_links_out_are_not_read(
    demo_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = _outside(tmp_path_factory)
    (outside / "evil.v1.json").write_text(json.dumps({"type": "object", "description": CANARY}))
    (outside / "0042-leak.md").write_text(f"# 42. {CANARY}\n\nStatus: accepted\n")
    (outside / "config.json").write_text(json.dumps({"memoryRetrieval": {"maxFacts": 3}, "x": CANARY}))
    _link(demo_root / ".foundry/contracts/evil.v1.json", outside / "evil.v1.json")
    _link(demo_root / "docs/adr/0042-leak.md", outside / "0042-leak.md")
    contracts = run_cli("--root", str(demo_root), "contract", "list")
    assert CANARY not in contracts.out + contracts.err
    adrs = run_cli("--root", str(demo_root), "adr", "list")
    assert CANARY not in adrs.out + adrs.err
    _link(demo_root / ".foundry/config.json", outside / "config.json")
    search = run_cli("--root", str(demo_root), "memory", "search", "json")
    assert search.code == 1
    assert "config.json is a symbolic link to" in search.err and CANARY not in search.err


def _params(root: Path) -> StdioServerParameters:
    env = {
        "FOUNDRY_CACHE_DIR": os.environ["FOUNDRY_CACHE_DIR"],
        "FOUNDRY_TODAY": "2026-11-30",
        "FOUNDRY_CANARY": CANARY,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "foundry_tui", "mcp", "--root", str(root)], env=env
    )


async def test_mcp_never_serves_links_outside(demo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = _outside(tmp_path_factory)
    _link(demo_root / ".foundry/memory/INDEX.md", "/proc/self/environ")
    _link(demo_root / ".foundry/runbooks/leak.md", outside / "loot.md")
    async with Client(_params(demo_root)) as client:
        index = (await client.read_resource("foundry://memory/index")).contents[0].text  # type: ignore[union-attr]
        assert "FOUNDRY_CANARY" not in index and index.startswith("# Memory index")
        result = await client.call_tool("runbook_get", {"slug": "leak"})
        text = result.content[0].text  # type: ignore[union-attr]
        assert result.is_error and CANARY not in text and "outside the project root" in text
        with pytest.raises(Exception):  # noqa: B017 - the SDK's error type for a resource error
            await client.read_resource("foundry://runbooks/leak")
        listed = (await client.call_tool("runbook_list", {})).content[0].text  # type: ignore[union-attr]
        assert CANARY not in listed
        result = await client.call_tool("memory_index", {})
        assert not result.is_error, result.content
    # memory_index replaced the hostile link with the generated index (a rename never follows it)
    index_path = demo_root / ".foundry/memory/INDEX.md"
    assert not index_path.is_symlink() and index_path.read_text().startswith("# Memory index")


# ---- writes through a linked folder -------------------------------------------------------------


def test_writes_through_linked_folders_are_refused(demo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("target")
    _link(demo_root / ".foundry/runbooks", outside)
    run = run_cli("--root", str(demo_root), "runbook", "new", "Escape plan")
    assert run.code == 1
    assert run.err.strip() == (
        f"foundry: error: refused: .foundry/runbooks is a symbolic link to {outside}, outside the project root; "
        "replace the link with a real folder or file inside the project"
    )
    _link(demo_root / ".foundry/blackboard/wave-x", outside)
    data = json.dumps({"title": "t", "severity": "low", "summary": "s", "failureScenario": "f"})
    run = run_cli(
        "--root",
        str(demo_root),
        "blackboard",
        "write",
        "--wave",
        "wave-x",
        "--agent",
        "a",
        "--schema",
        "finding.v1",
        "--data",
        data,
    )
    assert run.code == 1 and "refused: .foundry/blackboard/wave-x is a symbolic link to" in run.err
    _link(demo_root / "docs/adr", outside)
    run = run_cli("--root", str(demo_root), "adr", "new", "Leave the root")
    assert run.code == 1 and "refused: docs/adr is a symbolic link to" in run.err
    assert list(outside.iterdir()) == []


def test_the_events_log_is_never_appended_through_a_link(
    demo_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("metrics")
    victim = outside / "victim.txt"
    victim.write_text("precious\n")
    gated = {"hook_event_name": "PreToolUse", "tool_name": "Read", "cwd": str(demo_root)}
    gated["tool_input"] = {"file_path": str(demo_root / ".foundry/memory/facts/fact-0001.md")}  # type: ignore[assignment]
    _link(demo_root / ".foundry/metrics/events.jsonl", victim)
    out = _hook("pre-tool-use", gated, demo_root)  # a denial is logged to events.jsonl
    assert out is not None and out["hookSpecificOutput"]["permissionDecision"] == "deny"
    _link(demo_root / ".foundry/metrics", outside)
    out = _hook("pre-tool-use", gated, demo_root)
    assert out is not None and out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert victim.read_text() == "precious\n" and sorted(p.name for p in outside.iterdir()) == ["victim.txt"]


# ---- doctor --------------------------------------------------------------------------------------


def test_doctor_reports_links_that_leave_the_root(demo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = _outside(tmp_path_factory)
    _link(demo_root / ".foundry/runbooks/leak.md", outside / "loot.md")
    _link(demo_root / ".foundry/metrics", outside)
    (demo_root / "shared").mkdir()
    _link(demo_root / ".foundry/contracts/shared", demo_root / "shared")  # stays inside: fine
    run = run_cli("--root", str(demo_root), "doctor")
    assert run.code == 1
    lines = run.out.splitlines()
    start = lines.index("FAIL  links: 2 links under .foundry/ lead out of the project root")
    assert lines[start + 1 : start + 3] == [
        f"        - .foundry/metrics -> {outside}: replace the link with a real folder or file inside the project",
        f"        - .foundry/runbooks/leak.md -> {outside / 'loot.md'}: "
        "replace the link with a real folder or file inside the project",
    ]


def test_doctor_names_a_facts_folder_linked_outside_instead_of_failing(
    demo_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = _outside(tmp_path_factory)
    _link(demo_root / ".foundry/memory/facts", outside)
    run = run_cli("--root", str(demo_root), "doctor")
    assert run.code == 1 and run.err == ""
    assert f"        - .foundry/memory/facts -> {outside}: replace the link" in run.out
    assert CANARY not in run.out


def test_doctor_reports_temp_files_a_killed_writer_left(demo_root: Path) -> None:
    (demo_root / ".foundry/memory/.INDEX.md.4242.0.tmp").write_text("half")
    (demo_root / ".foundry/runbooks/.deploy.md.77.1.tmp").write_text("half")
    run = run_cli("--root", str(demo_root), "doctor")
    assert "warn  leftover temp files: 2 files left by an interrupted write" in run.out
    assert (
        "        - .foundry/memory/.INDEX.md.4242.0.tmp: delete it (the write it belonged to did not finish)" in run.out
    )
    assert "        - .foundry/runbooks/.deploy.md.77.1.tmp: delete it" in run.out
