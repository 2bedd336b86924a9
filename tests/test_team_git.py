"""A team on git (issue 15): merges, rebases and cherry-picks keep every fact; log and diff.

Real `git` in temporary repositories, isolated from the user's git config; the CLI runs as
a subprocess (`python -m foundry_tui`), and the hooks `foundry init` installs run it too.
Every scenario counts the facts before and after and checks ids, supersedes and doctor.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foundry_tui.core.memory.model.facts import MERGED_FROM, RENUMBERED_FROM, Fact
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.doctor import run_doctor
from tests.helpers import TODAY, run_cli

FACTS = ".foundry/memory/facts"


def git_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        HOME=str(home),
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_DATE="2026-11-30T10:00:00Z",
        GIT_COMMITTER_DATE="2026-11-30T10:00:00Z",
        GIT_EDITOR="true",
        FOUNDRY_TODAY=TODAY.isoformat(),
        FOUNDRY_NO_CACHE="1",
    )
    return env


class Repo:
    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.env = git_env(home)

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(["git", *args], cwd=self.root, env=self.env, capture_output=True, text=True, timeout=60)
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stdout}{proc.stderr}")
        return proc

    def cli(self, *args: str) -> tuple[int, str, str]:
        run = run_cli(*args, "--root", str(self.root), env=self.env, cwd=self.root)
        return run.code, run.out, run.err

    def write(self, title: str, body: str, commit: bool = True) -> str:
        code, out, err = self.cli("memory", "write", "--title", title, "--body", body, "--type", "convention")
        assert code == 0, err
        if commit:
            self.commit(f"fact: {body}")
        return out.split()[1]  # "created fact-0003 ..." / "updated fact-0004 ..."

    def commit(self, message: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-qm", message)

    def facts(self) -> dict[str, Fact]:
        """Facts by body (bodies are unique in these tests); every file must load."""
        project = Project(self.root, use_cache=False)
        project.sync()
        assert not project.store.broken, project.store.broken
        return {f.body: f for f in project.store.facts.values()}


def make_repo(tmp_path: Path, name: str = "origin", init: bool = True) -> Repo:
    root = tmp_path / name
    root.mkdir()
    repo = Repo(root, tmp_path)
    repo.git("init", "-q", "-b", "main")
    repo.git("config", "user.name", "Alice")
    repo.git("config", "user.email", "alice@example.com")
    if init:
        code, _out, err = repo.cli("init")
        assert code == 0, err
    else:
        (root / FACTS).mkdir(parents=True)
    repo.write("Cache TTL is 60 seconds", "base-cache")
    repo.write("Queues are durable", "base-queue")
    return repo


def assert_healthy(repo: Repo, expected_bodies: set[str]) -> dict[str, Fact]:
    facts = repo.facts()
    assert set(facts) == expected_bodies  # nothing lost, nothing doubled
    ids = [f.id for f in facts.values()]
    assert len(ids) == len(set(ids))
    report = run_doctor(Project(repo.root, use_cache=False), TODAY)
    assert report.failed == 0, report.text()
    return facts


def two_branches(repo: Repo) -> None:
    """alice supersedes a base fact and adds one; bob adds one, supersedes it, merges two."""
    repo.git("checkout", "-qb", "bob")
    assert repo.write("Bob learned queues", "bob-1") == "fact-0003"
    assert repo.write("Bob learned queues", "bob-2") == "fact-0004"  # supersedes bob-1
    code, _out, err = repo.cli("memory", "merge", "fact-0002", "fact-0004", "--title", "Queues: durable, bob-merged")
    assert code == 0, err
    repo.commit("merge two facts")
    repo.git("checkout", "-q", "main")
    assert repo.write("Cache TTL is 60 seconds", "alice-cache") == "fact-0003"  # supersedes base-cache
    assert repo.write("Alice learned caching", "alice-1") == "fact-0004"


BOB_MERGED = "base-queue\n\nbob-2"
ALL_BODIES = {"base-cache", "base-queue", "bob-1", "bob-2", BOB_MERGED, "alice-cache", "alice-1"}


def assert_links(facts: dict[str, Fact]) -> None:
    """Each supersedes / merged_from names the fact it meant on its own branch."""
    assert facts["alice-cache"].supersedes == facts["base-cache"].id
    assert facts["bob-2"].supersedes == facts["bob-1"].id
    merged = facts[BOB_MERGED]
    assert merged.supersedes == facts["base-queue"].id
    assert merged.extras[MERGED_FROM] == [facts["base-queue"].id, facts["bob-2"].id]
    assert facts["base-cache"].supersedes is None and facts["alice-1"].supersedes is None


def merge_and_resolve(repo: Repo, branch: str) -> str:
    result = repo.git("merge", "--no-edit", branch, check=False)
    assert "CONFLICT (add/add)" in result.stdout
    code, out, err = repo.cli("memory", "resolve")
    assert code == 0, err
    repo.git("commit", "--no-edit", "-q")
    assert repo.git("status", "--porcelain").stdout == ""
    return out


def test_merge_bob_into_alice_keeps_every_fact(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    two_branches(repo)
    out = merge_and_resolve(repo, "bob")
    assert "renumbered fact-0003 → fact-0006 (Bob learned queues)" in out
    assert "renumbered fact-0004 → fact-0007 (Bob learned queues)" in out
    facts = assert_healthy(repo, ALL_BODIES)
    assert_links(facts)
    assert facts["alice-cache"].id == "fact-0003" and facts["alice-1"].id == "fact-0004"  # ours keep their ids
    assert facts["bob-1"].extras[RENUMBERED_FROM] == "fact-0003"
    assert facts["bob-2"].extras[RENUMBERED_FROM] == "fact-0004"


def test_merge_alice_into_bob_keeps_every_fact(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    two_branches(repo)
    repo.git("checkout", "-q", "bob")
    merge_and_resolve(repo, "main")
    facts = assert_healthy(repo, ALL_BODIES)
    assert_links(facts)
    assert facts["bob-1"].id == "fact-0003" and facts["alice-cache"].extras[RENUMBERED_FROM] == "fact-0003"


def test_rebase_bob_onto_alice(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    two_branches(repo)
    repo.git("checkout", "-q", "bob")
    result = repo.git("rebase", "main", check=False)
    for _step in range(10):
        if result.returncode == 0:
            break
        code, _out, err = repo.cli("memory", "resolve")
        assert code == 0, err
        result = repo.git("rebase", "--continue", check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    if repo.git("status", "--porcelain").stdout:  # the post-rewrite hook regenerated INDEX.md
        repo.commit("regenerate INDEX.md")
    facts = assert_healthy(repo, ALL_BODIES)
    assert_links(facts)


def test_cherry_pick_a_fact_across(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    two_branches(repo)
    bob_first = repo.git("rev-list", "--reverse", "main..bob").stdout.split()[0]
    result = repo.git("cherry-pick", bob_first, check=False)
    assert result.returncode != 0  # fact-0003.md: add/add
    code, out, err = repo.cli("memory", "resolve")
    assert code == 0, err
    assert "renumbered fact-0003 → fact-0005 (Bob learned queues)" in out
    repo.git("-c", "core.editor=true", "cherry-pick", "--continue")
    assert_healthy(repo, {"base-cache", "base-queue", "alice-cache", "alice-1", "bob-1"})


def test_three_branches_merged_in_sequence(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    for name in ("carol", "dan", "erin"):
        repo.git("checkout", "-q", "-b", name, "main")
        assert repo.write(f"{name} learned something", f"{name}-1") == "fact-0003"
        assert repo.write(f"{name} learned something", f"{name}-2") == "fact-0004"  # supersedes -1
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "carol")
    merge_and_resolve(repo, "dan")
    merge_and_resolve(repo, "erin")
    bodies = {"base-cache", "base-queue"} | {f"{n}-{i}" for n in ("carol", "dan", "erin") for i in (1, 2)}
    facts = assert_healthy(repo, bodies)
    for name in ("carol", "dan", "erin"):
        assert facts[f"{name}-2"].supersedes == facts[f"{name}-1"].id
    assert sorted(f.id for f in facts.values()) == [f"fact-{n:04d}" for n in range(1, 9)]


def test_a_clone_without_init_is_repaired_by_resolve(tmp_path: Path) -> None:
    origin = make_repo(tmp_path)
    two_branches(origin)
    clone = Repo(tmp_path / "clone", tmp_path)
    subprocess.run(["git", "clone", "-q", str(origin.root), str(clone.root)], env=clone.env, check=True)
    clone.git("config", "user.name", "Bob")
    clone.git("config", "user.email", "bob@example.com")
    assert not (clone.root / ".git/hooks/post-merge").exists()  # hooks and config do not travel
    clone.git("checkout", "-q", "-b", "bob", "origin/bob")
    clone.git("checkout", "-q", "main")
    result = clone.git("merge", "--no-edit", "bob", check=False)
    assert "CONFLICT (add/add)" in result.stdout
    clone.git("commit", "-qam", "merge with the markers in")  # the worst case: markers committed
    code, out, _err = clone.cli("doctor")
    assert code == 1
    assert "merge conflict: git left conflict markers in this file: run `foundry memory resolve`" in out
    assert "not valid YAML" not in out
    code, out, err = clone.cli("memory", "resolve")
    assert code == 0, err
    facts = assert_healthy(clone, ALL_BODIES)
    assert_links(facts)


def test_init_sets_up_git_and_a_clean_merge_regenerates_the_index(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    assert "/.foundry/memory/INDEX.md merge=foundry-index" in (repo.root / ".gitattributes").read_text()
    assert repo.git("config", "merge.foundry-index.driver").stdout.strip() == "true"
    hook = (repo.root / ".git/hooks/post-merge").read_text()
    assert "memory resolve" in hook and os.access(repo.root / ".git/hooks/post-merge", os.X_OK)
    again = repo.cli("init")
    assert again[0] == 0 and again[1] == "Foundry is already set up here; nothing changed.\n"
    repo.git("checkout", "-qb", "side")
    code, _out, err = repo.cli("memory", "retire", "fact-0001")
    assert code == 0, err
    repo.commit("retire base-cache")
    repo.git("checkout", "-q", "main")
    repo.write("Alice learned caching", "alice-1")
    result = repo.git("merge", "--no-edit", "side")  # INDEX.md differs on both sides: no conflict
    assert "CONFLICT" not in result.stdout
    assert "INDEX.md regenerated" in result.stdout + result.stderr
    assert_healthy(repo, {"base-cache", "base-queue", "alice-1"})


def test_hooks_skip_with_one_line_when_foundry_is_missing(tmp_path: Path) -> None:
    from foundry_tui.core.git_setup import hook_script
    from foundry_tui.core.program import ISOLATED_MODULE, Program

    script = tmp_path / "post-merge"
    script.write_text(hook_script("post-merge", ".", Program(("/nonexistent/python", *ISOLATED_MODULE))))
    env = {**git_env(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(["sh", str(script)], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stderr == (
        'foundry: /nonexistent/python not found; skipped the memory repair: run "foundry init" again '
        "where foundry is installed\n"
    )


def test_doctor_reports_duplicate_ids_and_renumbered_links(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    facts_dir = repo.root / FACTS
    text = (facts_dir / "fact-0002.md").read_text()
    (facts_dir / "fact-0009.md").write_text(
        text.replace("base-queue", "a copy claiming fact-0002").replace("Queues are durable", "A copy")
    )
    code, out, _err = repo.cli("doctor")
    assert code == 1
    assert (
        f"{FACTS}/fact-0009.md and {FACTS}/fact-0002.md both claim fact-0002: run `foundry memory resolve`"
        " (it renumbers one)" in out
    )
    code, out, err = repo.cli("memory", "resolve")
    assert code == 0, err
    assert f"{FACTS}/fact-0009.md claims fact-0002, which fact-0002.md holds: renumbered fact-0002 → fact-0010" in out
    assert_healthy(repo, {"base-cache", "base-queue", "a copy claiming fact-0002"})
    # A link to an id that was renumbered, the fact now holding it being younger than the link.
    (facts_dir / "fact-0011.md").write_text(
        "---\nid: fact-0011\ntype: convention\ntitle: Old link\ncreated: 2026-11-01\nsupersedes: fact-0002\n---\nold-link\n"
    )
    code, out, _err = repo.cli("doctor")
    assert "fact-0011 points at fact-0002, which a merge renumbered to fact-0010: set it to fact-0010" in out


def test_log_and_diff_read_history_as_facts(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    two_branches(repo)
    before = repo.git("rev-parse", "HEAD").stdout.strip()
    merge_and_resolve(repo, "bob")
    code, out, err = repo.cli("memory", "diff", before, "HEAD")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"memory {before}..HEAD: 4 → 7 facts"
    assert "renumbered fact-0006  Bob learned queues (was fact-0003)" in lines
    assert "renumbered fact-0007  Bob learned queues (was fact-0004)" in lines
    assert "merged     fact-0005  Queues: durable, bob-merged (from fact-0002, fact-0007)" in lines
    code, out, err = repo.cli("memory", "log", "--json")
    assert code == 0, err
    import json

    events = json.loads(out)["events"]
    assert {(e["action"], e["id"], e["author"]) for e in events} >= {
        ("created", "fact-0001", "Alice"),
        ("created", "fact-0003", "Alice"),
        ("superseded", "fact-0001", "Alice"),
        ("merged", "fact-0005", "Alice"),
        ("renumbered", "fact-0006", "Alice"),
    }
    code, out, _ = repo.cli("memory", "log", "--since", before)
    assert code == 0 and "created    fact-0001" not in out and "renumbered fact-0006" in out
    # The working tree is never touched.
    assert repo.git("status", "--porcelain").stdout == ""
    repo.git("checkout", "-q", "--detach", "HEAD~1")
    assert repo.cli("memory", "log")[0] == 0


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("memory", "diff", "HEAD", "no-such-rev"), 2, "foundry: error: revision 'no-such-rev' does not exist"),
        (("memory", "log", "--since", "nope"), 2, "foundry: error: revision 'nope' does not exist"),
    ],
)
def test_bad_revisions_are_one_line(tmp_path: Path, args: tuple[str, ...], code: int, message: str) -> None:
    repo = make_repo(tmp_path, init=False)
    got, out, err = repo.cli(*args)
    assert got == code and err.startswith(message) and err.count("\n") == 1 and out == ""


def test_not_a_repository_and_a_shallow_clone_are_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / FACTS).mkdir(parents=True)
    run = run_cli("memory", "log", "--root", str(plain), env=git_env(tmp_path))
    assert run.code == 1 and run.err.count("\n") == 1 and "is not in a git repository" in run.err
    origin = make_repo(tmp_path, init=False)
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{origin.root}", str(shallow)], env=origin.env, check=True
    )
    run = run_cli("memory", "log", "--root", str(shallow), env=git_env(tmp_path))
    assert run.code == 1 and run.err == (
        "foundry: error: this is a shallow clone: its history is incomplete; run `git fetch --unshallow` first\n"
    )


def test_both_branches_updating_one_fact_is_kept_and_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    repo.git("checkout", "-qb", "bob")
    assert repo.write("Cache TTL is 60 seconds", "bob-cache") == "fact-0003"
    repo.git("checkout", "-q", "main")
    assert repo.write("Cache TTL is 60 seconds", "alice-cache") == "fact-0003"
    out = merge_and_resolve(repo, "bob")
    assert (
        "note: fact-0003 and fact-0004 are active with one title (Cache TTL is 60 seconds): the branches disagree; "
        "keep one with `foundry memory retire ID`" in out
    )
    facts = repo.facts()
    assert set(facts) == {"base-cache", "base-queue", "alice-cache", "bob-cache"}
    assert facts["alice-cache"].supersedes == facts["bob-cache"].supersedes == "fact-0001"
    assert repo.cli("memory", "retire", "fact-0004")[0] == 0
    assert_healthy(repo, set(facts))


_words = st.text(alphabet="abcdefgh ", min_size=1, max_size=30).map(str.strip).filter(bool)


@settings(max_examples=25, deadline=None)
@given(title_a=_words, title_b=_words, body_a=_words, body_b=_words, style=st.sampled_from(["", "--diff3", "--zdiff3"]))
def test_split_conflict_recovers_both_sides_of_a_real_git_conflict(
    tmp_path_factory: pytest.TempPathFactory, title_a: str, title_b: str, body_a: str, body_b: str, style: str
) -> None:
    from foundry_tui.core.curation.resolve import split_conflict
    from foundry_tui.core.memory.model.facts import parse_fact_text, render_fact_text

    folder = tmp_path_factory.mktemp("split")
    texts = []
    for name, title, body in (("ours", title_a, body_a), ("theirs", title_b, body_b)):
        fact = Fact(id="fact-0003", type="convention", title=title, body=body, created="2026-11-30")
        texts.append(render_fact_text(fact))
        (folder / name).write_text(texts[-1])
    (folder / "base").write_text("")  # add/add: git merges against an empty base
    merged = subprocess.run(
        ["git", "merge-file", "-p", *filter(None, [style]), "ours", "base", "theirs"],
        cwd=folder,
        capture_output=True,
        text=True,
        env=git_env(folder),
    ).stdout
    ours, theirs = split_conflict(merged)
    assert (ours, theirs) == (texts[0], texts[1])
    assert parse_fact_text(ours).title == title_a and parse_fact_text(theirs).title == title_b


def test_resolve_outside_git_splits_and_relinks_its_own_renumbering(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / FACTS).mkdir(parents=True)
    (root / FACTS / "fact-0001.md").write_text(
        "---\nid: fact-0001\ntype: convention\ntitle: Ours\ncreated: 2026-11-30\n---\nours-body\n"
    )
    (root / FACTS / "fact-0002.md").write_text(
        "---\nid: fact-0002\ntype: convention\ntitle: Two\ncreated: 2026-11-30\n---\ntwo-body\n"
    )
    (root / FACTS / "fact-0001.md").write_text(
        "---\nid: fact-0001\ntype: convention\n<<<<<<< HEAD\ntitle: Ours\ncreated: 2026-11-30\n---\nours-body\n"
        "=======\ntitle: Theirs\ncreated: 2026-11-29\n---\ntheirs-body\n>>>>>>> theirs\n"
    )
    run = run_cli("memory", "resolve", "--root", str(root), env=git_env(tmp_path))
    assert run.code == 0, run.err
    assert run.out.splitlines()[:2] == [
        f"{FACTS}/fact-0001.md: two facts; fact-0001 kept (Ours)",
        f"{FACTS}/fact-0001.md: renumbered fact-0001 → fact-0003 (Theirs)",
    ]
    facts = Repo(root, tmp_path).facts()
    assert set(facts) == {"ours-body", "two-body", "theirs-body"}
    assert facts["theirs-body"].extras[RENUMBERED_FROM] == "fact-0001"
    assert run_cli("memory", "resolve", "--root", str(root), env=git_env(tmp_path)).out == (
        "memory resolve: nothing to repair (no conflict markers, no id claimed twice, INDEX.md current)\n"
    )


def test_history_screen(snap_compare: Callable[..., bool], tmp_path: Path) -> None:
    from tests.tui_helpers import make_app, snapshot_steps

    repo = make_repo(tmp_path, init=False)
    two_branches(repo)
    merge_and_resolve(repo, "bob")
    assert snap_compare(make_app(repo.root), terminal_size=(120, 40), run_before=snapshot_steps("f8"))


async def test_history_screen_outside_git_says_so_in_one_line(tmp_path: Path) -> None:
    from textual.widgets import Static

    from tests.tui_helpers import make_app, settle

    (tmp_path / FACTS).mkdir(parents=True)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f8")
        await settle(pilot)
        summary = str(app.screen.query_one("#history-summary", Static).render())
    assert summary.startswith(f"No history: {tmp_path} is not in a git repository")


async def test_tui_at_a_past_revision_is_read_only(tmp_path: Path) -> None:
    from foundry_tui.core.history.git_history import materialise
    from foundry_tui.core.paths import Layout
    from foundry_tui.tui.app import FoundryApp
    from tests.tui_helpers import settle

    repo = make_repo(tmp_path, init=False)
    first = repo.git("rev-parse", "HEAD~1").stdout.strip()  # only base-cache was written then
    repo.write("Queues are durable", "queue-v2")
    past = tmp_path / "past"
    past.mkdir()
    assert materialise(Layout(repo.root), "HEAD~2", past).commit == first[:8]
    assert sorted(p.name for p in (past / FACTS).glob("*.md")) == ["fact-0001.md"]
    assert repo.git("status", "--porcelain").stdout == ""  # the working tree is not touched
    app = FoundryApp(past, TODAY, watch=False, root_label="demo at HEAD~2", read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.check_action("write_fact", ()) is False and screen.check_action("focus_search", ()) is True
        await pilot.press("w")
        await settle(pilot)
        assert app.screen is screen  # no write form
    assert sorted(p.name for p in (past / FACTS).glob("*.md")) == ["fact-0001.md"]


def test_tui_at_an_unknown_revision_is_one_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    code, out, err = repo.cli("tui", "--at", "no-such-rev")
    assert code == 2 and out == "" and err.startswith("foundry: error: revision 'no-such-rev' does not exist")
