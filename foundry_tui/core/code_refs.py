"""Facts grounded in the code (issue 30): a fact's `refs`, their checks, their states.

A fact may name what it is about in a `refs` frontmatter list: repository paths (files,
folders, globs) and symbols (`path::Name`), each written `TARGET@OID` when git knew the
object at write time (the file's blob id, the folder's tree id at HEAD, a glob's digest of
the blobs it matched) and `TARGET` alone outside git. The spec's fields stay as they are:
`refs` is an unknown key to the spec, kept with the fact (`Fact.extras`).

Verification reads the repository once per call, whatever the number of facts: one
`git ls-files -s` (the index's blob ids, cached against HEAD and the index file), one
`git diff-files` (which of them the working copy changed), `git hash-object` for the
cited files among those, `git ls-tree -d` only when a folder is cited, and `git log`
rename detection only when a cited path is gone. A fact's state is the worst of its refs':
`gone` (the path, or the symbol in it, no longer exists), `moved` (git's rename detection
names the new path), `changed` (its object differs from the one recorded), `fresh`;
`unknown` outside git (said once, never an error per fact).

Imports nothing heavy (subprocess only where git runs): the after-edit hook and the session
start read it.
"""

from __future__ import annotations

import os
import re

from foundry_tui.core.config import MAX_REF_CHARS, MAX_REFS  # the tools' schemas state them too

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

    from foundry_tui.core.paths import Layout

REFS_KEY = "refs"
# Rename detection reads at most this many renaming commits, newest first (one `git log`).
MAX_RENAME_COMMITS = 2000
# At most this many changed refs get their commits and diffstat in `foundry memory verify`.
MAX_DETAILED = 50
GIT_TIMEOUT = 30.0

FRESH, CHANGED, MOVED, GONE, UNKNOWN = "fresh", "changed", "moved", "gone", "unknown"
STATES: tuple[str, ...] = (FRESH, CHANGED, MOVED, GONE, UNKNOWN)
STALE_STATES: frozenset[str] = frozenset({CHANGED, MOVED, GONE})
_WORST = {FRESH: 0, UNKNOWN: 1, CHANGED: 2, MOVED: 3, GONE: 4}
NO_GIT_NOTE = "not a git repository: refs are kept without blob ids and their state is unknown"

_OID_RE = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_GLOB_CHARS = frozenset("*?[")
_GLOB_RE = re.compile(r"[*?\[]")
# A backticked span in a body that may name a path: no spaces, at least one '/' or '.'.
_BACKTICKED = re.compile(r"`([^`\s]{1,300})`")
_SYMBOL_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


class RefError(ValueError):
    """A ref that is refused; the message is the one line the caller sees."""


class Ref:
    """One entry of a fact's `refs`: its target (`path` or `path::Name`) and the object id recorded."""

    __slots__ = ("is_glob", "oid", "path", "symbol", "target")

    def __init__(self, target: str, oid: str | None = None) -> None:
        self.target = target
        self.path = target
        self.symbol: str | None = None
        if "::" in target:
            self.path, _, self.symbol = target.partition("::")
        self.oid = oid
        self.is_glob = _GLOB_RE.search(self.path) is not None

    @property
    def item(self) -> str:
        """The frontmatter entry: `TARGET@OID`, or `TARGET` without an id."""
        return f"{self.target}@{self.oid}" if self.oid else self.target

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ref) and (other.target, other.oid) == (self.target, self.oid)

    def __hash__(self) -> int:
        return hash((self.target, self.oid))

    def __repr__(self) -> str:
        return f"Ref({self.item!r})"


def parse_ref(item: str) -> Ref:
    """A frontmatter entry as a Ref (`path@oid` when the part after the last '@' is an object id)."""
    at = item.rfind("@")
    if at > 0 and _OID_RE.fullmatch(item, at + 1):
        return Ref(item[:at], item[at + 1 :])
    return Ref(item)


def refs_of(extras: Mapping[str, object] | None) -> tuple[Ref, ...]:
    """The refs a fact's frontmatter holds (a hand-written list is read leniently: entries that
    are not text are skipped, and at most MAX_REFS are read)."""
    value = extras.get(REFS_KEY) if extras else None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return ()
    return tuple(parse_ref(item.strip()) for item in value[:MAX_REFS] if isinstance(item, str) and item.strip())


# ---- git -------------------------------------------------------------------------------------


