"""Coaching: who leaks the most points and where, from the review's judged decisions
(docs/review.md); one player's verdicts per code, each over its opportunities, and their costliest
decisions, each linking to its trick on Hand replay; the computer analysis's figures over the
hands analysed (docs/analysis.md), where there are any. `?player=NAME` opens a player directly,
`?by=style` groups by bot style."""

from __future__ import annotations

import urllib.parse

import polars as pl
import streamlit as st

from analytics import analysed, charts, review_codes
from analytics.coaching import KINDS, leak_bars_data
from analytics.stats import SMALL_SAMPLE
from dashboard import db, sidebar, ui
from shengji.coach.analysis import ENGINE
from shengji.coach.review import KIND

GROUP_LABEL = {"player": "player", "style": "bot style", "persona": "bot persona"}
SEAT_FIELD = {"style": "bot style", "persona": "bot persona"}

st.title("Coaching")
k = db.require()
f = sidebar.current()
st.caption(
    "Each decision the review could judge from the player's own knowledge at that moment: throws "
    "(failure odds from the thrower's seat), the fourth seat's play (every legal play checked), "
    "the bury. A mistake is a flagged decision: an inaccuracy (< 10 points), a mistake (< 30) or "
    "a blunder. Rates are over the decisions judged, with 95% Wilson intervals; points lost per "
    f"hand is per seat-hand, with a 95% interval from {SMALL_SAMPLE} seat-hands on. "
    f"What each verdict means: {review_codes.guide_link(text='the review guide ↗')}."
)
ui.from_url("by", "co_by", list(GROUP_LABEL), "player")
by = st.radio(
    "Group by", list(GROUP_LABEL), format_func=GROUP_LABEL.__getitem__, horizontal=True, key="co_by"
)
ui.to_url("by", "co_by", by, "player")
table: pl.DataFrame = db.query("coaching.leak_table", k, f, by)
if not table.height or not int(table["judged"].sum() or 0):
    ui.empty("judged decisions (ingest again to review older hands)")
    st.stop()


def _mistakes(who: str, event: str = "mistake") -> ui.Params:
    """The hands where this player (bot style, persona) made such a mistake."""
    if by == "player":
        return {"event": event, "who": who}
    return {"event": event, "seat": f"{SEAT_FIELD[by]}={who}"}


def _interval(lo: float | None, hi: float | None, n: int, fmt: str) -> str:
    if lo is None or hi is None:
        return f"too few ({n:,} < {SMALL_SAMPLE})"
    return f"{fmt.format(lo)}–{fmt.format(hi)}"


rows = table.with_columns(
    pl.Series(
        "open",
        [
            ui.hands_url(_mistakes(w)) if m else ""
            for w, m in zip(table["who"], table["mistakes"], strict=True)
        ],
        pl.String,
    ),
    pl.Series(
        "ci",
        [
            _interval(100 * lo, 100 * hi, n, "{:.1f}")
            for lo, hi, n in zip(table["lo"], table["hi"], table["judged"], strict=True)
        ],
    ),
    pl.Series(
        "lost_ci",
        [
            _interval(lo, hi, n, "{:.1f}")
            for lo, hi, n in zip(table["lost_lo"], table["lost_hi"], table["hands"], strict=True)
        ],
    ),
)
kind_columns = {
    f"{kind}_per_hand": st.column_config.NumberColumn(
        review_codes.kind_label(kind),
        format="%.2f",
        help=f"points lost per seat-hand in {review_codes.kind_label(kind)} decisions: "
        f"{review_codes.KIND_HELP[kind]}",
    )
    for kind in KINDS
}
ui.table(
    rows.select(
        "open",
        "who",
        "hands",
        "judged",
        "mistakes",
        "per_100",
        "ci",
        "lost_per_hand",
        "lost_ci",
        *kind_columns,
    ),
    key="co_table",
    column_config={
        "open": st.column_config.LinkColumn("hands", display_text="mistakes ↗", width="small"),
        "who": GROUP_LABEL[by],
        "hands": st.column_config.NumberColumn(
            "seat-hands", help="hands played in this seat group under the filters"
        ),
        "judged": st.column_config.NumberColumn(
            "decisions judged",
            help="decisions the review judged (notes and decisions it could not judge left out): "
            "the opportunities of the mistake rate",
        ),
        "mistakes": st.column_config.NumberColumn(
            "mistakes", help="decisions judged that were flagged (inaccuracy, mistake, blunder)"
        ),
        "per_100": st.column_config.NumberColumn(
            "mistakes/100 decisions", format="%.1f", help="mistakes per 100 decisions judged"
        ),
        "ci": st.column_config.TextColumn(
            "95% CI", help="Wilson interval of mistakes per 100 decisions judged"
        ),
        "lost_per_hand": st.column_config.NumberColumn(
            "points lost/seat-hand",
            format="%.1f",
            help="the review's cost of every flagged decision, over the seat-hands",
        ),
        "lost_ci": st.column_config.TextColumn(
            "95% CI",
            help=f"normal interval of points lost per seat-hand; not shown under {SMALL_SAMPLE} "
            "seat-hands, where it would not hold",
        ),
        **kind_columns,
    },
)
ui.chart(
    ui.built(
        charts.leak_bars,
        leak_bars_data(table),
        who_title=GROUP_LABEL[by],
        hands=int(table["hands"].sum()),
    ),
    key=f"co_chart_{by}",
    drill=(["who", "kind"], lambda v: _mistakes(str(v["who"]), f"mistake_{v['kind']}")),
)

