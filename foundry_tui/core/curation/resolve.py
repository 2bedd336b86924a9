"""`foundry memory resolve`: repair the memory after git merged, rebased or cherry-picked it.

Ids are "the highest on disk plus one", so two branches that each write a fact both
write fact-NNNN.md, and git leaves one file holding both sides. Resolve splits every
such file: "ours" (HEAD) keeps the id, "theirs" (the branch brought in, or the commit
being replayed) gets the next free id with `renumbered_from: <old id>`. The facts that
came from the theirs side and pointed at a renumbered id (`supersedes`, `merged_from`)
are pointed at the new id, because on their branch that id meant the renumbered fact.
A file whose `id` another file already owns is renumbered the same way. Two sides that
are one fact (same title and body, e.g. both retired it) become one file. INDEX.md is
regenerated. Nothing is deleted that is not rewritten whole elsewhere.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from foundry_tui.core.atomic import atomic_write, exclusive_create, folder_lock
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.history.git_history import Repo, run_git
from foundry_tui.core.memory.model.facts import (
    MERGED_FROM,
    RENUMBERED_FROM,
    Fact,
    FactFileError,
    fact_number,
    format_id,
    has_conflict_markers,
    normalise,
    parse_fact_text,
    render_fact_text,
)
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.index_file import build_index, index_state
from foundry_tui.core.memory.writing.write import rebuild_index
from foundry_tui.core.paths import decode_text, fact_file_name


def _marker_kind(line: str) -> str:
    """Which of git's conflict markers `line` (without its newline) is: `<`, `|`, `=`, `>`, or ``."""
    head = line[:7]
    if head not in ("<<<<<<<", "|||||||", "=======", ">>>>>>>"):
        return ""
    if head == "=======":
        return "=" if len(line) == 7 else ""
    return head[0] if len(line) == 7 or line[7] == " " else ""


