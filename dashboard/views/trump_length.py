"""Trump length: trumps held at the start of play against how the hand went."""

from __future__ import annotations

import streamlit as st

from analytics import charts, trump_length
from dashboard import db, sidebar, ui

st.title("Trump length")
st.caption(
    "Trumps each seat held when play began — the banker's after the bury (and any fry). Points "
    "are binned trump counts; bars and bands are 95% intervals, so thin bins show their doubt."
)
k = db.require()
f = sidebar.current()
decks_available = db.query("trump_length.decks_in_scope", k, f)
if not decks_available:
    ui.empty("replayed hands")
    st.stop()
decks = decks_available[-1]
if len(decks_available) > 1:
    ui.from_url("decks", "tl_decks", decks_available, decks_available[-1])
    decks = st.radio(
        "Deck count",
        decks_available,
        horizontal=True,
        key="tl_decks",
        help="Two- and four-deck hands hold very different trump counts; look at one at a time.",
    )
    ui.to_url("decks", "tl_decks", decks, decks_available[-1])
ui.from_url("trump", "tl_kind", list(trump_length.KINDS), "suit")
kind = (
    st.segmented_control(
        "Trump",
        list(trump_length.KINDS),
        key="tl_kind",
        help="A no-trump hand's only trumps are jokers and level cards, about a third of a suit "
        "hand's: mixing the two would draw two populations as one curve.",
    )
    or "suit"
)
ui.to_url("trump", "tl_kind", kind, "suit")
ht = db.query("trump_length.hand_trumps", k, f, decks, kind)
n = int(ht["n"].sum()) if ht.height else 0
st.caption(f"{n:,} {decks}-deck hands with an outcome ({kind} trump).")
if not n:
    ui.empty(f"{kind}-trump hands")
    st.stop()

TEAM_RANGE = {"banker team": "banker team's trumps", "attackers": "attackers' trumps"}


# The hands this page draws: its deck count and kind of trump.
SCOPE = [f"decks={decks}"] + ([f"trump kind={kind}"] if kind != "all" else [])


def _bin(name: str, middle: float, width: int, event: str = "all") -> ui.Params:
    """The Hand finder on the hands of one bin (`middle` ± width/2) of a trump count."""
    lo = middle - width / 2
    return {"event": event, "range": f"{name}:{lo:g}:{lo + width:g}", "where": SCOPE}


def _seat_bin(middle: float, width: int, event: str, role: str | None = None) -> ui.Params:
    """The Hand finder on the hands with a seat (in `role`) whose own trumps fall in the bin
    (`middle` ± width/2), the event happening at that seat."""
    lo = middle - width / 2
    params: ui.Params = {"event": event, "srange": f"trumps:{lo:g}:{lo + width:g}", "where": SCOPE}
    if role:
        params["seat"] = f"role={role}"
    return params


team = trump_length.team_curves(ht)
ui.chart(
    ui.built(
        charts.series_rate_chart,
        team,
        "trumps",
        "team",
        title="Banker team's win rate against each team's trumps",
        counts="banker team held / hands, by the trumps the named team held (bins of 4)",
        hands=n,
        x_title="trumps held by the team (bin middle)",
        rate_title="banker team held",
    ),
    key="tl_team",
    drill=(["trumps", "team"], lambda v: _bin(TEAM_RANGE[v["team"]], v["trumps"], 4)),
)

left, right = st.columns(2)
with left:
    pts = trump_length.attackers_points(ht)
    ui.chart(
        ui.built(
            charts.mean_chart,
            pts,
            "trumps",
            "points",
            title="Attackers' points against trumps",
            counts="mean attackers' points, 95% interval of the mean",
            hands=n,
            x_title="trumps held by the team (bin middle)",
            y_title="attackers' points",
            series="team",
        ),
        key="tl_points",
        drill=(["trumps", "team"], lambda v: _bin(TEAM_RANGE[v["team"]], v["trumps"], 4)),
    )
    banker = trump_length.banker_curve(ht)
    ui.chart(
        ui.built(
            charts.rate_chart,
            banker,
            "trumps",
            title="Banker team's win rate against the banker's own trumps",
            counts="banker team held / hands, by the banker's trumps after the bury (bins of 2)",
            hands=n,
            x_title="banker's trumps (bin middle)",
            rate_title="banker team held",
            colour=charts.BANKER_COLOUR,
        ),
        key="tl_banker",
        drill=(["trumps"], lambda v: _bin("banker's trumps", v["trumps"], 2)),
    )
with right:
    cap = trump_length.capture_curve(ht)
    ui.chart(
        ui.built(
            charts.rate_chart,
            cap,
            "trumps",
            title="Bottom capture against the attackers' trumps",
            counts="captures / completed hands (bins of 4)",
            hands=int(cap["n"].sum()) if cap.height else 0,
            x_title="attackers' trumps (bin middle)",
            rate_title="capture rate",
            colour=charts.ATTACKER_COLOUR,
        ),
        key="tl_capture",
        drill=(["trumps"], lambda v: _bin("attackers' trumps", v["trumps"], 4, "capture")),
    )
    thr = db.query("trump_length.throw_curve", k, f, decks, kind)
    ui.chart(
        ui.built(
            charts.rate_chart,
            thr,
            "trumps",
            title="Throws that stood against the thrower's trumps",
            counts="throws that stood / throws attempted (bins of 2)",
            hands=n,
            x_title="thrower's trumps at the start (bin middle)",
            rate_title="throws that stood",
        ),
        key="tl_throws",
        drill=(["trumps"], lambda v: _seat_bin(float(v["trumps"]), 2, "throw")),
    )

dist = db.query("trump_length.seat_distribution", k, f, decks, kind)
if dist.height:
    ui.chart(
        ui.built(
            charts.histogram,
            dist,
            "trumps",
            1,
            title="Trumps at the start of play, by role",
            counts="seats, stacked by role",
            hands=n,
            x_title="trumps",
            y_title="seats",
            colour="role",
        ),
        key="tl_dist",
        drill=(
            ["trumps", "role"],
            lambda v: _seat_bin(float(v["trumps"]) + 0.5, 1, "all", str(v["role"])),
        ),
    )
