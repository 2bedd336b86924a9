"""Trust (ADR 0019): the principal, the write gate, proposals and the reserved wave,
through the core and through the real `foundry` command line."""

from __future__ import annotations

import json
import os
import re
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foundry_tui.core.artefacts.blackboard import blackboard_write, list_waves
from foundry_tui.core.errors import InputError
from foundry_tui.core.events import read_events
from foundry_tui.core.gate.changes import RetireChange
from foundry_tui.core.gate.guard import guarded_memory_write, guarded_write
from foundry_tui.core.gate.proposals import approve_proposal, list_proposals
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.names import sanitise
from foundry_tui.core.paths import Layout
from foundry_tui.core.reserved import is_reserved_path, is_reserved_wave, proposals_dir
from foundry_tui.core.trust.policy import WriteDenied, parse_trust
from foundry_tui.core.trust.principal import Caller, Principal, is_unattended, parse_principal, resolve_caller
from tests.helpers import TODAY, Run, run_cli, write

ALICE = Caller(Principal("user", "alice"))
BOB = Caller(Principal("user", "bob"))
BOT = Caller(Principal("service", "ci-bot"))


def _trusting(root: Path, *names: str) -> None:
    (root / ".foundry" / "config.json").write_text(json.dumps({"trust": {"trusted": list(names)}}))


def _facts(root: Path) -> dict[str, str]:
    folder = root / ".foundry" / "memory" / "facts"
    return {p.name: p.read_text() for p in sorted(folder.glob("*.md"))}


def _cli(root: Path, *args: str, principal: str | None = None, **env: str) -> Run:
    full = {"FOUNDRY_TODAY": "2026-11-30", **env}
    if principal:
        full["FOUNDRY_PRINCIPAL"] = principal
    return run_cli("--root", str(root), *args, env=full)


# ---- the principal ------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["user:alice", "service:ci-bot", "app:review.app", "user:a.b@example.com"])
def test_principals_of_every_kind_parse(text: str) -> None:
    assert str(parse_principal(text)) == text


