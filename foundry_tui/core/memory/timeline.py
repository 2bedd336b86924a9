"""The memory over its git history: INDEX.md's tokens and the active facts by type, one
point per day that changed them, read from git objects (never the working tree).

One `git log --first-parent --raw` walks the history oldest first, keeping which blob
each fact file and INDEX.md is at; the day's last commit is the day's point. A blob is
read and parsed once ever: what it says (a fact's id, type, expiry and the ids it
replaces; an index's tokens) is cached by blob id, and each point by commit id, in one
JSON file beside the parse cache (git objects never change, so the cache is never
stale; a damaged one is dropped). `FOUNDRY_NO_CACHE=1` turns it off.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foundry_tui.core.memory.cache import cache_file
from foundry_tui.core.memory.facts import FactFileError, parse_fact_text
from foundry_tui.core.memory.git_history import GitError, Repo, run_git
from foundry_tui.core.paths import Layout
from foundry_tui.core.tokens import estimate_tokens

CACHE_VERSION = 1
# (id, type, expires, replaced ids) of a fact blob; None for a file that does not load.
BlobSummary = tuple[str, str, str | None, list[str]] | None


@dataclass
class TimelinePoint:
    """The memory at the last commit of one day."""

    date: str
    commit: str
    index_tokens: int | None  # None: no INDEX.md at that commit
    active: dict[str, int]  # fact type → active facts of that type

    def to_dict(self) -> dict[str, Any]:
        return {"date": self.date, "commit": self.commit, "index_tokens": self.index_tokens, "active": self.active}


@dataclass
class Timeline:
    points: list[TimelinePoint] = field(default_factory=list)
    note: str = ""  # why there are no points, when there are none (not a repository, no commit yet)
    commits: int = 0  # commits that changed the memory


@dataclass
class _Commit:
    sha: str
    date: str
    changes: list[tuple[str, str]]  # (path, new blob id; the zero id for a deletion)


ZERO = "0" * 40


def memory_timeline(layout: Layout) -> Timeline:
    """The memory's points over its first-parent history; a project outside git (or with
    no commit yet) gets an empty timeline with a note saying so.

    The walk itself is cached too (the day ends met, and the blobs at HEAD): with HEAD
    unchanged nothing is walked again; with new commits on top, only they are."""
    try:
        repo = Repo(layout)
        head = run_git(repo.top, "rev-parse", "--verify", "--quiet", "HEAD", check=False).stdout.decode().strip()
    except GitError as exc:
        outside = "not in a git repository" in str(exc)
        return Timeline(note="the project is not in a git repository" if outside else str(exc))
    if not head:
        return Timeline(note="the repository has no commit yet")
    cache = _Cache.load(layout.root)
    paths = [repo.facts_path, repo.index_path]
    walk = cache.walk if cache.walk.get("paths") == paths else {}
    if walk.get("head") == head:
        ends = [_Commit(sha, date, []) for sha, date in walk["ends"]]
        count = int(walk["commits"])
    else:
        resume = bool(walk) and _is_ancestor(repo, str(walk["head"]), head)
        state: dict[str, str] = dict(walk["state"]) if resume else {}
        index_blob: str | None = walk["index"] if resume else None
        ends = [_Commit(sha, date, []) for sha, date in walk["ends"]] if resume else []
        count = int(walk["commits"]) if resume else 0
        commits = _log(repo, str(walk["head"]) if resume else None)
        if commits and ends and ends[-1].date == commits[0].date:
            ends.pop()  # that day goes on: its point moves to its new last commit
        facts_prefix = repo.facts_path + "/"
        pending: list[tuple[_Commit, dict[str, str], str | None]] = []
        for number, commit in enumerate(commits):
            for path, sha in commit.changes:
                if path == repo.index_path:
                    index_blob = None if sha == ZERO else sha
                elif path.startswith(facts_prefix) and _is_fact_file(path[len(facts_prefix) :]):
                    if sha == ZERO:
                        state.pop(path, None)
                    else:
                        state[path] = sha
            if number + 1 == len(commits) or commits[number + 1].date != commit.date:
                ends.append(commit)
                if commit.sha not in cache.points:
                    pending.append((commit, dict(state), index_blob))
        count += len(commits)
        if pending:
            _fill(repo, cache, pending)
        cache.walk = {
            "paths": paths,
            "head": head,
            "ends": [[c.sha, c.date] for c in ends],
            "state": state,
            "index": index_blob,
            "commits": count,
        }
        cache.save()
    points = []
    for commit in ends:
        tokens, active = cache.points[commit.sha]
        points.append(TimelinePoint(commit.date, commit.sha, tokens, dict(active)))
    return Timeline(points, "" if points else "no commit has changed the memory yet", count)


def _valid_walk(walk: object, points: dict[str, Any]) -> dict[str, Any]:
    """The cached walk if it is whole (every day end with its point), else none."""
    if not isinstance(walk, dict):
        return {}
    ends, state = walk.get("ends"), walk.get("state")
    whole = (
        isinstance(walk.get("head"), str)
        and isinstance(walk.get("commits"), int)
        and isinstance(walk.get("paths"), list)
        and isinstance(state, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in state.items())
        and (walk.get("index") is None or isinstance(walk.get("index"), str))
        and isinstance(ends, list)
        and all(isinstance(e, list) and len(e) == 2 and e[0] in points and isinstance(e[1], str) for e in ends)
    )
    return walk if whole else {}


def _is_ancestor(repo: Repo, old: str, new: str) -> bool:
    return run_git(repo.top, "merge-base", "--is-ancestor", old, new, check=False).returncode == 0


def _is_fact_file(name: str) -> bool:
    return "/" not in name and name.endswith(".md") and not name.startswith(".")


def _log(repo: Repo, since: str | None) -> list[_Commit]:
    out = repo.git(
        "log", "--first-parent", "--reverse", "--raw", "--no-renames", "--no-abbrev", "-z",
        "--format=%x01%H %cs", f"{since}..HEAD" if since else "HEAD", "--", repo.facts_path + "/", repo.index_path,
    )  # fmt: skip
    commits = []
    for chunk in out.split("\x01")[1:]:
        fields = chunk.split("\0")
        sha, _, date = fields[0].strip().partition(" ")
        changes = []
        rest = fields[1:]
        for i, raw in enumerate(rest):
            raw = raw.strip("\n")
            if raw.startswith(":") and i + 1 < len(rest):
                parts = raw[1:].split()  # old mode, new mode, old blob, new blob, status
                if len(parts) >= 4:
                    changes.append((rest[i + 1], parts[3]))
        commits.append(_Commit(sha, date.strip(), changes))
    return commits


def _fill(repo: Repo, cache: _Cache, pending: list[tuple[_Commit, dict[str, str], str | None]]) -> None:
    """Read the blobs the uncached points need (once each), then compute those points."""
    fact_shas = {sha for _c, state, _i in pending for sha in state.values() if sha not in cache.blobs}
    index_shas = {i for _c, _s, i in pending if i is not None and i not in cache.index}
    contents = repo.read_blobs(sorted(fact_shas | index_shas))
    for sha in fact_shas:
        cache.blobs[sha] = _summary(contents.get(sha))
    for sha in index_shas:
        data = contents.get(sha)
        cache.index[sha] = estimate_tokens(data.decode("utf-8", "replace")) if data is not None else 0
    for commit, state, index in pending:
        summaries = [cache.blobs.get(sha) for sha in state.values()]
        cache.points[commit.sha] = (cache.index.get(index) if index else None, _active_by_type(summaries, commit.date))


def _summary(data: bytes | None) -> BlobSummary:
    if data is None:
        return None
    try:
        fact = parse_fact_text(data.decode("utf-8"), None)
    except (FactFileError, UnicodeDecodeError):
        return None
    return (fact.id, fact.type, fact.expires, list(fact.replaced_ids()))


def _active_by_type(summaries: list[BlobSummary], day: str) -> dict[str, int]:
    """Active on `day`, as the store decides it: not expired before that day, not replaced."""
    loaded = [s for s in summaries if s is not None]
    replaced = {old for fact_id, _t, _e, olds in loaded for old in olds if old != fact_id}
    counts = Counter(
        ftype
        for fact_id, ftype, expires, _o in loaded
        if fact_id not in replaced and (expires is None or expires >= day)
    )
    return dict(sorted(counts.items()))


class _Cache:
    """Blob summaries, index tokens and points, by git object id."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.blobs: dict[str, BlobSummary] = {}
        self.index: dict[str, int] = {}
        self.points: dict[str, tuple[int | None, dict[str, int]]] = {}
        self.walk: dict[str, Any] = {}  # the last walk: its HEAD, day ends, blobs at HEAD (memory_timeline)

    @classmethod
    def load(cls, root: Path) -> _Cache:
        snapshot = cache_file(root)
        cache = cls(snapshot.with_name(snapshot.name.replace("facts-", "timeline-", 1) + ".json") if snapshot else None)
        if cache.path is None:
            return cache
        try:
            data = json.loads(cache.path.read_text(encoding="utf-8"))
            if data.get("version") == CACHE_VERSION:
                cache.blobs = {k: (tuple(v) if v is not None else None) for k, v in data["blobs"].items()}
                cache.index = {k: int(v) for k, v in data["index"].items()}
                cache.points = {k: (v[0], dict(v[1])) for k, v in data["points"].items()}
                walk = data.get("walk", {})
                cache.walk = (
                    walk if isinstance(walk, dict) and all(e[0] in cache.points for e in walk.get("ends", [])) else {}
                )
        except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
            cache.blobs, cache.index, cache.points, cache.walk = {}, {}, {}, {}  # missing or damaged: start again
        return cache

    def save(self) -> None:
        if self.path is None:
            return
        data = {
            "version": CACHE_VERSION,
            "blobs": self.blobs,
            "index": self.index,
            "points": self.points,
            "walk": self.walk,
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            temp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
            os.replace(temp, self.path)
        except OSError:
            pass  # a cache that cannot be written only costs time
