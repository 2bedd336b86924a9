"""The doctor's checks that need the curation room (and the trust room's, core/trust/doctor_checks.py):
core.memory may not import core.curation or core.trust (the import layers), so
`core/memory/doctor.py` lists its own checks in `CHECKS` and its callers (the CLI, the
memory screen) pass `ALL_CHECKS`, which adds these in report order."""

from __future__ import annotations

from collections.abc import Iterator

from foundry_tui.core.curation.conflicts import conflict_lines, find_conflicts_in
from foundry_tui.core.memory.doctor import (
    CHECKS,
    OK,
    WARN,
    Check,
    DoctorCheck,
    DoctorContext,
    check_config,
    check_duplicate_titles,
)
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


ALL_CHECKS: tuple[DoctorCheck, ...] = _with_trust(_with_contradictions(CHECKS))