@pytest.mark.parametrize("text", ["alice", "admin:alice", "user:", "user:al ice", "user:a/b", ":alice", "user:-x"])
def test_a_malformed_principal_is_one_line_naming_the_form(text: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_principal(text)
    assert str(caught.value) == (
        f"FOUNDRY_PRINCIPAL '{text}' is not a principal: use user:<name>, service:<name> or app:<name> "
        "(name: letters, digits, '.', '_', '@', '+' or '-')"
    )


@given(st.sampled_from(["user", "service", "app"]), st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,40}", fullmatch=True))
def test_principal_round_trips(kind: str, name: str) -> None:
    principal = parse_principal(f"{kind}:{name}")
    assert (principal.kind, principal.name, str(principal)) == (kind, name, f"{kind}:{name}")


def test_principal_comes_from_the_environment_else_the_login_name() -> None:
    assert str(resolve_caller({"FOUNDRY_PRINCIPAL": "service:ci-bot"}).principal) == "service:ci-bot"
    assert str(resolve_caller({"LOGNAME": "carol"}).principal).startswith("user:")
    assert resolve_caller({}).principal.is_user


@pytest.mark.parametrize(
    ("env", "unattended"),
    [
        ({}, False),
        ({"CI": "true"}, True),
        ({"CI": "TRUE"}, True),
        ({"CI": "1"}, True),
        ({"FOUNDRY_UNATTENDED": "1"}, True),
        ({"CI": "false"}, False),
        ({"FOUNDRY_UNATTENDED": "0"}, False),
    ],
)
def test_unattended_from_ci_or_foundry_unattended(env: dict[str, str], unattended: bool) -> None:
    assert is_unattended(env) is unattended


def test_a_malformed_principal_stops_the_cli_with_one_line(root: Path) -> None:
    run = _cli(root, "memory", "list", principal="admin:root")
    assert run.code == 2 and run.out == ""
    assert run.err == (
        "foundry: error: FOUNDRY_PRINCIPAL 'admin:root' is not a principal: use user:<name>, service:<name> or "
        "app:<name> (name: letters, digits, '.', '_', '@', '+' or '-')\n"
    )


def test_a_malformed_principal_stops_the_mcp_server_with_one_line(root: Path) -> None:
    run = run_cli("--root", str(root), "mcp", stdin="", env={"FOUNDRY_PRINCIPAL": "nobody"})
    assert (run.code, run.out) == (2, "")
    assert run.err.count("\n") == 1 and run.err.startswith("foundry: error: FOUNDRY_PRINCIPAL 'nobody' is not")


def test_a_malformed_principal_never_breaks_a_hook(root: Path) -> None:
    run = run_cli("--root", str(root), "hook", "session-start", stdin="{}", env={"FOUNDRY_PRINCIPAL": "nobody"})
    assert run.code == 0 and json.loads(run.out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


# ---- who is trusted -------------------------------------------------------------------------


def test_without_a_trust_section_every_user_is_trusted_and_nobody_else() -> None:
    settings = parse_trust({"profile": "standard"})
    assert settings.is_trusted(Principal("user", "anyone"))
    assert not settings.is_trusted(Principal("service", "ci-bot"))
    assert not settings.is_trusted(Principal("app", "x"))


def test_a_trust_list_trusts_exactly_its_members() -> None:
    settings = parse_trust({"trust": {"trusted": ["user:alice", "service:deployer"]}})
    assert settings.is_trusted(Principal("user", "alice")) and settings.is_trusted(Principal("service", "deployer"))
    assert not settings.is_trusted(Principal("user", "bob"))


@pytest.mark.parametrize(
    ("trust", "message"),
    [
        ("alice", 'config.json: trust must be an object such as {"trusted": ["user:alice"]}'),
        ({"trusted": "user:alice"}, "config.json: trust.trusted must be a list of principals such as user:alice"),
        ({"trusted": [3]}, "config.json: trust.trusted[0] must be a string such as user:alice"),
    ],
)
def test_a_bad_trust_section_is_refused_naming_the_entry(root: Path, trust: object, message: str) -> None:
    (root / ".foundry" / "config.json").write_text(json.dumps({"trust": trust}))
    run = _cli(root, "memory", "write", "--title", "T is t", "--body", "b", "--type", "convention")
    assert run.code == 1 and run.err == f"foundry: error: {message}\n"
    assert _facts(root) == {}


def test_init_writes_a_trust_section_only_when_asked(tmp_path: Path) -> None:
    plain, trusted = tmp_path / "plain", tmp_path / "trusted"
    plain.mkdir()
    trusted.mkdir()
    assert run_cli("init", "--root", str(plain)).code == 0
    assert "trust" not in json.loads((plain / ".foundry/config.json").read_text())
    run = run_cli("init", "--root", str(trusted), "--trusted", "user:alice", "--trusted", "service:deployer")
    assert run.code == 0 and "merged    .foundry/config.json (trusted: user:alice, service:deployer)" in run.out
    config = json.loads((trusted / ".foundry/config.json").read_text())
    assert config["trust"] == {"trusted": ["user:alice", "service:deployer"]}
    again = run_cli("init", "--root", str(trusted), "--trusted", "user:alice")
    assert "Foundry is already set up here; nothing changed." in again.out
    bad = run_cli("init", "--root", str(tmp_path / "plain"), "--trusted", "alice")
    assert bad.code == 2 and "--trusted 'alice' is not a principal" in bad.err


# ---- the gate ---------------------------------------------------------------------------------


def test_an_unattended_write_is_denied_recorded_and_writes_nothing(root: Path) -> None:
    for env in ({"CI": "true"}, {"FOUNDRY_UNATTENDED": "1"}):
        run = _cli(root, "memory", "write", "--title", "CI found X", "--body", "b", "--type", "risk", **env)
        assert run.code == 1 and run.out == ""
        assert run.err == (
            "foundry: error: this run is unattended (CI=true or FOUNDRY_UNATTENDED=1), so it may not change shared "
            "memory and nothing was written: report the fact in your output instead, for a person to record\n"
        )
    assert _facts(root) == {} and not proposals_dir(Layout(root)).exists()
    denied = [e for e in read_events(Layout(root)) if e["kind"] == "write_denied"]
    assert [(e["operation"], str(e["principal"]).startswith("user:")) for e in denied] == [("write", True)] * 2


def test_unattended_merge_retire_and_tag_are_denied_too(project: Project) -> None:
    write(project, "Deploys use blue green", "Two fleets.")
    write(project, "Blue green deploys always", "Two fleets, swapped.")
    before = _facts(project.layout.root)
    root = str(project.layout.root)
    for args in (
        ["memory", "merge", "fact-0001", "fact-0002"],
        ["memory", "retire", "fact-0001"],
        ["memory", "tag", "fact-0001", "rollout"],
    ):
        run = run_cli("--root", root, *args, env={"CI": "true", "FOUNDRY_TODAY": "2026-11-30"})
        assert run.code == 1 and "this run is unattended" in run.err, args
    assert _facts(project.layout.root) == before
    assert [e["operation"] for e in read_events(project.layout) if e["kind"] == "write_denied"] == [
        "merge",
        "retire",
        "tag",
    ]


def test_a_trusted_principal_writes_as_today(project: Project) -> None:
    _trusting(project.layout.root, "user:alice")
    result = guarded_memory_write(project, ALICE, WriteRequest("Builds run on Buildkite", "b", "convention"), TODAY)
    assert result.written and result.text.startswith("created: fact-0001\nIndex: 1/1 facts listed")
    assert list(_facts(project.layout.root)) == ["fact-0001.md"]


def test_an_untrusted_write_parks_a_fact_v1_proposal_and_changes_no_fact(project: Project) -> None:
    _trusting(project.layout.root, "user:alice")
    write(project, "Deploys use blue green", "Two fleets.")
    before = _facts(project.layout.root)
    index_before = project.layout.index_path.read_text()
    outcomes = []
    for title, body in [
        ("Releases are tagged vX.Y.Z", "Semver tags."),  # new title
        ("Deploys use blue green", "Two fleets, swapped at the balancer."),  # same title, new body
        ("Deploys use blue green", "Two fleets."),  # identical
    ]:
        result = guarded_memory_write(project, BOB, WriteRequest(title, body, "convention"), TODAY)
        assert result.status == "parked"
        outcomes.append(result.text.splitlines()[1])
    assert outcomes == [
        "Today it would: created",
        "Today it would: updated fact-0001",
        "Today it would: unchanged fact-0001",
    ]
    assert result.text == (
        "parked: prop-0003 (user:bob is not trusted to change shared memory, so no fact file changed)\n"
        "Today it would: unchanged fact-0001\n"
        "A trusted curator approves it with `foundry proposals approve prop-0003` (or in the TUI's Approvals screen)."
    )
    assert _facts(project.layout.root) == before and project.layout.index_path.read_text() == index_before
    data = json.loads((proposals_dir(project.layout) / "prop-0002.json").read_text())
    assert data["schema"] == "fact.v1" and data["producedBy"] == "user:bob"
    assert (data["title"], data["body"], data["supersedes"]) == (
        "Deploys use blue green",
        "Two fleets, swapped at the balancer.",
        "fact-0001",
    )
    meta = data["proposal"]
    assert {k: meta[k] for k in ("id", "operation", "author", "proposedOn", "wouldDo", "status", "request")} == {
        "id": "prop-0002",
        "operation": "write",
        "author": "user:bob",
        "proposedOn": "2026-11-30",
        "wouldDo": "updated fact-0001",
        "status": "pending",
        "request": {},
    }
    from foundry_tui.core.artefacts.contracts import contract_validate

    valid, _text = contract_validate(project.layout, "fact.v1", data)
    assert valid


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Deploys use blue green", "deploys USE blue-green", "Builds run nightly"]),
            st.sampled_from(["Two fleets.", "Two  fleets.", "One fleet."]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_what_a_proposal_says_it_would_do_is_what_memory_write_does(writes: list[tuple[str, str]]) -> None:
    """write_outcome (core/gate/changes.py) predicts memory_write's outcome without writing."""
    import tempfile

    from foundry_tui.core.gate.changes import write_outcome
    from foundry_tui.core.memory.writing.write import memory_write

    with tempfile.TemporaryDirectory() as folder:
        project = Project(Path(folder))
        project.layout.facts_dir.mkdir(parents=True)
        for title, body in writes:
            req = WriteRequest(title, body, "convention")
            action, existing = write_outcome(project, req, TODAY)
            result = memory_write(project, req, TODAY)
            assert result.action == action
            if action == "unchanged":
                assert existing is not None and result.fact_id == existing.id
            else:
                assert result.supersedes == (existing.id if existing is not None else None)


def test_a_promotion_goes_through_the_same_gate(project: Project) -> None:
    req = WriteRequest("Staging resets nightly", "At 02:00 UTC.", "convention")
    with pytest.raises(WriteDenied):
        guarded_memory_write(project, Caller(BOB.principal, unattended=True), req, TODAY, operation="promote")
    parked = guarded_memory_write(project, BOT, req, TODAY, operation="promote")
    (proposal,) = list_proposals(project.layout)
    assert (parked.status, proposal.operation, proposal.would_do) == ("parked", "promote", "created")
    text = approve_proposal(project, ALICE, proposal.id, TODAY)
    assert text.splitlines()[1] == "created: fact-0001"
    written = guarded_memory_write(project, ALICE, WriteRequest("Deploys are blue green", "b", "convention"), TODAY)
    assert written.written and written.applied is not None and written.applied.fact_id == "fact-0002"


def test_a_service_principal_parks_even_without_a_trust_section(project: Project) -> None:
    result = guarded_memory_write(project, BOT, WriteRequest("Flaky test in auth", "b", "risk"), TODAY)
    assert result.status == "parked" and _facts(project.layout.root) == {}


def test_bad_input_is_refused_before_anything_is_parked(project: Project) -> None:
    with pytest.raises(InputError, match="title is 81 characters"):
        guarded_memory_write(project, BOB, WriteRequest("x" * 81, "b", "convention"), TODAY)
    with pytest.raises(Exception, match="no fact 'fact-0042'"):
        guarded_write(project, BOT, RetireChange(["fact-0042"], "2026-11-29"), TODAY)
    assert not proposals_dir(project.layout).exists()


def test_a_bulk_retire_parks_one_proposal_per_fact(project: Project) -> None:
    write(project, "A is a", "a")
    write(project, "B is b", "b")
    result = guarded_write(project, BOT, RetireChange(["fact-0001", "fact-0002"], "2026-11-29"), TODAY)
    assert result.proposal_ids == ["prop-0001", "prop-0002"]
    assert result.text.endswith(
        "A trusted curator approves each with `foundry proposals approve ID` (or in the TUI's Approvals screen)."
    )
    assert [p.would_do for p in list_proposals(project.layout)] == [
        "retire fact-0001 (expires 2026-11-29)",
        "retire fact-0002 (expires 2026-11-29)",
    ]


def test_the_cli_parks_merge_tag_and_retire_for_an_untrusted_principal(project: Project) -> None:
    root = project.layout.root
    _trusting(root, "user:alice")
    write(project, "Deploys use blue green", "Two fleets.")
    write(project, "Blue green deploys always", "Two fleets, swapped.")
    before = _facts(root)
    for args, would in (
        (["memory", "merge", "fact-0001", "fact-0002"], "merge fact-0001, fact-0002 into a new fact"),
        (["memory", "retire", "fact-0001"], "retire fact-0001 (expires 2026-11-29)"),
        (["memory", "tag", "fact-0001", "rollout"], "tag fact-0001 +rollout"),
    ):
        run = _cli(root, *args, principal="user:bob")
        assert run.code == 0 and f"Today it would: {would}\n" in run.out, args
    assert _facts(root) == before


# ---- proposals ---------------------------------------------------------------------------------


def _parked(project: Project, title: str = "Releases are tagged vX.Y.Z", body: str = "Semver tags.") -> str:
    _trusting(project.layout.root, "user:alice")
    result = guarded_memory_write(project, BOB, WriteRequest(title, body, "convention", source="adr-0003"), TODAY)
    return result.proposal_ids[0]


def test_approve_writes_as_the_curator_keeping_the_author_in_source(project: Project) -> None:
    root = project.layout.root
    proposal_id = _parked(project)
    run = _cli(root, "proposals", "approve", proposal_id, principal="user:alice")
    assert run.code == 0, run.err
    assert run.out.startswith("approved: prop-0001 (proposed by user:bob)\ncreated: fact-0001\nIndex: 1/1")
    assert "source: adr-0003; proposed by user:bob in prop-0001\n" in _facts(root)["fact-0001.md"]
    from foundry_tui.core.artefacts.adr import adr_for_source

    found = adr_for_source(project.layout, "adr-0003; proposed by user:bob in prop-0001")
    assert found is not None and found[0] == "adr-0003"  # the fact still points at its ADR
    meta = json.loads((proposals_dir(project.layout) / "prop-0001.json").read_text())["proposal"]
    assert (meta["status"], meta["decidedBy"], meta["factId"], meta["result"]) == (
        "approved",
        "user:alice",
        "fact-0001",
        "created: fact-0001",
    )
    again = _cli(root, "proposals", "approve", proposal_id, principal="user:alice")
    assert again.code == 2 and "prop-0001 is already approved by user:alice on 2026-11-30" in again.err


def test_approving_as_an_untrusted_principal_is_refused(project: Project) -> None:
    root = project.layout.root
    proposal_id = _parked(project)
    for principal in ("user:bob", "service:ci-bot"):
        run = _cli(root, "proposals", "approve", proposal_id, principal=principal)
        assert run.code == 1 and run.err == (
            f"foundry: error: {principal} is not trusted, so it cannot approve proposals: trusted are user:alice, "
            "as listed in the working copy's config.json (not a git repository); "
            "ask one of them, or add yours to trust.trusted in .foundry/config.json\n"
        )
    unattended = _cli(root, "proposals", "approve", proposal_id, principal="user:alice", CI="true")
    assert unattended.code == 1 and "this run is unattended" in unattended.err
    assert _facts(root) == {} and list_proposals(project.layout)[0].status == "pending"


def test_approving_a_fact_written_meanwhile_reports_unchanged(project: Project) -> None:
    proposal_id = _parked(project, "Deploys use blue green", "Two fleets.")
    write(project, "Deploys use blue green", "Two fleets.")  # someone trusted wrote it first
    text = approve_proposal(project, ALICE, proposal_id, TODAY)
    assert text.splitlines()[:2] == ["approved: prop-0001 (proposed by user:bob)", "unchanged: fact-0001"]
    assert text.endswith("The same fact was already active (fact-0001): nothing new was written.")
    assert list(_facts(project.layout.root)) == ["fact-0001.md"]
    assert list_proposals(project.layout)[0].meta["result"] == "unchanged: fact-0001"


def test_reject_keeps_the_proposal_with_its_reason(project: Project) -> None:
    root = project.layout.root
    proposal_id = _parked(project)
    path = proposals_dir(project.layout) / f"{proposal_id}.json"
    empty = _cli(root, "proposals", "reject", proposal_id, "--reason", "  ", principal="user:alice")
    assert empty.code == 2 and "say why it is rejected" in empty.err
    run = _cli(root, "proposals", "reject", proposal_id, "--reason", "not our convention", principal="user:alice")
    assert run.out == (
        "rejected: prop-0001 (proposed by user:bob): not our convention\nNothing was written; the proposal is kept.\n"
    )
    meta = json.loads(path.read_text())["proposal"]
    assert (meta["status"], meta["reason"], meta["decidedBy"]) == ("rejected", "not our convention", "user:alice")
    listing = _cli(root, "proposals", "list")
    assert "rejected by user:alice on 2026-11-30: not our convention" in listing.out
    assert _facts(root) == {}


def test_a_proposal_edited_into_invalid_json_is_listed_broken_and_never_approved(project: Project) -> None:
    root = project.layout.root
    proposal_id = _parked(project)
    path = proposals_dir(project.layout) / f"{proposal_id}.json"
    path.write_text(path.read_text().replace('"status": "pending"', '"status": "pending",,'))
    broken_text = path.read_text()
    listing = _cli(root, "proposals", "list", "--json")
    entry = json.loads(listing.out)["proposals"][0]
    assert entry["status"] == "broken" and entry["problem"].startswith("not valid JSON (line ")
    run = _cli(root, "proposals", "approve", proposal_id, principal="user:alice")
    assert run.code == 2 and "prop-0001 is broken (not valid JSON" in run.err
    assert "so it is never approved" in run.err
    assert _facts(root) == {} and path.read_text() == broken_text


def test_a_proposal_edited_out_of_its_contract_is_broken(project: Project) -> None:
    proposal_id = _parked(project)
    path = proposals_dir(project.layout) / f"{proposal_id}.json"
    data = json.loads(path.read_text())
    data["type"] = "opinion"
    path.write_text(json.dumps(data))
    (proposal,) = list_proposals(project.layout)
    assert proposal.status == "broken" and proposal.problem is not None
    assert proposal.problem.startswith("does not satisfy fact.v1: ")
    with pytest.raises(InputError, match="is broken"):
        approve_proposal(project, ALICE, proposal_id, TODAY)


def test_approved_retire_and_merge_proposals_apply(project: Project) -> None:
    root = project.layout.root
    _trusting(root, "user:alice")
    write(project, "Deploys use blue green", "Two fleets.")
    write(project, "Blue green deploys always", "Two fleets, swapped.")
    _cli(root, "memory", "merge", "fact-0001", "fact-0002", principal="user:bob")
    run = _cli(root, "proposals", "approve", "prop-0001", principal="user:alice")
    assert run.out.splitlines()[1] == "merged: fact-0003 (from fact-0001, fact-0002)"
    assert "source: conversation; proposed by user:bob in prop-0001" in _facts(root)["fact-0003.md"]
    _cli(root, "memory", "retire", "fact-0003", principal="user:bob")
    run = _cli(root, "proposals", "approve", "prop-0002", principal="user:alice")
    assert run.out.splitlines()[1] == "retired: fact-0003 (expires 2026-11-29)"
    assert "expires: 2026-11-29" in _facts(root)["fact-0003.md"]


def test_proposals_list_and_show(project: Project) -> None:
    root = project.layout.root
    write(project, "Deploys use blue green", "Two fleets.")
    _parked(project, "Deploys use blue green", "Two fleets, swapped.")
    listing = _cli(root, "proposals", "list")
    assert listing.out == (
        "prop-0001  pending   write    claimed by user:bob (not committed to git), today: Deploys use blue green\n"
        "           would: updated fact-0001\n"
        "1 pending.\n"
    )
    shown = _cli(root, "proposals", "show", "prop-0001")
    assert "--- active fact-0001\n+++ proposed\n" in shown.out
    assert "-Two fleets.\n+Two fleets, swapped.\n" in shown.out
    assert _cli(root, "proposals", "list").code == 0
    assert _cli(root, "proposals", "show", "nope").code == 2


# ---- the reserved wave and paths ------------------------------------------------------------------

# Every spelling that lands on the proposals folder: the sanitiser keeps [A-Za-z0-9._-] and
# rewrites the rest to '-', so only case (case-insensitive file systems) and trailing dots
# (dropped by Windows) can vary; `_` itself also comes from nothing else.
RESERVED_SPELLINGS = st.tuples(
    st.tuples(*(st.sampled_from([c.lower(), c.upper()]) for c in "_proposals")).map("".join),
    st.text(alphabet=".", max_size=5),
).map("".join)


@given(RESERVED_SPELLINGS)
def test_every_name_that_reaches_the_proposals_wave_is_refused(wave: str) -> None:
    assert is_reserved_wave(wave)
    with pytest.raises(InputError, match="is reserved for parked memory proposals"):
        blackboard_write(Layout(Path("/nonexistent")), wave, "agent", "fact.v1", {})


@given(st.text(alphabet=string.ascii_letters + string.digits + "._- /\\:é", min_size=1, max_size=20))
def test_the_guard_is_exact_about_which_names_reach_the_proposals_wave(wave: str) -> None:
    try:
        folder = sanitise(wave, "wave")
    except InputError:
        return
    assert is_reserved_wave(wave) == (folder.rstrip(".").lower() == "_proposals")


def test_blackboard_reads_and_writes_refuse_the_proposals_wave(project: Project) -> None:
    root = project.layout.root
    _parked(project)
    for args in (
        ["blackboard", "read", "_proposals"],
        ["blackboard", "write", "--wave", "_Proposals", "--agent", "x", "--schema", "fact.v1", "--data", "{}"],
    ):
        run = _cli(root, *args)
        assert run.code == 2 and "is reserved for parked memory proposals" in run.err, args
    assert "_proposals" not in list_waves(project.layout)


def test_general_paths_cannot_reach_the_reserved_folders(project: Project, tmp_path: Path) -> None:
    root = project.layout.root
    _parked(project)
    (root / "link").symlink_to(proposals_dir(project.layout))
    for path in (".foundry/blackboard/_proposals/prop-0001.json", "link/prop-0001.json"):
        run = _cli(root, "contract", "validate", "fact.v1", "--path", path)
        assert run.code == 2 and f"path '{path}' is in a reserved folder" in run.err
    assert is_reserved_path(project.layout, Path(".foundry/BLACKBOARD/../blackboard/_PROPOSALS/x.json"))
    assert not is_reserved_path(project.layout, Path(".foundry/blackboard/analysis/x.json"))
    # The preferences folder, even when FOUNDRY_DATA_DIR points inside the repository.
    data = root / "data"
    (data / "user-preferences").mkdir(parents=True)
    (data / "user-preferences" / "x.md").write_text("{}")
    run = _cli(
        root, "contract", "validate", "fact.v1", "--path", "data/user-preferences/x.md", FOUNDRY_DATA_DIR=str(data)
    )
    assert run.code == 2 and "is in a reserved folder" in run.err
    # A runbook that is a link into the proposals wave is neither read nor listed.
    (root / ".foundry" / "runbooks").mkdir()
    (root / ".foundry" / "runbooks" / "sneaky.md").symlink_to(proposals_dir(project.layout) / "prop-0001.json")
    run = _cli(root, "runbook", "get", "sneaky")
    assert run.code == 2 and "runbook 'sneaky' is in a reserved folder" in run.err
    assert "sneaky" not in _cli(root, "runbook", "list").out


@given(st.text(max_size=30))
def test_anything_outside_the_principal_grammar_is_refused(text: str) -> None:
    kind, sep, name = text.strip().partition(":")
    valid = bool(sep) and kind in ("user", "service", "app") and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._@+-]*", name)
    if valid:
        assert str(parse_principal(text)) == text.strip()
    else:
        with pytest.raises(InputError):
            parse_principal(text)


def test_two_curators_approving_at_once_apply_it_once(project: Project) -> None:
    import subprocess
    import sys

    root = project.layout.root
    proposal_id = _parked(project)
    env = {**os.environ, "FOUNDRY_PRINCIPAL": "user:alice", "FOUNDRY_TODAY": "2026-11-30"}
    command = [sys.executable, "-m", "foundry_tui", "--root", str(root), "proposals", "approve", proposal_id]
    procs = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)
    ]
    outcomes = sorted(p.wait(timeout=60) for p in procs)
    assert outcomes == [0, 2, 2]
    assert list(_facts(root)) == ["fact-0001.md"]


