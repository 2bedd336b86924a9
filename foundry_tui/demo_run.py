"""What an agent run leaves in the demo, so that every screen has something to act on
without the CLI (issue 31, item 17): a contradiction (`k` on the curator's conflicts tab),
a session with working facts (`p` on the sessions screen), a pending proposal (`a` / `r`
on approvals), and a second audit wave by the same reviewers (`d` on the board diffs a
reviewer's artifact with its previous wave's).

Everything is written through the door (`core/ops/`) as the principals who would have
written it: the demo's user for the contradiction, an agent (`app:claude-code`: untrusted, so its write is
parked as a proposal) for the proposal, the agents' own tools for the session and the
board. Fixed texts and clock: the same demo every time."""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path

DEMO_DAY = _dt.date(2026, 11, 30)  # the day the demo's run happened (demo.DEMO_RUN)
DEMO_SESSION = "5c1b8f7e-3a2d-4e61-9d0b-7f4e2a9c1d33"
SESSION_START = 1796032800.0  # 2026-11-30 09:40:00 UTC, after the first audit
# The second audit's artifacts, written after the fix (UTC seconds, as demo.DEMO_RUN).
RECHECK = {"appsec-reviewer": 1796036400, "perf-reviewer": 1796036520}  # 11:00:00, 11:02:00
RECHECK_WAVE = "audit-2"

CONTRADICTION = (
    "PostgreSQL 15 is the production database",
    "Production still runs PostgreSQL 15; the upgrade to 16 has not happened.\n\n"
    "**Why:** the managed service offers 16 only from next quarter.",
)
PROPOSED = (
    "Checkout caches tax rates per region for 60 seconds",
    "The tax service is called at most once a minute per region; a rate change takes up to a minute to apply.\n\n"
    "**Why:** the call added 300 ms to checkout's p95 (audit wave, perf-reviewer).",
)
WORKING_FACTS = (
    "the orders repository has no tenant filter yet: every query must take tenant_id",
    "regression test for the IDOR lives in tests/api/test_orders_tenancy.py",
    "staging deploys need the VPN",
)


class _Clock:
    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 60.0
        return self.now


def add_demo_run(root: Path) -> None:
    """Write the run's leftovers into the demo copy at `root`, through the door."""
    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.ops.actor import Actor
    from foundry_tui.core.ops.board import blackboard_write
    from foundry_tui.core.ops.facts import write_fact
    from foundry_tui.core.ops.sessions import edit_working_memory
    from foundry_tui.core.sessions.store import SessionStore
    from foundry_tui.core.trust.principal import Caller, Principal

    project = Project(root)
    # A user's decision that contradicts the demo's fact-0009 (PostgreSQL 16): trusted, so written.
    user = Actor(project, Caller(Principal("user", "dana")), DEMO_DAY)
    write_fact(user, WriteRequest(*CONTRADICTION, "decision", tags=["database", "postgres"]))
    # An agent's write: agents are not trusted by default, so it waits for a curator.
    agent = Actor(project, Caller(Principal("app", "claude-code")), DEMO_DAY)
    write_fact(agent, WriteRequest(*PROPOSED, "decision", tags=["checkout", "tax", "cache"]))
    # The agent's session: what it keeps in mind while it works (the `memory` tool).
    store = SessionStore(project.layout, clock=_Clock(SESSION_START))
    try:
        for fact in WORKING_FACTS:
            edit_working_memory(store, DEMO_SESSION, "add", fact=fact)
    finally:
        store.close()
    # The reviewers again, after the fix: the same agents in a second wave.
    layout = project.layout
    recheck = {
        "appsec-reviewer": (
            "review.v1",
            {
                "summary": "The IDOR is fixed: orders are scoped by tenant. The webhook comparison remains.",
                "verdict": "approve",
                "findings": [
                    {
                        "title": "Webhook signature compared with ==",
                        "severity": "low",
                        "location": "src/shop/payments/webhook.py:31",
                        "failureScenario": "A timing side channel lets an attacker guess the signature byte by "
                        "byte over many requests.",
                        "recommendation": "Use hmac.compare_digest.",
                    }
                ],
            },
        ),
        "perf-reviewer": (
            "finding.v1",
            {
                "title": "Checkout p95 is back to 120 ms with the tax rates cached",
                "severity": "low",
                "location": "src/shop/checkout/totals.py:57",
                "failureScenario": "A tax rate change takes up to a minute to reach checkout.",
                "recommendation": "Keep the cache at 60 seconds.",
            },
        ),
    }
    for name, (schema, data) in recheck.items():
        blackboard_write(agent, RECHECK_WAVE, name, schema, data)
        moment = RECHECK[name]
        os.utime(layout.blackboard_dir / RECHECK_WAVE / f"{name}.json", (moment, moment))
