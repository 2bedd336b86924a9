"""Merging near-duplicate facts into one, without losing history.

The merged fact is a new file. Its `supersedes` names the first source (the spec's
field holds one id) and its `merged_from` lists every source, so each source becomes
inactive by presence, exactly as a superseded fact does, and the chain from the
merged fact back to every source stays readable in the files. No file is deleted.
A merge returns an undo record that restores every file it touched byte for byte.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
from pathlib import Path

from foundry_tui.core.atomic import atomic_write, folder_lock
from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.facts import MERGED_FROM, Fact, render_fact_text
from foundry_tui.core.memory.model.request import WriteRequest, validate_request
from foundry_tui.core.memory.model.vocabulary import CONFIDENCES, DEFAULT_SCOPE
from foundry_tui.core.memory.project import Project, find_fact
from foundry_tui.core.memory.writing.write import create_fact, rebuild_index

_STRENGTH = {c: rank for rank, c in enumerate(reversed(CONFIDENCES))}  # low < medium < high


class MergePlan:
    """What a merge will write: a WriteRequest pre-filled from the sources, and the sources."""

    def __init__(self, sources: list[Fact], request: WriteRequest) -> None:
        self.sources = sources
        self.request = request

    def edited(self, title: str, body: str, type: str | None = None) -> MergePlan:
        """The same merge with another title, body and (given) type (no disk access: for an editor)."""
        r = self.request
        chosen = r.type if type is None else type
        return MergePlan(
            self.sources, WriteRequest(title, body, chosen, r.scope, r.tags, r.confidence, r.source, r.expires)
        )

    @property
    def source_ids(self) -> list[str]:
        return [f.id for f in self.sources]

    def fact(self, today: _dt.date) -> Fact:
        """The merged fact as it will be written (its id is allocated at write time)."""
        new = validate_request(self.request)
        new.created = today.isoformat()
        new.supersedes = self.sources[0].id
        new.extras = {MERGED_FROM: self.source_ids}
        return new

    def preview(self, project: Project, today: _dt.date) -> str:
        """Exactly what will be written and changed on disk, before anything is."""
        next_id = f"fact-{project.store.max_number() + 1:04d}"
        new = self.fact(today)
        new.id = next_id
        facts_dir = project.layout.relative(project.layout.facts_dir)
        lines = [
            f"Merge {', '.join(self.source_ids)} into a new fact:",
            "",
            f"  write   {facts_dir}/{next_id}.md (the next free id at write time)",
            *(f"  keep    {facts_dir}/{f.id}.md (unchanged; inactive, superseded by {next_id})" for f in self.sources),
            f"  rebuild {project.layout.relative(project.layout.index_path)}",
            "",
            render_fact_text(new).rstrip("\n"),
        ]
        return "\n".join(lines)


def merge_plan(
    project: Project,
    fact_ids: list[str],
    title: str | None = None,
    body: str | None = None,
    type: str | None = None,
) -> MergePlan:
    """Pre-fill a merge: the chosen title (default: the first source's), the bodies combined
    (paragraphs once each), the tags united, the strongest confidence, the shared scope
    (`project` when they differ), the chosen type (default: the first source's), the first
    source's `source`, and the latest expiry (none if any source never expires)."""
    project.sync()
    if len(set(fact_ids)) < 2:
        raise InputError("a merge needs at least two different facts")
    sources = [find_fact(project, fact_id) for fact_id in dict.fromkeys(fact_ids)]
    paragraphs: dict[str, None] = {}
    for fact in sources:
        for paragraph in fact.body.split("\n\n"):
            if paragraph.strip():
                paragraphs.setdefault(paragraph.strip(), None)
    tags: dict[str, None] = {}
    for fact in sources:
        for tag in fact.tags:
            tags.setdefault(tag, None)
    first = sources[0]
    expiries = [f.expires for f in sources]
    request = WriteRequest(
        title=title if title is not None else first.title,
        body=body if body is not None else "\n\n".join(paragraphs),
        type=type if type is not None else first.type,
        scope=first.scope if len({f.scope for f in sources}) == 1 else DEFAULT_SCOPE,  # different scopes: the broadest
        tags=list(tags),
        confidence=max((f.confidence for f in sources), key=lambda c: _STRENGTH.get(c, 0)),
        source=first.source,
        expires=None if None in expiries else max(e for e in expiries if e),
    )
    return MergePlan(sources, request)


def _fact_file_stats(project: Project) -> dict[str, tuple[int, int, int]]:
    """Every fact file's name and (mtime, size, inode): a cheap fingerprint of the folder."""
    stats: dict[str, tuple[int, int, int]] = {}
    with os.scandir(project.layout.facts_dir) as entries:
        for entry in entries:
            if entry.name.endswith(".md") and not entry.name.startswith("."):
                st = entry.stat(follow_symlinks=False)
                stats[entry.name] = (st.st_mtime_ns, st.st_size, st.st_ino)
    return stats


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


class Undo:
    """Every file a merge touched and its bytes before (None: the file did not exist),
    and the state the merge left (the merged file's and INDEX.md's bytes, every fact
    file's stat), so that undo can tell whether anything changed since."""

    def __init__(
        self,
        before: dict[Path, bytes | None],
        fact_id: str = "",
        after: dict[Path, bytes | None] | None = None,
        fact_stats: dict[str, tuple[int, int, int]] | None = None,
    ) -> None:
        self.before = before
        self.fact_id = fact_id
        self.after = after if after is not None else {}
        self.fact_stats = fact_stats if fact_stats is not None else {}

    def changed_since(self, project: Project) -> str | None:
        """What changed since the merge that undoing it would lose, or None. Caller holds
        the memory lock and has synced the store."""
        layout = project.layout
        newer = sorted(
            (f for f in project.store.facts.values() if self.fact_id in f.replaced_ids()), key=lambda f: f.order_key
        )
        if newer:
            return f"{newer[0].id} was written and supersedes {self.fact_id}"
        merged_file = layout.fact_path(self.fact_id)
        if merged_file in self.after and _read_or_none(merged_file) != self.after[merged_file]:
            return f"{self.fact_id}.md was {'removed' if not merged_file.exists() else 'changed'}"
        now = _fact_file_stats(project)
        added = sorted((n for n in now if n not in self.fact_stats), key=lambda n: (len(n), n))
        if added:
            return f"{added[0].removesuffix('.md')} was written"
        changed = sorted((n for n in now if now[n] != self.fact_stats[n]), key=lambda n: (len(n), n))
        if changed:
            return f"{changed[0]} was changed"
        removed = sorted((n for n in self.fact_stats if n not in now), key=lambda n: (len(n), n))
        if removed:
            return f"{removed[0]} was removed"
        index = layout.index_path
        if index in self.after and _read_or_none(index) != self.after[index]:
            return f"{layout.index_path.name} was rebuilt or edited"
        return None

    def restore(self, project: Project) -> None:
        """Put every touched file back exactly as it was (a created file is removed again),
        unless anything it would touch changed since the merge: then refuse and change nothing."""
        with folder_lock(project.layout.memory_dir):
            project.sync()
            if self.after:
                changed = self.changed_since(project)
                if changed:
                    raise InputError(
                        f"cannot undo the merge into {self.fact_id}: {changed} since the merge, "
                        "and undoing would lose that; nothing was changed"
                    )
            for path, data in self.before.items():
                if data is None:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)  # the merged fact did not exist before the merge
                else:
                    atomic_write(path, data, inside=project.layout)
            project.sync()


class MergeResult:
    def __init__(self, fact_id: str, sources: list[str], undo: Undo, index_line: str) -> None:
        self.fact_id = fact_id
        self.sources = sources
        self.undo = undo
        self.index_line = index_line

    def text(self) -> str:
        return f"merged: {self.fact_id} (from {', '.join(self.sources)})\n{self.index_line}"


def merge_facts(project: Project, plan: MergePlan, today: _dt.date) -> MergeResult:
    """Write the merged fact and rebuild the index; the sources stay on disk, inactive."""
    new = plan.fact(today)
    layout = project.layout
    with folder_lock(layout.memory_dir):
        project.sync()
        for fact in plan.sources:  # every source must still be there and active
            if project.store.inactive_reason(fact, today):
                raise InputError(
                    f"{fact.id} is no longer active ({project.store.inactive_reason(fact, today)}): plan the merge again"
                )
        index_before = layout.read_bytes(layout.index_path) if layout.index_path.exists() else None
        create_fact(project, new)
        report = rebuild_index(project, today)
        merged_file = layout.fact_path(new.id)
        # What the merge left, read under the same lock: undo refuses if any of it changed.
        after = {merged_file: _read_or_none(merged_file), layout.index_path: _read_or_none(layout.index_path)}
        undo = Undo({merged_file: None, layout.index_path: index_before}, new.id, after, _fact_file_stats(project))
    return MergeResult(new.id, plan.source_ids, undo, report.write_line())
