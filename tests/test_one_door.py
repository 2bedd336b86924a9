"""One door: every change to memory, from every adapter, passes the trust policy.

The walks read the registers (the door's operations, the CLI's commands, the MCP tools,
the TUI's commands), so an operation, command or tool added later without a policy, or
missing from these tables, fails here. Each runs for real against a project on disk as an
untrusted principal and as an unattended run, and checks that the memory's files are byte
for byte as they were unless the change was parked as a proposal."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from foundry_tui.cli import command_handlers, main
from foundry_tui.core.artefacts.runbook_new import new_runbook
from foundry_tui.core.curation.merge import Undo, merge_facts, merge_plan
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.gate.changes import WriteChange
from foundry_tui.core.gate.guard import GateResult
from foundry_tui.core.gate.proposals import list_proposals, park
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project, find_fact
from foundry_tui.core.ops.actor import Actor
from foundry_tui.core.ops.registry import all_operations
from foundry_tui.core.sessions.store import SessionStore
from foundry_tui.core.sessions.working import memory_command
from foundry_tui.core.trust.policy import NotTrusted, WriteDenied
from foundry_tui.core.trust.preferences import PreferencesDeclined
from foundry_tui.core.trust.principal import Caller, parse_principal
from foundry_tui.mcp.registry import all_tools, call_tool

from .helpers import TODAY, write

TRUSTED = Caller(parse_principal("user:alice"))
UNTRUSTED = Caller(parse_principal("user:mallory"))
UNATTENDED = Caller(parse_principal("user:alice"), unattended=True)
SESSION = "11111111-2222-3333-4444-555555555555"

# The operations whose policy is `open` (the run's own scratch and init's set-up): a new one
# is a decision to write down here, not something a test lets through unseen.
OPEN_OPERATIONS = {"blackboard.write", "session.tool", "session.edit", "project.init"}


@pytest.fixture
def guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A project that trusts user:alice only, with two near-duplicate facts, a parked
    proposal, a runbook and a session holding one working fact."""
    root = tmp_path / "repo"
    (root / ".foundry/memory/facts").mkdir(parents=True)
    (root / "docs/adr").mkdir(parents=True)
    (root / ".foundry/config.json").write_text(json.dumps({"trust": {"trusted": ["user:alice"]}}))
    project = Project(root)
    write(project, "Deploys run from the main branch", "Every deploy starts from main.")
    write(project, "Deploys are run from the main branch", "Each deploy starts from main.")
    new_runbook(project.layout, "Cut a release", "when a release is due")
    for title in ("Releases are tagged vX.Y.Z", "Hotfixes branch from the last tag"):
        park(project, UNTRUSTED, WriteChange(WriteRequest(title, "Semver.", "convention")), TODAY)
    store = SessionStore(project.layout)
    try:
        memory_command(store, SESSION, "add", "the staging database is read-only today")
    finally:
        store.close()
    monkeypatch.setenv("FOUNDRY_SESSION", SESSION)
    return Project(root)


