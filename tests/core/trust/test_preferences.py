"""User preferences (ADR 0019): one file per person outside the repository, keyed by
the hashed principal; CLI `foundry prefs`, and SessionStart injecting them."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from foundry_tui.core.errors import FoundryError, InputError
from foundry_tui.core.reserved import data_dir, preferences_dir
from foundry_tui.core.trust.preferences import (
    PreferencesDeclined,
    confirm_clear,
    get_preferences,
    request_clear,
    save_preferences,
)
from foundry_tui.core.trust.principal import Caller, Principal
from tests.helpers import run_cli

ALICE = Caller(Principal("user", "alice"))
BOB = Caller(Principal("user", "bob"))


def _file(principal: str) -> Path:
    return preferences_dir() / f"{hashlib.sha256(principal.encode()).hexdigest()}.md"


def test_the_data_folder_follows_foundry_data_dir_then_xdg_then_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOUNDRY_DATA_DIR", "/srv/foundry")
    assert data_dir() == Path("/srv/foundry")
    monkeypatch.delenv("FOUNDRY_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", "/xdg")
    assert data_dir() == Path("/xdg/foundry-tui")
    monkeypatch.delenv("XDG_DATA_HOME")
    assert data_dir() == Path.home() / ".local/share/foundry-tui"


def test_two_people_keep_their_own_preferences_side_by_side() -> None:
    assert save_preferences(ALICE, "Base branch: develop.") == (
        "Saved the preferences of user:alice (21 of 20,000 characters). Saving replaces the whole file: next time "
        "read them first (get_user_preferences), merge your change in, and save the whole text."
    )
    save_preferences(BOB, "PR descriptions: bullet points.")
    assert get_preferences(ALICE) == "Preferences of user:alice (21 of 20,000 characters):\n\nBase branch: develop."
    assert get_preferences(BOB).endswith("PR descriptions: bullet points.")
    files = sorted(p.name for p in preferences_dir().iterdir())
    assert files == sorted([_file("user:alice").name, _file("user:bob").name])
    assert not any("alice" in f or "bob" in f for f in files)  # the stored path carries no raw name
    save_preferences(ALICE, "Base branch: main.")  # a save replaces the whole text
    assert _file("user:alice").read_text() == "Base branch: main."
    assert _file("user:bob").read_text() == "PR descriptions: bullet points."


def test_nothing_saved_yet() -> None:
    assert get_preferences(ALICE) == (
        "No preferences saved for user:alice yet. Save standing notes with save_user_preferences "
        "(the whole text: it replaces what was there)."
    )


@pytest.mark.parametrize("principal", [Principal("service", "ci-bot"), Principal("app", "reviewer")])
def test_service_and_app_principals_are_declined(principal: Principal) -> None:
    calls: list[Callable[[Caller], str]] = [get_preferences, lambda c: save_preferences(c, "x"), request_clear]
    for call in calls:
        with pytest.raises(PreferencesDeclined) as caught:
            call(Caller(principal))
        assert str(caught.value) == (
            f"{principal} is a {principal.kind} principal: preferences belong to one person (user:<name>), "
            "so there are none to read or write here"
        )
    assert not preferences_dir().exists()


def test_a_save_over_the_cap_is_refused_saying_by_how_much() -> None:
    save_preferences(ALICE, "keep me")
    with pytest.raises(InputError) as caught:
        save_preferences(ALICE, "x" * 20_345)
    assert str(caught.value) == (
        "preferences are 20,345 characters, 345 over the 20,000-character cap: shorten them and save again "
        "(nothing was saved)"
    )
    assert _file("user:alice").read_text() == "keep me"
    save_preferences(ALICE, "x" * 20_000)  # exactly the cap is fine


def test_a_preferences_file_replaced_by_a_symlink_is_refused(tmp_path: Path) -> None:
    save_preferences(ALICE, "mine")
    target = tmp_path / "elsewhere.md"
    target.write_text("someone else's notes")
    path = _file("user:alice")
    path.unlink()
    path.symlink_to(target)
    calls: list[Callable[[], str]] = [
        lambda: get_preferences(ALICE),
        lambda: save_preferences(ALICE, "overwrite"),
        lambda: request_clear(ALICE),
    ]
    for call in calls:
        with pytest.raises(FoundryError, match="has been replaced by a symlink; refusing to follow it"):
            call()
    assert target.read_text() == "someone else's notes" and path.is_symlink()


def test_clear_parks_until_the_person_confirms() -> None:
    save_preferences(ALICE, "Base branch: develop.")
    save_preferences(BOB, "bob's")
    with pytest.raises(InputError, match="no clear request is pending for user:alice"):
        confirm_clear(ALICE)
    assert request_clear(ALICE) == (
        "Clear request parked: the preferences of user:alice stay until the person confirms with "
        "`foundry prefs clear --confirm` (or in the TUI). Deleting cannot be undone, so it is never done at once."
    )
    assert _file("user:alice").read_text() == "Base branch: develop."
    assert "A clear request is pending" in get_preferences(ALICE)
    assert confirm_clear(ALICE) == (
        "Cleared: the preferences file of user:alice was deleted (the only deletion Foundry makes)."
    )
    assert not _file("user:alice").exists() and _file("user:bob").read_text() == "bob's"
    assert request_clear(ALICE) == "No preferences saved for user:alice: nothing to clear."


def test_an_unattended_run_cannot_change_preferences() -> None:
    unattended = Caller(ALICE.principal, unattended=True)
    with pytest.raises(PreferencesDeclined, match="this run is unattended"):
        save_preferences(unattended, "x")
    assert not _file("user:alice").exists()


def test_the_prefs_commands(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("Default Linear team: PLAT.")
    env = {"FOUNDRY_PRINCIPAL": "user:carol"}
    saved = run_cli("prefs", "save", "--file", str(notes), env=env)
    assert saved.code == 0 and saved.out.startswith("Saved the preferences of user:carol (26 of 20,000 characters).")
    shown = run_cli("prefs", "show", env=env)
    assert shown.out == "Preferences of user:carol (26 of 20,000 characters):\n\nDefault Linear team: PLAT.\n"
    assert run_cli("prefs", "clear", env=env).out.startswith("Clear request parked")
    assert _file("user:carol").exists()
    cleared = run_cli("prefs", "clear", "--confirm", env=env)
    assert cleared.code == 0 and cleared.out.startswith("Cleared:") and not _file("user:carol").exists()
    declined = run_cli("prefs", "show", env={"FOUNDRY_PRINCIPAL": "service:ci-bot"})
    assert declined.code == 1 and declined.err.count("\n") == 1
    assert declined.err.startswith("foundry: error: service:ci-bot is a service principal")
    notes.write_text("y" * 20_001)
    long = run_cli("prefs", "save", "--file", str(notes), env=env)
    assert long.code == 2 and "20,001 characters, 1 over the 20,000-character cap" in long.err


def test_session_start_injects_the_persons_preferences_after_the_index(root: Path) -> None:
    save_preferences(Caller(Principal("user", "dana")), "Always run make lint before committing.")
    run = run_cli("--root", str(root), "hook", "session-start", stdin="{}", env={"FOUNDRY_PRINCIPAL": "user:dana"})
    context = json.loads(run.out)["hookSpecificOutput"]["additionalContext"]
    prefs = context.index("## Preferences of user:dana")
    assert context.index("# Memory index") < prefs < context.index("## Runbooks")
    assert "Always run make lint before committing." in context
    other = run_cli("--root", str(root), "hook", "session-start", stdin="{}", env={"FOUNDRY_PRINCIPAL": "user:erin"})
    assert "make lint" not in other.out and "## Preferences" not in other.out
    bot = run_cli("--root", str(root), "hook", "session-start", stdin="{}", env={"FOUNDRY_PRINCIPAL": "service:x"})
    assert bot.code == 0 and "## Preferences" not in bot.out


def test_the_preferences_folder_is_private() -> None:
    save_preferences(ALICE, "x")
    assert os.stat(preferences_dir()).st_mode & 0o077 == 0
