"""The dashboard's entry point: `streamlit run dashboard/app.py`. It only routes — the page list,
the global filters every page shares (drawn here so they survive page changes), then the page.

The database is $SHENGJI_DB or data/tractor.duckdb, read through ingest's pointer (dashboard/db.py).
"""

from __future__ import annotations

import streamlit as st

from dashboard import sidebar

st.set_page_config(
    page_title="Tractor hand analytics", page_icon=":material/playing_cards:", layout="wide"
)

PAGES = {
    "Analytics": [
        st.Page("pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
        st.Page("pages/bottom.py", title="Bottom capture", icon=":material/savings:"),
        st.Page("pages/throws.py", title="Throws", icon=":material/call_split:"),
        st.Page("pages/trump_length.py", title="Trump length", icon=":material/straighten:"),
        st.Page("pages/players.py", title="Players", icon=":material/groups:"),
        st.Page("pages/explorer.py", title="Explorer", icon=":material/query_stats:"),
    ],
    "Hands": [
        st.Page("pages/replay.py", title="Hand replay", icon=":material/replay:"),
        st.Page("pages/audit.py", title="Audit", icon=":material/fact_check:"),
        st.Page("pages/import_files.py", title="Import", icon=":material/upload_file:"),
    ],
}

page = st.navigation(PAGES)
sidebar.store(sidebar.render())
page.run()
