"""The read gate against the ways round it (issue 9, Medium 9): real hook event JSON
through `foundry hook pre-tool-use` as a subprocess, on a real project with a link to the
facts folder. Ordinary repository work must still pass."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from foundry_tui.core.read_gate import command_reads_facts, tool_reads_facts
from tests.helpers import run_cli

DENIED = [
    ("Grep", {"pattern": "postgres", "path": ".foundry"}),
    ("Grep", {"pattern": "postgres", "path": ".foundry/memory", "output_mode": "content"}),
    ("Grep", {"pattern": "postgres", "glob": ".foundry/**"}),
    ("Grep", {"pattern": "postgres", "glob": "**/facts/*.md", "output_mode": "content"}),
    ("Grep", {"pattern": "postgres", "path": "notes", "output_mode": "content"}),  # notes -> facts folder
    ("Glob", {"pattern": "**/facts/*.md"}),
    ("Glob", {"pattern": "*.md", "path": "notes"}),
    ("Read", {"file_path": "notes/fact-0001.md"}),
    ("Read", {"file_path": ".FOUNDRY/Memory/facts/fact-0001.md"}),
    ("Bash", {"command": "grep -r x .foundry"}),
    ("Bash", {"command": "grep -rn postgres ."}),
    ("Bash", {"command": "find . -name '*.md' | xargs cat"}),
    ("Bash", {"command": "find . -name '*.md' -exec cat {} +"}),
    ("Bash", {"command": 'find .foundry -type f | while read f; do cat "$f"; done'}),
    ("Bash", {"command": "cat .foundry/memory/*/*.md"}),
    ("Bash", {"command": "cd .foundry/memory && cat facts/*"}),
    ("Bash", {"command": "cd .foundry; cd memory; head -n 50 facts/fact-0002.md"}),
    ("Bash", {"command": "cat notes/*"}),
    ("Bash", {"command": "cat .FOUNDRY/MEMORY/FACTS/fact-0001.md"}),
    ("Bash", {"command": "rg postgres .foundry"}),
    ("Bash", {"command": "rg --hidden postgres"}),
    ("Bash", {"command": "rg -uu postgres ."}),
    ("Bash", {"command": "tar cf - .foundry | tar tvf -"}),
    ("Bash", {"command": "GREP_COLOR=1 sudo grep -R secret ./.foundry/memory"}),
    ("Bash", {"command": "git grep postgres"}),
]
ALLOWED = [
    ("Grep", {"pattern": "postgres", "path": "src"}),
    ("Grep", {"pattern": "postgres"}),
    # The Grep tool is ripgrep: from the root it skips hidden folders such as .foundry.
    ("Grep", {"pattern": "postgres", "path": ".", "output_mode": "content"}),
    ("Grep", {"pattern": "postgres", "output_mode": "content", "glob": "*.md"}),
    ("Grep", {"pattern": "postgres", "output_mode": "content", "glob": "*.py"}),
    ("Grep", {"pattern": "postgres", "output_mode": "content", "type": "py"}),
    ("Glob", {"pattern": "**/*.py"}),
    ("Glob", {"pattern": "**/*.md"}),  # names, not content
    ("Read", {"file_path": ".foundry/memory/INDEX.md"}),
    ("Read", {"file_path": ".foundry/runbooks/deploy-production.md"}),
    ("Bash", {"command": "grep -r foo src"}),
    ("Bash", {"command": "grep -rn --include='*.py' postgres ."}),
    ("Bash", {"command": "grep -rn --exclude-dir=.foundry postgres ."}),
    ("Bash", {"command": "rg postgres"}),  # ripgrep skips hidden folders
    ("Bash", {"command": "find . -name '*.py' | xargs wc -l"}),
    ("Bash", {"command": "find . -name '*.py' | xargs cat"}),
    ("Bash", {"command": "cat README.md src/app.py | head"}),
    ("Bash", {"command": "cd src && pytest -q && git status"}),
    ("Bash", {"command": "cat .foundry/memory/INDEX.md"}),
    ("Bash", {"command": "ls -la .foundry"}),
    ("Bash", {"command": "echo 'it is not in facts' | tr a-z A-Z"}),
]


@pytest.fixture
def gated_root(demo_root: Path) -> Path:
    (demo_root / "src").mkdir(exist_ok=True)
    (demo_root / "src" / "app.py").write_text("print('postgres')\n")
    os.symlink(demo_root / ".foundry" / "memory" / "facts", demo_root / "notes")  # a link to the facts folder
    return demo_root


def _decision(root: Path, tool: str, tool_input: dict[str, Any]) -> str | None:
    event = {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input, "cwd": str(root)}
    run = run_cli("hook", "pre-tool-use", "--root", str(root), stdin=json.dumps(event))
    assert run.code == 0 and run.err == ""
    return json.loads(run.out)["hookSpecificOutput"]["permissionDecision"] if run.out.strip() else None


@pytest.mark.parametrize(("tool", "tool_input"), DENIED, ids=lambda v: str(v)[:60])
def test_what_reads_facts_is_denied(gated_root: Path, tool: str, tool_input: dict[str, Any]) -> None:
    assert _decision(gated_root, tool, tool_input) == "deny"


@pytest.mark.parametrize(("tool", "tool_input"), ALLOWED, ids=lambda v: str(v)[:60])
def test_ordinary_repository_work_passes(gated_root: Path, tool: str, tool_input: dict[str, Any]) -> None:
    assert _decision(gated_root, tool, tool_input) is None


def test_the_same_judgement_in_process_covers_both_lists(gated_root: Path) -> None:
    """Cheap cross-check of every case without a subprocess (the subprocess tests are the proof)."""

    def judged(tool: str, tool_input: dict[str, Any]) -> str | None:
        if tool == "Bash":
            return command_reads_facts(tool_input["command"], gated_root, gated_root)
        return tool_reads_facts(tool, tool_input, gated_root, gated_root)

    assert [case for case in DENIED if judged(*case) is None] == []
    assert [case for case in ALLOWED if judged(*case) is not None] == []


_PIECES = [
    *"ab./*-_ |&;()'\"$`\\\n\t",
    "cat ",
    "cd ",
    "grep -r ",
    ".foundry",
    "facts",
    "xargs ",
    "find ",
    "~",
    "*",
    "\x00",
    "src/",
    "../",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
@example("cat ~\x00")  # a NUL in a `~user` name: expanduser raised ValueError
def test_the_judgement_never_raises_on_any_command(tmp_path_factory: pytest.TempPathFactory, command: str) -> None:
    root = tmp_path_factory.getbasetemp()
    found = command_reads_facts(command, root, root)
    assert found is None or isinstance(found, str)


@given(
    st.sampled_from(["Read", "Grep", "Glob", "LS", "NotebookRead"]),
    st.dictionaries(
        st.sampled_from(["file_path", "path", "pattern", "glob", "type", "output_mode"]),
        st.lists(st.sampled_from(_PIECES), max_size=12).map("".join),
    ),
)
@example("Read", {"file_path": "~\x00"})  # found by this test: expanduser raised ValueError
def test_the_tool_judgement_never_raises(
    tmp_path_factory: pytest.TempPathFactory, tool: str, tool_input: dict[str, Any]
) -> None:
    root = tmp_path_factory.getbasetemp()
    found = tool_reads_facts(tool, tool_input, root, root)
    assert found is None or isinstance(found, str)
