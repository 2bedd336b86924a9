"""Issue 28, items 1 and 7: what `foundry init` writes starts the installed program by its
absolute path, with no PATH, and nothing git or an agent runs imports the work tree's code.

Real git repositories, real subprocesses; the hostile branch adds a top-level `foundry_tui/`
package (and a sitecustomize.py) that leave a marker file if anything imports them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from foundry_tui.core import program as program_module
from foundry_tui.core.program import ISOLATED_MODULE, SCRIPT_PEEK_BYTES, installed_program
from tests.helpers import REPO, run_cli
from tests.test_team_git import FACTS, Repo, assert_healthy, git_env, make_repo

CLEAN_PATH = "/usr/bin:/bin"  # git and sh, and no foundry
INIT_MESSAGE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}
SESSION_START = {"hook_event_name": "SessionStart", "source": "startup"}


def plant_hostile_package(root: Path, marker: Path) -> None:
    """A top-level foundry_tui/ (and sitecustomize.py) that write `marker` when imported or run."""
    code = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('the work tree ran')\n"
    (root / "foundry_tui").mkdir()
    for name in ("__init__.py", "__main__.py"):
        (root / "foundry_tui" / name).write_text(code)
    (root / "sitecustomize.py").write_text(code)
    (root / "usercustomize.py").write_text(code)


def foundry(repo: Repo, outside: Path, *args: str) -> str:
    """The CLI on `repo`, started from `outside` its work tree (python -m puts the cwd on sys.path)."""
    run = run_cli(*args, "--root", str(repo.root), env=repo.env, cwd=outside)
    assert run.code == 0, run.err
    return run.out


def write_fact(repo: Repo, outside: Path, title: str, body: str) -> None:
    foundry(repo, outside, "memory", "write", "--title", title, "--body", body, "--type", "convention")
    repo.commit(f"fact: {body}")


def test_merge_rebase_and_pull_never_run_the_work_trees_foundry_tui(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    origin = make_repo(tmp_path)  # `foundry init`: .gitattributes, the driver, post-merge and post-rewrite
    origin.env["PATH"] = CLEAN_PATH
    origin.git("checkout", "-qb", "side")
    plant_hostile_package(origin.root, marker)
    foundry(origin, tmp_path, "memory", "retire", "fact-0001")
    origin.commit("retire base-cache, add a foundry_tui package")
    origin.git("checkout", "-q", "main")
    write_fact(origin, tmp_path, "Alice learned caching", "alice-1")

    merged = origin.git("merge", "--no-edit", "side")  # INDEX.md differs on both sides: the driver keeps ours
    assert (origin.root / "foundry_tui/__init__.py").exists() and not marker.exists()
    assert "INDEX.md regenerated" in merged.stdout + merged.stderr  # post-merge ran foundry memory resolve
    assert_healthy(origin, {"base-cache", "base-queue", "alice-1"})  # INDEX.md current again
    origin.commit("the regenerated index")

    origin.git("checkout", "-qb", "topic")
    foundry(origin, tmp_path, "memory", "retire", "fact-0002")  # no new id: the rebase has no conflict
    origin.commit("retire base-queue")
    origin.git("checkout", "-q", "main")
    write_fact(origin, tmp_path, "Main learned logging", "main-1")
    origin.git("checkout", "-q", "topic")
    rebased = origin.git("rebase", "main")  # post-rewrite
    assert not marker.exists()
    assert "INDEX.md regenerated" in rebased.stdout + rebased.stderr
    assert_healthy(origin, {"base-cache", "base-queue", "alice-1", "main-1"})
    origin.git("checkout", "-q", "--", ".")  # the index the hook regenerated: not this test's concern
    origin.git("checkout", "-q", "main")

    origin.git("clone", "-q", str(origin.root), str(tmp_path / "clone"))
    clone = Repo(tmp_path / "clone", tmp_path)
    clone.env["PATH"] = CLEAN_PATH
    clone.git("config", "user.name", "Bob")
    clone.git("config", "user.email", "bob@example.com")
    foundry(clone, tmp_path, "init")  # hooks and driver config are per clone
    foundry(clone, tmp_path, "memory", "retire", "fact-0003")
    clone.commit("retire alice-1")
    write_fact(origin, tmp_path, "Alice learned metrics", "alice-2")
    pulled = clone.git("pull", "--no-rebase", "--no-edit")
    assert not marker.exists()
    assert "INDEX.md regenerated" in pulled.stdout + pulled.stderr
    assert_healthy(clone, {"base-cache", "base-queue", "alice-1", "main-1", "alice-2"})


def _interpreter_without_script(tmp_path: Path) -> Path:
    """A virtualenv that imports this checkout (and its dependencies) through a .pth file and
    has no `foundry` console script: init must fall back to `python -I -m foundry_tui`."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site_dir = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    here = dict.fromkeys([str(REPO), sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    (Path(site_dir) / "foundry_dev.pth").write_text("".join(f"{line}\n" for line in here))
    assert not (env_dir / "bin" / "foundry").exists()
    return python


