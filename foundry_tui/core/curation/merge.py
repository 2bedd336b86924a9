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
from foundry_tui.core.memory.facts import MERGED_FROM, Fact, render_fact_text
from foundry_tui.core.memory.project import Project, find_fact
from foundry_tui.core.memory.vocabulary import CONFIDENCES, DEFAULT_SCOPE
from foundry_tui.core.memory.write import WriteRequest, create_fact, rebuild_index, validate_request

_STRENGTH = {c: rank for rank, c in enumerate(reversed(CONFIDENCES))}  # low < medium < high


class MergePlan:
    """What a merge will write: a WriteRequest pre-filled from the sources, and the sources."""

    def __init__(self, sources: list[Fact], request: WriteRequest) -> None:
        self.sources = sources
        self.request = request

    def edited(self, title: str, body: str) -> MergePlan:
        """The same merge with another title and body (no disk access: for an editor)."""
        r = self.request
        return MergePlan(
            self.sources, WriteRequest(title, body, r.type, r.scope, r.tags, r.confidence, r.source, r.expires)
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


def merge_plan(project: Project, fact_ids: list[str], title: str | None = None, body: str | None = None) -> MergePlan:
    """Pre-fill a merge: the chosen title (default: the first source's), the bodies combined
    (paragraphs once each), the tags united, the strongest confidence, the shared scope
    (`project` when they differ), the first source's type and `source`, and the latest
    expiry (none if any source never expires)."""
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
        type=first.type,
        scope=first.scope if len({f.scope for f in sources}) == 1 else DEFAULT_SCOPE,  # different scopes: the broadest
        tags=list(tags),
        confidence=max((f.confidence for f in sources), key=lambda c: _STRENGTH.get(c, 0)),
        source=first.source,
        expires=None if None in expiries else max(e for e in expiries if e),
    )
    return MergePlan(sources, request)


class Undo:
    """Every file a merge touched and its bytes before (None: the file did not exist)."""

    def __init__(self, before: dict[Path, bytes | None]) -> None:
        self.before = before

    def restore(self, project: Project) -> None:
        """Put every touched file back exactly as it was (a created file is removed again)."""
        with folder_lock(project.layout.memory_dir):
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
    undo = Undo({layout.facts_dir / f"{new.id}.md": None, layout.index_path: index_before})
    return MergeResult(new.id, plan.source_ids, undo, report.write_line())
