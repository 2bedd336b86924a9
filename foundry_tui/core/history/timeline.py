"""The memory over its git history: INDEX.md's tokens and the active facts by type, one
point per day that changed them, read from git objects (never the working tree).

The first-parent commits are listed without a path filter (`git log -- paths` would
compare the facts folder file by file at every commit: most of the time of a first
read), and one `git cat-file --batch` reads the memory folder's tree at each of them:
its entries give the ids of the facts folder's tree and of INDEX.md, and a commit
changed the memory when they differ from its first parent's. The day's last such commit
is the day's point. One `git diff-tree --stdin` compares the facts trees of consecutive
day ends (365 tree diffs for a year, not one per commit), which says which blob each
fact file is at on each day; one `git cat-file --batch` reads the blobs. The active facts
by type are kept up to date as files come and go (_ActiveCounter), not counted anew at
each day end. A blob is read and parsed once ever: what it says (a fact's id, type,
expiry and the ids it replaces; an index's tokens) is cached by blob id, and each point
by commit id, in one JSON file beside the parse cache (git objects never change, so the
cache is never stale; a damaged one is dropped). `FOUNDRY_NO_CACHE=1` turns it off.
tests/test_timeline.py holds the points equal to the first reading (`git log --raw` on
the memory's paths, every commit's diff applied, every day end's facts parsed and
counted).
"""

from __future__ import annotations

import itertools
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foundry_tui.core.history.git_history import GitError, Repo, run_git, run_git_split, split_evenly
from foundry_tui.core.memory.model.facts import FactFileError, parse_fact_text
from foundry_tui.core.memory.storage.cache import cache_file
from foundry_tui.core.paths import MAX_FILE_BYTES, Layout
from foundry_tui.core.tokens import estimate_tokens

if TYPE_CHECKING:
    from collections.abc import Container

    from foundry_tui.core.json_types import JSONObject

CACHE_VERSION = 2  # 2: the walk keeps the facts folder's tree at its HEAD
# (id, type, expires, replaced ids) of a fact blob; None for a file that does not load.
BlobSummary = tuple[str, str, str | None, list[str]] | None


@dataclass
class TimelinePoint:
    """The memory at the last commit of one day."""

    date: str
    commit: str
    index_tokens: int | None  # None: no INDEX.md at that commit
    active: dict[str, int]  # fact type → active facts of that type

    def to_dict(self) -> JSONObject:
        return {
            "date": self.date,
            "commit": self.commit,
            "index_tokens": self.index_tokens,
            "active": dict(self.active),
        }


@dataclass
class Timeline:
    points: list[TimelinePoint] = field(default_factory=list)
    note: str = ""  # why there are no points, when there are none (not a repository, no commit yet)
    commits: int = 0  # commits that changed the memory


@dataclass
class _Commit:
    sha: str
    date: str
    facts: str | None  # the facts folder's tree id (None: no facts folder)
    index: str | None  # INDEX.md's blob id (None: no INDEX.md)


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
        ends = [(str(sha), str(date)) for sha, date in walk["ends"]]
        count = int(walk["commits"])
    else:
        ends, count = _walk(repo, cache, walk, head)
        cache.save()
    points = []
    for sha, date in ends:
        tokens, active = cache.points[sha]
        points.append(TimelinePoint(date, sha, tokens, dict(active)))
    return Timeline(points, "" if points else "no commit has changed the memory yet", count)


