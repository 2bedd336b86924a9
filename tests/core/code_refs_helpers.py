"""What the tests of facts grounded in the code share: git run for real in a repository
with a little code to cite (`make_repo`, each module's `repo` fixture), and the refs and states a project holds."""

from __future__ import annotations

import subprocess
from pathlib import Path

from foundry_tui.core.code_refs import refs_of
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.grounding import verify_active
from tests.helpers import TODAY


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def blob(root: Path, path: str) -> str:
    return git(root, "hash-object", path).strip()


def make_repo(root: Path) -> Path:
    git(root, "init", "-q", "-b", "main")
    (root / "payments").mkdir()
    (root / "payments" / "webhook.py").write_text("def retry():\n    return 3\n\n\nclass Webhook:\n    pass\n")
    (root / "payments" / "ledger.py").write_text("LEDGER = 1\n")
    (root / "README.md").write_text("hello\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("x = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


def fact_refs(project: Project, fact_id: str) -> list[str]:
    project.sync()
    fact = project.store.get(fact_id)
    assert fact is not None
    return [ref.item for ref in refs_of(fact.extras)]


def states(project: Project) -> dict[str, list[str]]:
    verification = verify_active(project, TODAY)
    return {fid: [s.line() for s in check.refs] for fid, check in verification.checks.items()}
