"""Players: everyone's record in one table, then one player's trends and where they deviate from
the field. `?player=NAME` opens a player directly."""

from __future__ import annotations

import datetime as dt

import polars as pl
import streamlit as st

from analytics import charts, handfinder, players
from analytics.players import RATES
from dashboard import db, sidebar, ui

st.title("Players")
k = db.require()
f = sidebar.current()
# Every player's row, once: the field of one player's comparison is everyone else's rows, and
# the player filter only picks rows (the same seats a narrowed query would count).
full = db.query("players.player_table", k, f.with_(players=()))
table = full.filter(pl.col("player").is_in(list(f.players))) if f.players else full
if not table.height:
    ui.empty("players")
    st.stop()
st.caption(
    "One row per player over the filtered hands. Rates are hits over opportunities; hover a "
    "header for what it counts. Seat role and player filters narrow the seats counted."
)
ui.table(
    table.with_columns(
        pl.Series(
            "open",
            [ui.hands_url({"event": "all", "who": p}) for p in table["player"]],
            dtype=pl.String,
        )
    ).select(
        "open",
        "player",
        "hands",
        "won_rate",
        "banker_n",
        "banker_rate",
        "attacker_n",
        "attacker_rate",
        "levels_gained",
        "points_per_hand",
        "throw_rate",
        "fail_hits",
        "fail_n",
        "fail_rate",
        "ruffs_per_hand",
        "capture_hits",
        "capture_rate",
        "findings",
    ),
    key="pl_table",
    column_config={
        "open": st.column_config.LinkColumn("hands", display_text="hands ↗", width="small"),
        "won_rate": ui.percent("won_rate", "won"),
        "banker_n": st.column_config.NumberColumn("as banker", help="hands as banker"),
        "banker_rate": ui.percent("banker_rate", "held as banker"),
        "attacker_n": st.column_config.NumberColumn("as attacker", help="hands as attacker"),
        "attacker_rate": ui.percent("attacker_rate", "took over"),
        "levels_gained": st.column_config.NumberColumn("levels", help="levels their team went up"),
        "points_per_hand": st.column_config.NumberColumn(
            "points/hand", format="%.1f", help="points in the tricks they won"
        ),
        "throw_rate": ui.percent("throw_rate", "throws/lead"),
        "fail_hits": "failed",
        "fail_n": "throws",
        "fail_rate": ui.percent("fail_rate", "fail rate"),
        "ruffs_per_hand": st.column_config.NumberColumn("ruffs/hand", format="%.2f"),
        "capture_hits": st.column_config.NumberColumn(
            "bottoms", help="last tricks they won as attacker, taking the bottom"
        ),
        "capture_rate": ui.percent("capture_rate", "bottom rate"),
        "findings": st.column_config.NumberColumn("findings", help="findings naming their seat"),
    },
)

names = table["player"].to_list()
ui.from_url("player", "pl_player", names)
player = st.selectbox("Player", names, key="pl_player")
if player is None:
    st.stop()
ui.to_url("player", "pl_player", player)

row = table.filter(pl.col("player") == player).row(0, named=True)
st.subheader(ui.md(player))
links = st.columns(4)
for col, (label, event) in zip(
    links,
    [
        (f"{ui.md(player)}'s hands", "all"),
        ("their failed throws", "failed_throw"),
        ("their hands with a capture", "capture"),
        ("their hands with findings", "findings"),
    ],
    strict=True,
):
    with col:
        ui.hands_link(label, {"event": event, "who": player})
st.page_link(
    "views/coaching.py",
    label="Where this player leaks points (Coaching)",
    icon=":material/school:",
    query_params={"player": player},
)
cols = st.columns(4)
with cols[0]:
    ui.number_metric("Hands", row["hands"], f"{row['levels_gained']:,} levels gained", fmt=",d")
    ui.hands_link("their hands", {"event": "all", "who": player})