# walk: _Cache.walk (Any: the cached JSON, checked by _valid_walk)
def _walk(repo: Repo, cache: _Cache, walk: dict[str, Any], head: str) -> tuple[list[tuple[str, str]], int]:
    """Walk the commits since the cached walk's HEAD (all of them when there is none, or
    when history was rewritten), compute the points not cached yet, and cache the walk.

    Only each day's last commit matters, so git compares the facts trees of consecutive
    day ends (one `git diff-tree --stdin`) rather than every commit with its parent; the
    blobs those states hold are read once each (one `git cat-file --batch`)."""
    resume = bool(walk) and _is_ancestor(repo, str(walk["head"]), head)
    state: dict[str, str] = dict(walk["state"]) if resume else {}
    index_blob: str | None = walk["index"] if resume else None
    facts_tree: str | None = walk["facts"] if resume else None
    ends = [(str(sha), str(date)) for sha, date in walk["ends"]] if resume else []
    count = int(walk["commits"]) if resume else 0
    commits = _log(repo, str(walk["head"]) if resume else None, head)
    if commits and ends and ends[-1][1] == commits[0].date:
        ends.pop()  # that day goes on: its point moves to its new last commit
    count += len(commits)
    new_ends = [c for n, c in enumerate(commits) if n + 1 == len(commits) or commits[n + 1].date != c.date]
    if new_ends:
        empty = _empty_tree(head)
        trees = [facts_tree or empty, *(c.facts or empty for c in new_ends)]
        changes = _changes(repo, trees)
        facts_prefix = repo.facts_path + "/"
        # What each day end changed: the fact files (path → blob, None for gone), and its INDEX.md.
        steps: list[tuple[_Commit, dict[str, str | None], str | None]] = []
        for end, changed in zip(new_ends, changes, strict=True):
            facts: dict[str, str | None] = {}
            for name, sha in changed:
                if _is_fact_file(name):
                    facts[facts_prefix + name] = None if _is_zero(sha) else sha
            steps.append((end, facts, end.index))
        if any(end.sha not in cache.points for end, _f, _i in steps):
            _fill(repo, cache, state, steps)
        for _end, facts, _i in steps:
            for path, blob in facts.items():
                if blob is None:
                    state.pop(path, None)
                else:
                    state[path] = blob
        ends += [(c.sha, c.date) for c in new_ends]
        index_blob, facts_tree = new_ends[-1].index, new_ends[-1].facts
    cache.walk = {
        "paths": [repo.facts_path, repo.index_path],
        "head": head,
        "ends": [list(e) for e in ends],
        "state": state,
        "index": index_blob,
        "facts": facts_tree,
        "commits": count,
    }
    return ends, count


def _is_zero(sha: str) -> bool:
    return not sha.strip("0")


def _empty_tree(head: str) -> str:
    """The empty tree's id in this repository's hash (SHA-1, or SHA-256: 64 digits); git knows it without storing it."""
    import hashlib

    return hashlib.new("sha256" if len(head) == 64 else "sha1", b"tree 0\0").hexdigest()


# Any: _Cache.walk, the cached JSON this checks
def _valid_walk(walk: object, points: Container[str]) -> dict[str, Any]:
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
        and (walk.get("facts") is None or isinstance(walk.get("facts"), str))
        and isinstance(ends, list)
        and all(isinstance(e, list) and len(e) == 2 and e[0] in points and isinstance(e[1], str) for e in ends)
    )
    return walk if whole else {}


def _is_ancestor(repo: Repo, old: str, new: str) -> bool:
    return run_git(repo.top, "merge-base", "--is-ancestor", old, new, check=False).returncode == 0


def _is_fact_file(name: str) -> bool:
    return "/" not in name and name.endswith(".md") and not name.startswith(".")


