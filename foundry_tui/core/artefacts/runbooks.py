"""T2 runbooks: `.foundry/runbooks/<slug>.md` with frontmatter `title` and `trigger`."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from foundry_tui.core.errors import FoundryError, NotFoundError
from foundry_tui.core.names import check_slug
from foundry_tui.core.paths import Layout, UnsafePathError

EMPTY_TEXT = "No runbooks yet. Create one with the runbook-author skill after any task worth repeating."


@dataclass(frozen=True)
class Runbook:
    slug: str
    title: str
    trigger: str | None
    path: Path
    problem: str | None = None


MAX_RUNBOOK_BYTES = 256 * 1024  # a runbook is a page of steps: past this it is not read or served


def _oversize(slug: str, size: int) -> str:
    return f"runbook '{slug}' is {size // 1024} KiB, over the {MAX_RUNBOOK_BYTES // 1024} KiB limit for a runbook: split it"


def _read(layout: Layout, path: Path) -> str:
    """The runbook's text: a regular file inside the root (Layout.read_text), refused
    before it is read when it is over MAX_RUNBOOK_BYTES."""
    info = os.lstat(path)
    if stat.S_ISREG(info.st_mode) and info.st_size > MAX_RUNBOOK_BYTES:
        raise FoundryError(_oversize(path.stem, info.st_size))
    return layout.read_text(path, MAX_RUNBOOK_BYTES)


def _front(layout: Layout, path: Path) -> tuple[dict[str, object], str | None]:
    """A runbook's frontmatter, or ({}, reason) when it cannot be used. A runbook is a file
    from the repository: its size and what its YAML expands to are bounded, as for facts."""
    try:
        text = _read(layout, path)
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"cannot be read ({exc})"
    except FoundryError as exc:  # over the size limit
        return {}, str(exc)
    if not text.startswith("---"):
        return {}, None
    import frontmatter
    import yaml

    from foundry_tui.core.yaml_bounds import YamlBoundsError, check_yaml_bounds

    try:
        meta = frontmatter.loads(text).metadata
        check_yaml_bounds(meta)
    except YamlBoundsError as exc:
        return {}, str(exc)
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        return {}, f"frontmatter is not valid YAML ({str(exc).splitlines()[0]})"
    except (TypeError, UnicodeEncodeError):  # a key that is not text (`1:`), a lone surrogate
        return {}, "frontmatter fields must be 'name: value' lines"
    return (meta if isinstance(meta, dict) else {}), None


def _line(value: object) -> str | None:
    """A title or trigger as one line: text, or a list of plain values; anything else is unusable."""
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        value = ", ".join(str(v) for v in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    return " ".join(value.split()) or None


def list_runbooks(layout: Layout) -> list[Runbook]:
    folder = layout.runbooks_dir
    if not folder.is_dir() or not layout.is_inside(folder):  # doctor names a folder linked out of the root
        return []
    books = []
    for path in sorted(folder.glob("*.md")):
        if path.name.startswith(".") or not layout.is_inside(path):  # never list (or read) a link out of the root
            continue
        if path.is_symlink():  # a link into a reserved folder must not leak its first lines
            from foundry_tui.core.reserved import is_reserved_path

            if is_reserved_path(layout, path):
                continue
        meta, problem = _front(layout, path)
        title = _line(meta.get("title")) or path.stem
        books.append(Runbook(path.stem, title, _line(meta.get("trigger")), path, problem))
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
    from foundry_tui.core.reserved import refuse_reserved_path

    refuse_reserved_path(layout, path, f"runbook '{slug}'")  # a runbook symlinked into a reserved folder
    try:
        return _read(layout, path)
    except UnsafePathError as exc:
        raise NotFoundError(f"runbook '{slug}' cannot be read: {exc}") from None
    except FileNotFoundError:
        available = ", ".join(b.slug for b in list_runbooks(layout)) or "none yet"
        raise NotFoundError(f"no runbook '{slug}'; available: {available}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise NotFoundError(f"runbook '{slug}' cannot be read ({exc})") from None
