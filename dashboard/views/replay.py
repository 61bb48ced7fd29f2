"""Hand replay: one hand trick by trick — all four holdings, the lead's reading, who won and why,
the running score and the findings in place. Deep link: `?hand=ID&source=SRC&trick=N`."""

from __future__ import annotations

from collections import Counter

import altair as alt
import polars as pl
import streamlit as st

from analytics import handview
from dashboard import db, sidebar, ui
from shengji.cards import parse_cards

ROLE_MARK = {"banker": "banker", "banker_partner": "banker's partner", "attacker": "attacker"}
KIND_LABEL = {
    "lead": "lead",
    "follow": "followed",
    "ruff": "trumped",
    "discard": "discarded",
    "short": "short of the suit",
}

st.title("Hand replay")
ui.css()
k = db.require()
f = sidebar.current()
qp = st.query_params


def _linked_trick(text: str | None) -> int:
    """The link's `trick=N`: a whole number from 1 (the stepper clamps it to the hand's tricks
    later); anything else opens trick 1 with a note."""
    if text is None or text.strip() == "":
        return 1
    if text.strip().isascii() and text.strip().isdigit() and len(text.strip()) <= 4:
        return max(1, int(text))
    st.warning(f"The link's trick {ui.md(text[:40])} is not a trick number; showing trick 1.")
    return 1


# --- pick a hand: a deep link wins, else the picker over the filtered hands --------------------
linked: tuple[str, str] | None = None
if qp.get("hand"):
    con = db.connection(k)
    try:
        linked = handview.find_hand(con, qp["hand"], qp.get("source"))
    finally:
        con.close()
    if linked is None:
        st.warning(f"No hand {ui.md(qp['hand'][:80])} in the database; pick one below.")

search = st.text_input(
    "Find a hand", key="rp_search", placeholder="hand id, match or player", max_chars=80
)
hands = db.query("handview.hand_list", k, f, search.strip())
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
    st.session_state["rp_trick"] = _linked_trick(qp.get("trick"))


def _new_hand() -> None:
    st.session_state["rp_trick"] = 1


choice = st.selectbox(
    "Hand",
    options,
    format_func=lambda key: labels.get(key, str(key)),
    key="rp_hand",
    on_change=_new_hand,
)
if choice is None:
    st.stop()
source, hand_id = choice
con = db.connection(k)
try:
    data = handview.load_hand(con, source, hand_id)
finally:
    con.close()
if data is None:
    ui.empty("hand with that id")
    st.stop()
h = data.hand
ctx = ui.trump_context(h["trump"], h["level"])
players = {r["seat"]: r for r in data.seats.iter_rows(named=True)}


@st.cache_data(show_spinner=False, max_entries=64)
def _reasons(file: str | None, line: int | None, hand_id: str) -> dict[int, str] | None:
    return handview.replay_reasons(file, line, hand_id)


# --- the hand's header -----------------------------------------------------------------------
trump_text = ui.trump_label(h["trump"])
outcome = ""
if h["banker_won"] is not None:
    who = "banker team" if h["banker_won"] else "attackers"
    outcome = f" · {who} +{h['level_up']}"
st.markdown(
    f"<div><b>{ui.esc(hand_id)}</b> ({ui.esc(source)}) · {ui.esc(h['played_at'] or 'undated')} "
    f"· match {ui.esc(h['match_id'] or '—')} #{ui.esc(h['hand_no'] or '—')} · trump {trump_text} "
    f"· level {ui.esc(h['level'] or '—')} ({ui.esc(h['trump_source'] or '—')}) · status "
    f"<b>{ui.esc(h['status'])}</b> · attackers "
    f"{ui.esc(h['attackers_points'] if h['attackers_points'] is not None else '—')} "
    f"points{ui.esc(outcome)}</div>",
    unsafe_allow_html=True,
)
for r in data.findings.filter(pl.col("trick").is_null()).iter_rows(named=True):
    st.warning(f"{ui.md(r['code'])}: {ui.md(r['reason'])}", icon=":material/report:")

