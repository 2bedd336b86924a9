"""The parse cache as a read-optimised snapshot of every fact file.

One marshal file per project root holds, for the files as they were when it was
written: their names and stats, the broken ones with their reasons, every valid
fact as columns (repeated values shared), and the lowercased title, tags and body
of all facts joined into three strings. A process whose files all still match
(one stat each) answers a search from the joined strings and builds a Fact only
for the hits it returns; anything else materialises the facts from the columns,
re-parsing only the files whose stat changed.
"""

from __future__ import annotations

import io
import itertools
import marshal
import os
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from operator import mul
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from foundry_tui.core.memory.model.facts import RECORD_FIELDS, Fact
from foundry_tui.core.memory.model.fields import EncodedFields, FieldIndex, ScanFields, join_fields
from foundry_tui.core.memory.model.hits import CONFIDENCE_MULTIPLIER, TYPE_MULTIPLIER, tie_break
from foundry_tui.core.memory.model.vocabulary import TYPE_RANK

if TYPE_CHECKING:
    from foundry_tui.core.memory.model.fields import Haystack

SNAPSHOT_VERSION = 7
_MAGIC = b"foundry-snapshot\n"
# Then the header's length and CRC-32 (4 bytes each, big-endian), the header (marshal: version,
# root, the snapshot's identity (random bytes: what bm25's postings file is keyed to, see
# postings.py), and each section's name, length and CRC-32), then the sections back to back. Each
# section is checked and decoded on its own, so that loading never holds the whole file and
# its objects at once; the file's length must be the sections' sum. The joined search fields
# (title, tags, body, starts) are checked when first read, not at load: a first search answered
# from the spec's word postings (search/word_postings.py) reads none of them (issue 33), and a
# damaged one found then is dropped (_damaged). The bodies, as raw UTF-8, are checked at load
# and then read one by one for the facts a search returns (from the same open file: a newer snapshot written
# meanwhile replaces the name, not this file). The joined search fields are raw UTF-8 too
# (surrogatepass), with their starts (marshal: None when unsafe to join, else each field's
# start offsets in characters, then in bytes, None where the same): the spec's scan searches
# the bytes as they are read (EncodedFields), and only a ranker that needs the text (bm25)
# decodes them, so a one-shot search never holds a field's bytes and its text at once; a body
# field past FILE_FIELD_FROM is not held at all, but searched from the file (FileField).
_SECTIONS = ("meta", "columns", "title", "tags", "body", "starts", "offsets", "bodies")
_LAZY = ("title", "tags", "body", "starts")
_CHUNK = 1 << 20
# A header (version, root, identity, eight sections' names, lengths and CRCs) is far smaller.
HEADER_AT_MOST = 64 << 10
# Files changed this recently are stored as unverified: a same-size edit within one clock
# tick of the snapshot could otherwise keep a stale entry ("racy" entries, as git calls them).
RACY_SECONDS = 0.1
# Fact.to_record()'s fields but the body (stored apart), then the ids each fact retires.
_COLUMNS = (*(name for name in RECORD_FIELDS if name != "body"), "replaces")


class Unreadable(Protocol):
    """A file the store could not load (store.BrokenFile): the snapshot keeps why."""

    @property
    def reason(self) -> str: ...


def _crc_matches(file: BinaryIO, length: int, crc: int) -> bool:
    """Whether the next `length` bytes of `file` have this CRC-32 (read in chunks)."""
    left, running = length, 0
    while left:
        chunk = file.read(min(_CHUNK, left))
        if not chunk:
            return False
        running = zlib.crc32(chunk, running)
        left -= len(chunk)
    return running == crc


def _pack_tags(tags: list[str]) -> str | list[str]:
    """A fact's tags as one string (one object, not one per tag: a fifth of a loaded
    snapshot's memory), or as the list when a tag is empty or holds the separator."""
    if all(tags) and not any("\0" in tag for tag in tags):
        return "\0".join(tags)
    return tags


