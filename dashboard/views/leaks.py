"""My leaks: one player's accuracy per kind of decision beside the field's, their costliest
decisions and their accuracy over time, each with its counts and 95% Wilson intervals (the
review's verdicts, docs/review.md). `?player=NAME` opens a player."""

from __future__ import annotations

import datetime as dt
import urllib.parse

import polars as pl
import streamlit as st

from analytics import charts, review_codes
from analytics.coaching import KINDS
from analytics.stats import rate
from dashboard import db, sidebar, ui

st.title("My leaks")
k = db.require()
f = sidebar.current()
st.caption(
    "One player's decisions as the review judged them from their own knowledge at the time. "
    "Accuracy is the share of decisions judged that were not flagged as mistakes, with its 95% "
    f"Wilson interval and its counts. What each verdict means: {review_codes.guide_link()}."
)
names: list[str] = db.query("players.players", k, f)
if not names:
    ui.empty("players")
    st.stop()
ui.from_url("player", "lk_player", names)
player = st.selectbox("Player", names, key="lk_player")
if player is None:
    st.stop()
ui.to_url("player", "lk_player", player)

table: pl.DataFrame = db.query("coaching.leak_table", k, f, "player")
mine = table.filter(pl.col("who") == player)
if not mine.height or not int(mine["judged"][0] or 0):
    ui.empty(f"judged decisions of {ui.md(player)}")
    st.stop()
me = mine.row(0, named=True)


def _accuracy(mistakes: int, judged: int) -> tuple[float | None, float, float]:
    """Accuracy with its Wilson interval: one minus the mistake rate, bounds swapped."""
    r = rate(mistakes, judged)
    return (None if r.value is None else 1 - r.value, 1 - r.hi, 1 - r.lo)


rows = []
for kind in ("all", *KINDS):
    prefix = "" if kind == "all" else f"{kind}_"
    judged, mistakes = int(me[f"{prefix}judged"]), int(me[f"{prefix}mistakes"])
    acc, lo, hi = _accuracy(mistakes, judged)
    field_judged = int(table[f"{prefix}judged"].sum() or 0)
    field_mistakes = int(table[f"{prefix}mistakes"].sum() or 0)
    field_acc, _, _ = _accuracy(field_mistakes, field_judged)
    lost = me["points_lost"] if kind == "all" else me[f"{kind}_lost"]
    rows.append(
        {
            "open": ui.hands_url(
                {"event": "mistake" if kind == "all" else f"mistake_{kind}", "who": player}
            )
            if mistakes
            else "",
            "decision": "every decision" if kind == "all" else review_codes.kind_label(kind),
            "judged": judged,
            "mistakes": mistakes,
            "accuracy": "—" if acc is None else f"{100 * acc:.1f}%",
            "ci": "—" if acc is None else f"{100 * lo:.1f}–{100 * hi:.1f}%",
            "field": "—" if field_acc is None else f"{100 * field_acc:.1f}% of {field_judged:,}",
            "lost": float(lost) / int(me["hands"]),
        }
    )
st.subheader(f"Accuracy per kind of decision · {int(me['hands']):,} seat-hands")
ui.table(
    pl.DataFrame(rows),
    key="lk_kinds",
    column_config={
        "open": st.column_config.LinkColumn("hands", display_text="mistakes ↗", width="small"),
        "decision": st.column_config.TextColumn("decision", help="the kind of decision judged"),
        "judged": st.column_config.NumberColumn(
            "decisions judged", help="the opportunities: decisions of this kind the review judged"
        ),
        "mistakes": st.column_config.NumberColumn(
            "mistakes", help="of them flagged (inaccuracy, mistake or blunder)"
        ),
        "accuracy": st.column_config.TextColumn(
            "accuracy", help="decisions judged that were not flagged, of decisions judged"
        ),
        "ci": st.column_config.TextColumn("95% CI", help="Wilson interval of the accuracy"),
        "field": st.column_config.TextColumn(
            "everyone", help="every player's accuracy under the same filters, of their decisions"
        ),
        "lost": st.column_config.NumberColumn(
            "points lost/seat-hand", format="%.2f", help="the review's cost of their mistakes"
        ),
    },
)

st.subheader("Costliest decisions")


def _link(source: str, hand_id: str, trick: int | None) -> str:
    q = {"source": source, "hand": hand_id, "trick": str(trick if trick is not None else 1)}
    return "replay?" + urllib.parse.urlencode(q)


worst: pl.DataFrame = db.query("coaching.costliest", k, f, player, 10)
if worst.height:
    st.caption(
        f"{ui.md(player)}'s {worst.height} costliest flagged decisions of "
        f"{int(me['mistakes']):,} mistakes: each opens its trick on Hand replay."
    )
    ui.table(
        worst.with_columns(
            pl.struct("source", "hand_id", "trick")
            .map_elements(
                lambda r: _link(r["source"], r["hand_id"], r["trick"]), return_dtype=pl.String
            )
            .alias("open"),
            pl.col("kind").replace_strict(review_codes.KIND_LABEL, default=pl.col("kind")),
            pl.col("code")
            .replace_strict(review_codes.LABEL, default=pl.col("code"))
            .alias("verdict"),
            pl.col("trick").cast(pl.String).fill_null("bury"),
        ).select(
            "open", "kind", "verdict", "severity", "cost", "play", "better", "reason", "trick"
        ),
        key="lk_worst",
        column_config={
            "open": st.column_config.LinkColumn("trick", display_text="replay ↗", width="small"),
            "kind": "decision",
            "cost": st.column_config.NumberColumn("cost", format="%.1f", help="points lost"),
            "better": "better play",
            "reason": st.column_config.TextColumn(width="large"),
        },
    )
else:
    st.success("No flagged decision for this player under these filters.")

period = db.query("players.suggested_period", k, f)
trend: pl.DataFrame = db.query("coaching.trend", k, f, player, period)
if trend.height:
    accuracy = trend.with_columns(
        (1 - pl.col("rate")).alias("rate"),
        (1 - pl.col("hi")).alias("lo"),
        (1 - pl.col("lo")).alias("hi"),
        (pl.col("judged") - pl.col("mistakes")).alias("hits"),
        pl.col("judged").alias("n"),
        pl.lit(player).alias("who"),
    )

    def _period(v: dict[str, object]) -> ui.Params:
        raw = v["period"]
        start = (
            dt.datetime.fromtimestamp(float(raw) / 1000, dt.UTC).date().isoformat()
            if isinstance(raw, int | float)
            else str(raw)[:10]
        )
        value = start[:7] if period == "month" else start
        return {"event": "mistake", "who": str(player), "where": f"{period}={value}"}

    ui.chart(
        ui.built(
            charts.trend_chart,
            accuracy,
            "period",
            "rate",
            title=f"Accuracy per {period}",
            counts=f"{player}'s decisions judged that were not flagged / decisions judged, "
            "95% Wilson interval",
            hands=int(trend["hands"].sum()),
            series="who",
            y_title="accuracy",
            percent=True,
        ),
        key="lk_trend",
        drill=(["period"], _period),
    )
