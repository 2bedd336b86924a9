"""Proposals: T1 changes parked by the gate (core/gate/guard.py) for a trusted curator to approve or reject.

Each is a `fact.v1` artifact at `.foundry/blackboard/_proposals/prop-NNNN.json` (a wave no
general tool may touch): the fact fields as the change would leave the fact, and a
`proposal` object with the operation, its arguments (`request`), the author (principal),
the date, what it would do on that day, and its status. Approval applies it through the
core write functions as the approving principal; rejection keeps it with the reason.
Nothing here deletes a proposal. A proposal file is checked against the `fact.v1` contract
(core/artefacts/contracts.py) before it is trusted as one.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from foundry_tui.core.atomic import atomic_write, exclusive_create, folder_lock
from foundry_tui.core.errors import FoundryError, InputError, NotFoundError
from foundry_tui.core.gate.changes import OPERATIONS, Change, Preview, RetireChange, change_from_proposal
from foundry_tui.core.memory.project import Project
from foundry_tui.core.paths import Layout
from foundry_tui.core.reserved import proposals_dir
from foundry_tui.core.trust.principal import Caller, parse_principal
from foundry_tui.core.yaml_bounds import YamlBoundsError, check_yaml_bounds

if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject, JSONValue

SCHEMA = "fact.v1"
STATUSES = ("pending", "approved", "rejected")
ID_RE = re.compile(r"prop-(\d{4,})")
FILE_RE = re.compile(r"prop-(\d{4,})\.json")


class Proposal:
    """One proposal file; `problem` says why it is broken (then it is never approved)."""

    __slots__ = ("data", "id", "path", "problem")

    def __init__(self, proposal_id: str, path: Path, data: JSONObject | None, problem: str | None = None):
        self.id = proposal_id
        self.path = path
        self.data = data
        self.problem = problem

    @property
    def meta(self) -> JSONObject:
        meta = self.data.get("proposal") if self.data else None
        return meta if isinstance(meta, dict) else {}

    @property
    def status(self) -> str:
        return "broken" if self.problem else str(self.meta.get("status", "?"))

    @property
    def author(self) -> str:
        return str(self.meta.get("author", "?"))

    @property
    def operation(self) -> str:
        return str(self.meta.get("operation", "?"))

    @property
    def proposed_on(self) -> str:
        return str(self.meta.get("proposedOn", "?"))

    @property
    def would_do(self) -> str:
        return str(self.meta.get("wouldDo", "?"))

    @property
    def title(self) -> str:
        return str(self.data.get("title", "")) if self.data else ""

    @property
    def summary(self) -> str:
        """What approval applies, in one line, rebuilt from its request (never the file's own
        `title` or `wouldDo`, which need not match: "retire fact-0003" retiring three)."""
        if self.problem:
            return ""
        try:
            return self.change().describe()
        except FoundryError as exc:
            return f"(cannot be applied: {exc})"

    @property
    def fields(self) -> JSONObject:
        """The fact fields (everything but schema, producedBy, summary and proposal)."""
        if not self.data:
            return {}
        return {k: v for k, v in self.data.items() if k not in ("schema", "producedBy", "summary", "proposal")}

    def change(self) -> Change[object]:
        request = self.meta.get("request", {})
        return change_from_proposal(self.operation, self.fields, request if isinstance(request, dict) else {})

    def age(self, today: _dt.date) -> str:
        try:
            days = (today - _dt.date.fromisoformat(self.proposed_on)).days
        except ValueError:
            return "?"
        return "today" if days <= 0 else f"{days} day{'s' if days != 1 else ''}"

    def outcome(self) -> str:
        """How it was decided, for listings: `approved by user:alice: updated: fact-0012 ...`."""
        meta = self.meta
        if self.status == "approved":
            return (
                f"approved by {meta.get('decidedBy', '?')} on {meta.get('decidedOn', '?')}: {meta.get('result', '?')}"
            )
        if self.status == "rejected":
            return f"rejected by {meta.get('decidedBy', '?')} on {meta.get('decidedOn', '?')}: {meta.get('reason', '')}"
        return ""

    def to_dict(self) -> JSONObject:
        if self.problem:
            return {"id": self.id, "status": "broken", "problem": self.problem, "path": self.path.name}
        meta = self.meta
        out: JSONObject = {
            "id": self.id,
            "status": self.status,
            "operation": self.operation,
            "proposedOn": self.proposed_on,
            "applies": self.summary,  # rebuilt from the request: what approval applies
            # what the file says of itself, never checked: a pull request can write any of it
            "claimed": {"author": self.author, "title": self.title, "wouldDo": self.would_do},
            "fact": self.fields,
            "request": meta.get("request", {}),
        }
        for key in ("decidedBy", "decidedOn", "result", "factId", "reason"):
            if key in meta:
                out[key] = meta[key]
        return out


def _check(layout: Layout, proposal_id: str, data: JSONValue) -> str | None:
    """Why a decoded proposal cannot be trusted as one, or None."""
    from foundry_tui.core.artefacts.contracts import load_contract, violations

    if not isinstance(data, dict):
        return "not a JSON object"
    problems = violations(load_contract(layout, SCHEMA), data)
    if problems:
        return f"does not satisfy {SCHEMA}: {problems[0]}"
    meta = data.get("proposal")
    if not isinstance(meta, dict):
        return "has no proposal object"
    if meta.get("id") != proposal_id:
        return f"its proposal.id {meta.get('id')!r} does not match its file name"
    operation = meta.get("operation")
    if not isinstance(operation, str) or operation not in OPERATIONS:
        return f"proposal.operation must be one of {', '.join(OPERATIONS)}"
    if meta.get("status") not in STATUSES:
        return f"proposal.status must be one of {', '.join(STATUSES)}"
    try:
        parse_principal(str(meta.get("author", "")), "proposal.author")
        request = meta.get("request")
        if not isinstance(request, dict):
            return "proposal.request must be an object"
        change_from_proposal(operation, data, request)
    except FoundryError as exc:
        return str(exc)
    return None


def _load(layout: Layout, path: Path) -> Proposal:
    proposal_id = path.name[: -len(".json")]
    if path.is_symlink():
        return Proposal(proposal_id, path, None, "is a symlink, not a proposal file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return Proposal(proposal_id, path, None, f"cannot be read ({exc})")
    try:
        data = json.loads(text)
        check_yaml_bounds(data, "its JSON")  # what a repository carries has the same bounds as frontmatter
    except json.JSONDecodeError as exc:
        return Proposal(proposal_id, path, None, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
    except YamlBoundsError as exc:
        return Proposal(proposal_id, path, None, str(exc).split(":", 1)[0])
    except (ValueError, RecursionError) as exc:  # the parser's own nesting and digit limits
        reason = "nested too deeply" if isinstance(exc, RecursionError) else "a number has more than 4300 digits"
        return Proposal(proposal_id, path, None, f"not valid JSON ({reason})")
    problem = _check(layout, proposal_id, data)
    return Proposal(proposal_id, path, data if isinstance(data, dict) else None, problem)


def _number(name: str) -> int:
    match = FILE_RE.fullmatch(name)
    return int(match.group(1)) if match else -1


def _folder(layout: Layout) -> Path:
    """The proposals folder; refused when it was replaced by a symlink (it could point anywhere)."""
    folder = proposals_dir(layout)
    if folder.is_symlink():
        raise FoundryError(
            f"{layout.relative(folder)} has been replaced by a symlink; refusing to follow it: "
            "remove the link (proposals only ever live in a plain folder there)"
        )
    return folder


def list_proposals(layout: Layout) -> list[Proposal]:
    """Every proposal file, oldest first; broken ones included (with their problem)."""
    folder = _folder(layout)
    if not folder.is_dir():
        return []
    paths = sorted((p for p in folder.iterdir() if FILE_RE.fullmatch(p.name)), key=lambda p: _number(p.name))
    return [_load(layout, p) for p in paths]


def pending_count(layout: Layout) -> int:
    """How many proposals wait for a curator (the TUI header shows it)."""
    return sum(1 for p in list_proposals(layout) if p.status == "pending")


def load_proposal(layout: Layout, proposal_id: str) -> Proposal:
    key = proposal_id.strip()
    if not ID_RE.fullmatch(key):
        raise InputError(f"'{proposal_id}' is not a proposal id: use the form prop-0001 (see `foundry proposals list`)")
    path = _folder(layout) / f"{key}.json"
    if not path.exists() and not path.is_symlink():
        raise NotFoundError(f"no proposal {key}: list them with `foundry proposals list`")
    return _load(layout, path)


# ---- parking -------------------------------------------------------------------------------


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _artifact(
    proposal_id: str, caller: Caller, change: Change[object], preview: Preview, today: _dt.date
) -> JSONObject:
    return {
        "schema": SCHEMA,
        "producedBy": str(caller.principal),
        **preview.fact,
        "summary": f"{change.operation} proposed by {caller.principal}: {preview.would_do}",
        "proposal": {
            "id": proposal_id,
            "operation": change.operation,
            "request": change.request(),
            "author": str(caller.principal),
            "proposedOn": today.isoformat(),
            "proposedAt": _now(),
            "wouldDo": preview.would_do,
            "status": "pending",
        },
    }


def park(project: Project, caller: Caller, change: Change[object], today: _dt.date) -> list[Proposal]:
    """Record `change` as proposals (a bulk retire: one per fact). Every part is checked
    before any file is written; no fact file changes."""
    parts: list[Change[object]] = list(change.split()) if isinstance(change, RetireChange) else [change]
    planned = [(part, part.previews(project, today)[0]) for part in parts]
    folder = _folder(project.layout)
    folder.mkdir(parents=True, exist_ok=True)
    from foundry_tui.core.events import record_event

    made = []
    for part, preview in planned:
        number = max((_number(p.name) for p in folder.iterdir()), default=0) + 1
        while True:
            proposal_id = f"prop-{max(number, 1):04d}"
            data = _artifact(proposal_id, caller, part, preview, today)
            path = folder / f"{proposal_id}.json"
            if exclusive_create(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", inside=project.layout):
                break
            number += 1
        made.append(Proposal(proposal_id, path, data))
        record_event(project.layout, "proposal_parked", id=proposal_id, operation=part.operation)
    return made


def parked_text(caller: Caller, proposals: list[Proposal]) -> str:
    """The reply to a parked write (the same for the MCP tool, the CLI and the TUI)."""
    ids = ", ".join(p.id for p in proposals)
    how = (
        f"approves it with `foundry proposals approve {proposals[0].id}`"
        if len(proposals) == 1
        else "approves each with `foundry proposals approve ID`"
    )
    return "\n".join(
        [
            f"parked: {ids} ({caller.principal} is not trusted to change shared memory, so no fact file changed)",
            *(f"Today it would: {p.would_do}" for p in proposals),
            f"A trusted curator {how} (or in the TUI's Approvals screen).",
        ]
    )


# ---- deciding ------------------------------------------------------------------------------


def _decidable(proposal: Proposal, verb: str) -> None:
    if proposal.problem:
        raise InputError(
            f"{proposal.id} is broken ({proposal.problem}), so it is never {verb}: "
            f"fix {proposal.path.name} by hand or ask its author to propose again"
        )
    if proposal.status != "pending":
        raise InputError(f"{proposal.id} is already {proposal.outcome()}")


def _decide(
    layout: Layout, proposal: Proposal, caller: Caller, today: _dt.date, status: str, **fields: JSONValue
) -> None:
    assert proposal.data is not None
    meta = dict(proposal.meta)
    meta.update(status=status, decidedBy=str(caller.principal), decidedOn=today.isoformat(), decidedAt=_now())
    meta.update(fields)
    proposal.data["proposal"] = meta
    atomic_write(proposal.path, json.dumps(proposal.data, indent=2, ensure_ascii=False) + "\n", inside=layout)


def approve_proposal(project: Project, caller: Caller, proposal_id: str, today: _dt.date) -> str:
    """Apply a pending proposal as `caller` (who must be trusted); mark it approved with the
    outcome. A fact written meanwhile is reported as `unchanged`, as memory_write says it."""
    from foundry_tui.core.events import record_event
    from foundry_tui.core.trust.policy import require_curator

    require_curator(project, caller, "approve proposals")
    layout = project.layout
    with folder_lock(proposals_dir(layout)):
        proposal = load_proposal(layout, proposal_id)
        _decidable(proposal, "approved")
        applied = proposal.change().with_author(proposal.author, proposal.id).apply(project, today)
        result = applied.text.splitlines()[0]
        extra: JSONObject = {"factId": applied.fact_id} if applied.fact_id else {}
        _decide(layout, proposal, caller, today, "approved", result=result, **extra)
    record_event(layout, "proposal_approved", id=proposal.id, result=result)
    lines = [f"approved: {proposal.id} (proposed by {proposal.author})", applied.text]
    if applied.action == "unchanged":
        lines.append(f"The same fact was already active ({applied.fact_id}): nothing new was written.")
    return "\n".join(lines)


def reject_proposal(project: Project, caller: Caller, proposal_id: str, reason: str, today: _dt.date) -> str:
    """Mark a pending proposal rejected with the reason; the file stays."""
    from foundry_tui.core.events import record_event
    from foundry_tui.core.trust.policy import require_curator

    why = " ".join((reason or "").split())
    if not why:
        raise InputError("say why it is rejected: --reason TEXT (it is kept with the proposal)")
    require_curator(project, caller, "reject proposals")
    layout = project.layout
    with folder_lock(proposals_dir(layout)):
        proposal = load_proposal(layout, proposal_id)
        _decidable(proposal, "rejected")
        _decide(layout, proposal, caller, today, "rejected", reason=why)
    record_event(layout, "proposal_rejected", id=proposal.id)
    return f"rejected: {proposal.id} (proposed by {proposal.author}): {why}\nNothing was written; the proposal is kept."


# ---- showing -------------------------------------------------------------------------------


def render_proposals(project: Project, proposals: list[Proposal], today: _dt.date) -> str:
    """`foundry proposals list`: each proposal's author as git confirms it (or as claimed), what
    it applies, and (pending) what it would do today; all from what approval would apply."""
    if not proposals:
        return "No proposals: nothing is waiting for approval."
    authors = author_notes(project.layout)
    lines = []
    for p in proposals:
        if p.problem:
            lines.append(f"{p.id}  broken    {p.problem} (never approved; fix or replace the file)")
            continue
        by = author_line(p, authors)
        lines.append(f"{p.id}  {p.status:<8}  {p.operation:<7}  {by}, {p.age(today)}: {p.summary}")
        lines.append(f"           {p.outcome() or 'would: ' + today_would(project, p, today)}")
    pending = sum(1 for p in proposals if p.status == "pending")
    lines.append(f"{pending} pending.")
    return "\n".join(lines)


# ---- who proposed it: the claim in the file, checked against git ----------------------------


AuthorNotes = dict[str, tuple[str, str, list[tuple[str, str]], bool]]
"""Per proposal file name: the adding commit's author name and e-mail, the authors of later
commits changing it, and whether it has uncommitted changes (`author_notes`)."""


def _matches(principal: str, name: str, email: str) -> bool:
    """Whether a git author is the principal `kind:login` claims: the login is the author's
    name, e-mail address or the address's local part (case aside)."""
    login = principal.partition(":")[2].casefold()
    return login in {name.casefold(), email.casefold(), email.partition("@")[0].casefold()}