def _git(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes] | None:
    """git in `root`, or None when git is missing or took too long."""
    import subprocess

    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"})
    try:
        return subprocess.run(
            ["git", "-c", "core.quotepath=off", *args],
            cwd=root,
            input=stdin,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def _nul_fields(data: bytes) -> list[str]:
    return [part.decode("utf-8", "surrogateescape") for part in data.split(b"\0") if part]


class GitListing:
    """The index's blob ids under the root (paths relative to it), read once per HEAD and index."""

    __slots__ = ("blobs", "by_oid", "head", "index_path")

    def __init__(self, head: str, index_path: str, blobs: dict[str, str]) -> None:
        self.head = head
        self.index_path = index_path
        self.blobs = blobs
        by_oid: dict[str, list[str]] = {}
        for path, oid in blobs.items():
            by_oid.setdefault(oid, []).append(path)
        self.by_oid = by_oid


_LISTINGS: dict[str, tuple[tuple[object, ...], GitListing]] = {}
# A root that stands for another root as of a commit (`foundry tui --at REV` opens the memory
# materialised in a temporary folder): its refs are verified against that commit's tree in
# the real root's repository, with no working copy and no index.
_AT: dict[str, tuple[Path, str]] = {}


def verify_at(root: Path, real_root: Path, commit: str) -> None:
    """Verify the facts under `root` against `commit` of `real_root`'s repository from now on."""
    _AT[str(root)] = (real_root, commit)


def end_verify_at(root: Path) -> None:
    """From now on the facts under `root` are verified as any root's (the end of verify_at)."""
    _AT.pop(str(root), None)


def _listing_at(real_root: Path, commit: str) -> GitListing | None:
    """The blobs of `commit`'s tree under `real_root` (relative to it), as a listing."""
    done = _git(real_root, "ls-tree", "-r", "-z", commit)
    if done is None or done.returncode != 0:
        return None
    blobs: dict[str, str] = {}
    for entry in _nul_fields(done.stdout):
        meta, _, path = entry.partition("\t")
        parts = meta.split(" ")
        if len(parts) == 3 and parts[1] == "blob":
            blobs[path] = parts[2]
    return GitListing(commit, "", blobs)


def _index_stamp(index_path: str) -> tuple[object, ...]:
    try:
        info = os.stat(index_path)
    except OSError:
        return (None,)
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def git_listing(root: Path) -> GitListing | None:
    """The index's listing for `root`, or None when `root` is not in a git work tree. Cached
    in this process against HEAD and the index file (its time, size and inode)."""
    done = _git(root, "rev-parse", "--git-path", "index", "--verify", "-q", "HEAD")
    if done is None:
        return None
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    if not lines or (done.stderr.strip() and "not a git repository" in done.stderr.decode("utf-8", "replace")):
        return None
    index_path = lines[0] if os.path.isabs(lines[0]) else os.path.join(str(root), lines[0])
    head = lines[1] if len(lines) > 1 else ""
    stamp = (head, *_index_stamp(index_path))
    cached = _LISTINGS.get(str(root))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    listed = _git(root, "ls-files", "-s", "-z")
    if listed is None or listed.returncode != 0:
        return None
    blobs: dict[str, str] = {}
    for entry in _nul_fields(listed.stdout):
        meta, _, path = entry.partition("\t")
        parts = meta.split(" ")
        if len(parts) == 3 and parts[2] in ("0", "2"):  # stage 0, or "ours" of a conflict
            blobs[path] = parts[1]
    listing = GitListing(head, index_path, blobs)
    _LISTINGS[str(root)] = (stamp, listing)
    return listing


def _hash_files(root: Path, paths: Sequence[str]) -> dict[str, str]:
    """The blob id of each file's working copy (as `git add` would store it; nothing is written)."""
    if not paths:
        return {}
    done = _git(root, "hash-object", "--stdin-paths", stdin="".join(f"{p}\n" for p in paths).encode())
    if done is None or done.returncode != 0:
        return {}
    oids = done.stdout.decode().split()
    return dict(zip(paths, oids, strict=False)) if len(oids) == len(paths) else {}


def _dirty(root: Path) -> set[str]:
    """The indexed files whose working copy differs from the index (stat first, as git does)."""
    done = _git(root, "diff-files", "--relative", "-z", "--name-only")
    return set(_nul_fields(done.stdout)) if done is not None and done.returncode == 0 else set()


def _trees(root: Path, folders: Iterable[str], rev: str = "HEAD") -> dict[str, str]:
    """The tree id at `rev` of each of `folders` (relative to the root) that is a folder there:
    one `git cat-file --batch-check` of `REV:./PATH` for all, each path looked up exactly (a
    `git ls-tree` given a folder and a path inside it lists the inside instead of the folder).
    A path with a control character (a hand-edited ref) is never a folder here."""
    wanted = sorted({f for f in folders if not any(ord(c) < 32 or ord(c) == 127 for c in f)})
    if not wanted:
        return {}
    done = _git(root, "cat-file", "--batch-check", stdin="".join(f"{rev}:./{f}\n" for f in wanted).encode())
    found: dict[str, str] = {}
    if done is None or done.returncode != 0:
        return found
    answers = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    for path, answer in zip(wanted, answers, strict=False):
        parts = answer.split(" ")
        if len(parts) == 3 and parts[1] == "tree":
            found[path] = parts[0]
    return found


def _ignored(root: Path, paths: Sequence[str]) -> set[str]:
    """The paths git ignores (`git check-ignore`, one process for all)."""
    if not paths:
        return set()
    done = _git(root, "check-ignore", "-z", "--stdin", stdin=b"".join(p.encode() + b"\0" for p in paths))
    return set(_nul_fields(done.stdout)) if done is not None else set()


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob as a regular expression over root-relative paths: `*` and `?` stay within one
    folder, `**` crosses folders, `[...]` is a set."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            inner = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append(f"[^{inner[1:]}]" if inner.startswith("!") else f"[{inner}]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out))


