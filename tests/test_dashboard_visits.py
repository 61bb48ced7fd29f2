"""dashboard/visits.py: a rerun inside a visit starts from the URL the last run left, with its
callbacks' changes, even when the last run was stopped by the next one before it ended."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script() -> None:
    import streamlit as st

    from dashboard import visits

    visits.begin("page")
    run = visits.hold_url()
    st.button("pick B", key="pick", on_click=visits.change_url, args=({"hand": "B"}, ("trick",)))
    # A run stopped by the next one may not reach its end: the test says when.
    if not st.session_state.get("stopped"):
        visits.leave_url(run)


def test_a_stopped_runs_pick_survives_the_browsers_older_url() -> None:
    at = AppTest.from_function(_script)
    at.query_params.update({"hand": "A", "trick": "2"})
    at.run()
    assert at.query_params == {"hand": "A", "trick": "2"}
    # The pick's run is stopped before it ends (the browser sent another rerun meanwhile).
    at.session_state["stopped"] = True
    at.button(key="pick").click().run()
    assert at.query_params == {"hand": "B"}
    # That rerun carries the URL the browser had before the pick: the pick holds.
    at.session_state["stopped"] = False
    at.query_params = {"hand": "A", "trick": "2"}
    at.run()
    assert at.query_params == {"hand": "B"}
