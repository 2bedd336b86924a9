"""config.json as committed at HEAD: where the trusted list is read from in a git repository.

An agent can change the working copy unseen (the read gate refuses its edit tools, but not
`python -c`), so a change of `trust.trusted` counts only once it is committed, where the
history shows who made it. Read from git objects (`git cat-file`), never the working tree,
and at most MAX_COMMITTED_CONFIG_BYTES. Outside git, and in a repository whose HEAD holds no
config.json yet, there is nothing committed: the working copy is used, and `foundry doctor`
says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from foundry_tui.core.errors import ConfigError
from foundry_tui.core.paths import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject

MAX_COMMITTED_CONFIG_BYTES = 1024 * 1024  # a config.json is a few hundred bytes; HEAD's is read whole

COMMITTED = "committed"  # HEAD holds config.json: its trust section decides
NOT_COMMITTED = "not committed"  # a git repository whose HEAD has no config.json (or no commit yet)
OUTSIDE_GIT = "outside git"
GIT_UNAVAILABLE = "git unavailable"

SOURCES = {
    COMMITTED: "the config.json committed at HEAD",
    NOT_COMMITTED: "the working copy's config.json (not committed at HEAD yet)",
    OUTSIDE_GIT: "the working copy's config.json (not a git repository)",
    GIT_UNAVAILABLE: "the working copy's config.json (git is not available)",
}


@dataclass(frozen=True)
class CommittedConfig:
    """What HEAD holds: `state` (one of the four above) and, when COMMITTED, the decoded JSON."""

    state: str
    raw: JSONObject | None = None

    @property
    def source(self) -> str:
        """Where the trusted list comes from, for messages: 'the config.json committed at HEAD' …"""
        return SOURCES[self.state]


HEAD_WHERE = "config.json at HEAD"


def committed_config(layout: Layout) -> CommittedConfig:
    """config.json at HEAD of the repository holding `layout.root`. A HEAD copy that cannot
    be used (too large, not JSON, not a file) is a one-line ConfigError, never a fallback to
    the working copy."""
    from foundry_tui.core.history.git_history import GitError, run_git

    name = f"HEAD:./{layout.relative(layout.config_path)}"  # ./: relative to the root, wherever the top is
    try:
        found = run_git(layout.root, "cat-file", "--batch-check", stdin=f"{name}\n".encode(), check=False)
    except GitError as exc:
        if "not installed" in str(exc):
            return CommittedConfig(GIT_UNAVAILABLE)
        raise ConfigError(f"{HEAD_WHERE} cannot be read ({exc})") from None  # hung: no fallback to the working copy
    if found.returncode != 0:
        message = found.stderr.decode("utf-8", "replace").strip()
        if "not a git repository" in message:
            return CommittedConfig(OUTSIDE_GIT)
        first = (message.splitlines() or ["(no message)"])[0]
        raise ConfigError(f"{HEAD_WHERE} cannot be read (git cat-file: {first}): the trusted list is read from it")
    header = found.stdout.decode("utf-8", "replace").split()
    if header[-1:] == ["missing"]:  # no such file at HEAD, or no commit yet
        return CommittedConfig(NOT_COMMITTED)
    if len(header) != 3 or not header[2].isdigit():
        raise ConfigError(f"{HEAD_WHERE} cannot be read (git cat-file said '{' '.join(header)[:80]}')")
    object_id, kind, size = header[0], header[1], int(header[2])
    if kind != "blob":
        raise ConfigError(f"{HEAD_WHERE} is a {kind}, not a file: commit a config.json file")
    if size > MAX_COMMITTED_CONFIG_BYTES:
        raise ConfigError(
            f"{HEAD_WHERE} is {size} bytes, over the {MAX_COMMITTED_CONFIG_BYTES}-byte bound: "
            "commit a config.json of a few settings"
        )
    try:
        data = run_git(layout.root, "cat-file", "blob", object_id).stdout
    except GitError as exc:
        raise ConfigError(f"{HEAD_WHERE} cannot be read ({exc})") from None
    return CommittedConfig(COMMITTED, _decoded(data))


def _decoded(data: bytes) -> JSONObject:
    try:
        decoded = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{HEAD_WHERE}: not UTF-8 text; commit a valid config.json") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{HEAD_WHERE}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); commit a valid one"
        ) from None
    except (ValueError, RecursionError) as exc:  # the interpreter's digit and nesting limits
        reason = "nested too deeply" if isinstance(exc, RecursionError) else "a number has more than 4300 digits"
        raise ConfigError(f"{HEAD_WHERE}: not valid JSON ({reason}); commit a valid one") from None
    if not isinstance(decoded, dict):
        raise ConfigError(f"{HEAD_WHERE}: expected a JSON object at the top level")
    return decoded