def test_a_proposals_folder_replaced_by_a_symlink_is_refused(project: Project, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proposals_dir(project.layout).parent.mkdir(parents=True)
    proposals_dir(project.layout).symlink_to(elsewhere)
    with pytest.raises(Exception, match="has been replaced by a symlink"):
        guarded_memory_write(project, BOT, WriteRequest("A is a", "b", "glossary"), TODAY)
    assert list(elsewhere.iterdir()) == []


def test_a_denied_write_raises_write_denied_in_core(project: Project) -> None:
    with pytest.raises(WriteDenied):
        guarded_memory_write(
            project, Caller(ALICE.principal, unattended=True), WriteRequest("A", "b", "glossary"), TODAY
        )


@pytest.mark.parametrize(
    ("tool", "tool_input", "denied"),
    [
        ("Write", {"file_path": ".foundry/blackboard/_proposals/prop-0009.json"}, True),
        ("Edit", {"file_path": "{root}/.foundry/blackboard/_Proposals/prop-0001.json"}, True),
        ("Write", {"file_path": "{data}/user-preferences/abc.md"}, True),
        ("Bash", {"command": "echo '{}' > .foundry/blackboard/_proposals/prop-0009.json"}, True),
        ("Bash", {"command": "cat .foundry/blackboard/_proposals/prop-0001.json"}, False),
        ("Read", {"file_path": ".foundry/blackboard/_proposals/prop-0001.json"}, False),
        ("Write", {"file_path": ".foundry/blackboard/analysis/x.json"}, False),
        ("Bash", {"command": "foundry proposals list"}, False),
    ],
)
def test_the_hook_denies_writing_proposals_or_preferences_by_hand(
    root: Path, tool: str, tool_input: dict[str, str], denied: bool
) -> None:
    data = os.environ["FOUNDRY_DATA_DIR"]
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "cwd": str(root),
        "tool_input": {k: v.replace("{root}", str(root)).replace("{data}", data) for k, v in tool_input.items()},
    }
    run = run_cli("--root", str(root), "hook", "pre-tool-use", stdin=json.dumps(payload))
    assert run.code == 0
    if not denied:
        assert run.out == ""
        return
    answer = json.loads(run.out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert answer["permissionDecisionReason"].startswith("Foundry memory: the proposals wave")