def glob_digest(listing: GitListing, pattern: str) -> str | None:
    """The digest of the blobs a glob matches in the index (None when it matches nothing)."""
    import hashlib

    regex = glob_regex(pattern)
    matched = sorted(path for path in listing.blobs if regex.fullmatch(path))
    if not matched:
        return None
    return hashlib.sha1("".join(f"{p}\0{listing.blobs[p]}\n" for p in matched).encode()).hexdigest()


# ---- writing: the checks and the ids recorded ------------------------------------------------


def _clean_target(raw: str) -> str:
    """A ref as the caller wrote it, normalised (`./a//b/` → `a/b`), or RefError."""
    if not isinstance(raw, str):
        raise RefError(f"ref {raw!r} is not text: give refs as repository paths")
    text = raw.strip()
    if not text:
        raise RefError("a ref is empty: give a repository path such as src/app.py or src/app.py::main")
    if len(text) > MAX_REF_CHARS:
        raise RefError(
            f"a ref of {len(text)} characters is over the {MAX_REF_CHARS}-character limit: cite a shorter path"
        )
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise RefError("a ref contains a control character: give a repository path on one line")
    path, sep, symbol = text.partition("::")
    if sep and not _SYMBOL_RE.fullmatch(symbol):
        raise RefError(f"ref {text!r}: the symbol after '::' must be a name such as main or Store.load")
    if path.startswith("/") or re.match(r"[A-Za-z]:[\\/]", path):
        raise RefError(f"ref {text!r} is an absolute path: give it relative to the project root")
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]
    if ".." in parts:
        raise RefError(f"ref {text!r} leads outside the project root: cite a path inside it")
    if not parts:
        raise RefError(f"ref {text!r} names the root itself: cite a file or folder inside it")
    if parts[0] == ".git" or ".git" in parts:
        raise RefError(f"ref {text!r} is inside .git: cite the project's files, not git's")
    if "@" in parts[-1] and _OID_RE.fullmatch(parts[-1].rpartition("@")[2]):
        raise RefError(f"ref {text!r} ends in an object id: give the path only, the id is recorded for you")
    cleaned = "/".join(parts)
    return f"{cleaned}::{symbol}" if sep else cleaned


def _exists_inside(layout: Layout, path: str) -> str | None:
    """`file`, `folder` or None (missing); RefError when a link takes it out of the root."""
    from foundry_tui.core.paths import UnsafePathError

    full = layout.root / path
    try:
        layout.check_inside(full)
    except UnsafePathError:
        raise RefError(
            f"ref {path!r} goes through a symbolic link that leaves the project root: cite the real path"
        ) from None
    if os.path.isdir(full):
        return "folder"
    if os.path.isfile(full):
        return "file"
    return None


class RecordedRefs:
    """What a write records: the refs and the notes to tell the writer (one line each)."""

    __slots__ = ("notes", "refs")

    def __init__(self, refs: list[Ref], notes: list[str]) -> None:
        self.refs = refs
        self.notes = notes

    @property
    def items(self) -> list[str]:
        return [ref.item for ref in self.refs]


def body_candidates(body: str) -> list[str]:
    """The backticked spans of `body` that look like repository paths (maybe `path::Name`)."""
    found: list[str] = []
    for match in _BACKTICKED.finditer(body):
        text = match.group(1)
        path = text.partition("::")[0]
        if ("/" in path or "." in path.strip(".")) and not path.startswith(("http:", "https:", "-")):
            found.append(text)
    return found


def record_refs(layout: Layout, given: Sequence[str], body: str, carried: Sequence[str] = ()) -> RecordedRefs:
    """The refs a write records: every `given` one (each checked: RefError on the first
    refused), then the `carried` targets (from the fact a restatement replaces) and the
    body's backticked paths that exist and git does not ignore (quietly skipped otherwise),
    at most MAX_REFS, each with the object id git has for it now."""
    if len(given) > MAX_REFS:
        raise RefError(
            f"{len(given)} refs, {len(given) - MAX_REFS} over the limit of {MAX_REFS}: cite the files the fact is about"
        )
    root = layout.root
    targets: dict[str, str] = {}  # target -> kind (file, folder, glob)
    for raw in given:
        target = _clean_target(raw)
        path = target.partition("::")[0]
        if any(char in _GLOB_CHARS for char in path):
            if "::" in target:
                raise RefError(f"ref {target!r}: a symbol needs one file, not a glob")
            targets.setdefault(target, "glob")
            continue
        kind = _exists_inside(layout, path)
        if kind is None:
            raise RefError(f"ref {target!r} names no file or folder in the repository: check the path")
        if kind == "folder" and "::" in target:
            raise RefError(f"ref {target!r}: a symbol needs a file, and {path} is a folder")
        targets.setdefault(target, kind)
    explicit = list(targets)
    quiet: list[str] = []
    for raw in [*carried, *body_candidates(body)]:
        try:
            target = _clean_target(raw.rpartition("@")[0] if parse_ref(raw).oid else raw)
            path = target.partition("::")[0]
            kind = "glob" if any(c in _GLOB_CHARS for c in path) else _exists_inside(layout, path)
        except RefError:
            continue
        if kind is None or target in targets or (kind != "file" and "::" in target):
            continue
        targets[target] = kind
        quiet.append(target)
    notes: list[str] = []
    if len(targets) > MAX_REFS:
        notes.append(f"{len(targets) - MAX_REFS} of the paths cited were not recorded as refs: the limit is {MAX_REFS}")
        for target in list(targets)[MAX_REFS:]:
            del targets[target]
            if target in quiet:
                quiet.remove(target)
    if not targets:  # nothing cited: no git process (memory_write's bar is 20 ms)
        return RecordedRefs([], notes)
    listing = git_listing(root)
    if listing is None:
        notes.append(NO_GIT_NOTE)
        return RecordedRefs([Ref(t) for t in targets], notes)
    plain = [t.partition("::")[0] for t, kind in targets.items() if kind != "glob"]
    ignored = _ignored(root, plain)
    for target in list(targets):
        path = target.partition("::")[0]
        if path in ignored:
            if target in explicit:
                raise RefError(f"ref {target!r} is a path git ignores: cite a file the repository keeps")
            del targets[target]
    files = sorted({t.partition("::")[0] for t, kind in targets.items() if kind == "file"})
    blobs = _hash_files(root, files)
    trees = _trees(root, [t for t, kind in targets.items() if kind == "folder"])
    refs: list[Ref] = []
    for target, kind in targets.items():
        path = target.partition("::")[0]
        if kind == "file":
            oid = blobs.get(path)
        elif kind == "folder":
            oid = trees.get(path)
        else:
            oid = glob_digest(listing, path)
            if oid is None and target in explicit:
                raise RefError(f"ref {target!r} matches no file the repository keeps: check the pattern")
            if oid is None:
                continue
        refs.append(Ref(target, oid))
    return RecordedRefs(refs, notes)


