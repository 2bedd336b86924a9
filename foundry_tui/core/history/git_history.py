"""The memory's history in git: facts as of a revision, `memory log` and `memory diff`.

Everything here reads git objects (`git ls-tree`, `git cat-file --batch`, `git log --raw`)
and never the working tree, so a past revision is read exactly as it was committed and
nothing on disk changes. Each git failure the user can cause (not a repository, a
shallow clone, an unknown revision) becomes one FoundryError line.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from foundry_tui.core.errors import FoundryError, InputError
from foundry_tui.core.memory.model.facts import (
    MAX_FACT_FILE_BYTES,
    MERGED_FROM,
    RENUMBERED_FROM,
    Fact,
    FactFileError,
    escape_controls,
    parse_fact_text,
)
from foundry_tui.core.paths import MAX_FILE_BYTES, Layout, fact_file_name

if TYPE_CHECKING:
    from foundry_tui.core.code_refs import Ref
    from foundry_tui.core.json_types import JSONObject

ZERO_SHA = "0" * 40


class GitError(FoundryError):
    """git refused or is missing; the message is one line naming what to do."""


GIT_TIMEOUT = 120.0


def run_git(
    cwd: Path, *args: str, stdin: bytes | None = None, check: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """Run git in `cwd` with no pager and no prompts; a failure raises GitError with git's first line.

    Where the system has process descriptors (Linux), git reads its input from, and writes
    its output to, unnamed temporary files, and this thread waits once for it to exit: no
    pipe is pumped in Python. With pipes each chunk (4 KiB written, 32 KiB read) gives the
    interpreter's lock up and waits to take it back, and beside busy threads (the TUI's)
    each wait is a switch interval: the Health screen's first read of a long history took
    twice as long in the app as alone. Elsewhere, pipes (waiting without a descriptor
    polls, up to 50 ms a time)."""
    import os

    command = ["git", "-c", "core.quotepath=off", *args]
    try:
        if hasattr(os, "pidfd_open"):
            done = _run_through_files(command, cwd, stdin)
        else:
            done = subprocess.run(
                command, cwd=cwd, input=stdin, capture_output=True, timeout=GIT_TIMEOUT, env=_git_env()
            )
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH): install git to read the memory's history") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took over {GIT_TIMEOUT:.0f} seconds: try a narrower --since") from None
    if check and done.returncode != 0:
        first = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["(no message)"])[0]
        raise GitError(f"git {args[0]} failed: {first}")
    return done


def _run_through_files(command: list[str], cwd: Path, stdin: bytes | None) -> subprocess.CompletedProcess[bytes]:
    """`command` with temporary files for its input and output, waited for on its process
    descriptor (at most GIT_TIMEOUT); killed and reaped if the wait ends any other way."""
    import contextlib
    import os
    import select
    import tempfile

    with contextlib.ExitStack() as files:
        try:
            out, err, given = (files.enter_context(tempfile.TemporaryFile()) for _ in range(3))
            if stdin is not None:
                given.write(stdin)
                given.seek(0)
        except OSError as exc:  # (not FileNotFoundError's "git is not installed")
            raise GitError(f"no temporary file for git's input and output ({exc.strerror}): check TMPDIR") from None
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=given if stdin is not None else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=_git_env(),
        )
        try:
            try:
                descriptor = os.pidfd_open(proc.pid)
            except OSError:  # a kernel without them: the polling wait
                proc.wait(GIT_TIMEOUT)
            else:
                try:
                    poller = select.poll()  # (not select.select: a descriptor past 1023 is fine)
                    poller.register(descriptor, select.POLLIN)
                    if not poller.poll(GIT_TIMEOUT * 1000):
                        raise subprocess.TimeoutExpired(command, GIT_TIMEOUT)
                finally:
                    os.close(descriptor)
                proc.wait()
        except BaseException:  # a time-out, an interrupt: git does not outlive the wait
            proc.kill()
            proc.wait()
            raise
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(command, proc.returncode, out.read(), err.read())


def run_git_split(cwd: Path, args: tuple[str, ...], stdins: list[bytes]) -> list[bytes]:
    """`git ARGS` once per input, the processes running at the same time (a second core
    halves a long read); their outputs in the inputs' order. A failure raises GitError."""
    if len(stdins) == 1:
        return [run_git(cwd, *args, stdin=stdins[0]).stdout]
    import threading

    outputs: list[bytes | BaseException] = [b""] * len(stdins)

    def run(number: int) -> None:
        try:
            outputs[number] = run_git(cwd, *args, stdin=stdins[number]).stdout
        except BaseException as exc:  # raised below, in the caller's thread
            outputs[number] = exc

    threads = [threading.Thread(target=run, args=(n,), daemon=True) for n in range(1, len(stdins))]
    for thread in threads:
        thread.start()
    run(0)
    for thread in threads:
        thread.join()
    for output in outputs:
        if isinstance(output, BaseException):
            raise output
    return [output for output in outputs if isinstance(output, bytes)]


