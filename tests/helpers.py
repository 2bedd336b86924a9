"""Test helpers: write through the core, run the CLI as a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.writing.write import memory_write
from foundry_tui.core.paths import resolve_today

TODAY = resolve_today("2026-11-30")
REPO = Path(__file__).resolve().parent.parent


def write(project: Project, title: str, body: str = "A body.", type: str = "convention", **kw: object) -> str:
    """memory_write through the core, returning the reply text."""
    return memory_write(project, WriteRequest(title=title, body=body, type=type, **kw), TODAY).text()  # type: ignore[arg-type]


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_cli(*args: str, stdin: str | None = None, env: dict[str, str] | None = None, cwd: Path | None = None) -> Run:
    """Run `python -m foundry_tui ARGS` as a real subprocess."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "foundry_tui", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=60,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)
