"""Hand replay: one hand at the table, play by play — four seats, the trick in the middle, the
trick's explanation and the review's verdicts beside it (the better play drawn on the table), the
deal, the running score, a card tracker and a timeline of key moments (dashboard/replayer.py); a
list of hands beside the table with the previous and next hand; the review's table of the trick
below.

Deep link: `?hand=ID&source=SRC&trick=N&play=P` (`play` counts the plays shown in trick N, 0 is
before its lead; without it the trick opens complete). The component keeps `trick` and `play` in
the URL as you step. `list` holds a Hand finder query (analytics.handfinder.to_params, URL-encoded,
with its `page`): the hand list then shows that page of the finder's results, else the hands the
picker lists. The hand shown is always the one the URL names: between links, a rerun's URL is
the one the last run left (dashboard/visits.py).

The page is built in sections (the link, the picker, the table with its hand list, the review,
the computer analysis: dashboard/analysis_panel.py);
another panel about the hand belongs after the review, under `# --- ` like the others.
"""

from __future__ import annotations

import hashlib
import urllib.parse
from typing import Any

import polars as pl
import streamlit as st

from analytics import handfinder, handview, review_codes
from dashboard import analysis_panel, db, review_panel, sidebar, ui, visits
from dashboard.replayer import replayer

PICKER_LIMIT = 200
# Hands of the finder's results the list beside the table shows at once (a finder page).
LIST_PAGE = 50

st.title("Hand replay")
k = db.require()
f = sidebar.current()
qp = st.query_params
ss = st.session_state


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


# --- the hand shown: the one the URL names (dashboard/visits.py keeps a rerun's URL the last
# run's, so a browser still drawing the hand left cannot name it again); opened from the
# sidebar, the hand shown last, else the newest.
asked = qp.get("hand") or None
linked: tuple[str, str] | None = None
if asked:
    con = db.connection(k)
    try:
        linked = handview.find_hand(con, asked, qp.get("source"))
    finally:
        con.close()
    if linked is None:
        where = f" from source {ui.md(qp['source'])}" if qp.get("source") else ""
        st.warning(
            f"No hand with this id{where} is in the database, so no hand is shown in its "
            "place: pick one below, or find it with the Hand finder.",
            icon=":material/search_off:",
        )
        st.code(asked, language=None)
else:
    linked = ss.get("rp_last")


def _key(*parts: object) -> str:
    """A widget key standing for `parts` (the hand shown, a list): such widgets are new ones when
    the hand changes, so values a browser still drawing the hand left sends belong to widgets
    that are gone, not to a choice."""
    return hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()


def _open(
    source: str, hand: str, trick: int | None = None, more: dict[str, str] | None = None
) -> None:
    """(A callback) show another hand: the URL names it, at `trick`, else at its deal."""
    at = {"trick": str(trick)} if trick is not None else {}
    visits.change_url({"source": source, "hand": hand, **at, **(more or {})}, ("trick", "play"))


# --- the picker ----------------------------------------------------------------------------------
top = st.columns([2, 5])
with top[0]:
    search = st.text_input(
        "Find a hand",
        key="rp_search",
        placeholder="hand id, match or player",
        max_chars=80,
        help="For hands by event (failed throws, captures, findings…) use the Hand finder.",
    )
hands = db.query("handview.hand_list", k, f, search.strip(), PICKER_LIMIT)
total = db.query("handview.hand_count", k, f, search.strip())
options = [(s, h) for s, h in hands.select("source", "hand_id").iter_rows()]
labels = {
    (r["source"], r["hand_id"]): (
        f"{r['played_at']:%Y-%m-%d %H:%M} · {r['hand_id']} · "
        f"{'/'.join(str(r[f'player{i}']) for i in range(4))} · {r['status']}"
        if r["played_at"]
        else f"{r['hand_id']} · {r['status']}"
    )
    for r in hands.iter_rows(named=True)
}
if linked is not None and linked not in labels:
    # The hand shown stays pickable whatever the search and the filters list.
    options.insert(0, linked)
    labels[linked] = f"{linked[1]} ({linked[0]})"
if not options:
    ui.empty("hands")
    st.stop()
if linked is None and not asked:
    linked = options[0]


def _hand_picked(key: str) -> None:
    picked = st.session_state.get(key)
    if picked is not None:
        # A hand picked by hand opens at its deal, whatever the URL said about the last one.
        _open(picked[0], picked[1])


