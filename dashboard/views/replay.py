"""Hand replay: one hand at the table, play by play — four seats, the trick in the middle, the
trick's explanation and the review's verdicts beside it (the better play drawn on the table), the
deal, the running score, a card tracker and a timeline of key moments (dashboard/replayer.py); a
list of hands beside the table with the previous and next hand; the review's table of the trick
below.

Deep link: `?hand=ID&source=SRC&trick=N&play=P` (`play` counts the plays shown in trick N, 0 is
before its lead; without it the trick opens complete). The component keeps `trick` and `play` in
the URL as you step. `list` holds a Hand finder query (analytics.handfinder.to_params, URL-encoded,
with its `page`): the hand list then shows that page of the finder's results, else the hands the
picker lists.

The page is built in sections (the link, the picker, the table with its hand list, the review,
the computer analysis: dashboard/analysis_panel.py);
another panel about the hand belongs after the review, under `# --- ` like the others.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

import polars as pl
import streamlit as st

from analytics import handfinder, handview, review_codes
from dashboard import analysis_panel, db, review_panel, sidebar, ui
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


# --- the hand a link names: opened if it exists, else said so and nothing opened in its place --
going = ss.get("rp_going")
if going is not None:
    # A hand was just picked (`_leave`). Until the browser's URL names it, a rerun may still carry
    # the URL of the hand left (the table writes its position there): that is not a new link.
    if qp.get("hand") == going["hand"]:
        del ss["rp_going"]
    elif qp.get("hand") == ss.get("rp_left"):
        for name in ("trick", "play"):
            if name in qp and name not in going:
                del qp[name]
        qp.update(going)
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
    options.insert(0, linked)
    labels[linked] = f"{linked[1]} ({linked[0]})"
if not options:
    ui.empty("hands")
    st.stop()
link_state = linked if linked is not None else ("unknown", asked) if asked else None
if link_state is not None and ss.get("rp_linked") != link_state:
    # A new deep link selects its hand once (an unknown one: none); afterwards the picker is
    # the user's.
    ss["rp_linked"] = link_state
    ss["rp_hand"] = linked


def _leave(target: dict[str, str]) -> None:
    """Open another hand: the URL names it (`target`: hand, source, maybe trick), the position
    of the hand left goes."""
    shown_hand = st.session_state.get("rp_shown")
    st.session_state["rp_left"] = shown_hand[1] if shown_hand else None
    st.session_state["rp_going"] = target
    for name in ("trick", "play"):
        if name in st.query_params:
            del st.query_params[name]
    st.query_params.update(target)


def _new_hand() -> None:
    # A hand picked by hand opens at its deal, whatever the URL said about the last one.
    picked = st.session_state.get("rp_hand")
    if picked is not None:
        _leave({"source": picked[0], "hand": picked[1]})


with top[1]:
    shown = f"the newest {len(hands):,} of {total:,}" if total > len(hands) else f"all {total:,}"
    choice = st.selectbox(
        "Hand",
        options,
        format_func=lambda key: labels.get(key, str(key)),
        key="rp_hand",
        on_change=_new_hand,
        placeholder="pick a hand",
        help=f"Lists {shown} hands under the filters; search or use the Hand finder for others.",
    )
    st.caption(f"Listing {shown} hands under the filters.")
if choice is None:
    st.stop()
source, hand_id = choice


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
if qp.get("hand") != hand_id or qp.get("source") != source:
    qp.update({"hand": hand_id, "source": source})

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
ss["rp_shown"] = (source, hand_id)
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
    target = {"source": item[0], "hand": item[1]}
    if item[2] is not None:
        target["trick"] = str(item[2])
    _leave(target)
    if page_shift and st.query_params.get("list"):
        parsed = urllib.parse.parse_qs(st.query_params["list"], keep_blank_values=True)
        page = max(1, (_int((parsed.get("page") or ["1"])[0]) or 1) + page_shift)
        parsed["page"] = [str(page)]
        st.query_params["list"] = urllib.parse.urlencode(parsed, doseq=True)


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
    picked = st.session_state.get("rp_hand")
    # A position of the hand being left (sent as another was picked) must not follow the new
    # hand into the URL.
    if picked is not None and picked[1] != hand_id:
        return
    if isinstance(pos, dict) and pos.get("hand") == hand_id == st.query_params.get("hand"):
        st.query_params.update({"trick": str(pos["trick"]), "play": str(pos["play"])})


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

    def _picked() -> None:
        i = st.session_state.get("rp_list_pick")
        if i is not None and i < len(items):
            _go(items[i])

    ss["rp_list_pick"] = here
    with st.container(height=560, border=True):
        st.radio(
            "Hands in the list",
            range(len(items)),
            format_func=lambda i: ui.md(items[i][3]),
            key="rp_list_pick",
            on_change=_picked,
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
