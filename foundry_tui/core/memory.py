"""The memory operations every interface calls: write, search, index, show, list.

`Project` bundles a root's layout, config and fact store. One-shot commands refresh
the store from disk (through the parse cache) on each call; long-lived processes
(the MCP server, the TUI) also keep a word index and a file watcher so that a
search costs milliseconds and still sees every change on disk.
"""

from __future__ import annotations

import datetime as _dt
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from .atomic import exclusive_create, folder_lock
from .config import MAX_LIMIT, Config, load_config
from .errors import InputError, NotFoundError
from .facts import (
    CONFIDENCES,
    TYPES,
    Fact,
    bold_reasoning_lines,
    check_body,
    check_choice,
    check_date,
    check_line,
    check_tags,
    check_title,
    fingerprint,
    format_id,
    normalise,
    render_fact_text,
)
from .paths import Layout
from .search import Hit, ScanFields, match_facts, query_terms, rank, render_results
from .store import Changes, FactStore

# The modules only writes and long-lived processes need are imported where they are
# used, so that a search from a fresh process (a hook, the MCP server's first call)
# does not pay for them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .index import IndexReport
    from .search_index import SearchIndex

FULL_RESCAN_SECONDS = 30.0


class Project:
    """One project root: its layout, its config (re-read when the file changes) and its facts."""

    def __init__(self, root: Path, *, use_cache: bool = True) -> None:
        self.layout = Layout(root)
        self.store = FactStore(self.layout, use_cache=use_cache)
        self._config: tuple[tuple[int, int] | None, Config] | None = None
        self._search_index: SearchIndex | None = None
        self._index_builder: threading.Thread | None = None
        self._watcher: _FactWatcher | None = None
        self._lock = threading.RLock()
        self._full_scan = 0.0
        self._scan: tuple[tuple[int, _dt.date, str | None], ScanFields] | None = None

    @property
    def root(self) -> Path:
        return self.layout.root

    @property
    def lock(self) -> threading.RLock:
        """Held while the store changes; hold it to read several things that must agree
        (the TUI's workers read while other workers search and write)."""
        return self._lock

    def config(self) -> Config:
        """The config, re-read only when config.json's stat changes."""
        try:
            st = os.stat(self.layout.config_path)
            key: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            key = None
        if self._config is None or self._config[0] != key:
            self._config = (key, load_config(self.layout.config_path))
        return self._config[1]

    def sync(self) -> Changes:
        """Bring the facts in line with the disk. With a watcher running, only the files it
        reported are re-read (plus a full re-scan when the folder itself changed)."""
        with self._lock:
            watcher = self._watcher
            now = time.monotonic()
            if watcher is None or not watcher.running or not self.store.loaded:
                changes = self.store.refresh()
                self._full_scan = now
                if watcher is not None:
                    watcher.ensure_started()
                return changes
            changes = self.store.refresh_names(watcher.take())
            # A full re-scan when a file was created, renamed or removed, once soon after the
            # watcher started (events before its OS watch was in place are lost), and now and
            # then as a safety net.
            catch_up = self._full_scan < watcher.started_at + 0.5 and now > watcher.started_at + 1.0
            if self.store.folder_changed() or catch_up or now - self._full_scan > FULL_RESCAN_SECONDS:
                changes.merge(self.store.refresh())
                self._full_scan = now
            return changes

    # ---- long-lived mode ---------------------------------------------------------------

    def use_search_index(self, *, background: bool = False) -> None:
        """Keep a word index of the facts from now on (for processes that answer many searches).

        With `background`, the index is built in a thread and searches scan every fact
        until it is ready, so the first answer after start does not wait for the build."""
        with self._lock:
            if self._search_index is not None or self._index_builder is not None:
                return
            facts, generation = dict(self.store.facts), self.store.generation
            from .search_index import SearchIndex

            if not background:
                index = SearchIndex()
                index.sync(facts, generation)
                self._search_index = index
                return

            def build() -> None:
                index = SearchIndex()
                index.sync(facts, generation)
                with self._lock:
                    self._search_index = index

            self._index_builder = threading.Thread(target=build, name="foundry-search-index", daemon=True)
            self._index_builder.start()

    def search_index_ready(self, timeout: float | None = None) -> bool:
        """Whether the word index is in use (waiting up to `timeout` seconds for a background build)."""
        builder = self._index_builder
        if builder is not None and timeout:
            builder.join(timeout)
        return self._search_index is not None

    def watch(self) -> None:
        """Watch the facts folder so that `sync()` need not stat every file (long-lived processes)."""
        with self._lock:
            if self._watcher is None:
                self._watcher = _FactWatcher(self.layout.facts_dir)
            self._watcher.ensure_started()

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()

    # ---- queries -------------------------------------------------------------------------

    def active_facts(self, today: _dt.date) -> list[Fact]:
        return self.store.active_facts(today)

    def search(
        self,
        query: str,
        today: _dt.date,
        *,
        type: str | None = None,
        limit: int | None = None,
        min_score: float | None = None,
    ) -> list[Hit]:
        """Scored hits for `query` among the active facts (the core of memory_search)."""
        if type is not None:
            check_choice(type, TYPES, "type")
        config = self.config()
        if limit is None:
            limit = config.max_facts
        if not 1 <= limit <= MAX_LIMIT:
            raise InputError(f"limit {limit} is out of range: use a whole number from 1 to {MAX_LIMIT}")
        terms = query_terms(query)
        floor = config.min_score if min_score is None else min_score
        with self._lock:
            index = self._search_index
            snapshot = self.store.pending_snapshot
            if index is not None:
                index.sync(self.store.facts, self.store.generation)
                active = self.store.active_by_id(today)
                if type is not None:
                    active = {i: f for i, f in active.items() if f.type == type}
                hits = match_facts(active, terms, index, floor)
            elif snapshot is not None:  # unchanged since the snapshot: build Facts for the hits only
                hits = snapshot.scan(today.isoformat(), type).match(terms, floor, limit)
            else:
                hits = self.scan_fields(today, type).match(terms, floor, limit)
        return rank(hits, limit, floor)

    def active_count(self, today: _dt.date) -> int:
        snapshot = self.store.pending_snapshot
        if snapshot is not None:
            return len(snapshot.active(today.isoformat()))
        return len(self.active_facts(today))

    def scan_fields(self, today: _dt.date, type: str | None = None) -> ScanFields:
        """The active facts' fields joined for index-free search, kept while they are unchanged."""
        key = (self.store.generation, today, type)
        if self._scan is None or self._scan[0] != key:
            active = self.store.active_by_id(today)
            facts = [f for f in active.values() if f.type == type] if type else list(active.values())
            self._scan = (key, ScanFields.of(facts))
        return self._scan[1]


