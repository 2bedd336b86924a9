"""The door's register: every operation that changes anything under the project root or
in the preferences store, with the policy that decides who may run it.

The adapters (the CLI, the MCP server, the hooks and the TUI) change nothing except
through the functions registered here (an import-linter contract in pyproject.toml keeps
them away from the write modules below), and a test walks this register with an
untrusted and an unattended principal, so a new operation cannot skip its policy.

Policies:
- `gated`: a T1 change (spec 003): unattended → denied, trusted → applied, anyone else →
  parked as a proposal for a curator;
- `curator`: a change only a trusted principal in an attended run makes (deciding a
  proposal, rebuilding the index, undoing a merge, settling a git merge, runbooks and
  ADRs, which every session is shown): anyone else is refused with one line;
- `owner`: the caller's own preferences, outside the repository (user principals only;
  unattended runs refused; a clear always parks until the person confirms it);
- `open`: scratch tiers that are the agent's own working space, never read into another
  person's session unseen (a run's blackboard artifacts, a session's T0 memory) and
  `foundry init`'s set-up, which creates only what is missing and never changes a fact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeVar

Policy = Literal["gated", "curator", "owner", "open"]
POLICIES: tuple[Policy, ...] = ("gated", "curator", "owner", "open")

F = TypeVar("F", bound=Callable[..., object])


class Operation:
    """One registered operation: its name, its policy and what it changes."""

    __slots__ = ("function", "name", "policy", "summary")

    def __init__(self, name: str, policy: Policy, summary: str, function: Callable[..., object]) -> None:
        self.name = name
        self.policy = policy
        self.summary = summary
        self.function = function


OPERATIONS: dict[str, Operation] = {}


def operation(name: str, policy: Policy, summary: str) -> Callable[[F], F]:
    """Register the decorated function as the door's operation `name`."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}")

    def register(function: F) -> F:
        if name in OPERATIONS:
            raise ValueError(f"operation {name!r} is registered twice")
        OPERATIONS[name] = Operation(name, policy, summary, function)
        return function

    return register


OPERATION_MODULES = (
    "foundry_tui.core.ops.facts",
    "foundry_tui.core.ops.curator",
    "foundry_tui.core.ops.library",
    "foundry_tui.core.ops.board",
    "foundry_tui.core.ops.preferences",
    "foundry_tui.core.ops.sessions",
    "foundry_tui.core.ops.setup",
)


def all_operations() -> dict[str, Operation]:
    """The whole register (importing every operation module; for tests and references)."""
    import importlib

    for module in OPERATION_MODULES:
        importlib.import_module(module)
    return OPERATIONS
