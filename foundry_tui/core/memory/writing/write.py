"""memory_write and the in-place rewrites (retire, tag): every change to a fact file."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import Any

from foundry_tui.core.atomic import exclusive_create, folder_lock
from foundry_tui.core.code_refs import Ref, refs_of
from foundry_tui.core.errors import FoundryError, InputError, os_error_place
from foundry_tui.core.memory.model.facts import (
    Fact,
    check_choice,
    check_date,
    check_line,
    check_tags,
    escape_controls,
    fingerprint,
    format_id,
    normalise,
    render_fact_text,
)
from foundry_tui.core.memory.model.request import WriteRequest, validate_request
from foundry_tui.core.memory.model.vocabulary import (
    CONFIDENCES,
    DEFAULT_CONFIDENCE,
    DEFAULT_SCOPE,
    DEFAULT_SOURCE,
    MAX_TAGS,
)
from foundry_tui.core.memory.project import Project, find_fact

# The index module is imported where it is used, so that a search from a fresh process
# (a hook, the MCP server's first call) does not pay for it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.memory.reports.index_file import IndexReport


_DEFAULTS: dict[str, object] = {
    "scope": DEFAULT_SCOPE,
    "tags": (),
    "confidence": DEFAULT_CONFIDENCE,
    "source": DEFAULT_SOURCE,
}


class WriteResult:
    """The outcome of memory_write and the index it left."""

    __slots__ = ("action", "carried", "fact_id", "index", "refs", "supersedes", "warnings")

    def __init__(
        self,
        action: str,
        fact_id: str,
        index: IndexReport,
        supersedes: str | None = None,
        warnings: list[str] | None = None,
        carried: list[str] | None = None,
    ) -> None:
        self.action = action
        self.fact_id = fact_id
        self.index = index
        self.supersedes = supersedes
        self.warnings = warnings if warnings is not None else []
        # "tags database, postgres": each field carried over with a value other than its default.
        self.carried = carried if carried is not None else []
        self.refs: list[str] = []  # the targets recorded in the fact's `refs` (issue 30)

    def text(self) -> str:
        """The spec's two lines, then what was carried over, then any warnings."""
        first = f"{self.action}: {self.fact_id}"
        if self.supersedes:
            first += f" (supersedes {self.supersedes})"
        lines = [first, self.index.write_line()]
        if self.carried:
            lines.append(f"Carried over from {self.supersedes} (left out of this write): {'; '.join(self.carried)}.")
        if self.refs:
            lines.append(f"Refs: {', '.join(escape_controls(ref) for ref in self.refs)}.")
        return "\n".join([*lines, *(f"Warning: {w}" for w in self.warnings)])


def rebuild_index(project: Project, today: _dt.date) -> IndexReport:
    """Rebuild INDEX.md from the active facts and report budget usage."""
    from foundry_tui.core.memory.reports.index_file import build_index_of_ids, write_built_index

    store = project.store
    ordered = store.active_ids_in_index_order(today)
    built = build_index_of_ids(ordered, store.facts.__getitem__, project.config().index_token_budget)
    return write_built_index(project.layout.index_path, built, inside=project.layout)


def memory_index(project: Project, today: _dt.date) -> IndexReport:
    with folder_lock(project.layout.memory_dir):
        project.sync()
        return rebuild_index(project, today)


def memory_write(project: Project, req: WriteRequest, today: _dt.date) -> WriteResult:
    """Store one fact: `unchanged`, `updated` (supersedes the same-titled one) or `created`.

    The whole check-allocate-write-reindex step holds the memory lock, so concurrent
    writers (other processes, threads) never allocate the same id or lose a fact."""
    new = validate_request(req)
    project.config()  # a broken config refuses before anything is written
    with folder_lock(project.layout.memory_dir):
        project.sync()
        same, carried, notes = plan_write(project, new, req, today)
        recorded = refs_of(new.extras)
        if same is not None:  # no fact is written; the index is brought up to date if it is
            # stale, so the reply reports INDEX.md as it is on disk
            return WriteResult("unchanged", same.id, rebuild_index(project, today))
        create_fact(project, new)
        try:
            index = rebuild_index(project, today)
        except OSError as exc:  # the fact is on disk: the caller must learn its id
            raise FoundryError(
                f"{new.id} was written, but the index was not ({os_error_place(exc, project.root)}): "
                "fix that path, then rebuild the index (memory_index)"
            ) from None
    warnings = list(notes)
    if new.needs_why:
        warnings.append(
            f"{new.type} {new.id} has no **Why:** line; doctor fails and prune lists it until one is added."
        )
    action = "updated" if new.supersedes else "created"
    result = WriteResult(action, new.id, index, new.supersedes, warnings, carried)
    result.refs = [ref.target for ref in recorded]
    return result


