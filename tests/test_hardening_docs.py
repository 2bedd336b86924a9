"""The documentation stays true: the project's decisions are ADRs the product itself lists, every ADR
cited in the code exists, and the old single decisions page is gone for good."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
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


# --- Links: every relative link of the front door and the library lands on a file and a heading.

MARKDOWN_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
README_MAX_LINES = 250  # issue 27: the README is a front door, the rest lives in docs/


def library_pages() -> list[Path]:
    pages = [REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md"]
    return [*pages, *sorted((REPO / "docs").rglob("*.md"))]


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code, where a `[x](y)` is a link."""
    outside = "".join(part for n, part in enumerate(text.split("```")) if n % 2 == 0)
    return re.sub(r"`[^`\n]*`", "", outside)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lowercased, punctuation dropped, spaces as hyphens."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose(page.read_text(encoding="utf-8")).splitlines():
        if not line.startswith("#"):
            continue
        slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in MARKDOWN_LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        destination = (page.parent / path_part).resolve() if path_part else page
        if not destination.exists():
            broken.append(f"{page.relative_to(REPO)}: {target} (no such file)")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    return broken


def test_every_relative_link_in_the_readme_and_the_docs_resolves() -> None:
    pages = library_pages()
    assert REPO / "docs" / "guide" / "trust.md" in pages
    assert [broken for page in pages for broken in broken_links(page)] == []


def test_a_link_to_a_missing_file_or_heading_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## Real heading\n", encoding="utf-8")
    page.write_text(
        "[ok](other.md#real-heading) [gone](missing.md) [nowhere](other.md#invented) `[code](x.md)`\n",
        encoding="utf-8",
    )
    found = [target for target in MARKDOWN_LINK.findall(prose(page.read_text(encoding="utf-8")))]
    assert found == ["other.md#real-heading", "missing.md", "other.md#invented"]
    assert anchors(tmp_path / "other.md") == {"other", "real-heading"}


def test_the_readme_is_a_front_door() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    # What it is, the screenshot, then the two commands, in that order.
    assert readme.startswith("# foundry-tui\n\n**Project memory for AI coding agents")
    assert readme.index("](screenshots/memory.svg)") < readme.index("\n## Two commands\n")
    assert readme.index("\n## Two commands\n") < readme.index("\n## A five-minute tour\n")


# --- The references: generated from the parser and the tool list, never edited by hand.

GENERATOR = REPO / "scripts" / "gen_reference.py"


def test_the_cli_and_mcp_references_are_what_the_code_generates() -> None:
    proc = subprocess.run([sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr  # the message names the page and `python scripts/gen_reference.py`


def test_a_stale_reference_is_named_with_the_command_that_fixes_it(tmp_path: Path) -> None:
    shutil.copytree(REPO / "docs" / "reference", tmp_path / "reference")
    page = tmp_path / "reference" / "mcp-tools.md"
    stale = page.read_text(encoding="utf-8").replace("## memory_search", "## memory_find")
    page.write_text(stale, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(GENERATOR), "--check", "--docs", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr == f"{page} is out of date with the code: run `python scripts/gen_reference.py`\n"
    assert page.read_text(encoding="utf-8") == stale  # --check changes nothing


def test_the_references_cover_every_command_and_every_tool() -> None:
    cli = (REPO / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    for command in ("foundry memory write", "foundry memory search", "foundry session promote", "foundry mcp"):
        assert f"`{command}`" in cli
    assert "| `--title TITLE` | the fact itself, at most 80 characters (required) |" in cli
    tools = (REPO / "docs" / "reference" / "mcp-tools.md").read_text(encoding="utf-8")
    listed = run_cli("mcp", stdin='{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n')
    names = re.findall(r'"name": ?"(\w+)"', listed.out)
    assert len(names) >= 15
    assert [heading[3:] for heading in tools.splitlines() if heading.startswith("## ")] == names


# --- docs/benchmarks.md: the scripts write their own sections (benchmarks/report.py).

REPORT = REPO / "benchmarks" / "report.py"
DOC_SECTION = re.compile(r'^DOC_SECTION\w* = "([a-z0-9-]+)"', re.MULTILINE)


def test_every_section_a_benchmark_writes_is_marked_in_the_page() -> None:
    named = {
        name for path in (REPO / "benchmarks").glob("bench_*.py") for name in DOC_SECTION.findall(path.read_text())
    }
    assert {"speed", "memory", "retrieval-quality", "retrieval-hook", "retrieval-latency"} <= named
    page = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    for name in named:
        assert page.count(f"\n<!-- bench:{name} -->\n") == 1 and page.count(f"\n<!-- /bench:{name} -->\n") == 1, name


def test_report_replaces_only_its_section(tmp_path: Path) -> None:
    page = tmp_path / "benchmarks.md"
    before, after = "# Benchmarks\n\nProse a person wrote.\n\n", "\n\nMore prose, kept | byte for byte.\n"
    page.write_text(f"{before}<!-- bench:speed -->\nold figures\n<!-- /bench:speed -->{after}", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(REPORT), "speed", "--doc", str(page)],
        input="| a | b |\n| --- | --- |\n| 1 | 2 |\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert page.read_text(encoding="utf-8") == (
        f"{before}<!-- bench:speed -->\n| a | b |\n| --- | --- |\n| 1 | 2 |\n<!-- /bench:speed -->{after}"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["benchmarks.md"]  # no temporary file left behind


def test_report_refuses_a_page_without_the_section_and_changes_nothing(tmp_path: Path) -> None:
    page = tmp_path / "benchmarks.md"
    text = "# Benchmarks\n\n<!-- bench:memory -->\nx\n<!-- /bench:memory -->\n"
    page.write_text(text, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(REPORT), "speed", "--doc", str(page)],
        input="new",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr == (
        f"report: error: {page}: no '<!-- bench:speed -->' ... '<!-- /bench:speed -->' section(s): "
        "the page needs exactly one, on lines of their own\n"
    )
    assert page.read_text(encoding="utf-8") == text
