"""The global filters, drawn once in the sidebar by the entry point so they survive page changes.

Widgets keep their values in `st.session_state` under the `f_*` keys; `current()` turns them into
the frozen `analytics.filters.Filters` every query takes.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import streamlit as st

from analytics.filters import ROLE_LABELS, ROLES, Filters

from . import db, ui


def render() -> Filters:
    """Draw the filter widgets (when there is data) and return the filters they set."""
    k = db.key()
    with st.sidebar:
        st.caption("Filters apply to every page.")
        if k is None or not db.ready(k):
            st.caption("No database yet.")
            return Filters()
        opts: dict[str, Any] = db.query_plain("overview.filter_options", k)
        first, last = opts["dates"]
        if first is not None and last is not None:
            picked = st.date_input(
                "Played between",
                value=(first, last),
                min_value=first,
                max_value=last,
                key="f_dates",
            )
        else:
            picked = ()
        st.multiselect("Source", opts["sources"], key="f_sources", placeholder="all sources")
        st.multiselect("Rules", opts["presets"], key="f_presets", placeholder="all rule sets")
        st.multiselect("Players", opts["players"], key="f_players", placeholder="everyone")
        st.selectbox(
            "Seat role",
            ROLES,
            format_func=lambda r: ROLE_LABELS[r],
            key="f_role",
            help="With players chosen: hands where they sat in this role. Seat figures (Players, "
            "throws) keep only seats in this role.",
        )
        st.multiselect("Level played", opts["levels"], key="f_levels", placeholder="all levels")
        st.toggle(
            "Include flagged hands",
            value=True,
            key="f_flagged",
            help="Hands replayed with findings (a fault in the log) still have an outcome.",
        )
        f = _filters(picked, first, last)
        st.caption(f"Showing: {ui.md(f.describe())}")
        return f


def _filters(picked: Any, first: dt.date | None, last: dt.date | None) -> Filters:
    ss = st.session_state
    date_from = date_to = None
    if isinstance(picked, tuple | list) and len(picked) == 2:
        a, b = picked
        # The full span is "no date filter": new hands outside it then still count.
        date_from = a if a != first else None
        date_to = b if b != last else None
    elif isinstance(picked, tuple | list) and len(picked) == 1:
        date_from = picked[0] if picked[0] != first else None
    return Filters(
        date_from=date_from,
        date_to=date_to,
        sources=tuple(sorted(ss.get("f_sources", []))),
        presets=tuple(sorted(ss.get("f_presets", []))),
        players=tuple(sorted(ss.get("f_players", []))),
        role=ss.get("f_role", "any"),
        levels=tuple(ss.get("f_levels", [])),
        include_flagged=bool(ss.get("f_flagged", True)),
    )


def current() -> Filters:
    """The filters the sidebar set in this run (`Filters()` before it ran)."""
    f = st.session_state.get("filters")
    return f if isinstance(f, Filters) else Filters()


def store(f: Filters) -> None:
    st.session_state["filters"] = f
