"""The door for `foundry init`: the folders, config, hooks and MCP entries a repository needs
(for each agent named, or the ones found; `remove` takes an agent's entries out again).
It creates only what is missing and never changes a fact (`open`); naming who is trusted
(`--trusted`) changes the gate itself, so that part is a curator's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foundry_tui.core.ops.registry import operation

if TYPE_CHECKING:
    import datetime as _dt
    from pathlib import Path

    from foundry_tui.core.setup.init import InitReport
    from foundry_tui.core.trust.principal import Caller


@operation("project.init", "open", "set a repository up for Foundry (idempotent; merges into existing files)")
def init_project(
    root: Path,
    caller: Caller,
    profile: str | None,
    today: _dt.date,
    trusted: list[str] | None = None,
    *,
    agents: list[str] | None = None,
    remove: bool = False,
) -> InitReport:
    """`agents`: whose MCP server and hooks to write (or, with `remove`, take out again)."""
    from foundry_tui.core.setup.init import init_project as set_up

    if trusted and not remove:
        _require_trust_change(root, caller, trusted)
    return set_up(root, profile, today, trusted=trusted, agents=agents, remove=remove)


def _require_trust_change(root: Path, caller: Caller, trusted: list[str]) -> None:
    """`--trusted` changes the gate itself: only a principal the project trusts already (with
    no trust section yet, any user: principal), in an attended run, may add to who is
    trusted, so an untrusted agent cannot add itself. Naming only principals already
    trusted changes nothing, so it is anyone's (init stays idempotent)."""
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.trust.policy import require_curator, trust_settings

    project = Project(root)
    listed = trust_settings(project).trusted
    if listed is not None and set(trusted) <= listed:
        return
    require_curator(project, caller, "change who is trusted")
