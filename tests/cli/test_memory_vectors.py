"""`foundry memory vectors` (issue 29, item 2): the active facts' sentence vectors built in a
one-shot process, its progress on stderr: a line rewritten in place on a terminal, one final
line elsewhere, nothing when nothing was embedded. The real int8 model where [semantic] is
installed, else the tests' small float model (semantic_helpers)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search import encoder_probe
from foundry_tui.core.memory.storage import cache
from tests.core.memory.semantic_helpers import use_a_sentence_model
from tests.helpers import run_cli, write

FACTS = 40  # two encode calls of the builder's (hybrid.EMBED_CHUNK, 32): two progress figures


@pytest.fixture
def facts(root: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    use_a_sentence_model(tmp_path_factory.mktemp("model"), monkeypatch)
    project = Project(root)
    for n in range(FACTS):
        write(project, f"Service {n} deploys to kubernetes from the release branch", f"Deploy number {n}.")
    return root


def _vectors_file(root: Path) -> Path:
    path = Project(root).store.cache_path
    assert path is not None
    return cache.vectors_file(path)


def test_off_a_terminal_one_final_line_then_nothing_when_nothing_is_missing(facts: Path) -> None:
    run = run_cli("memory", "vectors", "--root", str(facts))
    assert (run.code, run.err, run.out) == (
        0,
        f"vectors {FACTS}/{FACTS}\n",
        f"Embedded {FACTS} facts: every active fact has its vector.\n",
    )
    assert _vectors_file(facts).is_file()
    again = run_cli("memory", "vectors", "--root", str(facts))
    assert (again.code, again.err, again.out) == (0, "", "Every active fact has its vector.\n")


def test_on_a_terminal_the_line_is_rewritten_in_place(facts: Path) -> None:
    master, slave = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "foundry_tui", "memory", "vectors", "--root", str(facts)],
            stdout=subprocess.PIPE,
            stderr=slave,
            stdin=subprocess.DEVNULL,
            env=os.environ.copy(),
            timeout=300,
            check=False,
        )
        os.close(slave)
        slave = -1
        drawn = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    assert proc.returncode == 0
    assert proc.stdout == f"Embedded {FACTS} facts: every active fact has its vector.\n".encode()
    # The terminal turns the final line feed into CR LF.
    assert drawn == f"\rvectors 32/{FACTS}\rvectors {FACTS}/{FACTS}\r\n".encode()


def test_a_model_turned_off_is_one_line_and_builds_nothing(facts: Path) -> None:
    run = run_cli("memory", "vectors", "--root", str(facts), env={encoder_probe.SEMANTIC_ENV: "0"})
    assert (run.code, run.out, run.err) == (
        1,
        "",
        f"foundry: error: the sentence model is off ({encoder_probe.SEMANTIC_ENV}=0)\n",
    )
    assert not _vectors_file(facts).exists()
    config = facts / ".foundry" / "config.json"
    config.write_text('{"memoryRetrieval": {"semantic": false}}\n', encoding="utf-8")
    run = run_cli("memory", "vectors", "--root", str(facts))
    assert (run.code, run.err) == (
        1,
        "foundry: error: the sentence model is off (memoryRetrieval.semantic: false in config.json)\n",
    )
