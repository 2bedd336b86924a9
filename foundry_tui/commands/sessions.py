"""`foundry session …`: session memory on the command line (a thin adapter over
`foundry_tui.core.sessions`). The working-memory commands print what the MCP `memory`
tool returns; `list`, `show`, `promote` and `prune` are the curator's."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from foundry_tui.commands.common import CommandGroup, actor_of, emit, project_of, today_of

if TYPE_CHECKING:
    import argparse


def _store(args: argparse.Namespace) -> Any:
    from foundry_tui.core.sessions.store import SessionStore

    return SessionStore(project_of(args).layout)


def _session(args: argparse.Namespace, store: Any) -> str:
    from foundry_tui.core.sessions.agents import resolve_session

    return resolve_session(store, args.session)


def _triggers(args: argparse.Namespace) -> tuple[int, int]:

    config = project_of(args).config()
    return config.observation_trigger_tokens, config.reflection_trigger_tokens


def cmd_session_edit(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.sessions import edit_working_memory

    store = _store(args)
    try:
        session_id = _session(args, store)
        if args.session_command == "replace":
            text = edit_working_memory(store, session_id, "replace", old=args.old, new=args.new)
        else:
            text = edit_working_memory(store, session_id, args.session_command, fact=args.fact)
    finally:
        store.close()
    emit(text)
    return 0


def cmd_session_list(args: argparse.Namespace) -> int:
    from foundry_tui.core.sessions.curation import render_session_list, session_rows

    store = _store(args)
    rows = session_rows(store)
    for row in rows:
        row.pop("last_active_epoch")
    emit(json.dumps(rows, indent=2, ensure_ascii=False) if args.json else render_session_list(rows, store.where()))
    return 0


def cmd_session_show(args: argparse.Namespace) -> int:
    from foundry_tui.core.sessions.agents import check_session_id
    from foundry_tui.core.sessions.curation import render_session_detail, session_detail

    store = _store(args)
    detail = session_detail(store, check_session_id(args.id))
    if args.json:
        emit(json.dumps(detail, indent=2, ensure_ascii=False))
    else:
        emit(render_session_detail(detail, *_triggers(args)))
    return 0


def cmd_session_promote(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.sessions import promote_reference
    from foundry_tui.core.sessions.agents import check_session_id
    from foundry_tui.core.sessions.store import SessionStore

    actor = actor_of(args)
    store = SessionStore(actor.project.layout)
    tags = [t.strip() for t in (args.tags or "").split(",") if t.strip()]
    result = promote_reference(actor, store, check_session_id(args.id), args.fact, args.title, args.type, tags)
    emit(result.text)
    return 0


def cmd_session_prune(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.sessions import prune_sessions
    from foundry_tui.core.sessions.curation import prune_candidates, render_prune_plan

    store = _store(args)
    cutoff, rows = prune_candidates(store, args.older_than, today_of(args))
    emit(render_prune_plan(cutoff, rows))
    if not rows:
        return 0
    if not args.yes:
        sys.stdout.write("Remove them? [y/N] ")
        sys.stdout.flush()
        answer = sys.stdin.readline().strip().lower()
        if answer not in ("y", "yes"):
            emit(("" if sys.stdin.isatty() else "\n") + "Nothing removed (pass --yes to remove without asking).")
            return 0
    emit(prune_sessions(actor_of(args), store, rows))
    return 0


def add_commands(commands: CommandGroup) -> None:
    """The `session` group, added to the parser by cli.build_parser."""
    from foundry_tui.core.memory.model.facts import TYPES

    session = commands.group(
        "session", "session memory (T0), its working facts and tiers: add, remove, replace, list, show, promote, prune"
    )

    def edit(name: str, help_text: str) -> argparse.ArgumentParser:
        p = session.command(name, cmd_session_edit, help_text)
        p.add_argument(
            "--session",
            metavar="ID",
            help="the session (default: FOUNDRY_SESSION, else the agent session this command runs in)",
        )
        return p

    p = edit("add", "add a fact to a session's working memory")
    p.add_argument("fact", help="one line, at most 300 characters")
    p = edit("remove", "remove a fact from a session's working memory")
    p.add_argument("fact")
    p = edit("replace", "replace a fact in a session's working memory")
    p.add_argument("old")
    p.add_argument("new")
    p = session.command("list", cmd_session_list, "sessions with last activity, tier sizes and token counters")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = session.command("show", cmd_session_show, "one session: counters, the three tiers, the audit timeline")
    p.add_argument("id")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = session.command("promote", cmd_session_promote, "write a working fact as a project fact (memory_write)")
    p.add_argument("id", help="the session id")
    p.add_argument("fact", help="the working fact's text, or its number in `foundry session show`")
    p.add_argument("--title", help="the T1 title (default: the fact, if it fits in 80 characters)")
    p.add_argument("--type", default="convention", choices=TYPES, help="the T1 type (default: convention)")
    p.add_argument("--tags", default="", help="comma-separated retrieval words")
    p = session.command("prune", cmd_session_prune, "remove sessions not active for DAYS days (asks first)")
    p.add_argument("--older-than", type=int, required=True, metavar="DAYS", help="last active before today minus DAYS")
    p.add_argument("--yes", action="store_true", help="do not ask (for scripts)")
