"""The facts' sentence vectors: derived data beside the parse cache (issue 29).

One vector per fact text, keyed by the text's fingerprint (`fingerprint`: BLAKE2b-128 of the
text the model reads, `fact_text`), so an edited fact gets a new key and a retired one's vector
is dropped at the next save. The file (`<cache>/facts-<root key>.vectors`, core/memory/storage/
cache.py) is never in git, always safe to delete, written atomically and validated before use:
its magic, the model's id, the dimensions, the count against the file's size (at most
MAX_VECTORS) and a CRC-32 of the rest; a file that fails any of them is ignored (and replaced
at the next save).

    magic (8) | model id (32, NUL-padded) | dims u32 | count u32 | crc32 u32 |
    count × fingerprint (16) | count × dims × float32 (little-endian)

numpy is imported at the top: import this module only where vectors are used (rankers.py
and project.py import it inside functions).
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

MAGIC = b"FNDVEC01"
MODEL_ID_BYTES = 32
FINGERPRINT_BYTES = 16
HEADER = struct.Struct("<8s32sIII")
# A bound on what a file may claim (hostile or damaged caches): far above any real memory.
MAX_VECTORS = 2_000_000
MAX_DIMS = 4096

Matrix = npt.NDArray[np.float32]


def fact_text(title: str, tags: Sequence[str], body: str) -> str:
    """What the model reads for a fact: `"{title}. Tags: {tags}. {body}"` (ADR 0026's choice on
    the tuning set; the model lowercases, so the search fields' lowercased text gives the same)."""
    return f"{title}. Tags: {', '.join(tags)}. {body}"


def fingerprint(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=FINGERPRINT_BYTES).digest()


class VectorStore:
    """The vectors known, by fingerprint; `version` changes whenever a vector is added."""

    def __init__(self, model_id: str, dims: int) -> None:
        self.model_id = model_id
        self.dims = dims
        self.rows: dict[bytes, int] = {}
        self._matrix: Matrix = np.zeros((0, dims), dtype=np.float32)
        self.version = 0
        self.unsaved = 0

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def matrix(self) -> Matrix:
        """One row per known vector (row `rows[fingerprint]`)."""
        return self._matrix[: len(self.rows)]

    def add(self, fingerprints: Sequence[bytes], vectors: Matrix) -> None:
        """Keep `vectors[i]` for `fingerprints[i]` (ones already known are skipped)."""
        if vectors.shape != (len(fingerprints), self.dims):
            raise ValueError(f"expected {len(fingerprints)} × {self.dims} vectors, got {vectors.shape}")
        new = [(fp, i) for i, fp in enumerate(fingerprints) if fp not in self.rows]
        if not new:
            return
        size = len(self.rows)
        if size + len(new) > len(self._matrix):
            grown = np.zeros((max(64, 2 * (size + len(new))), self.dims), dtype=np.float32)
            grown[:size] = self._matrix[:size]
            self._matrix = grown
        for offset, (fp, i) in enumerate(new):
            self.rows[fp] = size + offset
            self._matrix[size + offset] = vectors[i]
        self.version += 1
        self.unsaved += len(new)

    def gather(self, fingerprints: Sequence[bytes]) -> tuple[Matrix, npt.NDArray[np.bool_]]:
        """The vectors of `fingerprints` in their order (zeros where none is known) and which are known."""
        index = np.fromiter((self.rows.get(fp, -1) for fp in fingerprints), dtype=np.int64, count=len(fingerprints))
        known = index >= 0
        out = np.zeros((len(fingerprints), self.dims), dtype=np.float32)
        if known.any():
            out[known] = self._matrix[index[known]]
        return out, known

    # ---- the file ------------------------------------------------------------------------

    def load(self, path: Path) -> bool:
        """Replace what is known by the file's vectors; False (nothing changed) when the file
        is missing or fails validation."""
        try:
            data = path.read_bytes()
        except OSError:
            return False
        parsed = parse(data, self.model_id, self.dims)
        if parsed is None:
            return False
        fingerprints, matrix = parsed
        self.rows = {fp: i for i, fp in enumerate(fingerprints)}
        self._matrix = matrix
        self.version += 1
        self.unsaved = 0
        return True

    def save(self, path: Path, keep: Iterable[bytes] | None = None) -> None:
        """Write the vectors (only those of `keep`, when given) atomically to `path`."""
        rows = self.rows if keep is None else {fp: self.rows[fp] for fp in keep if fp in self.rows}
        fingerprints = list(rows)
        matrix = self._matrix[np.fromiter(rows.values(), dtype=np.int64, count=len(rows))] if rows else self.matrix[:0]
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(encode(self.model_id, self.dims, fingerprints, matrix))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self.unsaved = 0


def encode(model_id: str, dims: int, fingerprints: Sequence[bytes], matrix: Matrix) -> bytes:
    body = b"".join(fingerprints) + np.ascontiguousarray(matrix, dtype="<f4").tobytes()
    head = HEADER.pack(MAGIC, model_id.encode()[:MODEL_ID_BYTES], dims, len(fingerprints), zlib.crc32(body))
    return head + body


def parse(data: bytes, model_id: str, dims: int) -> tuple[list[bytes], Matrix] | None:
    """The fingerprints and vectors of a file's bytes, or None unless every check passes."""
    if len(data) < HEADER.size:
        return None
    magic, model, file_dims, count, crc = HEADER.unpack_from(data)
    if magic != MAGIC or model.rstrip(b"\0") != model_id.encode()[:MODEL_ID_BYTES] or file_dims != dims:
        return None
    if not 0 < dims <= MAX_DIMS or count > MAX_VECTORS:
        return None
    if len(data) != HEADER.size + count * (FINGERPRINT_BYTES + 4 * dims):
        return None
    body = memoryview(data)[HEADER.size :]
    if zlib.crc32(body) != crc:
        return None
    cut = count * FINGERPRINT_BYTES
    prints = bytes(body[:cut])
    fingerprints = [prints[i : i + FINGERPRINT_BYTES] for i in range(0, cut, FINGERPRINT_BYTES)]
    matrix = np.frombuffer(body[cut:], dtype="<f4").reshape(count, dims).astype(np.float32)
    if len(set(fingerprints)) != count or not np.isfinite(matrix).all():
        return None
    return fingerprints, matrix
