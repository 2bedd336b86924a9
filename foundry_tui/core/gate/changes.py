"""The T1 changes the gate gates (core/gate/guard.py): write, promote, merge, retire and tag.

Each change can say what it would do today (written into a proposal, touching nothing),
apply itself through the core write functions (memory's writes, curation's merge), and
travel in a proposal as JSON: the fact fields of a `fact.v1` artifact (what the fact will
look like) plus the operation's own arguments (`request`). A change's type parameter is
what its core write function returns (`Change[MergeResult]` for a merge).
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Generic, TypeVar

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project, find_fact

if TYPE_CHECKING:
    from foundry_tui.core.curation.merge import MergePlan, MergeResult
    from foundry_tui.core.json_types import JSONObject
    from foundry_tui.core.memory.reports.index_file import IndexReport
    from foundry_tui.core.memory.writing.write import RetireResult, WriteResult

R_co = TypeVar("R_co", covariant=True)

OPERATIONS = ("write", "promote", "merge", "retire", "tag")
FACT_FIELDS = ("type", "scope", "title", "tags", "confidence", "source", "expires", "body")


class Preview:
    """One fact a change would produce or alter, and what it would do today."""

    __slots__ = ("fact", "would_do")

    def __init__(self, fact: JSONObject, would_do: str) -> None:
        self.fact = fact  # fact.v1 fields (no schema/producedBy)
        self.would_do = would_do


class Outcome:
    """What applying a change would do now, writing nothing: the facts as they are (`before`),
    the facts exactly as approval writes them (`after`, a new fact with the next free id),
    and the one line saying it. A curator reviews this, never the proposal's own text."""

    __slots__ = ("after", "before", "would_do")

    def __init__(self, before: list[Fact], after: list[Fact], would_do: str) -> None:
        self.before = before
        self.after = after
        self.would_do = would_do


def _copy(fact: Fact) -> Fact:
    from foundry_tui.core.memory.model.facts import RECORD_FIELDS

    return Fact(**{name: getattr(fact, name) for name in RECORD_FIELDS})


def _next_id(project: Project) -> str:
    from foundry_tui.core.memory.model.facts import format_id

    return format_id(project.store.max_number() + 1)


class Applied(Generic[R_co]):
    """What applying a change did: the reply text, the fact it wrote (if any), the core result."""

    __slots__ = ("action", "fact_id", "result", "text")

    def __init__(self, text: str, action: str, fact_id: str | None, result: R_co) -> None:
        self.text = text
        self.action = action
        self.fact_id = fact_id
        self.result = result


def _existing(active: list[Fact], new: Fact) -> tuple[Fact | None, Fact | None]:
    """(the active fact `new` would leave unchanged, the active fact it would supersede):
    memory_write's matching (core/memory/writing/write.py), kept beside it by a property test."""
    from foundry_tui.core.memory.model.facts import fingerprint, normalise

    title_key = normalise(new.title)
    same_title = sorted((f for f in active if normalise(f.title) == title_key), key=lambda f: f.order_key)
    print_fp = fingerprint(new.title, new.body)
    same = [f for f in same_title if f.fingerprint == print_fp]
    if same:
        return same[-1], None
    return None, (same_title[-1] if same_title else None)


def write_outcome(project: Project, req: WriteRequest, today: _dt.date) -> tuple[str, Fact | None]:
    """What memory_write would do now, writing nothing: ("unchanged", the same fact),
    ("updated", the fact it would supersede) or ("created", None). Checks every field."""
    from foundry_tui.core.atomic import folder_lock
    from foundry_tui.core.memory.model.request import validate_request

    new = validate_request(req)
    with folder_lock(project.layout.memory_dir):
        project.sync()
        same, older = _existing(project.store.active_facts(today), new)
    if same is not None:
        return "unchanged", same
    return ("updated", older) if older is not None else ("created", None)


def _fact_fields(fact: Fact) -> JSONObject:
    data = fact.to_dict()
    fields = {k: data[k] for k in ("id", *FACT_FIELDS) if data.get(k) not in (None, "")}
    if fact.supersedes:
        fields["supersedes"] = fact.supersedes
    return fields


