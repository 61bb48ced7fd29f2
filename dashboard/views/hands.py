"""Hand finder: the hands behind a number, by event (failed throws, captures, findings…), player
and match, under the sidebar's filters — counted, paged, each opening the replay at the trick that
matters. The numbers and chart marks of the other pages link here.

Its state is the URL: `event`, `who` (and `role`: the seat they sat in), `match`, `page`, and
what a mark stood for — `where` (`field=value`, repeated), `range` (`field:lo:hi`), `throw`
(`breakdown=value`; `tother`, repeated: the values a pooled `other` is not), `code` (a review
code, with a mistake event), `seat` (`field=value`) and `srange` (`field:lo:hi`) for one seat of the hand.
Names are checked against analytics.handfinder's whitelists; an unknown one is dropped with a
note.
"""

from __future__ import annotations

import math
import urllib.parse

import polars as pl
import streamlit as st

from analytics import handfinder, review_codes
from analytics.handfinder import EVENTS, HandQuery
from dashboard import db, sidebar, ui, visits

PER_PAGE = 50

st.title("Hand finder")
k = db.require()
f = sidebar.current()
qp = st.query_params
ss = st.session_state


# A URL this session has not seen sets the widgets (a drill-down link, a reload).
url_state = tuple(sorted((name, tuple(qp.get_all(name))) for name in qp))
if ss.get("hf_url") != url_state:
    event = qp.get("event", "all")
    ss["hf_event"] = event if event in EVENTS else "all"
    ss["hf_who"] = qp.get("who") or None
    ss["hf_match"] = qp.get("match", "")
    try:
        ss["hf_page"] = max(1, int(qp.get("page", "1")))
    except ValueError:
        ss["hf_page"] = 1
base, dropped = handfinder.from_params(qp.get_all)
if dropped:
    st.caption("Ignored in the link: " + ", ".join(ui.md(d) for d in dropped))

players = db.query_plain("overview.filter_options", k)["players"]
cols = st.columns([3, 2, 2])
with cols[0]:
    event = st.selectbox(
        "Hands with",
        list(EVENTS),
        format_func=lambda e: EVENTS[e].label,
        key="hf_event",
    )
with cols[1]:
    if ss.get("hf_who") not in players:
        ss["hf_who"] = None
    who = st.selectbox(
        "Player",
        players,
        index=None,
        key="hf_who",
        placeholder="anyone",
        help="For throws: the thrower. Otherwise: they sat in the hand.",
    )
with cols[2]:
    match = st.text_input("Match", key="hf_match", max_chars=80, placeholder="any match")

where = list(base.where)
if match.strip():
    where.append(("match", match.strip()))
role = qp.get("role") if qp.get("role") in handfinder.ROLE_SQL and who else None
code = qp.get("code") if event.startswith("mistake") else None
q = HandQuery(
    event=event,
    who=who,
    role=role,
    where=tuple(where),
    ranges=base.ranges,
    throw=base.throw,
    throw_others=base.throw_others,
    code=code,
    seat=base.seat,
    seat_ranges=base.seat_ranges,
)
if base.where or base.ranges or base.throw or base.seat or base.seat_ranges or code:

    def _clear() -> None:
        visits.change_url({}, ("where", "range", "throw", "tother", "seat", "srange", "code"))

    st.button("Clear the chart's selection", key="hf_clear", on_click=_clear)

n = db.query("handfinder.count", k, f, q)
pages = max(1, math.ceil(n / PER_PAGE))
if ss.get("hf_page", 1) > pages:
    ss["hf_page"] = pages
st.caption(f"{ui.md(q.describe())} · {ui.md(f.describe())}")
if not n:
    ui.empty("hands of that kind")
