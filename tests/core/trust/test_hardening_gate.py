"""Issue 28, items 2 and 9: an agent cannot trust itself, and a wave folder linked to the
proposals wave is that wave.

Item 2: the PreToolUse gate denies agents' edits and plain shell writes of the files that
decide who is trusted, which MCP servers and hooks run, and what git runs (.foundry/config.json,
.mcp.json, .claude/settings*.json, .git/, .gitattributes); and in a git repository the trusted
list is the one committed at HEAD, so a working-copy edit that slips past the gate (python -c)
has no effect until committed. Item 9: links are resolved before the blackboard reads or writes
a wave, and the gate denies making such a link.

Real files, real git repositories, the real `foundry` command line and hook as subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from foundry_tui.core.artefacts.blackboard import blackboard_read, blackboard_write, list_waves
from foundry_tui.core.checkup import ALL_CHECKS
from foundry_tui.core.errors import ConfigError, InputError
from foundry_tui.core.events import read_events
from foundry_tui.core.gate.guard import guarded_memory_write
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.doctor import run_doctor
from foundry_tui.core.paths import Layout
from foundry_tui.core.read_gate import command_writes_protected, edits_protected, shell_writes
from foundry_tui.core.reserved import is_reserved_wave, proposals_dir
from foundry_tui.core.trust.committed import MAX_COMMITTED_CONFIG_BYTES
from foundry_tui.core.trust.policy import trust_settings
from foundry_tui.core.trust.principal import Caller, Principal
from foundry_tui.hooks import DENY_PROTECTED, DENY_RESERVED
from tests.helpers import TODAY, Run, run_cli

ALICE = Caller(Principal("user", "alice"))
BOB = Caller(Principal("user", "bob"))
FINDING = {"title": "Leak", "severity": "high", "failureScenario": "It fails.", "summary": "A leak."}


# ---- helpers: a real git repository ------------------------------------------------------------


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Tester", "-c", "user.email=t@example.invalid", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _config(root: Path, data: dict[str, Any]) -> Path:
    path = root / ".foundry" / "config.json"
    path.write_text(json.dumps(data))
    return path


def _committed(root: Path, data: dict[str, Any]) -> None:
    """config.json written and committed (the helper the trust tests in git use: a trusted
    list counts once committed)."""
    _config(root, data)
    _git(root, "add", ".foundry/config.json")
    _git(root, "commit", "-q", "-m", "Set who is trusted")


@pytest.fixture
def repo(root: Path) -> Path:
    _git(root, "init", "-q")
    return root


def _fact_files(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".foundry" / "memory" / "facts").glob("*.md"))


def _write_as(project: Project, caller: Caller, title: str) -> str:
    return guarded_memory_write(project, caller, WriteRequest(title, "A body.", "convention"), TODAY).status


def _cli(root: Path, *args: str, principal: str = "user:bob") -> Run:
    return run_cli("--root", str(root), *args, env={"FOUNDRY_TODAY": "2026-11-30", "FOUNDRY_PRINCIPAL": principal})


# ---- item 2 (b): the trusted list is the one committed at HEAD ---------------------------------


def test_a_working_copy_edit_of_the_trusted_list_has_no_effect_until_committed(repo: Path) -> None:
    _committed(repo, {"trust": {"trusted": ["user:alice"]}})
    _config(repo, {"trust": {"trusted": ["user:alice", "user:bob"]}})  # bob trusts himself, unseen
    project = Project(repo)
    assert _write_as(project, BOB, "Bob's first claim") == "parked"
    assert _fact_files(repo) == []
    _git(repo, "commit", "-q", "-am", "Trust bob")  # now it is in the history, and in effect
    assert _write_as(project, BOB, "Bob's second claim") == "written"
    assert _fact_files(repo) == ["fact-0001.md"]


@pytest.mark.parametrize("edit", ["drop the section", "delete the file"])
def test_dropping_the_trust_section_from_the_working_copy_trusts_nobody_new(repo: Path, edit: str) -> None:
    """No trust section means every user: principal: deleting it (or the file) locally would trust bob."""
    _committed(repo, {"profile": "standard", "trust": {"trusted": ["user:alice"]}})
    if edit == "delete the file":
        (repo / ".foundry" / "config.json").unlink()
    else:
        _config(repo, {"profile": "standard"})
    project = Project(repo)
    assert _write_as(project, BOB, "Bob's claim") == "parked"
    assert _write_as(project, ALICE, "Alice's claim") == "written"


def test_where_the_list_came_from_is_said(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("plain")
    (outside / ".foundry").mkdir()
    _config(outside, {"trust": {"trusted": ["user:alice"]}})
    assert trust_settings(Project(outside)).describe() == (
        "user:alice, as listed in the working copy's config.json (not a git repository)"
    )
    (repo / ".foundry" / "memory" / "facts").mkdir(parents=True, exist_ok=True)
    _config(repo, {"trust": {"trusted": ["user:alice"]}})
    assert trust_settings(Project(repo)).describe() == (
        "user:alice, as listed in the working copy's config.json (not committed at HEAD yet)"
    )
    _committed(repo, {"profile": "standard"})
    assert trust_settings(Project(repo)).describe() == (
        "every user: principal (the config.json committed at HEAD has no trust section)"
    )


def test_require_curator_names_the_committed_list(repo: Path) -> None:
    _committed(repo, {"trust": {"trusted": ["user:alice"]}})
    project = Project(repo)
    assert _write_as(project, BOB, "Bob's claim") == "parked"
    run = _cli(repo, "proposals", "approve", "prop-0001")
    assert (run.code, run.err) == (
        1,
        "foundry: error: user:bob is not trusted, so it cannot approve proposals: trusted are user:alice, "
        "as listed in the config.json committed at HEAD; ask one of them, or add yours to trust.trusted in "
        ".foundry/config.json and commit it\n",
    )


def test_before_the_first_commit_the_working_copy_decides(repo: Path) -> None:
    _config(repo, {"trust": {"trusted": ["user:alice", "user:bob"]}})  # git init, nothing committed
    assert _write_as(Project(repo), BOB, "Bob's claim") == "written"


@pytest.mark.parametrize("extra", [0, 1])
def test_heads_config_is_read_up_to_its_bound(repo: Path, extra: int) -> None:
    """MAX_COMMITTED_CONFIG_BYTES exactly is read; one byte more is one line, and nothing written."""
    text = json.dumps({"trust": {"trusted": ["user:alice"]}})
    (repo / ".foundry" / "config.json").write_text(text + " " * (MAX_COMMITTED_CONFIG_BYTES - len(text) + extra))
    _git(repo, "add", ".foundry/config.json")
    _git(repo, "commit", "-q", "-m", "A padded config")
    project = Project(repo)
    if not extra:
        assert _write_as(project, ALICE, "Alice's claim") == "written"
        return
    with pytest.raises(ConfigError) as caught:
        _write_as(project, ALICE, "Alice's claim")
    assert str(caught.value) == (
        f"config.json at HEAD is {MAX_COMMITTED_CONFIG_BYTES + 1} bytes, over the {MAX_COMMITTED_CONFIG_BYTES}-byte "
        "bound: commit a config.json of a few settings"
    )
    assert _fact_files(repo) == []


def test_a_broken_committed_config_is_one_line_and_no_fallback(repo: Path) -> None:
    (repo / ".foundry" / "config.json").write_text('{"trust": ')
    _git(repo, "add", ".foundry/config.json")
    _git(repo, "commit", "-q", "-m", "Broken")
    _config(repo, {"trust": {"trusted": ["user:bob"]}})  # a working copy that would trust bob
    run = _cli(repo, "memory", "write", "--title", "Bob's claim", "--body", "A body.", "--type", "convention")
    assert (run.code, run.err) == (
        1,
        "foundry: error: config.json at HEAD: not valid JSON (line 1, column 11: Expecting value); "
        "commit a valid one\n",
    )
    assert _fact_files(repo) == []


# ---- item 2 (b): the doctor names a difference ------------------------------------------------


def _trust_lines(project: Project) -> list[str]:
    return [line for c in run_doctor(project, TODAY, ALL_CHECKS).checks if c.name == "trust" for line in c.lines()]


def test_doctor_warns_naming_a_working_copy_list_that_differs_from_head(repo: Path) -> None:
    _committed(repo, {"trust": {"trusted": ["user:alice"]}})
    assert _trust_lines(Project(repo)) == ["ok    trust: trust.trusted is read from the config.json committed at HEAD"]
    _config(repo, {"trust": {"trusted": ["user:alice", "user:mallory"]}})
    run = _cli(repo, "doctor")  # (its other checks find a project without INDEX.md)
    start = run.out.splitlines().index(
        "warn  trust: the working copy's trust section differs from the config.json committed at HEAD and has no "
        "effect until committed"
    )
    assert run.out.splitlines()[start + 1 : start + 4] == [
        "        - trusted at HEAD: user:alice",
        "        - trusted in the working copy: user:alice, user:mallory",
        "        - commit .foundry/config.json to put the working copy's list in effect, or "
        "`git checkout -- .foundry/config.json` to drop the change",
    ]


def test_doctor_warns_when_the_list_is_not_committed_and_says_nothing_without_one(repo: Path) -> None:
    project = Project(repo)
    assert _trust_lines(project) == []
    _config(repo, {"trust": {"trusted": ["user:alice"]}})
    assert _trust_lines(project) == [
        "warn  trust: config.json is not committed at HEAD, so the trusted list is read from the working copy, "
        "which any process can change unseen",
        "        - trusted in the working copy: user:alice",
        "        - commit .foundry/config.json",
    ]


def test_doctor_outside_git_says_the_working_copy_is_used(project: Project) -> None:
    _config(project.layout.root, {"trust": {"trusted": ["user:alice"]}})
    assert _trust_lines(project) == [
        "ok    trust: trust.trusted is read from the working copy's config.json (not a git repository)"
    ]


# ---- item 2 (a): the gate denies agents' changes of the protected files -----------------------


@pytest.fixture
def gated(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / ".foundry" / "config.json").write_text("{}\n")
    (root / ".mcp.json").write_text("{}\n")
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("{}\n")
    (root / ".git" / "hooks").mkdir(parents=True)
    os.symlink(root / ".foundry", root / "cfg")  # a link to .foundry: cfg/config.json is config.json
    os.link(root / ".mcp.json", root / "servers.json")  # a hard link: the same file
    return root


PROTECTED_EDITS = [
    (".foundry/config.json", ".foundry/config.json"),
    ("./.FOUNDRY/Config.JSON", ".foundry/config.json"),
    ("src/../.foundry/config.json", ".foundry/config.json"),
    ("cfg/config.json", ".foundry/config.json"),
    ("{root}/.foundry/config.json", ".foundry/config.json"),
    (".mcp.json", ".mcp.json"),
    ("servers.json", ".mcp.json"),
    (".claude/settings.json", ".claude/settings.json"),
    (".claude/settings.local.json", ".claude/settings.local.json"),
    (".git/hooks/pre-commit", ".git"),
    (".git/config", ".git"),
    (".GIT/HOOKS/post-checkout", ".git"),
    (".gitattributes", ".gitattributes"),
    # The other agents' MCP servers and hooks (issue 32).
    (".codex/config.toml", ".codex/config.toml"),
    (".codex/hooks.json", ".codex/hooks.json"),
    ("./.Cursor/MCP.json", ".cursor/mcp.json"),
    (".cursor/hooks.json", ".cursor/hooks.json"),
    ("src/../.gemini/settings.json", ".gemini/settings.json"),
]


@pytest.mark.parametrize("tool", ["Edit", "Write", "MultiEdit", "NotebookEdit"])
@pytest.mark.parametrize(("path", "name"), PROTECTED_EDITS, ids=[p for p, _ in PROTECTED_EDITS])
def test_edits_of_protected_files_are_denied_in_process(gated: Path, tool: str, path: str, name: str) -> None:
    assert edits_protected(path.replace("{root}", str(gated)), gated, gated) == name


def _decision(root: Path, tool: str, tool_input: dict[str, Any], **env: str) -> tuple[str | None, str]:
    event = {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input, "cwd": str(root)}
    run = run_cli("hook", "pre-tool-use", "--root", str(root), stdin=json.dumps(event), env=env)
    assert run.code == 0 and run.err == ""
    if not run.out.strip():
        return None, ""
    answer = json.loads(run.out)["hookSpecificOutput"]
    return answer["permissionDecision"], answer["permissionDecisionReason"]


@pytest.mark.parametrize(
    ("tool", "tool_input", "name"),
    [
        ("Edit", {"file_path": ".foundry/config.json", "old_string": "{}", "new_string": "{}"}, ".foundry/config.json"),
        ("Write", {"file_path": "cfg/config.json", "content": "{}"}, ".foundry/config.json"),
        ("MultiEdit", {"file_path": ".mcp.json", "edits": []}, ".mcp.json"),
        ("Write", {"file_path": ".claude/settings.local.json", "content": "{}"}, ".claude/settings.local.json"),
        ("NotebookEdit", {"notebook_path": ".git/hooks/pre-commit", "new_source": "x"}, ".git"),
        ("Write", {"file_path": ".gitattributes", "content": "* filter=x"}, ".gitattributes"),
        ("Bash", {"command": "echo '{}' > .foundry/config.json"}, ".foundry/config.json"),
        ("Bash", {"command": "cd .foundry && printf x>>config.json"}, ".foundry/config.json"),
        ("Bash", {"command": "cat new.json | tee .mcp.json"}, ".mcp.json"),
        ("Bash", {"command": "sed -i 's/gate/none/' .claude/settings.json"}, ".claude/settings.json"),
        ("Bash", {"command": "cp /tmp/config.json .foundry/"}, ".foundry/config.json"),
        ("Bash", {"command": "mv .foundry/config.json /tmp/kept.json"}, ".foundry/config.json"),
        ("Bash", {"command": "ln -sf /tmp/evil.json .mcp.json"}, ".mcp.json"),
        ("Bash", {"command": "rm .claude/settings.json"}, ".claude/settings.json"),
        ("Bash", {"command": "install -m 755 /tmp/h .git/hooks/pre-commit"}, ".git"),
        ("Bash", {"command": "git config core.hooksPath /tmp/hooks"}, ".git"),
        ("Bash", {"command": "echo '* filter=run' >> .gitattributes"}, ".gitattributes"),
        ("Write", {"file_path": ".cursor/hooks.json", "content": "{}"}, ".cursor/hooks.json"),
        ("Bash", {"command": "echo '{}' > .gemini/settings.json"}, ".gemini/settings.json"),
        ("Bash", {"command": "sed -i /foundry/d .codex/config.toml"}, ".codex/config.toml"),
    ],
    ids=lambda v: str(v)[:50],
)
def test_the_hook_denies_changing_a_protected_file_with_its_reason(
    gated: Path, tool: str, tool_input: dict[str, Any], name: str
) -> None:
    before = len(read_events(Layout(gated)))
    assert _decision(gated, tool, tool_input) == ("deny", DENY_PROTECTED[name])
    assert [e["kind"] for e in read_events(Layout(gated))[before:]] == ["gate_blocked"]


def test_each_reason_is_one_line_naming_its_file() -> None:
    for name, reason in DENY_PROTECTED.items():
        assert "\n" not in reason and reason.startswith("Foundry: agents do not change ") and name in reason


def test_the_users_own_claude_settings_are_protected(gated: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path_factory.mktemp("home")
    tool_input = {"file_path": str(home / ".claude" / "settings.json"), "content": '{"disableAllHooks": true}'}
    assert _decision(gated, "Write", tool_input, HOME=str(home)) == ("deny", DENY_PROTECTED["~/.claude/settings.json"])


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Read", {"file_path": ".foundry/config.json"}),
        ("Read", {"file_path": ".mcp.json"}),
        ("Edit", {"file_path": "src/app.py", "old_string": "hi", "new_string": "ho"}),
        ("Write", {"file_path": "docs/config.json", "content": "{}"}),
        ("Write", {"file_path": "src/.mcp.json.example", "content": "{}"}),
        ("Bash", {"command": "cat .foundry/config.json .mcp.json"}),
        ("Bash", {"command": "cp .mcp.json /tmp/mcp-backup.json"}),
        ("Bash", {"command": "sed -n 1p .gitattributes"}),
        ("Bash", {"command": "git config --get core.hooksPath && git status"}),
        ("Bash", {"command": "git config --global user.name Alice"}),
        ("Bash", {"command": "make 2>&1 | tee build.log > /dev/null"}),
        ("Bash", {"command": "ls .git/hooks"}),
        ("Bash", {"command": "ln -s src/app.py app.py"}),
    ],
    ids=lambda v: str(v)[:50],
)
def test_ordinary_work_beside_the_protected_files_passes(gated: Path, tool: str, tool_input: dict[str, Any]) -> None:
    assert _decision(gated, tool, tool_input) == (None, "")


_PIECES = [*"ab./*-_ |&;()'\"$`\\\n\t><=", "2>", ">>", "&>", "tee ", "cp ", "mv ", "ln -s ", "sed -i ", "dd of="]
_PIECES += ["cd ", ".foundry/", "config.json", ".mcp.json", ".git/", "~", "\x00", "git config ", "-t ", "../"]


@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
@example("cp a \x00/")  # a NUL in a destination folder
@example("ln -s ~\x00 x")
def test_the_write_judgement_never_raises(tmp_path_factory: pytest.TempPathFactory, command: str) -> None:
    """A judgement that raised would let the call through (the hook never breaks the agent)."""
    root = tmp_path_factory.getbasetemp()
    found = command_writes_protected(command, root, root)
    assert found is None or found in DENY_PROTECTED
    assert all(isinstance(w.path, Path) for w in shell_writes(command, root))


# ---- item 9: a wave folder that links to _proposals -------------------------------------------


@pytest.fixture
def linked_wave(project: Project) -> Layout:
    """The proposals wave holding one proposal, and `wave-x`, a link to it."""
    layout = project.layout
    proposals_dir(layout).mkdir(parents=True)
    (proposals_dir(layout) / "prop-0001.json").write_text('{"schema": "fact.v1", "summary": "parked"}\n')
    os.symlink("_proposals", layout.blackboard_dir / "wave-x")  # relative, as `ln -s _proposals wave-x` makes it
    assert (layout.blackboard_dir / "wave-x").resolve() == proposals_dir(layout).resolve()
    return layout


LINKED_WAVE = (
    "wave 'wave-x' is a link into a reserved folder (memory proposals or user preferences): "
    "blackboard tools do not follow it; remove the link or use another wave name"
)


def test_the_reserved_check_resolves_links(linked_wave: Layout) -> None:
    assert not is_reserved_wave("wave-x") and is_reserved_wave("wave-x", linked_wave)
    assert list_waves(linked_wave) == []


def test_blackboard_write_to_a_linked_wave_is_refused_and_writes_nothing(linked_wave: Layout) -> None:
    before = sorted(p.name for p in proposals_dir(linked_wave).iterdir())
    with pytest.raises(InputError) as caught:
        blackboard_write(linked_wave, "wave-x", "reviewer", "finding.v1", FINDING)
    assert str(caught.value) == LINKED_WAVE
    assert sorted(p.name for p in proposals_dir(linked_wave).iterdir()) == before == ["prop-0001.json"]


def test_blackboard_read_of_a_linked_wave_is_refused(linked_wave: Layout) -> None:
    with pytest.raises(InputError) as caught:
        blackboard_read(linked_wave, "wave-x", full=True)
    assert str(caught.value) == LINKED_WAVE


def test_the_cli_refuses_a_linked_wave_both_ways(linked_wave: Layout) -> None:
    root = linked_wave.root
    wrote = _cli(root, "blackboard", "write", "--wave", "wave-x", "--agent", "reviewer", "--schema", "finding.v1",
                 "--data", json.dumps(FINDING))  # fmt: skip
    assert (wrote.code, wrote.err) == (2, f"foundry: error: {LINKED_WAVE}\n")
    read = _cli(root, "blackboard", "read", "wave-x", "--full")
    assert (read.code, read.out, read.err) == (2, "", f"foundry: error: {LINKED_WAVE}\n")
    assert sorted(p.name for p in proposals_dir(linked_wave).iterdir()) == ["prop-0001.json"]


def test_an_artifact_file_linked_to_a_proposal_is_neither_read_nor_written(linked_wave: Layout) -> None:
    wave = linked_wave.blackboard_dir / "w1"
    wave.mkdir()
    os.symlink("../_proposals/prop-0001.json", wave / "reviewer.json")
    assert blackboard_read(linked_wave, "w1", full=True) == (
        "- **reviewer.json** · unreadable: a link into a reserved folder (memory proposals or user preferences): "
        "not read"
    )
    with pytest.raises(InputError) as caught:
        blackboard_write(linked_wave, "w1", "reviewer", "finding.v1", FINDING)
    assert str(caught.value) == (
        ".foundry/blackboard/w1/reviewer.json is in a reserved folder (memory proposals or user preferences): "
        "general tools cannot read or write there; use `foundry proposals` or `foundry prefs`"
    )
    assert (proposals_dir(linked_wave) / "prop-0001.json").read_text() == '{"schema": "fact.v1", "summary": "parked"}\n'


@pytest.mark.parametrize(
    ("cwd", "command"),
    [
        (".foundry/blackboard", "ln -s _proposals wave-x"),
        (".foundry/blackboard", "ln -s ./_PROPOSALS wave-y"),
        (".foundry/blackboard/w1", "ln -s ../_proposals/prop-0001.json reviewer.json"),
        (".", "cd .foundry/blackboard && ln -sfn _proposals wave-x"),
        (".foundry", "ln -s blackboard/_proposals blackboard/wave-x"),
    ],
)
def test_the_gate_denies_making_a_link_to_the_proposals_wave(project: Project, cwd: str, command: str) -> None:
    layout = project.layout
    (layout.blackboard_dir / "w1").mkdir(parents=True)
    proposals_dir(layout).mkdir()
    event = {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": str(layout.root / cwd)}
    run = run_cli("hook", "pre-tool-use", "--root", str(layout.root), stdin=json.dumps(event))
    assert json.loads(run.out)["hookSpecificOutput"]["permissionDecisionReason"] == DENY_RESERVED


def test_links_elsewhere_on_the_blackboard_pass(project: Project) -> None:
    layout = project.layout
    (layout.blackboard_dir / "w1").mkdir(parents=True)
    event = {"tool_name": "Bash", "tool_input": {"command": "ln -s w1 w2"}, "cwd": str(layout.blackboard_dir)}
    run = run_cli("hook", "pre-tool-use", "--root", str(layout.root), stdin=json.dumps(event))
    assert (run.code, run.out, run.err) == (0, "", "")