def _request_fields(req: WriteRequest) -> JSONObject:
    """The fact fields of a request, checked and normalised as memory_write stores them. An
    optional field the caller left out (None) stays out, so approval leaves it out too."""
    from foundry_tui.core.memory.model.request import validate_request

    fact = validate_request(req)
    fields: JSONObject = {"type": fact.type, "title": fact.title, "body": fact.body}
    for name in ("scope", "tags", "confidence", "source", "expires"):
        if getattr(req, name) is not None and getattr(fact, name) is not None:
            value = getattr(fact, name)
            fields[name] = list(value) if name == "tags" else value
    if req.refs is not None:
        fields["refs"] = [str(ref) for ref in req.refs]
    return fields


def request_from_fields(fields: JSONObject) -> WriteRequest:
    """The WriteRequest a proposal's fact fields stand for (what approval writes); a field
    the proposal does not hold is left out (None), as its author left it out."""
    req = WriteRequest(
        title=str(fields.get("title", "")), body=str(fields.get("body", "")), type=str(fields.get("type", ""))
    )
    tags = fields.get("tags")
    given: JSONObject = {
        name: str(fields[name]) if fields.get(name) not in (None, "") else None
        for name in ("scope", "confidence", "source", "expires")
    }
    given["tags"] = [str(t) for t in tags] if isinstance(tags, list) else None
    refs = fields.get("refs")
    given["refs"] = [str(r) for r in refs] if isinstance(refs, list) else None
    for name, value in given.items():
        setattr(req, name, value)  # None: left out, as memory_write takes it
    return req


class Change(Generic[R_co]):
    """A T1 change. Subclasses say what it would do, do it, and (de)serialise it."""

    operation = ""

    def request(self) -> JSONObject:
        """The operation's own arguments (beside the fact fields) as JSON."""
        return {}

    def previews(self, project: Project, today: _dt.date) -> list[Preview]:
        """Each fact the change produces or alters, checked, with what it would do today."""
        raise NotImplementedError

    def apply(self, project: Project, today: _dt.date) -> Applied[R_co]:
        raise NotImplementedError

    def describe(self) -> str:
        """What applying it changes, in one line, from its own arguments alone."""
        raise NotImplementedError

    def outcome(self, project: Project, today: _dt.date) -> Outcome:
        """What applying it would do now (InputError when it could not be applied)."""
        raise NotImplementedError

    def with_author(self, author: str, proposal_id: str) -> Change[R_co]:
        """The change as approval applies it (a written fact's source names who proposed it)."""
        return self


def attributed_source(source: str | None, author: str, proposal_id: str) -> str:
    """`adr-0007; proposed by user:bob in prop-0003`: the fact's source keeps its origin
    first (so an ADR reference still resolves) and says who proposed it."""
    return f"{source or 'conversation'}; proposed by {author} in {proposal_id}"


class WriteChange(Change["WriteResult"]):
    """memory_write (or a session-memory promotion, operation `promote`)."""

    def __init__(self, req: WriteRequest, operation: str = "write") -> None:
        if operation not in ("write", "promote"):
            raise ValueError(operation)
        self.req = req
        self.operation = operation

    def previews(self, project: Project, today: _dt.date) -> list[Preview]:
        action, existing = write_outcome(project, self.req, today)
        would_do = "created" if existing is None else f"{action} {existing.id}"
        fields = _request_fields(self.req)
        if action == "updated" and existing is not None:
            fields["supersedes"] = existing.id
        return [Preview(fields, would_do)]

    def apply(self, project: Project, today: _dt.date) -> Applied[WriteResult]:
        from foundry_tui.core.memory.writing.write import memory_write

        result = memory_write(project, self.req, today)
        return Applied(result.text(), result.action, result.fact_id, result)

    def describe(self) -> str:
        return self.req.title

    def outcome(self, project: Project, today: _dt.date) -> Outcome:
        from foundry_tui.core.atomic import folder_lock
        from foundry_tui.core.memory.model.request import validate_request
        from foundry_tui.core.memory.writing.write import plan_write

        new = validate_request(self.req)
        with folder_lock(project.layout.memory_dir):
            project.sync()
            same, _carried, _notes = plan_write(project, new, self.req, today)
            if same is not None:
                return Outcome([same], [same], f"unchanged {same.id}")
            new.id = _next_id(project)
            older = project.store.get(new.supersedes) if new.supersedes else None
        if older is None:
            return Outcome([], [new], "created")
        return Outcome([older], [new], f"updated {older.id}")

    def with_author(self, author: str, proposal_id: str) -> WriteChange:
        r = self.req
        source = attributed_source(r.source or "", author, proposal_id)
        req = WriteRequest(r.title, r.body, r.type, r.scope, r.tags, r.confidence, source, r.expires, r.refs)
        return WriteChange(req, self.operation)


