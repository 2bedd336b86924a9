"""The door for a person's preferences (outside the repository, keyed by the principal):
save, ask to clear, and confirm a clear. Only the owner, a user principal, attended."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foundry_tui.core.ops.registry import operation

if TYPE_CHECKING:
    from foundry_tui.core.trust.principal import Caller


@operation("preferences.save", "owner", "replace the caller's preferences")
def save(caller: Caller, content: str) -> str:
    from foundry_tui.core.trust.preferences import save_preferences

    return save_preferences(caller, content)


@operation("preferences.request_clear", "owner", "park a request to delete the caller's preferences")
def request_clear(caller: Caller) -> str:
    from foundry_tui.core.trust.preferences import request_clear as park

    return park(caller)


@operation("preferences.confirm_clear", "owner", "delete the caller's preferences after a parked request")
def confirm_clear(caller: Caller) -> str:
    from foundry_tui.core.trust.preferences import confirm_clear as confirm

    return confirm(caller)
