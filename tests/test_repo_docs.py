"""The guides stay true: CONTRIBUTING.md names modules that exist and the tox environments
that run, the design references point into the repository, pre-commit runs ruff."""

from __future__ import annotations

import configparser
import re

import yaml

from .helpers import REPO

CONTRIBUTING = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_contributing_names_every_tox_environment() -> None:
    tox = configparser.ConfigParser()
    tox.read(REPO / "tox.ini")
    envs = [env.strip() for env in tox["tox"]["envlist"].split(",")]
    assert envs
    for env in envs:
        assert f"| `{env}` |" in CONTRIBUTING


def test_every_file_contributing_names_exists() -> None:
    package = REPO / "foundry_tui"
    named = set(re.findall(r"`([\w./]+\.(?:py|md|tcss|ini|toml|yaml))`", CONTRIBUTING))
    assert len(named) > 30
    # A row may name siblings bare ("core/curation/neardup.py, merge.py"): look in every room.
    places = [REPO, package, REPO / "tests", REPO / "benchmarks"]
    places += [
        package / room
        for room in (
            "core",
            "core/memory",
            "core/memory/model",
            "core/memory/storage",
            "core/memory/search",
            "core/memory/reports",
            "core/memory/writing",
            "core/history",
            "core/curation",
            "core/artefacts",
            "core/ops",
            "core/trust",
            "core/sessions",
            "mcp",
            "tui",
            "tui/screens",
            "tui/widgets",
        )
    ]
    missing = [name for name in sorted(named) if not any((place / name).is_file() for place in places)]
    assert missing == []


def test_no_reference_to_a_design_page_outside_the_repository() -> None:
    files = [REPO / "README.md", REPO / "pyproject.toml", REPO / "CONTRIBUTING.md"]
    files += [p for p in (REPO / "docs").rglob("*.md")]
    files += [p for p in (REPO / "foundry_tui").rglob("*.py")]
    files += [p for p in (REPO / "tests").rglob("*.py") if p.name != "test_repo_docs.py"]
    offenders = [str(p.relative_to(REPO)) for p in files if "DESIGN.md" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_pre_commit_runs_ruff_lint_and_format() -> None:
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = {hook["id"] for repo in config["repos"] for hook in repo["hooks"]}
    assert {"ruff", "ruff-format"} <= hooks
