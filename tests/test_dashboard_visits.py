"""dashboard/visits.py: a rerun inside a visit starts from the URL the last run left, with its
callbacks' changes, even when the last run was stopped by the next one before it ended."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

SCRIPT = str(Path(__file__).with_name("visits_app.py"))


def test_a_stopped_runs_pick_survives_the_browsers_older_url() -> None:
    at = AppTest.from_file(SCRIPT)
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