class MergeChange(Change["MergeResult"]):
    """A curator merge: the merged fact replaces every source (core/curation/merge.py)."""

    operation = "merge"

    def __init__(
        self,
        ids: list[str],
        title: str | None = None,
        body: str | None = None,
        author: tuple[str, str] | None = None,
        type: str | None = None,
    ) -> None:
        self.ids = list(ids)
        self.title = title
        self.body = body
        self.author = author  # (principal, proposal id) once approved
        self.type = type

    @classmethod
    def from_plan(cls, plan: MergePlan) -> MergeChange:
        """A planned (maybe edited) merge: its sources, title, body and type."""
        return cls(plan.source_ids, plan.request.title, plan.request.body, type=plan.request.type)

    def request(self) -> JSONObject:
        return {"ids": list(self.ids)}

    def plan(self, project: Project) -> MergePlan:
        from foundry_tui.core.curation.merge import merge_plan

        plan = merge_plan(project, self.ids, title=self.title, body=self.body, type=self.type)
        if self.author is not None:
            plan.request.source = attributed_source(plan.request.source, *self.author)
        return plan

    def previews(self, project: Project, today: _dt.date) -> list[Preview]:
        plan = self.plan(project)
        plan.fact(today)  # every field checked, as the merge itself will
        for fact in plan.sources:
            reason = project.store.inactive_reason(fact, today)
            if reason:
                raise InputError(f"{fact.id} is no longer active ({reason}): it cannot be merged")
        fields = _request_fields(plan.request)
        fields["supersedes"] = plan.source_ids[0]
        fields["merged_from"] = [*plan.source_ids]
        return [Preview(fields, f"merge {', '.join(plan.source_ids)} into a new fact")]

    def apply(self, project: Project, today: _dt.date) -> Applied[MergeResult]:
        from foundry_tui.core.curation.merge import merge_facts

        result = merge_facts(project, self.plan(project), today)
        return Applied(result.text(), "merged", result.fact_id, result)

    def describe(self) -> str:
        return f"{', '.join(self.ids)} into: {self.title}"

    def outcome(self, project: Project, today: _dt.date) -> Outcome:
        (preview,) = self.previews(project, today)  # every check the merge makes
        plan = self.plan(project)
        new = plan.fact(today)
        new.id = _next_id(project)
        return Outcome(list(plan.sources), [new], preview.would_do)

    def with_author(self, author: str, proposal_id: str) -> MergeChange:
        return MergeChange(self.ids, self.title, self.body, (author, proposal_id), self.type)


class RetireChange(Change["RetireResult"]):
    """Retire facts by setting `expires`; one proposal per fact when parked."""

    operation = "retire"

    def __init__(self, ids: list[str], expires: str) -> None:
        if not ids:
            raise InputError("name at least one fact to retire")
        self.ids = list(dict.fromkeys(i.strip() for i in ids))
        self.expires = expires

    def request(self) -> JSONObject:
        return {"ids": list(self.ids), "expires": self.expires}

    def previews(self, project: Project, today: _dt.date) -> list[Preview]:
        from foundry_tui.core.memory.model.facts import check_date
        from foundry_tui.core.memory.writing.write import left_as_it_is

        day = check_date(self.expires, "expires")
        project.sync()
        out = []
        for fact_id in self.ids:
            fact = find_fact(project, fact_id)
            reason = project.store.inactive_reason(fact, today)
            if reason is not None:  # approving it would change nothing (retire_facts leaves it)
                raise InputError(f"{left_as_it_is(fact, reason)}: nothing to propose")
            fields = _fact_fields(fact)
            fields["expires"] = day
            out.append(Preview(fields, f"retire {fact_id} (expires {day})"))
        return out

    def describe(self) -> str:
        return f"{', '.join(self.ids)} (expires {self.expires})"

    def outcome(self, project: Project, today: _dt.date) -> Outcome:
        previews = self.previews(project, today)
        before = [find_fact(project, fact_id) for fact_id in self.ids]
        after = [_copy(f) for f in before]
        for fact, preview in zip(after, previews, strict=True):
            fact.expires = str(preview.fact["expires"])  # check_date's day, set by previews
        return Outcome(before, after, "; ".join(p.would_do for p in previews))

    def split(self) -> list[RetireChange]:
        return [RetireChange([fact_id], self.expires) for fact_id in self.ids]

    def apply(self, project: Project, today: _dt.date) -> Applied[RetireResult]:
        from foundry_tui.core.memory.writing.write import retire_facts

        result = retire_facts(project, self.ids, self.expires, today)
        return Applied(result.text(), "retired", None, result)


