"""The global filters, drawn once in the sidebar by the entry point so they survive page changes.

Widgets keep their values in `st.session_state` under the `f_*` keys; `current()` turns them into
the frozen `analytics.filters.Filters` every query takes. The filters also live in the URL
(`f_from`, `f_to`, `f_source`, `f_rules`, `f_player`, `f_role`, `f_level`, `f_clean`), so a link
reproduces the view and a reload keeps it: a URL with filters the session has not seen sets the
widgets, and every run writes the widgets back. Values from a URL are checked against the store's own options.
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
            unreadable = k is not None and db.problem(k) is not None
            st.caption("The database cannot be read." if unreadable else "No database yet.")
            return Filters()
        opts: dict[str, Any] = db.query_plain("overview.filter_options", k)
        first, last = opts["dates"]
        _restore(opts)
        _from_url(opts)
        if first is not None and last is not None:
            # Defaults through the session state, which the URL may already have set.
            st.session_state.setdefault("f_dates", (first, last))
            picked = st.date_input(
                "Played between",
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
        st.session_state.setdefault("f_flagged", True)
        st.toggle(
            "Include flagged hands",
            key="f_flagged",
            help="Hands replayed with findings (a fault in the log) still have an outcome.",
        )
        f = _filters(picked, first, last)
        st.session_state[SAVED] = {k: st.session_state[k] for k in WIDGETS if k in st.session_state}
        st.caption(f"Showing: {ui.md(f.describe())}")
        _to_url(f)
        return f


WIDGETS = ("f_dates", "f_sources", "f_presets", "f_players", "f_role", "f_levels", "f_flagged")
SAVED = "f_saved"
"""A copy of the widgets' values outside the widgets: a page switch from inside a run (a chart's
drill-down, `st.switch_page`) drops the widgets' own state, and the filters must survive it."""


def _restore(opts: dict[str, Any]) -> None:
    """Put back the widgets' values the session had, where a page switch dropped them (values
    the store no longer offers are left out)."""
    saved = st.session_state.get(SAVED) or {}
    offered = {"f_sources": "sources", "f_presets": "presets", "f_players": "players"}
    offered |= {"f_levels": "levels"}
    for key, value in saved.items():
        if key in st.session_state:
            continue
        if key in offered:
            value = [v for v in value if v in opts[offered[key]]]
        st.session_state[key] = value


URL_LISTS = {"f_source": "f_sources", "f_rules": "f_presets", "f_player": "f_players"}
"""URL parameter -> widget key, for the multi-valued filters (levels too, below)."""
URL_KEYS = ("f_from", "f_to", *URL_LISTS, "f_role", "f_level", "f_clean")


def _url_state() -> tuple[tuple[str, tuple[str, ...]], ...]:
    qp = st.query_params
    return tuple((name, tuple(qp.get_all(name))) for name in URL_KEYS)


def _date(text: str | None, lo: dt.date | None, hi: dt.date | None) -> dt.date | None:
    try:
        day = dt.date.fromisoformat(text or "")
    except ValueError:
        return None
    if lo is not None and hi is not None and not lo <= day <= hi:
        return None
    return day


def _from_url(opts: dict[str, Any]) -> None:
    """Set the filter widgets from the URL at a session's first run (a link opened, a reload)
    and when a URL with filters differs from what the last run wrote (back/forward). A URL
    without any — Streamlit drops the query on a page change — keeps the session's filters."""
    state = _url_state()
    ss = st.session_state
    seen = "f_url" in ss
    if ss.get("f_url") == state or (seen and not any(values for _, values in state)):
        return
    ss["f_url"] = state
    qp = st.query_params
    first, last = opts["dates"]
    if first is not None and last is not None:
        a = _date(qp.get("f_from"), first, last) or first
        b = _date(qp.get("f_to"), first, last) or last
        ss["f_dates"] = (a, b) if a <= b else (first, last)
    for param, key in URL_LISTS.items():
        allowed = set(opts[{"f_sources": "sources", "f_presets": "presets"}.get(key, "players")])
        ss[key] = [v for v in dict.fromkeys(qp.get_all(param)) if v in allowed]
    ss["f_levels"] = [v for v in dict.fromkeys(qp.get_all("f_level")) if v in opts["levels"]]
    role = qp.get("f_role", "any")
    ss["f_role"] = role if role in ROLES else "any"
    ss["f_flagged"] = qp.get("f_clean") != "1"


def _to_url(f: Filters) -> None:
    """Write the filters into the URL (only what differs from "all hands")."""
    qp = st.query_params
    wanted: dict[str, list[str]] = {
        "f_from": [f.date_from.isoformat()] if f.date_from else [],
        "f_to": [f.date_to.isoformat()] if f.date_to else [],
        "f_source": list(f.sources),
        "f_rules": list(f.presets),
        "f_player": list(f.players),
        "f_role": [f.role] if f.role != "any" else [],
        "f_level": list(f.levels),
        "f_clean": [] if f.include_flagged else ["1"],
    }
    for name, values in wanted.items():
        if qp.get_all(name) == values:
            continue
        if values:
            qp[name] = values
        elif name in qp:
            del qp[name]
    st.session_state["f_url"] = _url_state()


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