with cols[1]:
    ui.number_metric("Points won per hand", row["points_per_hand"], "points in the tricks they won")
    ui.hands_link("hands their team went up", {"event": "team_won", "who": player})
with cols[2]:
    ui.number_metric(
        "Ladder points per hand", row["ladder_per_hand"], "R7.5, penalties included", fmt=".2f"
    )
    ui.hands_link(
        "their failed throws (a ladder point each)", {"event": "failed_throw", "who": player}
    )
with cols[3]:
    ui.number_metric("Ruffs per hand", row["ruffs_per_hand"], f"{row['ruffs']:,} ruffs", fmt=".2f")
    ui.hands_link("tricks they won by a ruff", {"event": "ruff", "who": player})

vs = players.vs_field_from(full, player)


def _metric_hands(metric: str) -> ui.Params:
    event, role = handfinder.PLAYER_RATES.get(metric, ("all", None))
    params: ui.Params = {"event": event, "who": str(player)}
    if role:
        params["role"] = role
    return params


ui.chart(
    ui.built(
        charts.deviation_chart,
        vs,
        title=f"{player} against the field",
        counts="each rate's hits / opportunities, 95% Wilson interval; the field is everyone "
        "else in the same hands",
        hands=int(row["hands"]),
        label="metric",
    ),
    key="pl_vs",
    drill=(["metric"], lambda v: _metric_hands(v["metric"])),
)
what = {label: opp for label, _h, _n, opp in RATES}
notable = vs.filter(pl.col("z").abs() > 1.96)
if notable.height:
    lines = []
    for r in notable.iter_rows(named=True):
        field = vs.filter((pl.col("metric") == r["metric"]) & (pl.col("who") == "field")).row(
            0, named=True
        )
        direction = "more" if r["z"] > 0 else "less"
        lines.append(
            f"- **{r['metric']}**: {100 * r['rate']:.1f}% ({r['hits']}/{r['n']} "
            f"{what[r['metric']]}) vs the field's {100 * field['rate']:.1f}% — {direction} often "
            f"(z = {r['z']:.1f})"
        )
    st.markdown("**Where they deviate** (|z| > 1.96):\n" + "\n".join(lines))
else:
    st.caption("No rate differs from the field's beyond chance (|z| ≤ 1.96 everywhere).")

period = db.query("players.suggested_period", k, f)
trend = db.query("players.trend", k, f, player, period)


def _period_hands(v: dict[str, object], event: str) -> ui.Params:
    """A trend point: the player's hands of that week or month (the field's: everyone's)."""
    raw = v["period"]
    start = (
        dt.datetime.fromtimestamp(float(raw) / 1000, dt.UTC).date().isoformat()
        if isinstance(raw, int | float)
        else str(raw)[:10]
    )
    value = start[:7] if period == "month" else start
    params: ui.Params = {"event": "all", "where": f"{period}={value}"}
    if v.get("who") != "field":
        params |= {"event": event, "who": str(player)}
    return params


if trend.height:
    left, right = st.columns(2)
    with left:
        ui.chart(
            ui.built(
                charts.trend_chart,
                trend,
                "period",
                "rate",
                title=f"Hands won per {period}",
                counts=f"{player}'s team won / hands, against the field, 95% Wilson interval",
                hands=int(row["hands"]),
                series="who",
                y_title="won",
                percent=True,
            ),
            key="pl_trend_won",
            drill=(["period", "who"], lambda v: _period_hands(v, "team_won")),
        )
    with right:
        ui.chart(
            ui.built(
                charts.trend_chart,
                trend,
                "period",
                "points",
                title=f"Points won per hand, by {period}",
                counts=f"mean points in the tricks {player} won, against the field",
                hands=int(row["hands"]),
                series="who",
                y_title="points per hand",
            ),
            key="pl_trend_points",
            drill=(["period", "who"], lambda v: _period_hands(v, "all")),
        )
