"""Coaching: who leaks the most points and where, from the review's judged decisions
(docs/review.md); one player's costliest decisions, each linking to its trick on Hand replay.
`?player=NAME` opens a player directly."""

from __future__ import annotations

import urllib.parse

import altair as alt
import polars as pl
import streamlit as st

from analytics.coaching import KINDS
from dashboard import db, sidebar, ui

GROUP_LABEL = {"player": "player", "style": "bot style", "persona": "bot persona"}

st.title("Coaching")
k = db.require()
f = sidebar.current()
st.caption(
    "Each decision the review could judge from the player's own knowledge at that moment: throws "
    "(failure odds from the thrower's seat), the fourth seat's play (every legal play checked), "
    "the bury. Mistakes are inaccuracies (< 10 points), mistakes (< 30) and blunders, over "
    "decisions judged, with 95% Wilson intervals; points lost per hand is per seat-hand, with a "
    "95% interval."
)
by = st.radio(
    "Group by",
    list(GROUP_LABEL),
    format_func=GROUP_LABEL.__getitem__,
    horizontal=True,
    key="co_by",
)
table: pl.DataFrame = db.query("coaching.leak_table", k, f, by)
if not table.height or not int(table["judged"].sum() or 0):
    ui.empty("judged decisions (ingest again to review older hands)")
    st.stop()
per_kind = [f"{kind}_per_hand" for kind in KINDS]
SEAT_FIELD = {"style": "bot style", "persona": "bot persona"}


def _mistakes(who: str, event: str = "mistake") -> ui.Params:
    """The hands where this player (bot style, persona) made such a mistake."""
    if by == "player":
        return {"event": event, "who": who}
    return {"event": event, "seat": f"{SEAT_FIELD[by]}={who}"}


leak_links = pl.Series("open", [ui.hands_url(_mistakes(w)) for w in table["who"]], pl.String)
ui.table(
    table.with_columns(leak_links)
    .select(
        "open",
        "who",
        "hands",
        "judged",
        "mistakes",
        "per_100",
        "lo",
        "hi",
        "lost_per_hand",
        "lost_lo",
        "lost_hi",
        *per_kind,
    )
    .with_columns((pl.col("lo") * 100).alias("lo"), (pl.col("hi") * 100).alias("hi")),
    key="co_table",
    column_config={
        "open": st.column_config.LinkColumn("hands", display_text="mistakes ↗", width="small"),
        "who": GROUP_LABEL[by],
        "hands": st.column_config.NumberColumn("hands", help="seat-hands in scope"),
        "judged": st.column_config.NumberColumn(
            "judged",
            help="decisions judged (notes and decisions the review could not judge excluded)",
        ),
        "per_100": st.column_config.NumberColumn("mistakes/100", format="%.1f"),
        "lo": st.column_config.NumberColumn("95% low", format="%.1f"),
        "hi": st.column_config.NumberColumn("95% high", format="%.1f"),
        "lost_per_hand": st.column_config.NumberColumn("points lost/hand", format="%.1f"),
        "lost_lo": st.column_config.NumberColumn("95% low", format="%.1f"),
        "lost_hi": st.column_config.NumberColumn("95% high", format="%.1f"),
        "throw_per_hand": st.column_config.NumberColumn("throws", format="%.2f", help="lost/hand"),
        "last_seat_per_hand": st.column_config.NumberColumn(
            "fourth seat", format="%.2f", help="lost/hand"
        ),
        "bury_per_hand": st.column_config.NumberColumn("bury", format="%.2f", help="lost/hand"),
    },
)
long = table.select("who", *per_kind).unpivot(index="who", variable_name="kind", value_name="lost")
long = long.with_columns(pl.col("kind").str.replace("_per_hand", ""))
ui.chart(
    alt.Chart(long)
    .mark_bar()
    .encode(
        y=alt.Y("who:N", sort="-x", title=GROUP_LABEL[by]),
        x=alt.X("sum(lost):Q", title="points lost per hand"),
        color=alt.Color("kind:N", title="decision"),
        tooltip=["who:N", "kind:N", alt.Tooltip("lost:Q", format=".2f")],
    )
    .properties(
        title=alt.TitleParams(
            "Where the points go",
            subtitle=[
                f"points lost per seat-hand by kind of decision · {int(table['hands'].sum()):,} seat-hands"
            ],
            anchor="start",
        ),
        height=max(160, 22 * table.height),
    ),
    key="co_chart",
    drill=(["who", "kind"], lambda v: _mistakes(str(v["who"]), f"mistake_{v['kind']}")),
)

st.subheader("One player")
names: list[str] = db.query("players.players", k, f)
if not names:
    st.stop()
wanted = st.query_params.get("player")
if wanted in names and st.session_state.get("co_player") is None:
    st.session_state["co_player"] = wanted
player = st.selectbox("Player", names, key="co_player")
if player is None:
    st.stop()
if st.query_params.get("player") != player:
    st.query_params["player"] = player

ui.hands_link(f"{ui.md(player)}'s hands with a mistake", {"event": "mistake", "who": player})
codes: pl.DataFrame = db.query("coaching.by_code", k, f, "player", player)
code_links = [ui.hands_url({"event": "mistake", "who": player, "code": c}) for c in codes["code"]]
ui.table(
    codes.with_columns(pl.Series("open", code_links, dtype=pl.String)).select(
        "open",
        "kind",
        "code",
        "decisions",
        "judged",
        "mistakes",
        "rate",
        "lo",
        "hi",
        "points_lost",
        "lost_per_hand",
    ),
    key="co_codes",
    column_config={
        "open": st.column_config.LinkColumn("hands", display_text="mistakes ↗", width="small"),
        "judged": st.column_config.NumberColumn(
            "judged", help="0 for a note and for a decision the review could not judge"
        ),
        "rate": ui.percent("rate", "mistake rate"),
        "lo": ui.percent("lo", "95% low"),
        "hi": ui.percent("hi", "95% high"),
        "points_lost": st.column_config.NumberColumn("points lost", format="%.1f"),
        "lost_per_hand": st.column_config.NumberColumn("per hand", format="%.2f"),
    },
)


def _link(source: str, hand_id: str, trick: int | None) -> str:
    q = {"source": source, "hand": hand_id, "trick": str(trick if trick is not None else 1)}
    return "replay?" + urllib.parse.urlencode(q)


worst: pl.DataFrame = db.query("coaching.costliest", k, f, player, 25)
if not worst.height:
    st.success("No flagged decision for this player under these filters.")
    st.stop()
worst = worst.with_columns(
    pl.struct("source", "hand_id", "trick")
    .map_elements(lambda r: _link(r["source"], r["hand_id"], r["trick"]), return_dtype=pl.String)
    .alias("open")
)
st.caption("Costliest decisions: each opens its trick on Hand replay.")
ui.table(
    worst.select(
        "open",
        "severity",
        "code",
        "cost",
        "play",
        "better",
        "reason",
        "trick",
        "hand_id",
        "played_at",
    ),
    key="co_worst",
    column_config={
        "open": st.column_config.LinkColumn("trick", display_text="replay ↗", width="small"),
        "cost": st.column_config.NumberColumn("cost", format="%.1f"),
        "reason": st.column_config.TextColumn(width="large"),
    },
)
