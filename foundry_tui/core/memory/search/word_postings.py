"""The spec ranker's word postings, persisted next to the parse cache (issue 33).

For every word of the snapshot's joined fields (a maximal run of letters and digits at least
MIN_TERM_CHARS long, as word_index.py indexes them): the column positions of the facts whose
title, tags or body hold it. A search term is letters and digits only, so it occurs in a
field exactly when it occurs inside one of the field's words: the facts of a term are the
union of the postings of the words containing it, which one `find` loop over the joined
vocabulary lists. The first search after a server starts reads those few postings instead of
scanning every fact's fields (ScanFields.match: about 36 ms at 10,000 facts).

The file belongs to one snapshot of the parse cache, as bm25's postings do (postings.py): it
names the snapshot's identity and its number of facts, the word length, the byte order and its
own format version; its header, its vocabulary and its table are checksummed (CRC-32) when it
is opened, each word's positions when they are read, and every position must be one of the
snapshot's. A file past MAX_FILE_BYTES, of another length than its header says, with more
words than MAX_WORDS, or damaged anywhere is refused (the caller scans, and a long-lived
server writes it anew): derived data, never trusted, safe to delete. A term found inside more
than MAX_WORDS_PER_TERM words is scanned for too (the scan is then as cheap as the look-ups).
"""

from __future__ import annotations

import bisect
import contextlib
import marshal
import os
import sys
import zlib
from array import array
from pathlib import Path

from foundry_tui.core.memory.model.fields import FieldIndex
from foundry_tui.core.memory.search.spec import MIN_TERM_CHARS

FORMAT_VERSION = 1
_MAGIC = b"foundry-words\n"
_ITEM = "I"  # unsigned 32-bit: positions, offsets and counts
_HEAD = len(_MAGIC) + 8
# Bounds on a file read back (hostile or damaged input): its size, its words, the words one term
# may gather (past it the term is scanned for), and the header's own length.
MAX_FILE_BYTES = 1 << 30
MAX_WORDS = 1 << 24
MAX_WORDS_PER_TERM = 2048
MAX_HEADER_BYTES = 1 << 12
# The words word_index.py indexes (shorter ones can never hold a search term); compiled by build()
# only, so that a hook reading the file compiles nothing.
WORD_PATTERN = rf"[^\W_]{{{MIN_TERM_CHARS},}}"

Positions = tuple[set[int], set[int], set[int]]


def _key(identity: bytes, count: int) -> tuple[int, int, str, bytes, int]:
    return (FORMAT_VERSION, MIN_TERM_CHARS, sys.byteorder, identity, count)


def build(fields: tuple[FieldIndex, FieldIndex, FieldIndex]) -> dict[str, tuple[list[int], list[int], list[int]]]:
    """Word -> the positions (ascending) of the texts holding it, per field (title, tags, body)."""
    found: dict[str, tuple[list[int], list[int], list[int]]] = {}
    import re

    findall = re.compile(WORD_PATTERN).findall
    for field, (blob, _starts) in enumerate(fields):
        for position, text in enumerate(blob.split("\0")):
            if not text:
                continue
            for word in set(findall(text)):
                lists = found.get(word)
                if lists is None:
                    lists = found[word] = ([], [], [])
                lists[field].append(position)
    return found


def dumps(words: dict[str, tuple[list[int], list[int], list[int]]], identity: bytes, count: int) -> bytes:
    """The file's bytes: magic, header length and CRC-32, header (key, lengths, CRCs), then the
    vocabulary ("\\n"-separated, UTF-8), the table (per word: its start in the vocabulary, its
    data offset, its three sizes, its CRC-32) and the positions back to back."""
    names = sorted(words)
    vocabulary = ("\n" + "\n".join(names) + "\n") if names else "\n"
    table = array(_ITEM)
    data = bytearray()
    start = 1
    for name in names:
        title, tags, body = words[name]
        chunk = array(_ITEM, [*title, *tags, *body]).tobytes()
        table.extend((start, len(data), len(title), len(tags), len(body), zlib.crc32(chunk)))
        data += chunk
        start += len(name) + 1
    table.append(start)  # the vocabulary's end, as the start of a word past the last
    vocab = vocabulary.encode("utf-8", "surrogatepass")
    tab = table.tobytes()
    lengths = (len(names), len(vocab), len(tab), len(data))
    header = marshal.dumps((_key(identity, count), array(_ITEM).itemsize, lengths, zlib.crc32(vocab), zlib.crc32(tab)))
    head = _MAGIC + len(header).to_bytes(4, "big") + zlib.crc32(header).to_bytes(4, "big") + header
    return b"".join([head, vocab, tab, bytes(data)])