else:
    nav = st.columns([1, 5])
    with nav[0]:
        page = int(st.number_input("Page", min_value=1, max_value=pages, step=1, key="hf_page"))
    first = (page - 1) * PER_PAGE + 1
    rows = db.query("handfinder.find", k, f, q, page, PER_PAGE)
    with nav[1]:
        st.markdown(
            f"**{n:,} hands** · showing {first:,}–{first + rows.height - 1:,} "
            f"(page {page:,} of {pages:,}, {PER_PAGE} a page, newest first)"
        )

    # A replay opened from here lists this page of hands beside its table (`list`), under the
    # same filters: previous and next hand walk the finder's results.
    listed = handfinder.to_params(q) + ([("page", str(page))] if page > 1 else [])
    filters = [(name, v) for name in qp if name.startswith("f_") for v in qp.get_all(name)]

    def _link(source: str, hand_id: str, trick: int | None) -> str:
        params = [("source", source), ("hand", hand_id)]
        if trick is not None:
            params.append(("trick", str(trick)))
        params += [("list", urllib.parse.urlencode(listed)), *filters]
        return "replay?" + urllib.parse.urlencode(params)

    shown = rows.with_columns(
        pl.struct("source", "hand_id", "trick")
        .map_elements(
            lambda r: _link(r["source"], r["hand_id"], r["trick"]), return_dtype=pl.String
        )
        .alias("open"),
        pl.concat_str(
            [pl.col(f"player{i}").fill_null("?") for i in range(4)], separator=" / "
        ).alias("players"),
    )
    mistakes = []
    if "code" in rows.columns:
        # A list of mistakes says which and what it cost (the costliest of the hand's).
        shown = shown.with_columns(
            pl.col("code")
            .map_elements(lambda c: f"{review_codes.label(c)} ({c})", return_dtype=pl.String)
            .alias("mistake")
        )
        mistakes = ["mistake", "cost", "mistakes"]
    ui.table(
        shown.select(
            "open",
            "trick",
            *mistakes,
            "played_at",
            "hand_id",
            "match_id",
            "players",
            "outcome",
            "attackers_points",
            "n_findings",
            "status",
            "source",
        ),
        key="hf_rows",
        column_config={
            "open": st.column_config.LinkColumn("replay", display_text="open ↗", width="small"),
            "trick": st.column_config.Column("at trick", help="where the replay opens"),
            "mistake": st.column_config.TextColumn(
                "costliest mistake", help="its review code (docs/review.md)"
            ),
            "cost": st.column_config.NumberColumn(
                "cost", format="%.1f", help="points that mistake lost"
            ),
            "mistakes": st.column_config.NumberColumn(
                "mistakes", help="the hand's mistakes of this kind"
            ),
            "attackers_points": "attackers' points",
            "n_findings": "findings",
        },
    )
    top = rows.row(0, named=True)
    target = {"source": top["source"], "hand": top["hand_id"]}
    if top["trick"] is not None:
        target["trick"] = str(top["trick"])
    target["list"] = urllib.parse.urlencode(listed)
    target |= {name: qp.get_all(name) for name in qp if name.startswith("f_")}
    st.page_link(
        "views/replay.py",
        label=f"Replay the first: {ui.md(top['hand_id'])}"
        + (f" at trick {top['trick']}" if top["trick"] is not None else ""),
        icon=":material/replay:",
        query_params=target,
    )

# The URL follows the widgets.
want: dict[str, str | list[str]] = {"event": event}
if who:
    want["who"] = who
if role:
    want["role"] = role
if code:
    want["code"] = code
if match.strip():
    want["match"] = match.strip()
if ss.get("hf_page", 1) > 1:
    want["page"] = str(ss["hf_page"])
want["where"] = [f"{name}={value}" for name, value in base.where]
want["range"] = [f"{name}:{lo:g}:{hi:g}" for name, lo, hi in base.ranges]
if base.throw:
    want["throw"] = f"{base.throw[0]}={base.throw[1]}"
want["tother"] = list(base.throw_others)
want["seat"] = [f"{name}={value}" for name, value in base.seat]
want["srange"] = [f"{name}:{lo:g}:{hi:g}" for name, lo, hi in base.seat_ranges]
for name in (
    *("event", "who", "role", "code", "match", "page"),
    *("where", "range", "throw", "tother", "seat", "srange"),
):
    value = want.get(name)
    if value:
        if (qp.get_all(name) if isinstance(value, list) else qp.get(name)) != value:
            qp[name] = value
    elif name in qp:
        del qp[name]
ss["hf_url"] = tuple(sorted((name, tuple(qp.get_all(name))) for name in qp))
