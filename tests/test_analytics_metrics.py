"""Every analytics metric against a small hand-built store whose right answers are worked out here,
independently of the SQL: by hand for the few hands, by plain Python loops over the same rows for
the per-player and per-bin figures, and with `shengji.scoring.level_change` for R7.3."""

from __future__ import annotations

import datetime as dt
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from analytics_testdb import connect, insert

from analytics import bottom, coverage, explorer, overview, players, throws, trump_length
from analytics.cli import main
from analytics.filters import Filters
from analytics.query import level_outcome_code, level_outcome_sql, outcome_label
from analytics.stats import wilson
from shengji.rules import FOUR_DECK, TWO_DECK, RuleSet
from shengji.scoring import level_change

DAY = dt.datetime(2026, 11, 1, 20, 0)


def _hand(hand_id: str, **kw: Any) -> dict[str, Any]:
    row = {"source": "club", "hand_id": hand_id, "played_at": DAY, "level": "5", "trump": "S"}
    row.update(kw)
    return row


# Five replayed hands, one rejected, one abandoned. Bottom: (trick points, bottom, multiplier).
HANDS = [
    # captured with a pair: 150 + 20×4 = 230 → attackers take over; without: 150 → banker +1.
    _hand(
        "h1",
        banker=0,
        bottom_captured=True,
        bottom_winner=1,
        trick_points=150,
        bottom_points=20,
        bottom_multiplier=4,
        bottom_added=80,
        attackers_points=230,
        last_lead_shape="pair",
        banker_won=False,
        level_up_team=1,
        level_up=0,
    ),
    # captured with a single: 170 + 10×2 = 190; attackers +0 either way.
    _hand(
        "h2",
        banker=1,
        bottom_captured=True,
        bottom_winner=0,
        trick_points=170,
        bottom_points=10,
        bottom_multiplier=2,
        bottom_added=20,
        attackers_points=190,
        last_lead_shape="single",
        banker_won=False,
        level_up_team=0,
        level_up=0,
    ),
    # kept by the banker team: 60 → banker +2.
    _hand(
        "h3",
        banker=2,
        level="7",
        bottom_captured=False,
        bottom_winner=2,
        trick_points=60,
        bottom_points=25,
        bottom_multiplier=1,
        bottom_added=0,
        attackers_points=60,
        last_lead_shape="single",
        banker_won=True,
        level_up_team=0,
        level_up=2,
    ),
    # captured with a tractor: 250 + 30×16 = 730 → attackers +7; without: 250 → attackers +1.
    _hand(
        "h4",
        banker=3,
        level="7",
        bottom_captured=True,
        bottom_winner=0,
        trick_points=250,
        bottom_points=30,
        bottom_multiplier=16,
        bottom_added=480,
        attackers_points=730,
        last_lead_shape="tractor<2-2>",
        banker_won=False,
        level_up_team=0,
        level_up=7,
    ),
    # flagged, another source, later: a shut-out, banker +3.
    _hand(
        "h5",
        source="night",
        status="flagged",
        n_findings=2,
        played_at=dt.datetime(2026, 12, 15, 21, 0),
        level="A",
        banker=0,
        bottom_captured=False,
        bottom_winner=2,
        trick_points=0,
        bottom_points=0,
        bottom_multiplier=1,
        bottom_added=0,
        attackers_points=0,
        last_lead_shape="single",
        banker_won=True,
        level_up_team=0,
        level_up=3,
    ),
    # rejected: never counts in the replayed figures.
    _hand("h6", status="rejected", banker=0, n_findings=1),
    # abandoned: no last trick, so no bottom opportunity; its outcome is what was played.
    _hand(
        "h7",
        end_state="abandoned",
        banker=1,
        bottom_captured=None,
        trick_points=40,
        attackers_points=40,
        banker_won=True,
        level_up_team=1,
        level_up=2,
    ),
]

PLAYERS = {
    "h1": ("ann", "bo", "cy", "di"),
    "h2": ("bo", "ann", "di", "cy"),
    "h3": ("ann", "cy", "bo", "ed"),
    "h4": ("di", "ed", "ann", "bo"),
    "h5": ("ann", "bo", "cy", "di"),
    "h6": ("ann", "bo", "cy", "di"),
    "h7": ("cy", "di", "ed", "ann"),
}
for h in HANDS:
    for seat, name in enumerate(PLAYERS[h["hand_id"]]):
        h[f"player{seat}"] = name