def unpack_tags(packed: str | list[str]) -> tuple[str, ...]:
    if isinstance(packed, str):
        return tuple(packed.split("\0")) if packed else ()
    return tuple(packed)


# A body field this large is searched from the file a window at a time (FileField) instead of
# read whole: at 100,000 facts it is 70 MB, which a one-shot search held for one query.
FILE_FIELD_FROM = 8 << 20
FILE_FIELD_WINDOW = 1 << 20


class FileField:
    """A joined field as it lies in the snapshot file, for term searches: `find` reads it a
    window at a time (each window read again by the next search), slices are read as asked.

    It reads with pread from its own descriptor (a dup of the snapshot's): no shared file
    position, and the same file however long it lives, as a newer snapshot replaces the name
    only. A window is swapped whole, so threads that search at once each see a complete one."""

    __slots__ = ("_base", "_file", "_length", "_window", "_window_size")

    def __init__(self, file: BinaryIO, base: int, length: int, window: int = FILE_FIELD_WINDOW) -> None:
        self._file = os.fdopen(os.dup(file.fileno()), "rb", buffering=0)  # closed with this object
        self._base = base
        self._length = length
        self._window_size = window
        self._window: tuple[int, bytes] = (0, b"")

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, key: slice) -> bytes:
        start, stop, _step = key.indices(self._length)
        return self._read(start, stop - start)

    def _read(self, start: int, length: int) -> bytes:
        data = os.pread(self._file.fileno(), max(length, 0), self._base + start)
        if len(data) != max(length, 0):
            raise OSError(f"the snapshot file ended {length - len(data)} bytes early")
        return data

    def find(self, sub: bytes, start: int = 0) -> int:
        pos = max(start, 0)
        need = max(len(sub), 1)
        while pos + len(sub) <= self._length:
            begin, window = self._window
            if not (begin <= pos and pos + need <= begin + len(window)):
                # A window starting here, at least as long as `sub`, cut at the field's end.
                begin = pos
                window = self._read(pos, min(max(self._window_size, need), self._length - pos))
                self._window = (begin, window)
            found = window.find(sub, pos - begin)
            if found != -1:
                return begin + found
            end = begin + len(window)
            if end >= self._length:
                return -1
            pos = end - len(sub) + 1  # a match may begin in this window's last len(sub) - 1 bytes
        return -1


