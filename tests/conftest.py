"""Shared fixtures: real folders on disk, the bundled demo, and the CLI run for real."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from foundry_tui.core.memory.project import Project
from foundry_tui.demo import make_demo_copy, remove_demo_copy

from .tui_helpers import notices_recorded

# Examples are judged on what they find, not on how fast a busy CI machine runs them.
settings.register_profile("foundry", deadline=None)
settings.load_profile("foundry")


# Code that starts a file watcher: a Project's (`.watch()`) or the TUI's (`make_app(..., watch=True)`).
_STARTS_A_WATCHER = re.compile(r"\.watch\(\)|watch=True")


def _starts_a_watcher(item: pytest.Item) -> bool:
    function = getattr(item, "function", None)
    try:
        return function is not None and bool(_STARTS_A_WATCHER.search(inspect.getsource(function)))
    except (OSError, TypeError):
        return False


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups from the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that depend on file-watch timing are `serial`: marked by hand, or found starting a
    watcher. They share one xdist worker group (`--dist loadgroup` in pyproject.toml), so under
    `-n auto` they run one after another instead of racing each other for inotify and CPU time."""
    for item in items:
        if not item.get_closest_marker("serial") and _starts_a_watcher(item):
            item.add_marker(pytest.mark.serial)
        if item.get_closest_marker("serial"):
            item.add_marker(pytest.mark.xdist_group("serial"))


@pytest.fixture(autouse=True)
def _notices() -> Iterator[None]:
    """Every notification an app is asked to show, for `tui_helpers.notices`."""
    with notices_recorded():
        yield


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test gets its own cache and data folders, no inherited root or date, and acts as
    the attended OS user: CI runs the suite with CI=true, which would deny every write (the
    trust tests set CI, FOUNDRY_UNATTENDED and FOUNDRY_PRINCIPAL themselves)."""
    monkeypatch.setenv("FOUNDRY_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("FOUNDRY_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    for name in (
        "FOUNDRY_ROOT",
        "FOUNDRY_TODAY",
        "FOUNDRY_NO_CACHE",
        "FOUNDRY_DEBUG",
        "CI",
        "FOUNDRY_UNATTENDED",
        "FOUNDRY_PRINCIPAL",
        # The MCP server's local socket lives in the (per-test) cache folder, never the user's runtime one.
        "XDG_RUNTIME_DIR",
        "FOUNDRY_NO_SOCKET",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty project with a `.foundry/` folder."""
    (tmp_path / ".foundry" / "memory" / "facts").mkdir(parents=True)
    return tmp_path


@pytest.fixture
def project(root: Path) -> Project:
    return Project(root)


@pytest.fixture
def demo_root() -> Iterator[Path]:
    """A fresh copy of the bundled demo project, without its git history (most tests
    make their own repository, or none)."""
    path = make_demo_copy(history=False)
    yield path
    remove_demo_copy(path)


@pytest.fixture
def demo_repo() -> Iterator[Path]:
    """A fresh copy of the bundled demo project with its git history, as `--demo` makes it."""
    path = make_demo_copy()
    yield path
    remove_demo_copy(path)


@pytest.fixture
def demo(demo_root: Path) -> Project:
    return Project(demo_root)
