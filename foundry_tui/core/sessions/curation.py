"""Curating session memory: list, show (tiers, counters, audit timeline), promote a
working fact into a T1 fact (the request and the audit note; the write itself goes through
the door, `core/ops/sessions.py`), and prune old sessions. The CLI and the TUI call these."""

from __future__ import annotations

import datetime as _dt
from typing import Any

from foundry_tui.core.errors import InputError, NotFoundError
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.sessions.context import observation_is_current
from foundry_tui.core.sessions.ledger import load_ledger
from foundry_tui.core.sessions.store import SessionStore, iso
from foundry_tui.core.sessions.working import normalise_fact, working_facts

TITLE_LIMIT = 80  # memory_write's
PROMOTED = "promoted"


def session_rows(store: SessionStore) -> list[dict[str, Any]]:
    """One row per session, most recently active first."""
    if not store.exists():
        return []
    rows = []
    with store.read() as conn:
        ledger_rows = conn.execute(
            "SELECT session_id, created, last_active FROM ledger ORDER BY last_active DESC, session_id"
        ).fetchall()
        for session_id, created, last_active in ledger_rows:
            memory = store.load_memory(conn, session_id)
            facts, version = working_facts(memory)
            observation = memory["observation"] or {}
            reflection = memory["reflection"] or {}
            rows.append(
                {
                    "session": session_id,
                    "created": iso(created),
                    "last_active": iso(last_active),
                    "last_active_epoch": last_active,
                    "working_facts": len(facts),
                    "working_version": version,
                    "observation_entries": len(observation.get("entries") or []),
                    "reflection_entries": len(reflection.get("entries") or []),
                    **load_ledger(conn, session_id).to_dict(),
                }
            )
    return rows


def _row_line(row: dict[str, Any]) -> str:
    return (
        f"{row['session']}  last active {row['last_active'][:16].replace('T', ' ')}  "
        f"working {row['working_facts']} (v{row['working_version']})  "
        f"observation {row['observation_entries']}  reflection {row['reflection_entries']}  "
        f"rolling {row['rolling']:,}  observed {row['observation']:,}"
    )


def render_session_list(rows: list[dict[str, Any]], where: str) -> str:
    if not rows:
        return f"No sessions in {where} yet: they appear when an agent's foundry hooks run."
    return "\n".join([f"{len(rows)} session{'s' if len(rows) != 1 else ''}, most recent first:", *map(_row_line, rows)])


def require_session(store: SessionStore, session_id: str) -> None:
    if not store.has_session(session_id):
        raise NotFoundError(f"no session {session_id!r} in {store.where()}: `foundry session list` shows them")


def session_detail(store: SessionStore, session_id: str) -> dict[str, Any]:
    """Everything about one session: its ledger, its three tiers and its audit timeline."""
    require_session(store, session_id)
    with store.read() as conn:
        memory = store.load_memory(conn, session_id)
        ledger = load_ledger(conn, session_id)
        created, last_active = conn.execute(
            "SELECT created, last_active FROM ledger WHERE session_id = ?", (session_id,)
        ).fetchone()
    return {
        "session": session_id,
        "created": iso(created),
        "last_active": iso(last_active),
        "ledger": ledger.to_dict(),
        "memory": memory,
        "observation_in_context": observation_is_current(memory),
        "audit": store.audit(session_id),
    }


def _count(number: int, noun: str) -> str:
    plural = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
    return f"{number} {noun if number == 1 else plural}"


def audit_line(entry: dict[str, Any]) -> str:
    """One line of the audit timeline."""
    record, kind = entry["record"], entry["kind"]
    if kind == "working":
        what = f"working v{record.get('version')}: {_count(len(record.get('facts') or []), 'fact')}"
    elif kind == "observation":
        # Since issue 28 an observation's audit record holds the entries it added (and how
        # many the tier then held); before, a copy of the whole tier.
        added = len(record.get("entries") or [])
        in_tier = int(record.get("in_tier") or added)
        what = f"observation: {_count(added, 'entry')}"
        if in_tier != added:
            what += f" added ({in_tier} in the tier)"
        if record.get("dropped"):
            what += f", {int(record['dropped'])} oldest dropped"
        what += f", {int(record.get('token_count') or 0):,} tokens"
    elif kind == "reflection":
        what = f"reflection: {_count(len(record.get('entries') or []), 'entry')}"
    elif kind == PROMOTED:
        what = f"promoted to {record.get('fact_id')}: {record.get('fact')}"
    else:
        what = kind
    return f"#{entry['seq']} {entry['at'][:19].replace('T', ' ')}  {what}"