def _log(repo: Repo, since: str | None, head: str) -> list[_Commit]:
    """The first-parent commits since `since` (all of them without it) that changed the
    memory, oldest first, each with the ids of its facts tree and of its INDEX.md.

    As `git log --first-parent -- FACTS/ INDEX.md` lists them (a commit whose facts
    folder or INDEX.md differs from its first parent's), but git is not asked to compare
    the facts folders file by file: the commits are listed without paths, and the tree
    of the folder that holds the facts folder and INDEX.md is read at each of them (one
    `git cat-file --batch`, each folder read once: consecutive commits mostly share it)."""
    out = repo.git("log", "--first-parent", "--reverse", "--format=%H %T %cs %P", f"{since}..{head}" if since else head)
    rows = [fields for fields in (line.split(" ") for line in out.splitlines()) if len(fields) >= 3]
    if not rows:
        return []
    facts_dir, _, facts_name = repo.facts_path.rpartition("/")
    index_dir, _, index_name = repo.index_path.rpartition("/")
    folders = list(dict.fromkeys((facts_dir, index_dir)))  # one folder (the memory's), unless moved apart
    if any("\n" in folder for folder in folders):
        raise GitError("the memory's path holds a line break: git cannot be asked about it line by line")
    # Each commit's tree, and first the first parent of the first commit (the state it changed).
    parent = rows[0][3] if len(rows[0]) > 3 and rows[0][3] else None
    trees = ([parent] if parent else []) + [fields[1] for fields in rows]
    lookups = [f"{tree}:{folder}" if folder else tree for tree in trees for folder in folders]
    entries = _folder_entries(repo, lookups, {facts_name.encode(), index_name.encode()}, len(head) // 2)
    states: list[tuple[tuple[str, str] | None, tuple[str, str] | None]] = []
    for number in range(len(trees)):
        found = [entries[number * len(folders) + n] for n in range(len(folders))]
        facts = found[0].get(facts_name.encode())
        index = found[folders.index(index_dir)].get(index_name.encode())
        states.append((facts if facts is not None and facts[0] == "40000" else None, index))
    before: tuple[tuple[str, str] | None, tuple[str, str] | None] = (None, None)
    if parent:
        before, states = states[0], states[1:]
    commits = []
    for fields, (facts, index) in zip(rows, states, strict=True):
        if (facts, index) != before:  # a mode change of INDEX.md counts, as it does for git log
            # A folder named INDEX.md has no blob (diff-tree -r lists the files inside it instead).
            blob = index[1] if index is not None and index[0] != "40000" else None
            commits.append(_Commit(fields[0], fields[2], facts[1] if facts else None, blob))
        before = (facts, index)
    return commits


def _folder_entries(
    repo: Repo, lookups: list[str], names: set[bytes], oid_bytes: int
) -> list[dict[bytes, tuple[str, str]]]:
    """For each `tree:folder` lookup, the entries named `names` of that folder: name →
    (mode, object id); none where the folder does not exist. One `git cat-file --batch`."""
    out = run_git(repo.top, "cat-file", "--batch", stdin="".join(f"{lookup}\n" for lookup in lookups).encode()).stdout
    result: list[dict[bytes, tuple[str, str]]] = []
    known: dict[bytes, dict[bytes, tuple[str, str]]] = {}  # folder tree id → its entries (read once)
    pos = 0
    for _lookup in lookups:
        end = out.index(b"\n", pos)
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) != 3 or not header[2].isdigit():  # `<lookup> missing`: no such folder
            result.append({})
            continue
        size = int(header[2])
        if header[0] not in known:
            known[header[0]] = _tree_entries(out[pos : pos + size], names, oid_bytes) if header[1] == b"tree" else {}
        result.append(known[header[0]])
        pos += size + 1
    return result


def _tree_entries(tree: bytes, names: set[bytes], oid_bytes: int) -> dict[bytes, tuple[str, str]]:
    """The entries named `names` of a raw tree object (`MODE NAME\\0OID`, one after another)."""
    found: dict[bytes, tuple[str, str]] = {}
    pos = 0
    while pos < len(tree):
        space = tree.index(b" ", pos)
        nul = tree.index(b"\0", space)
        name = tree[space + 1 : nul]
        if name in names:
            found[name] = (tree[pos:space].decode(), tree[nul + 1 : nul + 1 + oid_bytes].hex())
        pos = nul + 1 + oid_bytes
    return found


def _changes(repo: Repo, trees: list[str]) -> list[list[tuple[str, str]]]:
    """For each pair of consecutive facts trees, the files that differ: (path inside the
    facts folder, new blob id; zeros for a deletion). One `git diff-tree --stdin` for all
    the pairs that differ."""
    pairs = list(itertools.pairwise(trees))
    lines = [f"{old} {new}\n" for old, new in pairs if old != new]
    outputs = (
        run_git_split(
            repo.top,
            ("diff-tree", "--stdin", "-r", "-z", "--no-renames", "--no-abbrev"),
            ["".join(chunk).encode() for chunk in split_evenly(lines, _parts(len(lines)))],
        )
        if lines
        else []
    )
    out = b"".join(outputs)  # each pair's diff stands alone: the outputs follow each other as one
    result: list[list[tuple[str, str]]] = []
    pos = 0
    for old, new in pairs:
        changed: list[tuple[str, str]] = []
        header = f"{old} {new}\n".encode()
        if old != new and out.startswith(header, pos):  # each pair's diff follows a line naming the two trees
            pos += len(header)
            while out.startswith(b":", pos):  # `:old-mode new-mode old-blob new-blob status` NUL path NUL
                meta_end = out.index(b"\0", pos)
                path_end = out.index(b"\0", meta_end + 1)
                fields = out[pos + 1 : meta_end].split()
                if len(fields) >= 4:
                    changed.append((out[meta_end + 1 : path_end].decode("utf-8", "replace"), fields[3].decode()))
                pos = path_end + 1
        result.append(changed)
    return result


