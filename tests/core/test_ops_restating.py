"""The door's `restating` (core/ops/facts.py): the write that restates an existing fact, which
the TUI's confirm (memory screen `c`, the curator's Stale code tab), supersede and Why-line
presets send to memory_write; on a real git repository, the refs' states read by verify."""

from __future__ import annotations

from pathlib import Path

import pytest

from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.grounding import verify_active
from foundry_tui.core.memory.writing.write import memory_write
from foundry_tui.core.ops.facts import restating
from tests.core.code_refs_helpers import blob, git, make_repo
from tests.helpers import TODAY, write


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root)


def _fields(fact: Fact) -> dict[str, object]:
    return {
        "title": fact.title,
        "body": fact.body,
        "type": fact.type,
        "scope": fact.scope,
        "tags": fact.tags,
        "confidence": fact.confidence,
        "source": fact.source,
        "expires": fact.expires,
    }


def _request(req: WriteRequest) -> dict[str, object]:
    names = ("title", "body", "type", "scope", "tags", "confidence", "source", "expires", "refs")
    return {name: getattr(req, name) for name in names}


def _stale_fact(repo: Path) -> Fact:
    """A fact with every field set, citing a file that will change, one that moves (by a symbol
    too), one that goes, and one left alone; then the code moves on."""
    project = Project(repo)
    write(
        project,
        "Payments hold the ledger and the hook",
        "See `payments/ledger.py`, `README.md` and `payments/webhook.py`.",
        type="domain",
        scope="module:payments",
        tags=["payments", "ledger"],
        confidence="high",
        source="code",
        expires="2030-01-01",
        refs=["payments/webhook.py::Webhook", ".gitignore"],
    )
    git(repo, "mv", "payments/webhook.py", "payments/hooks.py")
    (repo / "README.md").write_text("changed\n")
    git(repo, "rm", "-q", "payments/ledger.py")
    git(repo, "commit", "-q", "-am", "the code moves on")
    project.sync()
    fact = project.store.get("fact-0001")
    assert fact is not None
    return fact


def test_a_confirm_restates_the_fact_with_its_refs_as_they_are_now(repo: Path) -> None:
    fact = _stale_fact(repo)
    project = Project(repo)
    check = verify_active(project, TODAY).checks["fact-0001"]
    assert [s.line() for s in check.refs] == [
        "moved payments/webhook.py::Webhook → payments/hooks.py",
        "fresh .gitignore",
        "gone payments/ledger.py",
        "changed README.md",
        "moved payments/webhook.py → payments/hooks.py",
    ]
    assert _request(restating(fact, check=check)) == {
        **_fields(fact),
        # a moved ref at its new path (its symbol kept), a fresh or changed one as it is, a gone one dropped
        "refs": ["payments/hooks.py::Webhook", ".gitignore", "README.md", "payments/hooks.py"],
    }
    assert _fields(fact) == {
        "title": "Payments hold the ledger and the hook",
        "body": "See `payments/ledger.py`, `README.md` and `payments/webhook.py`.",
        "type": "domain",
        "scope": "module:payments",
        "tags": ("payments", "ledger"),
        "confidence": "high",
        "source": "code",
        "expires": "2030-01-01",
    }
    # Written, it is a new version whose refs are fresh again, the gone one no longer cited.
    result = memory_write(project, restating(fact, check=check), TODAY)
    assert result.text().splitlines()[0] == "updated: fact-0002 (supersedes fact-0001)"
    again = verify_active(project, TODAY).checks["fact-0002"]
    assert [s.line() for s in again.refs] == [
        "fresh payments/hooks.py::Webhook",
        "fresh .gitignore",
        "fresh README.md",
        "fresh payments/hooks.py",
    ]
    assert again.refs[3].ref.oid == blob(repo, "payments/hooks.py")


def test_a_supersede_preset_leaves_the_refs_out_and_a_body_may_be_given(repo: Path) -> None:
    fact = _stale_fact(repo)
    assert _request(restating(fact)) == {**_fields(fact), "refs": None}  # memory_write carries the fact's own
    why = restating(fact, body=f"{fact.body}\n\n**Why:** ")
    assert _request(why) == {**_fields(fact), "body": f"{fact.body}\n\n**Why:** ", "refs": None}