STYLES = {"club": {"ann": "careful", "bo": "careful", "di": "novice"}, "night": {"bo": "bold"}}
"""Stored bot styles by source and player (NULL for the others). `bo` is a bold bot in the
simulator's roster: stored as careful at `club`, so a style from the roster would show."""


def _role(seat: int, banker: int) -> str:
    if seat == banker:
        return "banker"
    return "banker_partner" if seat % 2 == banker % 2 else "attacker"


def _seats() -> list[dict[str, Any]]:
    rows = []
    for i, h in enumerate(HANDS):
        if h.get("status") == "rejected":
            continue
        for seat, name in enumerate(PLAYERS[h["hand_id"]]):
            rows.append(
                {
                    "source": h["source"],
                    "hand_id": h["hand_id"],
                    "seat": seat,
                    "player": name,
                    "style": STYLES[h["source"]].get(name),
                    "role": _role(seat, h["banker"]),
                    # Varied but deterministic per-seat figures.
                    "trumps_start": 10 + (3 * seat + 5 * i) % 14,
                    "points_won": (seat * 25 + i * 10) % 60,
                    "tricks_won": 5 + seat,
                    "tricks_led": 6 + (seat + i) % 4,
                    "throws_attempted": (seat + i) % 3,
                    "throws_failed": 1 if (seat + i) % 3 == 2 else 0,
                    "ruffs": seat % 2,
                    "ladder_points": 3 if seat % 2 == (h.get("level_up_team") or 0) else -1,
                    "n_findings": 1 if h["hand_id"] == "h5" and seat == 1 else 0,
                }
            )
    return rows


SEATS = _seats()

# Throws: (hand, trick, leader, cards, lead suit, failed, points, winner, stored reading).
THROW_ROWS = [
    ("h1", 3, 0, "AS AS KS", "S", False, 10, 0, (2, "pair+single")),
    ("h1", 7, 1, "QH QH JH TH", "H", True, 20, 2, (3, "pair+single+single")),
    ("h2", 4, 1, "AC KC KC", "C", True, 15, 0, (2, "pair+single")),
    ("h3", 2, 3, "9D 9D 8D 8D 3D", "D", False, 0, 3, (2, "tractor<2-2>+single")),
    ("h4", 5, 0, "BJ SJ", "trump", True, 25, 1, (2, "single+single")),
    ("h5", 9, 2, "KH QH", "H", False, 10, 2, (None, None)),  # as if the store could not read it
    ("h6", 1, 0, "AS KS", "S", True, 10, 1, (2, "single+single")),  # rejected hand: never counts
]


def _tricks() -> list[dict[str, Any]]:
    rows = []
    for hand_id, trick, leader, cards, suit, failed, points, winner, read in THROW_ROWS:
        source = "night" if hand_id == "h5" else "club"
        rows.append(
            {
                "source": source,
                "hand_id": hand_id,
                "trick": trick,
                "leader": leader,
                "lead_suit": suit,
                "lead_shape": "single" if failed else "throw",
                "throw": True,
                "throw_failed": failed,
                "throw_cards": cards,
                "throw_components": read[0],
                "throw_shape": read[1],
                "winner": winner,
                "points": points,
            }
        )
    # A plain lead: not a throw.
    rows.append({"source": "club", "hand_id": "h1", "trick": 1, "leader": 0, "winner": 1})
    return rows


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = Path(tmp_path_factory.mktemp("metrics")) / "m.duckdb"
    w = connect(path)
    insert(w, "hands", HANDS)
    insert(w, "seats", SEATS)
    insert(w, "tricks", _tricks())
    insert(
        w,
        "findings",
        [
            {
                "source": "night",
                "hand_id": "h5",
                "finding_no": 1,
                "code": "illegal-follow",
                "seat": 1,
                "trick": 4,
            },
            {"source": "night", "hand_id": "h5", "finding_no": 2, "code": "score-mismatch"},
            {"source": "club", "hand_id": "h6", "finding_no": 1, "code": "card-not-held"},
        ],
    )
    insert(
        w,
        "rejects",
        [
            {
                "file": "/x.jsonl",
                "line": 6,
                "source": "club",
                "hand_id": "h6",
                "code": "card-not-held",
            },
            {"file": "/x.jsonl", "line": 9, "code": "bad-json"},
        ],
    )
    w.close()
    return path