# ---- verification ----------------------------------------------------------------------------


class RefState:
    """One ref's state: fresh, changed, moved (to `moved_to`), gone or unknown; `current` is
    the object id now (None when gone or unknown)."""

    __slots__ = ("current", "detail", "moved_to", "ref", "state")

    def __init__(self, ref: Ref, state: str, current: str | None = None, moved_to: str | None = None) -> None:
        self.ref = ref
        self.state = state
        self.current = current
        self.moved_to = moved_to
        self.detail = ""  # "3 commits since, +12 -4" once described (describe_changes)

    def line(self) -> str:
        where = f" → {self.moved_to}" if self.moved_to else ""
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.state} {self.ref.target}{where}{detail}"


class FactCheck:
    """A fact's refs, each with its state; the fact's state is the worst of theirs."""

    __slots__ = ("fact_id", "refs", "state")

    def __init__(self, fact_id: str, refs: list[RefState]) -> None:
        self.fact_id = fact_id
        self.refs = refs
        self.state = max((r.state for r in refs), key=_WORST.__getitem__, default=FRESH)


class Verification:
    """Every checked fact's state, and whether git could be read at all."""

    __slots__ = ("checks", "git", "head")

    def __init__(self, checks: dict[str, FactCheck], git: bool, head: str = "") -> None:
        self.checks = checks
        self.git = git
        self.head = head

    def state_of(self, fact_id: str) -> str | None:
        check = self.checks.get(fact_id)
        return check.state if check is not None else None

    def stale(self) -> list[FactCheck]:
        return [check for check in self.checks.values() if check.state in STALE_STATES]

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATES, 0)
        for check in self.checks.values():
            counts[check.state] += 1
        return counts


_RENAMES: dict[str, tuple[str, list[tuple[str, str]]]] = {}


def _rename_pairs(done: subprocess.CompletedProcess[bytes] | None) -> list[tuple[str, str]]:
    """(old, new) of each `R<score>` entry of a `--name-status -z` listing, in its order."""
    if done is None or done.returncode != 0:
        return []
    fields = _nul_fields(done.stdout.replace(b"\n", b"\0"))
    pairs: list[tuple[str, str]] = []
    i = 0
    while i < len(fields):
        if fields[i].startswith("R") and fields[i][1:].isdigit() and i + 2 < len(fields):
            pairs.append((fields[i + 1], fields[i + 2]))
            i += 3
        else:
            i += 1
    return pairs


def _renames(root: Path, missing: set[str], listing: GitListing) -> dict[str, str]:
    """For each missing path, where git's rename detection says it went (a path in the
    index now), following a chain of renames: the history's (at most MAX_RENAME_COMMITS
    commits, cached against HEAD), then the staged ones."""
    if not missing:
        return {}
    cached = _RENAMES.get(str(root))
    if cached is not None and cached[0] == listing.head:
        logged = cached[1]
    else:
        done = _git(
            root,
            "log",
            "-M",
            "--relative",
            "--diff-filter=R",
            "--name-status",
            "-z",
            "--format=",
            f"-n{MAX_RENAME_COMMITS}",
        )
        logged = list(reversed(_rename_pairs(done)))  # oldest first
        _RENAMES[str(root)] = (listing.head, logged)
    staged = _rename_pairs(_git(root, "diff", "--cached", "-M", "--relative", "--name-status", "-z", "HEAD"))
    steps: dict[str, str] = {}
    for old, new in [*logged, *staged]:  # a later rename of a path wins
        steps[old] = new
    found: dict[str, str] = {}
    for path in missing:
        seen = {path}
        current = steps.get(path)
        while current is not None and current not in listing.blobs and current not in seen:
            seen.add(current)
            current = steps.get(current)
        if current is not None and current in listing.blobs:
            found[path] = current
    return found


