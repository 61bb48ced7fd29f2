"""Hand replay: one hand at the table, play by play — four seats, the trick in the middle, the
deal, the running score, a card tracker and a timeline of key moments (dashboard/replayer.py).

Deep link: `?hand=ID&source=SRC&trick=N&play=P` (`play` counts the plays shown in trick N; without
it the trick opens complete). The component keeps `trick` and `play` in the URL as you step.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from analytics import handview
from dashboard import db, review_panel, sidebar, ui
from dashboard.replayer import replayer

PICKER_LIMIT = 200

st.title("Hand replay")
k = db.require()
f = sidebar.current()
qp = st.query_params


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


# --- pick a hand: a deep link wins, else the picker over the filtered hands --------------------
linked: tuple[str, str] | None = None
if qp.get("hand"):
    con = db.connection(k)
    try:
        linked = handview.find_hand(con, qp["hand"], qp.get("source"))
    finally:
        con.close()
    if linked is None:
        st.warning("No hand with the id in the link is in the database; pick one below.")
        st.code(qp["hand"], language=None)

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
if linked is not None and st.session_state.get("rp_linked") != linked:
    # A new deep link selects its hand once; afterwards the picker is the user's.
    st.session_state["rp_linked"] = linked
    st.session_state["rp_hand"] = linked


def _new_hand() -> None:
    # A hand picked by hand opens at its deal, whatever the URL said about the last one.
    for name in ("trick", "play"):
        if name in st.query_params:
            del st.query_params[name]


with top[1]:
    shown = f"the newest {len(hands):,} of {total:,}" if total > len(hands) else f"all {total:,}"
    choice = st.selectbox(
        "Hand",
        options,
        format_func=lambda key: labels.get(key, str(key)),
        key="rp_hand",
        on_change=_new_hand,
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
    return handview.replay_payload(data, reasons, decisions)


payload = _payload(k, source, hand_id)
if payload is None:
    ui.empty("hand with that id")
    st.stop()
if qp.get("hand") != hand_id or qp.get("source") != source:
    qp.update({"hand": hand_id, "source": source})

# The component reports its position, and the page echoes it into the URL. That echo must not
# become a new start: a changed `data` would remount the component (and stop an autoplay).
url_pos = (qp.get("trick"), qp.get("play"))
reported = (st.session_state.get("rp_table") or {}).get("position") or {}
echo = reported.get("hand") == hand_id and url_pos == (
    str(reported.get("trick")),
    str(reported.get("play")),
)
if not echo or st.session_state.get("rp_start_for") != (source, hand_id):
    st.session_state["rp_start"] = handview.start_position(
        payload, _int(qp.get("trick")), _int(qp.get("play"))
    )
    st.session_state["rp_start_for"] = (source, hand_id)
start = st.session_state["rp_start"]
if start["note"]:
    st.caption(f"The link asked for {start['note']}; showing its last trick.")
if not payload["tricks"] and not payload["fault"]:
    st.info("This hand has no tricks to show (it stopped before play).")


def _moved() -> None:
    """The component's position reached Python: keep the URL's trick and play in step."""
    pos = (st.session_state.get("rp_table") or {}).get("position")
    if isinstance(pos, dict) and pos.get("hand") == hand_id:
        st.query_params.update({"trick": str(pos["trick"]), "play": str(pos["play"])})


replayer(payload, start, key="rp_table", on_change=_moved)

# The review's verdicts on the trick shown (docs/review.md): severity, cost and the better play.
shown = (st.session_state.get("rp_table") or {}).get("position") or {}
shown_trick = _int(str(shown.get("trick"))) if shown.get("hand") == hand_id else None
if payload["tricks"]:
    review_panel.trick_review(k, source, hand_id, shown_trick or max(1, int(start["trick"])))
