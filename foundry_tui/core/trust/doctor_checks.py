"""The doctor's trust check: where the trusted list is read from, and a working copy whose
trust section differs from the one committed at HEAD (it has no effect until committed).
core.memory may not import core.trust, so `ALL_CHECKS` (core/checkup.py) adds it."""

from __future__ import annotations

from collections.abc import Iterator

from foundry_tui.core.errors import ConfigError
from foundry_tui.core.memory.reports.doctor import FAIL, OK, WARN, Check, DoctorContext
from foundry_tui.core.trust.committed import COMMITTED, HEAD_WHERE, NOT_COMMITTED, SOURCES, committed_config
from foundry_tui.core.trust.policy import TrustSettings, parse_trust

NAME = "trust"


def _listed(settings: TrustSettings) -> str:
    if settings.trusted is None:
        return "every user: principal (no trust section)"
    return ", ".join(sorted(settings.trusted)) or "nobody (trust.trusted is empty)"


def check_trust(ctx: DoctorContext) -> Iterator[Check]:
    """Nothing to say when no config.json has a trust section; otherwise where the list
    comes from, and a WARN naming both lists when the working copy's is not HEAD's."""
    try:
        committed = committed_config(ctx.layout)
        head = parse_trust(committed.raw, HEAD_WHERE) if committed.state == COMMITTED else None
    except ConfigError as exc:
        yield Check(NAME, FAIL, "the trusted list cannot be read, so memory writes are refused", [str(exc)])
        return
    try:
        working: TrustSettings | None = parse_trust(ctx.config.raw) if ctx.config_error is None else None
    except ConfigError as exc:
        working = None
        if head is None:  # the working copy's list is the one in use
            yield Check(NAME, FAIL, "the trusted list cannot be read, so memory writes are refused", [str(exc)])
            return
    if head is not None:
        if working is not None and working.trusted == head.trusted:
            if head.trusted is not None:
                yield Check(NAME, OK, f"trust.trusted is read from {SOURCES[COMMITTED]}")
            return
        shown = _listed(working) if working is not None else "(cannot be read)"
        yield Check(
            NAME,
            WARN,
            f"the working copy's trust section differs from {SOURCES[COMMITTED]} and has no effect until committed",
            [
                f"trusted at HEAD: {_listed(head)}",
                f"trusted in the working copy: {shown}",
                "commit .foundry/config.json to put the working copy's list in effect, "
                "or `git checkout -- .foundry/config.json` to drop the change",
            ],
        )
        return
    if working is None or working.trusted is None:
        return
    if committed.state == NOT_COMMITTED:
        yield Check(
            NAME,
            WARN,
            "config.json is not committed at HEAD, so the trusted list is read from the working copy, "
            "which any process can change unseen",
            [f"trusted in the working copy: {_listed(working)}", "commit .foundry/config.json"],
        )
        return
    yield Check(NAME, OK, f"trust.trusted is read from {SOURCES[committed.state]}")