PARALLEL_FROM = 200  # pairs or blobs: from there on, two git processes share the reading


def _parts(items: int) -> int:
    """How many git processes read `items` at once: two for a long read (a second core
    halves it), one otherwise (a process costs a few milliseconds)."""
    return 2 if items >= PARALLEL_FROM and (os.cpu_count() or 1) > 1 else 1


def _fill(
    repo: Repo,
    cache: _Cache,
    state: dict[str, str],
    steps: list[tuple[_Commit, dict[str, str | None], str | None]],
) -> None:
    """Compute the points not cached yet: read the blobs their states need (once each),
    then count the active facts day end by day end, keeping the counts as the files change."""
    needed = dict.fromkeys(state.values())
    for _end, facts, _i in steps:
        needed.update(dict.fromkeys(sha for sha in facts.values() if sha is not None))
    fact_shas = [sha for sha in needed if sha not in cache.blobs]
    pending = [(end, index) for end, _f, index in steps if end.sha not in cache.points]
    index_shas = list(dict.fromkeys(i for _e, i in pending if i is not None and i not in cache.index))
    # Each blob as the loader reads it from disk: a fact file up to its limit, INDEX.md up to any file's.
    limits = dict.fromkeys(index_shas, MAX_FILE_BYTES)
    contents = repo.read_blobs(fact_shas + index_shas, _parts(len(fact_shas) + len(index_shas)), limits=limits)
    for sha in fact_shas:
        cache.blobs[sha] = _summary(contents.get(sha))
    for sha in index_shas:
        data = contents.get(sha)
        cache.index[sha] = estimate_tokens(data.decode("utf-8", "replace")) if data is not None else 0
    counter = _ActiveCounter()
    files = dict(state)
    for sha in files.values():
        counter.add(cache.blobs[sha])
    for end, facts, index in steps:
        for path, blob in facts.items():
            old = files.pop(path, None)
            if old is not None:
                counter.remove(cache.blobs[old])
            if blob is not None:
                files[path] = blob
                counter.add(cache.blobs[blob])
        if end.sha not in cache.points:
            cache.points[end.sha] = (cache.index.get(index) if index else None, counter.active(end.date))


def _summary(data: bytes | None) -> BlobSummary:
    if data is None:
        return None
    try:
        fact = parse_fact_text(data.decode("utf-8"), None)
    except (FactFileError, UnicodeDecodeError):
        return None
    return (fact.id, fact.type, fact.expires, list(fact.replaced_ids()))


def active_by_type(summaries: list[BlobSummary], day: str) -> dict[str, int]:
    """Active on `day`, as the store decides it: not expired before that day, not replaced.
    (The definition; _ActiveCounter keeps the same counts as files come and go.)"""
    loaded = [s for s in summaries if s is not None]
    replaced = {old for fact_id, _t, _e, olds in loaded for old in olds if old != fact_id}
    counts = Counter(
        ftype
        for fact_id, ftype, expires, _o in loaded
        if fact_id not in replaced and (expires is None or expires >= day)
    )
    return dict(sorted(counts.items()))


