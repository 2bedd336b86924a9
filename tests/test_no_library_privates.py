"""No private name of Textual, Rich or plotext is read or written by the package or its tests:
their private attributes and modules change in any release without notice.

An access `x._name` (x not `self` or `cls`), a `getattr`/`setattr`/`hasattr` of a "_name"
string, or an import from a module whose path has a `_part`, is allowed only where the name
is the project's own: defined in foundry_tui/ or tests/ and by none of those libraries
(where both define one, the access cannot be told apart by name, and is refused)."""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path

import foundry_tui

PACKAGE = Path(foundry_tui.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent
LIBRARIES = ("textual", "rich", "plotext", "textual_plotext")
# Names the standard library documents as public although they start with `_`.
STANDARD_PUBLIC = {"_exit", "_asdict", "_replace", "_fields", "_make", "_field_defaults", "_current_frames"}

DEFINED = re.compile(r"(?:def|class)\s+(_[A-Za-z]\w*)|(?:self\.|^\s*)(_[A-Za-z]\w*)\s*(?::[^=\n]*)?=", re.MULTILINE)


def _sources(folder: Path) -> Iterator[Path]:
    yield from (path for path in sorted(folder.rglob("*.py")) if "__pycache__" not in path.parts)


def _library_privates() -> set[str]:
    names: set[str] = set()
    for library in LIBRARIES:
        spec = importlib.util.find_spec(library)
        assert spec is not None and spec.submodule_search_locations, library
        for folder in spec.submodule_search_locations:
            for path in _sources(Path(folder)):
                for match in DEFINED.finditer(path.read_text(encoding="utf-8", errors="replace")):
                    names.add(match.group(1) or match.group(2))
    return names


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_privates(trees: dict[Path, ast.Module]) -> set[str]:
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return {name for name in names if _private(name)}


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a name inside a module, not a module
        return False


def _own_modules(tree: ast.Module) -> set[str]:
    """The names a module binds to the project's own modules (`from foundry_tui.x import y`,
    `import foundry_tui.x as y`): a private reached through one of them is the project's."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("foundry_tui"):
            names.update(
                alias.asname or alias.name for alias in node.names if _is_module(f"{node.module}.{alias.name}")
            )
        elif isinstance(node, ast.Import):
            names.update(alias.asname for alias in node.names if alias.name.startswith("foundry_tui") and alias.asname)
    return names


def _accesses(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, what) for every private name the module reaches for outside `self`/`cls` and
    the project's own modules."""
    own_modules = _own_modules(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            receiver = node.value.id if isinstance(node.value, ast.Name) else None
            if receiver not in ("self", "cls") and receiver not in own_modules:
                yield node.lineno, node.attr
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) >= 2:
                name = node.args[1]
                if isinstance(name, ast.Constant) and isinstance(name.value, str) and _private(name.value):
                    yield node.lineno, name.value
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] in LIBRARIES and any(_private(part) for part in parts):
                yield node.lineno, node.module
            if parts[0] in LIBRARIES:
                for alias in node.names:
                    if _private(alias.name):
                        yield node.lineno, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in LIBRARIES and any(_private(part) for part in parts):
                    yield node.lineno, alias.name


def _trees() -> dict[Path, ast.Module]:
    return {
        path: ast.parse(path.read_text(encoding="utf-8"), str(path)) for path in [*_sources(PACKAGE), *_sources(TESTS)]
    }


def _refused(trees: dict[Path, ast.Module]) -> list[str]:
    own = _own_privates(trees) - _library_privates()
    return [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name}"
        for path, tree in trees.items()
        for line, name in _accesses(tree)
        if name not in own and name not in STANDARD_PUBLIC
    ]


def test_no_private_name_of_textual_rich_or_plotext_is_used() -> None:
    assert _refused(_trees()) == []


def test_the_check_finds_each_kind_of_private_use() -> None:
    """The check above cannot pass by finding nothing: each way of reaching a library's
    private name, written into a module, is refused."""
    trees = _trees()
    probe = ast.parse(
        "from textual.widgets._toast import Toast\n"
        "import textual._compositor\n"
        "from textual.app import _context\n"
        "def f(app, plt):\n"
        "    app._notifications\n"
        "    app.screen._compositor.render_strips()\n"
        "    getattr(app, '_batch_count', 0)\n"
        "    plt._set_size(1, 2)\n"
        "    self._batch_count\n"  # on self: the project's own object
    )
    refused = _refused({**trees, PACKAGE / "probe.py": probe})
    assert sorted(entry.removeprefix("foundry_tui/probe.py:") for entry in refused if "probe.py" in entry) == [
        "1: textual.widgets._toast",
        "2: textual._compositor",
        "3: _context",
        "5: _notifications",
        "6: _compositor",
        "7: _batch_count",
        "8: _set_size",
    ]
