"""`foundry init`: wire a repository up, idempotently, merging into files that exist.

It creates the tier folders, `config.json` from a profile, the `.gitignore` lines for
scratch and metrics, each agent's MCP server entry (`foundry`) and hooks in its own files
and format (core/setup/agents.py: Claude Code's `.mcp.json` and `.claude/settings.json`,
Codex's `.codex/`, Cursor's `.cursor/`, Gemini's `.gemini/`), and an empty INDEX.md. A second run changes nothing; an
existing JSON file is merged, never overwritten, and a malformed one is reported
and left untouched.

The commands it writes start the installed program by its absolute path
(core/program.py), so they start without PATH and never run the work tree's code.
Foundry's own entry written earlier with a bare `foundry`, or with a program that is
gone, is updated in place; one whose program is there is kept, as is everything else.

Above the rooms (it writes memory's index and reads trust's principals); only the door
calls it (core/ops/setup.py).
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from foundry_tui.core.agent_config import detected_agents
from foundry_tui.core.atomic import atomic_write
from foundry_tui.core.config import DEFAULT_PROFILE, PROFILES, profile_config
from foundry_tui.core.errors import InputError
from foundry_tui.core.paths import Layout
from foundry_tui.core.program import Program, installed_program
from foundry_tui.core.setup.agents import read_json, unwire_agent, wire_agent

if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject

# Scratch without a trailing slash: ignored whether a folder, a file or a link (`scratch/`
# matches a folder only). The last: the temp files a writer killed mid-write leaves beside
# its target (`.INDEX.md.<pid>.<n>.tmp`).
IGNORE_LINES = (".foundry/scratch", ".foundry/metrics/", ".foundry/**/.*.tmp")


@dataclass
class InitReport:
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def add(self, verb: str, what: str) -> None:
        self.lines.append(f"{verb:<9} {what}")

    def text(self) -> str:
        return "\n".join([*self.lines, *(f"problem   {p}" for p in self.problems)])


def _load_json(path: Path, layout: Layout, report: InitReport) -> tuple[bool, JSONObject | None]:
    """(usable, data): data is None when the file does not exist."""
    usable, _text, data = read_json(path, layout, report.problems)
    return usable, data


def _write_json(path: Path, data: JSONObject, layout: Layout) -> None:
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", inside=layout)


def _folders(layout: Layout, report: InitReport) -> None:
    for folder in (layout.facts_dir, layout.runbooks_dir, layout.blackboard_dir, layout.contracts_dir, layout.adr_dir):
        layout.check_inside(folder)
        if folder.is_dir():
            continue
        folder.mkdir(parents=True, exist_ok=True)
        if folder != layout.blackboard_dir:
            (folder / ".gitkeep").touch()  # so the empty tier shows up in git
        report.add("created", layout.relative(folder) + "/")


def _config(layout: Layout, profile: str | None, report: InitReport) -> None:
    if profile is not None and profile not in PROFILES:
        raise InputError(f"unknown profile '{profile}': use one of {', '.join(PROFILES)}")
    path = layout.config_path
    usable, data = _load_json(path, layout, report)
    if not usable:
        return
    wanted = profile_config(profile or DEFAULT_PROFILE)
    if data is None:
        from foundry_tui.core.memory.search import encoder_probe

        retrieval = wanted["memoryRetrieval"]
        if encoder_probe.available() and isinstance(retrieval, dict):
            # A new config ranks with the sentence model when it is installed (issue 29); an
            # existing one keeps its ranker, and one without a ranker keeps the spec's default.
            retrieval["ranker"] = "hybrid"
        _write_json(path, wanted, layout)
        report.add(
            "created",
            f"{layout.relative(path)} (profile {wanted['profile']}, index budget {wanted['indexTokenBudget']})",
        )
        return
    merged = dict(data)
    for key, value in wanted.items():
        if key not in merged:
            merged[key] = value
        elif isinstance(value, dict) and isinstance(present := merged[key], dict):
            merged[key] = {**value, **present}
    if profile is not None and data.get("profile") not in (None, profile):
        report.problems.append(
            f"{layout.relative(path)} already uses profile {data.get('profile')}; kept (edit the file to change it)"
        )
    if merged != data:
        _write_json(path, merged, layout)
        report.add("merged", f"{layout.relative(path)} (added missing settings)")


def _gitignore(layout: Layout, report: InitReport) -> None:
    path = layout.root / ".gitignore"
    try:
        text = layout.read_text(path)
    except FileNotFoundError:
        text = ""
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in IGNORE_LINES if line not in present and line.rstrip("/") not in present]
    if not missing:
        return
    prefix = "" if not text or text.endswith("\n") else "\n"
    atomic_write(
        path,
        text
        + prefix
        + "# Foundry: per-session scratch, local metrics, temp files of interrupted writes\n"
        + "".join(f"{m}\n" for m in missing),
        inside=layout,
    )
    report.add(
        "created" if not text else "merged", f".gitignore (+{len(missing)} line{'s' if len(missing) > 1 else ''})"
    )


def _git(layout: Layout, program: Program, report: InitReport) -> None:
    """Merge driver, .gitattributes and hooks for merges that keep every fact (core/git_setup.py)."""
    from foundry_tui.core.git_setup import setup_git

    added: list[tuple[str, str]] = []
    setup_git(layout, program, added, report.problems)
    for verb, what in added:
        report.add(verb, what)


def _trust(layout: Layout, trusted: list[str] | None, report: InitReport) -> None:
    """`--trusted user:alice`: add the principals to trust.trusted (written only when asked)."""
    if not trusted:
        return
    usable, data = _load_json(layout.config_path, layout, report)
    if not usable or data is None:
        return
    section = data.get("trust", {})
    listed = section.get("trusted", []) if isinstance(section, dict) else None
    if not isinstance(section, dict) or not isinstance(listed, list):
        report.problems.append(f"{layout.relative(layout.config_path)}: trust.trusted is not a list; left untouched")
        return
    added = [w for w in dict.fromkeys(trusted) if w not in listed]
    if added:
        _write_json(layout.config_path, {**data, "trust": {**section, "trusted": [*listed, *added]}}, layout)
        report.add("merged", f"{layout.relative(layout.config_path)} (trusted: {', '.join(added)})")


def init_project(
    root: Path,
    profile: str | None = None,
    today: _dt.date | None = None,
    *,
    trusted: list[str] | None = None,
    agents: list[str] | None = None,
    remove: bool = False,
) -> InitReport:
    """Set `root` up for Foundry; safe to run again. `trusted` writes the trust section.
    `agents` (core/agent_config.py): whose MCP server and hooks to write; default, the
    agents whose folders or settings are in the repository, else Claude Code. `remove`:
    take Foundry's entries out of those agents' files instead, and nothing else."""
    layout = Layout(root)
    report = InitReport()
    chosen = agents or detected_agents(layout)
    if remove:
        if not agents:
            raise InputError("--remove needs --agent: name the agents to take Foundry out of")
        for name in chosen:
            unwire_agent(layout, name, report.add, report.problems)
        if not report.lines and not report.problems:
            report.lines.append(f"Foundry is not wired into {', '.join(chosen)} here; nothing changed.")
        return report
    if trusted:  # checked before anything is written
        from foundry_tui.core.trust.principal import parse_principal

        trusted = [str(parse_principal(t, "--trusted")) for t in trusted]
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.memory.writing.write import memory_index

    _folders(layout, report)
    _config(layout, profile, report)
    _trust(layout, trusted, report)
    _gitignore(layout, report)
    program = installed_program()
    if program.problem:
        report.problems.append(program.problem)
    for name in chosen:
        wire_agent(layout, name, program, report.add, report.problems)
    _git(layout, program, report)
    if not layout.index_path.exists():
        try:
            memory_index(Project(root), today or _dt.date.today())
            report.add("created", layout.relative(layout.index_path))
        except Exception as exc:  # a broken config is already reported above
            report.problems.append(f"INDEX.md not built: {exc}")
    if not report.lines and not report.problems:
        report.lines.append("Foundry is already set up here; nothing changed.")
    return report
