"""T3 decisions: `docs/adr/NNNN-<slug>.md`, numbered, with Status, Context, Decision, Consequences."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from foundry_tui.core.paths import Layout

_ADR_NAME = re.compile(r"(\d{4})-([A-Za-z0-9._-]+)\.md")
STATUS_SECTION = re.compile(r"(^## Status[ \t]*\n+)(.*?)(?=\n## |\Z)", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Adr:
    number: int
    slug: str
    title: str
    status: str
    path: Path

    @property
    def ref(self) -> str:
        return f"adr-{self.number:04d}"


def _parse(layout: Layout, path: Path, number: int, slug: str) -> Adr:
    try:
        text = layout.read_text(path)
    except (OSError, UnicodeDecodeError):
        return Adr(number, slug, slug, "unreadable", path)
    title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), slug)
    title = re.sub(r"^\d+\.\s*", "", title)
    match = STATUS_SECTION.search(text)
    lines = [line.strip() for line in match.group(2).splitlines() if line.strip()] if match else []
    status = lines[0] if lines else "unknown"  # the first line: Accepted, Superseded by …
    return Adr(number, slug, title, status, path)


def list_adrs(layout: Layout) -> list[Adr]:
    if not layout.adr_dir.is_dir() or not layout.is_inside(layout.adr_dir):
        return []
    adrs = []
    for path in sorted(layout.adr_dir.iterdir()):
        match = _ADR_NAME.fullmatch(path.name)
        if match:
            adrs.append(_parse(layout, path, int(match.group(1)), match.group(2)))
    return adrs


def find_adr(layout: Layout, number: int) -> Adr | None:
    return next((a for a in list_adrs(layout) if a.number == number), None)


def render_adr_list(adrs: list[Adr]) -> str:
    if not adrs:
        return 'No ADRs yet. Record one with `foundry adr new "Title"`.'
    return "\n".join(f"{a.number:04d} · {a.status} · {a.title}" for a in adrs)


def link(adr: Adr) -> str:
    return f"[{adr.number}. {adr.title}]({adr.path.name})"


ADR_REF = re.compile(r"adr-(\d{1,4})")


def adr_for_source(layout: Layout, source: str) -> tuple[str, Adr | None] | None:
    """For a fact's `source: adr-0007`: the reference and the ADR (None if it does not exist).
    An approved proposal's source adds `; proposed by …` after the reference."""
    ref = source.split(";", 1)[0].strip()
    match = ADR_REF.fullmatch(ref)
    if not match:
        return None
    return ref, find_adr(layout, int(match.group(1)))


def adr_titles(layout: Layout) -> dict[str, tuple[str, str]]:
    """adr-0007 → (file name, title) for every ADR: what the memory views show beside a fact's source."""
    return {a.ref: (a.path.name, a.title) for a in list_adrs(layout)}
