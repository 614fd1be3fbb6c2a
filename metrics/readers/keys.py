"""Duplicate (query, document) pairs found by 64-bit hashes of arrow string columns, confirmed on the ids."""

from __future__ import annotations

import hashlib
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_MASKS = np.array([0] + [(1 << (8 * k)) - 1 for k in range(1, 8)] + [(1 << 64) - 1], dtype=np.uint64)
_MUL = np.uint64(0x9E3779B97F4A7C15)
_LONG_ID = 1024  # bytes: longer ids are hashed one by one (see _string_hash)
_MUL_QUERY = np.uint64(0xC2B2AE3D27D4EB4F)


def _string_hash(arr) -> np.ndarray:
    """A 64-bit hash per string (equal strings, equal hashes), vectorised."""
    if isinstance(arr, pa.ChunkedArray):
        if arr.num_chunks == 1:
            return _string_hash(arr.chunk(0))
        return np.concatenate([_string_hash(c) for c in arr.chunks] or [np.zeros(0, dtype=np.uint64)])
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    offset_type: type[np.signedinteger]
    if pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type):
        offset_type = np.int64
    else:
        if not (pa.types.is_string(arr.type) or pa.types.is_binary(arr.type)):
            arr = arr.cast(pa.string())
        offset_type = np.int32
    _, offsets_buf, data_buf = arr.buffers()
    width = np.dtype(offset_type).itemsize
    offsets = np.frombuffer(offsets_buf, dtype=offset_type, count=n + 1, offset=arr.offset * width)
    offsets = offsets.astype(np.int64)
    lo, hi = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(hi - lo + 8, dtype=np.uint8)
    if hi > lo:
        padded[: hi - lo] = np.frombuffer(data_buf, dtype=np.uint8, count=hi - lo, offset=lo)
    # every byte position as the start of a little-endian 64-bit word
    words = np.ndarray((hi - lo + 1,), dtype="<u8", buffer=padded, strides=(1,))
    start = offsets[:-1] - lo
    length = np.diff(offsets)
    h = length.astype(np.uint64)
    h *= _MUL
    last = len(words) - 1
    # Strings longer than _LONG_ID bytes (rare: a 10 MB "document id") are hashed one by one in C
    # (hashlib), the others in vectorised rounds of 8 bytes, so the work is linear in the bytes:
    # rounds over every string up to the longest would cost rows x longest.
    long_rows = np.flatnonzero(length > _LONG_ID)
    if len(long_rows):
        data = padded.tobytes()
        for i in long_rows.tolist():
            digest = hashlib.blake2b(data[start[i] : start[i] + length[i]], digest_size=8).digest()
            h[i] ^= np.frombuffer(digest, dtype="<u8")[0]  # h holds length * _MUL already
        length = np.where(length > _LONG_ID, 0, length)  # done: no rounds for them
    shortest, longest = int(length.min()), int(length.max())
    # Round r mixes in bytes r..r+7 of every string that has them (a string takes part in as many
    # rounds as it has 8-byte words).
    # sorted only when some strings outlast the shortest (ids of mixed lengths)
    by_length: np.ndarray | None = None
    neg_sorted: np.ndarray = np.zeros(0, dtype=np.int64)
    for r in range(0, longest, 8):
        if r < shortest:  # every string still has bytes: whole-array operations
            word = words[start if r == 0 else np.minimum(start + r, last)]
            if shortest < r + 8:  # keep only the bytes of each string
                word &= _MASKS[np.clip(length - r, 0, 8)]
            h ^= word
            h *= _MUL
            h ^= h >> np.uint64(29)
            continue
        if by_length is None:
            by_length = np.argsort(-length, kind="stable")
            neg_sorted = -length[by_length]
        active = by_length[: int(np.searchsorted(neg_sorted, -r, side="left"))]  # strings longer than r
        word = words[np.minimum(start[active] + r, last)]
        word &= _MASKS[np.clip(length[active] - r, 0, 8)]
        part = h[active]
        part ^= word
        part *= _MUL
        part ^= part >> np.uint64(29)
        h[active] = part
    return h


def _pair_keys(qid, doc) -> np.ndarray:
    """64-bit keys, equal for equal (query, document) pairs."""
    keys = _string_hash(qid)
    keys *= _MUL_QUERY
    keys += _string_hash(doc)
    return keys


def _query_codes(qid: pa.ChunkedArray) -> np.ndarray:
    """Codes 0..n-1 per query id, in order of first appearance."""
    encoded = pc.dictionary_encode(qid)
    if encoded.num_chunks == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in encoded.chunks])


def _has_duplicate_keys(keys: np.ndarray) -> Optional[np.ndarray]:
    """Sort ``keys`` in place; the key values occurring more than once, or None."""
    keys.sort()
    same = keys[1:] == keys[:-1]
    if not same.any():
        return None
    return np.unique(keys[1:][same])


def _first_duplicate(keys: np.ndarray, repeated: np.ndarray, qid, doc):
    """(row of the first repeat, row of its first occurrence) or None.

    ``keys`` (unsorted, one per row) and the ``repeated`` key values point to
    candidate rows; the strings decide (a 64-bit hash may collide).
    """
    candidates = np.flatnonzero(np.isin(keys, repeated))
    seen: dict = {}
    for lo in range(0, len(candidates), 65536):
        rows = candidates[lo : lo + 65536]
        q = qid.take(pa.array(rows)).to_pylist()
        d = doc.take(pa.array(rows)).to_pylist()
        for row, pair in zip(rows.tolist(), zip(q, d)):
            if pair in seen:
                return row, seen[pair]
            seen[pair] = row
    return None  # only hash collisions