def _symbol_in(layout: Layout, path: str, symbol: str) -> bool:
    """Whether the last part of `symbol` still occurs as a word in the file's working copy."""
    try:
        text = layout.read_bytes(layout.root / path).decode("utf-8", "replace")
    except OSError:
        return False
    name = symbol.rsplit(".", 1)[-1]
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def verify(layout: Layout, facts: Iterable[tuple[str, Sequence[Ref]]]) -> Verification:
    """The state of every fact's refs against the repository's working copy (see the module)."""
    items = [(fact_id, refs) for fact_id, refs in facts if refs]
    root = layout.root
    at = _AT.get(str(root))
    if at is not None:
        return _verify_at(items, *at)
    listing = git_listing(root) if items else None
    if listing is None:
        unknown = {fid: FactCheck(fid, [RefState(r, UNKNOWN) for r in refs]) for fid, refs in items}
        return Verification(unknown, git=not items)
    cited = {ref.path for _, refs in items for ref in refs if not ref.is_glob}
    dirty = _dirty(root) & cited if cited else set()
    worktree = _hash_files(root, sorted(p for p in dirty if os.path.isfile(root / p)))
    folders = [p for p in cited if p not in listing.blobs and os.path.isdir(root / p)]
    trees = _trees(root, folders)
    missing = {p for p in cited if p not in listing.blobs and p not in trees}
    missing |= {p for p in dirty if p not in worktree}  # deleted in the working copy
    moved = _renames(root, missing, listing)
    checks: dict[str, FactCheck] = {}
    for fact_id, refs in items:
        checks[fact_id] = FactCheck(
            fact_id, [_state(layout, listing, ref, worktree, trees, missing, moved) for ref in refs]
        )
    return Verification(checks, git=True, head=listing.head)


def _verify_at(items: list[tuple[str, Sequence[Ref]]], real_root: Path, commit: str) -> Verification:
    """verify as of `commit`: its tree alone (no working copy, no index, no staged renames)."""
    listing = _listing_at(real_root, commit) if items else None
    if listing is None:
        unknown = {fid: FactCheck(fid, [RefState(r, UNKNOWN) for r in refs]) for fid, refs in items}
        return Verification(unknown, git=not items, head=commit)
    cited = {ref.path for _, refs in items for ref in refs if not ref.is_glob}
    trees = _trees(real_root, [p for p in cited if p not in listing.blobs], commit)
    missing = {p for p in cited if p not in listing.blobs and p not in trees}
    moved: dict[str, str] = {}
    if missing:
        pairs = _rename_pairs(
            _git(real_root, "log", "-M", "--relative", "--diff-filter=R", "--name-status", "-z", "--format=",
                 f"-n{MAX_RENAME_COMMITS}", commit)
        )  # fmt: skip
        steps = dict(reversed(pairs))
        for path in missing:
            current, seen = steps.get(path), {path}
            while current is not None and current not in listing.blobs and current not in seen:
                seen.add(current)
                current = steps.get(current)
            if current is not None and current in listing.blobs:
                moved[path] = current
    symbols = {listing.blobs[r.path] for _, refs in items for r in refs if r.symbol and r.path in listing.blobs}
    texts = _read_blobs(real_root, sorted(symbols))
    checks: dict[str, FactCheck] = {}
    for fact_id, refs in items:
        states = []
        for ref in refs:
            state = _state_at(listing, ref, trees, missing, moved)
            if state.state == CHANGED and ref.symbol and not _word_in(texts.get(state.current or "", ""), ref.symbol):
                state = RefState(ref, GONE, state.current)
            states.append(state)
        checks[fact_id] = FactCheck(fact_id, states)
    return Verification(checks, git=True, head=commit)


def _state_at(
    listing: GitListing, ref: Ref, trees: dict[str, str], missing: set[str], moved: dict[str, str]
) -> RefState:
    if ref.is_glob:
        digest = glob_digest(listing, ref.path)
        if digest is None:
            return RefState(ref, GONE)
        return RefState(ref, FRESH if ref.oid in (None, digest) else CHANGED, digest)
    if ref.path in missing:
        new = moved.get(ref.path)
        return RefState(ref, GONE) if new is None else RefState(ref, MOVED, listing.blobs.get(new), new)
    current = listing.blobs.get(ref.path) or trees.get(ref.path)
    if ref.oid is None or ref.oid == current:
        return RefState(ref, FRESH, current)
    return RefState(ref, CHANGED, current)


def _word_in(text: str, symbol: str) -> bool:
    name = symbol.rsplit(".", 1)[-1]
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def _state(
    layout: Layout,
    listing: GitListing,
    ref: Ref,
    worktree: dict[str, str],
    trees: dict[str, str],
    missing: set[str],
    moved: dict[str, str],
) -> RefState:
    path = ref.path
    if ref.is_glob:
        digest = glob_digest(listing, path)
        if digest is None:
            return RefState(ref, GONE)
        return RefState(ref, FRESH if ref.oid in (None, digest) else CHANGED, digest)
    if path in missing:
        new = moved.get(path)
        if new is None:
            return RefState(ref, GONE)
        return RefState(ref, MOVED, worktree.get(new) or listing.blobs.get(new), new)
    current = worktree.get(path) or listing.blobs.get(path) or trees.get(path)
    if current is None:
        return RefState(ref, UNKNOWN)
    if ref.oid is None or ref.oid == current:
        return RefState(ref, FRESH, current)
    if ref.symbol and not _symbol_in(layout, path, ref.symbol):
        return RefState(ref, GONE, current)
    return RefState(ref, CHANGED, current)


