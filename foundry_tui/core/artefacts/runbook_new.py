"""Creating a runbook (the write half of `runbooks.py`; only the door calls it:
`core/ops/library.py`)."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

from foundry_tui.core.atomic import exclusive_create
from foundry_tui.core.errors import InputError
from foundry_tui.core.names import check_slug, slugify
from foundry_tui.core.paths import Layout


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