def author_notes(layout: Layout) -> AuthorNotes:
    """Per proposal file name, from git: (the adding commit's author name, e-mail, the authors
    of later commits changing it, whether it has uncommitted changes). A file git does not
    hold (or no git at all) is absent: its author is only claimed."""
    from foundry_tui.core.history.git_history import GitError, run_git

    folder = proposals_dir(layout)
    try:
        log = run_git(
            layout.root,
            "log",
            "--no-renames",
            "--format=%x00%an%x1f%ae",
            "--name-status",
            "--",
            str(folder),
            check=False,
        )
        status = run_git(layout.root, "status", "--porcelain", "--", str(folder), check=False)
    except GitError:
        return {}
    if log.returncode != 0:
        return {}
    found: AuthorNotes = {}
    later: dict[str, list[tuple[str, str]]] = {}
    closed: set[str] = set()
    for record in log.stdout.decode("utf-8", "replace").split("\0")[1:]:  # newest commit first
        head, _, files = record.partition("\n")
        name, _, email = head.partition("\x1f")
        for line in files.splitlines():
            kind, _, path = line.partition("\t")
            file = path.rsplit("/", 1)[-1]
            if not file or file in closed:
                continue
            if kind == "A":
                found[file] = (name, email, later.pop(file, []), False)
                closed.add(file)
            elif kind == "D":  # deleted since: what is there now is not the committed file
                closed.add(file)
            else:
                later.setdefault(file, []).append((name, email))
    for line in status.stdout.decode("utf-8", "replace").splitlines():
        code, file = line[:2], line[3:].rsplit("/", 1)[-1]
        if code == "??":
            found.pop(file, None)
        elif file in found:
            found[file] = (*found[file][:3], True)
    return found