def describe_changes(layout: Layout, verification: Verification) -> None:
    """Give each changed file ref (at most MAX_DETAILED) its commits since the recorded blob
    and a one-line diffstat (`2 commits since, +3 -1`): one `git log` for all of them, one
    `git cat-file --batch` for the recorded blobs, the working copies read from disk."""
    import difflib

    root = layout.root
    changed = [
        state
        for check in verification.checks.values()
        for state in check.refs
        if state.state == CHANGED and state.ref.oid and not state.ref.is_glob and os.path.isfile(root / state.ref.path)
    ][:MAX_DETAILED]
    if not changed:
        return
    paths = sorted({s.ref.path for s in changed})
    # Each commit that touched a cited path, newest first, with the blob it left there.
    done = _git(
        root,
        "log",
        "--relative",
        "--no-renames",
        "--raw",
        "-z",
        "--format=%x01%h",
        f"-n{MAX_RENAME_COMMITS}",
        "--",
        *paths,
    )
    history: dict[str, list[tuple[str, str]]] = {}  # path -> [(commit, new blob)]
    if done is not None and done.returncode == 0:
        for record in done.stdout.split(b"\x01")[1:]:
            fields = _nul_fields(record.replace(b"\n", b"\0"))
            if not fields:
                continue
            commit, rest = fields[0], fields[1:]
            for i in range(0, len(rest) - 1, 2):
                meta = rest[i].split(" ")
                if len(meta) >= 4:
                    history.setdefault(rest[i + 1], []).append((commit, meta[3]))
    wanted = sorted({s.ref.oid for s in changed if s.ref.oid})
    old_texts = _read_blobs(root, wanted)
    for state in changed:
        commits = 0
        for _commit, blob in history.get(state.ref.path, []):
            if blob.rstrip(".") and state.ref.oid and state.ref.oid.startswith(blob.rstrip(".")):
                break
            commits += 1
        try:
            new_lines = layout.read_bytes(root / state.ref.path).decode("utf-8", "replace").splitlines()
        except OSError:
            new_lines = []
        old_lines = old_texts.get(state.ref.oid or "", "").splitlines()
        added = removed = 0
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
            if tag in ("replace", "delete"):
                removed += i2 - i1
            if tag in ("replace", "insert"):
                added += j2 - j1
        noun = "commit" if commits == 1 else "commits"
        since = f"{commits} {noun} since" if commits else "uncommitted"
        state.detail = f"{since}, +{added} -{removed}"


def _read_blobs(root: Path, oids: Sequence[str], limit: int = 1 << 20) -> dict[str, str]:
    """The text of each blob of at most `limit` bytes (one `git cat-file --batch`)."""
    if not oids:
        return {}
    done = _git(root, "cat-file", "--batch", stdin="".join(f"{oid}\n" for oid in oids).encode())
    texts: dict[str, str] = {}
    if done is None or done.returncode != 0:
        return texts
    data = done.stdout
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            break
        header = data[pos:end].decode("utf-8", "replace").split(" ")
        pos = end + 1
        if len(header) != 3 or header[1] != "blob":
            continue
        size = int(header[2])
        if size <= limit:
            texts[header[0]] = data[pos : pos + size].decode("utf-8", "replace")
        pos += size + 1
    return texts


def citing(facts: Iterable[tuple[str, Sequence[Ref]]], paths: Iterable[str]) -> list[str]:
    """The ids of the facts whose refs name one of `paths` (root-relative): the file itself,
    a folder holding it, or a glob matching it."""
    wanted = [p.strip("/") for p in paths if p]
    found: list[str] = []
    for fact_id, refs in facts:
        for ref in refs:
            if any(_cites(ref, path) for path in wanted):
                found.append(fact_id)
                break
    return found


def _cites(ref: Ref, path: str) -> bool:
    if ref.is_glob:
        return glob_regex(ref.path).fullmatch(path) is not None
    return path == ref.path or path.startswith(ref.path + "/")


# ---- the curator's side: what a confirm re-records, the diff since written ---------------------

# The diff since a fact was written (`ref_diff`): at most this many characters of git's text
# in all (the rest is cut, and the cut is said), no side over MAX_DIFF_INPUT bytes, and git
# given at most DIFF_TIMEOUT seconds.
MAX_DIFF_CHARS = 20_000
MAX_DIFF_INPUT = 1 << 20
DIFF_TIMEOUT = 5.0


def confirmed_targets(states: Sequence[RefState]) -> list[str]:
    """The refs a confirm re-records: each target as it is now (a moved ref follows its new
    path, keeping its symbol; a gone one is dropped)."""
    targets: list[str] = []
    for state in states:
        if state.state == GONE:
            continue
        if state.state == MOVED and state.moved_to:
            target = f"{state.moved_to}::{state.ref.symbol}" if state.ref.symbol else state.moved_to
        else:
            target = state.ref.target
        if target not in targets:
            targets.append(target)
    return targets


