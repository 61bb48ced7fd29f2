"""A one-button Streamlit script around dashboard/visits.py, for tests/test_dashboard_visits.py
(AppTest runs it as a file: a script made from a function leaves this process's `__main__`
pointing at a temporary file, and the suite's spawned workers then fail to start)."""

from __future__ import annotations

import streamlit as st

from dashboard import visits

visits.begin("page")
run = visits.hold_url()
st.button("pick B", key="pick", on_click=visits.change_url, args=({"hand": "B"}, ("trick",)))
# A run stopped by the next one may not reach its end: the test says when.
if not st.session_state.get("stopped"):
    visits.leave_url(run)
