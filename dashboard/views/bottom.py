"""Bottom capture (R7.2): how often the attackers take the last trick and the bottom, for how
much, and when it decided the hand."""

from __future__ import annotations

import polars as pl
import streamlit as st

from analytics import bottom, charts
from analytics.stats import rate
from dashboard import db, sidebar, ui

st.title("Bottom capture")
st.caption(
    "The winner of the last trick takes the bottom (R7.2). When that is the attackers, the "
    "bottom's points count for them, multiplied by 2^k for a trump win (k = cards in the largest "
    "component of the last lead). Opportunities: completed hands."
)
k = db.require()
f = sidebar.current()
s = db.query("bottom.summary", k, f)
n = int(s["n"])
if not n:
    ui.empty("completed hands")
    st.stop()

captures = int(s["hits"])
cols = st.columns(4)
with cols[0]:
    ui.rate_metric("Bottom captured", rate(captures, n), "completed hands")
    ui.hands_link("the captures", {"event": "capture"})
with cols[1]:
    ui.number_metric(
        "Points added per capture",
        s["mean_added"],
        f"mean over {captures:,} captures · their bottom held "
        f"{s['mean_captured_points'] or 0:.1f} points on average",
    )
    ui.hands_link("captures ×4 or more", {"event": "capture_x4"})
with cols[2]:
    ui.rate_metric(
        "Capture changed the outcome",
        rate(int(s["changed"]), captures),
        "captures",
        "The level change (R7.3) with the bottom differs from the one without it.",
    )
    ui.hands_link("hands decided by the bottom", {"event": "bottom_decided"})
with cols[3]:
    ui.rate_metric(
        "Capture turned the hand",
        rate(int(s["flipped"]), captures),
        "captures",
        "Without the bottom the banker team would have held; with it the attackers took over.",
    )
    ui.hands_link("hands the bottom turned", {"event": "bottom_flipped"})

# Each breakdown's name among the Hand finder's fields (analytics/handfinder.py).
FINDER_FIELD = {
    "banker seat": "banker seat",
    "level played": "level",
    "rules": "rules",
    "last trick's lead": "last trick's lead",
    "trump": "trump",
    "source": "source",
}

ui.from_url("by", "bc_dim", list(bottom.DIMENSIONS), next(iter(bottom.DIMENSIONS)))
dim = st.selectbox("Capture rate by", list(bottom.DIMENSIONS), key="bc_dim")
ui.to_url("by", "bc_dim", dim, next(iter(bottom.DIMENSIONS)))
by = db.query("bottom.capture_by", k, f, dim)
ui.chart(
    ui.built(
        charts.rate_chart,
        by,
        "value",
        title=f"Bottom capture rate by {dim}",
        counts="attackers took the last trick / completed hands, 95% Wilson interval",
        hands=int(by["n"].sum()),
        x_title=dim,
        rate_title="capture rate",
        colour=charts.ATTACKER_COLOUR,
    ),
    key="bc_by",
    drill=(
        ["value"],
        lambda v: {"event": "capture", "where": f"{FINDER_FIELD[dim]}={ui.mark_value(v['value'])}"},
    ),
)

mult = db.query("bottom.by_multiplier", k, f)


def _mult_params(label: str) -> ui.Params | None:
    for r in mult.iter_rows(named=True):
        if f"{r['lead']} ×{r['multiplier']}" == label:
            return {
                "event": "capture",
                "where": [f"last trick's lead={r['lead']}", f"multiplier={r['multiplier']}"],
            }
    return None