def author_line(proposal: Proposal, notes: AuthorNotes) -> str:
    """`by user:bob` when git confirms it; else `claimed by user:bob (why not confirmed)`."""
    claimed = proposal.author
    note = notes.get(proposal.path.name)
    if note is None:
        return f"claimed by {claimed} (not committed to git)"
    name, email, changed_by, dirty = note
    if not _matches(claimed, name, email):
        return f"claimed by {claimed} (added in git by {name} <{email}>)"
    if proposal.status == "pending":  # a decision commits the file again, by the curator
        other = next(((n, e) for n, e in changed_by if not _matches(claimed, n, e)), None)
        if other is not None:
            return f"claimed by {claimed} (changed in git by {other[0]} <{other[1]}>)"
        if dirty:
            return f"claimed by {claimed} (changed since it was committed)"
    return f"by {claimed}"


# ---- what approval would do -------------------------------------------------------------------


class Review:
    """A proposal as a curator reviews it, all rebuilt from what approval would apply now:
    who proposed it (as git confirms it, or claimed), the facts as they are, the facts
    exactly as approval would write them (same confidence, source and id), what it would
    do today, or why it could not be applied now."""

    __slots__ = ("after", "author", "before", "before_ids", "proposal", "would_do")

    def __init__(
        self, proposal: Proposal, author: str, before: str, after: str, would_do: str, before_ids: tuple[str, ...] = ()
    ) -> None:
        self.proposal = proposal
        self.before_ids = before_ids
        self.author = author
        self.before = before
        self.after = after
        self.would_do = would_do

    def diff(self) -> str:
        import difflib

        return "\n".join(
            line.rstrip("\n")
            for line in difflib.unified_diff(
                self.before.splitlines(),
                self.after.splitlines(),
                fromfile=f"active {', '.join(self.before_ids) or '(no active fact)'}",
                tofile="proposed",
                lineterm="",
            )
        )


