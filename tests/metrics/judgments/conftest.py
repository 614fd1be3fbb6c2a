"""The generated collection of tests/judgments_data.py as a fixture."""

from __future__ import annotations

import pytest
from judgments_data import collection_of


@pytest.fixture
def collection():
    return collection_of()