with top[1]:
    shown = f"the newest {len(hands):,} of {total:,}" if total > len(hands) else f"all {total:,}"
    picker = f"rp_hand.{_key(linked)}"
    st.selectbox(
        "Hand",
        options,
        index=options.index(linked) if linked is not None else None,
        format_func=lambda key: labels.get(key, str(key)),
        key=picker,
        on_change=_hand_picked,
        args=(picker,),
        placeholder="pick a hand",
        help=f"Lists {shown} hands under the filters; search or use the Hand finder for others.",
    )
    st.caption(f"Listing {shown} hands under the filters.")
if linked is None:
    st.stop()
source, hand_id = linked


@st.cache_data(show_spinner=False, max_entries=64)
def _payload(key: db.Key, source: str, hand_id: str) -> dict[str, Any] | None:
    con = db.connection(key)
    try:
        data = handview.load_hand(con, source, hand_id)
        decisions = handview.load_decisions(con, source, hand_id) if data else None
    finally:
        con.close()
    if data is None:
        return None
    reasons = None
    if data.tricks.height and (data.tricks["reason"].fill_null("") == "").any():
        reasons = handview.replay_reasons(data.hand["file"], data.hand["line"], hand_id)
    bottom = None
    if decisions is not None and decisions.filter(pl.col("trick").is_null()).height:
        # The store keeps the hand after the bury; a bury's verdict shows the bottom taken up.
        bottom = handview.original_bottom(data.hand["file"], data.hand["line"], hand_id)
    return handview.replay_payload(data, reasons, decisions, bottom)


payload = _payload(k, source, hand_id)
if payload is None:
    ui.empty("hand with that id")
    st.stop()
ss["rp_last"] = (source, hand_id)
if qp.get("hand") != hand_id or qp.get("source") != source:
    visits.set_url({"hand": hand_id, "source": source})

# The component reports its position, and the page echoes it into the URL. That echo must not
# become a new start: a changed `data` would remount the component (and stop an autoplay).
url_pos = (qp.get("trick"), qp.get("play"))
reported = (ss.get("rp_table") or {}).get("position") or {}
echo = reported.get("hand") == hand_id and url_pos == (
    str(reported.get("trick")),
    str(reported.get("play")),
)
if not echo or ss.get("rp_start_for") != (source, hand_id):
    ss["rp_start"] = handview.start_position(payload, _int(qp.get("trick")), _int(qp.get("play")))
    ss["rp_start_for"] = (source, hand_id)
# `jump` counts the analysis graph's clicks: a click on the position the table opened at
# must still move it there (a changed value remounts the table).
start = ss["rp_start"]
if ss.get("rp_jumps"):
    start = {**start, "jump": ss["rp_jumps"]}
if start["note"]:
    st.caption(f"The link asks for {start['note']}.")
if not payload["tricks"] and not payload["fault"]:
    st.info("This hand has no tricks to show (it stopped before play).")


# --- the hand list beside the table: the finder's results from `list`, else the picker's ---------
# (source, hand id, trick to open at, label)
Item = tuple[str, str, int | None, str]


def _finder_list(raw: str) -> tuple[list[Item], str, Item | None, Item | None]:
    """The finder page `raw` names: its hands, a title, and the hands just before and after the
    page (None at either end of the results)."""
    parsed = urllib.parse.parse_qs(raw, keep_blank_values=True)
    query, _dropped = handfinder.from_params(lambda name: parsed.get(name, []))
    page = max(1, _int((parsed.get("page") or ["1"])[0]) or 1)
    n = db.query("handfinder.count", k, f, query)

    def items(p: int) -> list[Item]:
        if p < 1 or (p - 1) * LIST_PAGE >= n:
            return []
        rows: pl.DataFrame = db.query("handfinder.find", k, f, query, p, LIST_PAGE)
        out = []
        for r in rows.iter_rows(named=True):
            label = r["hand_id"] + (f" · trick {r['trick']}" if r["trick"] is not None else "")
            if r.get("code"):
                label += f" · {review_codes.label(r['code'])} −{r['cost']:g}"
            out.append((r["source"], r["hand_id"], r["trick"], label))
        return out

    title = f"Hand finder: {query.describe()} ({n:,} hands"
    title += f", page {page} of {-(-n // LIST_PAGE)})" if n > LIST_PAGE else ")"
    shown_items = items(page)
    before = items(page - 1)[-1:] if page > 1 else []
    after = items(page + 1)[:1] if page * LIST_PAGE < n else []
    return shown_items, title, before[0] if before else None, after[0] if after else None


