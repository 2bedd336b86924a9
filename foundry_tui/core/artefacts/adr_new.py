"""Writing the next ADR (the write half of `adr.py`; only the door calls it:
`core/ops/library.py`)."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

from foundry_tui.core.artefacts.adr import STATUS_SECTION, Adr, link, list_adrs
from foundry_tui.core.atomic import atomic_write, exclusive_create, folder_lock
from foundry_tui.core.errors import InputError, NotFoundError
from foundry_tui.core.names import slugify
from foundry_tui.core.paths import Layout


def new_adr(layout: Layout, title: str, supersedes: int | None = None, today: _dt.date | None = None) -> Path:
    """Write the next ADR from the template; with `supersedes`, mark the old one superseded."""
    title = " ".join(title.split())
    if not title:
        raise InputError("ADR title is empty: name the decision, e.g. 'Use PostgreSQL 16'")
    day = (today or _dt.date.today()).isoformat()
    with folder_lock(layout.adr_dir):
        adrs = list_adrs(layout)
        old = None
        if supersedes is not None:
            old = next((a for a in adrs if a.number == supersedes), None)
            if old is None:
                raise NotFoundError(f"no ADR {supersedes:04d} to supersede: see `foundry adr list`")
        number = max((a.number for a in adrs), default=0) + 1
        path = layout.adr_dir / f"{number:04d}-{slugify(title)}.md"
        status = "Accepted"
        if old is not None:
            status += f"\n\nSupersedes {link(old)}"
        text = (
            f"# {number}. {title}\n\nDate: {day}\n\n## Status\n\n{status}\n\n"
            "## Context\n\nWhat forces are at play, and what problem does this decide?\n\n"
            "## Decision\n\nWhat we will do.\n\n"
            "## Consequences\n\nWhat becomes easier or harder because of this decision.\n"
        )
        if not exclusive_create(path, text, inside=layout):
            raise InputError(f"{layout.relative(path)} already exists")
        if old is not None:
            new = Adr(number, path.stem[5:], title, "Accepted", path)
            old_text = layout.read_text(old.path)
            marked = f"Superseded by {link(new)}"
            if STATUS_SECTION.search(old_text):
                old_text = STATUS_SECTION.sub(lambda m: f"{m.group(1)}{marked}\n", old_text, count=1)
            else:
                old_text = old_text.rstrip("\n") + f"\n\n## Status\n\n{marked}\n"
            atomic_write(old.path, old_text, inside=layout)
        return path