def _git_bytes(root: Path, timeout: float, *args: str) -> tuple[int, bytes] | None:
    """git's exit status and output (None: git missing or over `timeout`)."""
    import subprocess

    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"})
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args],
            cwd=root,
            capture_output=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.returncode, done.stdout


def _blob_size(root: Path, timeout: float, oid: str) -> int | str:
    """The size of blob `oid` in `root`'s repository, or why there is none: "timeout", "missing"
    (not in the repository) or "not a blob" (a folder's tree)."""
    kind = _git_bytes(root, timeout, "cat-file", "-t", oid)
    if kind is None:
        return "timeout"
    if kind[0] != 0:
        return "missing"
    if kind[1].strip() != b"blob":
        return "not a blob"
    sized = _git_bytes(root, timeout, "cat-file", "-s", oid)
    if sized is None:
        return "timeout"
    return int(sized[1].decode().strip() or 0) if sized[0] == 0 else "missing"


def ref_diff(layout: Layout, state: RefState, *, max_chars: int = MAX_DIFF_CHARS, timeout: float = DIFF_TIMEOUT) -> str:
    """The diff of one changed (or moved) file ref: the blob recorded when the fact was written
    against the file now (`git diff --no-index`, the recorded side read with `git cat-file`),
    headed `--- PATH@OID (when written)` / `+++ PATH (now)`, cut at `max_chars`; or one line
    saying why there is none. For a root verified as of a revision (verify_at: `foundry tui
    --at`), the other side is the blob that revision's tree holds (`+++ PATH (at COMMIT)`),
    never the working copy."""
    import tempfile

    ref = state.ref
    if state.state not in (CHANGED, MOVED):
        return f"{ref.target}: {state.state}, no diff"
    if ref.is_glob or ref.oid is None:
        return f"{ref.target}: {'a glob' if ref.is_glob else 'no blob id was recorded'}, no file diff"
    path = state.moved_to or ref.path
    root = layout.root
    at = _AT.get(str(root))
    now_blob: str | None = None
    if at is None:
        now = root / path
        if os.path.isdir(now):
            return f"{ref.target}: a folder, no file diff (its tree changed)"
        if not os.path.isfile(now):
            return f"{ref.target}: {path} is not in the working copy, no diff"
        now_size: int | str = os.path.getsize(now)
        side = "now"
    else:
        root, commit = at
        side = f"at {commit[:8]}"
        now_blob = state.current
        if now_blob is None:
            return f"{ref.target}: {path} is not in {commit[:8]}, no diff"
        now_size = _blob_size(root, timeout, now_blob)
        if now_size == "not a blob":
            return f"{ref.target}: a folder, no file diff (its tree changed)"
    recorded = _blob_size(root, timeout, ref.oid)
    if "timeout" in (recorded, now_size):
        return f"{ref.target}: git did not answer within {timeout:g} s"
    if recorded in ("missing", "not a blob"):
        return f"{ref.target}: the blob recorded ({ref.oid[:12]}) is not in this repository (never committed or added)"
    if isinstance(now_size, str):
        return f"{ref.target}: the blob of {path} {side} could not be read"
    if int(recorded) > MAX_DIFF_INPUT or now_size > MAX_DIFF_INPUT:
        return f"{ref.target}: over {MAX_DIFF_INPUT} bytes on one side, not diffed"
    old = _git_bytes(root, timeout, "cat-file", "blob", ref.oid)
    if old is None or old[0] != 0:
        return f"{ref.target}: the blob recorded ({ref.oid[:12]}) could not be read"
    new = None if now_blob is None else _git_bytes(root, timeout, "cat-file", "blob", now_blob)
    if now_blob is not None and (new is None or new[0] != 0):
        return f"{ref.target}: the blob of {path} {side} could not be read"
    with tempfile.TemporaryDirectory(prefix="foundry-diff-") as folder:
        then = os.path.join(folder, "then")
        with open(then, "wb") as out:
            out.write(old[1])
        if new is None:
            other = str(layout.root / path)
        else:
            other = os.path.join(folder, "now")
            with open(other, "wb") as out:
                out.write(new[1])
        done = _git_bytes(root, timeout, "diff", "--no-index", "--no-color", "--no-ext-diff", "--", then, other)
    if done is None:
        return f"{ref.target}: git diff did not end within {timeout:g} s"
    if done[0] not in (0, 1):
        return f"{ref.target}: git diff failed (status {done[0]})"
    lines = done[1].decode("utf-8", "replace").splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("@@") or line.startswith("Binary")), len(lines))
    moved = f" (moved from {ref.path})" if state.moved_to else ""
    body = "\n".join(lines[first:]) or "(the same text: only the mode or the line ends differ)"
    text = f"--- {ref.path}@{ref.oid[:12]} (when written)\n+++ {path} ({side}){moved}\n{body}"
    if len(text) > max_chars:
        cut = text.rfind("\n", 0, max_chars)
        text = f"{text[: cut if cut > 0 else max_chars]}\n… cut at {max_chars} characters of {len(text)}"
    return text


# ---- watching: what a long-lived process watches to keep the states current -----------------