@pytest.fixture(scope="module")
def con(db_path: Path) -> duckdb.DuckDBPyConnection:
    c = duckdb.connect(str(db_path), read_only=True)
    yield c
    c.close()


def _replayed() -> list[dict[str, Any]]:
    return [h for h in HANDS if h.get("status", "ok") != "rejected"]


# --- R7.3 in SQL is the rules core's R7.3 ---------------------------------------------------------


@pytest.mark.parametrize("rules", [FOUR_DECK, TWO_DECK], ids=["step80", "step40"])
def test_level_outcome_sql_matches_scoring(rules: RuleSet) -> None:
    totals = list(range(-400, 900, 5))
    c = duckdb.connect()
    got = c.sql(
        f"SELECT t, {level_outcome_sql('t', str(rules.level_step))} AS o "
        "FROM unnest($ts) AS u(t) ORDER BY t",
        params={"ts": totals},
    ).fetchall()
    for t, label in got:
        o = level_change(t, rules)
        assert label == f"{o.winner} +{o.levels}", t


@pytest.mark.parametrize("rules", [FOUR_DECK, TWO_DECK], ids=["step80", "step40"])
def test_level_outcome_codes_are_the_labels(rules: RuleSet) -> None:
    """The integer codes the bottom-capture queries compare stand for the same outcomes, and
    `outcome_label` gives back the label."""
    step = str(rules.level_step)
    code = level_outcome_code("t", step)
    got = (
        duckdb.connect()
        .sql(
            f"SELECT t, {code} AS c, {outcome_label(code)} AS back, {level_outcome_sql('t', step)} "
            "FROM unnest($ts) AS u(t) ORDER BY t",
            params={"ts": list(range(-400, 900, 5))},
        )
        .fetchall()
    )
    for t, c, back, label in got:
        assert back == label, t
        o = level_change(t, rules)
        assert c == (o.levels if o.winner == "attackers" else -o.levels), t


# --- bottom capture (R7.2) -------------------------------------------------------------------


def test_bottom_summary(con: duckdb.DuckDBPyConnection) -> None:
    s = bottom.summary(con, Filters())
    assert (s["n"], s["hits"]) == (5, 3)  # h7 abandoned, h6 rejected: not opportunities
    assert s["mean_bottom_points"] == pytest.approx((20 + 10 + 25 + 30 + 0) / 5)
    captured = [h["bottom_points"] for h in _replayed() if h.get("bottom_captured")]
    assert s["mean_captured_points"] == pytest.approx(sum(captured) / len(captured))
    assert s["mean_added"] == pytest.approx((80 + 20 + 480) / 3)
    assert s["total_added"] == 580
    # Independently: which captures change R7.3's outcome, and which turn the hand.
    changed = flipped = 0
    for h in _replayed():
        if not h.get("bottom_captured"):
            continue
        with_b = level_change(h["attackers_points"], FOUR_DECK)
        without = level_change(h["trick_points"], FOUR_DECK)
        changed += (with_b.winner, with_b.levels) != (without.winner, without.levels)
        flipped += with_b.winner == "attackers" and without.winner == "banker"
    assert (s["changed"], s["flipped"]) == (changed, flipped) == (2, 1)
    assert (s["lo"], s["hi"]) == pytest.approx(wilson(3, 5))