left, right = st.columns(2)
with left:
    if mult.height:
        labelled = mult.with_columns(
            (pl.col("lead") + " ×" + pl.col("multiplier").cast(pl.String)).alias("lead × mult")
        )
        ui.chart(
            ui.built(
                charts.count_bars,
                labelled,
                "lead × mult",
                title="Captures by the last lead and multiplier",
                counts="captures",
                hands=captures,
                x_title="last trick's lead × multiplier",
                y_title="captures",
            ),
            key="bc_mult",
            drill=(["lead × mult"], lambda v: _mult_params(v["lead × mult"])),
        )
        mult_links = [
            ui.hands_url(
                {"event": "capture", "where": [f"last trick's lead={a}", f"multiplier={m}"]}
            )
            for a, m in mult.select("lead", "multiplier").iter_rows()
        ]
        ui.table(
            mult.with_columns(pl.Series("open", mult_links, dtype=pl.String)).select(
                "open", pl.exclude("open")
            ),
            key="bc_mult_t",
            column_config={
                "open": st.column_config.LinkColumn(
                    "hands", display_text="captures ↗", width="small"
                ),
                "mean_bottom_points": st.column_config.NumberColumn("bottom (mean)", format="%.1f"),
                "mean_added": st.column_config.NumberColumn("added (mean)", format="%.1f"),
                "total_added": "added (total)",
                "n": "captures",
            },
        )
with right:
    bv = db.query("bottom.buried_vs_added", k, f)
    if bv.height:
        ui.chart(
            ui.built(
                charts.scatter_chart,
                bv,
                "bottom_points",
                "bottom_added",
                title="Points buried vs points the capture added",
                counts="captures (hover a point for how many)",
                hands=captures,
                x_title="points in the bottom",
                y_title="points added",
                colour="multiplier",
            ),
            key="bc_scatter",
            drill=(
                ["bottom_points", "bottom_added", "multiplier"],
                lambda v: {
                    "event": "capture",
                    "where": [
                        f"points buried={v['bottom_points']}",
                        f"points added={v['bottom_added']}",
                        f"multiplier={v['multiplier']}",
                    ],
                },
            ),
        )
    buried = db.query("bottom.buried_points", k, f)
    ui.chart(
        ui.built(
            charts.rate_chart,
            buried,
            "bottom_points",
            title="Capture rate by points buried",
            counts="captures / completed hands at each bottom value",
            hands=n,
            x_title="points the banker buried",
            rate_title="capture rate",
            colour=charts.ATTACKER_COLOUR,
        ),
        key="bc_buried",
        drill=(
            ["bottom_points"],
            lambda v: {"event": "capture", "where": f"points buried={v['bottom_points']}"},
        ),
    )

st.subheader("Did the bottom decide the hand?")
st.caption(
    "Each captured hand's level outcome recomputed without the bottom's points (R7.3, the hand's "
    "own level step) beside the outcome with them."
)
changes = db.query("bottom.outcome_changes", k, f)
change_links = [
    ui.hands_url(
        {
            "event": "capture",
            "where": [f"outcome without the bottom={a}", f"outcome with the bottom={b}"],
        }
    )
    for a, b in changes.select("without_bottom", "with_bottom").iter_rows()
]
ui.table(
    changes.with_columns(
        (pl.col("without_bottom") != pl.col("with_bottom")).alias("changed"),
        pl.Series("open", change_links, dtype=pl.String),
    ).select("open", pl.exclude("open")),
    key="bc_changes",
    column_config={
        "open": st.column_config.LinkColumn("hands", display_text="captures ↗", width="small"),
        "without_bottom": "outcome without the bottom",
        "with_bottom": "outcome with it",
        "n": "captures",
        "changed": st.column_config.CheckboxColumn("changed", help="the outcomes differ"),
    },
)

st.subheader("By player (as attacker)")
players = db.query("bottom.by_player", k, f)
player_links = [
    ui.hands_url({"event": "capture", "who": p, "role": "attacker"}) for p in players["player"]
]
ui.table(
    players.with_columns(pl.Series("open", player_links, dtype=pl.String)).select(
        "open", "player", "hits", "n", "rate", "lo", "hi", "own"
    ),
    key="bc_players",
    column_config={
        "open": st.column_config.LinkColumn("hands", display_text="captures ↗", width="small"),
        "hits": "team captured",
        "n": "completed hands attacking",
        "rate": ui.percent("rate", "capture rate"),
        "lo": ui.percent("lo", "95% low"),
        "hi": ui.percent("hi", "95% high"),
        "own": "won the last trick themselves",
    },
)
