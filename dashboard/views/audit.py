"""Audit: what the replay found wrong in the logs — findings by code, each linking to its trick
on the Hand replay page — and the lines that could not be replayed at all."""

from __future__ import annotations

import urllib.parse

import polars as pl
import streamlit as st

from analytics import charts
from dashboard import db, sidebar, ui

st.title("Audit")
k = db.require()
f = sidebar.current()
totals = db.query("coverage.totals", k, f)
# The words and counts of `shengji ingest`'s summary ("hands: N ok · N flagged · N rejected"):
# a rejected line is one the replay could not finish, whether or not a hand could be stored
# from it (a hand is kept up to its fault; an unreadable line keeps nothing).
unreadable = max(totals["rejected_lines"] - totals["rejected"], 0)
cols = st.columns(4)
for col, (label, value, caption) in zip(
    cols,
    [
        ("Hands stored", totals["hands"], "ok, flagged and rejected hands kept"),
        ("ok", totals["ok"], "replayed without a finding"),
        ("flagged", totals["flagged"], "replayed, with findings"),
        (
            "rejected",
            totals["rejected_lines"],
            f"{totals['rejected']:,} stored up to the fault · "
            f"{ui.count(unreadable, 'line')} without a readable hand",
        ),
    ],
    strict=True,
):
    with col:
        st.metric(label, f"{value:,}")
        st.caption(caption)
st.caption(
    "The counts and words of `shengji ingest`'s summary. Flagged hands were replayed with "
    "findings; rejected lines could not be replayed to the end (a hand is kept up to its fault "
    "and opens on Hand replay; a line without a readable hand keeps nothing)."
)

by_code = db.query("coverage.findings_by_code", k, f)
if by_code.height:
    ui.chart(
        ui.built(
            charts.count_bars,
            by_code,
            "code",
            title="Findings by code",
            counts="findings (docs/findings.md)",
            hands=totals["hands"],
            x_title="code",
            y_title="findings",
            horizontal=True,
        ),
        key="au_codes",
    )
    codes = ["all", *by_code["code"].to_list()]
    ui.from_url("code", "au_code", codes, "all")
    code = st.selectbox("Findings with code", codes, key="au_code")
    ui.to_url("code", "au_code", code, "all")
    found = db.query("coverage.findings", k, f, None if code == "all" else code)

    def link(source: str, hand_id: str, trick: int | None) -> str:
        q = {"source": source, "hand": hand_id}
        if trick is not None:
            q["trick"] = str(trick)
        return "replay?" + urllib.parse.urlencode(q)

    found = found.with_columns(
        pl.struct("source", "hand_id", "trick")
        .map_elements(lambda r: link(r["source"], r["hand_id"], r["trick"]), return_dtype=pl.String)
        .alias("open")
    )
    ui.table(
        found.select(
            "open",
            "code",
            "reason",
            "trick",
            "seat",
            "player",
            "status",
            "played_at",
            "source",
            "hand_id",
        ),
        key="au_findings",
        column_config={
            "open": st.column_config.LinkColumn("replay", display_text="open ↗", width="small"),
            "reason": st.column_config.TextColumn(width="large"),
        },
    )
else:
    st.success("No findings under these filters: every replayed hand was clean.")

st.subheader("Rejected lines")
rej_codes = db.query("coverage.rejects_by_code", k, f)
if rej_codes.height:
    ui.table(rej_codes, key="au_reject_codes", column_config={"n": "lines"})
    ui.table(
        db.query("coverage.rejects", k, f),
        key="au_rejects",
        column_config={"raw": st.column_config.TextColumn("line (start)", width="large")},
    )
else:
    st.caption("No rejected lines.")

st.subheader("Ingest runs")
ui.table(
    db.query_plain("coverage.ingest_runs", k),
    key="au_runs",
    column_config={
        "hands_rejected": st.column_config.NumberColumn(
            "rejected", help="lines rejected, as `shengji ingest` counts them"
        ),
        "hands_per_s": st.column_config.NumberColumn(
            "hands/s",
            help="hands over the seconds from the run's start until its hands and summaries "
            "were stored: the figure `shengji ingest`'s closing line prints for the run",
        ),
    },
)