# --- the computer analysis (docs/analysis.md): the analysed hands' figures, where there are any
st.subheader("Computer analysis")
analysed_kinds: pl.DataFrame = db.query("analysed.summary", k, f, ENGINE)
n_analysed = int(analysed_kinds["hands"][0]) if analysed_kinds.height else 0
if not n_analysed:
    st.caption(
        "No hand under these filters has been analysed by the computer yet: open a hand on "
        "**Hand replay** and use *Analyse this hand*. The analysis judges the bury and every lead and follow "
        "by its expected effect on the hand's result (docs/analysis.md)."
    )
else:
    n_all = int(db.query("handview.hand_count", k, f, ""))
    whose = "the chosen players' decisions" if f.players else "every seat's decisions"
    st.caption(
        f"Over {n_analysed:,} analysed hand{'s' if n_analysed != 1 else ''} (of {n_all:,} under "
        f"the filters; {whose}), analysis engine {ENGINE}. A decision is flagged when its "
        "expected loss against the best alternative is at least 5 points and beyond two "
        "standard errors; points are the hand's expected result, from the actor's side, as "
        "strong as the careful bot that plays the rollouts. Few hands make rough figures."
    )
    shown = analysed_kinds.with_columns(
        pl.when(pl.col("judged") > 0)
        .then(100 * pl.col("flagged") / pl.col("judged"))
        .alias("per_100"),
    )
    ui.table(
        shown.select(
            "kind",
            "decisions",
            "judged",
            "flagged",
            "per_100",
            *analysed.SEVERITIES,
            "lost_per_hand",
            "loss_per_judged",
        ),
        key="co_analysed",
        column_config={
            "kind": st.column_config.TextColumn("decision", help="a lead, a follow or the bury"),
            "judged": st.column_config.NumberColumn(
                "judged", help="decisions with more than one distinct play to compare"
            ),
            "flagged": st.column_config.NumberColumn(
                "flagged", help="judged decisions flagged (inaccuracy, mistake or blunder)"
            ),
            "per_100": st.column_config.NumberColumn(
                "flagged/100 judged", format="%.1f", help="flagged per 100 decisions judged"
            ),
            "lost_per_hand": st.column_config.NumberColumn(
                "expected points lost/hand",
                format="%.1f",
                help=f"expected points lost by the flagged decisions, over the {n_analysed:,} "
                "analysed hands",
            ),
            "loss_per_judged": st.column_config.NumberColumn(
                "mean expected loss/judged",
                format="%.2f",
                help="expected points lost against the best alternative, per decision judged, "
                "flagged or not",
            ),
        },
    )

st.subheader("One player")
names: list[str] = db.query("players.players", k, f)
if not names:
    st.stop()
ui.from_url("player", "co_player", names)
player = st.selectbox("Player", names, key="co_player")
if player is None:
    st.stop()
ui.to_url("player", "co_player", player)

