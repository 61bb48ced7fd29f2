"""Throws (R4): attempts, failures and what failing costs."""

from __future__ import annotations

import polars as pl
import streamlit as st

from analytics import charts, throws
from analytics.stats import rate
from dashboard import db, sidebar, ui

st.title("Throws")
st.caption(
    "A throw leads several components at once; it fails when another player holds a combination "
    "that beats one of them (R4.3), and the thrower plays only the forced component (R4.4). "
    "A failure costs the trick's points the other team takes, the rules' penalty (R4.5) and a "
    "ladder point (R7.5)."
)
k = db.require()
f = sidebar.current()
out = db.query("throws.outcomes", k, f)
s = throws.summary_from(out)
if not s["n"]:
    ui.empty("throws")
    st.stop()
hands = int(s["hands"])

cols = st.columns(4)
with cols[0]:
    ui.rate_metric("Throws failed", rate(int(s["hits"]), int(s["n"])), "throws")
    ui.hands_link("hands with a failed throw", {"event": "failed_throw"})
with cols[1]:
    ui.number_metric(
        "Points conceded per failure",
        s["conceded_per_failure"],
        f"mean over {int(s['hits']):,} failed throws · "
        f"{s['conceded_per_success'] or 0:.1f} when the throw stood",
    )
    ui.hands_link("the failed throws", {"event": "failed_throw"})
with cols[2]:
    ui.number_metric(
        "Points conceded in failed tricks",
        s["points_conceded"],
        f"total over {hands:,} hands with a throw",
        fmt=",d",
    )
    ui.hands_link("hands with a throw", {"event": "throw"})
with cols[3]:
    ladder = f"{s['ladder_points_lost']:,} ladder points lost, one per failed throw (R7.5)"
    ui.number_metric(
        "Penalty points (R4.5)",
        s["penalty_points"],
        (
            f"trick points charged for failed throws · {ladder}"
            if s["penalty_points"]
            else "the rules in scope charge no trick points for a failed throw "
            f"(throw_penalty_points 0) · {ladder}"
        ),
        fmt=",d",
    )
    ui.hands_link("the failed throws", {"event": "failed_throw"})

ui.from_url("by", "th_dim", list(throws.DIMENSIONS), next(iter(throws.DIMENSIONS)))
dim = st.selectbox("Failure rate by", list(throws.DIMENSIONS), key="th_dim")
ui.to_url("by", "th_dim", dim, next(iter(throws.DIMENSIONS)))
by = db.query("throws.failure_by", k, f, dim)
shown = [ui.mark_value(v) for v in by["value"].to_list() if v != "other"]


def _by_value(value: object, event: str = "failed_throw") -> ui.Params:
    """The hands of one bar: throws with that value (the pooled `other`: none of the shown)."""
    params: ui.Params = {"event": event, "throw": f"{dim}={ui.mark_value(value)}"}
    if value == "other":
        params["tother"] = shown
    return params


ui.chart(
    ui.built(
        charts.rate_chart,
        by,
        "value",
        title=f"Throw failure rate by {dim}",
        counts="failed throws / throws attempted, 95% Wilson interval",
        hands=hands,
        x_title=dim,
        rate_title="failure rate",
        colour=charts.ATTACKER_COLOUR,
    ),
    key="th_by",
    drill=(["value"], lambda v: _by_value(v["value"])),
)
# No link where no throw failed: it would open an empty list.
links = pl.Series(
    [ui.hands_url(_by_value(v)) if h else "" for v, h in zip(by["value"], by["hits"], strict=True)],
    dtype=pl.String,
)
ui.table(
    by.rename({"value": dim, "hits": "failed", "n": "throws", "conceded": "conceded per failure"})
    .with_columns(links.alias("hands"))
    .select("hands", pl.exclude("hands")),
    key="th_by_t",
    column_config={
        "hands": st.column_config.LinkColumn("hands", display_text="failed ↗", width="small"),
        "rate": ui.percent("rate", "failure rate"),
        "lo": ui.percent("lo", "95% low"),
        "hi": ui.percent("hi", "95% high"),
        "conceded per failure": st.column_config.NumberColumn(format="%.1f"),
    },
)

left, right = st.columns(2)
with left:
    st.subheader("What a throw got")
    cost = throws.cost_from(out)
    events = {"failed": "failed_throw", "stood": "stood_throw"}
    cost_links = [ui.hands_url({"event": events.get(o, "throw")}) for o in cost["outcome"]]
    ui.table(
        cost.with_columns(pl.Series("hands", cost_links, dtype=pl.String)).select(
            "hands", pl.exclude("hands")
        ),
        key="th_cost",
        column_config={
            "hands": st.column_config.LinkColumn("hands", display_text="open ↗", width="small"),
            "n": "throws",
            "conceded": st.column_config.NumberColumn("points to the other team", format="%.1f"),
            "points": st.column_config.NumberColumn("points in the trick", format="%.1f"),
            "penalty": "penalty points",
        },
    )
with right:
    st.subheader("Who throws")
    per = db.query("throws.throw_rate_by_player", k, f)
    per_links = [ui.hands_url({"event": "throw", "who": p}) for p in per["player"]]
    ui.table(
        per.with_columns(pl.Series("hands", per_links, dtype=pl.String)).select(
            "hands", "player", "style", "attempted", "led", "rate", "failed", "fail_rate"
        ),
        key="th_players",
        column_config={
            "hands": st.column_config.LinkColumn("hands", display_text="throws ↗", width="small"),
            "attempted": "throws",
            "led": "tricks led",
            "rate": ui.percent("rate", "throws / trick led"),
            "failed": "failed",
            "fail_rate": ui.percent("fail_rate", "failure rate"),
        },
    )