def _clean_env(home: Path) -> dict[str, str]:
    return {**git_env(home), "PATH": CLEAN_PATH}


@pytest.mark.parametrize("form", ["console script", "isolated module"])
def test_init_without_foundry_on_path_writes_commands_that_start(tmp_path: Path, form: str) -> None:
    if form == "console script":
        python = Path(sys.executable)
        script = python.parent / "foundry"
        assert script.exists(), "the test virtualenv has its console script (pip install -e .)"
        words = [str(script.absolute())]
    else:
        python = _interpreter_without_script(tmp_path)
        words = [str(python), *ISOLATED_MODULE]
    shown = " ".join(words)
    project = tmp_path / "project"
    project.mkdir()
    env = _clean_env(tmp_path)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, env=env, check=True)
    init = subprocess.run(
        [str(python), "-m", "foundry_tui", "init", "--root", str(project)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert init.returncode == 0, init.stdout + init.stderr
    assert f'created   .mcp.json (server "foundry": {shown} mcp)\n' in init.stdout
    assert f"created   .claude/settings.json (+4 hooks: {shown} hook <event>)\n" in init.stdout
    assert f"created   git hook post-merge (runs {shown} memory resolve)\n" in init.stdout
    assert f"created   git hook post-rewrite (runs {shown} memory resolve)\n" in init.stdout

    marker = tmp_path / "marker"
    plant_hostile_package(project, marker)  # what a merged branch could leave in the work tree
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["foundry"]
    assert [entry["command"], *entry["args"]] == [*words, "mcp"]
    server = subprocess.run(
        [entry["command"], *entry["args"]],
        input=json.dumps(INIT_MESSAGE) + "\n",
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(server.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "foundry", server.stderr

    settings = json.loads((project / ".claude/settings.json").read_text())["hooks"]
    command = settings["SessionStart"][0]["hooks"][0]["command"]
    assert command == f"{shown} hook session-start"
    hook = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps({**SESSION_START, "cwd": str(project)}),
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert hook.returncode == 0, hook.stderr
    assert json.loads(hook.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"

    post_merge = subprocess.run(
        [str(project / ".git/hooks/post-merge"), "0"], cwd=project, env=env, capture_output=True, text=True
    )
    assert post_merge.returncode == 0 and "not found" not in post_merge.stderr, post_merge.stderr
    assert not marker.exists()


def test_a_second_init_updates_foundrys_bare_entries_and_keeps_the_rest(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "github": {"command": "gh-mcp"},
                    "foundry": {"type": "stdio", "command": "foundry", "args": ["mcp"], "env": {"LEVEL": "1"}},
                }
            }
        )
    )
    (tmp_path / ".claude").mkdir()
    bare = [
        {"hooks": [{"type": "command", "command": "foundry hook session-start"}]},
        {"hooks": [{"type": "command", "command": "foundry hook user-prompt-submit", "timeout": 5}]},
        {
            "matcher": "Bash",
            "hooks": [
                {"type": "command", "command": "lint-guard"},
                {"type": "command", "command": "foundry hook pre-tool-use"},
            ],
        },
    ]
    events = ["SessionStart", "UserPromptSubmit", "PreToolUse"]
    (tmp_path / ".claude/settings.json").write_text(
        json.dumps(
            {"permissions": {"allow": ["Bash(npm test)"]}, "hooks": dict(zip(events, [[g] for g in bare], strict=True))}
        )
    )
    foundry = installed_program().shell()
    run = run_cli("init", cwd=tmp_path)
    assert run.code == 0, run.out + run.err
    assert f'updated   .mcp.json (server "foundry": {foundry} mcp)\n' in run.out
    # A project set up before issue 30 gets the after-edit hook added beside the three it had.
    assert f"merged    .claude/settings.json (+1 hook, 3 hooks updated: {foundry} hook <event>)\n" in run.out
    servers = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]
    words = installed_program().command("mcp")
    assert servers == {
        "github": {"command": "gh-mcp"},
        "foundry": {"type": "stdio", "command": words[0], "args": words[1:], "env": {"LEVEL": "1"}},
    }
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(npm test)"]}
    assert settings["hooks"] == {
        "SessionStart": [{"hooks": [{"type": "command", "command": f"{foundry} hook session-start"}]}],
        "UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": f"{foundry} hook user-prompt-submit", "timeout": 5}]}
        ],
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "lint-guard"},
                    {"type": "command", "command": f"{foundry} hook pre-tool-use"},
                ],
            }
        ],
        "PostToolUse": [
            {
                "matcher": "Edit|MultiEdit|Write|NotebookEdit",
                "hooks": [{"type": "command", "command": f"{foundry} hook post-tool-use"}],
            }
        ],
    }
    again = run_cli("init", cwd=tmp_path)
    assert again.code == 0 and again.out == "Foundry is already set up here; nothing changed.\n"