def test_bottom_filters(con: duckdb.DuckDBPyConnection) -> None:
    assert bottom.summary(con, Filters(include_flagged=False))["n"] == 4
    assert (bottom.summary(con, Filters(levels=("7",)))["n"], 2) == (2, 2)
    assert bottom.summary(con, Filters(levels=("7",)))["hits"] == 1
    assert bottom.summary(con, Filters(date_to=dt.date(2026, 11, 30)))["n"] == 4
    assert bottom.summary(con, Filters(date_from=dt.date(2026, 12, 15)))["n"] == 1
    assert bottom.summary(con, Filters(sources=("night",)))["n"] == 1
    # Player and role narrow the hands: ed attacked in h3 and partnered the banker in h4.
    assert bottom.summary(con, Filters(players=("ed",)))["n"] == 2
    assert bottom.summary(con, Filters(players=("ed",), role="attacker"))["n"] == 1
    assert bottom.summary(con, Filters(players=("ed",), role="banker_partner"))["n"] == 1
    assert bottom.summary(con, Filters(players=("ed",), role="banker"))["n"] == 0
    assert bottom.summary(con, Filters(players=("ann",), role="banker"))["n"] == 3  # h1 h2 h5
    assert bottom.summary(con, Filters(players=("ann", "ed"), role="banker_team"))["n"] == 5


def test_capture_by_banker_seat_and_lead(con: duckdb.DuckDBPyConnection) -> None:
    by = bottom.capture_by(con, Filters(), "banker seat")
    got = {r["value"]: (r["hits"], r["n"]) for r in by.iter_rows(named=True)}
    assert got == {"0": (1, 2), "1": (1, 1), "2": (0, 1), "3": (1, 1)}
    by = bottom.capture_by(con, Filters(), "level played")
    assert by["value"].to_list() == ["5", "7", "A"]  # rank order, not text order
    mult = bottom.by_multiplier(con, Filters())
    assert mult.select("lead", "multiplier", "n").rows() == [
        ("single", 2, 1),
        ("pair", 4, 1),
        ("tractor<2-2>", 16, 1),
    ]
    changes = bottom.outcome_changes(con, Filters())
    assert set(changes.rows()) == {
        ("banker +1", "attackers +0", 1),
        ("attackers +0", "attackers +0", 1),
        ("attackers +1", "attackers +7", 1),
    }


def test_capture_by_player(con: duckdb.DuckDBPyConnection) -> None:
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for h in _replayed():
        if h.get("end_state", "complete") != "complete" or h.get("bottom_captured") is None:
            continue
        for seat, name in enumerate(PLAYERS[h["hand_id"]]):
            if seat % 2 != h["banker"] % 2:
                expected[name][1] += 1
                expected[name][0] += bool(h["bottom_captured"])
                expected[name][2] += bool(h["bottom_captured"]) and h["bottom_winner"] == seat
    got = {
        r["player"]: [r["hits"], r["n"], r["own"]]
        for r in bottom.by_player(con, Filters()).iter_rows(named=True)
    }
    assert got == dict(expected)


# --- throws (R4) ------------------------------------------------------------------------------


def test_read_throw_is_the_rules_core_reading() -> None:
    for _h, _t, _l, cards, _s, _f, _p, _w, read in THROW_ROWS:
        level = "A" if _h == "h5" else "5"
        if read[0] is not None:
            assert throws.read_throw(cards, "S", level, "four-deck", "{}") == read, cards
    assert throws.read_throw("KH QH", "S", "A", "four-deck", "{}") == (2, "single+single")
    assert throws.read_throw("AS KH", "S", "5", "four-deck", "{}") == (None, None)  # two suits
    assert throws.read_throw("AS KS", None, "5", "four-deck", "{}") == (None, None)  # type: ignore[arg-type]


def test_throw_summary_and_cost(con: duckdb.DuckDBPyConnection) -> None:
    s = throws.summary(con, Filters())
    assert (s["hits"], s["n"], s["hands"]) == (3, 6, 5)  # the rejected hand's throw never counts
    # Conceded: points of failed tricks the other team won. h1:7 leader 1 → winner 2 (other
    # team, 20); h2:4 leader 1 → winner 0 (other, 15); h4:5 leader 0 → winner 1 (other, 25).
    assert s["points_conceded"] == 60
    assert s["conceded_per_failure"] == pytest.approx(20.0)
    assert s["conceded_per_success"] == pytest.approx(0.0)  # every throw that stood won its trick
    assert s["penalty_points"] == 0 and s["ladder_points_lost"] == 3
    assert (s["lo"], s["hi"]) == pytest.approx(wilson(3, 6))
    cost = {r["outcome"]: r for r in throws.cost(con, Filters()).iter_rows(named=True)}
    assert (cost["failed"]["n"], cost["stood"]["n"]) == (3, 3)
    assert cost["failed"]["points"] == pytest.approx(20.0)
    # Narrowed to one thrower: ann led h1:3 (stood) and h2:4 (failed), banker both times.
    s = throws.summary(con, Filters(players=("ann",)))
    assert (s["hits"], s["n"]) == (1, 2)
    assert throws.summary(con, Filters(players=("ann",), role="banker"))["n"] == 2
    assert throws.summary(con, Filters(players=("ann",), role="attacker"))["n"] == 0


