"""Each piece of knowledge in one place: paths come from core.paths.Layout, hook event names
from core.hook_events, the fact vocabulary from core.memory.model.vocabulary (tests/core/memory/test_vocabulary.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import foundry_tui

PACKAGE = Path(foundry_tui.__file__).parent


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "demo_project" not in p.parts)


def test_paths_are_built_from_the_layout() -> None:
    """No module but core/paths.py names the `.foundry` folder or the facts folder in code."""
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in _modules()
        if path != PACKAGE / "core" / "paths.py"
        for line, text in _code_strings(path)
        if text == ".foundry" or ".foundry/memory/facts" in text
    ]
    assert offenders == []


def test_hook_event_names_live_in_hook_events() -> None:
    names = ("SessionStart", "UserPromptSubmit", "PreToolUse")
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in _modules()
        if path != PACKAGE / "core" / "hook_events.py"
        for line, text in _code_strings(path)
        if text in names
    ]
    assert offenders == []