class _Bodies:
    """The facts' bodies: in memory (a snapshot just built), or in the snapshot file."""

    __slots__ = ("_base", "_file", "_offsets", "_texts")

    def __init__(
        self, texts: list[str] | None, file: BinaryIO | None = None, base: int = 0, offsets: list[int] | None = None
    ) -> None:
        self._texts = texts
        self._file = file
        self._base = base
        self._offsets = offsets or [0]

    def get(self, i: int) -> str:
        if self._texts is not None:
            return self._texts[i]
        start, end = self._offsets[i], self._offsets[i + 1]
        assert self._file is not None
        self._file.seek(self._base + start)
        return self._file.read(end - start).decode("utf-8", "surrogatepass")

    def all(self) -> list[str]:
        if self._texts is not None:
            return self._texts
        assert self._file is not None
        self._file.seek(self._base)
        blob = self._file.read(self._offsets[-1])
        offsets = self._offsets
        return [blob[offsets[i] : offsets[i + 1]].decode("utf-8", "surrogatepass") for i in range(len(offsets) - 1)]

    def field_at(self, offset: int, length: int) -> FileField | None:
        """The `length` bytes at `offset` of the snapshot file, read as searched (None once closed)."""
        if self._file is None or not hasattr(os, "pread"):
            return None
        try:
            return FileField(self._file, offset, length, FILE_FIELD_WINDOW)
        except (OSError, io.UnsupportedOperation):  # no descriptor (a snapshot read from bytes)
            return None

    def crc_matches(self, offset: int, length: int, crc: int) -> bool:
        """Whether the `length` bytes at `offset` of the snapshot file have this CRC-32 (in chunks)."""
        if self._file is None:
            return False
        self._file.seek(offset)
        return _crc_matches(self._file, length, crc)

    def read_at(self, offset: int, length: int) -> bytes | None:
        """`length` bytes at `offset` of the snapshot file (None once it is closed)."""
        if self._file is None:
            return None
        self._file.seek(offset)
        data = self._file.read(length)
        return data if len(data) == length else None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class Snapshot:
    """Names, stats and columns of every fact file, plus the joined search fields."""

    __slots__ = (
        "_active",
        "_bodies",
        "_by_name",
        "_encoded",
        "_fact_at",
        "_fields",
        "_lazy_fields",
        "_lock",
        "_scans",
        "broken",
        "columns",
        "identity",
        "keys",
        "names",
        "on_damage",
        "positions",
    )

    def __init__(
        self,
        names: list[str],
        keys: list[int],
        broken: dict[str, str],
        positions: list[int],
        # marshal's values, one list per RECORD_FIELDS name: each reader knows its column's type
        columns: dict[str, list[Any]],
        fields: tuple[FieldIndex, FieldIndex, FieldIndex] | None,
        bodies: _Bodies,
        lazy_fields: list[tuple[int, int, int]] | None = None,
    ) -> None:
        self.names = names  # every fact file name, sorted
        self.keys = keys  # mtime_ns, size, inode of each name, flattened
        self.broken = broken  # name -> reason
        self.positions = positions  # index into names of each valid fact (the column order)
        self.columns = columns
        self._fields = fields
        # Where the joined fields lie in the file (checked at load, decoded on first use): a
        # process that builds its Facts anyway (the TUI) never decodes them.
        self._lazy_fields = lazy_fields
        self._encoded: EncodedFields | None = None
        self._bodies = bodies
        self._lock = threading.Lock()  # the bodies' file position
        self._active: dict[tuple[str, str | None], set[int]] = {}
        self._by_name: dict[str, int] | None = None
        self._fact_at: dict[int, int] | None = None
        self._scans: dict[tuple[str, str | None], ScanFields] = {}
        # Random bytes naming this snapshot as written to (or read from) a file; None until then.
        self.identity: bytes | None = None
        # Called when a section checked on first use (the joined fields) is damaged (the store drops the file).
        self.on_damage: Callable[[], None] | None = None

    @property
    def fields(self) -> tuple[FieldIndex, FieldIndex, FieldIndex] | None:
        """The joined title, tags and body fields (None: unsafe to join, see search.py)."""
        if self._lazy_fields is not None:
            with self._lock:
                if self._lazy_fields is not None:
                    places, self._lazy_fields = self._lazy_fields, None
                    self._encoded = None  # the text serves the spec's scan too from now on
                    starts = self._read_starts(places[3])
                    if starts is not None:
                        texts: list[str] = []
                        for place in places[:3]:  # one field's bytes at a time
                            data = self._checked(place)
                            if data is None:
                                return self._fields
                            texts.append(data.decode("utf-8", "surrogatepass"))
                            del data
                        self._fields = ((texts[0], starts[0]), (texts[1], starts[1]), (texts[2], starts[2]))
        return self._fields

    def encoded_fields(self) -> EncodedFields | None:
        """The joined fields as the file holds them (UTF-8, starts in bytes), read on first use,
        while the text has not been decoded (None then, or when unsafe to join or unreadable)."""
        with self._lock:
            places = self._lazy_fields
            if places is None:
                return None
            if self._encoded is None:
                starts = self._read_starts(places[3])
                if starts is None:
                    return None
                title, tags = (self._checked(place) for place in places[:2])
                offset, length, crc = places[2]
                body: Haystack[bytes] | None = None
                if length >= FILE_FIELD_FROM:  # checked in chunks, then searched from the file
                    if not self._bodies.crc_matches(offset, length, crc):
                        self._damaged()
                        return None
                    body = self._bodies.field_at(offset, length)
                if body is None:
                    body = self._checked(places[2])
                if title is None or tags is None or body is None:
                    self._damaged()
                    return None
                self._encoded = ((title, starts[3]), (tags, starts[4]), (body, starts[5]))
            return self._encoded

    def _checked(self, place: tuple[int, int, int]) -> bytes | None:
        """The section at `place` (offset, length, CRC-32), read and checked; None when it is
        unreadable or damaged (the snapshot then searches fact by fact, see _damaged)."""
        offset, length, crc = place
        data = self._bodies.read_at(offset, length)
        if data is None or zlib.crc32(data) != crc:
            self._damaged()
            return None
        return data

    def _damaged(self) -> None:
        """A joined field failed its check when first read (they are not checked at load, so
        that a first search answered without them reads none): no field is trusted from now on
        (fields None: scans build each fact's fields from the checked columns and bodies, the
        same results), and the cache file is dropped so that the next process re-parses."""
        self._lazy_fields = None
        self._fields = None
        self._encoded = None
        if self.on_damage is not None:
            self.on_damage()

    def _read_starts(self, place: tuple[int, int, int]) -> list[list[int]] | None:
        """The fields' starts in characters, then in bytes (None: unsafe to join, or unreadable)."""
        data = self._checked(place)
        if data is None:
            return None
        # marshal gives Any: None, or six lists of ints (a byte list None when it equals the char list)
        stored: Any = marshal.loads(data)
        if stored is None:
            return None
        chars, in_bytes = stored
        return [*chars, *(b if b is not None else c for c, b in zip(chars, in_bytes, strict=True))]

    # ---- building and storing ------------------------------------------------------------

    @classmethod
    def build(cls, names: list[str], keys: list[int], items: Mapping[str, Fact | Unreadable]) -> Snapshot:
        """From the store's items (Fact or BrokenFile by name), in `names` order."""
        shared: dict[str, str] = {}
        columns: dict[str, list[Any]] = {name: [] for name in _COLUMNS}
        positions: list[int] = []
        broken: dict[str, str] = {}
        facts: list[Fact] = []
        bodies: list[str] = []
        for pos, name in enumerate(names):
            item = items[name]
            if not isinstance(item, Fact):
                broken[name] = item.reason
                continue
            positions.append(pos)
            facts.append(item)
            bodies.append(item.body)
            record = item.to_record()
            for column, value in zip(RECORD_FIELDS, record, strict=True):
                if column == "body":
                    continue
                # Repeated values (types, dates, sources) become one object, which marshal
                # then writes once and reads back as a reference.
                if isinstance(value, str) and column not in ("id", "title"):
                    value = shared.setdefault(value, value)
                elif column == "tags" and isinstance(value, list):  # always a list (to_record)
                    value = _pack_tags(value)
                columns[column].append(value)
            columns["replaces"].append(list(item.replaced_ids()) or None)
        return cls(names, keys, broken, positions, columns, join_fields(facts), _Bodies(bodies))

    def dumps(self, root: str) -> bytes:
        horizon = time.time_ns() - int(RACY_SECONDS * 1e9)
        keys = list(self.keys)
        for i in range(0, len(keys), 3):
            if keys[i] >= horizon:
                keys[i : i + 3] = [0, 0, 0]  # unverified: the next process re-reads the file
        encoded = [body.encode("utf-8", "surrogatepass") for body in self._bodies.all()]
        offsets = [0, *itertools.accumulate(len(b) for b in encoded)]
        fields = self.fields
        blobs = [b"", b"", b""]
        starts: tuple[list[list[int]], list[list[int] | None]] | None = None
        if fields is not None:
            blobs = [blob.encode("utf-8", "surrogatepass") for blob, _starts in fields]
            in_bytes: list[list[int] | None] = []
            for (blob, _chars), data in zip(fields, blobs, strict=True):
                if len(data) == len(blob):  # ASCII: the same offsets
                    in_bytes.append(None)
                else:
                    parts = data.split(b"\0")
                    in_bytes.append([0, *itertools.accumulate(len(part) + 1 for part in parts)])
            starts = ([chars for _blob, chars in fields], in_bytes)
        sections = [
            ("meta", marshal.dumps((self.names, keys, self.broken, self.positions))),
            ("columns", marshal.dumps(self.columns)),
            ("title", blobs[0]),
            ("tags", blobs[1]),
            ("body", blobs[2]),
            ("starts", marshal.dumps(starts)),
            ("offsets", marshal.dumps(offsets)),
            ("bodies", b"".join(encoded)),
        ]
        self.identity = os.urandom(16)
        header = marshal.dumps(
            (SNAPSHOT_VERSION, root, self.identity, [(name, len(data), zlib.crc32(data)) for name, data in sections])
        )
        head = _MAGIC + len(header).to_bytes(4, "big") + zlib.crc32(header).to_bytes(4, "big") + header
        return b"".join([head, *(data for _name, data in sections)])

    @classmethod
    def loads(cls, data: bytes, root: str) -> Snapshot | None:
        """The snapshot in `data` (see load)."""
        return cls.load(io.BytesIO(data), root)

    @classmethod
    def load(cls, file: BinaryIO, root: str) -> Snapshot | None:
        """The snapshot in `file` (kept open for the bodies), or None when it is not one this
        version wrote for `root` whole: a checksum mismatch (a flipped byte, a torn write)
        drops it, and the caller re-parses the files."""
        try:
            snapshot = cls._load(file, root)
        except (EOFError, ValueError, TypeError, OSError):
            snapshot = None
        if snapshot is None:
            file.close()
        return snapshot

    @staticmethod
    def read_identity(path: os.PathLike[str] | str, root: str) -> bytes | None:
        """The identity of the snapshot in `path` from its header alone (None: no snapshot of
        this version and root there, or a header that does not check). Nothing past the header
        is read or checked: what is keyed to the identity is refused when the full load, which
        checks every section, finds otherwise."""
        try:
            with open(path, "rb") as file:
                head = file.read(len(_MAGIC) + 8)
                if len(head) != len(_MAGIC) + 8 or head[: len(_MAGIC)] != _MAGIC:
                    return None
                length = int.from_bytes(head[-8:-4], "big")
                if length > HEADER_AT_MOST:
                    return None
                header = file.read(length)
        except OSError:
            return None
        if len(header) != length or zlib.crc32(header).to_bytes(4, "big") != head[-4:]:
            return None
        try:
            version, stored_root, identity, _sections = marshal.loads(header)
        except (ValueError, EOFError, TypeError):
            return None
        if version != SNAPSHOT_VERSION or stored_root != root or not isinstance(identity, bytes):
            return None
        return identity

    @classmethod
    def _load(cls, file: BinaryIO, root: str) -> Snapshot | None:
        head = file.read(len(_MAGIC) + 8)
        if len(head) != len(_MAGIC) + 8 or head[: len(_MAGIC)] != _MAGIC:
            return None
        header = file.read(int.from_bytes(head[-8:-4], "big"))
        if zlib.crc32(header).to_bytes(4, "big") != head[-4:]:
            return None
        version, stored_root, identity, sections = marshal.loads(header)
        if version != SNAPSHOT_VERSION or stored_root != root or not isinstance(identity, bytes):
            return None
        if [name for name, _length, _crc in sections] != list(_SECTIONS):
            return None
        decoded: dict[str, Any] = {}  # marshal.loads' sections, each unpacked by its known shape below
        lazy: list[tuple[int, int, int]] = []
        start = file.tell()
        end = file.seek(0, os.SEEK_END)
        if end - start != sum(length for _name, length, _crc in sections):  # torn, or longer: not this write
            return None
        file.seek(start)
        for name, length, crc in sections[:-1]:
            if name in _LAZY:  # checked and decoded when a search first needs them (the first may not)
                lazy.append((file.tell(), length, crc))
                file.seek(length, os.SEEK_CUR)
                continue
            data = file.read(length)
            if len(data) != length or zlib.crc32(data) != crc:
                return None
            decoded[name] = marshal.loads(data)
            del data
        _name, length, crc = sections[-1]
        base = file.tell()
        if not _crc_matches(file, length, crc):  # the bodies are checked in chunks, never held whole
            return None
        names, keys, broken, positions = decoded["meta"]
        columns, offsets = decoded["columns"], decoded["offsets"]
        if set(columns) != set(_COLUMNS) or len(keys) != 3 * len(names):
            return None
        if any(len(column) != len(positions) for column in columns.values()) or len(offsets) != len(positions) + 1:
            return None
        if offsets[-1] != length:
            return None
        snapshot = cls(names, keys, broken, positions, columns, None, _Bodies(None, file, base, offsets), lazy)
        snapshot.identity = identity
        return snapshot

    def close(self) -> None:
        """Let go of the snapshot file (the bodies are not read from it any more)."""
        with self._lock:
            self._bodies.close()

    def read_bodies(self) -> None:
        """Read every body now (before building most of the facts), and let go of the file."""
        with self._lock:
            texts = self._bodies.all()
            self._bodies.close()
            self._bodies = _Bodies(texts)

    # ---- reading -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.positions)

    def fact(self, i: int, body: str | None = None) -> Fact:
        """The i-th valid fact, built from the columns."""
        c = self.columns
        if body is None:
            with self._lock:
                body = self._bodies.get(i)
        return Fact(
            c["id"][i],
            c["type"][i],
            c["title"][i],
            body,
            c["scope"][i],
            unpack_tags(c["tags"][i]),
            c["confidence"][i],
            c["source"][i],
            c["created"][i],
            c["expires"][i],
            c["supersedes"][i],
            c["extras"][i] or {},
        )

    def key_of(self, pos: int) -> tuple[int, int, int]:
        return (self.keys[3 * pos], self.keys[3 * pos + 1], self.keys[3 * pos + 2])

    def by_name(self) -> dict[str, int]:
        """File name → its position in `names`."""
        if self._by_name is None:
            self._by_name = {name: pos for pos, name in enumerate(self.names)}
        return self._by_name

    def item_at(self, pos: int) -> Fact | str:
        """The Fact in file position `pos`, or the reason it is broken."""
        if self._fact_at is None:
            self._fact_at = {p: i for i, p in enumerate(self.positions)}
        i = self._fact_at.get(pos)
        return self.fact(i) if i is not None else self.broken[self.names[pos]]

    def all_facts(self) -> list[Fact]:
        """Every valid fact, in column order, built in one pass (what `fact` builds one by one)."""
        with self._lock:
            bodies = self._bodies.all()
        c = self.columns
        return [
            Fact(fid, ftype, title, body, scope, unpack_tags(tags), conf, source, created, expires, sup, extras or {})
            for fid, ftype, title, body, scope, tags, conf, source, created, expires, sup, extras in zip(
                c["id"],
                c["type"],
                c["title"],
                bodies,
                c["scope"],
                c["tags"],
                c["confidence"],
                c["source"],
                c["created"],
                c["expires"],
                c["supersedes"],
                c["extras"],
                strict=True,
            )
        ]

    def items(self) -> Iterable[tuple[str, tuple[int, int, int], Fact | str]]:
        """(name, stat key, Fact or broken reason) for every file (the bodies read in one go)."""
        with self._lock:
            bodies = self._bodies.all()
        at = {p: i for i, p in enumerate(self.positions)}
        for pos, name in enumerate(self.names):
            i = at.get(pos)
            yield name, self.key_of(pos), self.fact(i, bodies[i]) if i is not None else self.broken[name]

    def active(self, today_iso: str, type: str | None = None) -> set[int]:
        """Positions of the active facts (of one type), from the columns alone."""
        key = (today_iso, type)
        found = self._active.get(key)
        if found is None:
            c = self.columns
            ids, expires, types = c["id"], c["expires"], c["type"]
            # A fact naming itself in `supersedes` does not retire itself (as in the store).
            replaced = {old for own, olds in zip(ids, c["replaces"], strict=True) if olds for old in olds if old != own}
            found = {
                i
                for i in range(len(ids))
                if ids[i] not in replaced
                and (expires[i] is None or expires[i] >= today_iso)
                and (type is None or types[i] == type)
            }
            self._active[key] = found
        return found

    def index_positions(self, today_iso: str) -> list[int]:
        """The column positions of the facts active on `today_iso`, in INDEX.md's order (type,
        then id): what index_order(FactStore.active_facts(today)) gives, from the columns alone
        (the TUI paints its index from this before it builds a single Fact).

        Active as the store counts it: not expired, and not named by another fact's
        `supersedes` or `merged_from` (a fact naming itself does not retire itself)."""
        c = self.columns
        ids, types, expires = c["id"], c["type"], c["expires"]
        replaced = {
            old for fact_id, olds in zip(ids, c["replaces"], strict=True) if olds for old in olds if old != fact_id
        }
        # The active positions in one comprehension, then three stable sorts keyed by C-level
        # lookups (id, then id length, then type rank): the order of sorting by (rank,
        # len(id), id) without a Python call or a key tuple per fact (100,000 of them).
        if replaced:
            alive = [
                i
                for i, expiry in enumerate(expires)
                if (expiry is None or expiry >= today_iso) and ids[i] not in replaced
            ]
        else:
            alive = [i for i, expiry in enumerate(expires) if expiry is None or expiry >= today_iso]
        ranks = list(map(TYPE_RANK.get, types, itertools.repeat(len(TYPE_RANK))))
        lengths = list(map(len, ids))
        alive.sort(key=ids.__getitem__)
        alive.sort(key=lengths.__getitem__)
        alive.sort(key=ranks.__getitem__)
        return alive

    def scan(self, today_iso: str, type: str | None = None) -> ScanFields:
        """Index-free search over the active facts, building Facts only for hits (kept, so that
        what a ranker derives from it, such as bm25's statistics, serves the next search too)."""
        found = self._scans.get((today_iso, type))
        if found is None:
            found = self._scans[(today_iso, type)] = self._scan(today_iso, type)
        return found

    def _scan(self, today_iso: str, type: str | None) -> ScanFields:
        c = self.columns
        types, confidences, ids = c["type"], c["confidence"], c["id"]

        # Every fact's type x confidence multiplier, in C-level passes: rankers that weigh most
        # facts (bm25's first search) read them without a Python call per fact.
        weights = list(
            map(
                mul,
                map(TYPE_MULTIPLIER.get, types, itertools.repeat(1.0)),
                map(CONFIDENCE_MULTIPLIER.get, confidences, itertools.repeat(1.0)),
            )
        )

        def order(i: int) -> tuple[int, int]:
            return tie_break(types[i], ids[i])

        if self._lazy_fields is None:  # built here, or decoded already
            return ScanFields(
                self.fields, self.fact, weights.__getitem__, order, len(self), self.active(today_iso, type)
            )
        return ScanFields(
            None,
            self.fact,
            weights.__getitem__,
            order,
            len(self),
            self.active(today_iso, type),
            fields_of=lambda: self.fields,
            encoded=self.encoded_fields,
        )