def test_throw_failure_by_dimension(con: duckdb.DuckDBPyConnection) -> None:
    def by(dim: str) -> dict[object, tuple[int, int]]:
        return {
            r["value"]: (r["hits"], r["n"])
            for r in throws.failure_by(con, Filters(), dim).iter_rows(named=True)
        }

    assert by("suit") == {"side suit": (2, 5), "trump": (1, 1)}
    assert by("components") == {2: (2, 4), 3: (1, 1)}  # the unread throw has no count
    assert by("shape") == {
        "pair+single": (1, 2),
        "pair+single+single": (1, 1),
        "tractor<2-2>+single": (0, 1),
        "single+single": (1, 1),
        "unread": (0, 1),
    }
    assert by("cards thrown") == {2: (1, 2), 3: (1, 2), 4: (1, 1), 5: (0, 1)}
    # Player of the leader seat.
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for hand_id, _t, leader, _c, _s, failed, _p, _w, _r in THROW_ROWS:
        if hand_id == "h6":
            continue
        name = PLAYERS[hand_id][leader]
        expected[name][1] += 1
        expected[name][0] += failed
    assert {k: list(v) for k, v in by("player").items()} == dict(expected)
    # The thrower's stored style: bo's failed throw in h1 counts as careful (the roster says
    # bold); ed and cy have none.
    assert by("bot style") == {"careful": (2, 3), "novice": (1, 1), "unknown": (0, 2)}
    trick_bins = throws.failure_by(con, Filters(), "trick number")
    assert trick_bins["value"].to_list() == [1, 6]  # tricks 2–5 and 7–9 in bins of five
    assert trick_bins["n"].to_list() == [4, 2]
    pooled = throws.failure_by(con, Filters(), "shape", top=2)
    assert pooled["value"].to_list()[-1] == "other"
    assert int(pooled["n"].sum()) == 6


def test_throw_rate_by_player(con: duckdb.DuckDBPyConnection) -> None:
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for s in SEATS:
        e = expected[s["player"]]
        e[0] += s["throws_attempted"]
        e[1] += s["tricks_led"]
        e[2] += s["throws_failed"]
    per = throws.throw_rate_by_player(con, Filters())
    got = {r["player"]: [r["attempted"], r["led"], r["failed"]] for r in per.iter_rows(named=True)}
    assert got == dict(expected)
    # Each player's stored styles, every one the player's seats had; none is `unknown`.
    assert dict(per.select("player", "style").rows()) == {
        "ann": "careful",
        "bo": "bold, careful",
        "cy": "unknown",
        "di": "novice",
        "ed": "unknown",
    }


def test_bot_style_is_the_stored_column(con: duckdb.DuckDBPyConnection) -> None:
    """Per-seat sums grouped by the seat's stored style, not by a roster lookup of the name."""
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in SEATS:
        style = STYLES[row["source"]].get(row["player"]) or "unknown"
        expected[style][0] += row["throws_failed"]
        expected[style][1] += row["throws_attempted"]
    ex = explorer.explore(con, Filters(), "Throw failed", "bot style")
    assert {r["value"]: [r["hits"], r["n"]] for r in ex.iter_rows(named=True)} == {
        k: v for k, v in expected.items() if v[1]
    }
    assert "bold" in ex["value"].to_list()  # bo at `night` only
    ex = explorer.explore(con, Filters(players=("bo",)), "Ruffs per hand", "bot style")
    assert dict(ex.select("value", "n").rows()) == {"bold": 1, "careful": 4}  # h1–h4, h5