def test_an_entry_whose_program_is_there_is_kept(tmp_path: Path) -> None:
    """Another installation's foundry, by a path that exists: kept (no churn between clones)."""
    other = tmp_path / "opt" / "foundry"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\nexec true\n")
    other.chmod(0o755)
    project = tmp_path / "project"
    project.mkdir()
    text = json.dumps({"mcpServers": {"foundry": {"type": "stdio", "command": str(other), "args": ["mcp"]}}})
    (project / ".mcp.json").write_text(text)
    run = run_cli("init", cwd=project)
    assert run.code == 0 and ".mcp.json" not in run.out
    assert (project / ".mcp.json").read_text() == text


def _doctor(project: Path, path: str) -> tuple[int, list[str]]:
    """doctor's exit code, and its `commands` lines (the check and its problems)."""
    run = run_cli("doctor", "--root", str(project), env={"PATH": path}, cwd=project)
    lines = run.out.splitlines()
    at = [i for i, line in enumerate(lines) if line[6:].startswith("commands: ")]
    if not at:
        return run.code, []
    following = lines[at[0] + 1 :]
    problems = following[: next((i for i, line in enumerate(following) if not line.startswith(" ")), len(following))]
    return run.code, [lines[at[0]], *problems]


MISSING_ADVICE = "run `foundry init` again with the installed foundry"


