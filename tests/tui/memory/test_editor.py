"""Editing a fact in $EDITOR from the memory screen (issue 31, item 10): a real editor
subprocess (a small Python script) edits the draft, and what it saved is written through
the door after the same confirm as the write form."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.tui.common.confirm import ConfirmScreen
from foundry_tui.tui.common.editor import MAX_DRAFT_BYTES, editor_command, read_draft, write_draft
from foundry_tui.tui.memory.screen import MemoryScreen
from tests.tui_helpers import make_app, notifications, press, select, settle

SIZES = [(120, 40), (80, 24)]  # issue 31: every behaviour at 80x24 too

FACTS = Path(".foundry/memory/facts")


def _editor(tmp_path: Path, body: str) -> str:
    """An $EDITOR: a Python script that replaces one sentence of the file it is given and
    records the file's name (what a person would do in vi)."""
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys, pathlib\n"
        "path = pathlib.Path(sys.argv[1])\n"
        f"pathlib.Path({str(tmp_path / 'edited')!r}).write_text(path.name)\n"
        f"path.write_text({body})\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}"


REPLACE = "path.read_text().replace('Pull requests are squash-merged', 'Pull requests are rebased, then merged')"


@pytest.mark.parametrize("size", SIZES)
async def test_edit_in_the_editor_writes_a_new_version_after_the_confirm(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", _editor(tmp_path, REPLACE))
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0003")
        await press(pilot, "e")
        assert isinstance(app.screen, ConfirmScreen)
        assert str(app.screen.query_one("#dialog-title").render()) == (
            "Write “Feature branches are named <ticket>-<slug> and squash-merged”?"
        )
        await pilot.click("#confirm")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen)
    new = parse_fact_text((demo_root / FACTS / "fact-0017.md").read_text())
    assert new.supersedes == "fact-0003"
    assert new.body.startswith("Branch names start with the tracker ticket")
    assert "Pull requests are rebased, then merged so that main has one commit per change" in new.body
    assert new.tags == ("git", "branches", "review")
    assert new.confidence == "high"


@pytest.mark.parametrize("size", SIZES)
async def test_an_unchanged_edit_writes_nothing(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    monkeypatch.setenv("VISUAL", _editor(tmp_path, "path.read_text()"))
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0003")
        await press(pilot, "e")
        assert isinstance(app.screen, MemoryScreen)
        assert "fact-0003: unchanged in the editor, nothing written." in notifications(pilot)
    assert not (demo_root / FACTS / "fact-0017.md").exists()


@pytest.mark.parametrize("size", SIZES)
async def test_a_refused_edit_keeps_the_text_for_the_next_e(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """A frontmatter broken in the editor is refused with the parser's reason; the draft is
    kept, and `e` opens that text again, not the file on disk."""
    broken = tmp_path / "broken"
    broken.mkdir()
    monkeypatch.setenv("EDITOR", _editor(broken, "path.read_text().replace('type: convention', 'type: [')"))
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0003")
        await press(pilot, "e")
        assert isinstance(app.screen, MemoryScreen)
        refusal = notifications(pilot)[-1]
        assert refusal.startswith("Not saved: frontmatter is not valid YAML at line ")  # the line: item 9
        assert "your text is kept: e opens it again" in refusal
        fixed = tmp_path / "fixed"
        fixed.mkdir()
        monkeypatch.setenv(
            "EDITOR", _editor(fixed, "path.read_text().replace('type: [', 'type: decision').replace('squash', 'merge')")
        )
        await press(pilot, "e")
        assert isinstance(app.screen, ConfirmScreen)
        assert "merge-merged" in str(app.screen.query_one("#dialog-title").render())
        changes = str(app.screen.query_one("#dialog-changes").render())
        assert "the title changed, so fact-0003 is not superseded and stays active (x retires it)" in changes
        await pilot.click("#confirm")
        await settle(pilot)
    new = parse_fact_text((demo_root / FACTS / "fact-0017.md").read_text())
    assert (new.type, new.title, new.supersedes) == (
        "decision",
        "Feature branches are named <ticket>-<slug> and merge-merged",
        None,
    )


@pytest.mark.parametrize("size", SIZES)
async def test_a_broken_file_opens_in_the_editor_and_comes_back_as_a_fact(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    (demo_root / FACTS / "fact-0099.md").write_text("no frontmatter here\n", encoding="utf-8")
    fixed = (
        "'---\\nid: fact-0099\\ntype: risk\\ntitle: The staging database resets every night\\n"
        "created: 2026-11-01\\n---\\n\\nAnything written there is gone by morning.\\n\\n**Why:** the nightly job restores a snapshot.\\n'"
    )
    monkeypatch.setenv("EDITOR", _editor(tmp_path, fixed))
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "i")  # broken files are listed with the inactive facts
        await select(pilot, "broken:fact-0099.md")
        await press(pilot, "e")
        assert isinstance(app.screen, ConfirmScreen), notifications(pilot)
        changes = str(app.screen.query_one("#dialog-changes").render())
        assert "the broken file fact-0099.md stays on disk as it is" in changes
        await pilot.click("#confirm")
        await settle(pilot)
    assert (tmp_path / "edited").read_text() == "fact-0099.md"
    assert (demo_root / FACTS / "fact-0099.md").read_text() == "no frontmatter here\n"  # left as it was
    new = parse_fact_text((demo_root / FACTS / "fact-0100.md").read_text())  # ids go on past the broken file
    assert (new.type, new.title) == ("risk", "The staging database resets every night")


@pytest.mark.parametrize("size", SIZES)
async def test_no_editor_set_says_how(demo_root: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "e")
        assert notifications(pilot)[-1] == (
            "Set $VISUAL or $EDITOR to the editor to use (for example EDITOR=nano), then press the key again."
        )


def test_editor_command_prefers_visual_and_splits_like_a_shell() -> None:
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "vi"}) == ["code", "--wait"]
    assert editor_command({"VISUAL": " ", "EDITOR": "'my editor' -n"}) == ["my editor", "-n"]
    assert editor_command({}) is None


