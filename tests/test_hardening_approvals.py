"""Hardening of the approvals path (issue 28): one lock order, a busy indicator, a lock
time-out surfaced; the demo kept away from the user's real preferences; proposals shown
from what approval applies; a deeply nested proposal listed as broken."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from textual.widgets import Label

from foundry_tui.core.trust.preferences import request_clear, save_preferences
from foundry_tui.core.trust.principal import Caller, Principal
from foundry_tui.demo import make_demo_copy, remove_demo_copy, use_demo_environment
from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.screens.approvals import ApprovalsScreen

from .helpers import TODAY, run_cli
from .tui_helpers import notifications, open_mode, press

SIZE = (120, 40)
ALICE = Caller(Principal("user", "alice"))


def _folder_state(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- 6: the demo has its own data folder -------------------------------------------------------


def _real_preferences_with_a_clear_request(folder: Path) -> dict[str, bytes]:
    """The user's real data folder: alice's preferences with a clear request pending."""
    save_preferences(ALICE, "Base branch: develop.")
    request_clear(ALICE)
    state = _folder_state(folder)
    key = hashlib.sha256(b"user:alice").hexdigest()
    assert sorted(state) == [f"user-preferences/{key}.clear-request", f"user-preferences/{key}.md"]
    return state


@pytest.mark.parametrize("variable", ["FOUNDRY_DATA_DIR", "XDG_DATA_HOME"])
def test_the_demo_cli_never_touches_the_real_preferences(
    variable: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real-data"
    monkeypatch.delenv("FOUNDRY_DATA_DIR")
    monkeypatch.setenv(variable, str(real))
    data = real if variable == "FOUNDRY_DATA_DIR" else real / "foundry-tui"
    before = _real_preferences_with_a_clear_request(data)
    env = {"FOUNDRY_PRINCIPAL": "user:alice"}
    shown = run_cli("--demo", "prefs", "show", env=env)
    assert shown.code == 0 and shown.out.startswith("No preferences saved for user:alice yet."), shown.out
    confirmed = run_cli("--demo", "prefs", "clear", "--confirm", env=env)
    assert confirmed.code == 2
    assert "no clear request is pending for user:alice" in confirmed.err
    assert _folder_state(data) == before


async def test_the_demo_approvals_screen_does_not_offer_the_real_clear_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real-data"
    monkeypatch.setenv("FOUNDRY_DATA_DIR", str(real))  # restored when the test ends
    before = _real_preferences_with_a_clear_request(real)
    root = make_demo_copy(history=False)
    try:
        use_demo_environment(root)  # what `foundry --demo tui` does before the app starts
        app = FoundryApp(root, TODAY, watch=False, root_label="demo", caller=ALICE)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_mode(pilot, "f9", ApprovalsScreen)
            title = str(screen.query_one("#approvals-title", Label).render())
            assert title == "Approvals · 0 pending · you are user:alice"
            await press(pilot, "c")
            assert notifications(pilot)[-1] == "No clear request of your preferences is pending."
    finally:
        remove_demo_copy(root)
    assert _folder_state(real) == before