class _ActiveCounter:
    """active_by_type over a changing set of fact files, kept up to date file by file
    rather than counted again at each day end (2,000 facts at each of 365 day ends).

    The facts that never expire are counted as they come and go, each under its id, and
    an id is left out of the counts while some fact replaces it; the few that expire are
    checked at each day end. A hypothesis test holds it equal to active_by_type."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()  # type → facts that never expire and are not replaced
        self.lasting: dict[str, Counter[str]] = {}  # id → its facts that never expire, by type
        self.expiring: Counter[tuple[str, str, str]] = Counter()  # (id, type, expires) → facts
        self.replacers: Counter[str] = Counter()  # id → facts that replace it

    def add(self, summary: BlobSummary) -> None:
        self._change(summary, 1)

    def remove(self, summary: BlobSummary) -> None:
        self._change(summary, -1)

    def _change(self, summary: BlobSummary, step: int) -> None:
        if summary is None:
            return  # a file that does not load counts for nothing
        fact_id, ftype, expires, olds = summary
        if expires is None:
            self.lasting.setdefault(fact_id, Counter())[ftype] += step
            if not self.replacers[fact_id]:
                self.counts[ftype] += step
        else:
            self.expiring[(fact_id, ftype, expires)] += step
        for old in set(olds) - {fact_id}:
            before = self.replacers[old]
            self.replacers[old] = before + step
            if (before == 0) != (before + step == 0):  # `old` starts (or stops) being replaced
                for otype, n in self.lasting.get(old, {}).items():
                    self.counts[otype] -= n if step > 0 else -n

    def active(self, day: str) -> dict[str, int]:
        counts = Counter(self.counts)
        for (fact_id, ftype, expires), n in self.expiring.items():
            if n and not self.replacers[fact_id] and expires >= day:
                counts[ftype] += n
        return {ftype: n for ftype, n in sorted(counts.items()) if n > 0}


class _Cache:
    """Blob summaries, index tokens and points, by git object id."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.blobs: dict[str, BlobSummary] = {}
        self.index: dict[str, int] = {}
        self.points: dict[str, tuple[int | None, dict[str, int]]] = {}
        # The walk as cached (JSON checked by _valid_walk, then read by its known keys); Any: a
        # TypedDict would have to be rebuilt from the checked JSON, key by key.
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
                cache.walk = _valid_walk(data.get("walk"), cache.points)
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


def memory_timeline_apart(layout: Layout) -> Timeline:
    """memory_timeline, computed by another Python process: the same points, read in a
    process of its own.

    In a process whose other threads are busy (the TUI building a screen and counting the
    events), a thread reading the history waits for the interpreter's lock at every file and
    pipe operation, git's dozen calls and the blobs' parsing among them: the first read of
    2,000 commits took twice as long there as alone. A process of its own reads it on the
    other core, at its own speed, and hands back one JSON text (or the one-line error
    memory_timeline raised there, raised here as it is). It writes and reads the same cache,
    and imports nothing from the working folder (`-P`). If it cannot start or does not
    answer whole, this process reads the history itself."""
    import subprocess
    import sys

    try:
        done = subprocess.run(
            [sys.executable, "-P", "-m", "foundry_tui.core.history.timeline", str(layout.root)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=APART_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"reading the memory's git history took over {APART_TIMEOUT:.0f} seconds") from None
    except (OSError, subprocess.SubprocessError):
        return memory_timeline(layout)
    try:
        data = json.loads(done.stdout) if done.returncode == 0 else None
        if isinstance(data, dict) and isinstance(data.get("error"), str):
            raise GitError(data["error"])
        if data is not None:
            return _timeline_from_json(data)
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    return memory_timeline(layout)


APART_TIMEOUT = 300.0


def _timeline_to_json(timeline: Timeline) -> str:
    return json.dumps(
        {"points": [p.to_dict() for p in timeline.points], "note": timeline.note, "commits": timeline.commits}
    )


def _timeline_from_json(
    data: Any,
) -> Timeline:  # Any: the other process's JSON; a wrong shape raises, caught by the caller
    points = [
        TimelinePoint(
            str(p["date"]), str(p["commit"]), p["index_tokens"], {str(k): int(v) for k, v in p["active"].items()}
        )
        for p in data["points"]
    ]
    if any(p.index_tokens is not None and not isinstance(p.index_tokens, int) for p in points):
        raise ValueError("index_tokens is not a number")
    return Timeline(points, str(data["note"]), int(data["commits"]))


def _main(root: str) -> str:
    """memory_timeline_apart's other process: one project root's timeline as JSON, or the
    one-line error reading it raised."""
    try:
        return _timeline_to_json(memory_timeline(Layout(Path(root))))
    except GitError as exc:
        return json.dumps({"error": str(exc)})


if __name__ == "__main__":
    import sys

    sys.stdout.write(_main(sys.argv[1]))
