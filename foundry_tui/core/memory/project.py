"""`Project`: one root's layout, config and fact store, and the watcher that keeps it fresh.

`Project` bundles a root's layout, config and fact store. One-shot commands refresh
the store from disk (through the parse cache) on each call; long-lived processes
(the MCP server, the TUI) also keep a word index and a file watcher so that a
search costs milliseconds and still sees every change on disk.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from foundry_tui.core.config import MAX_LIMIT, Config, load_config
from foundry_tui.core.errors import ConfigError, InputError, NotFoundError
from foundry_tui.core.memory.model.facts import Fact, check_choice
from foundry_tui.core.memory.model.fields import ScanFields
from foundry_tui.core.memory.model.hits import Hit
from foundry_tui.core.memory.model.vocabulary import TYPES
from foundry_tui.core.memory.search.ranker_names import DEFAULT_RANKER, RANKER_NAMES
from foundry_tui.core.memory.search.rankers import Ranker, min_score_for, ranker_named
from foundry_tui.core.memory.storage.store import Changes, FactStore
from foundry_tui.core.memory.storage.watchers import FactWatcher, KernelWatcher
from foundry_tui.core.paths import Layout

# The word index is imported where it is used: only long-lived processes pay for it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.memory.search.encoder_base import SentenceEncoder
    from foundry_tui.core.memory.search.postings import Postings
    from foundry_tui.core.memory.search.vectors import VectorStore
    from foundry_tui.core.memory.search.word_index import SearchIndex
    from foundry_tui.core.memory.search.word_postings import WordPostings
    from foundry_tui.core.memory.storage.snapshot import Snapshot

FULL_RESCAN_SECONDS = 30.0


class Project:
    """One project root: its layout, its config (re-read when the file changes) and its facts."""

    def __init__(self, root: Path, *, use_cache: bool = True) -> None:
        self.layout = Layout(root)
        self.store = FactStore(self.layout, use_cache=use_cache)
        self._config: tuple[tuple[int, int] | None, Config] | None = None
        self._search_index: SearchIndex | None = None
        self._index_builder: threading.Thread | None = None
        self._watcher: KernelWatcher | FactWatcher | None = None
        self._lock = threading.RLock()
        self._full_scan = 0.0
        self._scan: tuple[tuple[int, _dt.date, str | None], ScanFields] | None = None
        # bm25's postings of the snapshot the store answers from: (its identity, the postings or
        # None when there are none for it), and the thread building them (postings.py).
        self._postings: tuple[bytes, Postings | None] | None = None
        self._postings_builder: threading.Thread | None = None
        # The spec ranker's word postings of that snapshot, likewise (search/word_postings.py).
        self._words: tuple[bytes, WordPostings | None] | None = None
        self._words_builder: threading.Thread | None = None
        # The sentence model and the facts' vectors (issue 29; search/encoder.py, search/vectors.py):
        # loaded and built only when the hybrid ranker asks, in a thread in long-lived processes.
        self._encoder: SentenceEncoder | None = None
        self._vectors: VectorStore | None = None
        self._vector_builder: threading.Thread | None = None
        self._vector_progress = (0, 0)
        self._semantic_installed: bool | None = None
        self._vectors_seen: tuple[int, int] | None = None  # (store generation, vectors version) the last build saw
        # One-shot commands load the model to embed a hybrid query; long-lived processes set this
        # False: their searches rank lexically until the model has loaded in a thread.
        self.semantic_wait = True

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
            self._config = (key, load_config(self.layout.config_path, self.layout, RANKER_NAMES))
        return self._config[1]

    def config_or_defaults(self) -> tuple[Config, ConfigError | None]:
        """The config, or the defaults when config.json cannot be used, with the reason
        (None when it is fine): for the reports that must still say something."""
        try:
            return self.config(), None
        except ConfigError as exc:
            return Config(), exc

    def sync(self) -> Changes:
        """Bring the facts in line with the disk. With a watcher running, only the files it
        reported are re-read (plus a full re-scan when the folder itself changed).

        With the kernel's own queue of events (inotify, Linux) the watcher is exact: every
        change made before this call is in the queue when it is read here, so a writer that
        takes the memory lock sees every fact another writer wrote under it, without a stat
        of every file (ADR 0012, "Knowing what changed")."""
        with self._lock:
            watcher = self._watcher
            now = time.monotonic()
            if isinstance(watcher, KernelWatcher):
                return self._sync_exact(watcher, now)
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

    def _sync_exact(self, watcher: KernelWatcher, now: float) -> Changes:
        names = watcher.take() if watcher.running else None
        if names is None and not watcher.running:
            watcher.start()  # before the scan: nothing can change unseen between the two
        if names is None or not self.store.loaded or now - self._full_scan > FULL_RESCAN_SECONDS:
            # Not watching yet, the queue overflowed, or the folder itself moved; and now and
            # then as a safety net (a network file system reports no events).
            changes = self.store.refresh()
            self._full_scan = now
            return changes
        return self.store.refresh_names(names) if names else Changes()

    # ---- long-lived mode ---------------------------------------------------------------

    def use_search_index(self, *, background: bool = False) -> None:
        """Keep a word index of the facts from now on (for processes that answer many searches).

        With `background`, the index is built in a thread and searches scan every fact
        until it is ready, so the first answer after start does not wait for the build."""
        with self._lock:
            if self._search_index is not None or self._index_builder is not None:
                return
            facts, generation = dict(self.store.facts), self.store.generation
            mark = (self.store.journal_epoch, len(self.store.journal))  # changes from here on: applied at the next sync
            from foundry_tui.core.memory.search.word_index import SearchIndex

            if not background:
                index = SearchIndex()
                index.sync(facts, generation)
                index.journal_mark = mark
                self._search_index = index
                return

            def build() -> None:
                index = SearchIndex()
                index.sync(facts, generation)
                index.journal_mark = mark
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

    def watch(self, *, kernel_only: bool = False) -> None:
        """Watch the facts folder so that `sync()` need not stat every file (long-lived processes).

        With `kernel_only`, only where the kernel's queue is available (no thread: cheap
        before a first answer); elsewhere the watchfiles thread waits for a later call."""
        with self._lock:
            if self._watcher is None:
                kernel = KernelWatcher.open(self.layout.facts_dir)
                if kernel is None and kernel_only:
                    return
                self._watcher = kernel if kernel is not None else FactWatcher(self.layout.facts_dir)
            if isinstance(self._watcher, FactWatcher):
                self._watcher.ensure_started()

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()

    # ---- queries -------------------------------------------------------------------------

    def active_facts(self, today: _dt.date) -> list[Fact]:
        return self.store.active_facts(today)

    def ranker(self, override: str | None = None) -> str:
        """The name of the ranker a search uses: `override` (checked), else memoryRetrieval.ranker."""
        return self.ranker_of(override).name

    def ranker_of(self, override: str | None = None) -> Ranker:
        """The ranker a search uses: `override` (checked), else memoryRetrieval.ranker's (checked when read)."""
        if override is None:
            return ranker_named(self.config().ranker or DEFAULT_RANKER)
        return ranker_named(override)

    def has_terms(self, query: str, ranker: str | None = None) -> bool:
        """Whether `query` has a word the ranker searches for (not only stop words or short words)."""
        return bool(self.ranker_of(ranker).terms(query))

    def prepare_ranker(self) -> None:
        """Build what the configured ranker's later searches read, off the request path (long-lived processes)."""
        self.ranker_of().prepare(self)

    def search(
        self,
        query: str,
        today: _dt.date,
        *,
        type: str | None = None,
        limit: int | None = None,
        min_score: float | None = None,
        ranker: str | None = None,
    ) -> list[Hit]:
        """Scored hits for `query` among the active facts (the core of memory_search), ranked by
        `ranker` (a name of search/rankers.py's registry; default: memoryRetrieval.ranker)."""
        if type is not None:
            check_choice(type, TYPES, "type")
        chosen = self.ranker_of(ranker)
        config = self.config()
        if limit is None:
            limit = config.max_facts
        if not 1 <= limit <= MAX_LIMIT:
            raise InputError(f"limit {limit} is out of range: use a whole number from 1 to {MAX_LIMIT}")
        floor = min_score_for(config, chosen.name) if min_score is None else min_score
        return chosen.search(self, query, today, type, limit, floor)

    def term_idf(self, terms: list[str], today: _dt.date) -> dict[str, float]:
        """The spec ranker's terms with their idf over the active facts (a term's facts are
        those containing it, as the spec ranker matches): the prompt hook's relevance."""
        from foundry_tui.core.memory.search.spec import inverse_document_frequency

        count, frequency = self.term_frequency(terms, today)
        return {t: inverse_document_frequency(df, count) for t, df in frequency.items()}

    def term_frequency(self, terms: list[str], today: _dt.date) -> tuple[int, dict[str, int]]:
        """The number of active facts, and how many of them contain each of `terms` (as the
        spec ranker matches: a substring of any field)."""
        with self._lock:
            index, scan = self.synced_index(today)
            if index is not None:
                eligible = index.active_bits(today.isoformat())
                count = eligible.bit_count()
                frequency = {t: (eligible & _any_field(index.term_bits(t))).bit_count() for t in terms}
            else:
                assert scan is not None
                count = len(scan.eligible) if scan.eligible is not None else scan.count
                frequency = {t: scan.document_frequency(t) for t in terms}
        return count, frequency

    def synced_index(self, today: _dt.date, type: str | None = None) -> tuple[SearchIndex | None, ScanFields | None]:
        """What the spec ranker searches, under the lock (the ranker holds it): the word index brought in step with the
        store (when one is kept and usable), else the index-free scan of the active facts (of
        `type`): the snapshot's while nothing has been built from it, else the facts' own."""
        index = self._search_index
        if index is not None:
            self._sync_index(index)
            if not index.clashes:
                return index, None
        snapshot = self.store.pending_snapshot
        if snapshot is not None:  # unchanged since the snapshot: build Facts for the hits only
            scan = snapshot.scan(today.isoformat(), type)
            if scan.words is None:
                words = self._snapshot_words(snapshot)
                if words is not None:
                    scan.words = words.find
            return None, scan
        return None, self.scan_fields(today, type)

    def _snapshot_words(self, snapshot: Snapshot) -> WordPostings | None:
        """The spec ranker's word postings of `snapshot`, when a file built for it is in the parse cache."""
        identity, path = snapshot.identity, self.store.cache_path
        if identity is None or path is None:
            return None
        known = self._words
        if known is None or known[0] != identity:
            from foundry_tui.core.memory.search import word_postings
            from foundry_tui.core.memory.storage import cache

            if known is not None and known[1] is not None:
                known[1].close()
            known = self._words = (identity, word_postings.load(cache.words_file(path), identity, len(snapshot)))
        return known[1]

    def keep_words(self) -> None:
        """Build the spec ranker's word postings of the snapshot the store answers from, in a
        thread, when the parse cache has none for it (long-lived processes; once per snapshot)."""
        with self._lock:
            snapshot, path = self.store.pending_snapshot, self.store.cache_path
            if snapshot is None or snapshot.identity is None or path is None or self._words_builder is not None:
                return
            if self._snapshot_words(snapshot) is not None:
                return
            identity, count = snapshot.identity, len(snapshot)
            fields = snapshot.fields  # read now: the store lets go of the snapshot's file once it builds Facts
            if fields is None:
                return

            def build() -> None:
                from foundry_tui.core.memory.search import word_postings
                from foundry_tui.core.memory.storage import cache

                target = cache.words_file(path)
                word_postings.write(target, fields, identity, count)
                with self._lock:
                    if self._words is not None and self._words[0] == identity and self._words[1] is None:
                        self._words = (identity, word_postings.load(target, identity, count))

            self._words_builder = threading.Thread(target=build, name="foundry-word-postings", daemon=True)
            self._words_builder.start()

    def scan_with_postings(self, today: _dt.date) -> tuple[ScanFields, Postings | None]:
        """What bm25 searches, under the lock (the ranker holds it): every active fact (whatever
        the type filter, so a filter never changes a score) as the snapshot's scan with its
        postings when the store still answers from a snapshot, else as the facts' own scan."""
        with self._lock:
            snapshot = self.store.pending_snapshot
            if snapshot is not None:
                return snapshot.scan(today.isoformat()), self._snapshot_postings(snapshot)
            return self.scan_fields(today), None

    def _snapshot_postings(self, snapshot: Snapshot) -> Postings | None:
        """bm25's postings of `snapshot`, when a file built for it is in the parse cache."""
        identity, path = snapshot.identity, self.store.cache_path
        if identity is None or path is None:
            return None
        known = self._postings
        if known is None or known[0] != identity:
            from foundry_tui.core.memory.search import postings
            from foundry_tui.core.memory.storage import cache

            if known is not None and known[1] is not None:
                known[1].close()
            known = self._postings = (identity, postings.load(cache.postings_file(path), identity))
        return known[1]

    def keep_postings(self) -> None:
        """Build bm25's postings of the snapshot the store answers from, in a thread, when the
        parse cache has none for it (long-lived processes searching with bm25; once per snapshot)."""
        with self._lock:
            snapshot, path = self.store.pending_snapshot, self.store.cache_path
            if snapshot is None or snapshot.identity is None or path is None or self._postings_builder is not None:
                return
            if self._snapshot_postings(snapshot) is not None:
                return
            identity = snapshot.identity
            fields = snapshot.fields  # read now: the store lets go of the snapshot's file once it builds Facts
            if fields is None:
                return

            def build() -> None:
                from foundry_tui.core.memory.search import postings
                from foundry_tui.core.memory.storage import cache

                target = cache.postings_file(path)
                postings.write(target, fields, identity)
                with self._lock:
                    if self._postings is not None and self._postings[0] == identity and self._postings[1] is None:
                        self._postings = (identity, postings.load(target, identity))

            self._postings_builder = threading.Thread(target=build, name="foundry-bm25-postings", daemon=True)
            self._postings_builder.start()

    def building_postings(self) -> bool:
        """Whether a postings build is under way."""
        return any(b is not None and b.is_alive() for b in (self._postings_builder, self._words_builder))

    def postings_built(self, timeout: float | None = None) -> None:
        """Wait (up to `timeout` seconds) for a postings build under way: a server asked to stop
        finishes the file for the next one."""
        for builder in (self._postings_builder, self._words_builder):
            if builder is not None:
                builder.join(timeout)

    # ---- sentence vectors (issue 29) -------------------------------------------------------

    def semantic_enabled(self) -> bool:
        """Whether the sentence model may be used: installed, not turned off by FOUNDRY_SEMANTIC=0
        nor by memoryRetrieval.semantic: false (a config.json that cannot be read: off)."""
        from foundry_tui.core.memory.search import encoder_probe

        if encoder_probe.disabled_by_env():
            return False
        config, error = self.config_or_defaults()
        if error is not None or not config.semantic:
            return False
        if self._semantic_installed is None:
            self._semantic_installed = encoder_probe.installed()
        return self._semantic_installed

    def sentence_encoder(self, *, wait: bool) -> SentenceEncoder | None:
        """The sentence model, or None when it is off or not installed; without `wait`, also None
        while it is still loading (the load then starts in the builder thread, keep_vectors)."""
        if not self.semantic_enabled():
            return None
        if self._encoder is None:
            if not wait:
                self.keep_vectors()
                return None
            self._load_encoder()
        return self._encoder

    def warm_encoder(self) -> SentenceEncoder | None:
        """The sentence model if this process has already loaded it and it is not turned off, else
        None, at once: nothing is loaded, started or imported (what a one-shot process must not pay
        for: memory_write's note and the prompt hook's similarity, issue 29)."""
        if self._encoder is None or not self.semantic_enabled():
            return None
        return self._encoder

    def _load_encoder(self) -> None:
        from foundry_tui.core.memory.search.encoder_choice import load_encoder

        encoder = load_encoder()
        with self._lock:
            if self._encoder is None:
                self._encoder = encoder

    def vector_store(self) -> VectorStore | None:
        """The facts' vectors known so far (read from the derived cache once), or None when the model is off."""
        if not self.semantic_enabled():
            return None
        with self._lock:
            if self._vectors is None:
                from foundry_tui.core.memory.search import encoder_probe
                from foundry_tui.core.memory.search.encoder import DIMS
                from foundry_tui.core.memory.search.vectors import VectorStore
                from foundry_tui.core.memory.storage import cache

                store = VectorStore(encoder_probe.model_id(), DIMS)
                path = self.store.cache_path
                if path is not None:
                    store.load(cache.vectors_file(path))
                self._vectors = store
            return self._vectors

    def vector_progress(self) -> tuple[int, int]:
        """(facts embedded, facts to embed) of the build under way or last done ((0, 0) while a
        build loads the model and reads the facts)."""
        return self._vector_progress

    def building_vectors(self) -> bool:
        builder = self._vector_builder
        return builder is not None and builder.is_alive()

    def vectors_built(self, timeout: float | None = None) -> None:
        """Wait (up to `timeout` seconds) for a vector build under way."""
        builder = self._vector_builder
        if builder is not None:
            builder.join(timeout)

    def keep_vectors(self) -> None:
        """Load the model and embed the active facts that have no vector yet, in a thread (long-lived
        processes; a no-op while a build runs, when the model is off or nothing is missing). A write
        adds one fact: the next call embeds that one."""
        with self._lock:
            if self.building_vectors() or not self.semantic_enabled():
                return
            # What the last build saw: nothing to do until the facts change (no per-search check
            # of every fact on the request path).
            seen = (self.store.generation, self._vectors.version if self._vectors is not None else -1)
            if self._encoder is not None and seen == self._vectors_seen:
                return
            self._vector_progress = (0, 0)  # not the last build's figures while the model loads
            self._vector_builder = threading.Thread(target=self._build_in_thread, name="foundry-vectors", daemon=True)
            self._vector_builder.start()

    def _build_in_thread(self) -> None:
        with contextlib.suppress(Exception):  # a damaged model or a full disk: searches stay lexical
            self.build_vectors()
        store = self._vectors
        with self._lock:
            self._vectors_seen = (self.store.generation, store.version if store is not None else -1)

    def build_vectors(self, today: _dt.date | None = None, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every active fact that has no vector yet (loading the model first), saving to the
        derived cache as it goes; the number embedded. Searches meanwhile rank the missing ones lexically."""
        from foundry_tui.core.memory.search import hybrid
        from foundry_tui.core.memory.storage import cache
        from foundry_tui.core.paths import resolve_today

        store = self.vector_store()
        if store is None:
            return 0
        if self._encoder is None:
            self._load_encoder()
        encoder = self._encoder
        assert encoder is not None
        with self._lock:
            scan, _postings = self.scan_with_postings(today or resolve_today(None))
            fingerprints, texts = hybrid.scan_texts(scan)
            # Shortest first: each encode call (and each batch in it) holds texts of about one
            # length, so little of a batch is padding (benchmarks.md, "The sentence model").
            missing = sorted(hybrid.missing(scan, store), key=lambda i: len(texts[i]))
            active = [fingerprints[i] for i in range(scan.count) if scan.eligible is None or i in scan.eligible]
        total = len(missing)
        self._vector_progress = (0, total)
        path = self.store.cache_path
        target = cache.vectors_file(path) if path is not None else None
        done = 0
        for start in range(0, total, hybrid.EMBED_CHUNK):
            chunk = missing[start : start + hybrid.EMBED_CHUNK]
            vectors = encoder.encode([texts[i] for i in chunk])
            with self._lock:
                store.add([fingerprints[i] for i in chunk], vectors)
            done += len(chunk)
            self._vector_progress = (done, total)
            if progress is not None:
                progress(done, total)
            if target is not None and store.unsaved >= hybrid.SAVE_EVERY:
                with self._lock:
                    store.save(target)
        if target is not None and (store.unsaved or len(store) != len(set(active))):
            with self._lock:
                store.save(target, keep=active)
        return total

    def _sync_index(self, index: SearchIndex) -> None:
        """Bring the word index in step with the store: only the facts changed since its last
        sync (from the store's journal), or every fact when the journal cannot tell."""
        store = self.store
        if index.generation == store.generation:
            return
        facts = store.facts
        mark = index.journal_mark
        journal, epoch = store.journal, store.journal_epoch
        changed = journal[mark[1] :] if mark is not None and mark[0] == epoch and mark[1] <= len(journal) else None
        index.sync(facts, store.generation, changed)
        index.journal_mark = (epoch, len(journal))

    def active_count(self, today: _dt.date) -> int:
        with self._lock:
            index = self._search_index
            if index is not None and index.generation == self.store.generation and not index.clashes:
                return index.active_bits(today.isoformat()).bit_count()
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


def _any_field(bits: tuple[int, int, int]) -> int:
    return bits[0] | bits[1] | bits[2]


def find_fact(project: Project, fact_id: str) -> Fact:
    fact = project.store.get(fact_id.strip())
    if fact is None:
        raise NotFoundError(
            f"no fact {fact_id!r} in {project.layout.relative(project.layout.facts_dir)}: list them with `foundry memory list --all`"
        )
    return fact


def vector_progress_text(done: int, total: int) -> str:
    """A vector build's progress as the TUI's header and the CLI's stderr show it."""
    return f"vectors {done:,}/{total:,}"


def semantic_off_reason(project: Project) -> str:
    """Why `project.semantic_enabled()` is False, in one line (when it is)."""
    from foundry_tui.core.memory.search import encoder_probe

    if encoder_probe.disabled_by_env():
        return f"the sentence model is off ({encoder_probe.SEMANTIC_ENV}=0)"
    config, error = project.config_or_defaults()
    if error is not None:
        return f"the sentence model is off: {error}"
    if not config.semantic:
        return "the sentence model is off (memoryRetrieval.semantic: false in config.json)"
    return "the sentence model is not installed: pip install 'foundry-tui[semantic]'"
