"""Which run of a page takes its URL as a link.

A page that holds a choice of its own (Hand replay holds the hand it shows) takes the URL's word
only on the first run of a visit (a link opened, a page change, a reload) and on the browser's
back and forward. Any other rerun's URL is what the browser had when it sent the rerun, and a
browser still drawing an earlier state (a rerun sent before the answer to the last one arrived,
such as a table's late report of its position) sends that state's URL and widget values: taken
as a link, they would undo what the user had just done.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx


def begin(page: str) -> None:
    """The router, on every run: a run of another page than the last starts a visit."""
    ss = st.session_state
    if ss.get("visit_page") != page:
        ss["visit_page"] = page
        ss["visit_id"] = ss.get("visit_id", 0) + 1


def arrived(owner: str) -> bool:
    """True when this run should take the URL as a link: the visit's first run (until `settle`),
    or the browser's back or forward."""
    if st.session_state.get(f"{owner}_visit") != st.session_state.get("visit_id"):
        return True
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.is_history_navigation)


def settle(owner: str) -> None:
    """The link of this visit is taken: later reruns of the visit are not arrivals."""
    st.session_state[f"{owner}_visit"] = st.session_state.get("visit_id")
