"""The review's verdicts on one trick, for Hand replay: a self-contained section that only needs
the store key and the trick's address. Stored strings are shown through a dataframe, which renders
them as text (never as HTML or Markdown)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboard import db, ui


def trick_review(k: db.Key, source: str, hand_id: str, trick: int) -> None:
    """Each judged decision of the trick (and, on trick 1, the buries) with its verdict, cost and
    the better play; a caption when the store has none."""
    df: pl.DataFrame = db.query_plain("coaching.trick_decisions", k, source, hand_id, trick)
    if trick == 1:
        hand = db.query_plain("coaching.hand_decisions", k, source, hand_id)
        buries = hand.filter(pl.col("trick").is_null()).drop("trick")
        df = pl.concat([buries, df], how="diagonal_relaxed") if buries.height else df
    st.markdown(f"**Review of trick {trick}** (docs/review.md)")
    if not df.height:
        st.caption("No decision of this trick was judged (or the store predates the review).")
        return
    ui.table(
        df.select("seat", "severity", "code", "cost", "play", "better", "p_fail", "reason"),
        key=f"rp_review_{trick}",
        column_config={
            "cost": st.column_config.NumberColumn("cost", format="%.1f", help="points lost"),
            "p_fail": st.column_config.NumberColumn(
                "p(fail)", format="%.3f", help="a throw's failure probability, thrower's view"
            ),
            "reason": st.column_config.TextColumn(width="large"),
        },
    )