# --- trump length -----------------------------------------------------------------------------


def test_trump_length_team_curves(con: duckdb.DuckDBPyConnection) -> None:
    width = 4
    expected: dict[tuple[str, float], list[int]] = defaultdict(lambda: [0, 0])
    for h in _replayed():
        trumps = [s["trumps_start"] for s in SEATS if s["hand_id"] == h["hand_id"]]
        team = h["banker"] % 2
        mine = trumps[team] + trumps[team + 2]
        theirs = trumps[1 - team] + trumps[3 - team]
        for label, value in (("banker team", mine), ("attackers", theirs)):
            key = (label, (value // width) * width + width / 2)
            expected[key][1] += 1
            expected[key][0] += bool(h["banker_won"])
    got = {
        (r["team"], r["trumps"]): [r["hits"], r["n"]]
        for r in trump_length.team_curves(
            trump_length.hand_trumps(con, Filters()), width
        ).iter_rows(named=True)
    }
    assert got == dict(expected)
    # Attackers' points per bin, and the banker's own trumps (bins of 2) against holding.
    points: dict[tuple[str, float], list[int]] = defaultdict(list)
    own: dict[float, list[int]] = defaultdict(lambda: [0, 0])
    for h in _replayed():
        trumps = [s["trumps_start"] for s in SEATS if s["hand_id"] == h["hand_id"]]
        team = h["banker"] % 2
        for label, value in (
            ("banker team", trumps[team] + trumps[team + 2]),
            ("attackers", trumps[1 - team] + trumps[3 - team]),
        ):
            points[(label, (value // width) * width + width / 2)].append(h["attackers_points"])
        key = (trumps[h["banker"]] // 2) * 2 + 1.0
        own[key][0] += bool(h["banker_won"])
        own[key][1] += 1
    ht = trump_length.hand_trumps(con, Filters())
    got_points = {
        (r["team"], r["trumps"]): (r["points"], r["n"])
        for r in trump_length.attackers_points(ht, width).iter_rows(named=True)
    }
    assert got_points == {k: (pytest.approx(sum(v) / len(v)), len(v)) for k, v in points.items()}
    got_own = {
        r["trumps"]: [r["hits"], r["n"]]
        for r in trump_length.banker_curve(ht).iter_rows(named=True)
    }
    assert got_own == dict(own)
    assert trump_length.hands_in_scope(con, Filters()) == 6
    assert trump_length.hands_in_scope(con, Filters(), 4, "all") == 6
    assert trump_length.hands_in_scope(con, Filters(), 4, "no-trump") == 0
    assert (
        trump_length.team_curves(trump_length.hand_trumps(con, Filters(), 4, "no-trump")).height
        == 0
    )
    assert trump_length.decks_in_scope(con, Filters()) == [4]


def test_trump_length_throw_and_capture_curves(con: duckdb.DuckDBPyConnection) -> None:
    expected: dict[float, list[int]] = defaultdict(lambda: [0, 0])
    for s in SEATS:
        if s["throws_attempted"]:
            key = (s["trumps_start"] // 2) * 2 + 1.0
            expected[key][0] += s["throws_attempted"] - s["throws_failed"]
            expected[key][1] += s["throws_attempted"]
    got = {
        r["trumps"]: [r["hits"], r["n"]]
        for r in trump_length.throw_curve(con, Filters()).iter_rows(named=True)
    }
    assert got == dict(expected)
    ht = trump_length.hand_trumps(con, Filters())
    assert ht.height == 6
    cap = trump_length.capture_curve(ht)
    assert int(cap["n"].sum()) == 5 and int(cap["hits"].sum()) == 3


# --- players -----------------------------------------------------------------------------------


def test_player_table(con: duckdb.DuckDBPyConnection) -> None:
    by_hand = {h["hand_id"]: h for h in _replayed()}
    exp: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for s in SEATS:
        h = by_hand[s["hand_id"]]
        e = exp[s["player"]]
        e["hands"] += 1
        e["won_hits"] += h["level_up_team"] == s["seat"] % 2
        if s["role"] == "banker":
            e["banker_n"] += 1
            e["banker_hits"] += bool(h["banker_won"])
        if s["role"] == "attacker":
            e["attacker_n"] += 1
            e["attacker_hits"] += not h["banker_won"]
        if h["level_up_team"] == s["seat"] % 2:
            e["levels_gained"] += h["level_up"]
        e["fail_hits"] += s["throws_failed"]
        e["fail_n"] += s["throws_attempted"]
        e["finding_hits"] += s["n_findings"] > 0
    table = players.player_table(con, Filters())
    for r in table.iter_rows(named=True):
        e = exp[r["player"]]
        for col in (
            "hands",
            "won_hits",
            "banker_n",
            "banker_hits",
            "attacker_n",
            "attacker_hits",
            "levels_gained",
            "fail_hits",
            "fail_n",
            "finding_hits",
        ):
            assert r[col] == e[col], (r["player"], col)
    assert set(table["player"]) == set(exp)
    assert table["hands"].to_list() == sorted(table["hands"].to_list(), reverse=True)


def test_player_vs_field_and_trend(con: duckdb.DuckDBPyConnection) -> None:
    vs = players.vs_field(con, Filters(), "ann")
    won = {
        r["who"]: (r["hits"], r["n"])
        for r in vs.filter(vs["metric"] == "won the hand").iter_rows(named=True)
    }
    by_hand = {h["hand_id"]: h for h in _replayed()}
    mine = [s for s in SEATS if s["player"] == "ann"]
    rest = [s for s in SEATS if s["player"] != "ann"]

    def count(rows: list[dict[str, Any]]) -> tuple[int, int]:
        return (
            sum(by_hand[s["hand_id"]]["level_up_team"] == s["seat"] % 2 for s in rows),
            len(rows),
        )

    assert won == {"ann": count(mine), "field": count(rest)}
    z = vs.filter((vs["metric"] == "won the hand") & (vs["who"] == "ann"))["z"][0]
    assert z == pytest.approx(players.two_proportion_z(*count(mine), *count(rest)))
    trend = players.trend(con, Filters(), "ann", "month")
    assert set(trend["who"]) == {"ann", "field"}
    assert int(trend.filter(trend["who"] == "ann")["n"].sum()) == len(mine)
    assert players.two_proportion_z(1, 0, 1, 2) is None


# --- coverage and overview -----------------------------------------------------------------------


def test_coverage(con: duckdb.DuckDBPyConnection) -> None:
    status = coverage.by_status(con, Filters())
    totals = {}
    for s, n in status.select("status", "n").rows():
        totals[s] = totals.get(s, 0) + n
    assert totals == {"ok": 5, "flagged": 1, "rejected": 1}
    codes = dict(coverage.findings_by_code(con, Filters()).select("code", "n").rows())
    assert codes == {"illegal-follow": 1, "score-mismatch": 1, "card-not-held": 1}
    assert coverage.totals(con, Filters())["rejected_lines"] == 2
    assert coverage.totals(con, Filters(sources=("night",)))["rejected_lines"] == 0
    found = coverage.findings(con, Filters(), "illegal-follow")
    assert found.select("hand_id", "player").rows() == [("h5", "bo")]


def test_overview_headline(con: duckdb.DuckDBPyConnection) -> None:
    head = overview.headline(con, Filters())
    assert head["hands"] == 6
    assert (head["banker_held"].hits, head["banker_held"].n) == (3, 6)  # h3 h5 h7
    assert (head["bottom_captured"].hits, head["bottom_captured"].n) == (3, 5)
    assert head["throw_failed"].hits == sum(s["throws_failed"] for s in SEATS)
    assert head["players"] == 5
    outcomes = overview.outcomes(con, Filters())
    assert outcomes["outcome"].to_list() == [
        "banker +3",
        "banker +2",
        "attackers +0",
        "attackers +7",
    ]
    assert outcomes["n"].to_list() == [1, 2, 2, 1]


def test_explorer_agrees_with_the_dedicated_queries(con: duckdb.DuckDBPyConnection) -> None:
    ex = explorer.explore(con, Filters(), "Bottom captured", "banker seat")
    assert {(r["value"], r["hits"], r["n"]) for r in ex.iter_rows(named=True)} == {
        (0, 1, 2),
        (1, 1, 1),
        (2, 0, 1),
        (3, 1, 1),
    }
    ex = explorer.explore(con, Filters(), "Throw failed", "player")
    per_player = throws.throw_rate_by_player(con, Filters()).filter(pl.col("attempted") > 0)
    assert sorted(ex.select("value", "hits", "n").rows()) == sorted(
        per_player.select("player", "failed", "attempted").rows()
    )
    mean = explorer.explore(con, Filters(), "Attackers' points", "level played")
    assert mean["value"].to_list() == ["5", "7", "A"]
    five = mean.filter(mean["value"] == "5").row(0, named=True)
    assert five["mean"] == pytest.approx((230 + 190 + 40) / 3)
    assert five["n"] == 3
    # Every metric × dimension pair runs.
    for m in explorer.METRICS:
        for d in explorer.DIMENSIONS:
            explorer.explore(con, Filters(), m.name, d.name)


# --- shengji report ----------------------------------------------------------------------------


def test_report_text_and_json(db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--db", str(db_path)]) == 0
    out = capsys.readouterr().out
    lines = {line.strip().split("  ")[0]: line for line in out.splitlines() if line.strip()}
    assert "60.0% (3/5, 95% CI" in lines["attackers took the bottom"]
    assert "(2/3, 95% CI" in lines["captures that changed the level outcome"]
    assert "(3/6," in lines["throws that failed"]
    # Values start in one column: the labels are padded to the same width.
    starts = {
        line.index(value)
        for line in out.splitlines()
        if line.startswith("  ") and not line.startswith("    ")
        for value in [line.split("  ")[-1].strip()]
    }
    assert len(starts) == 1
    assert main(["report", "--db", str(db_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bottom"]["captured"] == {
        "hits": 3,
        "n": 5,
        "rate": 0.6,
        "lo": pytest.approx(wilson(3, 5)[0]),
        "hi": pytest.approx(wilson(3, 5)[1]),
    }
    assert data["throws"]["points_conceded_in_failed_tricks"] == 60
    assert data["coverage"]["rejected"] == 1
    assert data["headline"]["hands"] == 6


def test_report_without_a_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.duckdb"
    assert main(["report", "--db", str(missing)]) == 3  # docs/cli.md: 3, no database
    assert "run `shengji ingest" in capsys.readouterr().err
    empty = tmp_path / "empty.duckdb"
    connect(empty).close()
    assert main(["report", "--db", str(empty)]) == 1
    assert "no hands" in capsys.readouterr().err


def test_newest_findings_are_those_of_the_whole_join_for_every_limit(tmp_path: Path) -> None:
    """The findings list reads only the newest hands with a finding: for every limit it gives the
    rows the join of all findings gives, ties in time and hands without a time included."""
    rng = random.Random(5)
    when = [dt.datetime(2026, 11, d) for d in (1, 1, 2, 3, 3, 3)] + [None, None]
    hands, found = [], []
    for i in range(24):
        n = rng.choice((0, 1, 1, 2, 3))
        src = rng.choice(("a", "b"))
        hands.append(
            {"source": src, "hand_id": f"h{i:02}", "played_at": rng.choice(when), "n_findings": n}
        )
        found += [
            {"source": src, "hand_id": f"h{i:02}", "finding_no": k, "code": f"c{k}", "line": i}
            for k in range(n)
        ]
    con = connect(tmp_path / "f.duckdb")
    insert(con, "hands", hands)
    insert(con, "findings", found)
    by_key = {(h["source"], h["hand_id"]): h for h in hands}

    def order(x: dict[str, Any]) -> tuple[Any, ...]:
        at = by_key[(x["source"], x["hand_id"])]["played_at"]
        return (
            at is None,
            -(at.timestamp() if at else 0),
            x["source"],
            x["hand_id"],
            x["finding_no"],
        )

    want = [(x["source"], x["hand_id"], x["finding_no"]) for x in sorted(found, key=order)]
    for limit in range(1, len(found) + 2):
        got = coverage.findings(con, Filters(), None, limit)
        assert got.select("source", "hand_id", "finding_no").rows() == want[:limit]
