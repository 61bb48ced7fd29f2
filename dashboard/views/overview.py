"""Overview: volume, the banker team's record, bottom captures, throws and how hands end."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from analytics import charts
from dashboard import db, sidebar, ui

st.title("Overview")
k = db.require()
f = sidebar.current()
head = db.query("overview.headline", k, f)
n = head["hands"]
if not n:
    ui.empty("replayed hands")
    st.stop()

simulated, shown = db.query("overview.simulated", k, f)
if simulated:
    share = (
        "All these hands are"
        if simulated == shown
        else f"{simulated:,} of these {shown:,} hands are"
    )
    st.info(
        f"{share} **simulated bot play**, not games people played: their logs carry the "
        "simulator's `_personas` field (`shengji simulate`, which made the bundled sample). The "
        "figures describe the bots' styles.",
        icon=":material/smart_toy:",
    )

span = f"{head['first']:%d %b %Y} – {head['last']:%d %b %Y}" if head["first"] else "undated"
st.caption(
    f"{ui.count(n, 'replayed hand')} · {ui.count(head['players'], 'player')} · "
    f"{ui.count(head['sources'], 'source')} · {span} "
    f"· {ui.md(f.describe())}"
)

cols = st.columns(5)
with cols[0]:
    ui.rate_metric("Banker team held", head["banker_held"], "hands")
    ui.hands_link("the hands held", {"event": "banker_held"})
with cols[1]:
    ui.rate_metric("Bottom captured", head["bottom_captured"], "completed hands")
    ui.hands_link("the captures", {"event": "capture"})
with cols[2]:
    ui.rate_metric("Throws failed", head["throw_failed"], "throws")
    ui.hands_link("hands with a failed throw", {"event": "failed_throw"})
with cols[3]:
    ui.number_metric(
        "Attackers' points",
        head["mean_points"],
        f"mean over {n:,} hands · median {head['median_points'] or 0:,.0f}",
    )
    ui.hands_link("every hand", {"event": "all"})
with cols[4]:
    ui.rate_metric("Flagged", head["flagged"], "hands", "Replayed, but the log had faults.")
    ui.hands_link("the flagged hands", {"event": "findings"})

left, right = st.columns(2)
with left:
    outcomes = db.query("overview.outcomes", k, f)
    if outcomes.height:
        ui.chart(
            ui.built(
                charts.count_bars,
                outcomes.with_columns(),
                "outcome",
                title="How hands end (R7.3)",
                counts="hands by the level change: who went up and by how many",
                hands=int(outcomes["n"].sum()),
                x_title="outcome",
                y_title="hands",
            ),
            key="ov_outcomes",
            drill=(["outcome"], lambda v: {"where": f"outcome={v['outcome']}"}),
        )
with right:
    hist = db.query("overview.points_histogram", k, f)
    if hist.height:
        ui.chart(
            ui.built(
                charts.histogram,
                hist,
                "points",
                20,
                title="Attackers' final points",
                counts="hands per 20 points, bottom and penalties included",
                hands=int(hist["n"].sum()),
                x_title="attackers' points",
            ),
            key="ov_points",
            drill=(
                ["points"],
                lambda v: {"range": f"attackers' points:{v['points']:g}:{v['points'] + 20:g}"},
            ),
        )

ui.from_url("per", "ov_period", ["day", "week", "month"], "week")
period = st.segmented_control("Hands per", ["day", "week", "month"], key="ov_period")
ui.to_url("per", "ov_period", period or "week", "week")
over_time = db.query("overview.hands_over_time", k, f, period or "week")
if over_time.height:
    c = (
        alt.Chart(over_time.with_columns(pl.col("period").cast(pl.String)))
        .mark_bar()
        .encode(
            x=alt.X("period:O", title=f"{period or 'week'} starting", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("n:Q", title="hands", stack=True),
            color=alt.Color(
                "status:N",
                scale=alt.Scale(domain=["ok", "flagged"], range=["#4c78a8", "#f58518"]),
            ),
            tooltip=["period:O", "status:N", "n:Q"],
        )
        .properties(
            title=alt.TitleParams(
                f"Hands per {period or 'week'}",
                subtitle=[charts.subtitle("replayed hands by status", int(over_time["n"].sum()))],
                anchor="start",
            ),
            height=220,
        )
    )
    chosen = period or "week"

    def _period_hands(v: dict[str, object]) -> ui.Params:
        start = ui.mark_value(v["period"])[:10]
        field, value = ("month", start[:7]) if chosen == "month" else (chosen, start)
        return {"where": [f"{field}={value}", f"status={v['status']}"]}

    ui.chart(c, key="ov_time", drill=(["period", "status"], _period_hands))