def conflict_hunks(kinds: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """The complete conflict blocks in a file whose lines are of `kinds` (`_marker_kind`),
    as (opening line, end of ours, the `=======` line, closing line).

    Git's form, read as the regular expression this replaced read it (a block opens at a
    `<<<<<<<` line; ours runs to the first `|||||||` or `=======` line after which the block
    can close; a diff3 base runs to the next `=======` line; theirs to the next `>>>>>>>`;
    the expression also took a line ending in seven `=` after a base for the separator, which
    git never writes), in linear time: it backtracked, cubic in a file full of marker lines (an
    18 KB one kept `git merge`'s hook busy past a minute). Each line is looked at a bounded
    number of times: the lookahead tables are built once, and an opening line that cannot
    close means none after it can."""
    n = len(kinds)
    next_close = [n] * (n + 1)  # the first `>>>>>>>` line at or after each line
    next_sep = [n] * (n + 1)  # the first `=======` line at or after each line
    for i in range(n - 1, -1, -1):
        kind = kinds[i]
        next_close[i] = i if kind == ">" else next_close[i + 1]
        next_sep[i] = i if kind == "=" else next_sep[i + 1]
    hunks: list[tuple[int, int, int, int]] = []
    i = 0
    while i < n:
        if kinds[i] != "<":
            i += 1
            continue
        found = None
        for j in range(i + 1, n):
            kind = kinds[j]
            if kind == "|":
                sep = next_sep[j + 1]
                if sep < n and next_close[sep + 1] < n:
                    found = (i, j, sep, next_close[sep + 1])
                    break
            elif kind == "=" and next_close[j + 1] < n:
                found = (i, j, j, next_close[j + 1])
                break
        if found is None:
            break  # the later opening lines see fewer lines still: none can close
        hunks.append(found)
        i = found[3] + 1
    return hunks


def _lines(text: str) -> list[str]:
    return (text if text.endswith("\n") else text + "\n").split("\n")[:-1]


def has_conflict_blocks(text: str) -> bool:
    """Whether `text` holds a complete block of git's conflict markers."""
    if "<<<<<<<" not in text:
        return False
    return bool(conflict_hunks([_marker_kind(line) for line in _lines(text)]))


def split_conflict(text: str) -> tuple[str, str]:
    """The two sides of a file with git conflict markers: (ours, theirs); a diff3 base is dropped."""
    lines = _lines(text)
    ours: list[str] = []
    theirs: list[str] = []
    done = 0
    for start, ours_end, sep, close in conflict_hunks([_marker_kind(line) for line in lines]):
        ours += lines[done:start] + lines[start + 1 : ours_end]
        theirs += lines[done:start] + lines[sep + 1 : close]
        done = close + 1
    ours += lines[done:]
    theirs += lines[done:]
    return "".join(f"{line}\n" for line in ours), "".join(f"{line}\n" for line in theirs)


@dataclass
class ResolveReport:
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    renumbered: dict[str, str] = field(default_factory=dict)  # old id → new id (theirs side)
    notes: list[str] = field(default_factory=list)  # for a person to decide; not a failure

    @property
    def changed(self) -> bool:
        return bool(self.lines)

    def text(self) -> str:
        notes = [f"note: {n}" for n in self.notes]
        if not self.lines and not self.problems:
            if notes:
                return "\n".join(["memory resolve: nothing to repair", *notes])
            return "memory resolve: nothing to repair (no conflict markers, no id claimed twice, INDEX.md current)"
        return "\n".join([*self.lines, *notes, *(f"problem: {p}" for p in self.problems)])

    def to_dict(self) -> dict[str, object]:
        return {"actions": self.lines, "notes": self.notes, "problems": self.problems, "renumbered": self.renumbered}


def _git_state(project: Project) -> tuple[Repo | None, str | None, str | None, bool]:
    """(repo, the "ours" revision, the "theirs" revision, whether git is mid merge/rebase/cherry-pick).

    Ours is HEAD; theirs is the commit being brought in (MERGE_HEAD, CHERRY_PICK_HEAD,
    REBASE_HEAD). When the markers were committed with a merge, ours and theirs are its parents."""
    try:
        repo = Repo(project.layout)
    except FoundryError:
        return None, None, None, False
    if not repo.has_head():
        return repo, None, None, False
    in_progress = any(
        (repo.git_dir / name).exists()
        for name in ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "rebase-merge", "rebase-apply")
    )
    if in_progress:
        theirs = next(
            (name for name in ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD") if (repo.git_dir / name).exists()), None
        )
        return repo, "HEAD", theirs, True
    parents = repo.git("rev-list", "--parents", "-n", "1", "HEAD").split()
    if len(parents) > 2:
        return repo, "HEAD^1", "HEAD^2", False
    return repo, "HEAD", None, False


def resolve_memory(project: Project, today: _dt.date) -> ResolveReport:
    """Repair what git left in the memory; see the module docstring. Safe to run any time."""
    layout = project.layout
    report = ResolveReport()
    repo, ours_rev, theirs_rev, in_progress = _git_state(project)
    with folder_lock(layout.memory_dir):
        facts_dir = layout.facts_dir
        names = (
            sorted(p.name for p in facts_dir.glob("*.md") if not p.name.startswith(".")) if facts_dir.is_dir() else []
        )
        texts: dict[str, str] = {}
        for name in names:
            try:
                texts[name] = layout.read_text(facts_dir / name)
            except (OSError, UnicodeDecodeError, FoundryError) as exc:
                report.problems.append(f"{layout.relative(facts_dir / name)} cannot be read ({exc}); left as it is")
        taken = set(names)  # every file there, read or not: never a free name to move a fact to
        names = list(texts)
        git_left = _conflicts_git_left(repo, ours_rev, in_progress, texts)
        clean: dict[str, Fact] = {}  # file name → fact, for files that load as they are
        conflicted: dict[str, tuple[Fact, Fact]] = {}
        misnamed: dict[str, Fact] = {}
        for name, text in texts.items():
            try:
                if (name in git_left) if git_left is not None else has_conflict_blocks(text):
                    ours_text, theirs_text = split_conflict(text)
                    conflicted[name] = (parse_fact_text(ours_text), parse_fact_text(theirs_text))
                    continue
                if has_conflict_markers(text):  # a fact quoting a conflict, or markers git did not leave now
                    report.notes.append(
                        f"{layout.relative(facts_dir / name)} has lines like git's conflict markers, but git does not "
                        "say it is unmerged; left as it is"
                    )
                    continue
                fact = parse_fact_text(text)
            except FactFileError as exc:
                report.problems.append(f"{layout.relative(facts_dir / name)}: {exc}; left as it is")
                continue
            if fact.id == name[:-3]:
                clean[name] = fact
            else:
                misnamed[name] = fact
        ours_facts = _facts_at(repo, ours_rev)
        theirs_at_rev = _facts_at(repo, theirs_rev) or {}
        by_fingerprint = {f.fingerprint: f for f in clean.values()}
        numbers = [fact_number(n[:-3]) for n in names] + [f.number for pair in conflicted.values() for f in pair]
        numbers += [f.number for f in misnamed.values()]
        next_number = max([0, *numbers]) + 1
        theirs_facts: list[Fact] = [f for f in clean.values() if _is_theirs(f, ours_facts)]
        renamed: dict[str, str] = {}
        to_write: dict[str, Fact] = {}  # file name → fact to write (whole)
        to_create: list[Fact] = []
        to_delete: list[str] = []

        def renumber(fact: Fact, why: str) -> None:
            nonlocal next_number
            same = by_fingerprint.get(fact.fingerprint)
            if same is not None:  # this side is already here under another id (an earlier resolve)
                renamed[fact.id] = same.id
                report.lines.append(f"{why}: {fact.id} is already {same.id}; kept once")
                return
            old = fact.id
            fact.id = format_id(next_number)
            next_number += 1
            fact.extras = {**fact.extras, RENUMBERED_FROM: old}
            renamed[old] = fact.id
            report.renumbered[old] = fact.id
            by_fingerprint[fact.fingerprint] = fact
            to_create.append(fact)
            theirs_facts.append(fact)
            report.lines.append(f"{why}: renumbered {old} → {fact.id} ({fact.title})")

        for name in sorted(conflicted, key=lambda n: (len(n), n)):
            ours, theirs = conflicted[name]
            rel = layout.relative(facts_dir / name)
            if ours.fingerprint == theirs.fingerprint:
                to_write[name] = _combine(ours, theirs)
                by_fingerprint[ours.fingerprint] = to_write[name]
                report.lines.append(f"{rel}: both sides are {ours.id}; joined into one (tags and expiry from both)")
                continue
            to_write[name] = ours
            by_fingerprint[ours.fingerprint] = ours
            report.lines.append(f"{rel}: two facts; {ours.id} kept ({ours.title})")
            renumber(theirs, f"{rel}")
        for name in sorted(misnamed, key=lambda n: (len(n), n)):
            fact = misnamed[name]
            rel = layout.relative(facts_dir / name)
            owner = clean.get(fact_file_name(fact.id)) or (conflicted.get(fact_file_name(fact.id)) or (None,))[0]
            if owner is None and fact_file_name(fact.id) in taken:  # a file that does not load, or a note's
                report.problems.append(
                    f"{rel} claims {fact.id}, but {fact.id}.md is there and does not load as a fact; "
                    f"both left as they are: repair or move {fact.id}.md, then run `foundry memory resolve` again"
                )
                continue
            to_delete.append(name)
            if owner is None and fact_file_name(fact.id) not in to_write:
                to_write[fact_file_name(fact.id)] = fact
                report.lines.append(f"{rel}: claims {fact.id}; moved to {fact.id}.md")
            else:
                renumber(fact, f"{rel} claims {fact.id}, which {fact.id}.md holds")
        # The theirs side's links meant the theirs side's ids: follow each linked fact of the
        # theirs revision (by its claim) to the id it has now; without git, the renumbering above.
        now_facts = [*clean.values(), *to_write.values(), *to_create]
        final = {f.fingerprint: f.id for f in now_facts}
        still = {(f.id, f.fingerprint) for f in now_facts}
        links = dict(renamed)
        for old_id, meant in theirs_at_rev.items():
            now = final.get(meant.fingerprint)
            if now is not None and now != old_id and (old_id, meant.fingerprint) not in still:
                links[old_id] = now
        for fact in theirs_facts:
            changed = _relink(fact, links)
            if changed:
                name = fact_file_name(fact.id)
                if fact not in to_create:
                    to_write[name] = fact
                report.lines.append(f"{fact.id}: {changed}")
        for fact in to_create:
            if not exclusive_create(layout.fact_path(fact.id), render_fact_text(fact), inside=layout):
                raise FoundryError(f"{fact.id}.md appeared while resolving: run `foundry memory resolve` again")
        for name, fact in to_write.items():
            path = facts_dir / name
            original = texts.get(name)
            atomic_write(path, _edited(original, fact) if name in clean else render_fact_text(fact), inside=layout)
        for name in to_delete:
            if name not in to_write:
                layout.check_inside(facts_dir / name).unlink()
        project.sync()
        if report.renumbered:
            report.notes += _disagreements(project, today, set(report.renumbered.values()))
        if _index_needs_rebuild(project, today):
            rebuild_index(project, today)
            report.lines.append(f"{layout.relative(layout.index_path)} regenerated")
    if repo is not None and in_progress and report.changed and not report.problems:
        paths = [repo.facts_path + "/", repo.index_path]
        run_git(repo.top, "add", "-A", "--", *paths)
        report.lines.append("staged the memory's files: finish with `git commit` (or `git rebase --continue`)")
    return report


def _conflicts_git_left(
    repo: Repo | None, ours_rev: str | None, in_progress: bool, texts: dict[str, str]
) -> set[str] | None:
    """The fact files whose conflict markers git left, by name; None outside git (or before
    the first commit), where every complete block of markers counts: there is no one to ask.

    Mid merge, rebase or cherry-pick: the files git lists as unmerged (`git ls-files -u`).
    After a merge commit (`git commit -a` with the markers in, then resolve by hand): the
    files with a complete block whose text is neither parent's, which git's merge made. Any
    other time, none: a clean merge (the post-merge hook) or a rewrite (post-rewrite) leaves
    no markers, so a fact quoting a conflict as an example is never split."""
    if repo is None or ours_rev is None:
        return None
    prefix = repo.facts_path + "/"
    if in_progress:
        listed = repo.git("ls-files", "-u", "-z", "--", prefix).split("\0")
        paths = {entry.split("\t", 1)[1] for entry in listed if "\t" in entry}
        return {p[len(prefix) :] for p in paths if p.startswith(prefix) and "/" not in p[len(prefix) :]}
    candidates = [name for name, text in texts.items() if has_conflict_blocks(text)]
    if ours_rev != "HEAD^1" or not candidates:
        return set()
    parents = [repo.fact_blobs(repo.commit(rev)) for rev in ("HEAD^1", "HEAD^2")]
    blobs = repo.read_blobs([sha for blobs in parents for name, sha in blobs.items() if name in candidates])
    return {
        name
        for name in candidates
        if all(name not in side or decode_text(blobs.get(side[name], b"")) != texts[name] for side in parents)
    }


def _disagreements(project: Project, today: _dt.date, renumbered: set[str]) -> list[str]:
    """Active facts sharing a title with a renumbered one: both branches updated one fact differently."""
    by_title: dict[str, list[Fact]] = {}
    for fact in project.active_facts(today):
        by_title.setdefault(normalise(fact.title), []).append(fact)
    return [
        f"{' and '.join(f.id for f in same)} are active with one title ({same[0].title}): the branches disagree; "
        f"keep one with `foundry memory retire ID`"
        for same in by_title.values()
        if len(same) > 1 and any(f.id in renumbered for f in same)
    ]


def _facts_at(repo: Repo | None, rev: str | None) -> dict[str, Fact] | None:
    if repo is None or rev is None:
        return None
    try:
        return repo.facts_at(repo.commit(rev))
    except FoundryError:
        return None


def _is_theirs(fact: Fact, ours: dict[str, Fact] | None) -> bool:
    """A fact the ours revision does not have (the same id with the same claim) came from the other side."""
    if ours is None:
        return False
    known = ours.get(fact.id)
    return known is None or known.fingerprint != fact.fingerprint


def _relink(fact: Fact, renamed: dict[str, str]) -> str:
    changes = []
    if fact.supersedes in renamed:
        changes.append(f"supersedes {fact.supersedes} → {renamed[fact.supersedes]}")
        fact.supersedes = renamed[fact.supersedes]
    merged = fact.extras.get(MERGED_FROM)
    if isinstance(merged, list) and any(m in renamed for m in merged):
        new = [renamed.get(m, m) if isinstance(m, str) else m for m in merged]
        changes.append(f"merged_from {', '.join(map(str, merged))} → {', '.join(map(str, new))}")
        fact.extras = {**fact.extras, MERGED_FROM: new}
    return "; ".join(changes)


def _combine(ours: Fact, theirs: Fact) -> Fact:
    """One fact from two edits of it: tags from both, the earlier expiry, our other fields."""
    expiries = [e for e in (ours.expires, theirs.expires) if e]
    ours.tags = tuple(dict.fromkeys([*ours.tags, *theirs.tags]))
    ours.expires = min(expiries) if expiries else None
    ours.supersedes = ours.supersedes or theirs.supersedes
    ours.extras = {**theirs.extras, **ours.extras}
    return ours


def _edited(original: str | None, fact: Fact) -> str:
    """The file with only its links changed, byte for byte elsewhere when possible."""
    from foundry_tui.core.memory.writing.frontmatter_edit import edit_frontmatter

    if original is not None:
        changes: dict[str, object] = {"supersedes": fact.supersedes}
        if MERGED_FROM in fact.extras:
            changes[MERGED_FROM] = fact.extras[MERGED_FROM]
        text = edit_frontmatter(original, changes)
        if text is not None:
            try:
                if parse_fact_text(text, fact.id) == fact:
                    return text
            except FactFileError:
                pass
    return render_fact_text(fact)


def _index_needs_rebuild(project: Project, today: _dt.date) -> bool:
    path: Path = project.layout.index_path
    try:
        expected, _report = build_index(project.active_facts(today), project.config().index_token_budget)
    except FoundryError:
        return False
    return index_state(path, expected, inside=project.layout) != "current"