# The folders a watcher watches at most for the files active facts cite (each one flat, never
# recursively): beyond it the rest are left out, and their states follow at the next load.
MAX_WATCHED = 512
# The git files whose change can change a state that no cited file's own change shows: the
# index (a glob's digest is read from it; a commit, a checkout, a staged rename rewrite it)
# and HEAD (a folder's tree is read at HEAD; a switch of branch moves it).
GIT_FILES = frozenset({"index", "HEAD"})


class CodeWatch:
    """What to watch so that the states of `refs` stay current, bounded by the refs, never by
    the repository: the folder of each cited file, flat (only the cited files' own events
    count, never their siblings'), and git's own folder, flat (only GIT_FILES count), when
    the project is in git. A cited folder or glob is never walked: its state is read from
    the index and HEAD. Paths git ignores, inside `.git` or under `.foundry/` (the app
    watches it already) are left out; at most MAX_WATCHED folders (`omitted`: how many
    more there were)."""

    __slots__ = ("cited", "files", "folders", "git_dir", "omitted")

    def __init__(self, folders: tuple[str, ...], files: frozenset[str], git_dir: str | None, omitted: int) -> None:
        self.folders = folders  # absolute, sorted; the git folder last when there is one
        self.files = files  # the cited files, absolute
        self.git_dir = git_dir
        self.omitted = omitted
        self.cited: frozenset[str] = frozenset()  # the refs' paths it was planned for (grounding.code_watch)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CodeWatch) and (other.folders, other.files, other.git_dir) == (
            self.folders,
            self.files,
            self.git_dir,
        )

    def __hash__(self) -> int:
        return hash((self.folders, self.files, self.git_dir))

    def relevant(self, paths: Iterable[str]) -> frozenset[str]:
        """Those of `paths` (absolute, as a watcher reports them) that may change a state."""
        found = set()
        for path in paths:
            in_git = self.git_dir is not None and os.path.dirname(path) == self.git_dir
            if path in self.files or (in_git and os.path.basename(path) in GIT_FILES):
                found.add(path)
        return frozenset(found)


def watch_places(layout: Layout, refs: Iterable[Ref], limit: int = MAX_WATCHED) -> CodeWatch:
    """What a watcher watches for `refs` (see CodeWatch): one `git check-ignore` and one
    `git rev-parse` whatever their number; nothing is walked."""
    root = layout.root
    foundry = layout.relative(layout.foundry).strip("/") + "/"
    files: set[str] = set()
    wanted_git = False
    for ref in refs:
        if ref.is_glob:
            wanted_git = True
            continue
        path = ref.path
        if path.startswith(foundry) or path.startswith(".git/") or path == ".git":
            continue
        if os.path.isdir(root / path):
            wanted_git = True  # a folder's tree is read at HEAD
            continue
        files.add(path)
    kept = sorted(files - _ignored(root, sorted(files)))
    by_folder: dict[str, list[str]] = {}
    for path in kept:
        folder = os.path.dirname(path)
        if os.path.isdir(root / folder if folder else root):
            by_folder.setdefault(folder, []).append(path)
        else:
            wanted_git = True  # its folder is gone too: a checkout that brings it back rewrites the index
    chosen = sorted(by_folder)[:limit]
    omitted = max(0, len(by_folder) - limit)
    git_dir = _git_dir(root) if (kept or wanted_git) else None
    folders = [str(root / folder) if folder else str(root) for folder in chosen]
    watched = frozenset(str(root / path) for folder in chosen for path in by_folder[folder])
    if git_dir is not None:
        folders.append(git_dir)
    return CodeWatch(tuple(folders), watched, git_dir, omitted)


def _git_dir(root: Path) -> str | None:
    """The repository's git folder, absolute (a linked worktree's own), or None outside git."""
    done = _git(root, "rev-parse", "--absolute-git-dir")
    if done is None or done.returncode != 0:
        return None
    text = done.stdout.decode("utf-8", "surrogateescape").strip()
    return text if text and os.path.isdir(text) else None


def citers(facts: Iterable[tuple[str, Sequence[Ref]]], paths: Iterable[str]) -> dict[str, list[str]]:
    """path -> the ids of the facts whose refs name it (the file, a folder holding it, a glob
    matching it), for each of `paths` (root-relative) that one cites, in the facts' order.
    One dictionary look-up per folder of each path, and each glob compiled once: a commit of
    thousands of files against thousands of facts stays linear."""
    exact: dict[str, list[str]] = {}
    globs: list[tuple[re.Pattern[str], str]] = []
    for fact_id, refs in facts:
        for ref in refs:
            if ref.is_glob:
                globs.append((glob_regex(ref.path), fact_id))
            else:
                citing_ids = exact.setdefault(ref.path, [])
                if fact_id not in citing_ids:
                    citing_ids.append(fact_id)
    found: dict[str, list[str]] = {}
    for raw in paths:
        path = raw.strip("/")
        if not path:
            continue
        ids: list[str] = []
        parts = path.split("/")
        for end in range(len(parts), 0, -1):
            ids += [i for i in exact.get("/".join(parts[:end]), ()) if i not in ids]
        ids += [i for regex, i in globs if i not in ids and regex.fullmatch(path)]
        if ids:
            found[path] = ids
    return found
