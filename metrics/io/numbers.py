"""Scores and grades read from the bytes of a chunk, exactly: a decimal of at most 15 significant digits
by Clinger's fast path (its digits, an exact integer, divided by an exact power of ten: the correctly
rounded value C's ``strtod`` gives), any other spelling one by one by the format's ``strtod`` rule
(:func:`metrics.io.formats._strtod`)."""

from __future__ import annotations

import numpy as np

from metrics.io.ids import (
    _windows,
)

_POW10 = 10.0 ** np.arange(23)  # exact doubles


def _numbers(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, integer: bool) -> np.ndarray:
    """The numbers in the fields: int64 grades or float64 scores, exactly as C reads them.

    Vectorised for plain decimals (``-12``, ``3.25``, ``.5``, ``+1``); scores in other spellings
    (``1e-4``, ``inf``) are read one by one.  Raises Irregular for anything else, so that the
    DataFrame reader reports the line.
    """
    lengths = ends - starts
    width = int(lengths.max())
    if width > 24:
        raise Irregular
    c = _windows(buf, starts, width)
    n = len(starts)
    neg = c[:, 0] == 45
    signed = neg | (c[:, 0] == 43)
    dtype = np.int64 if integer else np.float64
    mantissa = np.zeros(n, dtype=dtype)
    digits = np.zeros(n, dtype=np.int16)
    dots = np.zeros(n, dtype=np.int16)
    fraction_digits = np.zeros(n, dtype=np.int16)
    other = np.zeros(n, dtype=bool)
    # column by column over the field's bytes, each step one pass over n values: the digits build
    # the mantissa (Horner), a dot starts the fraction, anything else sends the row elsewhere
    for j in range(width):
        inside = lengths > j
        d = c[:, j] - np.uint8(48)  # digits are 0..9, every other byte wraps to 10 or more
        digit = (d < 10) & inside
        if j == 0:
            inside &= ~signed
        dot = (c[:, j] == 46) & inside
        other |= inside & ~digit & ~dot
        if integer:
            other |= dot
        else:
            dots += dot
            fraction_digits += digit & (dots > 0)
        digits += digit
        mantissa = np.where(digit, mantissa * 10 + d.astype(dtype), mantissa)
    if integer:
        if (other | (digits < 1) | (digits > 18)).any():
            raise Irregular  # '1.5', 'x', out of range: the DataFrame reader names the line
        return np.where(neg, -mantissa, mantissa)  # exact: below 10**18
    ok = ~other & (dots <= 1) & (digits >= 1) & (digits <= 15)  # mantissa exact: below 2**53
    values = mantissa / _POW10[np.where(ok, fraction_digits, 0)]
    values = np.where(neg, -values, values)
    others = np.flatnonzero(~ok)
    if len(others):
        from metrics.io.formats import _strtod  # the one definition of what a score may look like

        for i in others.tolist():
            value = _strtod(bytes(buf[starts[i] : ends[i]]))
            if value is None or value != value:  # not a number, or NaN: the DataFrame reader says where
                raise Irregular
            values[i] = value
    return values


class Irregular(Exception):
    """A chunk the vectorised split does not take: it is read line by line."""


def numbers_or_nan(text: np.ndarray) -> np.ndarray:
    """The numbers of a column of bytes (a run's rank column); NaN where a field is not a number.

    Plain integers (``17``, ``-3``, ``+2``: every real rank column) are read column by column over the
    fields' bytes, each step one numpy pass that leaves Python's lock free: numpy's own cast from bytes
    reads them one by one holding it, which kept the window's thread waiting seconds on a 7M-line run. Any
    other spelling (``1.0``, ``1e3``, words) is read by ``float`` alone, NaN where it is not a number."""
    n = len(text)
    out = np.full(n, np.nan)
    if n == 0:
        return out
    fields = np.ascontiguousarray(text, dtype=np.bytes_)
    width = fields.dtype.itemsize
    c = fields.view(np.uint8).reshape(n, width)
    neg = c[:, 0] == 45
    value = np.zeros(n, dtype=np.int64)
    digits = np.zeros(n, dtype=np.int8)
    plain = np.ones(n, dtype=bool)
    for j in range(min(width, 18)):
        byte = c[:, j]
        d = byte - np.uint8(48)
        digit = d < 10
        stray = ~digit & (byte != 0)  # (a field shorter than the column ends in NUL bytes)
        if j == 0:
            stray &= ~neg & (byte != 43)  # a sign
        plain &= ~stray
        np.multiply(value, 10, out=value, where=digit)
        np.add(value, d, out=value, where=digit)
        digits += digit
    plain &= digits >= 1
    if width > 18:
        plain &= (c[:, 18:] == 0).all(axis=1)
    out[plain] = value[plain]
    out[plain & neg] *= -1
    for i in np.flatnonzero(~plain).tolist():
        try:
            out[i] = float(fields[i])
        except ValueError:
            pass
    return out