def split_evenly(items: list[str], parts: int) -> list[list[str]]:
    """`items` cut into at most `parts` runs of consecutive items (none empty)."""
    size = -(-len(items) // max(parts, 1))
    return [items[start : start + size] for start in range(0, len(items), size)] if items else []


def _git_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C"})
    return env


class Repo:
    """The git repository that holds a Foundry root, and the memory's paths inside it."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        proc = run_git(layout.root, "rev-parse", "--show-toplevel", "--git-dir", "--is-shallow-repository", check=False)
        if proc.returncode != 0:
            raise GitError(
                f"{layout.root} is not in a git repository: the memory's history lives in git (run `git init`, or use a clone)"
            )
        top, git_dir, shallow = proc.stdout.decode().splitlines()[:3]
        self.top = Path(top)
        self.git_dir = Path(git_dir) if Path(git_dir).is_absolute() else layout.root / git_dir
        self.shallow = shallow.strip() == "true"
        self.facts_path = layout.facts_dir.resolve().relative_to(self.top.resolve()).as_posix()
        self.index_path = layout.index_path.resolve().relative_to(self.top.resolve()).as_posix()

    def git(self, *args: str, stdin: bytes | None = None) -> str:
        return run_git(self.top, *args, stdin=stdin).stdout.decode("utf-8", "replace")

    def commit(self, rev: str) -> str:
        """The full commit id `rev` names; an unknown revision is InputError (exit 2)."""
        proc = run_git(
            self.top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False
        )
        if proc.returncode != 0:
            hint = " (this is a shallow clone: `git fetch --unshallow` brings the rest)" if self.shallow else ""
            raise InputError(f"revision '{rev}' does not exist in this repository{hint}: give a commit, branch or tag")
        return proc.stdout.decode().strip()

    def has_head(self) -> bool:
        return run_git(self.top, "rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode == 0

    def tree(self, rev: str) -> str:
        """The id of the tree a commit id `rev` holds."""
        return self.git("rev-parse", "--verify", f"{rev}^{{tree}}").strip()

    def fact_blobs(self, rev: str) -> dict[str, str]:
        """File name → blob id of every fact file at `rev` (a commit id)."""
        out = self.git("ls-tree", "-z", rev, "--", self.facts_path + "/")
        blobs = {}
        for entry in out.split("\0"):
            if not entry:
                continue
            meta, path = entry.split("\t", 1)
            _mode, kind, sha = meta.split()
            name = path.rsplit("/", 1)[-1]
            # (a name holding `/`, such as `../x.md`, would pass for another folder's file)
            if kind == "blob" and _is_fact_name(name) and path == f"{self.facts_path}/{name}":
                blobs[name] = sha
        return blobs

    def blob_sizes(self, shas: list[str]) -> dict[str, int]:
        """The size of each of `shas` that is a blob (`git cat-file --batch-check`: only the
        objects' headers are read); missing objects and other kinds are left out."""
        if not shas:
            return {}
        out = run_git(self.top, "cat-file", "--batch-check", stdin=("\n".join(shas) + "\n").encode()).stdout
        sizes: dict[str, int] = {}
        for sha, line in zip(shas, out.decode("ascii", "replace").splitlines(), strict=False):
            fields = line.split()  # `<sha> blob <size>`, or `<sha> missing`
            if len(fields) == 3 and fields[1] == "blob" and fields[2].isdigit():
                sizes[sha] = int(fields[2])
        return sizes

    def read_blobs(
        self,
        shas: Iterable[str],
        parts: int = 1,
        limit: int = MAX_FACT_FILE_BYTES,
        *,
        limits: Mapping[str, int] | None = None,
    ) -> dict[str, bytes]:
        """The contents of many blobs in one `git cat-file --batch` call (or `parts`
        calls at the same time, each reading a run of them in the order given).

        Only blobs of at most `limit` bytes (`limits[sha]` where given) are read: their sizes
        are asked first, and a larger one is left out as a file over the loader's limit is
        never read on disk (a 400 MB blob compresses to 2 MB in a repository)."""
        wanted = list(dict.fromkeys(s for s in shas if s != ZERO_SHA))
        sizes = self.blob_sizes(wanted)
        limits = limits or {}
        return self.read_sized([sha for sha in wanted if sha in sizes and sizes[sha] <= limits.get(sha, limit)], parts)

    def read_sized(self, wanted: list[str], parts: int = 1) -> dict[str, bytes]:
        """read_blobs for blobs whose sizes were checked already (blob_sizes)."""
        if not wanted:
            return {}
        chunks = split_evenly(wanted, parts)
        # --buffer: git writes the objects in large chunks rather than flushing after each one.
        outputs = run_git_split(
            self.top, ("cat-file", "--batch", "--buffer"), [("\n".join(chunk) + "\n").encode() for chunk in chunks]
        )
        contents: dict[str, bytes] = {}
        for chunk, out in zip(chunks, outputs, strict=True):
            pos = 0
            for sha in chunk:
                end = out.index(b"\n", pos)
                header = out[pos:end].split()
                pos = end + 1
                if len(header) < 3 or header[1] == b"missing":
                    continue
                size = int(header[2])
                contents[sha] = out[pos : pos + size]
                pos += size + 1
        return contents

    def facts_at(self, rev: str) -> dict[str, Fact]:
        """Every fact that loads at `rev`, by id (files that do not load are left out)."""
        blobs = self.fact_blobs(rev)
        contents = self.read_blobs(list(blobs.values()))
        facts: dict[str, Fact] = {}
        for name, sha in blobs.items():
            fact = _parse(contents.get(sha), name[:-3])
            if fact is not None:
                facts[fact.id] = fact
        return facts


def _is_fact_name(name: str) -> bool:
    return name.endswith(".md") and not name.startswith(".")


def _parse(data: bytes | None, stem: str | None) -> Fact | None:
    if data is None:
        return None
    try:
        return parse_fact_text(data.decode("utf-8"), stem)
    except (FactFileError, UnicodeDecodeError):
        return None


# ---- what changed: the events of `memory log` and the entries of `memory diff` -------------


@dataclass
class MemoryEvent:
    """One thing that happened to one fact: created, superseded, merged, renumbered, expired, changed, deleted."""

    action: str
    fact_id: str
    title: str
    detail: str = ""
    commit: str = ""
    author: str = ""
    date: str = ""
    subject: str = ""
    # A "code" event (CODE_ACTION, issue 30): the cited files a commit changed, and the facts
    # whose refs name them; `fact_id` is then empty.
    code: list[CodeTouch] = field(default_factory=list)
    code_more: int = 0  # cited files changed beyond MAX_CODE_LINES

    @property
    def facts(self) -> list[str]:
        """The facts a code event's files are cited by, each once, in the files' order."""
        return list(dict.fromkeys(fid for touch in self.code for fid in touch.facts))

    @property
    def shown_id(self) -> str:
        """The fact's id, or for a code event how many facts' refs it changed."""
        if self.action != CODE_ACTION:
            return self.fact_id
        count = len(self.facts)
        return f"{count} fact{'s' if count != 1 else ''}"

    def to_dict(self) -> JSONObject:
        data: JSONObject = {"action": self.action, "id": self.fact_id, "title": self.title, "detail": self.detail}
        if self.action == CODE_ACTION:
            data.update(facts=list(self.facts), code=[touch.to_dict() for touch in self.code], code_more=self.code_more)
        if self.commit:
            data.update(commit=self.commit, author=self.author, date=self.date, subject=self.subject)
        return data

    def line(self) -> str:
        detail = f"({self.detail})" if self.detail else ""
        return f"{self.action:<10} {self.shown_id}  " + " ".join(p for p in (self.title, detail) if p)


def fact_events(old: Fact | None, new: Fact | None) -> list[MemoryEvent]:
    """What turning `old` into `new` (same file; either may be absent) did to the memory."""
    if new is None:
        return [MemoryEvent("deleted", old.id, old.title)] if old is not None else []
    if old is None or old.id != new.id or old.fingerprint != new.fingerprint:
        return _created_events(new)
    events = []
    renumbered = new.extras.get(RENUMBERED_FROM)
    if renumbered and renumbered != old.extras.get(RENUMBERED_FROM):
        events.append(MemoryEvent("renumbered", new.id, new.title, f"was {renumbered}"))
    if new.expires != old.expires:
        events.append(
            MemoryEvent("expired", new.id, new.title, f"expires {new.expires}" if new.expires else "unexpired")
        )
    changes = []
    if new.tags != old.tags:
        added = [t for t in new.tags if t not in old.tags]
        removed = [t for t in old.tags if t not in new.tags]
        changes.append("tags " + " ".join([*(f"+{t}" for t in added), *(f"-{t}" for t in removed)]))
    if new.supersedes != old.supersedes:
        changes.append(f"supersedes {old.supersedes} → {new.supersedes}")
    if new.extras.get(MERGED_FROM) != old.extras.get(MERGED_FROM):
        changes.append("merged_from " + ", ".join(_merged_from(new)))
    for name in ("type", "scope", "confidence", "source", "created"):
        if getattr(new, name) != getattr(old, name):
            changes.append(f"{name} {getattr(old, name)} → {getattr(new, name)}")
    refs_change = _refs_change(old, new)
    if refs_change:
        changes.append(refs_change)
    if changes:
        events.append(MemoryEvent("changed", new.id, new.title, "; ".join(changes)))
    return events


def _refs_change(old: Fact, new: Fact) -> str:
    """`refs +a.py -b.py`, `refs re-recorded a.py` (same path, another object id) or ""."""
    from foundry_tui.core.code_refs import refs_of

    before, after = refs_of(old.extras), refs_of(new.extras)
    if before == after:
        return ""
    old_ids = {r.target: r.oid for r in before}
    new_ids = {r.target: r.oid for r in after}
    parts = [f"+{t}" for t in new_ids if t not in old_ids] + [f"-{t}" for t in old_ids if t not in new_ids]
    again = [t for t in new_ids if t in old_ids and new_ids[t] != old_ids[t]]
    text = "refs " + " ".join(parts) if parts else ""
    if again:
        text += ("; " if text else "") + "refs re-recorded " + ", ".join(again)
    return text


def _refs_detail(fact: Fact) -> str:
    """`refs a.py, b.py` for a new version that has refs, else ""."""
    from foundry_tui.core.code_refs import refs_of

    refs = refs_of(fact.extras)
    return "refs " + ", ".join(r.target for r in refs) if refs else ""


def _merged_from(fact: Fact) -> list[str]:
    merged = fact.extras.get(MERGED_FROM)
    return [str(m) for m in merged] if isinstance(merged, list) else []


def _created_events(new: Fact) -> list[MemoryEvent]:
    renumbered = new.extras.get(RENUMBERED_FROM)
    if renumbered:
        return [MemoryEvent("renumbered", new.id, new.title, f"was {renumbered}")]
    merged = _merged_from(new)
    if merged:
        events = [MemoryEvent("merged", new.id, new.title, f"from {', '.join(merged)}")]
        return events + [MemoryEvent("superseded", m, "", f"merged into {new.id}") for m in merged]
    refs = _refs_detail(new)  # when the fact's refs were recorded (issue 30)
    if new.supersedes:
        detail = f"supersedes {new.supersedes}" + (f"; {refs}" if refs else "")
        return [
            MemoryEvent("created", new.id, new.title, detail),
            MemoryEvent("superseded", new.supersedes, "", f"by {new.id}"),
        ]
    return [MemoryEvent("created", new.id, new.title, refs)]


@dataclass
class CodeTouch:
    """A file a commit changed that facts cite (issue 30): how it changed, where a rename took
    it, and the facts whose refs name it (the file, a folder above it, a glob)."""

    path: str
    change: str  # added, modified, deleted, renamed, type changed
    facts: list[str]
    moved_to: str | None = None

    def line(self) -> str:
        where = f" to {self.moved_to}" if self.moved_to else ""
        return f"{'code':<10} {escape_controls(self.path)} {self.change}{escape_controls(where)}, cited by {', '.join(self.facts)}"

    def to_dict(self) -> JSONObject:
        return {"path": self.path, "change": self.change, "moved_to": self.moved_to, "facts": list(self.facts)}


@dataclass
class MemoryDiff:
    rev1: str
    rev2: str
    events: list[MemoryEvent] = field(default_factory=list)
    counts: tuple[int, int] = (0, 0)
    code: list[CodeTouch] = field(default_factory=list)  # commit_changes only: the cited code it changed
    code_more: int = 0  # cited files changed beyond MAX_CODE_LINES

    def text(self) -> str:
        head = f"memory {self.rev1}..{self.rev2}: {self.counts[0]} → {self.counts[1]} facts"
        lines = [head + ("" if self.events else "; no fact changed"), *(e.line() for e in self.events)]
        lines += [touch.line() for touch in self.code]
        if self.code_more:
            lines.append(f"{'code':<10} … and {self.code_more} more cited files changed (`foundry memory verify`)")
        return "\n".join(lines)

    def to_dict(self) -> JSONObject:
        return {
            "from": self.rev1,
            "to": self.rev2,
            "facts_before": self.counts[0],
            "facts_after": self.counts[1],
            "changes": [e.to_dict() for e in self.events],
            **({"code": [touch.to_dict() for touch in self.code]} if self.code else {}),
        }


def memory_diff(layout: Layout, rev1: str, rev2: str) -> MemoryDiff:
    """The memory's change from `rev1` to `rev2`, fact by fact (files, not lines)."""
    repo = Repo(layout)
    commit1, commit2 = repo.commit(rev1), repo.commit(rev2)
    blobs1, blobs2 = repo.fact_blobs(commit1), repo.fact_blobs(commit2)
    changed = sorted(
        (n for n in blobs1.keys() | blobs2.keys() if blobs1.get(n) != blobs2.get(n)), key=lambda n: (len(n), n)
    )
    contents = repo.read_blobs([b[n] for b in (blobs1, blobs2) for n in changed if n in b])
    diff = MemoryDiff(rev1, rev2, counts=(len(blobs1), len(blobs2)))
    for name in changed:
        old = _parse(contents.get(blobs1.get(name, ZERO_SHA)), name[:-3])
        new = _parse(contents.get(blobs2.get(name, ZERO_SHA)), name[:-3])
        diff.events += fact_events(old, new)
    # A superseded fact's own file did not change: read it for its title.
    untitled = [
        blobs2[fact_file_name(e.fact_id)] for e in diff.events if not e.title and fact_file_name(e.fact_id) in blobs2
    ]
    contents.update(repo.read_blobs(untitled))
    _fill_titles(diff.events, contents, blobs2)
    return diff


def _fill_titles(events: list[MemoryEvent], contents: dict[str, bytes], blobs: dict[str, str]) -> list[MemoryEvent]:
    for event in events:
        if not event.title:
            fact = _parse(contents.get(blobs.get(fact_file_name(event.fact_id), ZERO_SHA)), event.fact_id)
            event.title = fact.title if fact is not None else ""
    return events


@dataclass
class MemoryLog:
    events: list[MemoryEvent]
    since: str | None
    code_more: int = 0  # commits that changed cited code beyond MAX_CODE_COMMITS (counted, not listed)

    def text(self) -> str:
        if not self.events:
            return "memory log: no fact changed" + (f" since {self.since}" if self.since else "")
        lines = []
        for e in self.events:
            lines.append(f"{e.commit[:8]} {e.date} {e.author:<12} {e.line()}")
        if self.code_more:
            lines.append(code_more_line(self.code_more))
        return "\n".join(lines)

    def to_dict(self) -> JSONObject:
        data: JSONObject = {"since": self.since, "events": [e.to_dict() for e in self.events]}
        if self.code_more:
            data["code_more"] = self.code_more
        return data


CODE_ACTION = "code"  # a commit that changed files active facts cite (issue 30): `memory log`'s and History's rows
MAX_CODE_COMMITS = 200  # commits whose cited-code changes the log lists (newest first); the rest are counted
MAX_CODE_PATHSPECS = 64  # pathspecs given to git log (it matches each path against each); beyond, their folders
MAX_LOG_CODE_FILES = 3  # cited files a code event's line names, beyond which it counts the rest


def code_more_line(count: int) -> str:
    """The log's last line when more commits changed cited code than it lists."""
    noun = "commit" if count == 1 else "commits"
    return f"… and {count} more {noun} changed code that facts cite (older than the {MAX_CODE_COMMITS} listed)"


def _touch_text(touch: CodeTouch) -> str:
    where = f" to {escape_controls(touch.moved_to)}" if touch.moved_to else ""
    return f"{escape_controls(touch.path)} {touch.change}{where}"


def code_event(touches: list[CodeTouch]) -> MemoryEvent:
    """A code event: the files changed (at most MAX_CODE_LINES kept, the rest counted), the
    facts whose refs they are in its detail."""
    event = MemoryEvent(
        CODE_ACTION, "", "", code=touches[:MAX_CODE_LINES], code_more=max(0, len(touches) - MAX_CODE_LINES)
    )
    event.title = code_title(event)
    event.detail = "cited by " + ", ".join(event.facts)
    return event


def code_title(event: MemoryEvent) -> str:
    """`refs changed: ` and the first MAX_LOG_CODE_FILES files with how each changed, the rest counted."""
    named = [_touch_text(t) for t in event.code[:MAX_LOG_CODE_FILES]]
    rest = len(event.code) + event.code_more - len(named)
    more = f" and {rest} more file{'s' if rest != 1 else ''}" if rest else ""
    return "refs changed: " + ", ".join(named) + more


def _cited_facts(repo: Repo, head: str, parsed: dict[str, Fact | None]) -> list[tuple[str, tuple[Ref, ...]]]:
    """The facts at `head` that are not replaced by another and cite something, by id order,
    with their refs (the memory's own files left out: they are not code). Their blobs'
    parses are kept in `parsed` (blob id -> Fact), for the log to reuse."""
    from foundry_tui.core.code_refs import refs_of

    blobs = repo.fact_blobs(head)
    missing = [sha for sha in blobs.values() if sha not in parsed]
    contents = repo.read_blobs(missing)
    for name, sha in blobs.items():
        if sha in missing:
            parsed[sha] = _parse(contents.get(sha), name[:-3])
    facts = {f.id: f for f in (parsed[sha] for sha in blobs.values()) if f is not None}
    replaced = {rid for f in facts.values() for rid in f.replaced_ids()}
    memory = repo.layout.relative(repo.layout.foundry).strip("/") + "/"
    cited = []
    for fact in sorted(facts.values(), key=lambda f: (len(f.id), f.id)):
        refs = tuple(r for r in refs_of(fact.extras) if not (r.path + "/").startswith(memory))
        if refs and fact.id not in replaced:
            cited.append((fact.id, refs))
    return cited


def _code_pathspecs(prefix: str, cited: list[tuple[str, tuple[Ref, ...]]]) -> list[str]:
    """git pathspecs (from the repository's top) covering every path the cited refs name: a
    plain path literally, a glob as git's glob (the matches are checked again, by the refs'
    own rules). git matches each path against every pathspec, so beyond MAX_CODE_PATHSPECS
    distinct ones the folders they are in stand for them, one level up at a time (a glob:
    the folder above its first wildcard), down to the whole root: a superset, the files
    are checked against the refs again."""
    whole = [f":(literal){prefix}" if prefix else "."]
    paths = {ref.path.strip("/") for _fid, refs in cited for ref in refs if ref.path.strip("/")}
    while len(paths) > MAX_CODE_PATHSPECS:
        up = {_folder_above(p) for p in paths}
        if "" in up or up == paths:
            return whole
        paths = {p for p in up if not any(p.startswith(q + "/") for q in _leading_folders(p) & up)}
    return [f"{':(glob)' if ref_is_glob(p) else ':(literal)'}{prefix}{p}" for p in sorted(paths)]


def _folder_above(path: str) -> str:
    """The folder holding `path` ("" at the top); for a glob, the folder above its first wildcard."""
    parts = path.split("/")
    wild = next((n for n, part in enumerate(parts) if ref_is_glob(part)), len(parts))
    return "/".join(parts[: min(wild, len(parts) - 1)])


def _leading_folders(path: str) -> set[str]:
    parts = path.split("/")
    return {"/".join(parts[:end]) for end in range(1, len(parts))}


def ref_is_glob(path: str) -> bool:
    return any(c in path for c in "*?[")


def _change_of(old_shas: list[str], new_sha: str) -> str:
    if new_sha == ZERO_SHA:
        return "deleted"
    return "added" if all(sha == ZERO_SHA for sha in old_shas) else "modified"


def _renames(repo: Repo, commits: list[str]) -> dict[tuple[str, str], str]:
    """(commit, old path) -> new path for each rename git's detection finds in `commits`
    (one `git diff-tree --stdin` for all of them; paths from the repository's top)."""
    if not commits:
        return {}
    out = repo.git(
        "diff-tree", "--stdin", "-r", "-M", "-z", "--name-status", stdin=("\n".join(commits) + "\n").encode()
    )
    fields = out.split("\0")
    moved: dict[tuple[str, str], str] = {}
    commit, i = "", 0
    while i < len(fields):
        item = fields[i].lstrip("\n")
        if _is_object_id(item):
            commit, i = item, i + 1
        elif item[:1] in ("R", "C") and i + 2 < len(fields):
            if item[:1] == "R":
                moved[(commit, fields[i + 1])] = fields[i + 2]
            i += 3
        else:
            i += 2 if item else 1
    return moved


def memory_log(layout: Layout, since: str | None = None) -> MemoryLog:
    """Each fact event, newest commit first, with the commit, author and date that made it;
    and after a commit's fact events, a code event when it changed files that active facts
    cite (issue 30).

    A merge commit reports only what the merge itself made (files that differ from every
    parent, as `git log -c` lists them): a fact brought in from a branch is reported once,
    at the branch's commit that wrote it.

    The code events read the same one `git log` as the facts, its paths the memory's folder
    and every path the facts active at HEAD cite: a commit counts for a fact only after the
    commit that created it (the one that recorded its refs), and at most MAX_CODE_COMMITS are
    listed, the rest counted. Renames are found by one `git diff-tree --stdin` over the
    listed commits that deleted a cited file."""
    repo = Repo(layout)
    if repo.shallow:
        raise GitError("this is a shallow clone: its history is incomplete; run `git fetch --unshallow` first")
    if not repo.has_head():
        return MemoryLog([], since)
    span = f"{repo.commit(since)}..HEAD" if since else "HEAD"
    parsed: dict[str, Fact | None] = {}
    cited = _cited_facts(repo, repo.commit("HEAD"), parsed)
    root_rel = layout.root.resolve().relative_to(repo.top.resolve()).as_posix()
    prefix = "" if root_rel == "." else root_rel + "/"
    out = repo.git(
        "log", "-c", "--raw", "--no-renames", "--no-abbrev", "-z", "--format=%H%x00%an%x00%ad%x00%s",
        "--date=short", span, "--", repo.facts_path + "/", *_code_pathspecs(prefix, cited),
    )  # fmt: skip
    commits = parse_log_records(out)
    facts_dir = repo.facts_path + "/"
    wanted = {sha for _h, ch in commits for olds, new, p in ch if p.startswith(facts_dir) for sha in (*olds, new)}
    contents = repo.read_blobs([sha for sha in wanted if sha not in parsed])

    def fact_of(sha: str, stem: str) -> Fact | None:
        if sha not in parsed:
            parsed[sha] = _parse(contents.get(sha), stem)
        return parsed[sha]

    from foundry_tui.core.code_refs import citers

    memory = layout.relative(layout.foundry).strip("/") + "/"
    code_paths = {
        p[len(prefix) :]
        for _h, ch in commits
        for _o, _n, p in ch
        if not p.startswith(facts_dir) and p.startswith(prefix) and refused_path_reason(p) is None
    }
    citing = citers(cited, (p for p in code_paths if not p.startswith(memory))) if cited else {}
    born: set[str] = set()  # facts created at this commit or a newer one: older code did not change their refs
    events: list[MemoryEvent] = []
    code_events: list[MemoryEvent] = []
    code_more = 0
    for (sha, author, date, subject), changes in commits:
        commit_events: list[MemoryEvent] = []
        code_changes: list[tuple[str, str]] = []
        for old_shas, new_sha, path in sorted(changes, key=lambda c: (len(c[2]), c[2])):
            if not path.startswith(facts_dir):
                if path[len(prefix) :] in citing and path.startswith(prefix):
                    code_changes.append((path[len(prefix) :], _change_of(old_shas, new_sha)))
                continue
            name = path.rsplit("/", 1)[-1]
            if not _is_fact_name(name) or refused_path_reason(path) is not None:
                continue
            new = fact_of(new_sha, name[:-3])
            olds = [fact_of(old_sha, name[:-3]) for old_sha in old_shas]
            # A merge that relinked a fact from its second parent changed that fact, not created it.
            old = next(
                (o for o in olds if o is not None and new is not None and o.fingerprint == new.fingerprint), None
            )
            commit_events += fact_events(old if old is not None else (olds[0] if olds else None), new)
        born.update(e.fact_id for e in commit_events if e.action in ("created", "merged", "renumbered"))
        touches = []
        for path, change in code_changes:
            ids = [fid for fid in citing[path] if fid not in born]
            if ids:
                touches.append(CodeTouch(path, change, ids))
        if touches:
            if len(code_events) < MAX_CODE_COMMITS:
                code_events.append(code_event(touches))
                code_events[-1].commit = sha
                commit_events.append(code_events[-1])
            else:
                code_more += 1
        for event in commit_events:
            event.commit, event.author, event.date, event.subject = sha, author, date, subject
        events += commit_events
    _name_renames(repo, prefix, code_events)
    return MemoryLog(events, since, code_more)


def _name_renames(repo: Repo, prefix: str, code_events: list[MemoryEvent]) -> None:
    """A cited file a listed commit deleted that git's rename detection finds moved is
    `renamed` (to its new path, no longer listed as added), and the event's title says so."""
    deleting = [e.commit for e in code_events if any(t.change == "deleted" for t in e.code)]
    moved = _renames(repo, deleting)
    for event in code_events:
        again = False
        for touch in event.code:
            new = moved.get((event.commit, prefix + touch.path))
            if touch.change == "deleted" and new is not None and new.startswith(prefix):
                touch.change, touch.moved_to, again = "renamed", new[len(prefix) :], True
        if again:  # the new path, when cited too, was listed as added: the rename says it
            targets = {t.moved_to for t in event.code if t.moved_to}
            event.code = [t for t in event.code if not (t.change == "added" and t.path in targets)]
            event.title = code_title(event)
            event.detail = "cited by " + ", ".join(event.facts)


LOG_HEADER_FIELDS = 4  # %H, %an, %ad, %s: memory_log's --format
# A commit's changes in `git log --raw -z`: `:MODES SHAS STATUS` NUL path NUL, one colon
# per parent (`-c` lists a merge's against all of them).
LogCommit = tuple[list[str], list[tuple[list[str], str, str]]]


def parse_log_records(out: str) -> list[LogCommit]:
    """The commits of memory_log's `git log -z --raw` output: each one's header fields and
    its changes (the parents' blob ids, the result's, the path).

    Every field ends in NUL and nothing else is a separator: a subject may hold any other
    byte (git cuts a message at NUL), so a record is its four header fields in order, then
    as many `:`-led change fields (each followed by its path) as there are, or an empty
    field when there is none. A record that
    is not so (a header that does not start with a commit id, a change short of its ids or
    its path) is a GitError, not a commit silently lost."""
    fields = out.split("\0")
    if fields and fields[-1] == "":
        fields.pop()  # the last field's NUL
    commits: list[LogCommit] = []
    pos = 0
    while pos < len(fields):
        head = fields[pos : pos + LOG_HEADER_FIELDS]
        head[0] = head[0].lstrip("\n")  # records after the first start on a new line
        if len(head) != LOG_HEADER_FIELDS or not _is_object_id(head[0]):
            raise GitError(f"git log gave a record this reader does not understand: {escape_controls(head[0][:80])!r}")
        pos += LOG_HEADER_FIELDS
        if pos < len(fields) and fields[pos] == "":
            pos += 1  # a commit with no change listed (a merge that made none of its own) ends in an empty field
        changes = []
        while pos < len(fields) and fields[pos].lstrip("\n").startswith(":"):
            meta = fields[pos].lstrip("\n")
            parents = len(meta) - len(meta.lstrip(":"))
            parts = meta.lstrip(":").split()
            shas = parts[parents + 1 : 2 * parents + 2]
            if pos + 1 >= len(fields) or len(parts) != 2 * parents + 3 or not all(map(_is_object_id, shas)):
                raise GitError(f"git log gave a change this reader does not understand: {escape_controls(meta[:80])!r}")
            changes.append((shas[:-1], shas[-1], fields[pos + 1]))
            pos += 2
        commits.append((head, changes))
    return commits


def _is_object_id(text: str) -> bool:
    """A full object id: 40 hex digits (SHA-1) or 64 (SHA-256)."""
    return len(text) in (40, 64) and not text.strip("0123456789abcdef")


MATERIALISED_PREFIX = "foundry-at-"  # the temporary folder `foundry tui --at` opens
MAX_SKIPPED_SHOWN = 3  # skipped paths named in the one-line warning; the rest are counted


def refused_path_reason(path: str) -> str | None:
    """Why a path read from git must not become a file name, or None when it may.

    git writes such trees from a bundle or an unchecked remote (only its fsck refuses
    them): a part named `..` or `.`, one named `.git` (in any case: one folder on a
    case-blind file system), an empty one (a path with `//`, or an absolute one), whether
    it is an entry's whole name or a piece of a name holding `/`."""
    if path.startswith("/"):
        return "an absolute path"
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return f"a part named '{part}'" if part else "an empty part"
        if part.lower() == ".git":
            return "a part named '.git'"
    return None


@dataclass
class Materialised:
    """What materialise wrote: the commit's short id, and each path it skipped, with why."""

    commit: str
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def warning(self) -> str:
        """One line naming the skipped paths (empty when none was)."""
        if not self.skipped:
            return ""
        shown = [f"'{escape_controls(path)}' ({reason})" for path, reason in self.skipped[:MAX_SKIPPED_SHOWN]]
        more = len(self.skipped) - len(shown)
        listed = ", ".join(shown) + (f" and {more} more" if more else "")
        noun = "path" if len(self.skipped) == 1 else "paths"
        return f"{self.commit}: {len(self.skipped)} {noun} not written from git: {listed}"


def materialise(layout: Layout, rev: str, dest: Path) -> Materialised:
    """Write the memory's files (`.foundry/` and the ADR folder) as of `rev` under `dest`, read
    from git objects (the working tree is not touched).

    Nothing is written outside `dest`: a path with a part named `..`, `.`, `.git` or empty
    is skipped (refused_path_reason), as is a blob over MAX_FILE_BYTES (no loader reads
    one), and each target is checked to be inside `dest` before it is written. What was
    skipped is in the answer; the rest of the snapshot is written."""
    repo = Repo(layout)
    commit = repo.commit(rev)
    top = repo.top.resolve()
    wanted = [p.resolve().relative_to(top).as_posix() for p in (layout.foundry, layout.adr_dir)]
    root_rel = layout.root.resolve().relative_to(top).as_posix()
    prefix = "" if root_rel == "." else root_rel + "/"
    out = repo.git("ls-tree", "-r", "-z", commit, "--", *wanted)
    done = Materialised(commit[:8])
    entries = []
    for entry in out.split("\0"):
        if entry:
            meta, path = entry.split("\t", 1)
            mode, kind, sha = meta.split()
            if kind != "blob" or mode not in ("100644", "100755"):  # no symlinks: the copy stays inside
                continue
            reason = refused_path_reason(path) or (None if path.startswith(prefix) else "outside the project")
            if reason is not None:
                done.skipped.append((path, reason))
            else:
                entries.append((path, path[len(prefix) :], sha))
    sizes = repo.blob_sizes(list(dict.fromkeys(sha for _path, _rel, sha in entries)))
    contents = repo.read_sized([sha for sha, size in sizes.items() if size <= MAX_FILE_BYTES])
    inside = dest.resolve()
    for path, relative, sha in entries:
        target = dest / relative
        if sha not in contents:
            too_big = sizes.get(sha, 0) > MAX_FILE_BYTES
            done.skipped.append((path, f"over the {MAX_FILE_BYTES // 2**20} MiB limit" if too_big else "not a blob"))
            continue
        if not target.resolve().is_relative_to(inside):
            done.skipped.append((path, "outside the folder"))
            continue
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(contents[sha])
        except (FileExistsError, IsADirectoryError, NotADirectoryError):
            done.skipped.append((path, "a file and a folder of the same name"))
    (dest / layout.relative(layout.facts_dir)).mkdir(parents=True, exist_ok=True)
    return done


@contextlib.contextmanager
def materialised(layout: Layout, rev: str) -> Iterator[tuple[Path, Materialised]]:
    """materialise into a new temporary folder, which is removed when the block ends, however
    it ends (an error, an exception raised by a signal handler: see the CLI's `tui --at`)."""
    import shutil
    import tempfile

    past = Path(tempfile.mkdtemp(prefix=MATERIALISED_PREFIX))
    try:
        yield past, materialise(layout, rev, past)
    finally:
        shutil.rmtree(past, ignore_errors=True)


@contextlib.contextmanager
def memory_at(layout: Layout, rev: str) -> Iterator[tuple[Path, Materialised]]:
    """The memory as of `rev` (`foundry tui --at REV`): materialised, and while the block lasts
    its facts' refs are verified, described and diffed against that revision's tree in this
    repository, never against the working copy (code_refs.verify_at)."""
    from foundry_tui.core.code_refs import end_verify_at, verify_at

    with materialised(layout, rev) as (past, done):
        verify_at(past, layout.root, done.commit)
        try:
            yield past, done
        finally:
            end_verify_at(past)


# ---- one commit, and what is not committed yet (the TUI's history drills into them) --------

MAX_PATCH_CHARS = 200_000  # a commit's (or the work tree's) fact diff shown, beyond which it is cut with a note
UNCOMMITTED = "uncommitted"  # the name the work tree's changes go by in `MemoryEvent.commit`


def _bounded(text: str) -> str:
    if len(text) <= MAX_PATCH_CHARS:
        return text
    return text[:MAX_PATCH_CHARS] + f"\n… (cut at {MAX_PATCH_CHARS} characters: `git show` gives the rest)\n"


def commit_changes(layout: Layout, commit: str) -> tuple[MemoryDiff, str]:
    """What `commit` did to the memory, fact by fact (`memory diff` against its first parent,
    the empty memory for a root commit), and its line diff of the fact files (bounded)."""
    repo = Repo(layout)
    sha = repo.commit(commit)
    parent = run_git(repo.top, "rev-parse", "--verify", "--quiet", f"{sha}^1", check=False)
    if parent.returncode == 0:
        diff = memory_diff(layout, parent.stdout.decode().strip(), sha)
    else:  # a root commit: every fact in it was created by it
        blobs = repo.fact_blobs(sha)
        contents = repo.read_blobs(list(blobs.values()))
        diff = MemoryDiff("(none)", sha, counts=(0, len(blobs)))
        for name in sorted(blobs, key=lambda n: (len(n), n)):
            diff.events += fact_events(None, _parse(contents.get(blobs[name]), name[:-3]))
    diff.code, diff.code_more = code_touched(
        repo, sha, parent.stdout.decode().strip() if parent.returncode == 0 else None
    )
    patch = repo.git("show", "--format=", "--no-renames", "--no-color", sha, "--", repo.facts_path + "/")
    return diff, _bounded(patch)


MAX_CODE_LINES = 50  # cited files a commit's drill-down names, beyond which it counts the rest
_CHANGES = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "T": "type changed", "C": "copied"}


def code_touched(repo: Repo, sha: str, parent: str | None) -> tuple[list[CodeTouch], int]:
    """The files under the root that `sha` changed (against `parent`, git's rename detection
    on) and that the facts at `sha` cite, superseded ones left out (issue 30): at most
    MAX_CODE_LINES, and how many more there were. One `git diff-tree`, the facts read from
    git objects; the memory's own files are not code."""
    from foundry_tui.core.code_refs import citers, refs_of

    facts = repo.facts_at(sha)
    replaced = {f.supersedes for f in facts.values() if f.supersedes}
    cited = [(f.id, refs_of(f.extras)) for f in sorted(facts.values(), key=lambda f: (len(f.id), f.id))]
    cited = [(fid, refs) for fid, refs in cited if refs and fid not in replaced]
    if not cited:
        return [], 0
    span = [parent, sha] if parent else ["--root", sha]
    out = run_git(
        repo.layout.root, "diff-tree", "-r", "-M", "--relative", "--no-commit-id", "--name-status", "-z", *span
    ).stdout.decode("utf-8", "surrogateescape")
    fields = [f for f in out.split("\0") if f]
    memory = repo.layout.relative(repo.layout.foundry).strip("/") + "/"
    changes: list[tuple[str, str, str | None]] = []
    i = 0
    while i < len(fields):
        status = fields[i][:1]
        if status in ("R", "C") and i + 2 < len(fields):
            changes.append((fields[i + 1], _CHANGES[status], fields[i + 2]))
            i += 3
        elif i + 1 < len(fields):
            changes.append((fields[i + 1], _CHANGES.get(status, "changed"), None))
            i += 2
        else:
            break
    changes = [c for c in changes if not c[0].startswith(memory) and refused_path_reason(c[0]) is None]
    citing = citers(cited, [path for path, _change, _new in changes])
    touched = [CodeTouch(path, change, citing[path], new) for path, change, new in changes if path in citing]
    return touched[:MAX_CODE_LINES], max(0, len(touched) - MAX_CODE_LINES)


def uncommitted_changes(layout: Layout) -> tuple[list[MemoryEvent], str]:
    """The fact files changed in the work tree since HEAD (untracked ones too), as events
    named UNCOMMITTED, and their line diff (bounded); nothing in a repository with no commit."""
    repo = Repo(layout)
    if not repo.has_head():
        return [], ""
    out = repo.git(
        "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", repo.facts_path + "/"
    )
    names = []
    for entry in out.split("\0"):
        path = entry[3:]
        name = path.rsplit("/", 1)[-1]
        if len(entry) > 3 and _is_fact_name(name) and path == f"{repo.facts_path}/{name}":
            names.append(name)
    names.sort(key=lambda n: (len(n), n))
    head = repo.fact_blobs(repo.commit("HEAD"))
    contents = repo.read_blobs([head[n] for n in names if n in head])
    events: list[MemoryEvent] = []
    patches = []
    for name in names:
        try:
            with (layout.facts_dir / name).open("rb") as handle:
                data: bytes | None = handle.read(MAX_FACT_FILE_BYTES + 1)
        except FileNotFoundError:
            data = None
        old = _parse(contents.get(head.get(name, ZERO_SHA)), name[:-3])
        new = _parse(data, name[:-3]) if data is not None and len(data) <= MAX_FACT_FILE_BYTES else None
        for event in fact_events(old, new):
            event.commit = UNCOMMITTED
            events.append(event)
        if name not in head and data is not None:
            body = data.decode("utf-8", "replace").splitlines()
            patches.append("\n".join([f"new file {repo.facts_path}/{name}", *(f"+{line}" for line in body)]))
    tracked = repo.git("diff", "--no-color", "--no-renames", "HEAD", "--", repo.facts_path + "/")
    return events, _bounded("\n".join(p for p in (tracked, *patches) if p))
