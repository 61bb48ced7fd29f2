"""When a page's URL is a link, and what the URL is in between.

A URL is read as a link on the first run of a page's visit (a link opened, a reload, a page
change) and on the browser's back and forward. In between, the URL a rerun carries is what the
browser had when it sent the rerun, and a browser still drawing an earlier state (a rerun sent
before the answer to the last one arrived: a second click made quickly, the replayer's late report
of its position) sends that state's URL. Every page reads its choices from its URL, so read as
the user's, that URL undid the last change: a page's choice, a filter, the Hand finder's cleared
selection, a hand just picked. So the router holds the URL inside a visit: each rerun starts from
the URL the last run left, plus what this run's callbacks changed (`change_url`).
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

_PAGE = "visit_page"
_VISIT = "visit_id"
_HELD = "visit_held"
_LEFT = "visit_url_left"
_CHANGES = "visit_url_changes"
_RUN = "visit_run"

Params = dict[str, list[str]]


def begin(page: str) -> None:
    """The router, on every run: a run of another page than the last starts a visit."""
    ss = st.session_state
    if ss.get(_PAGE) != page:
        ss[_PAGE] = page
        ss[_VISIT] = ss.get(_VISIT, 0) + 1


def hold_url() -> int:
    """The router, before the sidebar and the page: inside a visit, the URL the last run left
    with this run's callbacks' changes; on a visit's first run and on back and forward, the URL
    as the browser sent it. Returns this run's number, for `leave_url`."""
    ss = st.session_state
    ctx = get_script_run_ctx()
    held = _held()
    ss.pop(_CHANGES, None)
    if ss.get(_HELD) != ss.get(_VISIT) or held is None or (ctx and ctx.is_history_navigation):
        ss[_HELD] = ss.get(_VISIT)
        held = _now()
    elif _now() != held:
        st.query_params.from_dict(held)
    # Kept now: a run stopped by the next one may never reach `leave_url`, or reach it late.
    ss[_LEFT] = held
    ss[_RUN] = ss.get(_RUN, 0) + 1
    return int(ss[_RUN])


def held_param(name: str) -> str | None:
    """For a callback: the URL's `name` as the run it belongs to sees it (the last run's URL
    with the changes made so far); the URL the rerun carries may be a browser's older one."""
    values = (_held() or {}).get(name)
    return values[-1] if values else None


def set_url(put: dict[str, str], drop: tuple[str, ...] = ()) -> None:
    """`drop` goes from the URL, then `put` is set, in one change: each change of the URL is an
    entry in the browser's history, and back must not stop half-way."""
    _write(_now(), put, drop)


def change_url(put: dict[str, str], drop: tuple[str, ...] = ()) -> None:
    """A callback's `set_url`, made on the URL the run it belongs to sees and kept by `hold_url`
    (callbacks run before the router)."""
    _write(_held() or _now(), put, drop)
    st.session_state.setdefault(_CHANGES, []).append(
        (drop, {name: [value] for name, value in put.items()})
    )


def _write(params: Params, put: dict[str, str], drop: tuple[str, ...]) -> None:
    kept = {name: values for name, values in params.items() if name not in drop}
    st.query_params.from_dict({**kept, **{name: [value] for name, value in put.items()}})


def leave_url(run: int) -> None:
    """The router, when run number `run` ends: the URL it left, unless a later run has begun."""
    if st.session_state.get(_RUN) == run:
        st.session_state[_LEFT] = _now()


def _held() -> Params | None:
    """The URL the last run left, with the changes this run's callbacks made (None: no run yet)."""
    left: Params | None = st.session_state.get(_LEFT)
    if left is None:
        return None
    out = dict(left)
    for drop, put in st.session_state.get(_CHANGES, []):
        for name in drop:
            out.pop(name, None)
        out.update(put)
    return out


def _now() -> Params:
    return {name: st.query_params.get_all(name) for name in st.query_params}
