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


# --- the URL inside a visit -------------------------------------------------------------------
_LEFT = "visit_url_left"
_CHANGES = "visit_url_changes"

Params = dict[str, list[str]]


def _now() -> Params:
    return {name: st.query_params.get_all(name) for name in st.query_params}


def hold_url() -> None:
    """The router, before the sidebar and the page. Inside a visit (not a link, not back or
    forward) the URL is the one the last run left, with what this run's callbacks changed
    (`change_url`): another URL comes from a browser that had not yet heard of the last run,
    and every page would read it as the user's, undoing the last change (a filter, a pick)."""
    ss = st.session_state
    changes: list[tuple[tuple[str, ...], Params]] = ss.pop(_CHANGES, [])
    left: Params | None = ss.get(_LEFT)
    if arrived("url") or left is None:
        settle("url")
        return
    held = dict(left)
    for drop, put in changes:
        for name in drop:
            held.pop(name, None)
        held.update(put)
    if _now() != held:
        st.query_params.from_dict(held)


def change_url(put: dict[str, str], drop: tuple[str, ...] = ()) -> None:
    """A callback's change of the URL: `drop` goes, then `put` is set, in one change (each change
    of the URL is an entry in the browser's history). `hold_url` keeps it."""
    params = {name: values for name, values in _now().items() if name not in drop}
    params.update({name: [value] for name, value in put.items()})
    st.query_params.from_dict(params)
    changes = st.session_state.setdefault(_CHANGES, [])
    changes.append((drop, {name: [value] for name, value in put.items()}))


def leave_url() -> None:
    """The router, when a run ends (finished, stopped or interrupted): the URL it left."""
    st.session_state[_LEFT] = _now()