def memory_state(project: Project) -> dict[str, str]:
    """Every file that is memory (facts, INDEX.md, runbooks, ADRs, contracts, config) by its
    hash; the blackboard (a run's scratch, and the proposals wave), metrics and scratch are not."""
    root = project.root
    skipped = (".foundry/blackboard/", ".foundry/metrics/", ".foundry/scratch/")
    state = {}
    for path in sorted([*root.joinpath(".foundry").rglob("*"), *root.joinpath("docs").rglob("*")]):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith(skipped):
            state[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return state


def proposal_count(project: Project) -> int:
    return len(list_proposals(project.layout))


# ---- the door's register -----------------------------------------------------------------


def _undo(project: Project) -> Undo:
    """A real merge's undo, taken on a copy of the state and put back, so undoing it is a change."""
    plan = merge_plan(project, ["fact-0001", "fact-0002"])
    result = merge_facts(project, plan, TODAY)
    return result.undo


def operation_calls(project: Project, caller: Caller) -> dict[str, Callable[[], object]]:
    """One call of every registered operation, with arguments that would succeed for a curator."""
    from foundry_tui.core.ops import board, curator, facts, library, preferences, sessions, setup

    actor = Actor(project, caller, TODAY)
    project.sync()
    fact_1, fact_2 = (find_fact(project, i) for i in ("fact-0001", "fact-0002"))
    request = WriteRequest("Staging runs on Postgres 16", "Upgraded last week.", "convention")
    pending = [p.id for p in list_proposals(project.layout) if p.status == "pending"]
    store = SessionStore(project.layout)
    return {
        "fact.write": lambda: facts.write_fact(actor, request),
        "fact.retire": lambda: facts.retire_facts(actor, ["fact-0001"]),
        "fact.tag": lambda: facts.tag_fact(actor, "fact-0001", "release"),
        "fact.merge": lambda: facts.merge_facts(actor, merge_plan(project, ["fact-0001", "fact-0002"])),
        "fact.keep_one": lambda: facts.keep_one(actor, fact_1, fact_2, "retire"),
        "index.rebuild": lambda: facts.rebuild_index(actor),
        "proposal.approve": lambda: curator.approve(actor, pending[0]),
        "proposal.reject": lambda: curator.reject(actor, pending[-1], "not ours"),
        "merge.undo": lambda: curator.undo_merge(actor, _undo_after_restore(project)),
        "memory.resolve": lambda: curator.resolve_merge(actor),
        "runbook.new": lambda: library.new_runbook(actor, "Rotate the keys", "every quarter"),
        "adr.new": lambda: library.new_adr(actor, "Use Postgres"),
        "blackboard.write": lambda: board.blackboard_write(actor, "w1", "planner", "plan.v1", {"steps": ["a"]}),
        "preferences.save": lambda: preferences.save(caller, "Base branch: main."),
        "preferences.request_clear": lambda: preferences.request_clear(caller),
        "preferences.confirm_clear": lambda: preferences.confirm_clear(caller),
        "session.tool": lambda: sessions.session_tool(project.layout, "memory", {"command": "add", "fact": "x"}),
        "session.edit": lambda: sessions.edit_working_memory(store, SESSION, "add", "y"),
        "session.promote": lambda: sessions.promote(actor, store, SESSION, request, "the staging database"),
        "session.prune": lambda: sessions.prune_sessions(actor, store, [{"session": SESSION}]),
        "project.init": lambda: setup.init_project(project.root, caller, None, TODAY, trusted=[str(caller.principal)]),
    }


_UNDO: dict[Path, Undo] = {}


def _undo_after_restore(project: Project) -> Undo:
    """An undo whose restoring would change the memory: a merge made (as the test's setup, not
    through any adapter), its undo kept, and the merge left in place for the undo to reverse."""
    if project.root not in _UNDO:
        _UNDO[project.root] = _undo(project)
    return _UNDO[project.root]


def test_the_register_is_walked_whole(guarded: Project) -> None:
    registered = set(all_operations())
    assert set(operation_calls(guarded, UNTRUSTED)) == registered
    assert {name for name, op in all_operations().items() if op.policy == "open"} == OPEN_OPERATIONS


@pytest.mark.parametrize("who", ["untrusted", "unattended"])
def test_every_operation_parks_or_is_denied(guarded: Project, who: str) -> None:
    caller = UNTRUSTED if who == "untrusted" else UNATTENDED
    operations = all_operations()
    for name in operation_calls(guarded, caller):  # the table's order: save before a clear
        op = operations[name]
        if op.policy == "open":
            continue
        if name == "merge.undo":
            _undo_after_restore(guarded)  # the merge it undoes is made first, outside the walk
        before, parked_before = memory_state(guarded), proposal_count(guarded)
        call = operation_calls(Project(guarded.root), caller)[name]
        outcome: object
        try:
            outcome = call()
        except (WriteDenied, NotTrusted, PreferencesDeclined) as exc:
            outcome = exc
        except FoundryError as exc:  # anything else refusing is a defect of this table, not a pass
            pytest.fail(f"{name} failed for another reason: {exc}")
        if op.policy == "owner":
            # the caller's own preferences: an attended person may keep their own; unattended, never
            if who == "unattended":
                assert isinstance(outcome, PreferencesDeclined), name
            continue
        assert memory_state(guarded) == before, f"{name} changed the memory as {who}"
        if who == "unattended":
            assert isinstance(outcome, WriteDenied), (name, outcome)
        elif op.policy == "gated":
            assert isinstance(outcome, GateResult) and outcome.status == "parked", (name, outcome)
            assert proposal_count(guarded) > parked_before, name
        else:
            assert isinstance(outcome, NotTrusted), (name, outcome)
            assert f"user:mallory is not trusted, so it cannot {''}" in str(outcome)


def test_a_trusted_curator_runs_every_curator_operation(guarded: Project) -> None:
    """The same table succeeds for a trusted principal: the denials above are the policy's."""
    for name, op in sorted(all_operations().items()):
        if op.policy != "curator" or name == "merge.undo":
            continue
        operation_calls(Project(guarded.root), TRUSTED)[name]()


# ---- the CLI's commands -------------------------------------------------------------------

# Every command: the arguments to run it with, and whether it changes memory. A new command
# must be added here (the walk below fails until it is).
CLI_COMMANDS: dict[str, tuple[list[str], bool]] = {
    "memory write": (["--title", "Staging runs on Postgres 16", "--body", "Upgraded.", "--type", "convention"], True),
    "memory search": (["deploys"], False),
    "memory index": ([], True),
    "memory vectors": ([], False),  # derived data in the cache folder, never the memory
    "memory prune": ([], False),
    "memory show": (["fact-0001"], False),
    "memory verify": ([], False),
    "memory list": ([], False),
    "memory dupes": ([], False),
    "memory conflicts": ([], False),
    "memory merge": (["fact-0001", "fact-0002"], True),
    "memory missed": ([], False),
    "memory tag": (["fact-0001", "release"], True),
    "memory retire": (["fact-0001"], True),
    "memory budget": ([], False),
    "memory resolve": ([], True),
    "memory log": ([], False),
    "memory diff": (["HEAD", "HEAD"], False),
    "doctor": ([], False),
    "init": (["--trusted", "user:mallory"], True),
    "runbook list": ([], False),
    "runbook get": (["cut-a-release"], False),
    "runbook new": (["Rotate the keys"], True),
    "adr list": ([], False),
    "adr new": (["Use Postgres"], True),
    "blackboard waves": ([], False),
    "blackboard diff": (["w1/planner"], False),
    "blackboard read": (["w1"], False),
    "blackboard write": (["--wave", "w1", "--agent", "planner", "--schema", "plan.v1", "--data", "{}"], False),
    "contract list": ([], False),
    "contract validate": (["plan.v1", "--data", "{}"], False),
    "proposals list": ([], False),
    "proposals show": (["prop-0001"], False),
    "proposals approve": (["prop-0001"], True),
    "proposals reject": (["prop-0001", "--reason", "no"], True),
    "prefs show": ([], False),
    "prefs save": (["--file", "-"], False),
    "prefs clear": ([], False),
    "tokens": ([], False),
    "health": ([], False),
    "mcp": ([], False),
    "tui": ([], False),  # a terminal application: its writes are walked through the TUI's register below
    "hook": (["session-start"], False),
    "session add": (["a working fact"], False),
    "session remove": (["a working fact"], False),
    "session replace": (["a", "b"], False),
    "session list": ([], False),
    "session show": ([SESSION], False),
    "session promote": ([SESSION, "1"], True),
    "session prune": (["--older-than", "0", "--yes", "--today", "2099-01-01"], True),
}
NOT_RUN = {"tui", "mcp"}  # interactive: the TUI's walk and the MCP walk cover what they change


def run_foundry(root: Path, words: str, extra: list[str], stdin: str = "") -> tuple[int, str, str]:
    """`foundry WORDS EXTRA --root ROOT` in this process (the entry point, argv and streams)."""
    import sys

    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main([*words.split(), "--root", str(root), "--today", TODAY.isoformat(), *extra])
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


def test_the_cli_table_names_every_command() -> None:
    assert set(command_handlers()) == set(CLI_COMMANDS)


@pytest.mark.parametrize("who", ["untrusted", "unattended"])
def test_every_writing_command_parks_or_is_denied(guarded: Project, who: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOUNDRY_PRINCIPAL", "user:alice" if who == "unattended" else "user:mallory")
    if who == "unattended":
        monkeypatch.setenv("FOUNDRY_UNATTENDED", "1")
    for words, (extra, writes) in CLI_COMMANDS.items():
        if words in NOT_RUN:
            continue
        before = memory_state(guarded)
        code, out, err = run_foundry(guarded.root, words, extra, stdin="notes")
        assert memory_state(guarded) == before, f"foundry {words} changed the memory as {who}"
        if not writes:
            continue
        if who == "unattended":
            assert code == 1 and "this run is unattended" in err, (words, code, out, err)
        elif "Parked" in out or "parked" in out:
            assert code == 0, words
        else:
            assert code == 1 and "user:mallory is not trusted, so it cannot" in err, (words, code, out, err)


# ---- the MCP tools ------------------------------------------------------------------------

MCP_CALLS: dict[str, dict[str, Any]] = {
    "memory_search": {"query": "deploys"},
    "memory_write": {"title": "Staging runs on Postgres 16", "body": "Upgraded.", "type": "convention"},
    "memory_index": {},
    "runbook_list": {},
    "runbook_get": {"slug": "cut-a-release"},
    "contract_validate": {"schema": "plan.v1", "data": {}},
    "blackboard_write": {"wave": "w1", "agent": "planner", "schema": "plan.v1", "data": {}},
    "blackboard_read": {"wave": "w1"},
    "token_report": {},
    "memory": {"command": "add", "fact": "a working fact"},
    "memory_observe": {"entries": ["seen"]},
    "memory_reflect": {"entries": ["condensed"]},
    "get_user_preferences": {},
    "save_user_preferences": {"content": "Base branch: main."},
    "clear_user_preferences": {},
}
MCP_WRITES = {"memory_write", "memory_index"}


def test_the_mcp_table_names_every_tool() -> None:
    assert set(MCP_CALLS) == {tool.name for tool in all_tools()}
    # what each tool module says of itself: the gated writes, the session's own scratch, the
    # run's blackboard and the caller's own preferences
    session_and_board = {"blackboard_write", "memory", "memory_observe", "memory_reflect"}
    own_preferences = {"save_user_preferences", "clear_user_preferences"}
    assert {tool.name for tool in all_tools() if tool.writes} == MCP_WRITES | session_and_board | own_preferences


@pytest.mark.parametrize("who", ["untrusted", "unattended"])
def test_every_writing_tool_parks_or_is_denied(guarded: Project, who: str) -> None:
    caller = UNTRUSTED if who == "untrusted" else UNATTENDED
    for name, args in MCP_CALLS.items():
        before = memory_state(guarded)
        try:
            text, _fields = call_tool(Project(guarded.root), name, args, TODAY, caller)
        except FoundryError as exc:
            text = f"{name} failed: {exc}"
        assert memory_state(guarded) == before, f"{name} changed the memory as {who}"
        if name not in MCP_WRITES:
            continue
        if who == "unattended":
            assert "this run is unattended" in text, (name, text)
        elif name == "memory_write":
            assert "parked" in text.lower(), text
        else:
            assert "user:mallory is not trusted, so it cannot rebuild the index" in text, text


# ---- the TUI's commands -------------------------------------------------------------------


def test_every_tui_write_names_a_door_operation() -> None:
    from foundry_tui.tui.commands import ALL_COMMANDS, WRITE_ACTIONS

    operations = all_operations()
    writing = {command.ACTION: command.OPERATION for command in ALL_COMMANDS if command.OPERATION}
    assert set(writing) == WRITE_ACTIONS
    for action, names in writing.items():
        for name in names.split():
            assert name in operations, (action, name)
    # the two writes that once skipped the gate are among them
    assert writing["rebuild_index"] == "index.rebuild" and writing["undo"] == "merge.undo"


# ---- the two TUI writes that once skipped the gate, driven for real -------------------------


async def test_r_in_the_tui_is_refused_to_an_untrusted_principal(demo_root: Path) -> None:
    from foundry_tui.tui.app import FoundryApp
    from foundry_tui.tui.common.confirm import ConfirmScreen

    from .tui_helpers import notifications, settle

    index = demo_root / ".foundry/memory/INDEX.md"
    index.write_text("# hand-edited\n")
    app = FoundryApp(demo_root, TODAY, watch=False, root_label="demo", caller=Caller(parse_principal("service:bot")))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert any("service:bot is not trusted, so it cannot rebuild the index" in n for n in notifications(pilot))
    assert index.read_text() == "# hand-edited\n"


async def test_u_in_the_tui_is_refused_once_the_curator_is_no_longer_trusted(demo_root: Path) -> None:
    from foundry_tui.tui.app import FoundryApp
    from foundry_tui.tui.curator.screen import CuratorScreen

    from .tui_helpers import notifications, open_mode, press, select

    facts = demo_root / ".foundry/memory/facts"
    app = FoundryApp(demo_root, TODAY, watch=False, root_label="demo", caller=TRUSTED)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_mode(pilot, "f6", CuratorScreen)
        await select(pilot, "group:0", "#groups")
        await press(pilot, "m")
        await press(pilot, "ctrl+s")
        assert (facts / "fact-0017.md").exists()
        config = demo_root / ".foundry/config.json"
        config.write_text(json.dumps({**json.loads(config.read_text()), "trust": {"trusted": ["user:bob"]}}))
        before = memory_state(Project(demo_root))
        await press(pilot, "u")
        assert any("user:alice is not trusted, so it cannot undo a merge" in n for n in notifications(pilot))
        assert memory_state(Project(demo_root)) == before
