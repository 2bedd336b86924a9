"""`foundry doctor`: health checks of a project's memory, for people and for CI.

Each check is a small function that reads a `DoctorContext` (the project, gathered once)
and yields its findings; `CHECKS` lists them in the order the report prints them.
Adding a check is adding one function to that tuple.
"""

from __future__ import annotations

import datetime as _dt
import os
import shlex
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from foundry_tui.core.agent_config import agent_problems
from foundry_tui.core.agent_config import all_configured_commands as configured_commands
from foundry_tui.core.atomic import TEMP_SUFFIX
from foundry_tui.core.code_refs import STALE_STATES, FactCheck
from foundry_tui.core.config import Config
from foundry_tui.core.errors import ConfigError, FoundryError
from foundry_tui.core.git_setup import hook_commands
from foundry_tui.core.memory.model.facts import (
    RENUMBERED_FROM,
    Fact,
    FactFileError,
    field_problems,
    has_conflict_markers,
    normalise,
    parse_fact_text,
)
from foundry_tui.core.memory.model.vocabulary import MAX_BODY_WORDS, MAX_TITLE_CHARS
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.index_file import IndexReport, build_index, index_state
from foundry_tui.core.paths import LINK_ADVICE, Layout, UnsafePathError
from foundry_tui.core.program import find_program

OK, WARN, FAIL = "ok", "warn", "FAIL"


@dataclass
class Check:
    """One doctor finding: its status, a summary, and one line per problem naming the fix."""

    name: str
    status: str
    summary: str
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [f"{self.status:<5} {self.name}: {self.summary}", *(f"        - {p}" for p in self.problems)]

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "status": self.status, "summary": self.summary, "problems": self.problems}


@dataclass
class DoctorReport:
    checks: list[Check]

    @property
    def failed(self) -> int:
        return sum(c.status == FAIL for c in self.checks)

    @property
    def warned(self) -> int:
        return sum(c.status == WARN for c in self.checks)

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def text(self) -> str:
        lines = [line for check in self.checks for line in check.lines()]
        if self.failed or self.warned:
            lines.append(f"doctor: {self.failed} FAIL, {self.warned} warn")
        else:
            lines.append("doctor: all checks ok")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "failed": self.failed,
            "warned": self.warned,
            "checks": [c.to_dict() for c in self.checks],
        }


class DoctorContext:
    """What the checks read, gathered once per run (the store is synced before)."""

    def __init__(self, project: Project, today: _dt.date) -> None:
        # A facts folder that cannot be read (a file in its place) is a finding, not the end
        # of the report: the other checks run on an empty store. One that leads out of the
        # root through a link is check_links' finding.
        self.facts_folder_error: OSError | None = None
        try:
            project.sync()
        except UnsafePathError:
            pass
        except OSError as exc:
            self.facts_folder_error = exc
        self.project = project
        self.today = today
        self.layout: Layout = project.layout
        self.store = project.store
        self.config: Config
        self.config_error: ConfigError | None
        self.config, self.config_error = project.config_or_defaults()
        self.rel_facts = self.layout.relative(self.layout.facts_dir)
        self.facts: list[Fact] = self.store.sorted_facts()
        self.active: list[Fact] = self.store.active_facts(today)

    @cached_property
    def index(self) -> tuple[str, IndexReport]:
        """INDEX.md as it should read now, and its budget report (two checks read it)."""
        return build_index(self.active, self.config.index_token_budget)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _verdict(name: str, problems: list[str], status: str, summary: str, ok_summary: str) -> Check:
    """`status` with `summary` and one line per problem, or ok with `ok_summary` when there are none."""
    return Check(name, status, summary, problems) if problems else Check(name, OK, ok_summary)


def check_config(ctx: DoctorContext) -> Iterator[Check]:
    if ctx.config_error is not None:
        yield Check("config", FAIL, "config.json cannot be used; defaults assumed below", [f"{ctx.config_error}"])
    elif ctx.layout.config_path.exists():
        yield Check("config", OK, "config.json is valid")
    else:
        yield Check("config", OK, "no config.json; defaults in use")