n_tricks = data.tricks.height
if not n_tricks:
    st.info("This hand has no tricks to show (it stopped before play).")
    st.stop()

# --- the trick stepper (buttons move the slider through its session state) -------------------
if "rp_trick" not in st.session_state or not 1 <= st.session_state["rp_trick"] <= n_tricks:
    st.session_state["rp_trick"] = 1


def _step(delta: int) -> None:
    st.session_state["rp_trick"] = min(n_tricks, max(1, st.session_state["rp_trick"] + delta))


nav = st.columns([1, 1, 8])
nav[0].button("◀ prev", key="rp_prev", on_click=_step, args=(-1,), width="stretch")
nav[1].button("next ▶", key="rp_next", on_click=_step, args=(1,), width="stretch")
with nav[2]:
    t = st.slider("Trick", 1, n_tricks, key="rp_trick")
qp.update({"hand": hand_id, "source": source, "trick": str(t)})

trick = data.tricks.filter(pl.col("trick") == t).row(0, named=True)
plays = data.plays.filter(pl.col("trick") == t).to_dicts()
before = handview.holdings_before(data, t)

# --- four holdings, the cards of this trick shown faded in place -----------------------------
st.subheader(f"Trick {t} of {n_tricks}")
seat_cols = st.columns(4)
played_now = {p["seat"]: Counter(parse_cards(p["cards"])) for p in plays}
for seat, col in zip(range(4), seat_cols, strict=True):
    row = players.get(seat, {})
    with col:
        mark = " · won the trick" if seat == trick["winner"] else ""
        st.markdown(
            f"<div><b>Seat {seat} · {ui.esc(row.get('player', '?'))}</b>{mark}<br>"
            f"<small>{ROLE_MARK.get(row.get('role') or '', '')} · team {seat % 2}"
            f"{' · ' + ui.esc(row['style']) if row.get('style') else ''}</small></div>",
            unsafe_allow_html=True,
        )
        cards = list(before.get(seat, ()))
        if ctx is not None:
            cards.sort(key=ctx.sort_key, reverse=True)
        left = played_now.get(seat, Counter()).copy()
        chips = []
        for c in cards:
            gone = left[c] > 0
            if gone:
                left[c] -= 1
            chips.append(ui.card_span(c, ctx, gone=gone))
        st.markdown(
            f'<div class="cards">{"".join(chips)}</div><small>{len(cards)} cards</small>',
            unsafe_allow_html=True,
        )

