"""The facts' refs checked against the code (issue 30): `foundry memory verify`, and the
states the doctor, prune, the served index and search show (core/code_refs.py does the git)."""

from __future__ import annotations

from foundry_tui.core.code_refs import NO_GIT_NOTE, STALE_STATES, STATES, Verification, refs_of, verify

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt
    from collections.abc import Iterable, Sequence

    from foundry_tui.core.code_refs import CodeWatch, Ref
    from foundry_tui.core.json_types import JSONObject
    from foundry_tui.core.memory.model.facts import Fact
    from foundry_tui.core.memory.project import Project

# How an index line or a search hit shows a stale fact's state (a few characters: the budget).
STATE_MARKS: dict[str, str] = {"changed": "⚠ code changed", "moved": "⚠ code moved", "gone": "⚠ code gone"}


def facts_with_refs(facts: Iterable[Fact]) -> list[tuple[str, tuple[Ref, ...]]]:
    """(id, refs) of each fact that has refs."""
    found = []
    for fact in facts:
        if fact.extras and "refs" in fact.extras:
            refs = refs_of(fact.extras)
            if refs:
                found.append((fact.id, refs))
    return found


def active_refs(
    project: Project, today: _dt.date, near: Sequence[str] | None = None, *, sync: bool = True
) -> list[tuple[str, str, tuple[Ref, ...]]]:
    """(id, title, refs) of each active fact with refs; from the parse cache's columns when it is
    current (no Fact is built: the after-edit hook runs after every edit). With `near`
    (root-relative paths), only the facts whose refs may cite one of them: each entry is
    tested as text first, and parsed only when it names the path, a folder above it or a glob.
    `sync=False` reads the store as the caller's last sync left it (the TUI's screens' loads
    sync, and report what changed: another sync would take that from them)."""
    with project.lock:
        if sync:
            project.sync()
        snapshot = project.store.pending_snapshot
        if snapshot is None:
            rows = [(f.id, f.title, f.extras) for f in project.active_facts(today) if f.extras and "refs" in f.extras]
        else:
            columns = snapshot.columns
            extras, ids, titles = columns["extras"], columns["id"], columns["title"]
            rows = [
                (ids[i], titles[i], extras[i])
                for i in sorted(snapshot.active(today.isoformat()))
                if extras[i] and "refs" in extras[i]
            ]
    found = []
    for fact_id, title, meta in rows:
        if near is not None and not _may_cite(meta.get("refs"), near):
            continue
        refs = refs_of(meta)
        if refs:
            found.append((fact_id, title, refs))
    return found


def _may_cite(items: object, paths: Sequence[str]) -> bool:
    """Whether a raw `refs` list may name one of `paths` (never False when it does)."""
    if not isinstance(items, list):
        return isinstance(items, str)
    for item in items:
        if not isinstance(item, str):
            continue
        if "*" in item or "?" in item or "[" in item:
            return True
        target = item.partition("::")[0].partition("@")[0]
        for path in paths:
            if path.startswith(target):
                return True
    return False


def verify_facts(project: Project, facts: Iterable[Fact]) -> Verification:
    """The state of each of `facts` that has refs (one pass over git whatever their number);
    the cyclic collector held off while tens of thousands of small objects are made."""
    from foundry_tui.core.collector_hold import held

    with held():
        return verify(project.layout, facts_with_refs(facts))


def verify_active(project: Project, today: _dt.date) -> Verification:
    """verify_facts over today's active facts."""
    with project.lock:
        project.sync()
        active = project.active_facts(today)
    return verify_facts(project, active)


def code_watch(project: Project, today: _dt.date, previous: CodeWatch | None = None) -> CodeWatch:
    """What a long-lived process (the TUI) watches so that the refs' states of today's active
    facts stay current: bounded by what they cite (code_refs.watch_places). Reads the store as
    the last sync left it (never syncs: see active_refs), from the parse cache's columns when
    current; asks git twice, unless the refs are those `previous` was planned for (then it is
    returned as it is). Call it off the UI thread."""
    from foundry_tui.core.code_refs import watch_places

    refs = [ref for _id, _title, fact_refs in active_refs(project, today, sync=False) for ref in fact_refs]
    cited = frozenset(ref.path for ref in refs)
    if previous is not None and previous.cited == cited:
        return previous
    plan = watch_places(project.layout, refs)
    plan.cited = cited
    return plan


