"""The doctor's checks that need another room: core.memory may not import core.curation,
core.trust or core.sessions (the import layers), so `core/memory/reports/doctor.py` lists its own
checks in `CHECKS` and its callers (the CLI, the memory screen) pass `ALL_CHECKS`, which adds
these in report order: contradictions, who is trusted (core/trust/doctor_checks.py, after the
config check) and the session store (core/sessions/health.py, after the links check)."""

from __future__ import annotations

from collections.abc import Iterator

from foundry_tui.core.curation.conflicts import conflict_lines, find_conflicts_in
from foundry_tui.core.memory.reports.doctor import (
    CHECKS,
    OK,
    WARN,
    Check,
    DoctorCheck,
    DoctorContext,
    check_config,
    check_duplicate_titles,
    check_links,
)
from foundry_tui.core.sessions.health import check_session_store
from foundry_tui.core.trust.doctor_checks import check_trust


def check_contradictions(ctx: DoctorContext) -> Iterator[Check]:
    """Active facts about one subject that disagree (core/curation/conflicts.py): a warning,
    since an agent given both picks one."""
    problems = list(conflict_lines(find_conflicts_in(ctx.active)))
    if problems:
        count = len(problems)
        yield Check(
            "contradictions", WARN, f"{count} pair{'' if count == 1 else 's'} of active facts disagree", problems
        )
    else:
        yield Check("contradictions", OK, "no two active facts about one subject disagree")


def _with_contradictions(checks: tuple[DoctorCheck, ...]) -> tuple[DoctorCheck, ...]:
    """`checks` with check_contradictions after check_duplicate_titles (a neighbouring question)."""
    at = checks.index(check_duplicate_titles) + 1 if check_duplicate_titles in checks else len(checks)
    return (*checks[:at], check_contradictions, *checks[at:])


def _with_trust(checks: tuple[DoctorCheck, ...]) -> tuple[DoctorCheck, ...]:
    """`checks` with check_trust after check_config (who is trusted is read from config.json)."""
    at = checks.index(check_config) + 1 if check_config in checks else 0
    return (*checks[:at], check_trust, *checks[at:])


def _with_session_store(checks: tuple[DoctorCheck, ...]) -> tuple[DoctorCheck, ...]:
    """`checks` with check_session_store after check_links (a link is its first question)."""
    at = checks.index(check_links) + 1 if check_links in checks else len(checks)
    return (*checks[:at], check_session_store, *checks[at:])


ALL_CHECKS: tuple[DoctorCheck, ...] = _with_session_store(_with_trust(_with_contradictions(CHECKS)))
