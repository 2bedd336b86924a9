"""Issue 30 in the TUI: a fact's refs with their states in the detail pane, and the facts whose
code is gone or changed among the prune candidates; on a real git repository, through Pilot."""

from __future__ import annotations

import subprocess
from pathlib import Path

from textual.widgets import Static

from foundry_tui.tui.memory.fact_detail import FactDetail
from foundry_tui.tui.memory.prune_list import PruneList
from tests.helpers import run_cli
from tests.tui_helpers import drawn, make_app, option_ids, select, settle, text_of


def screen_text(app: object) -> str:
    return "\n".join(text_of(drawn(app, row)) for row in range(40))  # type: ignore[arg-type]


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args], cwd=root, check=True, capture_output=True
    )


async def test_the_detail_pane_shows_each_ref_with_its_state(root: Path) -> None:
    git(root, "init", "-q")
    (root / "app.py").write_text("x = 1\n")
    (root / "old.py").write_text("y = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "code")
    for title, body in (("The app is one module", "See `app.py`."), ("Old code stays", "See `old.py`.")):
        assert (
            run_cli("memory", "write", "--root", str(root), "--title", title, "--body", body, "--type", "domain").code
            == 0
        )
    (root / "app.py").write_text("x = 2\n")
    (root / "old.py").unlink()
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0001")
        assert "refs       changed app.py" in screen_text(app)
        await select(pilot, "fact-0002")
        assert "refs       gone old.py" in screen_text(app)
        assert app.screen.query_one(FactDetail).query_one("#detail-fields", Static) is not None
        prune = app.screen.query_one(PruneList)
        assert [i for i in option_ids(pilot, f"#{prune.id}") if i] == ["fact-0002", "fact-0001"]


async def test_confirm_re_records_the_refs_as_a_new_version(root: Path) -> None:
    from foundry_tui.tui.common.confirm import ConfirmScreen
    from foundry_tui.tui.memory.screen import MemoryScreen
    from tests.tui_helpers import notifications

    git(root, "init", "-q")
    (root / "app.py").write_text("x = 1\n")
    (root / "ledger.py").write_text("y = 1\n")
    (root / "fresh.py").write_text("z = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "code")
    body = "See `app.py` and `ledger.py`."
    assert (
        run_cli("memory", "write", "--root", str(root), "--title", "The app", "--body", body, "--type", "domain").code
        == 0
    )
    assert (
        run_cli(
            "memory", "write", "--root", str(root), "--title", "Fresh", "--body", "`fresh.py`.", "--type", "domain"
        ).code
        == 0
    )
    (root / "app.py").write_text("x = 2\n")
    git(root, "mv", "ledger.py", "books.py")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0002")
        await pilot.press("c")
        await settle(pilot)
        assert notifications(pilot)[-1] == "fact-0002: the code it cites is as it was written; nothing to confirm."
        await select(pilot, "fact-0001")
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#confirm")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen)
    text = (root / ".foundry/memory/facts/fact-0003.md").read_text()
    assert "supersedes: fact-0001" in text
    assert "refs: [app.py@" in text and ", books.py@" in text and "ledger.py" not in text.split("---")[1]
    done = run_cli("memory", "verify", "--root", str(root))
    assert done.out == "All 2 facts with refs are fresh.\n"