def stale_marks(verification: Verification) -> dict[str, str]:
    """fact id -> the mark its index line or search hit carries (stale facts only)."""
    return {fid: STATE_MARKS[check.state] for fid, check in verification.checks.items() if check.state in STALE_STATES}


def stale_note(verification: Verification) -> str | None:
    """The served index's line on stale facts (None when none is)."""
    stale = verification.stale()
    if not stale:
        return None
    noun = "fact cites" if len(stale) == 1 else "facts cite"
    return (
        f"> {len(stale)} {noun} code that changed since written (marked ⚠): check them, or run `foundry memory verify`."
    )


def render_verification(verification: Verification) -> str:
    """`foundry memory verify`: one line per stale ref, then the counts."""
    if not verification.checks:
        return "No active fact has refs: cite files in a body in backticks, or give --ref."
    if not verification.git:
        return f"{len(verification.checks)} facts with refs: {NO_GIT_NOTE}."
    lines = []
    for check in sorted(verification.checks.values(), key=lambda c: (len(c.fact_id), c.fact_id)):
        for state in check.refs:
            if state.state in STALE_STATES:
                lines.append(f"{check.fact_id} {state.line()}")
    counts = verification.counts()
    total = len(verification.checks)
    parts = ", ".join(f"{counts[s]} {s}" for s in STATES if counts[s])
    stale = sum(counts[s] for s in STALE_STATES)
    summary = (
        f"{stale} of {total} facts with refs stale: {parts}." if stale else f"All {total} facts with refs are fresh."
    )
    return "\n".join([*lines, summary])


def verification_json(verification: Verification) -> JSONObject:
    """`foundry memory verify --json`."""
    facts: list[JSONObject] = []
    for check in sorted(verification.checks.values(), key=lambda c: (len(c.fact_id), c.fact_id)):
        refs: list[JSONObject] = [
            {
                "ref": s.ref.target,
                "state": s.state,
                "recorded": s.ref.oid,
                "current": s.current,
                "moved_to": s.moved_to,
                "detail": s.detail or None,
            }
            for s in check.refs
        ]
        facts.append({"id": check.fact_id, "state": check.state, "refs": list(refs)})
    counts: JSONObject = dict(verification.counts())
    return {"git": verification.git, "head": verification.head or None, "counts": counts, "facts": list(facts)}


def diff_since_written(project: Project, fact: Fact, max_chars: int | None = None) -> str:
    """For each of the fact's refs that changed or moved, the diff of its file since the fact
    was written (code_refs.ref_diff), one after the other, `max_chars` in all (the rest cut,
    and said); a gone ref is named; none stale: one line. Runs git: off the UI thread."""
    from foundry_tui.core.code_refs import CHANGED, MAX_DIFF_CHARS, MOVED, ref_diff

    budget = MAX_DIFF_CHARS if max_chars is None else max_chars
    verification = verify_facts(project, [fact])
    check = verification.checks.get(fact.id)
    if check is None:
        return f"{fact.id} cites no code (no refs): nothing to diff."
    if not verification.git:
        return f"{fact.id}: {NO_GIT_NOTE}."
    stale = [s for s in check.refs if s.state in STALE_STATES]
    if not stale:
        return f"{fact.id}: the code it cites is as it was written; nothing to diff."
    parts: list[str] = []
    for state in stale:
        if budget <= 0:
            parts.append(
                f"… {state.ref.target} and the rest not shown: the diff is cut at {max_chars or MAX_DIFF_CHARS} characters"
            )
            break
        if state.state in (CHANGED, MOVED):
            text = ref_diff(project.layout, state, max_chars=budget)
        else:
            text = f"{state.ref.target}: gone since the fact was written, nothing to diff against"
        parts.append(text)
        budget -= len(text)
    return "\n\n".join(parts)
