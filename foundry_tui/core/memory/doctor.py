"""`foundry doctor`: health checks of a project's memory, for people and for CI."""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
from dataclasses import dataclass, field

from foundry_tui.core.atomic import TEMP_SUFFIX
from foundry_tui.core.config import Config
from foundry_tui.core.errors import ConfigError
from foundry_tui.core.memory.facts import MAX_BODY_WORDS, MAX_TITLE_CHARS, field_problems, normalise
from foundry_tui.core.memory.index_file import build_index, index_state
from foundry_tui.core.memory.project import Project

OK, WARN, FAIL = "ok", "warn", "FAIL"


@dataclass
class Check:
    """One doctor check: its status, a summary, and one line per problem naming the fix."""

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


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def run_doctor(project: Project, today: _dt.date) -> DoctorReport:
    project.sync()
    store = project.store
    layout = project.layout
    rel_facts = layout.relative(layout.facts_dir)
    checks: list[Check] = []

    try:
        config = project.config()
        checks.append(
            Check(
                "config",
                OK,
                "config.json is valid" if layout.config_path.exists() else "no config.json; defaults in use",
            )
        )
    except ConfigError as exc:
        config = Config()
        checks.append(Check("config", FAIL, "config.json cannot be used; defaults assumed below", [f"{exc}"]))

    broken = sorted(store.broken.values(), key=lambda b: b.name)
    temps = []
    if layout.facts_dir.is_dir():
        temps = sorted(n for n in os.listdir(layout.facts_dir) if n.startswith(".") and n.endswith(TEMP_SUFFIX))
    problems = [f"{rel_facts}/{b.name}: {b.reason}" for b in broken]
    if broken:
        checks.append(
            Check(
                "fact files",
                FAIL,
                f"{_plural(len(broken), 'file')} of {len(store.file_names())} cannot be loaded (the rest still load)",
                problems,
            )
        )
    else:
        checks.append(Check("fact files", OK, f"{_plural(len(store.facts), 'fact file')} load"))
    if temps:
        checks.append(
            Check(
                "leftover temp files",
                WARN,
                f"{_plural(len(temps), 'file')} left by an interrupted write",
                [f"{rel_facts}/{t}: delete it (the write it belonged to did not finish)" for t in temps],
            )
        )

    facts = store.sorted_facts()
    active = store.active_facts(today)
    soft = []
    for fact in facts:
        if len(fact.title) > MAX_TITLE_CHARS:
            soft.append(
                f"{fact.id}: title is {len(fact.title)} characters, over {MAX_TITLE_CHARS}: shorten it through memory_write"
            )
        words = len(fact.body.split())
        if words > MAX_BODY_WORDS:
            soft.append(
                f"{fact.id}: body is {words} words, over {MAX_BODY_WORDS}: split or tighten it through memory_write"
            )
    checks.append(
        Check("fact sizes", WARN, f"{_plural(len(soft), 'fact')} over the size limits", soft)
        if soft
        else Check("fact sizes", OK, "titles and bodies within limits")
    )

    fields = [
        f"{rel_facts}/{fact.id}.md: {problem}: rewrite the fact through memory_write"
        for fact in facts
        for problem in field_problems(fact)
    ]
    checks.append(
        Check("fact fields", WARN, f"{_plural(len(fields), 'field')} memory_write would refuse", fields)
        if fields
        else Check("fact fields", OK, "no control characters, tags within limits")
    )

    by_title: dict[str, list[str]] = {}
    for fact in active:
        by_title.setdefault(normalise(fact.title), []).append(fact.id)
    dups = [ids for ids in by_title.values() if len(ids) > 1]
    checks.append(
        Check(
            "duplicate titles",
            FAIL,
            f"{_plural(len(dups), 'title')} shared by several active facts",
            [
                f"{', '.join(ids)} share a title: retire all but one (set expires) or rewrite one through memory_write"
                for ids in dups
            ],
        )
        if dups
        else Check("duplicate titles", OK, "no two active facts share a title")
    )

    missing_why = [f for f in active if f.needs_why]
    checks.append(
        Check(
            "reasoning",
            FAIL,
            f"{_plural(len(missing_why), 'active decision or risk fact')} without **Why:**",
            [
                f"{f.id} ({rel_facts}/{f.id}.md): add a **Why:** line through memory_write, or retire it"
                for f in missing_why
            ],
        )
        if missing_why
        else Check("reasoning", OK, "every active decision and risk has a **Why:** line")
    )

    chain_problems = []
    for fact in facts:
        if fact.supersedes == fact.id:
            chain_problems.append(f"{fact.id} supersedes itself: set supersedes to the fact it replaces, or null")
        elif fact.supersedes and fact.supersedes not in store.facts:
            chain_problems.append(
                f"{fact.id} supersedes {fact.supersedes}, which does not exist: fix the id or set null"
            )
        for merged in fact.replaced_ids():
            if merged != fact.supersedes and merged not in store.facts:
                chain_problems.append(f"{fact.id} lists {merged} in merged_from, which does not exist: fix the list")
    seen_cycles: set[frozenset[str]] = set()
    for fact in facts:
        path = [fact.id]
        current = fact.supersedes
        while current and current in store.facts:
            if current in path:
                cycle = path[path.index(current) :]
                key = frozenset(cycle)
                if key not in seen_cycles and len(cycle) > 1:
                    seen_cycles.add(key)
                    chain_problems.append(
                        f"supersedes cycle {' → '.join([*cycle, current])}: break it by setting one supersedes to null"
                    )
                break
            path.append(current)
            current = store.facts[current].supersedes
    checks.append(
        Check("supersedes", FAIL, f"{_plural(len(chain_problems), 'broken link')}", chain_problems)
        if chain_problems
        else Check("supersedes", OK, "every supersedes names an existing fact, no cycles")
    )

    expected, report = build_index(active, config.index_token_budget)
    if report.omitted:
        checks.append(
            Check(
                "index budget",
                FAIL,
                f"{report.omitted} of {report.active} entries omitted over the {report.budget}-token budget",
                [
                    f"consolidate or expire facts (`foundry memory prune`); omitted: {', '.join(report.omitted_ids[:10])}{' …' if report.omitted > 10 else ''}"
                ],
            )
        )
    else:
        checks.append(
            Check(
                "index budget",
                OK,
                f"~{report.tokens} of {report.budget} tokens, {report.listed}/{report.active} facts listed",
            )
        )

    state = index_state(layout.index_path, expected)
    rel_index = layout.relative(layout.index_path)
    fixes = {
        "missing": (f"{rel_index} is missing", "run `foundry memory index` to generate it"),
        "stale": (f"{rel_index} is stale", "facts changed since it was built: run `foundry memory index`"),
        "edited": (
            f"{rel_index} was edited by hand",
            "it is generated: run `foundry memory index` to regenerate it (hand edits are lost)",
        ),
    }
    if state == "current":
        checks.append(Check("INDEX.md", OK, f"{rel_index} is current"))
    else:
        summary, fix = fixes[state]
        checks.append(Check("INDEX.md", FAIL, summary, [fix]))

    checks.append(_git_ignore_check(project))
    return DoctorReport(checks)


def _git_ignore_check(project: Project) -> Check:
    layout = project.layout
    targets = [layout.relative(layout.scratch_dir) + "/", layout.relative(layout.metrics_dir) + "/"]
    try:
        inside = subprocess.run(
            ["git", "rev-parse", "--is-inside-work-tree"], cwd=layout.root, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return Check("git ignore", WARN, "git is not available; cannot check that scratch and metrics are ignored")
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        return Check("git ignore", OK, "not a git repository; nothing to ignore")
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", *targets], cwd=layout.root, capture_output=True, text=True, timeout=10
    )
    ignored = {line.strip() for line in result.stdout.splitlines()}
    missing = [t for t in targets if t not in ignored]
    if missing:
        return Check(
            "git ignore",
            WARN,
            f"{', '.join(missing)} not ignored by git",
            [f"add '{t}' to .gitignore (or run `foundry init`)" for t in missing],
        )
    return Check("git ignore", OK, "scratch and metrics are ignored by git")
