"""Chart builders are pure: a frame in, a Vega-Lite spec out that says what it counts and over how
many hands, and draws the columns it was given (checked through `chart.to_dict()`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import polars as pl

from analytics import charts
from analytics.stats import with_wilson

RATES = with_wilson(
    pl.DataFrame({"value": ["pair", "single", "throw"], "hits": [3, 5, 0], "n": [10, 20, 4]}),
    "hits",
    "n",
)


def _fields(spec: Any) -> set[str]:
    """Every field an encoding names, anywhere in the spec."""
    out: set[str] = set()
    if isinstance(spec, dict):
        if "field" in spec and isinstance(spec["field"], str):
            out.add(spec["field"])
        for v in spec.values():
            out |= _fields(v)
    elif isinstance(spec, list):
        for v in spec:
            out |= _fields(v)
    return out


def _data(spec: dict[str, Any]) -> list[dict[str, Any]]:
    (rows,) = spec["datasets"].values()
    return rows


def _subtitle(spec: dict[str, Any]) -> str:
    return " ".join(spec["title"]["subtitle"])


def test_rate_chart_says_what_it_counts() -> None:
    spec = charts.rate_chart(
        RATES, "value", title="Capture rate", counts="captures / completed hands", hands=34
    ).to_dict()
    assert spec["title"]["text"] == "Capture rate"
    assert _subtitle(spec) == "captures / completed hands · 34 hands"
    assert {"value", "rate", "lo", "hi", "hits", "n"} <= _fields(spec)
    rows = _data(spec)
    assert [r["value"] for r in rows] == ["pair", "single", "throw"]
    assert rows[2]["lo"] == 0.0 and rows[2]["rate"] == 0.0
    # A categorical x has no connecting line; a rate axis runs 0..1.
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["rule", "point"]


def test_rate_chart_numeric_x_is_a_curve() -> None:
    df = with_wilson(pl.DataFrame({"trumps": [2.0, 6.0], "hits": [1, 4], "n": [5, 8]}), "hits", "n")
    spec = charts.rate_chart(df, "trumps", title="t", counts="c", hands=13).to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["line", "rule", "point"]
    assert spec["layer"][0]["encoding"]["x"]["type"] == "quantitative"


def test_series_and_mean_charts() -> None:
    df = with_wilson(
        pl.DataFrame(
            {"team": ["a", "a", "b"], "trumps": [2.0, 6.0, 2.0], "hits": [1, 2, 3], "n": [4, 4, 4]}
        ),
        "hits",
        "n",
    )
    spec = charts.series_rate_chart(df, "trumps", "team", title="t", counts="c", hands=12).to_dict()
    assert "team" in _fields(spec) and "12 hands" in _subtitle(spec)
    means = pl.DataFrame(
        {"trumps": [2.0, 6.0], "points": [100.0, 150.0], "points_lo": [90.0, 140.0]}
    ).with_columns(points_hi=pl.col("points") + 10, n=pl.lit(5))
    spec = charts.mean_chart(means, "trumps", "points", title="t", counts="c", hands=10).to_dict()
    assert {"points", "points_lo", "points_hi", "n"} <= _fields(spec)


def test_count_scatter_trend_and_deviation_charts() -> None:
    counts = pl.DataFrame({"code": ["x", "y"], "n": [3, 1]})
    spec = charts.count_bars(
        counts, "code", title="Findings", counts="findings", hands=9, horizontal=True
    ).to_dict()
    assert spec["mark"]["type"] == "bar" and spec["encoding"]["y"]["field"] == "code"
    scatter = pl.DataFrame({"a": [10, 20], "b": [40, 80], "m": ["4", "4"], "n": [2, 1]})
    spec = charts.scatter_chart(
        scatter, "a", "b", title="s", counts="captures", hands=3, colour="m"
    ).to_dict()
    assert {"a", "b", "m", "n"} <= _fields(spec)
    trend = pl.DataFrame(
        {
            "period": [dt.date(2026, 11, 2), dt.date(2026, 11, 9)],
            "who": ["ann", "field"],
            "rate": [0.5, 0.4],
            "n": [4, 10],
        }
    )
    spec = charts.trend_chart(
        trend, "period", "rate", title="t", counts="c", hands=4, series="who", percent=True
    ).to_dict()
    assert spec["encoding"]["x"]["type"] == "temporal"
    dev = with_wilson(
        pl.DataFrame(
            {"metric": ["won", "won"], "who": ["ann", "field"], "hits": [3, 30], "n": [4, 80]}
        ),
        "hits",
        "n",
    )
    spec = charts.deviation_chart(dev, title="d", counts="c", hands=4).to_dict()
    assert {"metric", "who", "rate", "lo", "hi"} <= _fields(spec)
    assert "4 hands" in _subtitle(spec)


def test_count_bars_label_every_category_and_count_in_whole_numbers() -> None:
    codes = pl.DataFrame({"code": [f"code_{i}" for i in range(9)], "n": list(range(9, 0, -1))})
    spec = charts.count_bars(
        codes, "code", title="Findings", counts="findings", hands=9, horizontal=True
    ).to_dict()
    assert spec["encoding"]["y"]["axis"]["labelOverlap"] is False
    assert spec["encoding"]["x"]["axis"]["tickMinStep"] == 1
    assert spec["height"] >= 22 * 9  # nine rows, none squeezed out
    spec = charts.count_bars(codes, "code", title="t", counts="c", hands=9).to_dict()
    assert spec["encoding"]["x"]["axis"]["labelOverlap"] is False


def test_role_histogram_names_roles_in_team_colours() -> None:
    dist = pl.DataFrame(
        {"role": ["attacker", "banker", "banker_partner"], "trumps": [10, 12, 9], "n": [4, 2, 2]}
    )
    spec = charts.histogram(
        dist, "trumps", 1, title="t", counts="seats", hands=2, colour="role"
    ).to_dict()
    scale = spec["encoding"]["color"]["scale"]
    assert "banker_partner" not in scale["domain"] and "banker's partner" in scale["domain"]
    colours = dict(zip(scale["domain"], scale["range"], strict=True))
    assert colours["banker"] == charts.BANKER_COLOUR
    assert colours["attacker"] == charts.ATTACKER_COLOUR
    values = spec["datasets"][spec["data"]["name"]]
    assert {v["role_label"] for v in values} == {"attacker", "banker", "banker's partner"}