def review(project: Project, proposal: Proposal, today: _dt.date, notes: AuthorNotes | None = None) -> Review:
    """`proposal` reviewed now (`notes`: author_notes, read once for many). A lock time-out
    is let through; a change that could not be applied now says why."""
    from foundry_tui.core.memory.model.facts import render_fact_text

    author = author_line(proposal, author_notes(project.layout) if notes is None else notes)
    if proposal.problem:
        return Review(proposal, author, "", "", "")
    try:
        outcome = proposal.change().with_author(proposal.author, proposal.id).outcome(project, today)
    except InputError as exc:
        return Review(proposal, author, "", "", f"cannot be applied now ({exc})")
    before = "\n".join(render_fact_text(f) for f in outcome.before)
    after = "\n".join(render_fact_text(f) for f in outcome.after)
    return Review(proposal, author, before, after, outcome.would_do, tuple(f.id for f in outcome.before))


def today_would(project: Project, proposal: Proposal, today: _dt.date) -> str:
    return review(project, proposal, today, {}).would_do


def reviews(project: Project, today: _dt.date) -> list[Review]:
    """Every proposal reviewed (the Approvals screen's read). No lock is held across it: each
    review takes the memory lock and then the project's, in the lock order (core/atomic.py),
    so an approval under way is waited for."""
    notes = author_notes(project.layout)
    return [review(project, p, today, notes) for p in list_proposals(project.layout)]


def render_proposal(project: Project, proposal: Proposal, today: _dt.date) -> str:
    """`foundry proposals show ID`: what approval would do now, and the diff against the active fact."""
    if proposal.problem:
        return f"{proposal.id}: broken: {proposal.problem}"
    seen = review(project, proposal, today)
    head = [
        f"{proposal.id} · {proposal.status} · {proposal.operation} · {seen.author} on {proposal.proposed_on}",
        f"Applies: {proposal.summary}",
        f"Today it would: {seen.would_do}",
    ]
    if proposal.outcome():
        head.append(proposal.outcome().capitalize())
    return "\n".join([*head, "", seen.diff() or seen.after.rstrip("\n")])


def marked_lines(before: str, after: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """Both texts line by line, each line marked True where it differs from the other side
    (the Approvals screen shows them side by side and highlights what changes)."""
    import difflib

    old, new = before.splitlines(), after.splitlines()
    old_marks, new_marks = [True] * len(old), [True] * len(new)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            old_marks[i1:i2] = [False] * (i2 - i1)
            new_marks[j1:j2] = [False] * (j2 - j1)
    return list(zip(old, old_marks, strict=True)), list(zip(new, new_marks, strict=True))
