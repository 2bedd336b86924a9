"""`foundry tui --at REV` and the code a fact cites (issue 30, item 5): on a real git repository,
through Pilot, the refs' states, their details and `D`'s diff are those of that revision, never
of the working copy, in the memory screen and in the curator's Stale code tab."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from foundry_tui.core.code_refs import Ref, refs_of, verify
from foundry_tui.core.history.git_history import memory_at
from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.core.paths import Layout
from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.common.row_list import RowList
from foundry_tui.tui.curator.screen import CuratorScreen
from foundry_tui.tui.memory.code_diff import CodeDiffScreen
from tests.core.code_refs_helpers import git
from tests.helpers import TODAY, run_cli
from tests.tui_helpers import drawn, open_mode, press, select, settle, text_of

SIZE = (120, 40)
AS_WRITTEN = "fact-0001: the code it cites is as it was written; nothing to diff."


def _history(root: Path) -> tuple[str, str, str]:
    """A fact citing `app.py`, committed with it (the first revision); `app.py` changed in a later
    commit (the second); and changed again in the working copy, uncommitted. The recorded blob
    and the two commits."""
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("def main():\n    return 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "code")
    done = run_cli(
        "memory", "write", "--root", str(root), "--title", "The app starts in main",
        "--body", "The entry point is `app.py`.", "--type", "domain",
    )  # fmt: skip
    assert done.code == 0, done.err
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a fact")
    first = git(root, "rev-parse", "HEAD").strip()
    (root / "app.py").write_text("def main():\n    return 2\n")
    git(root, "commit", "-q", "-am", "main returns 2")
    second = git(root, "rev-parse", "HEAD").strip()
    (root / "app.py").write_text("def main():\n    return 3\n")  # the working copy: never seen --at
    return git(root, "rev-parse", f"{first}:app.py").strip(), first, second


def _screen_text(app: FoundryApp) -> str:
    return "\n".join(text_of(drawn(app, row)) for row in range(SIZE[1]))


async def _diff_shown(app: FoundryApp) -> str:
    screen = app.screen
    assert isinstance(screen, CodeDiffScreen)
    return str(screen.query_one("#code-diff", Static).content)


@pytest.mark.parametrize("which", ["first", "second"])
async def test_d_under_at_diffs_against_that_revision(root: Path, which: str) -> None:
    recorded, first, second = _history(root)
    rev = first if which == "first" else second
    with memory_at(Layout(root), rev) as (past, done):
        app = FoundryApp(past, TODAY, watch=False, root_label=f"demo at {done.commit}", read_only=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await select(pilot, "fact-0001")
            shown = _screen_text(app)
            # As of the second revision the file changed since the fact; the working copy's edit is never seen.
            assert f"refs       {'fresh' if which == 'first' else 'changed'} app.py" in shown
            await press(pilot, "D")
            expected = (
                AS_WRITTEN
                if which == "first"
                else (
                    f"--- app.py@{recorded[:12]} (when written)\n+++ app.py (at {second[:8]})\n"
                    "@@ -1,2 +1,2 @@\n def main():\n-    return 1\n+    return 2"
                )
            )
            assert await _diff_shown(app) == expected
            await press(pilot, "escape")
            curator = await open_mode(pilot, "f6", CuratorScreen, tab="stale-tab")
            rows = [row_id for row_id, _text in curator.query_one("#stale", RowList).rows if row_id]
            if which == "first":
                assert rows == []  # nothing stale as of the first revision
            else:
                assert rows == ["fact-0001"]
                await select(pilot, "fact-0001", "#stale")
                await press(pilot, "D")
                assert await _diff_shown(app) == expected


def test_outside_the_block_the_working_copy_is_verified_again(root: Path) -> None:
    """memory_at's registration ends with its block: the folder's path is not verified as of the
    revision afterwards (a later root there would be)."""
    _recorded, first, _second = _history(root)
    with memory_at(Layout(root), first) as (past, _done):
        facts = [("fact-0001", [ref]) for ref in _refs(past)]
        assert {c.state for c in verify(Layout(past), facts).checks.values()} == {"fresh"}
    facts_dir = past / ".foundry/memory/facts"
    assert not facts_dir.exists()
    # Once the block is over the path stands for nothing: not in git, so unknown.
    assert [s.state for s in verify(Layout(past), facts).checks["fact-0001"].refs] == ["unknown"]


def _refs(past: Path) -> list[Ref]:
    fact = parse_fact_text((past / ".foundry/memory/facts/fact-0001.md").read_text(), "fact-0001")
    return list(refs_of(fact.extras))
