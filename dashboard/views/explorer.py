"""Explorer: choose a metric and a dimension, lichess-Insights style."""

from __future__ import annotations

import polars as pl
import streamlit as st

from analytics import charts, explorer, handfinder
from dashboard import db, sidebar, ui

st.title("Explorer")
st.caption(
    "Pick what to measure and what to split it by. Rates carry their 95% Wilson interval, means "
    "a 95% interval of the mean; the table shows every value's sample."
)
k = db.require()
f = sidebar.current()
left, right = st.columns(2)
METRICS = [m.name for m in explorer.METRICS]
DIMENSIONS = [d.name for d in explorer.DIMENSIONS]
ui.from_url("metric", "ex_metric", METRICS, METRICS[0])
ui.from_url("split", "ex_dim", DIMENSIONS, DIMENSIONS[0])
with left:
    metric = st.selectbox("Metric", METRICS, key="ex_metric")
with right:
    dimension = st.selectbox("Split by", DIMENSIONS, key="ex_dim")
ui.to_url("metric", "ex_metric", metric, METRICS[0])
ui.to_url("split", "ex_dim", dimension, DIMENSIONS[0])
df = db.query("explorer.explore", k, f, metric, dimension)
if not df.height:
    ui.empty("values")
    st.stop()
hands = db.query("query.count_hands", k, f)
m = explorer.METRIC_BY_NAME[metric]
counts = explorer.subtitle_counts(metric, dimension)
if m.kind == "rate":
    c = charts.rate_chart(
        df,
        "value",
        title=f"{metric} by {dimension}",
        counts=counts,
        hands=hands,
        x_title=dimension,
        rate_title=metric.lower(),
    )
    config = {
        "hits": "hits",
        "n": "opportunities",
        "rate": ui.percent("rate"),
        "lo": ui.percent("lo", "95% low"),
        "hi": ui.percent("hi", "95% high"),
    }
else:
    c = charts.mean_chart(
        df,
        "value",
        "mean",
        title=f"{metric} by {dimension}",
        counts=counts,
        hands=hands,
        x_title=dimension,
        y_title=metric.lower(),
    )
    config = {
        "n": "sample",
        "mean": st.column_config.NumberColumn(format="%.2f"),
        "mean_lo": st.column_config.NumberColumn("95% low", format="%.2f"),
        "mean_hi": st.column_config.NumberColumn("95% high", format="%.2f"),
    }


def _hands(value: object) -> ui.Params:
    """A mark's hands: a rate's hits, or the hands a mean averages, of that value."""
    text = ui.mark_value(value)
    params: ui.Params = {"event": handfinder.EXPLORER_EVENTS.get(metric, "all")}
    kind, name = handfinder.EXPLORER_FIELDS[dimension]
    if kind == "where":
        params["where"] = f"{name}={text}"
    elif kind == "seat":
        params["seat"] = f"{name}={text}"
    else:
        params["srange"] = f"{name}:{text}:{float(text) + 1:g}"
    return params


ui.chart(c, key="ex_chart", drill=(["value"], lambda v: _hands(v["value"])))
# A rate's link opens its hits: none where there are none.
hits = df["hits"].to_list() if "hits" in df.columns else [1] * df.height
links = pl.Series(
    "hands",
    [ui.hands_url(_hands(v)) if h else "" for v, h in zip(df["value"], hits, strict=True)],
    pl.String,
)
ui.table(
    df.rename({"value": dimension}).with_columns(links).select("hands", pl.exclude("hands")),
    key="ex_table",
    column_config={
        "hands": st.column_config.LinkColumn("hands", display_text="open ↗", width="small"),
        **config,
    },
)