# --- the trick: lead reading, plays, winner and why ------------------------------------------
lead_col, score_col = st.columns([3, 2])
with lead_col:
    suit = ui.SUIT_NAMES.get(trick["lead_suit"], trick["lead_suit"])
    st.markdown(
        f"<div><b>Lead</b> by seat {trick['leader']}: {ui.esc(trick['lead_shape'])} in "
        f"{ui.esc(suit)} — "
        + " | ".join(ui.cards_html(part, ctx) for part in str(trick["components"]).split(" | "))
        + "</div>",
        unsafe_allow_html=True,
    )
    if trick["throw"]:
        attempted = ui.cards_html(trick["throw_cards"], ctx)
        if trick["throw_failed"]:
            st.markdown(
                f"<div>❌ <b>Throw failed</b> (R4.3): tried {attempted}; seat {trick['blocker']} "
                f"held {ui.cards_html(trick['blocking_cards'], ctx)}, so only "
                f"{ui.cards_html(trick['forced_cards'], ctx)} was played (R4.4).</div>",
                unsafe_allow_html=True,
            )
        else:
            st.markdown(
                f"<div>✅ <b>Throw stood</b> (R4.3): {attempted} — nobody could beat a "
                "component.</div>",
                unsafe_allow_html=True,
            )
    lines = []
    for p in plays:
        seat = p["seat"]
        flag = "" if p["legal"] else " ⚠️ illegal"
        win = ' class="won"' if seat == trick["winner"] else ""
        lines.append(
            f"<tr><td>{p['position']}</td>"
            f"<td>seat {seat} · {ui.esc(players.get(seat, {}).get('player', '?'))}</td>"
            f"<td><span{win}>{ui.cards_html(p['cards'], ctx)}</span></td>"
            f"<td>{ui.esc(KIND_LABEL.get(p['kind'], p['kind']))}{flag}</td></tr>"
        )
    st.markdown(
        '<table style="width:100%"><tr><th>#</th><th>seat</th><th>cards</th><th>play</th></tr>'
        + "".join(lines)
        + "</table>",
        unsafe_allow_html=True,
    )
    # The replay's reason as stored; else the source file replayed again; else composed.
    reason = trick.get("reason")
    if not reason:
        reason = (_reasons(h["file"], h["line"], hand_id) or {}).get(t)
    composed = not reason
    if not reason:
        reason = handview.composed_reason(trick, plays)
    side = (
        "attackers"
        if h["banker"] is not None and trick["winner"] % 2 != h["banker"] % 2
        else "banker team"
    )
    st.markdown(
        f"**Won by seat {trick['winner']}** ({side}), {trick['points']} points — {ui.md(reason)}"
    )
    if composed:
        st.caption(
            "Reason composed from the stored plays (the store has none and the source file is "
            "not readable)."
        )
    for r in data.findings.filter(pl.col("trick") == t).iter_rows(named=True):
        st.warning(
            f"{ui.md(r['code'])} · seat {r['seat'] if r['seat'] is not None else '—'}: "
            f"{ui.md(r['reason'])}",
            icon=":material/report:",
        )

with score_col:
    running = data.tricks.select("trick", "attackers_total", "points", "winner_team")
    st.metric(
        "Attackers' points after this trick",
        trick["attackers_total"],
        delta=trick["points"]
        if h["banker"] is not None and trick["winner"] % 2 != h["banker"] % 2
        else None,
    )
    base = alt.Chart(running).encode(x=alt.X("trick:Q", title="trick"))
    line = base.mark_line(interpolate="step-after", color="#D55E00").encode(
        y=alt.Y("attackers_total:Q", title="attackers' points"),
        tooltip=["trick:Q", "attackers_total:Q", "points:Q"],
    )
    now = (
        alt.Chart(pl.DataFrame({"trick": [t]}))
        .mark_rule(color="#555", strokeDash=[4, 3])
        .encode(x="trick:Q")
    )
    ui.chart(
        alt.layer(line, now).properties(
            title=alt.TitleParams(
                "Running score",
                subtitle=[f"attackers' total after each trick · 1 hand, {n_tricks} tricks"],
                anchor="start",
            ),
            height=220,
        ),
        key="rp_score",
    )

# --- the end of the hand: the bottom and the outcome ------------------------------------------
if t == n_tricks and h["bottom_captured"] is not None:
    banker_seat = players.get(h["banker"], {}) if h["banker"] is not None else {}
    buried = ""
    if banker_seat.get("cards_before_bury") and banker_seat.get("cards_start"):
        rest = Counter(parse_cards(banker_seat["cards_before_bury"]))
        rest.subtract(parse_cards(banker_seat["cards_start"]))
        if not data.bids.filter(pl.col("kind") == "fry").height:
            buried = ui.cards_html(list(rest.elements()), ctx)
    if h["bottom_captured"]:
        st.success(
            f"Bottom captured by seat {h['bottom_winner']}: {h['bottom_points']} points × "
            f"{h['bottom_multiplier']} = {h['bottom_added']} (R7.2, last lead "
            f"{ui.md(h['last_lead_shape'])}).",
            icon=":material/savings:",
        )
    else:
        st.info(
            f"The banker team kept the bottom ({h['bottom_points']} points, R7.2).",
            icon=":material/lock:",
        )
    if buried:
        st.markdown(f"<div>Buried: {buried}</div>", unsafe_allow_html=True)
