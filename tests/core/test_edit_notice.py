"""The after-edit notice (issue 30): which active facts cite an edited file, in one short line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from foundry_tui.core.code_refs import Ref
from foundry_tui.core.edit_notice import MAX_NAMED, MAX_PATHS, after_edit_notice, edited_in
from foundry_tui.core.paths import Layout
from tests.helpers import run_cli


def test_only_paths_inside_the_root_are_looked_at_and_at_most_max_paths(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    assert edited_in(layout, [str(tmp_path / "src/a.py"), "src/b.py", "../out.py", "/etc/passwd", "", "a\0b", "."]) == [
        "src/a.py",
        "src/b.py",
    ]
    assert len(edited_in(layout, [f"f{n}.py" for n in range(MAX_PATHS + 10)])) == MAX_PATHS == 50


def test_the_notice_names_at_most_three_facts_and_counts_the_rest() -> None:
    facts = [
        ("fact-0001", "Retries live in the webhook", (Ref("payments/webhook.py"),)),
        ("fact-0002", "Payments is one package", (Ref("payments"),)),
        ("fact-0003", "Python files are typed", (Ref("**/*.py"),)),
        ("fact-0004", "The webhook class", (Ref("payments/webhook.py::Webhook", "0" * 40),)),
        ("fact-0005", "Unrelated", (Ref("docs/guide.md"),)),
    ]
    assert after_edit_notice(["docs/other.md"], facts) is None
    assert after_edit_notice([], facts) is None
    assert after_edit_notice(["payments/webhook.py"], facts) == (
        'Foundry: fact-0001 "Retries live in the webhook", fact-0002 "Payments is one package", fact-0003 "Python '
        'files are typed" and 1 more cite payments/webhook.py, which you just edited: check they still hold; if not, '
        "supersede with memory_write (same title, new body)."
    )
    assert MAX_NAMED == 3
    long_title = [("fact-0009", "A" * 80, (Ref("x.py"),))]
    assert after_edit_notice(["x.py", "y.py"], long_title) == (
        f'Foundry: fact-0009 "{"A" * 47}…" cites x.py (+1 more), which you just edited: check it still holds; if not, '
        "supersede with memory_write (same title, new body)."
    )


def test_claude_codes_post_tool_use_gets_the_notice_as_context(root: Path) -> None:
    (root / "app.py").write_text("x\n")
    assert (
        run_cli(
            "memory",
            "write",
            "--root",
            str(root),
            "--title",
            "App in one file",
            "--body",
            "`app.py`.",
            "--type",
            "domain",
        ).code
        == 0
    )
    payload = {"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": {"file_path": str(root / "app.py")}}
    run = run_cli("hook", "post-tool-use", "--root", str(root), stdin=json.dumps(payload))
    assert (run.code, run.err) == (0, "")
    assert json.loads(run.out) == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": 'Foundry: fact-0001 "App in one file" cites app.py, which you just edited: check it '
            "still holds; if not, supersede with memory_write (same title, new body).",
        }
    }
    other = {**payload, "tool_input": {"file_path": str(root / "other.py")}}
    assert run_cli("hook", "post-tool-use", "--root", str(root), stdin=json.dumps(other)).out == ""


def test_session_start_says_how_many_facts_are_stale(root: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args],
            cwd=root,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    (root / "app.py").write_text("x\n")
    git("add", "-A")
    git("commit", "-q", "-m", "app")
    assert (
        run_cli(
            "memory",
            "write",
            "--root",
            str(root),
            "--title",
            "App in one file",
            "--body",
            "`app.py`.",
            "--type",
            "domain",
        ).code
        == 0
    )
    (root / "app.py").write_text("y\n")
    run = run_cli("hook", "session-start", "--root", str(root), stdin="{}")
    context = json.loads(run.out)["hookSpecificOutput"]["additionalContext"]
    assert (
        "> 1 fact cites code that changed since written (marked ⚠): check them, or run `foundry memory verify`."
        in context
    )
    assert "- **fact-0001** · domain · App in one file · ⚠ code changed" in context