def _check_query(query: str) -> str:
    if not query.strip():
        raise InputError("query is empty: give keywords describing what you need to know")
    return query


def memory_search(
    project: Project,
    query: str,
    today: _dt.date,
    *,
    type: str | None = None,
    limit: int | None = None,
    explain: bool = False,
) -> tuple[str, list[Hit]]:
    """The memory_search reply text and its hits."""
    _check_query(query)
    project.sync()
    hits = project.search(query, today, type=type, limit=limit)
    return render_results(hits, query, project.active_count(today), explain), hits


class WriteRequest:
    """What a caller asks memory_write to store (the MCP tool's fields)."""

    __slots__ = ("body", "confidence", "expires", "scope", "source", "tags", "title", "type")

    def __init__(
        self,
        title: str,
        body: str,
        type: str,
        scope: str = "project",
        tags: list[str] | tuple[str, ...] = (),
        confidence: str = "medium",
        source: str = "conversation",
        expires: str | None = None,
    ) -> None:
        self.title = title
        self.body = body
        self.type = type
        self.scope = scope
        self.tags = tags
        self.confidence = confidence
        self.source = source
        self.expires = expires


class WriteResult:
    """The outcome of memory_write and the index it left."""

    __slots__ = ("action", "fact_id", "index", "supersedes", "warnings")

    def __init__(
        self,
        action: str,
        fact_id: str,
        index: IndexReport,
        supersedes: str | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.action = action
        self.fact_id = fact_id
        self.index = index
        self.supersedes = supersedes
        self.warnings = warnings if warnings is not None else []

    def text(self) -> str:
        first = f"{self.action}: {self.fact_id}"
        if self.supersedes:
            first += f" (supersedes {self.supersedes})"
        return "\n".join([first, self.index.write_line(), *(f"Warning: {w}" for w in self.warnings)])


def validate_request(req: WriteRequest) -> Fact:
    """Check every field and return the fact to store (id and created not yet set)."""
    title = check_title(req.title)
    body = bold_reasoning_lines(check_body(req.body))
    ftype = check_choice(req.type, TYPES, "type")
    confidence = check_choice(req.confidence or "medium", CONFIDENCES, "confidence")
    expires = check_date(req.expires, "expires") if req.expires else None
    from .secrets import refuse_secrets

    refuse_secrets(
        {"title": title, "body": body, "tags": list(req.tags or ()), "scope": req.scope, "source": req.source}
    )
    return Fact(
        id="",
        type=ftype,
        title=title,
        body=body,
        scope=check_line(req.scope or "", "scope", "project"),
        tags=check_tags(list(req.tags or ())),
        confidence=confidence,
        source=check_line(req.source or "", "source", "conversation"),
        expires=expires,
    )


def rebuild_index(project: Project, today: _dt.date) -> IndexReport:
    """Rebuild INDEX.md from the active facts and report budget usage."""
    from .index import write_index

    return write_index(project.layout.index_path, project.active_facts(today), project.config().index_token_budget)


def memory_index(project: Project, today: _dt.date) -> IndexReport:
    with folder_lock(project.layout.memory_dir):
        project.sync()
        return rebuild_index(project, today)


def memory_write(project: Project, req: WriteRequest, today: _dt.date) -> WriteResult:
    """Store one fact: `unchanged`, `updated` (supersedes the same-titled one) or `created`.

    The whole check-allocate-write-reindex step holds the memory lock, so concurrent
    writers (other processes, threads) never allocate the same id or lose a fact."""
    new = validate_request(req)
    budget = project.config().index_token_budget  # a broken config refuses before anything is written
    with folder_lock(project.layout.memory_dir):
        project.sync()
        store = project.store
        active = store.active_facts(today)
        title_key = normalise(new.title)
        same_title = sorted((f for f in active if normalise(f.title) == title_key), key=lambda f: f.order_key)
        print_fp = fingerprint(new.title, new.body)
        same = [f for f in same_title if f.fingerprint == print_fp]
        if same:  # nothing is written, not even the index: report it as it would be built
            from .index import build_index

            _text, report = build_index(active, budget)
            report.path = project.layout.index_path
            return WriteResult("unchanged", same[-1].id, report)
        new.supersedes = same_title[-1].id if same_title else None
        new.created = today.isoformat()
        create_fact(project, new)
        index = rebuild_index(project, today)
    warnings = []
    if new.needs_why:
        warnings.append(
            f"{new.type} {new.id} has no **Why:** line; doctor fails and prune lists it until one is added."
        )
    action = "updated" if new.supersedes else "created"
    return WriteResult(action, new.id, index, new.supersedes, warnings)


def create_fact(project: Project, new: Fact) -> None:
    """Give `new` the next free id and write its file (exclusive create). Caller holds the memory lock."""
    number = project.store.max_number() + 1
    project.layout.facts_dir.mkdir(parents=True, exist_ok=True)
    while True:
        new.id = format_id(number)
        if exclusive_create(project.layout.facts_dir / f"{new.id}.md", render_fact_text(new)):
            break
        number += 1
    project.store.record_written(new)


def find_fact(project: Project, fact_id: str) -> Fact:
    fact = project.store.get(fact_id.strip())
    if fact is None:
        raise NotFoundError(
            f"no fact {fact_id!r} in {project.layout.relative(project.layout.facts_dir)}: list them with `foundry memory list --all`"
        )
    return fact


class _FactWatcher:
    """A watchfiles thread that collects the names of changed fact files."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._dirty: set[str] = set()
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.started_at = 0.0

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def ensure_started(self) -> None:
        if self.running or not self.folder.is_dir():
            return
        self._thread = threading.Thread(target=self._run, name="foundry-fact-watcher", daemon=True)
        self.started_at = time.monotonic()
        self._thread.start()

    def _run(self) -> None:
        try:
            from watchfiles import watch
        except ImportError:  # pragma: no cover - watchfiles is a dependency
            return
        try:
            for batch in watch(
                self.folder,
                stop_event=self._stop,
                debounce=30,
                step=10,
                rust_timeout=500,
                yield_on_timeout=False,
                recursive=False,
            ):
                with self._guard:
                    self._dirty.update(Path(path).name for _change, path in batch)
        except Exception:  # the folder vanished or the OS refused: fall back to full scans
            return

    def take(self) -> set[str]:
        with self._guard:
            dirty, self._dirty = self._dirty, set()
        return dirty

    def stop(self) -> None:
        self._stop.set()


def rewrite_facts(
    project: Project, fact_ids: list[str], change: Callable[[Fact], None], today: _dt.date
) -> IndexReport:
    """Change facts in place (a field that is not their identity: expires, tags), then rebuild
    the index. Each file is re-read under the memory lock and rewritten whole (temp file,
    rename), keeping every other field and unknown key as it was. All ids are checked first."""
    from .atomic import atomic_write
    from .facts import parse_fact_text

    with folder_lock(project.layout.memory_dir):
        project.sync()
        facts = [find_fact(project, fact_id) for fact_id in fact_ids]  # all known before any write
        for fact in facts:
            path = project.layout.facts_dir / f"{fact.id}.md"
            current = parse_fact_text(path.read_text(encoding="utf-8"), fact.id)
            change(current)
            atomic_write(path, render_fact_text(current))
        project.sync()
        return rebuild_index(project, today)


def retire_facts(project: Project, fact_ids: list[str], expires: str, today: _dt.date) -> IndexReport:
    """Retire facts by setting their `expires` (nothing is deleted), then rebuild the index."""
    day = check_date(expires, "expires")

    def retire(fact: Fact) -> None:
        fact.expires = day

    return rewrite_facts(project, fact_ids, retire, today)


def add_tag(project: Project, fact_id: str, tag: str, today: _dt.date) -> IndexReport:
    """Add a retrieval word to a fact's tags (tags are not part of its identity, so this is an
    in-place change rather than a new version). The spec: "use tags for the words they will not" search for."""
    (word,) = check_tags([tag]) or ("",)
    if not word:
        raise InputError("the tag is empty: give the word searches used")

    def tag_it(fact: Fact) -> None:
        if word not in fact.tags:
            fact.tags = (*fact.tags, word)

    return rewrite_facts(project, [fact_id], tag_it, today)
