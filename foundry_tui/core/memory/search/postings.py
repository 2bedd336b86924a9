"""The bm25 ranker's postings, persisted next to the parse cache.

For every stem of the facts' words: the facts that hold it and how often, per field
(title, tags, body). bm25 otherwise finds a query stem's occurrences by scanning the
joined fields with a regular expression (bm25._occurrences), about 8 ms per field and
stem at 10,000 facts: the bulk of the first search after a server starts.

The file belongs to one snapshot of the parse cache: it names the snapshot's identity (a
random id written into each snapshot's header), and facts are the snapshot's column
positions. A process answers from it only while its store is that snapshot, unchanged
(`FactStore.pending_snapshot`), so a write, an edit behind its back or a removal (any
of which makes the store re-read the files and write a new snapshot) leaves it unused.
It also names the tokenizer (bm25.TOKENIZER_VERSION), the byte order, and its own format
version; its directory and each stem's data are checksummed (CRC-32), and a mismatch on
any of them makes the caller scan as before. It is derived data, safe to delete.

Built from the snapshot's joined fields by the process that searches with bm25 for a long
time (the MCP server, off the request path), with the same words the scan counts: a word is
a maximal run of letters and digits, counted under its stem when it starts with one of the
stem's prefixes (bm25.prefixes; a word the scan's pattern would not reach is not counted).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import zlib
from array import array
from pathlib import Path

from foundry_tui.core.memory.model.fields import FieldIndex
from foundry_tui.core.memory.search import bm25

FORMAT_VERSION = 1
_MAGIC = b"foundry-postings\n"
_ITEM = "I"  # unsigned 32-bit: positions and counts


def _key(identity: bytes) -> tuple[int, int, str, bytes]:
    return (FORMAT_VERSION, bm25.TOKENIZER_VERSION, sys.byteorder, identity)


def build(fields: tuple[FieldIndex, FieldIndex, FieldIndex]) -> dict[str, tuple[array[int], ...]]:
    """Stem -> per field, the positions holding it and their counts:
    (positions0, counts0, positions1, counts1, positions2, counts2), positions ascending."""
    from collections import Counter

    stem_of: dict[str, str | None] = {}
    prefixes_of = bm25.prefixes
    stem = bm25.stem
    findall = bm25.WORD_RE.findall
    found: dict[str, tuple[array[int], ...]] = {}
    for field, (blob, _starts) in enumerate(fields):
        for position, text in enumerate(blob.split("\0")):
            if not text:
                continue
            per_stem: dict[str, int] = {}
            for word, count in Counter(findall(text)).items():
                term = stem_of.get(word, "")
                if term == "":
                    term = stem(word)
                    # The scan finds a word only through one of its stem's prefixes ("flies" is
                    # "fly", but the scan looks for words starting "fly"): count what it counts.
                    if not word.startswith(prefixes_of(term)):
                        term = None
                    stem_of[word] = term
                if term is not None:  # words of one stem ("db", "database") count together
                    per_stem[term] = per_stem.get(term, 0) + count
            for term, count in per_stem.items():
                arrays = found.get(term)
                if arrays is None:  # arrays, not lists: no int object kept per posting
                    arrays = found[term] = tuple(array(_ITEM) for _ in range(6))
                arrays[2 * field].append(position)
                arrays[2 * field + 1].append(count)
    return found


def dumps(postings: dict[str, tuple[array[int], ...]], identity: bytes) -> bytes:
    """The file's bytes: magic, header length and CRC-32, header (key, directory), then each
    stem's arrays back to back."""
    directory: dict[str, tuple[int, tuple[int, ...], int]] = {}
    parts: list[bytes] = []
    offset = 0
    for term, arrays in postings.items():
        data = b"".join(a.tobytes() for a in arrays)
        directory[term] = (offset, tuple(len(a) for a in arrays[::2]), zlib.crc32(data))
        parts.append(data)
        offset += len(data)
    header = marshal.dumps((_key(identity), array(_ITEM).itemsize, directory))
    head = _MAGIC + len(header).to_bytes(4, "big") + zlib.crc32(header).to_bytes(4, "big") + header
    return b"".join([head, *parts])


Counts = tuple[dict[int, int], dict[int, int], dict[int, int]]


class Postings:
    """A postings file opened for one snapshot: each stem's data read (and checked) when a
    search first asks for it."""

    def __init__(self, file: object, base: int, directory: dict[str, tuple[int, tuple[int, ...], int]]) -> None:
        self._file = file
        self._fd: int = file.fileno()  # type: ignore[attr-defined]
        self._base = base
        self._directory = directory

    def counts(self, term: str) -> Counts | None:
        """Per field, position -> how often words with this stem occur in it; None when the
        stored data is damaged (the caller then scans)."""
        entry = self._directory.get(term)
        if entry is None:
            return {}, {}, {}  # no fact holds a word with this stem
        offset, sizes, crc = entry
        size = array(_ITEM).itemsize
        length = 2 * size * sum(sizes)
        try:
            data = os.pread(self._fd, length, self._base + offset)
        except OSError:
            return None
        if len(data) != length or zlib.crc32(data) != crc:
            return None
        values = array(_ITEM, data)
        fields: list[dict[int, int]] = []
        at = 0
        for n in sizes:
            fields.append(dict(zip(values[at : at + n], values[at + n : at + 2 * n], strict=True)))
            at += 2 * n
        return fields[0], fields[1], fields[2]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._file.close()  # type: ignore[attr-defined]


def load(path: Path, identity: bytes) -> Postings | None:
    """The postings in `path` when they were built for the snapshot `identity` by this
    tokenizer and format, their header intact; else None (also when there is no file)."""
    try:
        file = open(path, "rb")  # noqa: SIM115  # kept open: each stem is read when first searched
    except OSError:
        return None
    try:
        head = file.read(len(_MAGIC) + 8)
        if len(head) == len(_MAGIC) + 8 and head[: len(_MAGIC)] == _MAGIC:
            header = file.read(int.from_bytes(head[-8:-4], "big"))
            if zlib.crc32(header).to_bytes(4, "big") == head[-4:]:
                key, itemsize, directory = marshal.loads(header)
                if key == _key(identity) and itemsize == array(_ITEM).itemsize and isinstance(directory, dict):
                    return Postings(file, file.tell(), directory)
    except (EOFError, ValueError, TypeError, OSError):
        pass
    file.close()
    return None


def write(path: Path, fields: tuple[FieldIndex, FieldIndex, FieldIndex], identity: bytes) -> None:
    """Build and store the postings of a snapshot's fields (atomically; failures ignored: a cache)."""
    from foundry_tui.core.atomic import atomic_write

    data = dumps(build(fields), identity)
    with contextlib.suppress(OSError):
        atomic_write(path, data, inside=None)
