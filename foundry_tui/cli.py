"""The `foundry` command line: a thin adapter over `foundry_tui.core`.

Every command takes `--root`, `--today` and `--demo` before or after the subcommand,
prints the same text as its MCP tool, and exits 0 on success, 1 when a check fails
and 2 on bad usage, with a one-line error on stderr and never a traceback.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn, cast

from foundry_tui.commands.common import actor_of, caller_of, emit, emit_json_or_text, project_of, today_of
from foundry_tui.core.errors import FoundryError, InputError

# argparse (with gettext) is imported where a parser is built: a plain `foundry tui`
# (`_plain_tui`) reaches the app without it.
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterator, Sequence

    Handler = Callable[[argparse.Namespace], int]


@functools.cache
def _parser_class() -> type[argparse.ArgumentParser]:
    import argparse

    class _Parser(argparse.ArgumentParser):
        """argparse, but a usage error is one line on stderr and exit code 2, and the arguments
        added are kept in `arguments` (argparse lists them only privately), for the reference."""

        def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
            action = super().add_argument(*args, **kwargs)
            if "arguments" not in vars(self):  # ArgumentParser.__init__ adds -h before ours runs
                self.arguments: list[argparse.Action] = []
            self.arguments.append(action)
            return action

        def error(self, message: str) -> NoReturn:
            self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")

    return _Parser


def _global_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    import argparse

    # Sub-parsers default to SUPPRESS so an option given before the subcommand is not reset.
    default: Any = None if top else argparse.SUPPRESS
    parser.add_argument(
        "--root",
        metavar="DIR",
        default=default,
        help="project root (default: FOUNDRY_ROOT, else the nearest folder with .foundry/ or .git/)",
    )
    parser.add_argument(
        "--today",
        metavar="YYYY-MM-DD",
        default=default,
        help="the date that decides expiry (default: FOUNDRY_TODAY, else today)",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        default=False if top else argparse.SUPPRESS,
        help="run on a fresh temporary copy of the bundled demo project",
    )


def _read_body(args: argparse.Namespace) -> str:
    if args.body is not None and args.body_file is not None:
        raise InputError("give the body with --body or --body-file, not both")
    if args.body_file is not None:
        if args.body_file == "-":
            return sys.stdin.read()
        try:
            return Path(args.body_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(
                f"cannot read --body-file {args.body_file}: {getattr(exc, 'strerror', None) or exc}"
            ) from None
    if args.body is None:
        raise InputError("the fact needs a body: pass --body TEXT or --body-file FILE (- for stdin)")
    return str(args.body)


# ---- memory ------------------------------------------------------------------------------


def cmd_memory_write(args: argparse.Namespace) -> int:
    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.core.ops.facts import write_fact

    req = WriteRequest(
        title=args.title,
        body=_read_body(args),
        type=args.type,
        scope=args.scope,
        tags=None if args.tags is None else args.tags.split(","),
        confidence=args.confidence,
        source=args.source,
        expires=args.expires,
    )
    emit(write_fact(actor_of(args), req).text)
    return 0


def cmd_memory_search(args: argparse.Namespace) -> int:
    from foundry_tui.core.memory.search.reply import search_hint, search_page

    project = project_of(args)
    page = search_page(
        project,
        args.query,
        today_of(args),
        type=args.type,
        limit=args.limit,
        explain=args.explain,
        ranker=args.ranker,
        max_tokens=args.max_tokens,
        cursor=args.cursor,
    )
    hint = "" if args.explain or page.offset else search_hint(project, args.query, page.hits, args.ranker)
    if hint:  # beside the spec's exact reply, never in it
        print(hint, file=sys.stderr)
    payload = {
        "query": args.query,
        "ranker": page.ranker,
        "offset": page.offset,
        "hits": [h.to_dict() for h in page.hits],
        "next_cursor": page.next_cursor,
    }
    emit_json_or_text(args, payload, page.text)
    return 0


def cmd_memory_index(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.facts import rebuild_index

    emit(rebuild_index(actor_of(args)).rebuild_text())
    return 0


def cmd_memory_prune(args: argparse.Namespace) -> int:
    from foundry_tui.core.memory.reports.prune import prune_candidates, prune_json, render_prune

    project = project_of(args)
    project.sync()
    entries = prune_candidates(project.store, today_of(args))
    emit_json_or_text(args, {"candidates": prune_json(entries, project.store)}, render_prune(entries))
    return 0


def cmd_memory_show(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.adr import adr_for_source
    from foundry_tui.core.memory.project import find_fact
    from foundry_tui.core.memory.reports.views import render_fact_detail

    project = project_of(args)
    project.sync()
    fact = find_fact(project, args.id)
    found = adr_for_source(project.layout, fact.source)
    adr = (found[0], found[1].path if found[1] else None) if found else None
    emit(render_fact_detail(project, fact, today_of(args), adr))
    return 0


def cmd_memory_list(args: argparse.Namespace) -> int:
    from foundry_tui.core.memory.reports.views import fact_listing, render_listing

    project = project_of(args)
    project.sync()
    rows = fact_listing(project, today_of(args), include_inactive=args.all)
    emit_json_or_text(args, rows, render_listing(rows))
    return 0


def cmd_memory_dupes(args: argparse.Namespace) -> int:
    from foundry_tui.core.curation.neardup import find_dupes

    report = find_dupes(project_of(args), today_of(args), args.threshold)
    emit_json_or_text(args, report.to_dict(), report.text())
    return 0


def cmd_memory_conflicts(args: argparse.Namespace) -> int:
    from foundry_tui.core.curation.conflicts import find_conflicts

    report = find_conflicts(project_of(args), today_of(args))
    emit_json_or_text(args, report.to_dict(), report.text())
    return 0


def cmd_memory_merge(args: argparse.Namespace) -> int:
    from foundry_tui.core.curation.merge import merge_plan

    project = project_of(args)
    body = None
    if args.body_file is not None:
        args.body = None
        body = _read_body(args)
    plan = merge_plan(project, args.ids, title=args.title, body=body, type=args.type)
    today = today_of(args)
    if args.dry_run:
        emit(plan.preview(project, today))
        return 0
    from foundry_tui.core.ops.facts import merge_facts

    emit(merge_facts(actor_of(args, project), plan).text)
    return 0


def cmd_memory_missed(args: argparse.Namespace) -> int:
    from foundry_tui.core.curation.missed import missed_searches, render_missed

    emit(render_missed(missed_searches(project_of(args), today_of(args))))
    return 0


def cmd_memory_tag(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.facts import tag_fact

    emit(tag_fact(actor_of(args), args.id, args.tag).text)
    return 0


def cmd_memory_retire(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.facts import retire_facts

    emit(retire_facts(actor_of(args), args.ids, args.expires).text)
    return 0


def cmd_memory_budget(args: argparse.Namespace) -> int:
    from foundry_tui.core.curation.budget import over_budget, render_over_budget

    emit(render_over_budget(*over_budget(project_of(args), today_of(args))))
    return 0


def cmd_memory_resolve(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.curator import resolve_merge

    report = resolve_merge(actor_of(args))
    emit(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) if args.json else report.text())
    return 1 if report.problems else 0


def cmd_memory_log(args: argparse.Namespace) -> int:
    from foundry_tui.core.history.git_history import memory_log

    log = memory_log(project_of(args).layout, args.since)
    emit(json.dumps(log.to_dict(), indent=2, ensure_ascii=False) if args.json else log.text())
    return 0


def cmd_memory_diff(args: argparse.Namespace) -> int:
    from foundry_tui.core.history.git_history import memory_diff

    diff = memory_diff(project_of(args).layout, args.rev1, args.rev2)
    emit(json.dumps(diff.to_dict(), indent=2, ensure_ascii=False) if args.json else diff.text())
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from foundry_tui.core.checkup import ALL_CHECKS
    from foundry_tui.core.memory.reports.doctor import run_doctor

    report = run_doctor(project_of(args), today_of(args), ALL_CHECKS)
    emit_json_or_text(args, report.to_dict(), report.text())
    return 0 if report.ok else 1


# ---- the agent side ---------------------------------------------------------------------


def cmd_init(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.setup import init_project
    from foundry_tui.core.paths import find_root

    root = find_root(args.root) if args.root else Path.cwd()
    from foundry_tui.core.agent_config import parse_agents

    try:
        agents = [name for text in args.agent for name in parse_agents(text)] if args.agent else None
    except ValueError as exc:
        raise InputError(str(exc)) from None
    report = init_project(
        root, caller_of(args), args.profile, today_of(args), trusted=args.trusted, agents=agents, remove=args.remove
    )
    emit(report.text())
    return 1 if report.problems else 0


def cmd_runbook_list(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.runbooks import list_runbooks, render_runbook_list

    emit(render_runbook_list(list_runbooks(project_of(args).layout)))
    return 0


def cmd_runbook_get(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.runbooks import get_runbook

    emit(get_runbook(project_of(args).layout, args.slug))
    return 0


def cmd_runbook_new(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.library import new_runbook

    actor = actor_of(args)
    path = new_runbook(actor, args.title, args.trigger, args.slug)
    emit(f"Created {actor.project.layout.relative(path)}")
    return 0


def cmd_adr_list(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.adr import list_adrs, render_adr_list

    emit(render_adr_list(list_adrs(project_of(args).layout)))
    return 0


def cmd_adr_new(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.library import new_adr

    actor = actor_of(args)
    path = new_adr(actor, args.title, args.supersedes)
    emit(
        f"Created {actor.project.layout.relative(path)}"
        + (f" (supersedes ADR {args.supersedes:04d})" if args.supersedes else "")
    )
    return 0


def _json_argument(text: str | None, file: str | None, what: str) -> Any:
    if text is not None and file is not None:
        raise InputError(f"give the {what} with --data or --file, not both")
    raw = text if text is not None else (sys.stdin.read() if file in (None, "-") else None)
    if raw is None:
        try:
            raw = Path(str(file)).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read --file {file}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"the {what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # the parser's digit and nesting limits
        limit = "nested too deeply" if isinstance(exc, RecursionError) else "a number has more than 4300 digits"
        raise InputError(f"the {what} is not valid JSON ({limit})") from None


def cmd_blackboard_write(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.board import blackboard_write

    data = _json_argument(args.data, args.file, "artifact")
    outcome = blackboard_write(actor_of(args), args.wave, args.agent, args.schema, data)
    emit(outcome.text)
    return 0 if outcome.written else 1


def cmd_blackboard_read(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.blackboard import blackboard_read

    emit(blackboard_read(project_of(args).layout, args.wave, args.agent, args.full))
    return 0


def cmd_blackboard_waves(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.waves import find_wave, inspect_waves, wave_text, waves_json, waves_text

    waves = inspect_waves(project_of(args).layout)
    if args.wave is None:
        emit_json_or_text(args, waves_json(waves), waves_text(waves))
        return 0
    wave = find_wave(waves, args.wave)
    emit_json_or_text(args, waves_json([wave]), wave_text(wave))
    return 0


def cmd_blackboard_diff(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.waves import diff_artifacts, diff_text, inspect_waves

    waves = inspect_waves(project_of(args).layout)
    new, old = (args.first, None) if args.second is None else (args.second, args.first)
    emit(diff_text(diff_artifacts(waves, new, old)))
    return 0


def cmd_contract_list(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.contracts import describe_contracts

    emit(describe_contracts(project_of(args).layout))
    return 0


def cmd_contract_validate(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.contracts import contract_validate

    data = _json_argument(args.data, None, "artifact") if args.data is not None else None
    valid, text = contract_validate(
        project_of(args).layout, args.schema, data, args.path, has_data=args.data is not None
    )
    emit(text)
    return 0 if valid else 1


def cmd_tokens(args: argparse.Namespace) -> int:
    if args.json:  # the same figures as `foundry health --json`
        return cmd_health(args)
    from foundry_tui.core.artefacts.token_report import token_report

    emit(token_report(project_of(args), today_of(args)))
    return 0


def cmd_health(args: argparse.Namespace) -> int:
    from foundry_tui.core.artefacts.health import health_figures

    figures = health_figures(project_of(args), today_of(args))
    emit_json_or_text(args, figures.to_dict(), figures.text())
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from foundry_tui.core.paths import find_root
    from foundry_tui.mcp.server import run

    return run(find_root(args.root), args.today)


def cmd_hook(args: argparse.Namespace) -> int:
    from foundry_tui.hooks import run_hook

    return run_hook(args.event, sys.stdin, sys.stdout, args.root, args.agent)


def root_label(root: Path) -> str:
    """The root as a person reads it: relative to the working directory, else ~-shortened."""
    try:
        rel = root.relative_to(Path.cwd())
        return "." if str(rel) == "." else f"./{rel}"
    except ValueError:
        pass
    try:
        return f"~/{root.relative_to(Path.home())}"
    except ValueError:
        return str(root)


def cmd_tui(args: argparse.Namespace) -> int:
    from foundry_tui.tui import collector

    collector.pause()  # until the first screen is drawn: Textual's objects are not garbage
    try:
        return _tui(args)
    finally:  # an error before the app ran, or an app that ended before its first screen
        collector.resume()


def _tui(args: argparse.Namespace) -> int:
    from foundry_tui.core.paths import find_root

    root = find_root(args.root)  # a root that does not exist is an error before the app starts
    today = today_of(args)
    preload = None
    if args.at is None:  # the parse cache's index is read while Textual is imported
        from foundry_tui.core.memory.project import Project
        from foundry_tui.tui.preload import Preload

        preload = Preload(Project(root), today).start()
    from foundry_tui.tui.app import FoundryApp

    label = "demo project (a temporary copy)" if args.demo else root_label(root)
    if args.at is None:
        FoundryApp(root, today, watch=not args.no_watch, root_label=label, preload=preload).run()
        return 0
    from foundry_tui.core.history.git_history import materialised
    from foundry_tui.core.paths import Layout

    os.environ["FOUNDRY_NO_CACHE"] = "1"  # a throwaway root: no cache files
    # A bad revision is one line, before the app starts; the temporary folder goes however the app ends.
    with _signals_end_the_program(), materialised(Layout(root), args.at) as (past, done):
        if done.skipped:
            sys.stderr.write(f"foundry: warning: {done.warning()}\n")
        label = f"{label} at {args.at} ({done.commit}, read-only)"
        FoundryApp(past, today, watch=False, root_label=label, read_only=True).run()
    return 0


@contextlib.contextmanager
def _signals_end_the_program() -> Iterator[None]:
    """Inside the block, SIGTERM and SIGHUP (its terminal closed) raise SystemExit (the exit
    status a shell reports for the signal) wherever the program is, so the `finally` and
    `with` blocks it is in run on the way out; by default either signal ends the process
    at once and leaves a temporary folder behind. The previous handlers come back after."""
    import signal

    def end(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    ending = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {number: signal.signal(number, end) for number in ending}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


# ---- trust: proposals and preferences ----------------------------------------------------


def cmd_proposals_list(args: argparse.Namespace) -> int:
    from foundry_tui.core.gate.proposals import list_proposals, render_proposals

    project = project_of(args)
    proposals = list_proposals(project.layout)
    if args.json:
        emit(json.dumps({"proposals": [p.to_dict() for p in proposals]}, indent=2, ensure_ascii=False))
    else:
        emit(render_proposals(project, proposals, today_of(args)))
    return 0


def cmd_proposals_show(args: argparse.Namespace) -> int:
    from foundry_tui.core.gate.proposals import load_proposal, render_proposal

    project = project_of(args)
    emit(render_proposal(project, load_proposal(project.layout, args.id), today_of(args)))
    return 0


def cmd_proposals_approve(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.curator import approve

    emit(approve(actor_of(args), args.id))
    return 0


def cmd_proposals_reject(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.curator import reject

    emit(reject(actor_of(args), args.id, args.reason))
    return 0


def cmd_prefs_show(args: argparse.Namespace) -> int:
    from foundry_tui.core.trust.preferences import get_preferences

    emit(get_preferences(caller_of(args)))
    return 0


def cmd_prefs_save(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.preferences import save

    try:
        content = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read --file {args.file}: {getattr(exc, 'strerror', None) or exc}") from None
    emit(save(caller_of(args), content))
    return 0


def cmd_prefs_clear(args: argparse.Namespace) -> int:
    from foundry_tui.core.ops.preferences import confirm_clear, request_clear

    emit(confirm_clear(caller_of(args)) if args.confirm else request_clear(caller_of(args)))
    return 0


# ---- the parser -------------------------------------------------------------------------


# Every command's handler by its words ("memory write"), filled as build_parser adds them: the
# register a test walks (every writing command through the door) and the CLI reference reads.
COMMANDS: dict[str, Handler] = {}
# Every parser by its program's words ("foundry memory", "foundry memory write"), groups too,
# in the order they were added: what the CLI reference walks.
PARSERS: dict[str, argparse.ArgumentParser] = {}


def command_handlers() -> dict[str, Handler]:
    """Every command of `foundry` (its words, e.g. "memory write") and its handler."""
    build_parser()
    return dict(COMMANDS)


def build_parser() -> argparse.ArgumentParser:
    from foundry_tui.core.memory.model import vocabulary as vocab
    from foundry_tui.core.memory.search.rankers import RANKER_NAMES

    parser = _parser_class()(prog="foundry", description="Foundry project memory for AI coding agents.")
    _global_options(parser, top=True)
    parser.add_argument("--version", action="version", version=f"foundry {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_parser_class())

    def sub(group: Any, name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = group.add_parser(name, help=help_text, description=help_text)
        _global_options(p, top=False)
        p.set_defaults(handler=handler)
        COMMANDS[p.prog.removeprefix("foundry ")] = handler
        PARSERS[p.prog] = p
        return p

    mem = _group(commands, "memory", "facts: write, search, index, prune, show, list")

    p = sub(mem, "write", cmd_memory_write, "store one durable fact (dedup, ids and supersedes are automatic)")
    p.add_argument("--title", required=True, help=f"the fact itself, at most {vocab.MAX_TITLE_CHARS} characters")
    p.add_argument(
        "--body", help=f"the claim, at most {vocab.MAX_BODY_WORDS} words; decisions and risks need a Why: line"
    )
    p.add_argument("--body-file", metavar="FILE", help="read the body from FILE (- for stdin)")
    p.add_argument("--type", required=True, help=f"one of {', '.join(vocab.TYPES)}")
    # Options left out stay None: a new fact gets the default, an update keeps the old fact's value.
    p.add_argument("--scope", help=f"project, module:<name> or vertical:<name> (default: {vocab.DEFAULT_SCOPE})")
    p.add_argument("--tags", help="comma-separated retrieval words (default: none; '' for none on an update)")
    p.add_argument("--confidence", help=f"one of {', '.join(vocab.CONFIDENCES)} (default: {vocab.DEFAULT_CONFIDENCE})")
    p.add_argument("--source", help=f"adr-0007, conversation, code or external:<url> (default: {vocab.DEFAULT_SOURCE})")
    p.add_argument(
        "--expires", metavar="YYYY-MM-DD", help="the date the fact stops being active ('' for none on an update)"
    )

    p = sub(mem, "search", cmd_memory_search, "search active facts by keywords")
    p.add_argument("query", help="keywords describing what you need to know")
    p.add_argument("--type", help=f"only facts of this type ({', '.join(vocab.TYPES)})")
    p.add_argument("--limit", type=int, help="at most this many hits, 1 to 25 (default: memoryRetrieval.maxFacts)")
    p.add_argument("--explain", action="store_true", help="show which term matched which field and the multipliers")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--ranker", choices=RANKER_NAMES, help="the spec's scorer or BM25 (default: memoryRetrieval.ranker)")
    p.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="only the hits that keep the reply within N tokens (always one); a cursor gives the next page",
    )
    p.add_argument("--cursor", help="the cursor a page ended with: the next page of the same search")

    sub(mem, "index", cmd_memory_index, "rebuild .foundry/memory/INDEX.md and report budget use")
    p = sub(mem, "prune", cmd_memory_prune, "list facts to retire (changes nothing)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = sub(mem, "show", cmd_memory_show, "show one fact, its state and its supersedes chain")
    p.add_argument("id", help="the fact id, e.g. fact-0004")
    p = sub(mem, "dupes", cmd_memory_dupes, "find active facts that likely state the same claim (merges nothing)")
    p.add_argument(
        "--threshold",
        type=float,
        help="minimum similarity, above 0 and at most 1 (default: config nearDuplicates.threshold, 0.5)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = sub(
        mem, "conflicts", cmd_memory_conflicts, "find active facts about one subject that disagree (changes nothing)"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = sub(mem, "merge", cmd_memory_merge, "merge near-duplicate facts into one new fact (sources stay, inactive)")
    p.add_argument("ids", nargs="+", help="the facts to merge, e.g. fact-0007 fact-0014")
    p.add_argument("--title", help="the merged title (default: the first fact's)")
    p.add_argument("--type", help="the merged fact's type (default: the first fact's)")
    p.add_argument("--body-file", metavar="FILE", help="the merged body (default: the bodies combined; - for stdin)")
    p.add_argument("--dry-run", action="store_true", help="print exactly what would be written, write nothing")
    sub(mem, "missed", cmd_memory_missed, "searches that found nothing, most frequent first, with the nearest facts")
    p = sub(mem, "tag", cmd_memory_tag, "add a retrieval word to a fact's tags")
    p.add_argument("id")
    p.add_argument("tag")
    p = sub(mem, "retire", cmd_memory_retire, "retire facts by setting expires (nothing is deleted)")
    p.add_argument("ids", nargs="+")
    p.add_argument("--expires", metavar="YYYY-MM-DD", help="default: yesterday, so they are inactive today")
    sub(mem, "budget", cmd_memory_budget, "what the index omits, and the merges that would save the most tokens")
    p = sub(mem, "list", cmd_memory_list, "list active facts")
    p.add_argument("--all", action="store_true", help="also inactive facts (with why) and broken files")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub(mem, "resolve", cmd_memory_resolve, "repair the memory after a git merge, rebase or cherry-pick")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = sub(mem, "log", cmd_memory_log, "which facts each commit created, superseded, merged, renumbered, expired")
    p.add_argument("--since", metavar="REV", help="only commits after REV (REV..HEAD)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = sub(mem, "diff", cmd_memory_diff, "the memory's change between two revisions, fact by fact")
    p.add_argument("rev1", metavar="REV1")
    p.add_argument("rev2", metavar="REV2")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub(commands, "doctor", cmd_doctor, "check the memory's health (exit 1 on any FAIL)")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub(
        commands,
        "init",
        cmd_init,
        "set this repository up: folders, config, .gitignore, each agent's MCP server and hooks",
    )
    p.add_argument(
        "--agent",
        action="append",
        metavar="NAMES",
        help="the agents to wire, comma-separated: claude, codex, cursor, gemini (default: those whose folders "
        "or settings are here, else claude; repeatable)",
    )
    p.add_argument(
        "--remove", action="store_true", help="take Foundry's entries out of the --agent files again, nothing else"
    )
    p.add_argument("--profile", help="startup-mvp (2500-token index), standard (4000) or full (6000)")
    p.add_argument(
        "--trusted",
        action="append",
        metavar="PRINCIPAL",
        help="write trust.trusted: who may change shared memory directly, e.g. user:alice (repeatable)",
    )

    runbook = _group(commands, "runbook", "T2 runbooks: list, get, new")
    sub(runbook, "list", cmd_runbook_list, "list runbooks with their triggers")
    p = sub(runbook, "get", cmd_runbook_get, "print one runbook")
    p.add_argument("slug")
    p = sub(runbook, "new", cmd_runbook_new, "create a runbook from the template")
    p.add_argument("title")
    p.add_argument("--trigger", help="when to use it, e.g. 'deploy, release to prod'")
    p.add_argument("--slug", help="file name (default: from the title)")

    adr = _group(commands, "adr", "T3 architecture decision records: list, new")
    sub(adr, "list", cmd_adr_list, "list ADRs with their status")
    p = sub(adr, "new", cmd_adr_new, "write the next ADR from the template")
    p.add_argument("title")
    p.add_argument("--supersedes", type=int, metavar="N", help="mark ADR N superseded by the new one")

    board = _group(commands, "blackboard", "artifacts agents hand each other: waves, diff, read, write")
    p = sub(board, "waves", cmd_blackboard_waves, "the waves in the order they happened, with their counts")
    p.add_argument("wave", nargs="?", help="one wave: its artifacts, each with its contract check")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = sub(board, "diff", cmd_blackboard_diff, "the diff of two artifacts' JSON (keys sorted)")
    p.add_argument("first", metavar="WAVE/AGENT", help="alone: diffed with the same agent's artifact a wave earlier")
    p.add_argument("second", metavar="WAVE/AGENT", nargs="?", help="the newer side, FIRST being the older")
    p = sub(board, "read", cmd_blackboard_read, "summaries of a wave's artifacts")
    p.add_argument("wave")
    p.add_argument("--agent", help="only this producer")
    p.add_argument("--full", action="store_true", help="each artifact verbatim")
    p = sub(board, "write", cmd_blackboard_write, "validate and write an artifact (JSON from --data, --file or stdin)")
    p.add_argument("--wave", required=True)
    p.add_argument("--agent", required=True)
    p.add_argument("--schema", required=True, help="contract id, e.g. finding.v1")
    p.add_argument("--data", help="the artifact as JSON")
    p.add_argument("--file", help="read the artifact from FILE (- for stdin)")

    contract = _group(commands, "contract", "JSON Schema contracts: list, validate")
    sub(contract, "list", cmd_contract_list, "every available contract id")
    p = sub(contract, "validate", cmd_contract_validate, "validate an artifact (--data JSON or --path FILE)")
    p.add_argument("schema", help="contract id, e.g. finding.v1")
    p.add_argument("--data", help="the artifact as JSON")
    p.add_argument("--path", help="a JSON file, relative to the project root")

    proposals = _group(
        commands, "proposals", "memory changes parked for a trusted curator: list, show, approve, reject"
    )
    p = sub(proposals, "list", cmd_proposals_list, "every proposal, pending first in age order, broken ones marked")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = sub(proposals, "show", cmd_proposals_show, "one proposal beside the active fact it would change (a diff)")
    p.add_argument("id", help="the proposal id, e.g. prop-0003")
    p = sub(proposals, "approve", cmd_proposals_approve, "apply a pending proposal (you must be trusted)")
    p.add_argument("id", help="the proposal id, e.g. prop-0003")
    p = sub(proposals, "reject", cmd_proposals_reject, "reject a pending proposal; it is kept with the reason")
    p.add_argument("id", help="the proposal id, e.g. prop-0003")
    p.add_argument("--reason", required=True, help="why (kept with the proposal)")

    prefs = _group(commands, "prefs", "your own standing notes for agents, outside the repository: show, save, clear")
    sub(prefs, "show", cmd_prefs_show, "print your preferences")
    p = sub(prefs, "save", cmd_prefs_save, "replace your preferences with a file's text (at most 20,000 characters)")
    p.add_argument("--file", required=True, metavar="FILE", help="the whole new text (- for stdin)")
    p = sub(prefs, "clear", cmd_prefs_clear, "ask to delete your preferences; --confirm carries a pending request out")
    p.add_argument("--confirm", action="store_true", help="delete them now (a clear request must be pending)")

    from foundry_tui.commands.sessions import add_session_commands

    add_session_commands(commands, sub, _group)

    p = sub(commands, "tokens", cmd_tokens, "the token report")
    p.add_argument("--json", action="store_true", help="the figures as JSON (the same as `foundry health --json`)")
    p = sub(commands, "health", cmd_health, "the memory over time: searches, writes, INDEX.md and facts by type")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    sub(commands, "mcp", cmd_mcp, "run the stdio MCP server")
    p = sub(commands, "tui", cmd_tui, "open the terminal application")
    p.add_argument("--no-watch", action="store_true", help="do not watch the files for changes")
    p.add_argument("--at", metavar="REV", help="open the memory as of a git revision, read-only")
    p = sub(commands, "hook", cmd_hook, "run an agent's hook (its event JSON on stdin, its answer on stdout)")
    from foundry_tui.core.hook_events import AGENT_NAMES, DEFAULT_AGENT, HOOK_WORDS

    p.add_argument("event", choices=list(HOOK_WORDS))
    p.add_argument(
        "--agent",
        choices=list(AGENT_NAMES),
        default=DEFAULT_AGENT,
        help="whose event and answer format (default: claude)",
    )
    return parser


def _group(commands: Any, name: str, help_text: str) -> Any:
    parser = commands.add_parser(name, help=help_text, description=help_text)
    _global_options(parser, top=False)
    parser.set_defaults(handler=lambda _a: _missing(parser))
    PARSERS[parser.prog] = parser
    return parser.add_subparsers(dest=f"{name}_command", metavar="ACTION", parser_class=_parser_class())


def _missing(parser: argparse.ArgumentParser) -> int:
    sys.stderr.write(f"{parser.prog}: error: name an action (see `{parser.prog} --help`)\n")
    return 2


def _version() -> str:
    from foundry_tui import __version__

    return __version__


def _run(args: argparse.Namespace) -> int:
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        sys.stderr.write("foundry: error: name a command (see `foundry --help`)\n")
        return 2
    if not args.demo:
        return _call(handler, args)
    from foundry_tui.demo import make_demo_copy, remove_demo_copy, use_demo_environment

    if args.root:
        raise InputError("--demo and --root cannot be combined: --demo runs on a temporary copy of the demo project")
    root = make_demo_copy()
    args.root = str(root)
    use_demo_environment(root)  # a throwaway root: no cache files, and never the user's own preferences
    try:
        return _call(handler, args)
    finally:
        remove_demo_copy(root)


def _call(handler: Handler, args: argparse.Namespace) -> int:
    """Run a command; an OS error becomes the same one line its MCP tool would report."""
    try:
        return handler(args)
    except (BrokenPipeError, FoundryError):  # FoundryError: some are OSErrors too (a refused link)
        raise
    except OSError as exc:
        from foundry_tui.core.errors import os_error_text
        from foundry_tui.core.paths import find_root

        try:
            root = find_root(args.root)
        except FoundryError:
            root = None
        raise FoundryError(os_error_text(exc, root)) from None


def _plain_tui(argv: list[str]) -> argparse.Namespace | None:
    """`foundry tui` with nothing but --root, --today and --no-watch (before or after `tui`):
    the namespace argparse would make, without building the whole command line (about 40 ms
    of the first paint) or importing argparse. None for anything else, which argparse
    handles, errors included."""
    values: dict[str, Any] = {"root": None, "today": None, "no_watch": False}
    words: list[str] = []
    items = iter(argv)
    for item in items:
        name, equals, value = item.partition("=")
        if name in ("--root", "--today"):
            if not equals:
                value = next(items, "")
            if not value or value.startswith("-"):
                return None
            values[name[2:]] = value
        elif item == "--no-watch" and words:  # an option of `tui`'s own: after it only
            values["no_watch"] = True
        elif item.startswith("-"):
            return None
        else:
            words.append(item)
    if words != ["tui"]:
        return None
    # The handlers read a namespace's attributes only: argparse's own is not needed.
    return cast("argparse.Namespace", SimpleNamespace(**values, demo=False, command="tui", at=None, handler=cmd_tui))


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _plain_tui(argv) or build_parser().parse_args(argv)
        if getattr(args, "command", None) not in (None, "hook"):  # a hook never stops the agent
            caller_of(args)  # a malformed FOUNDRY_PRINCIPAL stops every command here, with one line
        return _run(args)
    except FoundryError as exc:
        from foundry_tui.core.memory.model.facts import escape_controls

        sys.stderr.write(f"foundry: error: {escape_controls(str(exc))}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # a bug, not the user's mistake: still no traceback unless asked
        if os.environ.get("FOUNDRY_DEBUG"):
            raise
        sys.stderr.write(f"foundry: internal error: {type(exc).__name__}: {exc} (set FOUNDRY_DEBUG=1 for details)\n")
        return 1
