"""The documentation stays true: the project's decisions are ADRs the product itself lists, every ADR
cited in the code exists, and the old single decisions page is gone for good."""

from __future__ import annotations

import re
from pathlib import Path

from .helpers import REPO, run_cli

ADR_DIR = REPO / "docs" / "adr"
ADR_FILE = re.compile(r"(\d{4})-[a-z0-9-]+\.md")
# What `foundry adr new` writes and foundry_tui/core/artefacts/adr.py reads, in this order.
ADR_SECTIONS = ("## Status", "## Context", "## Decision", "## Consequences")
# A citation in a comment, a docstring or a guide: "ADR 0019" (a link to an ADR's file is checked with
# every other link).
ADR_CITATION = re.compile(r"\bADR (\d{4})\b")
OLD_DECISIONS_PAGE = "DECISIONS" + ".md"  # split so this file does not name it


def adr_files() -> list[Path]:
    return sorted(path for path in ADR_DIR.iterdir() if ADR_FILE.fullmatch(path.name))


def cited_sources() -> list[Path]:
    files = [REPO / "pyproject.toml", REPO / "README.md", REPO / "CONTRIBUTING.md"]
    for folder in ("foundry_tui", "tests", "scripts", "benchmarks"):
        files += sorted((REPO / folder).rglob("*.py"))
    files += sorted((REPO / "docs").rglob("*.md"))
    return [path for path in files if path.is_file()]


def test_adr_list_in_this_repository_lists_every_project_decision() -> None:
    files = adr_files()
    assert len(files) >= 15
    listed = run_cli("adr", "list", "--root", str(REPO))
    assert listed.code == 0, listed.err
    lines = listed.out.splitlines()
    assert [line.split(" · ")[0] for line in lines] == [path.name[:4] for path in files]
    assert all(line.split(" · ")[1] == "Accepted" for line in lines)


def test_every_adr_has_a_numbered_title_and_the_sections_the_product_reads() -> None:
    for number, path in enumerate(adr_files(), start=1):
        text = path.read_text(encoding="utf-8")
        assert path.name.startswith(f"{number:04d}-"), f"{path.name}: ADRs are numbered 1, 2, 3 ... without gaps"
        assert text.startswith(f"# {number}. "), f"{path.name}: the first line must be '# {number}. Title'"
        places = [text.find(f"\n{section}\n") for section in ADR_SECTIONS]
        assert -1 not in places and places == sorted(places), f"{path.name}: needs {', '.join(ADR_SECTIONS)}"
        for section, following in zip(ADR_SECTIONS, (*ADR_SECTIONS[1:], None), strict=True):
            body = text.split(f"\n{section}\n", 1)[1]
            body = body.split(f"\n{following}\n", 1)[0] if following else body
            assert body.strip(), f"{path.name}: {section} is empty"


def test_every_adr_cited_exists() -> None:
    numbers = {path.name[:4] for path in adr_files()}
    missing = sorted(
        f"{path.relative_to(REPO)}: ADR {cited}"
        for path in cited_sources()
        for cited in ADR_CITATION.findall(path.read_text(encoding="utf-8"))
        if cited not in numbers
    )
    assert missing == []


def test_the_old_decisions_page_is_gone_and_nothing_points_at_it() -> None:
    assert not (REPO / "docs" / OLD_DECISIONS_PAGE).exists()
    # ADR 0001 and the changelog tell the story of the move; nothing else may send a reader there.
    allowed = {ADR_DIR / "0001-record-decisions-as-adrs-the-product-reads.md", REPO / "CHANGELOG.md"}
    offenders = [
        str(path.relative_to(REPO))
        for path in cited_sources()
        if path not in allowed and OLD_DECISIONS_PAGE in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
