"""Read-only views of facts shared by the CLI and the TUI: listings, detail, chains."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from foundry_tui.core.memory.model.facts import Fact, escape_controls
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.status import MemoryStatus
from foundry_tui.core.memory.storage.store import BrokenFile, Changes
from foundry_tui.core.paths import fact_file_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject
    from foundry_tui.core.memory.storage.snapshot import Snapshot


def older_ids(fact_id: str, facts: Mapping[str, Fact]) -> list[str]:
    """The ids a fact replaced (every source of a merge), then theirs, newest first."""
    chain: list[str] = []
    queue = list(facts[fact_id].replaced_ids()) if fact_id in facts else []
    while queue:
        current = queue.pop(0)
        if current in chain or current == fact_id:
            continue
        chain.append(current)
        older = facts.get(current)
        if older is not None:
            queue += older.replaced_ids()
    return chain


def newer_ids(fact_id: str, replaced_by: Mapping[str, str]) -> list[str]:
    """The ids that replaced a fact, oldest first."""
    chain: list[str] = []
    current = replaced_by.get(fact_id)
    while current and current not in chain and current != fact_id:
        chain.append(current)
        current = replaced_by.get(current)
    return chain


def older_chain(project: Project, fact: Fact) -> list[str]:
    return older_ids(fact.id, project.store.facts)


def newer_chain(project: Project, fact: Fact) -> list[str]:
    return newer_ids(fact.id, project.store.superseded_by())


def render_fact_detail(project: Project, fact: Fact, today: _dt.date, adr: tuple[str, Path | None] | None) -> str:
    """`foundry memory show`: state, file, chain both ways, then the file as on disk.

    `adr` is the fact's source when it names an ADR, with that ADR's file (None: not found);
    the caller looks it up, since the memory layer knows nothing of ADRs."""
    reason = project.store.inactive_reason(fact, today)
    path = project.layout.fact_path(fact.id)
    lines = [
        f"{fact.id} · {fact.type} · {'inactive: ' + reason if reason else 'active'}",
        f"file: {project.layout.relative(path)}",
    ]
    newer = newer_chain(project, fact)
    older = older_chain(project, fact)
    if newer:
        lines.append(f"newer: {' → '.join(newer)}")
    if older:
        lines.append(f"older: {' → '.join(older)}")
    if adr is not None:
        ref, found = adr
        target = project.layout.relative(found) if found else "not found in docs/adr/"
        lines.append(f"source: [{ref}]({target})" if found else f"source: {ref} ({target})")
    lines += ref_lines(project, fact)
    try:
        text = project.layout.read_text(path)
    except OSError as exc:
        text = f"(cannot read the file: {exc.strerror})"
    return "\n".join(lines) + "\n\n" + text.rstrip("\n")


def ref_lines(project: Project, fact: Fact) -> list[str]:
    """`refs: fresh a.py; changed b.py (2 commits since, +3 -1)`: a fact's refs with their
    states against the code (issue 30); none without refs. Reads git: call it off the UI thread."""
    if not fact.extras or "refs" not in fact.extras:
        return []
    from foundry_tui.core.code_refs import NO_GIT_NOTE, describe_changes
    from foundry_tui.core.memory.reports.grounding import verify_facts

    verification = verify_facts(project, [fact])
    check = verification.checks.get(fact.id)
    if check is None:
        return []
    if not verification.git:
        return [f"refs: {', '.join(escape_controls(s.ref.target) for s in check.refs)} ({NO_GIT_NOTE})"]
    describe_changes(project.layout, verification)
    return [f"refs: {'; '.join(escape_controls(s.line()) for s in check.refs)}"]


def fact_listing(project: Project, today: _dt.date, *, include_inactive: bool) -> list[JSONObject]:
    """Rows for `foundry memory list`: active facts, and with include_inactive the rest and broken files."""
    rows: list[JSONObject] = []
    for fact in project.store.sorted_facts():
        reason = project.store.inactive_reason(fact, today)
        if reason and not include_inactive:
            continue
        rows.append(
            {
                "id": fact.id,
                "type": fact.type,
                "title": fact.title,
                "tags": list(fact.tags),
                "active": reason is None,
                "inactive": reason,
                "file": fact_file_name(fact.id),
            }
        )
    if include_inactive:
        for broken in sorted(project.store.broken.values(), key=lambda b: b.name):
            rows.append({"id": None, "file": broken.name, "broken": broken.reason, "active": False})
    return rows


def render_listing(rows: list[JSONObject]) -> str:
    if not rows:
        return "No facts yet: record one with `foundry memory write` or the memory_write tool."
    lines = []
    for row in rows:
        if row.get("broken"):
            lines.append(f"broken: {row['file']} — {row['broken']}")
        else:
            suffix = f" ({row['inactive']})" if row["inactive"] else ""
            lines.append(f"{row['id']} · {row['type']} · {row['title']}{suffix}")
    return "\n".join(lines)


class WholeIndex(NamedTuple):
    """The counts of a whole index: active facts, type groups (runs of one type in index
    order), facts the budget omits, broken files."""

    active: int
    groups: int
    omitted: int
    broken: int


class IndexView:
    """What the index pane and the status line show: the active facts in INDEX.md's order
    (with each one's type), where the budget cuts them, the counts, and the broken files.

    Built from an Overview, or before any Fact exists from the parse cache's columns
    (`early_index`); both give the same figures and the same rows for the same files. A view
    read from the first-frame record (reports/first_frame.py) may hold only the first rows
    (`whole`: the whole index's counts, so the pane is as tall as the full view's)."""

    __slots__ = (
        "active",
        "broken",
        "budget",
        "entry",
        "inactive",
        "index_tokens",
        "listed",
        "omitted",
        "ordered",
        "recorded",
        "total",
        "types",
        "whole",
    )

    def __init__(
        self,
        *,
        ordered: list[str],
        types: list[str],
        entry: Callable[[str], tuple[str, tuple[str, ...]]],
        omitted: set[str],
        listed: int,
        index_tokens: int,
        budget: int,
        total: int,
        broken: list[BrokenFile],
        inactive: Mapping[str, str] | None,
        whole: WholeIndex | None = None,
        recorded: bool = False,
    ) -> None:
        self.ordered = ordered  # the active facts' ids, in index order
        self.types = types  # the type of each, in step with `ordered`
        self.entry = entry  # fact id -> (title, tags), for the rows on screen only
        self.omitted = omitted
        self.listed = listed
        self.index_tokens = index_tokens
        self.budget = budget
        self.recorded = recorded  # read from the first-frame record (reports/first_frame.py)
        self.whole = whole  # None: `ordered` is every active fact, `broken` every broken file
        self.active = len(ordered) if whole is None else whole.active
        self.total = total  # facts that load, and files that do not
        self.broken = broken
        self.inactive = inactive  # id -> why (None: not known yet)

    def counts(self) -> WholeIndex:
        """The whole index's counts (the same for a first-rows view and the full one)."""
        if self.whole is not None:
            return self.whole
        groups = sum(1 for i, kind in enumerate(self.types) if i == 0 or kind != self.types[i - 1])
        return WholeIndex(len(self.ordered), groups, len(self.omitted), len(self.broken))

    def status(self) -> MemoryStatus:
        return MemoryStatus(self.active, self.total, self.index_tokens, self.budget)


def early_index(project: Project, today: _dt.date) -> IndexView | None:
    """The index view from the parse cache's columns, when the store was loaded from the cache
    unchanged and no Fact has been built yet (None otherwise): what `Overview.index_view()`
    gives for the same files, for a fraction of the cost, so the TUI paints it first."""
    snapshot = project.store.pending_snapshot
    if snapshot is None:
        return None
    return index_view_of(snapshot, today, project.config_or_defaults()[0].index_token_budget)


def index_view_of(snapshot: Snapshot, today: _dt.date, budget: int) -> IndexView:
    """The index view of the facts in `snapshot` (see early_index)."""
    from foundry_tui.core.memory.reports.index_file import build_index_of_ids
    from foundry_tui.core.memory.storage.snapshot import unpack_tags

    positions = snapshot.index_positions(today.isoformat())
    columns = snapshot.columns
    ids, types, titles, tags = columns["id"], columns["type"], columns["title"], columns["tags"]
    ordered = list(map(ids.__getitem__, positions))
    at = dict(zip(ordered, positions, strict=True))
    # index_line reads the id, type, title and tags: only the listed facts are built, bodiless.
    _text, report = build_index_of_ids(ordered, lambda fact_id: snapshot.fact(at[fact_id], body=""), budget)

    def entry(fact_id: str) -> tuple[str, tuple[str, ...]]:
        i = at[fact_id]
        return titles[i], unpack_tags(tags[i])

    return IndexView(
        ordered=ordered,
        types=list(map(types.__getitem__, positions)),
        entry=entry,
        omitted=set(report.omitted_ids),
        listed=report.listed,
        index_tokens=report.tokens,
        budget=budget,
        total=len(snapshot) + len(snapshot.broken),
        broken=[BrokenFile(name, snapshot.broken[name]) for name in sorted(snapshot.broken)],
        inactive=None,
    )


class Overview:
    """Everything the curator's main screen shows, computed in one pass off the UI thread."""

    __slots__ = (
        "active",
        "adrs",
        "broken",
        "budget",
        "changes",
        "code",
        "config_problem",
        "doctor",
        "facts",
        "inactive",
        "index_tokens",
        "listed",
        "omitted",
        "ordered",
        "prune",
        "replaced_by",
        "today",
        "verification",
    )

    def __init__(
        self,
        project: Project,
        today: _dt.date,
        adrs: Mapping[str, tuple[str, str]],
        *,
        with_doctor: bool = True,
        changes: Changes | None = None,
    ) -> None:
        """`changes`: what the caller's own `project.sync()` found, just before, under the
        project's lock (the store is not synced again)."""
        from foundry_tui.core.memory.model.facts import id_order
        from foundry_tui.core.memory.reports.index_file import build_index_of_ids, index_order
        from foundry_tui.core.memory.reports.prune import prune_candidates

        self.changes = project.sync() if changes is None else changes
        store = project.store
        self.today = today
        self.facts: dict[str, Fact] = dict(store.facts)
        active = store.active_facts(today)
        self.active: list[str] = [f.id for f in active]
        self.replaced_by = dict(store.superseded_by())
        # Only expired or replaced facts are inactive: visit those, in id order (inactive_reason's words).
        iso = today.isoformat()
        maybe = {f.id for f in self.facts.values() if f.expires is not None and f.expires < iso}
        maybe.update(fact_id for fact_id in self.replaced_by if fact_id in self.facts)
        self.inactive: dict[str, str] = {}
        for fact_id in sorted(maybe, key=id_order):
            reason = store.inactive_reason(self.facts[fact_id], today)
            if reason:
                self.inactive[fact_id] = reason
        config, config_error = project.config_or_defaults()
        self.config_problem: str | None = None if config_error is None else str(config_error)
        self.budget = config.index_token_budget
        self.ordered: list[str] = [f.id for f in index_order(active)]
        _text, report = build_index_of_ids(self.ordered, self.facts.__getitem__, self.budget)
        self.index_tokens = report.tokens
        self.omitted: set[str] = set(report.omitted_ids)
        self.listed = report.listed
        # Each active fact's refs with their states (issue 30); git is read only when one has refs.
        self.code: dict[str, list[str]] = {}
        verification = None
        if any(f.extras and "refs" in f.extras for f in active):
            from foundry_tui.core.memory.reports.grounding import verify_facts

            verification = verify_facts(project, active)
            self.code = {fid: [s.line() for s in c.refs] for fid, c in verification.checks.items()}
        self.verification = verification  # the states themselves (None: no active fact has refs)
        self.prune = prune_candidates(store, today, verification)
        self.broken = sorted(store.broken.values(), key=lambda b: b.name)
        self.doctor = None
        if with_doctor:
            from foundry_tui.core.memory.reports.doctor import run_doctor

            self.doctor = run_doctor(project, today)
        # adr-0007 → (file name, title), passed in, so that showing a fact's source needs no I/O.
        self.adrs = dict(adrs)

    def index_view(self) -> IndexView:
        facts = self.facts

        def entry(fact_id: str) -> tuple[str, tuple[str, ...]]:
            fact = facts[fact_id]
            return fact.title, fact.tags

        return IndexView(
            ordered=self.ordered,
            types=[facts[fact_id].type for fact_id in self.ordered],
            entry=entry,
            omitted=self.omitted,
            listed=self.listed,
            index_tokens=self.index_tokens,
            budget=self.budget,
            total=len(facts) + len(self.broken),
            broken=self.broken,
            inactive=self.inactive,
        )

    def older(self, fact_id: str) -> list[str]:
        """The ids this fact replaced (all the sources of a merge), then theirs, newest first."""
        return older_ids(fact_id, self.facts)

    def newer(self, fact_id: str) -> list[str]:
        """The ids that replaced this fact, oldest first."""
        return newer_ids(fact_id, self.replaced_by)
