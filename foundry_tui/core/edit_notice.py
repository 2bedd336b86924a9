"""What an agent is told after it edits files: the facts that name those files (issue 30).

Every agent wired for its after-edit event (Claude Code's and Codex's PostToolUse, Cursor's
afterFileEdit, Gemini's AfterTool: core/hook_events.py) shows the one line this returns.
The hooks load the active facts' refs (core/memory/reports/grounding.py) only when an
edited path lies inside the root; this module imports nothing heavy: it runs after every edit.
"""

from __future__ import annotations

import os

from foundry_tui.core.code_refs import citing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from foundry_tui.core.code_refs import Ref
    from foundry_tui.core.paths import Layout

# At most this many facts are named on the line (the rest are counted), and at most this
# many edited paths are looked at: the notice stays one short line whatever the edit.
MAX_NAMED = 3
MAX_PATHS = 50
MAX_TITLE_SHOWN = 48


def edited_in(layout: Layout, paths: Sequence[str]) -> list[str]:
    """The edited paths inside the root, relative to it (`/` separated); others are dropped."""
    root = os.path.abspath(layout.root)
    found: list[str] = []
    for path in list(paths)[:MAX_PATHS]:
        if not isinstance(path, str) or not path or "\0" in path:
            continue
        full = os.path.abspath(os.path.join(root, path))
        rel = os.path.relpath(full, root)
        if rel == "." or rel.startswith(".."):
            continue
        found.append(rel.replace(os.sep, "/"))
    return found


def after_edit_notice(paths: Sequence[str], facts: Sequence[tuple[str, str, Sequence[Ref]]]) -> str | None:
    """The notice for an edit of `paths` (root-relative) given the active facts' (id, title,
    refs); None when no fact cites them."""
    if not paths:
        return None
    titles = {fact_id: title for fact_id, title, _ in facts}
    cited = citing(((fact_id, refs) for fact_id, _, refs in facts), paths)
    if not cited:
        return None
    named = ", ".join(f'{fid} "{_short(titles[fid])}"' for fid in cited[:MAX_NAMED])
    more = f" and {len(cited) - MAX_NAMED} more" if len(cited) > MAX_NAMED else ""
    shown = paths[0] if len(paths) == 1 else f"{paths[0]} (+{len(paths) - 1} more)"
    one = len(cited) == 1
    return (
        f"Foundry: {named}{more} {'cites' if one else 'cite'} {shown}, which you just edited: check "
        f"{'it still holds' if one else 'they still hold'}; if not, supersede with memory_write (same title, new body)."
    )


def _short(title: str) -> str:
    text = "".join(c if c.isprintable() else " " for c in title)
    return text if len(text) <= MAX_TITLE_SHOWN else text[: MAX_TITLE_SHOWN - 1] + "…"
