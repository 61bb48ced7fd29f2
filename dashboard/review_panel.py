"""The review's verdicts on one trick, for Hand replay: a self-contained section that only needs
the store key and the trick's address. Stored strings are shown through a dataframe, which renders
them as text (never as HTML or Markdown). Cards are written as the table draws them and the reason
names them (`10♠`, not the stored token `TS`); each code is named in words with its meaning
(analytics.review_codes)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from analytics import review_codes
from dashboard import db, ui
from shengji.cards import parse_cards, pretty_card


def pretty(tokens: str | None) -> str | None:
    """Stored card tokens as people read them: `TS BJ` → `10♠ BJ`."""
    if not tokens:
        return None
    try:
        return " ".join(pretty_card(c) for c in parse_cards(tokens))
    except ValueError:
        return tokens


def p_fail_text(p: float | None, kind: str | None) -> str:
    """A throw's failure probability, or why there is none (a table's `None` reads as a bug)."""
    if p is not None:
        return f"{p:.3f}"
    return "—" if kind == "throw" else "not a throw"


def trick_review(k: db.Key, source: str, hand_id: str, trick: int) -> None:
    """Each judged decision of the trick (and, on trick 1, the buries) with its verdict, cost and
    the better play; a caption when the store has none."""
    df: pl.DataFrame = db.query_plain("coaching.trick_decisions", k, source, hand_id, trick)
    if trick == 1:
        hand = db.query_plain("coaching.hand_decisions", k, source, hand_id)
        buries = hand.filter(pl.col("trick").is_null()).drop("trick")
        df = pl.concat([buries, df], how="diagonal_relaxed") if buries.height else df
    st.markdown(f"**Review of trick {trick}**")
    if not df.height:
        st.caption("No decision of this trick was judged (or the store predates the review).")
        return
    shown = df.select(
        "seat",
        "severity",
        pl.col("code").map_elements(review_codes.label, return_dtype=pl.String).alias("verdict"),
        "code",
        "cost",
        pl.col("play").map_elements(pretty, return_dtype=pl.String),
        pl.col("better").map_elements(pretty, return_dtype=pl.String),
        pl.struct("p_fail", "kind")
        .map_elements(lambda r: p_fail_text(r["p_fail"], r["kind"]), return_dtype=pl.String)
        .alias("p_fail"),
        "reason",
    )
    ui.table(
        shown,
        key=f"rp_review_{trick}",
        column_config={
            "verdict": st.column_config.TextColumn("verdict", help="the review code in words"),
            "cost": st.column_config.NumberColumn("cost", format="%.1f", help="points lost"),
            "better": st.column_config.TextColumn(
                "better", help="the better play the review names"
            ),
            "p_fail": st.column_config.TextColumn(
                "p(fail)", help="a throw's failure probability, thrower's view"
            ),
            "reason": st.column_config.TextColumn(width="large"),
        },
    )
    # What each code of the trick means, in place (docs/review.md has the whole guide).
    for code in df["code"].unique(maintain_order=True):
        help_text = review_codes.help_text(code)
        if help_text:
            st.caption(f"**{ui.md(review_codes.label(code))}** ({ui.md(code)}): {ui.md(help_text)}")