def render_session_detail(detail: dict[str, Any], observation_trigger: int, reflection_trigger: int) -> str:
    ledger, memory = detail["ledger"], detail["memory"]
    lines = [
        f"session {detail['session']}",
        f"created {detail['created'][:16].replace('T', ' ')}, last active {detail['last_active'][:16].replace('T', ' ')}",
        f"tokens: {ledger['rolling']:,} since the last observation (trigger {observation_trigger:,}), "
        f"{ledger['observation']:,} observed since the last reflection (trigger {reflection_trigger:,}), "
        f"{ledger['total']:,} in all",
    ]
    if ledger["generating"]:
        lines.append(f"waiting for the agent's {ledger['generating']} (it was asked)")
    facts, version = working_facts(memory)
    lines += ["", f"[working_memory] version {version}"]
    lines += [f"{number}. {fact}" for number, fact in enumerate(facts, 1)] or ["(empty)"]
    for tier in ("reflection", "observation"):
        record = memory[tier] or {}
        note = ""
        if tier == "observation" and record.get("entries") and not detail["observation_in_context"]:
            note = " (older than the reflection: not in the context)"
        lines += ["", f"[{tier}]{note}"]
        entries = record.get("entries") or []
        lines += [f"- {e['at'][:16].replace('T', ' ')} {e['text']}" for e in entries] or ["(empty)"]
    lines += ["", f"audit ({len(detail['audit'])} records):", *(audit_line(e) for e in detail["audit"])]
    return "\n".join(lines)


# ---- promote ------------------------------------------------------------------------------


def find_working_fact(facts: list[str], reference: str) -> str:
    """A working fact by its text, or by its number in `foundry session show`."""
    text = " ".join(reference.split())
    if text in facts:
        return text
    if text.isdigit() and 1 <= int(text) <= len(facts):
        return facts[int(text) - 1]
    listing = "; ".join(f"{n}. {f!r}" for n, f in enumerate(facts, 1)) or "nothing (working memory is empty)"
    raise NotFoundError(f"no working fact {text!r} in this session; it holds: {listing}")


def promote_preset(fact: str, session_id: str) -> WriteRequest:
    """The T1 write a promotion makes, pre-filled from the working fact (the TUI's dialog
    shows it for editing): the fact as the title and as the body, with where it came from."""
    return WriteRequest(
        title=fact,
        body=f"{fact}\n\nPromoted from session {session_id}'s working memory.",
        type="convention",
        source="conversation",
    )


def promote_request(
    fact: str,
    session_id: str,
    title: str | None = None,
    type: str = "convention",
    tags: list[str] | None = None,
) -> WriteRequest:
    """The preset with the CLI's options; a fact too long for a title needs --title."""
    request = promote_preset(fact, session_id)
    request.title = " ".join((title if title is not None else fact).split())
    if len(request.title) > TITLE_LIMIT:
        raise InputError(
            f"the fact is {len(request.title)} characters, over a title's {TITLE_LIMIT}: give a shorter title "
            "(--title); the whole fact stays the body"
        )
    request.type = type
    request.tags = tags or []
    return request


def note_promoted(store: SessionStore, session_id: str, fact: str, fact_id: str, action: str) -> None:
    """Record in the session's audit that a working fact became T1 fact `fact_id`."""
    with store.transaction() as conn:
        store.write_record(conn, session_id, PROMOTED, {"fact": fact, "fact_id": fact_id, "action": action})


def promotion_for(
    store: SessionStore,
    session_id: str,
    reference: str,
    title: str | None = None,
    type: str = "convention",
    tags: list[str] | None = None,
) -> tuple[str, WriteRequest]:
    """`foundry session promote ID FACT`: the working fact FACT names (its text or number)
    and the T1 write that promotes it."""
    require_session(store, session_id)
    facts, _version = working_facts(store.memory(session_id))
    fact = find_working_fact(facts, normalise_fact(reference))
    return fact, promote_request(fact, session_id, title, type, tags)


# ---- prune --------------------------------------------------------------------------------


def prune_candidates(
    store: SessionStore, older_than_days: int, today: _dt.date
) -> tuple[_dt.date, list[dict[str, Any]]]:
    """(cutoff, the sessions last active before it): today minus the days."""
    if older_than_days < 0:
        raise InputError("--older-than must be 0 or more days")
    try:
        cutoff = today - _dt.timedelta(days=older_than_days)
    except OverflowError:  # before year 1: nothing is that old
        cutoff = _dt.date.min
    rows = [
        row
        for row in session_rows(store)
        if _dt.datetime.fromtimestamp(row["last_active_epoch"], _dt.UTC).date() < cutoff
    ]
    return cutoff, rows


def render_prune_plan(cutoff: _dt.date, rows: list[dict[str, Any]]) -> str:
    if not rows:
        return f"No session was last active before {cutoff.isoformat()}: nothing to remove."
    head = (
        f"{len(rows)} session{'s' if len(rows) != 1 else ''} last active before {cutoff.isoformat()} would be removed "
        "with their working facts, observations, reflections, counters and audit trail "
        "(scratch only: the project's facts are not touched):"
    )
    return "\n".join([head, *map(_row_line, rows)])


def prune_sessions(store: SessionStore, rows: list[dict[str, Any]]) -> str:
    store.remove_sessions([row["session"] for row in rows])
    return f"Removed {len(rows)} session{'s' if len(rows) != 1 else ''}."
