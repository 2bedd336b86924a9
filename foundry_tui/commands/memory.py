"""`foundry memory …`: facts on the command line (a thin adapter over `foundry_tui.core` and
the door): write, search, index, prune, show, list, dupes, conflicts, merge, missed, tag,
retire, budget, resolve, log and diff."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from foundry_tui.commands.common import (
    CommandGroup,
    StderrProgress,
    actor_of,
    emit,
    emit_json_or_text,
    project_of,
    today_of,
)
from foundry_tui.core.errors import InputError

if TYPE_CHECKING:
    import argparse


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
        refs=args.ref,
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


def cmd_memory_vectors(args: argparse.Namespace) -> int:
    from foundry_tui.core.errors import FoundryError
    from foundry_tui.core.memory.project import semantic_off_reason

    project = project_of(args)
    if not project.semantic_enabled():
        raise FoundryError(semantic_off_reason(project))
    project.sync()
    progress = StderrProgress()
    try:
        embedded = project.build_vectors(today_of(args), progress=progress.show)
    finally:
        progress.end()
    emit(vectors_text(embedded))
    return 0


def vectors_text(embedded: int) -> str:
    """What `foundry memory vectors` prints once the build is done."""
    if not embedded:
        return "Every active fact has its vector."
    return f"Embedded {embedded:,} fact{'s' if embedded != 1 else ''}: every active fact has its vector."


def cmd_memory_prune(args: argparse.Namespace) -> int:
    from foundry_tui.core.memory.reports.grounding import verify_active
    from foundry_tui.core.memory.reports.prune import prune_candidates, prune_json, render_prune

    project = project_of(args)
    project.sync()
    entries = prune_candidates(project.store, today_of(args), verify_active(project, today_of(args)))
    emit_json_or_text(args, {"candidates": prune_json(entries, project.store)}, render_prune(entries))
    return 0


def cmd_memory_verify(args: argparse.Namespace) -> int:
    from foundry_tui.core.code_refs import describe_changes
    from foundry_tui.core.memory.reports.grounding import render_verification, verification_json, verify_active

    project = project_of(args)
    verification = verify_active(project, today_of(args))
    describe_changes(project.layout, verification)
    emit_json_or_text(args, verification_json(verification), render_verification(verification))
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


def add_commands(commands: CommandGroup) -> None:
    """The `memory` group, added to the parser by cli.build_parser."""
    from foundry_tui.core.memory.model import vocabulary as vocab
    from foundry_tui.core.memory.search.ranker_names import RANKER_NAMES

    mem = commands.group(
        "memory",
        "facts: write, search, index, vectors, prune, verify, show, dupes, conflicts, merge, missed, tag, retire, budget, list, "
        "resolve, log, diff",
    )

    p = mem.command("write", cmd_memory_write, "store one durable fact (dedup, ids and supersedes are automatic)")
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
    p.add_argument(
        "--ref",
        action="append",
        metavar="PATH",
        help="a file, folder, glob or PATH::Name the fact is about (repeat it; the body's backticked paths "
        "are added; left out on an update: the old fact's refs)",
    )

    p = mem.command("search", cmd_memory_search, "search active facts by keywords")
    p.add_argument("query", help="keywords describing what you need to know")
    p.add_argument("--type", help=f"only facts of this type ({', '.join(vocab.TYPES)})")
    p.add_argument("--limit", type=int, help="at most this many hits, 1 to 25 (default: memoryRetrieval.maxFacts)")
    p.add_argument("--explain", action="store_true", help="show which term matched which field and the multipliers")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--ranker",
        choices=RANKER_NAMES,
        help="the spec's scorer, BM25, or BM25 fused with sentence similarity (default: memoryRetrieval.ranker)",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="only the hits that keep the reply within N tokens (always one); a cursor gives the next page",
    )
    p.add_argument("--cursor", help="the cursor a page ended with: the next page of the same search")

    mem.command("index", cmd_memory_index, "rebuild .foundry/memory/INDEX.md and report budget use")
    mem.command(
        "vectors",
        cmd_memory_vectors,
        "embed the active facts that have no sentence vector yet (derived data, the hybrid ranker's; progress on stderr)",
    )
    p = mem.command("prune", cmd_memory_prune, "list facts to retire (changes nothing)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = mem.command(
        "verify", cmd_memory_verify, "check each active fact's refs against the code: fresh, changed, moved or gone"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = mem.command("show", cmd_memory_show, "show one fact, its state and its supersedes chain")
    p.add_argument("id", help="the fact id, e.g. fact-0004")
    p = mem.command("dupes", cmd_memory_dupes, "find active facts that likely state the same claim (merges nothing)")
    p.add_argument(
        "--threshold",
        type=float,
        help="minimum similarity, above 0 and at most 1 (default: config nearDuplicates.threshold, 0.5)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = mem.command(
        "conflicts", cmd_memory_conflicts, "find active facts about one subject that disagree (changes nothing)"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = mem.command("merge", cmd_memory_merge, "merge near-duplicate facts into one new fact (sources stay, inactive)")
    p.add_argument("ids", nargs="+", help="the facts to merge, e.g. fact-0007 fact-0014")
    p.add_argument("--title", help="the merged title (default: the first fact's)")
    p.add_argument("--type", help="the merged fact's type (default: the first fact's)")
    p.add_argument("--body-file", metavar="FILE", help="the merged body (default: the bodies combined; - for stdin)")
    p.add_argument("--dry-run", action="store_true", help="print exactly what would be written, write nothing")
    mem.command("missed", cmd_memory_missed, "searches that found nothing, most frequent first, with the nearest facts")
    p = mem.command("tag", cmd_memory_tag, "add a retrieval word to a fact's tags")
    p.add_argument("id")
    p.add_argument("tag")
    p = mem.command("retire", cmd_memory_retire, "retire facts by setting expires (nothing is deleted)")
    p.add_argument("ids", nargs="+")
    p.add_argument("--expires", metavar="YYYY-MM-DD", help="default: yesterday, so they are inactive today")
    mem.command("budget", cmd_memory_budget, "what the index omits, and the merges that would save the most tokens")
    p = mem.command("list", cmd_memory_list, "list active facts")
    p.add_argument("--all", action="store_true", help="also inactive facts (with why) and broken files")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = mem.command("resolve", cmd_memory_resolve, "repair the memory after a git merge, rebase or cherry-pick")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = mem.command(
        "log",
        cmd_memory_log,
        "which facts each commit created, superseded, merged, renumbered, expired; cited code changed",
    )
    p.add_argument("--since", metavar="REV", help="only commits after REV (REV..HEAD)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = mem.command("diff", cmd_memory_diff, "the memory's change between two revisions, fact by fact")
    p.add_argument("rev1", metavar="REV1")
    p.add_argument("rev2", metavar="REV2")
    p.add_argument("--json", action="store_true", help="machine-readable output")