def check_facts_folder(ctx: DoctorContext) -> Iterator[Check]:
    error = ctx.facts_folder_error
    if error is not None:
        yield Check(
            "facts folder",
            FAIL,
            f"{ctx.rel_facts} cannot be read ({error.strerror or error})",
            ["make it a folder of fact files (move what is there aside), then run `foundry doctor` again"],
        )


def check_fact_files(ctx: DoctorContext) -> Iterator[Check]:
    broken = sorted(ctx.store.broken.values(), key=lambda b: b.name)
    yield _verdict(
        "fact files",
        [f"{ctx.rel_facts}/{b.name}: {b.reason}" for b in broken],
        FAIL,
        f"{_plural(len(broken), 'file')} of {len(ctx.store.file_names())} cannot be loaded (the rest still load)",
        f"{_plural(len(ctx.store.facts), 'fact file')} load",
    )


def _project_entries(layout: Layout) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk of .foundry/ and docs/adr/, never following a link (a link is an entry, not a folder)."""
    for top in (layout.foundry, layout.adr_dir):
        if top.is_dir() and not top.is_symlink():
            yield from os.walk(top, followlinks=False)


def check_leftover_temp_files(ctx: DoctorContext) -> Iterator[Check]:
    """The `.<name>.<pid>.<n>.tmp` files a writer killed mid-write leaves (INDEX.md, facts, runbooks …)."""
    temps = sorted(
        ctx.layout.relative(Path(folder) / name)
        for folder, _dirs, files in _project_entries(ctx.layout)
        for name in files
        if name.startswith(".") and name.endswith(TEMP_SUFFIX)
    )
    if temps:
        yield Check(
            "leftover temp files",
            WARN,
            f"{_plural(len(temps), 'file')} left by an interrupted write",
            [f"{t}: delete it (the write it belonged to did not finish)" for t in temps],
        )


def check_links(ctx: DoctorContext) -> Iterator[Check]:
    """Links under .foundry/ (and docs/adr/) that lead out of the root: nothing reads or
    writes through them, so what they stand for is missing (issue 9)."""
    layout = ctx.layout
    candidates = [layout.foundry, layout.adr_dir]
    for folder, dirs, files in _project_entries(layout):
        candidates += [Path(folder) / name for name in (*dirs, *files)]
    problems = []
    for path in candidates:
        if path.is_symlink() and not layout.is_inside(path):
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            problems.append(f"{layout.relative(path)} -> {target}: {LINK_ADVICE}")
    if problems:
        verb = "leads" if len(problems) == 1 else "lead"
        summary = f"{_plural(len(problems), 'link')} under .foundry/ {verb} out of the project root"
        yield Check("links", FAIL, summary, sorted(problems))  # silent when none, as leftover temp files


def check_fact_sizes(ctx: DoctorContext) -> Iterator[Check]:
    oversize = []
    for fact in ctx.facts:
        if len(fact.title) > MAX_TITLE_CHARS:
            oversize.append(
                f"{fact.id}: title is {len(fact.title)} characters, over {MAX_TITLE_CHARS}: shorten it through memory_write"
            )
        words = len(fact.body.split())
        if words > MAX_BODY_WORDS:
            oversize.append(
                f"{fact.id}: body is {words} words, over {MAX_BODY_WORDS}: split or tighten it through memory_write"
            )
    yield _verdict(
        "fact sizes",
        oversize,
        WARN,
        f"{_plural(len(oversize), 'fact')} over the size limits",
        "titles and bodies within limits",
    )


def check_fact_fields(ctx: DoctorContext) -> Iterator[Check]:
    """Hand-written fields memory_write would refuse (control characters, too many or too
    long tags): they load, but the index and the screens show them escaped or cut."""
    fields = [
        f"{ctx.rel_facts}/{fact.id}.md: {problem}: rewrite the fact through memory_write"
        for fact in ctx.facts
        for problem in field_problems(fact)
    ]
    if fields:
        yield Check("fact fields", WARN, f"{_plural(len(fields), 'field')} memory_write would refuse", fields)
    else:
        yield Check("fact fields", OK, "no control characters, tags within limits")


def check_duplicate_titles(ctx: DoctorContext) -> Iterator[Check]:
    by_title: dict[str, list[str]] = {}
    for fact in ctx.active:
        by_title.setdefault(normalise(fact.title), []).append(fact.id)
    shared = [ids for ids in by_title.values() if len(ids) > 1]
    yield _verdict(
        "duplicate titles",
        [
            f"{', '.join(ids)} share a title: retire all but one (set expires) or rewrite one through memory_write"
            for ids in shared
        ],
        FAIL,
        f"{_plural(len(shared), 'title')} shared by several active facts",
        "no two active facts share a title",
    )


def check_reasoning(ctx: DoctorContext) -> Iterator[Check]:
    missing_why = [f for f in ctx.active if f.needs_why]
    yield _verdict(
        "reasoning",
        [
            f"{f.id} ({ctx.rel_facts}/{f.id}.md): add a **Why:** line through memory_write, or retire it"
            for f in missing_why
        ],
        FAIL,
        f"{_plural(len(missing_why), 'active decision or risk fact')} without **Why:**",
        "every active decision and risk has a **Why:** line",
    )


def _dangling_links(ctx: DoctorContext) -> Iterator[str]:
    """Each supersedes or merged_from entry naming a fact that is not there (or itself)."""
    known = ctx.store.facts
    for fact in ctx.facts:
        if fact.supersedes == fact.id:
            yield f"{fact.id} supersedes itself: set supersedes to the fact it replaces, or null"
        elif fact.supersedes and fact.supersedes not in known:
            yield f"{fact.id} supersedes {fact.supersedes}, which does not exist: fix the id or set null"
        for merged in fact.replaced_ids():
            if merged != fact.supersedes and merged not in known:
                yield f"{fact.id} lists {merged} in merged_from, which does not exist: fix the list"


def _supersedes_cycles(ctx: DoctorContext) -> Iterator[str]:
    """Each cycle of two or more facts along the supersedes chains, once."""
    known = ctx.store.facts
    seen: set[frozenset[str]] = set()
    for fact in ctx.facts:
        path = [fact.id]
        current = fact.supersedes
        while current and current in known:
            if current in path:
                cycle = path[path.index(current) :]
                key = frozenset(cycle)
                if key not in seen and len(cycle) > 1:
                    seen.add(key)
                    yield f"supersedes cycle {' → '.join([*cycle, current])}: break it by setting one supersedes to null"
                break
            path.append(current)
            current = known[current].supersedes


def check_supersedes(ctx: DoctorContext) -> Iterator[Check]:
    problems = [*_dangling_links(ctx), *_supersedes_cycles(ctx)]
    yield _verdict(
        "supersedes",
        problems,
        FAIL,
        _plural(len(problems), "broken link"),
        "every supersedes names an existing fact, no cycles",
    )


def check_index_budget(ctx: DoctorContext) -> Iterator[Check]:
    report = ctx.index[1]
    if not report.omitted:
        yield Check(
            "index budget",
            OK,
            f"~{report.tokens} of {report.budget} tokens, {report.listed}/{report.active} facts listed",
        )
        return
    more = " …" if report.omitted > 10 else ""
    yield Check(
        "index budget",
        FAIL,
        f"{report.omitted} of {report.active} entries omitted over the {report.budget}-token budget",
        [f"consolidate or expire facts (`foundry memory prune`); omitted: {', '.join(report.omitted_ids[:10])}{more}"],
    )


def check_index_file(ctx: DoctorContext) -> Iterator[Check]:
    rel_index = ctx.layout.relative(ctx.layout.index_path)
    if _has_markers(ctx.layout.index_path, ctx.layout):
        yield Check("INDEX.md", FAIL, f"{rel_index} has merge conflict markers", ["run `foundry memory resolve`"])
        return
    state = index_state(ctx.layout.index_path, ctx.index[0], inside=ctx.layout)
    if state == "current":
        yield Check("INDEX.md", OK, f"{rel_index} is current")
        return
    if state == "unreadable":
        try:
            ctx.layout.index_path.read_bytes()
            reason = "unreadable"
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
        summary = f"{rel_index} is not a readable file ({reason})"
        yield Check("INDEX.md", FAIL, summary, ["remove what is there, then run `foundry memory index`"])
        return
    summary, fix = {
        "missing": (f"{rel_index} is missing", "run `foundry memory index` to generate it"),
        "stale": (f"{rel_index} is stale", "facts changed since it was built: run `foundry memory index`"),
        "edited": (
            f"{rel_index} was edited by hand",
            "it is generated: run `foundry memory index` to regenerate it (hand edits are lost)",
        ),
    }[state]
    yield Check("INDEX.md", FAIL, summary, [fix])


def _has_markers(path: Path, layout: Layout) -> bool:
    try:
        return has_conflict_markers(layout.read_text(path))
    except (OSError, UnicodeDecodeError, FoundryError):
        return False


def check_duplicate_ids(ctx: DoctorContext) -> Iterator[Check]:
    """Two files claiming one id (silent when none; a rebase or cherry-pick brought a file whose id another owns)."""
    problems = []
    for broken in sorted(ctx.store.broken.values(), key=lambda b: b.name):
        if "does not match the file name" not in broken.reason:
            continue
        try:
            claimed = parse_fact_text(ctx.layout.read_text(ctx.layout.facts_dir / broken.name)).id
        except (OSError, UnicodeDecodeError, FactFileError, FoundryError):
            continue
        if claimed in ctx.store.facts:
            problems.append(
                f"{ctx.rel_facts}/{broken.name} and {ctx.rel_facts}/{claimed}.md both claim {claimed}: "
                "run `foundry memory resolve` (it renumbers one)"
            )
    if problems:
        yield Check("duplicate ids", FAIL, f"{_plural(len(problems), 'id')} claimed by two files", problems)


def check_renumbered_links(ctx: DoctorContext) -> Iterator[Check]:
    """A link to an id that `memory resolve` renumbered: the fact meant the renumbered one when
    the id is gone, or when the fact now holding the id is younger than the link itself."""
    renumbered = {
        str(f.extras[RENUMBERED_FROM]): f for f in ctx.facts if isinstance(f.extras.get(RENUMBERED_FROM), str)
    }
    problems = []
    for fact in ctx.facts:
        for target in fact.replaced_ids():
            moved = renumbered.get(target)
            if moved is None or moved.id == fact.id:
                continue
            holder = ctx.store.facts.get(target)
            if holder is None or holder.created > fact.created:
                problems.append(
                    f"{fact.id} points at {target}, which a merge renumbered to {moved.id}: "
                    f"set it to {moved.id} (or run `foundry memory resolve` during the merge)"
                )
    if problems:
        yield Check("renumbered links", FAIL, f"{_plural(len(problems), 'link')} to a renumbered id", problems)


def check_git_ignore(ctx: DoctorContext) -> Iterator[Check]:
    layout = ctx.layout
    targets = [layout.relative(layout.scratch_dir) + "/", layout.relative(layout.metrics_dir) + "/"]
    try:
        inside = subprocess.run(
            ["git", "rev-parse", "--is-inside-work-tree"], cwd=layout.root, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        yield Check("git ignore", WARN, "git is not available; cannot check that scratch and metrics are ignored")
        return
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        yield Check("git ignore", OK, "not a git repository; nothing to ignore")
        return
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", *targets], cwd=layout.root, capture_output=True, text=True, timeout=10
    )
    ignored = {line.strip() for line in result.stdout.splitlines()}
    missing = [t for t in targets if t not in ignored]
    if missing:
        yield Check(
            "git ignore",
            WARN,
            f"{', '.join(missing)} not ignored by git",
            [f"add '{t}' to .gitignore (or run `foundry init`)" for t in missing],
        )
    else:
        yield Check("git ignore", OK, "scratch and metrics are ignored by git")


def check_commands(ctx: DoctorContext) -> Iterator[Check]:
    """Foundry's commands in each agent's files (core/agent_config.py) and its git hooks: an agent
    whose command cannot be found starts without Foundry and says nothing, a git hook skips
    the repair (silent when none is configured)."""
    agents = configured_commands(ctx.layout)
    hooks = hook_commands(ctx.layout)
    missing = [
        f"{c.file}: {c.entry} runs `{shlex.join(c.words)}`, and {c.words[0]} cannot be found"
        f"{'' if '/' in c.words[0] else ' on PATH'}: run `foundry init` again with the installed foundry"
        for c in (*agents, *hooks)
        if find_program(c.words[0]) is None
    ]
    partial = agent_problems(ctx.layout)  # an agent wired in part, or a file of its that cannot be read
    if missing or partial:
        summary = ", ".join(
            [f"{_plural(len(missing), 'command')} cannot be found"] * bool(missing)
            + [f"{len(partial)} agent entr{'y' if len(partial) == 1 else 'ies'} missing or unreadable"] * bool(partial)
        )
        yield Check("commands", FAIL, summary, [*missing, *partial])
    elif agents or hooks:
        summary = (
            f"{_plural(len(agents), 'command')} for agents and {_plural(len(hooks), 'git hook')} can start foundry"
        )
        yield Check("commands", OK, summary)


def check_code_refs(ctx: DoctorContext) -> Iterator[Check]:
    """Active facts whose cited code changed (warn) or is gone (fail: a decision whose file no
    longer exists); silent when no active fact has refs (issue 30, core/code_refs.py)."""
    from foundry_tui.core.memory.reports.grounding import verify_facts

    verification = verify_facts(ctx.project, ctx.active)
    if not verification.checks:
        return
    if not verification.git:
        yield Check(
            "code refs",
            OK,
            f"{_plural(len(verification.checks), 'fact')} with refs; not a git repository, so not verified",
        )
        return
    gone = [c for c in verification.checks.values() if c.state == "gone"]
    changed = [c for c in verification.checks.values() if c.state in ("changed", "moved")]

    def lines(checks: list[FactCheck]) -> list[str]:
        return [
            f"{c.fact_id}: {', '.join(s.line() for s in c.refs if s.state in STALE_STATES)}: check it, then confirm or supersede it"
            for c in checks
        ]

    if gone:
        yield Check("code refs", FAIL, f"{_plural(len(gone), 'active fact')} citing code that is gone", lines(gone))
    if changed:
        yield Check(
            "code refs",
            WARN,
            f"{_plural(len(changed), 'active fact')} citing code changed since written",
            lines(changed),
        )
    if not gone and not changed:
        yield Check("code refs", OK, f"the code {_plural(len(verification.checks), 'fact')} cite is as it was written")


DoctorCheck = Callable[[DoctorContext], Iterator[Check]]

# The report's order. A new check: write a function like those above and add it here.
CHECKS: tuple[DoctorCheck, ...] = (
    check_config,
    check_facts_folder,
    check_fact_files,
    check_leftover_temp_files,
    check_links,
    check_fact_sizes,
    check_fact_fields,
    check_duplicate_titles,
    check_reasoning,
    check_supersedes,
    check_duplicate_ids,
    check_renumbered_links,
    check_index_budget,
    check_index_file,
    check_code_refs,
    check_git_ignore,
    check_commands,
)


def run_doctor(project: Project, today: _dt.date, checks: tuple[DoctorCheck, ...] = CHECKS) -> DoctorReport:
    context = DoctorContext(project, today)
    return DoctorReport([finding for check in checks for finding in check(context)])
