"""The write policy: who may change shared memory (ADR 0019). The gate that applies it to
every T1 write, from the CLI, the MCP server and the TUI alike, is `core/gate/guard.py`:

- unattended → denied (`deny_unattended`): nothing is written, a `write_denied` event is
  recorded, and the reply asks the agent to report the fact in its output instead;
- trusted (`trust_settings(...).is_trusted`) → written directly, exactly as before;
- anyone else → parked as a `fact.v1` proposal in `.foundry/blackboard/_proposals/`.

Trusted principals are `trust.trusted` in `.foundry/config.json`; with no `trust` section
every `user:` principal is trusted (a person's own repository works as it always did). In a
git repository the list is the one committed at HEAD (core/trust/committed.py): an edit of
the working copy, which an agent can make unseen, has no effect until it is committed.
"""

from __future__ import annotations

from foundry_tui.core.errors import ConfigError, FoundryError
from foundry_tui.core.memory.project import Project
from foundry_tui.core.trust.principal import Caller, Principal, parse_principal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject

UNATTENDED_TEXT = (
    "this run is unattended (CI=true or FOUNDRY_UNATTENDED=1), so it may not change shared memory and "
    "nothing was written: report the fact in your output instead, for a person to record"
)


class WriteDenied(FoundryError):
    """An unattended run tried to change shared memory (exit 1 on the CLI, an error result in MCP)."""


class NotTrusted(FoundryError):
    """A curator action (approve, reject) by a principal that is not trusted."""


WORKING_COPY = "the working copy's config.json"


class TrustSettings:
    """`trust.trusted` from config.json (None when there is no `trust` section), and
    `source`: which config.json it was read from, for the messages that name who is trusted;
    `in_git`: whether a change of the list takes effect only once committed."""

    __slots__ = ("in_git", "source", "trusted")

    def __init__(self, trusted: frozenset[str] | None, source: str = WORKING_COPY, in_git: bool = False) -> None:
        self.trusted = trusted
        self.source = source
        self.in_git = in_git

    def is_trusted(self, principal: Principal) -> bool:
        if self.trusted is None:
            return principal.is_user
        return str(principal) in self.trusted

    def describe(self) -> str:
        if self.trusted is None:
            return f"every user: principal ({self.source} has no trust section)"
        names = ", ".join(sorted(self.trusted)) or "nobody (trust.trusted is empty)"
        return f"{names}, as listed in {self.source}"


def parse_trust(
    raw: JSONObject | None, where: str = "config.json", source: str = WORKING_COPY, in_git: bool = False
) -> TrustSettings:
    """The `trust` section of a decoded config.json; ConfigError naming the bad entry."""
    if not raw or "trust" not in raw:
        return TrustSettings(None, source, in_git)
    section = raw["trust"]
    if not isinstance(section, dict):
        raise ConfigError(f'{where}: trust must be an object such as {{"trusted": ["user:alice"]}}')
    trusted = section.get("trusted", [])
    if not isinstance(trusted, list):
        raise ConfigError(f"{where}: trust.trusted must be a list of principals such as user:alice")
    names = []
    for number, entry in enumerate(trusted):
        if not isinstance(entry, str):
            raise ConfigError(f"{where}: trust.trusted[{number}] must be a string such as user:alice")
        try:
            names.append(str(parse_principal(entry, f"trust.trusted[{number}]")))
        except FoundryError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return TrustSettings(frozenset(names), source, in_git)


def trust_settings(project: Project) -> TrustSettings:
    """Who is trusted: from the config.json committed at HEAD in a git repository, else
    (outside git, or nothing committed yet) from the working copy; `source` says which."""
    from foundry_tui.core.trust.committed import COMMITTED, HEAD_WHERE, NOT_COMMITTED, committed_config

    committed = committed_config(project.layout)
    if committed.state == COMMITTED:
        return parse_trust(committed.raw, HEAD_WHERE, committed.source, in_git=True)
    return parse_trust(project.config().raw, source=committed.source, in_git=committed.state == NOT_COMMITTED)


def deny_unattended(project: Project, caller: Caller, operation: str) -> None:
    """Raise WriteDenied (and record `write_denied`) when nobody is watching this run."""
    if caller.unattended:
        from foundry_tui.core.events import record_event

        record_event(project.layout, "write_denied", operation=operation, principal=str(caller.principal))
        raise WriteDenied(UNATTENDED_TEXT)


def require_curator(project: Project, caller: Caller, action: str) -> None:
    """A curator's action (`action`: what it does, e.g. "approve proposals") is for a trusted
    principal in an attended run."""
    deny_unattended(project, caller, action)
    settings = trust_settings(project)
    if not settings.is_trusted(caller.principal):
        raise NotTrusted(
            f"{caller.principal} is not trusted, so it cannot {action}: trusted are "
            f"{settings.describe()}; ask one of them, or add yours to trust.trusted in .foundry/config.json"
            f"{' and commit it' if settings.in_git else ''}"
        )