def plan_write(
    project: Project, new: Fact, req: WriteRequest, today: _dt.date
) -> tuple[Fact | None, list[str], list[str]]:
    """What memory_write does with `new` (validated from `req`), writing nothing: (the active
    fact that is the same, []) when nothing would be written, else (None, the carried fields
    said) with `new` completed as it will be written, all but its id. The caller holds the
    memory lock and has synced (a proposal's review shows exactly the fact approval writes).
    The third part: the notes on the refs recorded (a list cut to its limit, no git)."""
    same_title = project.store.active_with_title(normalise(new.title), today)
    recorded, notes = _record_refs(project, new, req, same_title[-1] if same_title else None)
    print_fp = fingerprint(new.title, new.body)
    same = [f for f in same_title if f.fingerprint == print_fp and refs_of(f.extras) == recorded]
    if same:
        return same[-1], [], notes
    new.supersedes = same_title[-1].id if same_title else None
    carried = carry_over(new, same_title[-1], req.left_out()) if same_title else []
    new.created = today.isoformat()
    return None, carried, notes


def _record_refs(
    project: Project, new: Fact, req: WriteRequest, older: Fact | None
) -> tuple[tuple[Ref, ...], list[str]]:
    """Give `new` its `refs` (issue 30): the caller's, else those of the fact it restates, and
    the body's backticked paths, each with the object id git has for it now; and the notes
    for the reply (a cut list, no git). A refused ref is an InputError."""
    from foundry_tui.core.code_refs import REFS_KEY, RefError, record_refs

    carried = [ref.target for ref in refs_of(older.extras)] if older is not None and req.refs is None else []
    try:
        recorded = record_refs(project.layout, list(req.refs or ()), new.body, carried)
    except RefError as exc:
        raise InputError(str(exc)) from None
    new.extras.pop(REFS_KEY, None)
    if recorded.refs:
        new.extras[REFS_KEY] = recorded.items
    return tuple(recorded.refs), recorded.notes


def carry_over(new: Fact, old: Fact, left_out: tuple[str, ...]) -> list[str]:
    """Give `new` the value `old` has for every field the caller left out (restating a
    fact must not drop its tags, confidence or source). A carried value passes the same
    checks as a given one: a hand-written fact may hold what memory_write refuses.
    Returns "<field> <value>" for each carried value that differs from the default."""
    from foundry_tui.core.secrets import refuse_secrets

    # Each check takes and gives the value of its own field (text, tags, a date): one type per name.
    checks: dict[str, Callable[[Any], Any]] = {
        "scope": lambda v: check_line(v, "scope", DEFAULT_SCOPE),
        "tags": check_tags,
        "confidence": lambda v: check_choice(v, CONFIDENCES, "confidence"),
        "source": lambda v: check_line(v, "source", DEFAULT_SOURCE),
        "expires": lambda v: check_date(v, "expires") if v else None,
    }
    said = []
    for name in left_out:
        value = getattr(old, name)
        try:
            value = checks[name](value)
            refuse_secrets({name: list(value) if name == "tags" else value or ""})
        except InputError as exc:
            problem = str(exc).rsplit(": ", 1)[0]  # the refusal without its advice, which is ours here
            raise InputError(f"cannot carry {name} over from {old.id} ({problem}): give {name} in this write") from None
        setattr(new, name, value)
        if value is not None and value != _DEFAULTS.get(name):
            shown = ", ".join(value) if name == "tags" else value
            said.append(f"{name} {escape_controls(shown)}")
    return said


def create_fact(project: Project, new: Fact) -> None:
    """Give `new` the next free id and write its file (exclusive create). Caller holds the memory lock."""
    number = project.store.max_number() + 1
    project.layout.check_inside(project.layout.facts_dir)
    project.layout.facts_dir.mkdir(parents=True, exist_ok=True)
    while True:
        new.id = format_id(number)
        if exclusive_create(project.layout.fact_path(new.id), render_fact_text(new), inside=project.layout):
            break
        number += 1
    project.store.record_written(new)