def _go(item: Item, page_shift: int = 0) -> None:
    """Open a hand of the list (at its trick), keeping the list; `page_shift` moves the finder
    page along when the hand is on the next or previous one."""
    more = {}
    if page_shift and st.query_params.get("list"):
        parsed = urllib.parse.parse_qs(st.query_params["list"], keep_blank_values=True)
        page = max(1, (_int((parsed.get("page") or ["1"])[0]) or 1) + page_shift)
        parsed["page"] = [str(page)]
        more["list"] = urllib.parse.urlencode(parsed, doseq=True)
    _open(item[0], item[1], item[2], more)


raw_list = qp.get("list")
if raw_list:
    items, list_title, page_before, page_after = _finder_list(raw_list)
else:
    items = [
        (s, h, None, f"{h} · {r:%m-%d %H:%M}" if r else h)
        for s, h, r in hands.select("source", "hand_id", "played_at").iter_rows()
    ]
    list_title = f"The picker's hands ({shown})"
    page_before = page_after = None
here = next((i for i, it in enumerate(items) if (it[0], it[1]) == (source, hand_id)), None)
if here is None:
    prev_item, prev_shift = None, 0
    next_item, next_shift = (items[0], 0) if items else (None, 0)
else:
    prev_item, prev_shift = (items[here - 1], 0) if here > 0 else (page_before, -1)
    next_item, next_shift = (items[here + 1], 0) if here + 1 < len(items) else (page_after, 1)

table_col, list_col = st.columns([5, 1], gap="small")

# --- the table -----------------------------------------------------------------------------------


def _moved() -> None:
    """The component's position reached Python: keep the URL's trick and play in step."""
    st.session_state.pop("rp_jump_from", None)
    pos = (st.session_state.get("rp_table") or {}).get("position")
    # A position of another hand (the table of the hand left, reporting late) is not this one's.
    shown = (visits.held_param("source"), visits.held_param("hand"))
    if isinstance(pos, dict) and (pos.get("source"), pos.get("hand")) == shown:
        visits.change_url({"trick": str(pos["trick"]), "play": str(pos["play"])})


with table_col:
    replayer(payload, start, key="rp_table", on_change=_moved)

with list_col:
    st.markdown("**Hands**")
    st.caption(ui.md(list_title))
    nav = st.columns(2, gap="small")
    nav[0].button(
        "◀ prev",
        key="rp_prev_hand",
        disabled=prev_item is None,
        on_click=_go,
        args=(prev_item, prev_shift) if prev_item else None,
        help="the hand before this one in the list",
        width="stretch",
    )
    nav[1].button(
        "next ▶",
        key="rp_next_hand",
        disabled=next_item is None,
        on_click=_go,
        args=(next_item, next_shift) if next_item else None,
        help="the hand after this one in the list",
        width="stretch",
    )

    # A radio of its own for each hand shown and each list (`_key`).
    list_key = f"rp_list.{_key(linked, [(s_, h_) for s_, h_, _t, _l in items])}"

    def _list_picked() -> None:
        i = st.session_state.get(list_key)
        if i is not None and i < len(items) and i != here:
            _go(items[i])

    with st.container(height=560, border=True):
        st.radio(
            "Hands in the list",
            range(len(items)),
            index=here,
            format_func=lambda i: ui.md(items[i][3]),
            key=list_key,
            on_change=_list_picked,
            label_visibility="collapsed",
        )
    if here is None and items:
        st.caption("This hand is not in the list.")

# --- the review's verdicts on the trick shown (docs/review.md): severity, cost, the better play ---
shown_pos = (ss.get("rp_table") or {}).get("position") or {}
shown_trick = _int(str(shown_pos.get("trick"))) if shown_pos.get("hand") == hand_id else None
if shown_pos and ss.get("rp_jump_from") == shown_pos:
    # The table was moved by the analysis graph (`_jump` below) and has not reported since: it
    # shows the trick it opened at.
    shown_trick = None
if payload["tricks"]:
    review_panel.trick_review(k, source, hand_id, shown_trick or max(1, int(start["trick"])))


# --- the computer analysis (docs/analysis.md): the action, the evaluation graph, per decision --


def _jump(trick: int, play: int | None) -> None:
    """Show a decision of the analysis on the table: the URL names it, the table opens there."""
    qp.update({"trick": str(trick), "play": str(play if play is not None else 0)})
    ss["rp_jumps"] = ss.get("rp_jumps", 0) + 1
    ss["rp_jump_from"] = dict(shown_pos)
    st.rerun()


if payload["tricks"]:
    analysis_panel.hand_analysis(
        k,
        source,
        hand_id,
        shown_trick or max(1, int(start["trick"])),
        _jump,
        payload["hand"]["attackers_points"],
    )