def test_a_draft_over_the_bound_is_refused(tmp_path: Path) -> None:
    draft = write_draft("x" * (MAX_DRAFT_BYTES + 1), "big.md")
    with pytest.raises(Exception, match="the edited text is over 256 KiB: nothing was saved"):
        read_draft(draft)
    assert read_draft(write_draft("x" * MAX_DRAFT_BYTES, "fits.md")) == "x" * MAX_DRAFT_BYTES


@pytest.mark.parametrize("size", SIZES)
async def test_an_artifact_edited_in_the_editor_is_written_back_through_its_contract(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """On the board, `e` opens the highlighted artifact; a violation of its contract writes
    nothing (the text is kept); a valid edit replaces the artifact after the confirm."""
    from foundry_tui.tui.board.screen import BlackboardScreen
    from tests.tui_helpers import open_mode, select_artifact

    path = demo_root / ".foundry/blackboard/audit/appsec-reviewer.json"
    before = path.read_text()
    bad = tmp_path / "bad"
    bad.mkdir()
    monkeypatch.setenv("EDITOR", _editor(bad, "path.read_text().replace('\"request-changes\"', '42')"))
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await open_mode(pilot, "f3", BlackboardScreen)
        await select_artifact(pilot, "audit/appsec-reviewer.json")
        await press(pilot, "e")
        assert isinstance(app.screen, ConfirmScreen)
        assert str(app.screen.query_one("#dialog-title").render()) == "Write audit/appsec-reviewer.json?"
        await pilot.click("#confirm")
        await settle(pilot)
        assert notifications(pilot)[-1].startswith("Not written: Rejected: artifact does not satisfy review.v1.")
        assert path.read_text() == before
        monkeypatch.setenv(
            "EDITOR",
            _editor(
                tmp_path, "path.read_text().replace('Use hmac.compare_digest.', 'Use hmac.compare_digest everywhere.')"
            ),
        )
        await press(pilot, "e")
        await pilot.click("#confirm")
        await settle(pilot)
        assert notifications(pilot)[-1] == "Written: audit/appsec-reviewer.json"
    assert '"recommendation": "Use hmac.compare_digest everywhere."' in path.read_text()
