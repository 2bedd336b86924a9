"""Tool failures are error results, never protocol errors (issue 9, Medium 13; spec 002:
"A tool that throws returns an error result ... <tool> failed: <message>"). The OS errors
are real: INDEX.md replaced by a folder, a file where a folder belongs, and an immutable
folder (`chattr +i`, which stops root too)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.mcp.test_mcp_raw import INIT, RawServer, running_server

WRITE = {"title": "Deploys go out on Tuesdays", "body": "Only Tuesdays.", "type": "convention"}


@pytest.fixture
def server(demo_root: Path) -> Iterator[RawServer]:
    yield from running_server(demo_root)


def _call(srv: RawServer, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    request = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    answer = srv.ask(request)
    assert "error" not in answer, answer
    result: dict[str, Any] = answer["result"]
    return result


def _error_text(result: dict[str, Any]) -> str:
    assert result["isError"] is True
    (content,) = result["content"]
    text: str = content["text"]
    assert "\n" not in text
    return text


def _index_becomes_a_folder(root: Path) -> None:
    index = root / ".foundry" / "memory" / "INDEX.md"
    index.unlink()
    index.mkdir()


PARTIAL = (
    "fact-0017 was written, but the index was not (.foundry/memory/INDEX.md: Is a directory): "
    "fix that path, then rebuild the index (memory_index)"
)


def test_a_write_whose_index_fails_says_the_fact_was_written(server: RawServer, demo_root: Path) -> None:
    _index_becomes_a_folder(demo_root)
    assert _error_text(_call(server, "memory_write", WRITE)) == f"memory_write failed: {PARTIAL}"
    assert (demo_root / ".foundry" / "memory" / "facts" / "fact-0017.md").is_file()
    index = _error_text(_call(server, "memory_index", {}))
    assert index == "memory_index failed: .foundry/memory/INDEX.md: Is a directory: fix that path and retry"
    assert server.ask({"jsonrpc": "2.0", "id": 9, "method": "ping"})["result"] == {}


def test_the_cli_prints_the_same_line(demo_root: Path) -> None:
    _index_becomes_a_folder(demo_root)
    result = run_cli(
        "--root",
        str(demo_root),
        "memory",
        "write",
        "--title",
        WRITE["title"],
        "--body",
        "Only.",
        "--type",
        "convention",
    )
    assert (result.code, result.out, result.err) == (1, "", f"foundry: error: {PARTIAL}\n")
    result = run_cli("--root", str(demo_root), "memory", "index")
    assert result.err == "foundry: error: .foundry/memory/INDEX.md: Is a directory: fix that path and retry\n"


def test_a_file_where_the_facts_folder_belongs(server: RawServer, demo_root: Path) -> None:
    facts = demo_root / ".foundry" / "memory" / "facts"
    shutil.rmtree(facts)
    facts.write_text("not a folder\n")
    text = _error_text(_call(server, "memory_search", {"query": "postgres"}))
    assert text == "memory_search failed: .foundry/memory/facts: Not a directory: fix that path and retry"
    result = run_cli("--root", str(demo_root), "memory", "search", "postgres")
    assert result.err == "foundry: error: .foundry/memory/facts: Not a directory: fix that path and retry\n"


@pytest.fixture
def immutable_facts(demo_root: Path) -> Iterator[Path]:
    facts = demo_root / ".foundry" / "memory" / "facts"
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(facts)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        yield facts
    finally:
        subprocess.run(["chattr", "-i", str(facts)], check=True)


def test_an_immutable_facts_folder(server: RawServer, demo_root: Path, immutable_facts: Path) -> None:
    expected = ".foundry/memory/facts: Operation not permitted: fix that path and retry"
    assert _error_text(_call(server, "memory_write", WRITE)) == f"memory_write failed: {expected}"
    result = run_cli("--root", str(demo_root), "memory", "write", "--title", "T", "--body", "B.", "--type", "domain")
    assert (result.code, result.err) == (1, f"foundry: error: {expected}\n")
    assert not any(p.name.startswith(".") for p in immutable_facts.iterdir())  # no temp file left


def test_doctor_names_a_folder_at_index_md(demo_root: Path) -> None:
    _index_becomes_a_folder(demo_root)
    doctor = run_cli("--root", str(demo_root), "doctor")
    assert doctor.code == 1
    assert (
        "FAIL  INDEX.md: .foundry/memory/INDEX.md is not a readable file (Is a directory)\n"
        "        - remove what is there, then run `foundry memory index`\n"
    ) in doctor.out


def test_doctor_names_a_file_at_the_facts_folder(demo_root: Path) -> None:
    facts = demo_root / ".foundry" / "memory" / "facts"
    shutil.rmtree(facts)
    facts.write_text("not a folder\n")
    doctor = run_cli("--root", str(demo_root), "doctor")
    assert doctor.code == 1
    assert (
        "FAIL  facts folder: .foundry/memory/facts cannot be read (Not a directory)\n"
        "        - make it a folder of fact files (move what is there aside), then run `foundry doctor` again\n"
    ) in doctor.out


@pytest.fixture
def small_disk(tmp_path: Path, demo_root: Path) -> Iterator[Path]:
    """The demo project on a tmpfs of its own (root only), to fill up or make read-only."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)], capture_output=True)
    if mounted.returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        root = mount_point / "demo"
        shutil.copytree(demo_root, root)
        yield root
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=True)


def test_a_full_disk(small_disk: Path) -> None:
    filler = small_disk.parent / "filler"
    # Unbuffered: a buffer left holding what did not fit would raise again when the file closes.
    with filler.open("wb", buffering=0) as handle, pytest.raises(OSError):
        while True:
            handle.write(b"\0" * 65536)
            handle.flush()
    expected = ".foundry/memory/facts: No space left on device: fix that path and retry"
    result = run_cli("--root", str(small_disk), "memory", "write", "--title", "T", "--body", "B.", "--type", "domain")
    assert (result.code, result.err) == (1, f"foundry: error: {expected}\n")
    srv = RawServer(small_disk)
    try:
        srv.ask(INIT)
        assert _error_text(_call(srv, "memory_write", WRITE)) == f"memory_write failed: {expected}"
    finally:
        srv.proc.kill()
        srv.proc.wait()


def test_a_read_only_disk(small_disk: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk.parent)], check=True)
    expected = ".foundry/memory/facts: Read-only file system: fix that path and retry"
    result = run_cli("--root", str(small_disk), "memory", "write", "--title", "T", "--body", "B.", "--type", "domain")
    assert (result.code, result.err) == (1, f"foundry: error: {expected}\n")
    search = run_cli("--root", str(small_disk), "memory", "search", "postgres")
    assert search.code == 0 and search.out.startswith("### fact-0009")  # reading still works


def test_resources_that_cannot_be_served_say_why(server: RawServer, demo_root: Path) -> None:
    books = demo_root / ".foundry" / "runbooks"
    (books / "huge.md").write_text("---\ntitle: Huge\n---\n" + "x" * (300 * 1024))
    read = {"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "foundry://runbooks/huge"}}
    assert server.ask(read)["error"] == {
        "code": -32602,
        "message": "Cannot read foundry://runbooks/huge: runbook 'huge' is 300 KiB, over the 256 KiB limit for a "
        "runbook: split it",
    }
    facts = demo_root / ".foundry" / "memory" / "facts"
    shutil.rmtree(facts)
    facts.write_text("not a folder\n")
    read = {"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "foundry://memory/index"}}
    assert server.ask(read)["error"] == {
        "code": -32603,
        "message": "Cannot read foundry://memory/index: .foundry/memory/facts: Not a directory: fix that path and retry",
    }
