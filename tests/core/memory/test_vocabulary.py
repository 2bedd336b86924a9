"""The fact vocabulary lives in one import-free module, and every interface reads it from there."""

from __future__ import annotations

import ast
from pathlib import Path

import foundry_tui
from foundry_tui.cli import PARSERS, build_parser
from foundry_tui.core.memory.model import vocabulary
from foundry_tui.core.memory.model.vocabulary import (
    CONFIDENCES,
    DEFAULT_CONFIDENCE,
    MAX_BODY_WORDS,
    MAX_TITLE_CHARS,
    TYPE_ORDER,
    TYPES,
)
from foundry_tui.mcp.registry import tool_named

PACKAGE = Path(foundry_tui.__file__).parent


def test_the_vocabulary_module_imports_nothing() -> None:
    tree = ast.parse(Path(vocabulary.__file__).read_text(encoding="utf-8"))
    imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert imports == []


def test_type_order_is_a_permutation_of_the_types() -> None:
    assert sorted(TYPE_ORDER) == sorted(TYPES)
    assert DEFAULT_CONFIDENCE in CONFIDENCES


def _string_collections(path: Path) -> list[tuple[int, set[str]]]:
    """The string literals of every list, tuple and set display in `path` (a mapping keyed by
    type or confidence, such as the scorer's multipliers, is knowledge of its own, not a copy)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            strings = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            found.append((node.lineno, strings))
    return found


def test_no_module_but_the_vocabulary_spells_out_the_types_or_confidences() -> None:
    copies = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == Path(vocabulary.__file__):
            continue
        for line, strings in _string_collections(path):
            # Three types together, or all three confidences, is a list someone will forget to update.
            if len(strings & set(TYPES)) >= 3 or strings >= set(CONFIDENCES):
                copies.append(f"{path.relative_to(PACKAGE)}:{line}")
    assert copies == []


def test_the_mcp_schemas_are_built_from_the_vocabulary() -> None:
    search = tool_named("memory_search").schema["properties"]
    write = tool_named("memory_write").schema["properties"]
    assert search["type"]["enum"] == list(TYPES)
    assert write["type"]["enum"] == list(TYPES)
    assert write["confidence"]["enum"] == list(CONFIDENCES)
    assert write["title"]["maxLength"] == MAX_TITLE_CHARS
    # The descriptions are the spec's texts (spec 002, memory_write).
    assert write["title"]["description"] == "States the fact itself, not the topic. Max 80 characters"
    assert write["body"]["description"] == "Max 120 words. For decision and risk, include Why: and How to apply: lines"
    assert write["confidence"]["description"] == "Defaults to medium"


def test_the_cli_help_names_the_vocabulary() -> None:
    build_parser()  # fills cli.PARSERS, every parser by its program's words
    help_text = " ".join(PARSERS["foundry memory write"].format_help().split())  # argparse wraps to the terminal
    assert f"at most {MAX_TITLE_CHARS} characters" in help_text
    assert f"at most {MAX_BODY_WORDS} words" in help_text
    assert "one of decision, constraint, convention, domain, risk, metric, glossary" in help_text
    assert "one of high, medium, low" in help_text
