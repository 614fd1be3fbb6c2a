"""The rank column inspection reads: every field as ``float`` reads it, NaN where it is not a number."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from metrics.io.numbers import numbers_or_nan as _numbers_or_nan


def _as_float(field: bytes) -> float:
    try:
        return float(field)
    except ValueError:
        return float("nan")


fields = st.one_of(
    st.integers(-(10**20), 10**20).map(lambda i: str(i).encode()),
    st.integers(0, 10**6).map(lambda i: b"+" + str(i).encode()),
    st.floats(allow_nan=False).map(lambda f: repr(f).encode()),
    st.sampled_from([b"", b"-", b"+", b"x", b"1-2", b"007", b"1e3", b"inf", b"0x10", b"--1"]),
    st.binary(min_size=1, max_size=6).filter(lambda b: b"\x00" not in b and not b.endswith(b"\x00")),
)


@given(st.lists(fields, min_size=1, max_size=40))
def test_every_field_is_read_as_float_reads_it(values):
    column = np.array(values, dtype=np.bytes_)
    got = _numbers_or_nan(column)
    want = np.array([_as_float(bytes(v)) for v in column])
    np.testing.assert_array_equal(got, want)


def test_a_deep_rank_column_of_integers():
    ranks = np.tile(np.char.encode(np.arange(1, 1001).astype(str)), 50)
    np.testing.assert_array_equal(_numbers_or_nan(ranks), np.tile(np.arange(1.0, 1001.0), 50))