def rewrite_facts(
    project: Project, fact_ids: list[str], change: Callable[[Fact], None], today: _dt.date
) -> IndexReport:
    """Change facts in place (a field that is not their identity: expires, tags), then rebuild
    the index. Each file is re-read under the memory lock and rewritten whole (temp file,
    rename). Only the changed fields' lines differ: comments, quoting, list styles and
    unknown keys stay byte for byte (core/memory/writing/frontmatter_edit.py). All ids are checked first."""
    from foundry_tui.core.atomic import atomic_write
    from foundry_tui.core.memory.model.facts import parse_fact_text
    from foundry_tui.core.memory.writing.frontmatter_edit import edit_frontmatter

    with folder_lock(project.layout.memory_dir):
        project.sync()
        facts = [find_fact(project, fact_id) for fact_id in fact_ids]  # all known before any write
        done: list[str] = []
        try:
            for fact in facts:
                path = project.layout.fact_path(fact.id)
                original = project.layout.read_text(path)
                current = parse_fact_text(original, fact.id)
                before = {name: getattr(current, name) for name in _IN_PLACE_FIELDS}
                change(current)
                changes = {
                    name: list(value) if isinstance(value, tuple) else value
                    for name in _IN_PLACE_FIELDS
                    if (value := getattr(current, name)) != before[name]
                }
                expected = render_fact_text(current)
                if not changes and render_fact_text(parse_fact_text(original, fact.id)) == expected:
                    continue  # nothing to change: the file stays as it is
                text = edit_frontmatter(original, changes)
                if text is None or render_fact_text(parse_fact_text(text, fact.id)) != expected:
                    text = expected  # cannot edit in place faithfully: write the whole fact anew
                atomic_write(path, text, inside=project.layout)
                done.append(fact.id)
            project.sync()
            return rebuild_index(project, today)
        except OSError as exc:
            if not done:
                raise
            stopped = "the index was not rebuilt" if len(done) == len(facts) else "the others were not"
            raise FoundryError(
                f"{', '.join(done)} changed, but {stopped} ({os_error_place(exc, project.root)}): fix that path, then retry"
            ) from None


# The fields an in-place rewrite may change (neither is part of a fact's identity).
_IN_PLACE_FIELDS = ("expires", "tags")


def left_as_it_is(fact: Fact, reason: str) -> str:
    """The one line for a fact a retire leaves alone (the CLI, the MCP server and the TUI say it)."""
    return f"{fact.id} is already inactive ({reason}); left as it is"


class RetireResult:
    """What a retire did: the facts it retired, a line for each it left as it was, the index."""

    __slots__ = ("expires", "index", "left", "retired")

    def __init__(self, expires: str, retired: list[str], left: list[str], index: IndexReport) -> None:
        self.expires = expires
        self.retired = retired
        self.left = left
        self.index = index

    def text(self) -> str:
        done = [f"retired: {', '.join(self.retired)} (expires {self.expires})"] if self.retired else []
        return "\n".join([*done, *self.left, self.index.write_line()])


def retire_facts(project: Project, fact_ids: list[str], expires: str, today: _dt.date) -> RetireResult:
    """Retire facts by setting their `expires` (nothing is deleted), then rebuild the index.

    A fact that is inactive already (expired, superseded) is left as it is: setting its
    `expires` to the day asked (yesterday by default) would move an old expiry later, and
    bring back for a day a fact that had expired. So is an active fact that expires sooner
    than the day asked: a retire never makes a fact live longer."""
    day = check_date(expires, "expires")
    retired: list[str] = []
    left: list[str] = []

    def retire(fact: Fact) -> None:
        reason = project.store.inactive_reason(fact, today)
        if reason is None and fact.expires is not None and fact.expires <= day:
            left.append(f"{fact.id} already expires {fact.expires}, no later than {day}; left as it is")
        elif reason is not None:
            left.append(left_as_it_is(fact, reason))
        else:
            fact.expires = day
            retired.append(fact.id)

    index = rewrite_facts(project, fact_ids, retire, today)
    return RetireResult(day, retired, left, index)


def add_tag(project: Project, fact_id: str, tag: str, today: _dt.date) -> IndexReport:
    """Add a retrieval word to a fact's tags (tags are not part of its identity, so this is an
    in-place change rather than a new version). The spec: "use tags for the words they will not" search for."""
    (word,) = check_tags([tag]) or ("",)
    if not word:
        raise InputError("the tag is empty: give the word searches used")

    def tag_it(fact: Fact) -> None:
        if word in fact.tags:
            return
        if len(fact.tags) >= MAX_TAGS:
            raise InputError(
                f"{fact.id} already has {len(fact.tags)} tags, the limit: replace one through memory_write instead"
            )
        fact.tags = (*fact.tags, word)

    return rewrite_facts(project, [fact_id], tag_it, today)
