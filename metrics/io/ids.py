"""Document and query ids as numpy arrays of bytes: fixed-width ``S`` arrays cut from a text buffer or
from arrow's buffers, joined as bytes, and hashed 64 bits at a time (a match of hashes is only a
candidate, always confirmed on the ids)."""

from __future__ import annotations

import numpy as np

__all__ = [
    "MAX_FIXED_WIDTH",
    "shown",
    "among",
    "id_hash",
    "ids_from_arrow",
    "ids_from_buffer",
    "ids_from_series",
    "pair_keys",
    "stretch_heads",
]

#: ids up to this many bytes are kept in fixed-width ``S`` arrays; a longer one (hostile input, a
#: 10 MB "document id") makes the whole column an object array of bytes rather than rows x width bytes
MAX_FIXED_WIDTH = 512
_MUL = np.uint64(0x9E3779B97F4A7C15)
# the low k bytes of a 64-bit word, k = 0..8
_WORD_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_SHIFT = np.uint64(29)


def concat(parts: list) -> np.ndarray:
    """Id arrays end to end, in the widest width (narrower ids zero-padded, as fixed-width ids are;
    an object column if any part is one)."""
    if len(parts) == 1:
        return parts[0]
    if any(p.dtype == object for p in parts):
        return np.concatenate([p.astype(object) for p in parts])
    out = np.zeros(sum(len(p) for p in parts), dtype=f"S{max(p.dtype.itemsize for p in parts)}")
    lo = 0
    for p in parts:
        out[lo : lo + len(p)] = p  # (a copy of bytes and zeros, not a conversion per string)
        lo += len(p)
    return out


