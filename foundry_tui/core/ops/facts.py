"""The door for T1 facts: write, retire, tag, merge, keep one of two that disagree, and
promote a session's working fact; each goes through the trust gate (`gated`: denied when
unattended, parked as a proposal unless trusted). Rebuilding the index is a curator's."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from foundry_tui.core.ops.actor import Actor, require_curator
from foundry_tui.core.ops.registry import operation

if TYPE_CHECKING:
    from foundry_tui.core.code_refs import FactCheck
    from foundry_tui.core.curation.merge import MergePlan, MergeResult
    from foundry_tui.core.gate.changes import Change
    from foundry_tui.core.gate.guard import GateResult
    from foundry_tui.core.memory.model.facts import Fact
    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.core.memory.reports.index_file import IndexReport
    from foundry_tui.core.memory.writing.write import RetireResult, WriteResult

R = TypeVar("R")


def _through_gate(actor: Actor, change: Change[R]) -> GateResult[R]:
    from foundry_tui.core.gate.guard import guarded_write

    return guarded_write(actor.project, actor.caller, change, actor.today)


@operation("fact.write", "gated", "memory_write: a new fact, or a new version superseding a same-titled one")
def write_fact(actor: Actor, req: WriteRequest) -> GateResult[WriteResult]:
    from foundry_tui.core.gate.changes import WriteChange

    return _through_gate(actor, WriteChange(req))


def restating(fact: Fact, *, body: str | None = None, check: FactCheck | None = None) -> WriteRequest:
    """A write that restates `fact` as a new version of it (memory_write supersedes the fact of
    the same title): its title, type, scope, tags, confidence, source and expires as they are,
    its body or `body`. Given `check`, its refs' states, the refs a confirm re-records
    (code_refs.confirmed_targets: a moved ref at its new path, a gone one dropped); without,
    the refs are left out and memory_write carries the fact's own. What the adapters' confirm,
    supersede and Why-line presets write (issue 30)."""
    from foundry_tui.core.memory.model.request import WriteRequest

    refs = None
    if check is not None:
        from foundry_tui.core.code_refs import confirmed_targets

        refs = confirmed_targets(check.refs)
    return WriteRequest(
        title=fact.title,
        body=fact.body if body is None else body,
        type=fact.type,
        scope=fact.scope,
        tags=fact.tags,
        confidence=fact.confidence,
        source=fact.source,
        expires=fact.expires,
        refs=refs,
    )


def close_to_written(actor: Actor, fact_id: str) -> str:
    """What to tell the writer of `fact_id` about the active facts close to it in meaning (at most
    meaning.MAX_CLOSE, one line each), or "" when none is or when this process has no warm model
    and vectors: a read after the write, never a load of the model (issue 29)."""
    project = actor.project
    if project.warm_encoder() is None:  # before importing numpy: a one-shot process pays nothing
        return ""
    from foundry_tui.core.curation.meaning import close_facts, close_text

    return close_text(close_facts(project, fact_id, actor.today))


def default_expiry(actor: Actor) -> str:
    """A retirement's default `expires`: yesterday, so the fact is inactive at once."""
    import datetime as _dt

    return (actor.today - _dt.timedelta(days=1)).isoformat()


@operation("fact.retire", "gated", "retire facts by setting expires (no file is deleted)")
def retire_facts(actor: Actor, ids: list[str], expires: str | None = None) -> GateResult[RetireResult]:
    from foundry_tui.core.gate.changes import RetireChange

    return _through_gate(actor, RetireChange(ids, expires or default_expiry(actor)))


@operation("fact.tag", "gated", "add a retrieval word to a fact's tags")
def tag_fact(actor: Actor, fact_id: str, tag: str) -> GateResult[IndexReport]:
    from foundry_tui.core.gate.changes import TagChange

    return _through_gate(actor, TagChange(fact_id, tag))


@operation("fact.merge", "gated", "merge near-duplicates into one new fact superseding every source")
def merge_facts(actor: Actor, plan: MergePlan) -> GateResult[MergeResult]:
    from foundry_tui.core.gate.changes import MergeChange

    return _through_gate(actor, MergeChange.from_plan(plan))


@operation("fact.keep_one", "gated", "settle a contradiction: keep one fact, supersede or retire the other")
def keep_one(actor: Actor, keep: Fact, other: Fact, how: str) -> GateResult[MergeResult | RetireResult]:
    from foundry_tui.core.gate.changes import resolve_change

    change: Change[MergeResult | RetireResult] = resolve_change(keep, other, how, actor.today)
    return _through_gate(actor, change)


@operation("index.rebuild", "curator", "regenerate INDEX.md from the active facts")
def rebuild_index(actor: Actor) -> IndexReport:
    from foundry_tui.core.memory.writing.write import memory_index

    require_curator(actor, "rebuild the index (every approved write rebuilds it)")
    return memory_index(actor.project, actor.today)


def index_if_missing(actor: Actor) -> None:
    """Spec 002's "built on demand if missing", for a reader of the index resource: written
    only for a principal who may rebuild it; anyone else is served the index built from
    today's facts all the same, and nothing is written."""
    import contextlib

    from foundry_tui.core.errors import FoundryError

    if actor.project.layout.index_path.exists():
        return
    with contextlib.suppress(FoundryError):  # not a curator: served from the facts, INDEX.md left for one
        rebuild_index(actor)
