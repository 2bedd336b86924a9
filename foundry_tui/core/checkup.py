"""The doctor's whole list of checks, `ALL_CHECKS`: `core/memory/reports/doctor.py`'s own `CHECKS`
with the checks of the rooms above memory, which core.memory may not import (the import
layers), in report order: contradictions (core/curation/doctor_checks.py, after the duplicate
titles), who is trusted (core/trust/doctor_checks.py, after the config check) and the session
store (core/sessions/health.py, after the links check). The doctor's callers (the CLI, the
memory and curator screens) pass it to `run_doctor`.

A layer above the rooms: it composes curation, trust and sessions, which import none of
each other."""

from __future__ import annotations

from foundry_tui.core.curation.doctor_checks import check_contradictions
from foundry_tui.core.memory.reports.doctor import (
    CHECKS,
    DoctorCheck,
    check_config,
    check_duplicate_titles,
    check_links,
)
from foundry_tui.core.sessions.health import check_session_store
from foundry_tui.core.trust.doctor_checks import check_trust


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
