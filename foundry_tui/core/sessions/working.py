"""Working memory (spec 004 §4): the `memory` tool's add, remove and replace.

Each command loads the latest working record, edits its fact list and writes it back
with the version bumped, all in one `BEGIN IMMEDIATE` transaction: two agents (or an
agent and a curator) editing one session at once never lose a version. The MCP tool
and `foundry session add|remove|replace` print the same text, from `memory_command`.
"""

from __future__ import annotations

from foundry_tui.core.errors import InputError, NotFoundError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from foundry_tui.core.sessions.store import SessionStore

MAX_FACT_CHARS = 300  # a working fact is one line of context on every prompt
MAX_FACTS = 40
COMMANDS = ("add", "remove", "replace")


def normalise_fact(text: object, what: str = "fact") -> str:
    """One line: runs of whitespace (newlines included) become one space. Refuses an empty
    fact and one over MAX_FACT_CHARS, saying by how much."""
    if not isinstance(text, str):
        raise InputError(f"the {what} must be a string")
    fact = " ".join(text.split())
    if not fact:
        raise InputError(f"the {what} is empty: give one short line to remember")
    if len(fact) > MAX_FACT_CHARS:
        raise InputError(
            f"the {what} is {len(fact):,} characters; a working fact holds at most {MAX_FACT_CHARS}: "
            f"shorten it by {len(fact) - MAX_FACT_CHARS:,} (one line, the fact itself)"
        )
    return fact


def working_facts(memory: dict[str, Any]) -> tuple[list[str], int]:
    """(facts, version) of a memory bundle; an empty working tier is ([], 0)."""
    working = memory.get("working") or {}
    facts = working.get("facts") or []
    return [str(f) for f in facts], int(working.get("version") or 0)


def _listing(facts: list[str]) -> str:
    return "; ".join(repr(f) for f in facts) if facts else "nothing (working memory is empty)"


def render_working(facts: list[str], version: int) -> str:
    if not facts:
        return f"working memory (version {version}): empty"
    lines = "\n".join(f"- {fact}" for fact in facts)
    return f"working memory (version {version}, {len(facts)} of {MAX_FACTS} facts):\n{lines}"


def memory_command(
    store: SessionStore,
    session_id: str,
    command: str,
    fact: str | None = None,
    old: str | None = None,
    new: str | None = None,
) -> str:
    """Run one `memory` command and return its reply; raise InputError / NotFoundError
    (nothing written) when the command cannot apply."""
    if command not in COMMANDS:
        raise InputError(f"unknown memory command '{command}': use add, remove or replace")
    if command in ("add", "remove"):
        if fact is None:
            raise InputError(f"memory {command} needs the argument 'fact'")
        if old is not None or new is not None:
            raise InputError(f"memory {command} takes 'fact', not 'old' or 'new'")
        target = normalise_fact(fact)
    else:
        if old is None or new is None:
            raise InputError("memory replace needs the arguments 'old' and 'new'")
        if fact is not None:
            raise InputError("memory replace takes 'old' and 'new', not 'fact'")
        target = normalise_fact(old, "old fact")
        replacement = normalise_fact(new, "new fact")
    with store.transaction() as conn:
        facts, version = working_facts(store.load_memory(conn, session_id))
        if command == "add":
            if target in facts:
                return f"unchanged: already in working memory\n{render_working(facts, version)}"
            if len(facts) >= MAX_FACTS:
                raise InputError(
                    f"working memory already holds {MAX_FACTS} facts, the limit: remove or replace one first"
                )
            edited, verb = [*facts, target], f"added: {target}"
        else:
            if target not in facts:
                raise NotFoundError(f"no working fact {target!r}; working memory holds: {_listing(facts)}")
            if command == "remove":
                edited, verb = [f for f in facts if f != target], f"removed: {target}"
            else:
                if replacement != target and replacement in facts:
                    edited = [f for f in facts if f != target]
                else:
                    edited = [replacement if f == target else f for f in facts]
                verb = f"replaced: {target}\n     with: {replacement}"
        store.write_record(conn, session_id, "working", {"facts": edited, "version": version + 1})
    return f"{verb}\n{render_working(edited, version + 1)}"
