"""Write a benchmark's figures into docs/benchmarks.md, between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`.

The benchmark scripts call `write_section` when run with `--write-docs`. Only the marked section
changes: everything outside the markers is prose a person wrote, kept byte for byte, and a page
without exactly one such section is left untouched with one line of error. From a shell:

    python benchmarks/report.py NAME [--doc PATH] < body.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
SECTION_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class ReportError(Exception):
    """The page or the section name cannot take the figures; the page is unchanged."""


def markers(name: str) -> tuple[str, str]:
    if not SECTION_NAME.fullmatch(name):
        raise ReportError(f"section name {name!r}: use lowercase letters, digits and single hyphens")
    return f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"


def replace_section(text: str, name: str, body: str) -> str:
    """`text` with the section `name` holding `body` (its markers on lines of their own)."""
    start, end = markers(name)
    found = re.findall(re.escape(start) + r"\n.*?" + re.escape(end), text, flags=re.DOTALL)
    if len(found) != 1:
        how = "no" if not found else f"{len(found)}"
        raise ReportError(f"{how} '{start}' ... '{end}' section(s): the page needs exactly one, on lines of their own")
    return text.replace(found[0], f"{start}\n{body.strip()}\n{end}", 1)


def write_section(name: str, body: str, doc: Path = DOC) -> None:
    """Replace the section `name` of `doc` with `body`, atomically (a temporary file renamed over it)."""
    text = doc.read_text(encoding="utf-8")
    new = replace_section(text, name, body)
    handle, temporary = tempfile.mkstemp(dir=doc.parent, prefix=f".{doc.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(new)
        os.replace(temporary, doc)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    print(f"{doc}: section {name} written", file=sys.stderr)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub table; a `|` inside a cell is escaped so that it cannot split the cell."""

    def line(cells: Sequence[object]) -> str:
        return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *(line(row) for row in rows)])


def conditions(command: str, load_at_start: float, today: datetime.date | None = None) -> str:
    """The line that says when and how the figures under it were measured."""
    day = (today or datetime.date.today()).isoformat()
    load_now = os.getloadavg()[0]
    return (
        f"Measured {day} with `{command}`: Python {sys.version.split()[0]}, {os.cpu_count()} cores, "
        f"load average {load_at_start:.1f} at the start and {load_now:.1f} at the end."
    )


def command_line() -> str:
    """The command that is running, as a reader would type it again (without --write-docs)."""
    script = Path(sys.argv[0])
    shown = f"benchmarks/{script.name}" if script.parent.name == "benchmarks" else str(script)
    return " ".join(["python", shown, *(arg for arg in sys.argv[1:] if arg != "--write-docs")])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write stdin into one marked section of docs/benchmarks.md.")
    parser.add_argument("name", help="the section: <!-- bench:NAME --> ... <!-- /bench:NAME -->")
    parser.add_argument("--doc", type=Path, default=DOC, help="the page (default: docs/benchmarks.md)")
    args = parser.parse_args(argv)
    try:
        write_section(args.name, sys.stdin.read(), args.doc)
    except (ReportError, OSError, UnicodeDecodeError) as error:
        print(f"report: error: {args.doc}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
