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
