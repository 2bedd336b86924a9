"""What an agent is told after it edits files: the facts that name those files.

Today it answers nothing: a fact carries no reference to code yet, so no fact can be found
from a path. Issue 30 adds code references to facts; this function then returns the facts
whose references the edited paths touch, and every agent wired for its after-edit event
(Codex's PostToolUse, Cursor's afterFileEdit, Gemini's AfterTool: core/hook_events.py)
shows them without a second `foundry init`. Imports nothing: it runs after every edit.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from foundry_tui.core.paths import Layout


def after_edit_notice(layout: Layout, paths: Sequence[str]) -> str | None:
    """The notice for an edit of `paths` in `layout`'s project; None (nothing to say) until issue 30."""
    del layout, paths  # no fact names a file yet
    return None
