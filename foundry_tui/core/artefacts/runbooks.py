"""T2 runbooks: `.foundry/runbooks/<slug>.md` with frontmatter `title` and `trigger`."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foundry_tui.core.atomic import exclusive_create
from foundry_tui.core.errors import InputError, NotFoundError
from foundry_tui.core.names import check_slug, slugify
from foundry_tui.core.paths import Layout, UnsafePathError

EMPTY_TEXT = "No runbooks yet. Create one with the runbook-author skill after any task worth repeating."


@dataclass(frozen=True)
class Runbook:
    slug: str
    title: str
    trigger: str | None
    path: Path
    problem: str | None = None


def _front(layout: Layout, path: Path) -> tuple[dict[str, Any], str | None]:
    """A runbook's frontmatter, or ({}, reason) when it cannot be read."""
    try:
        text = layout.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"cannot be read ({exc})"
    if not text.startswith("---"):
        return {}, None
    import frontmatter
    import yaml

    try:
        meta = frontmatter.loads(text).metadata
    except (yaml.YAMLError, ValueError) as exc:
        return {}, f"frontmatter is not valid YAML ({str(exc).splitlines()[0]})"
    return (meta if isinstance(meta, dict) else {}), None


def list_runbooks(layout: Layout) -> list[Runbook]:
    folder = layout.runbooks_dir
    if not folder.is_dir() or not layout.is_inside(folder):  # doctor names a folder linked out of the root
        return []
    books = []
    for path in sorted(folder.glob("*.md")):
        if path.name.startswith(".") or not layout.is_inside(path):  # never list (or read) a link out of the root
            continue
        if path.is_symlink():  # a link into a reserved folder must not leak its first lines
            from foundry_tui.core.trust.reserved import is_reserved_path

            if is_reserved_path(layout, path):
                continue
        meta, problem = _front(layout, path)
        title = str(meta.get("title") or path.stem)
        trigger = meta.get("trigger")
        if isinstance(trigger, list):
            trigger = ", ".join(str(t) for t in trigger)
        books.append(
            Runbook(
                path.stem, " ".join(title.split()), " ".join(str(trigger).split()) if trigger else None, path, problem
            )
        )
    return books


def render_runbook_list(books: list[Runbook]) -> str:
    """The runbook_list reply (the spec's form), or its text for none."""
    if not books:
        return EMPTY_TEXT
    lines = []
    for book in books:
        lines.append(f"- **{book.slug}** — {book.title}")
        if book.trigger:
            lines.append(f"  trigger: {book.trigger}")
    return "\n".join(lines)


def get_runbook(layout: Layout, slug: str) -> str:
    """The runbook's full markdown. An unknown slug is an error listing the available ones."""
    check_slug(slug, "runbook slug")
    path = layout.runbooks_dir / f"{slug}.md"
    from foundry_tui.core.trust.reserved import refuse_reserved_path

    refuse_reserved_path(layout, path, f"runbook '{slug}'")  # a runbook symlinked into a reserved folder
    try:
        return layout.read_text(path)
    except UnsafePathError as exc:
        raise NotFoundError(f"runbook '{slug}' cannot be read: {exc}") from None
    except FileNotFoundError:
        available = ", ".join(b.slug for b in list_runbooks(layout)) or "none yet"
        raise NotFoundError(f"no runbook '{slug}'; available: {available}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise NotFoundError(f"runbook '{slug}' cannot be read ({exc})") from None


def new_runbook(layout: Layout, title: str, trigger: str | None = None, slug: str | None = None) -> Path:
    """Create a runbook from a template; refuses to overwrite one."""
    title = " ".join(title.split())
    if not title:
        raise InputError("runbook title is empty: say what the procedure does, e.g. 'Deploy to production'")
    slug = check_slug(slug or slugify(title), "runbook slug")
    path = layout.runbooks_dir / f"{slug}.md"
    layout.check_inside(layout.runbooks_dir)
    layout.runbooks_dir.mkdir(parents=True, exist_ok=True)
    trigger_line = f"trigger: {_yaml_scalar(trigger)}\n" if trigger else ""
    text = (
        f"---\ntitle: {_yaml_scalar(title)}\n{trigger_line}---\n\n# {title}\n\n"
        f"_Written {_dt.date.today().isoformat()}. Follow it step by step; fix it when reality differs._\n\n"
        "1. First step.\n2. Next step.\n3. How to check that it worked.\n"
    )
    if not exclusive_create(path, text, inside=layout):
        raise InputError(f"runbook '{slug}' already exists: edit {layout.relative(path)} or pick another --slug")
    return path


def _yaml_scalar(value: str) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML scalar