def ids_from_buffer(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The byte strings ``buf[starts[i]:ends[i]]`` as one array.

    Fixed-width ``S`` (the width rounded up to 8 bytes, zero-padded, so that rows can also be read
    as 64-bit words by :func:`id_hash`) when the longest is at most :data:`MAX_FIXED_WIDTH` bytes,
    else an object array of ``bytes``.  ``buf`` is a uint8 array.
    """
    n = len(starts)
    lengths = ends - starts
    longest = int(lengths.max()) if n else 0
    if longest > MAX_FIXED_WIDTH:
        data = buf.tobytes()
        out = np.empty(n, dtype=object)
        out[:] = [data[s:e] for s, e in zip(starts.tolist(), ends.tolist())]
        return out
    width = max(8, -(-longest // 8) * 8)
    words = np.empty((n, width // 8), dtype="<u8")
    # each id's bytes as 64-bit words (little-endian: the id's bytes are the low ones), the bytes past
    # its end zeroed
    for k in range(width // 8):
        word = words[:, k]
        _gather_words(buf, starts + 8 * k, word)
        word &= _WORD_MASKS[np.clip(lengths - 8 * k, 0, 8)]
    return words.view(f"S{width}").ravel()


def _gather_words(buf: np.ndarray, starts: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: the 8 bytes of ``buf`` from ``starts[i]`` as a little-endian 64-bit word (zeros past
    the end), read through a view of ``buf`` as words at every byte offset.  ``starts`` ascending."""
    _gather(buf, starts, 8, lambda b: np.ndarray(shape=(len(b) - 7,), dtype="<u8", buffer=b, strides=(1,)), out)


def _windows(buf: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """``(len(starts), width)`` uint8: the ``width`` bytes from each start (zeros past the end).

    One strided view of ``buf`` and one copy of the rows, without copying ``buf``.  ``starts`` ascending.
    """

    def at_every_byte(b: np.ndarray) -> np.ndarray:
        return np.lib.stride_tricks.as_strided(b, shape=(len(b) - width + 1, width), strides=(1, 1), writeable=False)

    rows = np.empty((len(starts), width), dtype=np.uint8)
    _gather(buf, starts, width, at_every_byte, rows)
    return rows


def _gather(buf: np.ndarray, starts: np.ndarray, width: int, at_every_byte, out: np.ndarray) -> None:
    """``out[i]``: the entry of ``at_every_byte(b)`` (a view of ``b`` with an entry of ``width`` bytes
    at every byte offset) at ``starts[i]``, read from ``buf`` itself where the ``width`` bytes fit in it,
    and from a small zero-padded copy of its tail for the starts near (or past) its end.  ``starts``
    ascending."""
    limit = len(buf) - width  # entries starting at or before this fit in buf
    k = int(np.searchsorted(starts, limit, side="right")) if limit >= 0 else 0
    if k:
        out[:k] = at_every_byte(buf)[starts[:k]]
    if k < len(starts):
        base = max(limit, 0)
        tail = np.zeros(max(len(buf), int(starts[-1]) + 1) - base + width, dtype=np.uint8)
        tail[: len(buf) - base] = buf[base:]
        out[k:] = at_every_byte(tail)[starts[k:] - base]


def stretch_heads(values: np.ndarray) -> np.ndarray:
    """Where each stretch of equal values starts (0 first; empty without values).  Run and qrels files
    list a query's lines together, so their query ids are looked at once per stretch, not per line."""
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    words = _as_words(values)
    changed = words[1:] != words[:-1]
    if changed.ndim > 1:
        changed = changed.any(axis=1)
    return np.concatenate([np.zeros(1, dtype=np.int64), np.flatnonzero(changed) + 1])


def _as_words(values: np.ndarray) -> np.ndarray:
    """Fixed-width byte strings (dtype ``S``) as the unsigned integers of their bytes, a row of them per
    value (one column when 8 bytes wide), to be compared as numbers: equal bytes, equal strings, as both
    are padded with zero bytes alike; 18 times faster than numpy's comparison of strings (0.3 ms for 43k
    ids).  Other arrays as they are."""
    if values.dtype.kind != "S" or values.ndim != 1:
        return values
    width = values.dtype.itemsize
    size = 8 if width % 8 == 0 else 4 if width % 4 == 0 else 1
    words = np.ascontiguousarray(values).view(np.dtype(f"u{size}")).reshape(len(values), width // size)
    return words[:, 0] if words.shape[1] == 1 else words


def among(values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is one of the (sorted) ``wanted``, without np.isin (which imports
    numpy.ma, more than scoring a small run costs): a comparison per wanted value when they are few (as
    clashes of hashes are), else a search."""
    if len(wanted) <= 16:
        found = np.zeros(len(values), dtype=bool)
        for value in wanted:
            found |= values == value
        return found
    if values.dtype.kind in "iu" and values.dtype.itemsize >= 4 and len(values) > 64 * len(wanted):
        # many values, few wanted (a 1M-line run's hundred clashes of 32-bit hashes): a table of the
        # wanted values' low 16 bits rules most values out, and only the rest are searched (a 1M-value
        # search took 40 ms, as long as sorting them)
        table = np.zeros(1 << 16, dtype=bool)
        table[wanted & 0xFFFF] = True
        maybe = np.flatnonzero(table[values & 0xFFFF])
        found = np.zeros(len(values), dtype=bool)
        found[maybe] = _searched(values[maybe], wanted)
        return found
    return _searched(values, wanted)


def _searched(values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is one of the (sorted, non-empty) ``wanted``, by binary search."""
    at = np.minimum(np.searchsorted(wanted, values), len(wanted) - 1)
    return wanted[at] == values


def id_hash(ids: np.ndarray) -> np.ndarray:
    """A 64-bit hash per id (equal ids, equal hashes), vectorised over 8-byte words.

    The hash is a function of the id's bytes alone, whichever form holds them: an id of at most
    :data:`MAX_FIXED_WIDTH` bytes is hashed by rounds over its 8-byte words, in a fixed-width ``S``
    array or an object array alike (the short ids of an object column are packed into one first);
    a longer one, which only an object column holds, by BLAKE2b in one C call (rounds over a 10 MB
    id would take a second).  Hashes only narrow the search: every match found with them is
    confirmed on the ids.
    """
    n = len(ids)
    if ids.dtype != object:
        return _word_hash(ids)
    h = np.zeros(n, dtype=np.uint64)
    lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=n)
    short = np.flatnonzero(lengths <= MAX_FIXED_WIDTH)
    if len(short):
        h[short] = _word_hash(ids[short].astype(f"S{max(8, -(-int(lengths[short].max()) // 8) * 8)}"))
    longer = np.flatnonzero(lengths > MAX_FIXED_WIDTH).tolist()
    if longer:
        import hashlib  # here: loading it (OpenSSL's too) costs 3 ms, and ids this long are rare

        for i in longer:
            h[i] = int.from_bytes(hashlib.blake2b(ids[i], digest_size=8).digest(), "little")
    return h


def _word_hash(ids: np.ndarray) -> np.ndarray:
    """:func:`id_hash` of a fixed-width ``S`` array (ids of at most :data:`MAX_FIXED_WIDTH` bytes)."""
    n = len(ids)
    width = ids.dtype.itemsize
    if width % 8:
        ids = ids.astype(f"S{-(-width // 8) * 8}")
        width = ids.dtype.itemsize
    words = np.ascontiguousarray(ids).view("<u8").reshape(n, width // 8)
    h = np.zeros(n, dtype=np.uint64)
    mixed = np.empty(n, dtype=np.uint64)
    shifted = np.empty(n, dtype=np.uint64)
    for k in range(width // 8):
        # ids hold no NUL byte, so a word is zero exactly when its id has ended: those rounds are
        # skipped, and the hash does not depend on the width of the array
        word = words[:, k]
        np.bitwise_xor(h, word, out=mixed)
        mixed *= _MUL
        np.right_shift(mixed, _SHIFT, out=shifted)
        mixed ^= shifted
        if k == 0 or word.all():
            h, mixed = mixed, h
        else:
            np.copyto(h, mixed, where=word != 0)
    return h


def pair_keys(qid: np.ndarray, doc: np.ndarray) -> np.ndarray:
    """64-bit hashes of (query, document) pairs; a query's rows come together, so its id is hashed
    once per block of equal ids."""
    n = len(qid)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    heads = stretch_heads(qid)
    qhash = id_hash(qid[heads])
    qhash *= _MUL_QUERY
    keys = np.repeat(qhash, np.diff(np.append(heads, n)))
    # the documents' hashes added a block at a time: the hash's temporaries stay small
    for lo in range(0, n, _HASH_BLOCK):
        keys[lo : lo + _HASH_BLOCK] += id_hash(doc[lo : lo + _HASH_BLOCK])
    return keys


_MUL_QUERY = np.uint64(0xC2B2AE3D27D4EB4F)
_HASH_BLOCK = 1 << 16


def shown(text: str) -> str:
    """An id as text that can be shown (and held by arrow strings): the bytes that were not UTF-8, which
    the ids' text keeps as lone surrogates (``surrogateescape``, so that ``ir-eval`` writes trec_eval's
    bytes back), as replacement characters."""
    return text if text.isascii() else text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def ids_to_arrow(ids: np.ndarray, *, lossless: bool = False):
    """An id array as an arrow ``large_string`` array: bytes that are not UTF-8 are shown with
    replacement characters; with ``lossless``, None when some id is not UTF-8 (arrow strings cannot
    hold those bytes: :func:`ids_to_text` keeps them)."""
    import pyarrow as pa

    n = len(ids)
    if ids.dtype == object or n == 0:
        try:
            return pa.array([bytes(x).decode("utf-8") for x in ids], type=pa.large_string())
        except UnicodeDecodeError:
            if lossless:
                return None
            return pa.array([bytes(x).decode("utf-8", "replace") for x in ids], type=pa.large_string())
    width = ids.dtype.itemsize
    parts = []
    for lo in range(0, n, _ARROW_BLOCK):  # a block at a time: the masks stay small
        rows = np.ascontiguousarray(ids[lo : lo + _ARROW_BLOCK]).view(np.uint8).reshape(-1, width)
        present = rows != 0  # ids hold no NUL byte: the padding is what is zero
        data = rows[present].tobytes()
        lengths = present.sum(axis=1)
        if not data.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:  # Latin-1 and other bytes: shown with replacement characters
                if lossless:
                    return None
                parts.append(
                    pa.array(
                        [x.decode("utf-8", "replace") for x in ids[lo : lo + _ARROW_BLOCK].tolist()],
                        type=pa.large_string(),
                    )
                )
                continue
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        parts.append(pa.LargeStringArray.from_buffers(len(lengths), pa.py_buffer(offsets), pa.py_buffer(data)))
    return pa.chunked_array(parts, type=pa.large_string())


def ids_to_text(ids: np.ndarray) -> list[str]:
    """Ids as Python text, every byte that is not UTF-8 kept as a lone surrogate (PEP 383's
    ``surrogateescape``, as ``os.fsdecode`` gives undecodable file names): :func:`ids_from_series` gives
    the bytes back."""
    return [bytes(x).decode("utf-8", "surrogateescape") for x in ids.tolist()]


def ids_from_list(ids: list) -> np.ndarray:
    """Byte strings as one id array (the layout of :func:`ids_from_buffer`)."""
    lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
    ends = np.cumsum(lengths)
    return ids_from_buffer(np.frombuffer(b"".join(ids), dtype=np.uint8), ends - lengths, ends)


_ARROW_BLOCK = 1 << 20


def ids_from_series(series) -> np.ndarray:
    """A string column as id bytes, from arrow's buffers when it has them (no Python string per row); text
    that holds lone surrogates (:func:`ids_to_text`) gives back the bytes they stand for."""
    import pyarrow as pa

    try:
        try:
            arr = pa.array(series)  # zero-copy for arrow-backed columns
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arr = pa.array(series.astype(str))
    except UnicodeEncodeError:  # text holding bytes that are not UTF-8 (ids_to_text): those bytes
        return ids_from_list([str(x).encode("utf-8", "surrogateescape") for x in series.tolist()])
    return ids_from_arrow(arr)


def ids_from_arrow(arr) -> np.ndarray:
    """An arrow string array (chunked or not) as id bytes, straight from its buffers."""
    import pyarrow as pa

    if not isinstance(arr, pa.ChunkedArray):
        arr = pa.chunked_array([arr])
    parts = []
    for chunk in arr.chunks:
        if not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
            chunk = chunk.cast(pa.large_string())
        large = pa.types.is_large_string(chunk.type)
        _, offsets_buf, data_buf = chunk.buffers()
        n = len(chunk)
        if n == 0:
            continue
        offset_type = np.int64 if large else np.int32
        offsets = np.frombuffer(offsets_buf, dtype=offset_type, count=n + 1, offset=chunk.offset * (8 if large else 4))
        offsets = offsets.astype(np.int64)
        lo, hi = int(offsets[0]), int(offsets[-1])
        buf = np.frombuffer(data_buf, dtype=np.uint8, count=hi - lo, offset=lo) if hi > lo else np.zeros(0, np.uint8)
        parts.append(ids_from_buffer(buf, offsets[:-1] - lo, offsets[1:] - lo))
    if not parts:
        return np.zeros(0, dtype="S8")
    return concat(parts)
