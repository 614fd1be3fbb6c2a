"""The generic DataFrame table model and its proxy."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from workbench.state.tables import query_rank  # noqa: E402
from workbench.views.common.qtable import RAW_ROLE, SORT_ROLE, DataFrameModel, DataFrameProxy  # noqa: E402


def _frame():
    return pd.DataFrame(
        {
            "query_id": ["10", "9", "100", "2"],
            "value": [0.5, 10.0, 9.0, np.nan],
            "num_rel": [3.0, 12.0, 100.0, 0.0],
        }
    )


def test_model_passes_qtmodeltester(qtmodeltester):
    model = DataFrameModel()
    frame = _frame()
    tones = pd.DataFrame("", index=frame.index, columns=frame.columns)
    tones.loc[1, "value"] = "best"
    model.set_frame(frame, tones, sort_keys={"query_id": query_rank(frame["query_id"])})
    qtmodeltester.check(model)
    proxy = DataFrameProxy()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)


def test_display_sort_and_raw_roles():
    model = DataFrameModel(decimals=3)
    model.set_frame(_frame())
    idx = model.index(0, 1)
    assert idx.data() == "0.500"
    assert idx.data(SORT_ROLE) == 0.5
    assert model.index(3, 1).data() == "–"
    assert model.index(3, 1).data(SORT_ROLE) is None
    assert model.index(1, 2).data() == "12"  # counts without decimals
    assert model.index(0, 1).data(Qt.ItemDataRole.ToolTipRole) == "0.5"
    assert model.index(0, 0).data(RAW_ROLE) == "10"
    assert model.headerData(1, Qt.Orientation.Horizontal) == "value"


def _column(proxy, col, role=Qt.ItemDataRole.DisplayRole):
    return [proxy.index(r, col).data(role) for r in range(proxy.rowCount())]


def test_numbers_sort_as_numbers_and_query_ids_naturally():
    model = DataFrameModel()
    frame = _frame()
    model.set_frame(frame, sort_keys={"query_id": query_rank(frame["query_id"])})
    proxy = DataFrameProxy()
    proxy.setSourceModel(model)
    proxy.sort(1, Qt.SortOrder.AscendingOrder)
    # 9 < 10 as numbers (as text "10.0000" < "9.0000"); the missing value last
    assert _column(proxy, 1, SORT_ROLE)[:3] == [0.5, 9.0, 10.0]
    assert _column(proxy, 1)[3] == "–"
    proxy.sort(1, Qt.SortOrder.DescendingOrder)
    assert _column(proxy, 1, SORT_ROLE)[:3] == [10.0, 9.0, 0.5]
    assert _column(proxy, 1)[3] == "–"  # missing values last in either order
    proxy.sort(2, Qt.SortOrder.DescendingOrder)
    assert _column(proxy, 2) == ["100", "12", "3", "0"]
    proxy.sort(0, Qt.SortOrder.AscendingOrder)
    assert _column(proxy, 0) == ["2", "9", "10", "100"]
    # a new frame is sorted like the last request
    frame = _frame().iloc[::-1].reset_index(drop=True)
    model.set_frame(frame, sort_keys={"query_id": query_rank(frame["query_id"])})
    assert _column(proxy, 0) == ["2", "9", "10", "100"]


def test_sorted_and_filtered_proxy_passes_qtmodeltester(qtmodeltester):
    model = DataFrameModel()
    frame = pd.DataFrame({"query_id": [str(i) for i in range(30)], "v": np.linspace(1, 0, 30), "s": list("abc") * 10})
    model.set_frame(frame, sort_keys={"query_id": query_rank(frame["query_id"])})
    proxy = DataFrameProxy(filter_column=0)
    proxy.setSourceModel(model)
    proxy.setFilterFixedString("1")
    proxy.sort(1, Qt.SortOrder.AscendingOrder)
    assert _column(proxy, 0)[:3] == ["21", "19", "18"]
    proxy.sort(2, Qt.SortOrder.DescendingOrder)
    assert _column(proxy, 2)[:4] == ["c", "c", "c", "b"]
    qtmodeltester.check(proxy)


def test_filter_on_query_id():
    model = DataFrameModel()
    model.set_frame(_frame())
    proxy = DataFrameProxy(filter_column=0)
    proxy.setSourceModel(model)
    proxy.setFilterFixedString("10")
    assert sorted(_column(proxy, 0)) == ["10", "100"]