def _tags_of(fields: JSONObject) -> list[str]:
    """The tags of a fact's fields (_fact_fields: a list of str when there are any)."""
    tags = fields.get("tags")
    return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []


class TagChange(Change["IndexReport"]):
    """Add a retrieval word to a fact's tags."""

    operation = "tag"

    def __init__(self, fact_id: str, tag: str) -> None:
        self.fact_id = fact_id.strip()
        self.tag = tag

    def request(self) -> JSONObject:
        return {"ids": [self.fact_id], "tag": self.tag}

    def previews(self, project: Project, today: _dt.date) -> list[Preview]:
        from foundry_tui.core.memory.model.facts import check_tags

        (word,) = check_tags([self.tag]) or ("",)
        if not word:
            raise InputError("the tag is empty: give the word searches used")
        project.sync()
        fields = _fact_fields(find_fact(project, self.fact_id))
        tags = _tags_of(fields)
        already = word in tags
        if not already:
            fields["tags"] = [*tags, word]
        return [Preview(fields, f"unchanged {self.fact_id}" if already else f"tag {self.fact_id} +{word}")]

    def describe(self) -> str:
        return f"{self.fact_id} +{self.tag.strip()}"

    def outcome(self, project: Project, today: _dt.date) -> Outcome:
        (preview,) = self.previews(project, today)
        before = find_fact(project, self.fact_id)
        after = _copy(before)
        after.tags = tuple(_tags_of(preview.fact))
        return Outcome([before], [after], preview.would_do)

    def apply(self, project: Project, today: _dt.date) -> Applied[IndexReport]:
        from foundry_tui.core.memory.writing.write import add_tag

        report = add_tag(project, self.fact_id, self.tag, today)
        return Applied(f"tagged: {self.fact_id} +{self.tag.strip()}\n{report.write_line()}", "tagged", None, report)


def change_from_proposal(operation: str, fields: JSONObject, request: JSONObject) -> Change[object]:
    """Rebuild the change a proposal records; InputError when it cannot be (a hand edit)."""
    given = request.get("ids")
    if operation in ("write", "promote"):
        return WriteChange(request_from_fields(fields), operation)
    ids = [i for i in given if isinstance(i, str)] if isinstance(given, list) else []
    if not ids or not isinstance(given, list) or len(ids) != len(given):
        raise InputError(f"a {operation} proposal needs request.ids, a list of fact ids")
    if operation == "merge":
        kind = fields.get("type")
        return MergeChange(
            ids,
            title=str(fields.get("title", "")),
            body=str(fields.get("body", "")),
            type=kind if isinstance(kind, str) else None,
        )
    if operation == "retire":
        expires = request.get("expires")
        if not isinstance(expires, str):
            raise InputError("a retire proposal needs request.expires, a date")
        return RetireChange(ids, expires)
    if operation == "tag":
        tag = request.get("tag")
        if not isinstance(tag, str) or len(ids) != 1:
            raise InputError("a tag proposal needs request.tag and exactly one id")
        return TagChange(ids[0], tag)
    raise InputError(f"unknown operation '{operation}': one of {', '.join(OPERATIONS)}")


RESOLUTIONS = ("supersede", "retire")


def resolve_change(keep: Fact, other: Fact, how: str, today: _dt.date) -> MergeChange | RetireChange:
    """The change that resolves a contradiction (core/curation/conflicts.py) in favour of
    `keep`, for the gate (core/gate/guard.py: guarded_write), which writes it or parks it
    as a proposal:

    - "supersede": memory_write's merge path writes one new fact stating `keep`'s claim (its
      title, body and type) that supersedes `other` and lists both in `merged_from`, so both
      old files stay, inactive, and the chain back to them stays readable;
    - "retire": `other` expires yesterday; `keep` is untouched."""
    if keep.id == other.id:
        raise InputError("pick one fact to keep and another to supersede or retire")
    if how == "supersede":
        return MergeChange([other.id, keep.id], title=keep.title, body=keep.body, type=keep.type)
    if how == "retire":
        return RetireChange([other.id], (today - _dt.timedelta(days=1)).isoformat())
    raise InputError(f"resolve how? '{how}' is not one of {', '.join(RESOLUTIONS)}")
