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
cols = st.columns(5)
for col, (label, key) in zip(
    cols,
    [
        ("Hands stored", "hands"),
        ("Clean", "ok"),
        ("Flagged", "flagged"),
        ("Rejected", "rejected"),
        ("Rejected lines", "rejected_lines"),
    ],
    strict=True,
):
    with col:
        st.metric(label, f"{totals[key]:,}")
st.caption(
    "Flagged hands replayed with findings; rejected hands could not be replayed (the tricks "
    "before the fault are kept). Rejected lines include lines without a readable hand."
)

by_code = db.query("coverage.findings_by_code", k, f)
if by_code.height:
    ui.chart(
        charts.count_bars(
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
ui.table(db.query_plain("coverage.ingest_runs", k), key="au_runs")