def test_doctor_fails_when_a_configured_command_cannot_be_found(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert run_cli("init", cwd=tmp_path).code == 0
    passing = "ok    commands: 5 commands for agents and 2 git hooks can start foundry"
    assert _doctor(tmp_path, CLEAN_PATH) == (0, [passing])

    mcp = tmp_path / ".mcp.json"
    mcp.write_text(
        json.dumps({"mcpServers": {"foundry": {"type": "stdio", "command": "/gone/bin/foundry", "args": ["mcp"]}}})
    )
    hook = tmp_path / ".git/hooks/post-rewrite"
    program = installed_program().shell()
    hook.write_text(hook.read_text().replace(f"  {program} memory", "  /gone/python -I -m foundry_tui memory"))
    assert _doctor(tmp_path, CLEAN_PATH) == (
        1,
        [
            "FAIL  commands: 2 commands cannot be found",
            '        - .mcp.json: server "foundry" runs `/gone/bin/foundry mcp`, and /gone/bin/foundry cannot be found: '
            + MISSING_ADVICE,
            "        - .git/hooks/post-rewrite: the git hook runs `/gone/python -I -m foundry_tui memory resolve --root .`, "
            "and /gone/python cannot be found: " + MISSING_ADVICE,
        ],
    )

    # A bare `foundry` is looked up on PATH, as the agent's shell does.
    run_cli("init", cwd=tmp_path)  # puts back the hook
    mcp.write_text(json.dumps({"mcpServers": {"foundry": {"type": "stdio", "command": "foundry", "args": ["mcp"]}}}))
    assert _doctor(tmp_path, CLEAN_PATH) == (
        1,
        [
            "FAIL  commands: 1 command cannot be found",
            '        - .mcp.json: server "foundry" runs `foundry mcp`, and foundry cannot be found on PATH: '
            + MISSING_ADVICE,
        ],
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "foundry").symlink_to(Path(sys.executable).parent / "foundry")
    assert _doctor(tmp_path, f"{bin_dir}:{CLEAN_PATH}") == (0, [passing])


def test_doctor_says_nothing_about_commands_where_none_are_configured(tmp_path: Path) -> None:
    (tmp_path / FACTS).mkdir(parents=True)
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"github": {"command": "/gone/gh-mcp"}}}))
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text('{"hooks": {"SessionStart": [{"hooks": [{"command": "gone"}]}]}}')
    assert _doctor(tmp_path, CLEAN_PATH)[1] == []  # (it fails on the missing INDEX.md)


def _fake_script(folder: Path, text: str, mode: int = 0o755) -> None:
    folder.mkdir()
    (folder / "foundry").write_text(text)
    (folder / "foundry").chmod(mode)


def test_only_an_executable_script_naming_foundry_tui_early_is_chosen(tmp_path: Path) -> None:
    isolated = (sys.executable, *ISOLATED_MODULE)
    _fake_script(tmp_path / "ours", "#!/bin/sh\n# from foundry_tui.launcher import entry_point\n")
    assert installed_program(script_dirs=[tmp_path / "ours"]).words == (str(tmp_path / "ours" / "foundry"),)
    _fake_script(tmp_path / "late", "#!/bin/sh\n" + "#" * SCRIPT_PEEK_BYTES + "\n# foundry_tui\n")
    _fake_script(tmp_path / "other", "#!/bin/sh\n# someone else's foundry\n")
    _fake_script(tmp_path / "plain", "# foundry_tui\n", mode=0o644)
    chosen = installed_program(script_dirs=[tmp_path / "late", tmp_path / "other", tmp_path / "plain"])
    assert chosen.words == isolated and chosen.problem is None


def test_an_interpreter_that_cannot_import_foundry_is_one_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = tmp_path / "python"
    slow.write_text("#!/bin/sh\nsleep 5\n")
    slow.chmod(0o755)
    monkeypatch.setattr(program_module, "START_CHECK_TIMEOUT_SECONDS", 0.5)
    chosen = installed_program(str(slow), script_dirs=[])
    assert chosen.words == (str(slow), *ISOLATED_MODULE)
    assert chosen.problem == (
        f"{slow} cannot import foundry_tui in isolated mode (-I) and no `foundry` script was found beside it, "
        "so the commands written may not start: install foundry-tui (pip install) and run `foundry init` again"
    )
    assert installed_program("/gone/python", script_dirs=[]).problem is not None


def test_python_dash_m_foundry_tui_runs_isolated() -> None:
    proc = subprocess.run(
        [sys.executable, *ISOLATED_MODULE, "--version"], capture_output=True, text=True, cwd="/", timeout=60
    )
    assert proc.returncode == 0 and proc.stdout.startswith("foundry "), proc.stderr
    assert os.path.isfile(REPO / "foundry_tui" / "__main__.py")
