"""dashboard/ui.py `built`: a chart kept between runs is the chart of exactly that data and those
arguments; anything else is built afresh, and a kept chart is never changed by drawing it."""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl
import pytest

from dashboard import ui

calls: list[tuple[Any, ...]] = []


def bars(df: pl.DataFrame, x: str, *, title: str = "", marks: Any = None) -> alt.Chart:
    calls.append((df, x, title, marks))
    return alt.Chart(df).mark_bar().encode(x=f"{x}:N", y="n:Q").properties(title=title)


def lines(df: pl.DataFrame, x: str, *, title: str = "", marks: Any = None) -> alt.Chart:
    calls.append((df, x, title))
    return alt.Chart(df).mark_line().encode(x=f"{x}:N", y="n:Q")


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    calls.clear()
    monkeypatch.setattr(ui, "_memo", type(ui._memo)())


def _frame(n: list[Any], dtype: Any = pl.Int64) -> pl.DataFrame:
    return pl.DataFrame({"a": ["x", "y", "z"][: len(n)], "n": pl.Series(n, dtype=dtype)})


def test_the_same_chart_of_the_same_data_is_built_once() -> None:
    first = ui.built(bars, _frame([1, 2, 3]), "a", title="t")
    again = ui.built(bars, _frame([1, 2, 3]), "a", title="t")
    assert again is first and len(calls) == 1


@pytest.mark.parametrize(
    "other",
    [
        lambda: ui.built(bars, _frame([1, 2, 4]), "a", title="t"),  # one value
        lambda: ui.built(bars, _frame([1, 2]), "a", title="t"),  # one row fewer
        lambda: ui.built(bars, _frame([1, 2, 3], pl.Float64), "a", title="t"),  # a type
        lambda: ui.built(bars, _frame([1, 2, 3]).rename({"n": "m"}).with_columns(n=1), "a"),
        lambda: ui.built(bars, _frame([1, 2, 3]), "a", title="T"),  # an argument
        lambda: ui.built(bars, _frame([1, 2, 3]), "a", title="t", marks=[1.0]),
        lambda: ui.built(lines, _frame([1, 2, 3]), "a", title="t"),  # another builder
    ],
)
def test_anything_different_builds_another_chart(other: Any) -> None:
    first = ui.built(bars, _frame([1, 2, 3]), "a", title="t")
    assert other() is not first and len(calls) == 2


def test_what_cannot_be_fingerprinted_is_built_every_time() -> None:
    marker = object()
    ui.built(bars, _frame([1, 2, 3]), "a", marks=marker)
    ui.built(bars, _frame([1, 2, 3]), "a", marks=marker)
    odd = pl.DataFrame({"a": ["x"], "n": [1], "o": pl.Series([object()], dtype=pl.Object)})
    ui.built(bars, odd, "a")
    ui.built(bars, odd, "a")
    assert len(calls) == 4


def test_the_oldest_chart_goes_first() -> None:
    ui.built(bars, _frame([0]), "a")
    for i in range(ui._MEMO_SIZE):
        ui.built(bars, _frame([i + 1]), "a")
    assert len(calls) == ui._MEMO_SIZE + 1
    ui.built(bars, _frame([ui._MEMO_SIZE]), "a")  # the newest: still kept
    ui.built(bars, _frame([0]), "a")  # the oldest: built again
    assert len(calls) == ui._MEMO_SIZE + 2


def test_drawing_a_kept_chart_leaves_it_as_it_was() -> None:
    c = ui.built(bars, _frame([1, 2, 3]), "a", title="t")
    before = c.to_dict()
    picked = ui._kept_pick(c, ["a"])
    assert ui._kept_pick(c, ["a"]) is picked  # made once for a kept chart
    ui.served(picked).to_dict()
    assert c.to_dict() == before and "params" not in before
    assert picked.to_dict()["params"][0]["name"] == "pick"
    # A chart not kept gets its pick made afresh, and nothing is kept for it.
    loose = bars(_frame([1]), "a")
    assert ui._kept_pick(loose, ["a"]) is not ui._kept_pick(loose, ["a"])