ui.hands_link(f"{ui.md(player)}'s hands with a mistake", {"event": "mistake", "who": player})
codes: pl.DataFrame = db.query("coaching.by_code", k, f, "player", player)
judged = codes.filter(pl.col("opportunities").is_not_null())
unjudged = codes.filter(pl.col("opportunities").is_null())
judged = judged.with_columns(
    pl.Series(
        "open",
        [
            ui.hands_url({"event": "mistake", "who": player, "code": c}) if m else ""
            for c, m in zip(judged["code"], judged["mistakes"], strict=True)
        ],
        pl.String,
    ),
    pl.col("kind").replace_strict(review_codes.KIND_LABEL, default=pl.col("kind")).alias("kind"),
    pl.col("code").replace_strict(review_codes.LABEL, default=pl.col("code")).alias("verdict"),
    pl.col("code").replace_strict(review_codes.HELP, default="").alias("meaning"),
    pl.col("code").map_elements(review_codes.guide_url, return_dtype=pl.String).alias("guide"),
    pl.Series(
        "ci",
        [
            _interval(100 * lo, 100 * hi, n, "{:.1f}%")
            for lo, hi, n in zip(judged["lo"], judged["hi"], judged["opportunities"], strict=True)
        ],
    ),
)
st.caption(
    f"Each verdict of {ui.md(player)}'s decisions, over the decisions of its kind judged (its "
    "opportunities): how often a fourth seat fed points, of every fourth seat judged."
)
ui.table(
    judged.select(
        "open",
        "kind",
        "verdict",
        "decisions",
        "opportunities",
        "rate",
        "ci",
        "mistakes",
        "points_lost",
        "lost_per_hand",
        "meaning",
        "guide",
    ),
    key="co_codes",
    column_config={
        "open": st.column_config.LinkColumn("hands", display_text="mistakes ↗", width="small"),
        "kind": st.column_config.TextColumn("decision", help="the kind of decision judged"),
        "verdict": st.column_config.TextColumn("verdict", help="the review's code, in words"),
        "decisions": st.column_config.NumberColumn("times", help="decisions given this verdict"),
        "opportunities": st.column_config.NumberColumn(
            "of decisions judged", help="decisions of this kind the review judged"
        ),
        "rate": ui.percent("rate", "per decision"),
        "ci": st.column_config.TextColumn("95% CI", help="Wilson interval of the rate"),
        "mistakes": st.column_config.NumberColumn(
            "flagged",
            help="of them flagged as mistakes (a bury with points is flagged only when the "
            "bottom was captured)",
        ),
        "points_lost": st.column_config.NumberColumn("points lost", format="%.1f"),
        "lost_per_hand": st.column_config.NumberColumn(
            "per seat-hand", format="%.2f", help="points lost over the player's seat-hands"
        ),
        "meaning": st.column_config.TextColumn("what it means", width="large"),
        "guide": st.column_config.LinkColumn("guide", display_text="more ↗", width="small"),
    },
)
if unjudged.height:
    parts = [
        f"{review_codes.label(c)} {int(n):,}"
        for c, n in zip(unjudged["code"], unjudged["decisions"], strict=True)
    ]
    st.caption(
        "Counted in no rate (notes, and decisions the review could not judge): "
        + " · ".join(parts)
        + f". {review_codes.guide_link('last_seat_skipped', 'why ↗')}"
    )
with st.expander("What the verdicts mean"):
    for kind in ("throw", "last_seat", "bury", "note"):
        st.markdown(f"**{review_codes.kind_label(kind)}**: {review_codes.KIND_HELP[kind]}")
        for code, code_kind in KIND.items():
            if code_kind == kind:
                st.markdown(
                    f"- *{review_codes.label(code)}* (`{code}`): {review_codes.help_text(code)} "
                    f"{review_codes.guide_link(code, 'more ↗')}"
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
    .alias("open"),
    pl.col("code").replace_strict(review_codes.LABEL, default=pl.col("code")).alias("verdict"),
    pl.col("trick").cast(pl.String).fill_null("bury").alias("trick"),
)
st.caption(
    f"{ui.md(player)}'s {worst.height} costliest flagged decisions: each opens its trick on "
    "Hand replay."
)
ui.table(
    worst.select(
        "open",
        "severity",
        "verdict",
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
        "cost": st.column_config.NumberColumn(
            "cost", format="%.1f", help="points the review says it cost (expected, for a throw)"
        ),
        "better": st.column_config.TextColumn("better play"),
        "reason": st.column_config.TextColumn(width="large"),
    },
)
