"""Who is calling: the principal and whether the run is unattended, resolved once from the
process environment when an adapter starts (ADR 0019). Never from a tool argument,
a request body or a file the model can write.

On the start-up path of `foundry mcp` and the hooks: only `os` and `re` at import time.
"""

from __future__ import annotations

import os
import re

from foundry_tui.core.errors import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

PRINCIPAL_ENV = "FOUNDRY_PRINCIPAL"
UNATTENDED_ENV = "FOUNDRY_UNATTENDED"
KINDS = ("user", "service", "app")
# A name: letters, digits and . _ @ + -, starting with a letter or digit (logins, e-mail
# addresses, bot names); no spaces, colons or path separators.
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}")
_NOT_NAME = re.compile(r"[^A-Za-z0-9._@+-]")
_TRUE = {"1", "true", "yes"}


class Principal:
    """`kind:name`, e.g. `user:alice`, `service:ci-bot`, `app:review-app`."""

    __slots__ = ("kind", "name")

    def __init__(self, kind: str, name: str) -> None:
        self.kind = kind
        self.name = name

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"

    def __repr__(self) -> str:
        return f"Principal({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Principal) and (other.kind, other.name) == (self.kind, self.name)

    def __hash__(self) -> int:
        return hash((self.kind, self.name))

    @property
    def is_user(self) -> bool:
        return self.kind == "user"


class Caller:
    """The identity a process acts as: its principal, and whether nobody is watching."""

    __slots__ = ("principal", "unattended")

    def __init__(self, principal: Principal, unattended: bool = False) -> None:
        self.principal = principal
        self.unattended = unattended

    def __repr__(self) -> str:
        return f"Caller({self.principal}, unattended={self.unattended})"


def parse_principal(text: str, where: str = PRINCIPAL_ENV) -> Principal:
    """`user:alice` → Principal; anything else is a one-line InputError naming the form."""
    kind, sep, name = text.strip().partition(":")
    if not sep or kind not in KINDS or not NAME_RE.fullmatch(name):
        raise InputError(
            f"{where} '{text}' is not a principal: use user:<name>, service:<name> or app:<name> "
            "(name: letters, digits, '.', '_', '@', '+' or '-')"
        )
    return Principal(kind, name)


def login_name() -> str:
    """The OS user's login name, as getpass.getuser() finds it (without importing getpass),
    made fit for a principal; `uid-<n>` when the system knows no name for this user."""
    for var in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        value = os.environ.get(var)
        if value:
            break
    else:
        try:
            import pwd

            value = pwd.getpwuid(os.getuid()).pw_name
        except (ImportError, KeyError, AttributeError):
            value = ""
    name = _NOT_NAME.sub("-", value).lstrip("._@+-")[:128]
    if not name:
        getuid = getattr(os, "getuid", None)
        name = f"uid-{getuid()}" if getuid is not None else "unknown"
    return name


def is_unattended(environ: Mapping[str, str] | None = None) -> bool:
    """`FOUNDRY_UNATTENDED=1` or `CI=true` (also `1`/`yes`, any case: a CI system that spells
    it differently must not get a write it should not have)."""
    env = os.environ if environ is None else environ
    return any(env.get(var, "").strip().lower() in _TRUE for var in (UNATTENDED_ENV, "CI"))


def resolve_caller(environ: Mapping[str, str] | None = None) -> Caller:
    """The caller from the environment: FOUNDRY_PRINCIPAL, else `user:<login name>`.
    A malformed FOUNDRY_PRINCIPAL raises InputError (the adapter stops with that line)."""
    env = os.environ if environ is None else environ
    raw = env.get(PRINCIPAL_ENV, "")
    principal = parse_principal(raw) if raw.strip() else Principal("user", login_name())
    return Caller(principal, is_unattended(env))
