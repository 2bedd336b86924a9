"""Where things live: the four tiers under a project root, root discovery, and "today"."""

from __future__ import annotations

import os
from pathlib import Path

from foundry_tui.core.errors import InputError

TYPE_CHECKING = False  # the MCP server imports this at start-up: keep typing and datetime out
if TYPE_CHECKING:
    import datetime as _dt


class Layout:
    """The on-disk layout of one project (docs/DECISIONS.md, "Layout on disk").

    A plain class, not a dataclass: the MCP server and the hooks import this module
    before anything else, and dataclasses costs more to import than the rest of it."""

    __slots__ = ("root",)

    def __init__(self, root: Path) -> None:
        self.root = root

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    def __repr__(self) -> str:
        return f"Layout({self.root!r})"

    @property
    def foundry(self) -> Path:
        return self.root / ".foundry"

    @property
    def memory_dir(self) -> Path:
        return self.foundry / "memory"

    @property
    def facts_dir(self) -> Path:
        return self.memory_dir / "facts"

    @property
    def index_path(self) -> Path:
        return self.memory_dir / "INDEX.md"

    @property
    def runbooks_dir(self) -> Path:
        return self.foundry / "runbooks"

    @property
    def adr_dir(self) -> Path:
        return self.root / "docs" / "adr"

    @property
    def blackboard_dir(self) -> Path:
        return self.foundry / "blackboard"

    @property
    def contracts_dir(self) -> Path:
        return self.foundry / "contracts"

    @property
    def scratch_dir(self) -> Path:
        return self.foundry / "scratch"

    @property
    def metrics_dir(self) -> Path:
        return self.foundry / "metrics"

    @property
    def events_path(self) -> Path:
        return self.metrics_dir / "events.jsonl"

    @property
    def config_path(self) -> Path:
        return self.foundry / "config.json"

    def relative(self, path: Path) -> str:
        """`path` relative to the root when it is inside it (for messages), else as given."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def find_root(explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """The project root: `--root`, else FOUNDRY_ROOT, else the nearest ancestor holding
    `.foundry/`, else the nearest holding `.git/`, else the working directory."""
    chosen = explicit if explicit else os.environ.get("FOUNDRY_ROOT") or None
    if chosen:
        root = Path(chosen).expanduser()
        if not root.is_dir():
            raise InputError(f"project root {chosen} is not a directory: pass an existing folder to --root")
        return root.resolve()
    start = (cwd or Path.cwd()).resolve()
    for marker in (".foundry", ".git"):
        for folder in (start, *start.parents):
            if (folder / marker).is_dir():
                return folder
    return start


def resolve_today(value: str | None = None) -> _dt.date:
    """Today's date for expiry: `--today`, else FOUNDRY_TODAY, else the local date."""
    import datetime as _dt

    text = value or os.environ.get("FOUNDRY_TODAY") or ""
    if not text:
        return _dt.date.today()
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"today '{text}' is not a date: use YYYY-MM-DD") from None