class WordPostings:
    """A words file opened for one snapshot: each word's positions read (and checked) when a
    search first asks for them."""

    def __init__(self, fd: int, base: int, vocabulary: str, table: array[int], count: int) -> None:
        self._fd = fd
        self._base = base
        self._vocabulary = vocabulary
        self._table = table
        self._starts = table[0::6]  # each word's start in the vocabulary, then the vocabulary's end
        self._count = count

    def find(self, term: str) -> Positions | None:
        """Per field, the positions of the facts whose text holds `term` (letters and digits, at
        least MIN_TERM_CHARS of them); None when the stored data is damaged or the term is in
        too many words (the caller then scans)."""
        vocab, starts = self._vocabulary, self._starts
        chunks: list[tuple[int, int, int, int, int]] = []  # per word: offset, three sizes, crc
        pos = vocab.find(term)
        while pos != -1:
            i = bisect.bisect_right(starts, pos) - 1
            if len(chunks) == MAX_WORDS_PER_TERM or not 0 <= i < len(starts) - 1:
                return None
            if not starts[i] <= pos < pos + len(term) < starts[i + 1]:  # starts out of order: damaged
                return None
            row = self._table[6 * i + 1 : 6 * i + 6]
            chunks.append((row[0], row[1], row[2], row[3], row[4]))
            pos = vocab.find(term, starts[i + 1])
        title: set[int] = set()
        tags: set[int] = set()
        body: set[int] = set()
        size = array(_ITEM).itemsize
        for offset, n_title, n_tags, n_body, crc in chunks:
            length = size * (n_title + n_tags + n_body)
            try:
                data = os.pread(self._fd, length, self._base + offset)
            except OSError:
                return None
            if len(data) != length or zlib.crc32(data) != crc:
                return None
            values = array(_ITEM, data)
            if values and max(values) >= self._count:
                return None
            title.update(values[:n_title])
            tags.update(values[n_title : n_title + n_tags])
            body.update(values[n_title + n_tags :])
        return title, tags, body

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


def _read(fd: int, length: int, offset: int) -> bytes | None:
    data = os.pread(fd, length, offset)
    return data if len(data) == length else None


def _open(fd: int, identity: bytes, count: int, max_bytes: int) -> WordPostings | None:
    size = os.fstat(fd).st_size
    if size > max_bytes:
        return None
    head = _read(fd, _HEAD, 0)
    if head is None or head[: len(_MAGIC)] != _MAGIC:
        return None
    header_length = int.from_bytes(head[-8:-4], "big")
    if header_length > MAX_HEADER_BYTES:
        return None
    header = _read(fd, header_length, _HEAD)
    if header is None or zlib.crc32(header).to_bytes(4, "big") != head[-4:]:
        return None
    key, itemsize, lengths, vocab_crc, table_crc = marshal.loads(header)
    if key != _key(identity, count) or itemsize != array(_ITEM).itemsize:
        return None
    n_words, vocab_length, table_length, data_length = lengths
    if not all(isinstance(n, int) and n >= 0 for n in lengths) or n_words > MAX_WORDS:
        return None
    base = _HEAD + header_length
    if base + vocab_length + table_length + data_length != size or table_length != itemsize * (6 * n_words + 1):
        return None
    vocab = _read(fd, vocab_length, base)
    table_bytes = _read(fd, table_length, base + vocab_length)
    if vocab is None or table_bytes is None or zlib.crc32(vocab) != vocab_crc or zlib.crc32(table_bytes) != table_crc:
        return None
    vocabulary = vocab.decode("utf-8", "surrogatepass")
    table = array(_ITEM, table_bytes)
    # The rest is checked as it is read (find): each word's place in the vocabulary, its data
    # inside the file (the data section is last: a read past it comes back short) and its CRC.
    if table[-1] != len(vocabulary):
        return None
    return WordPostings(fd, base + vocab_length + table_length, vocabulary, table, count)


def load(path: Path, identity: bytes, count: int, max_bytes: int = MAX_FILE_BYTES) -> WordPostings | None:
    """The words in `path` when they were built for the snapshot `identity` of `count` facts by
    this format, within the bounds and intact; else None (also when there is no file)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        found = _open(fd, identity, count, max_bytes)
    except (EOFError, ValueError, TypeError, OSError, OverflowError):
        found = None
    if found is None:
        with contextlib.suppress(OSError):
            os.close(fd)
    return found


def write(path: Path, fields: tuple[FieldIndex, FieldIndex, FieldIndex], identity: bytes, count: int) -> None:
    """Build and store the words of a snapshot's fields (atomically; failures ignored: a cache)."""
    from foundry_tui.core.atomic import atomic_write

    data = dumps(build(fields), identity, count)
    with contextlib.suppress(OSError):
        atomic_write(path, data, inside=None)
