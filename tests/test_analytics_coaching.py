"""analytics.coaching on a hand-built database: every figure computed by hand from its rows."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from analytics_testdb import connect, insert

from analytics import coaching
from analytics.filters import Filters
from analytics.stats import Z95, wilson
from shengji.coach.review import skipped_reason


def _decision(
    hand: str,
    no: int,
    seat: int,
    code: str,
    kind: str,
    sev: str,
    cost: float,
    trick: int | None = 1,
) -> dict[str, Any]:
    return {
        "source": "s",
        "hand_id": hand,
        "decision_no": no,
        "trick": trick,
        "seat": seat,
        "kind": kind,
        "code": code,
        "severity": sev,
        "cost": cost,
        "is_mistake": sev in ("inaccuracy", "mistake", "blunder"),
        "play": "AS",
        "reason": f"reason {no} <b>",
    }


PLAYERS = {f"player{i}": p for i, p in enumerate(("ann", "bo", "cy", "di"))}


@pytest.fixture
def con(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    c = connect(tmp_path / "c.duckdb")
    insert(
        c,
        "hands",
        [
            {"source": "s", "hand_id": h, "banker": 0, "status": "ok", **PLAYERS}
            for h in ("h1", "h2")
        ],
    )
    seats = []
    # A fourth seat judged sound has no `decisions` row: di's in h1 and cy's in h2 are counted
    # on the seat and marked on the trick; so is one the review skipped, ann's in h2's trick 2.
    sound = {("h1", 3), ("h2", 2)}
    skipped = {("h2", 0)}
    for h in ("h1", "h2"):
        for seat, (player, style) in enumerate(
            [("ann", "careful"), ("bo", "novice"), ("cy", "careful"), ("di", "novice")]
        ):
            seats.append(
                {
                    "source": "s",
                    "hand_id": h,
                    "seat": seat,
                    "player": player,
                    "style": style,
                    "persona": f"{style}/0.10/0.50",
                    "last_seat_ok": int((h, seat) in sound),
                    "last_seat_skipped": int((h, seat) in skipped),
                }
            )
    insert(c, "seats", seats)
    leaders = {("h1", 1): 0, ("h2", 1): 3, ("h2", 2): 1}
    insert(
        c,
        "tricks",
        [
            {"source": "s", "hand_id": h, "trick": t, "leader": leader, "winner": leader}
            | {"last_seat_ok": t == 1, "last_seat_skipped": t == 2}
            for (h, t), leader in leaders.items()
        ],
    )
    insert(
        c,
        "plays",
        [
            {
                "source": "s",
                "hand_id": h,
                "trick": t,
                "position": pos,
                "seat": (leader + pos - 1) % 4,
                "cards": f"{pos}{'SH'[t - 1]}",
            }
            for (h, t), leader in leaders.items()
            for pos in (1, 2, 3, 4)
        ],
    )
    insert(
        c,
        "decisions",
        [
            _decision("h1", 1, 0, "bury_ok", "bury", "ok", 0, trick=None),
            _decision("h1", 2, 1, "lost_trick", "last_seat", "mistake", 25),
            _decision("h1", 3, 1, "fed_points", "last_seat", "inaccuracy", 5),
            _decision("h1", 4, 3, "ruffed_partner", "note", "note", 0),
            _decision("h2", 1, 0, "throw_risky", "throw", "blunder", 32.5),
            _decision("h2", 2, 1, "lost_trick", "last_seat", "blunder", 40),
            # A throw the review could not judge: stored, counted in no rate.
            _decision("h2", 3, 0, "throw_skipped", "throw", "ok", 0, trick=3),
        ],
    )
    return c


def test_leak_table_by_player(con: duckdb.DuckDBPyConnection) -> None:
    df = coaching.leak_table(con, Filters(), "player")
    rows = {r["who"]: r for r in df.iter_rows(named=True)}
    assert df["who"].to_list() == ["bo", "ann", "cy", "di"]  # most lost per hand first
    bo = rows["bo"]
    assert (bo["hands"], bo["judged"], bo["mistakes"], bo["points_lost"]) == (2, 3, 3, 70.0)
    assert bo["lost_per_hand"] == 35.0
    assert (bo["lo"], bo["hi"]) == pytest.approx(wilson(3, 3))
    # Two seat-hands are too few for an interval of points lost: none, rather than one that
    # claims a precision it has not.
    assert (bo["lost_lo"], bo["lost_hi"]) == (None, None)
    assert (bo["last_seat_judged"], bo["last_seat_mistakes"], bo["last_seat_lost"]) == (3, 3, 70.0)
    assert bo["throw_judged"] == 0 and bo["throw_rate"] is None
    ann = rows["ann"]
    assert (ann["judged"], ann["mistakes"], ann["per_100"]) == (2, 1, 50.0)
    assert ann["throw_per_hand"] == 16.25 and ann["bury_judged"] == 1
    # ann's skipped throw is no judged decision: one throw judged, a mistake in one.
    assert (ann["throw_judged"], ann["throw_mistakes"], ann["throw_rate"]) == (1, 1, 1.0)
    di = rows["di"]  # a note is not a judged decision
    assert (di["judged"], di["mistakes"], di["points_lost"]) == (1, 0, 0.0)


def test_points_lost_interval_from_enough_seat_hands_and_never_below_zero(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(coaching, "SMALL_SAMPLE", 2)
    rows = {
        r["who"]: r for r in coaching.leak_table(con, Filters(), "player").iter_rows(named=True)
    }
    # bo's seat-hands lost 30 and 40: sd √50, interval 35 ± z·√50/√2.
    half = Z95 * math.sqrt(50) / math.sqrt(2)
    assert (rows["bo"]["lost_lo"], rows["bo"]["lost_hi"]) == pytest.approx((35 - half, 35 + half))
    # ann's lost 32.5 and 0: the normal interval's low end would be below 0 points.
    ann = rows["ann"]
    assert ann["lost_lo"] == 0.0 and ann["lost_hi"] > ann["lost_per_hand"]


def test_a_codes_rate_is_per_opportunity(con: duckdb.DuckDBPyConnection) -> None:
    """A mistake code's rate is over the decisions of its kind judged (bo's three fourth seats),
    not over its own decisions, which are all mistakes by definition."""
    for usable in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            if not usable:
                mp.setattr(coaching.rollup, "usable", lambda f: False)
            df = coaching.by_code(con, Filters(), "player", "bo")
        rows = {r["code"]: r for r in df.iter_rows(named=True)}
        lost = rows["lost_trick"]
        assert (lost["decisions"], lost["opportunities"]) == (2, 3), usable
        assert lost["rate"] == pytest.approx(2 / 3)
        assert (lost["lo"], lost["hi"]) == pytest.approx(wilson(2, 3))
        assert rows["fed_points"]["rate"] == pytest.approx(1 / 3)


def test_leak_table_by_style_and_filters(con: duckdb.DuckDBPyConnection) -> None:
    df = coaching.leak_table(con, Filters(), "style")
    rows = {r["who"]: r for r in df.iter_rows(named=True)}
    assert (rows["novice"]["hands"], rows["novice"]["points_lost"]) == (4, 70.0)
    assert rows["careful"]["lost_per_hand"] == pytest.approx(32.5 / 4)
    only = coaching.leak_table(con, Filters(players=("bo",)), "player")
    assert only["who"].to_list() == ["bo"]
    with pytest.raises(ValueError, match="unknown grouping"):
        coaching.leak_table(con, Filters(), "hand_id; DROP TABLE hands")


def test_by_code_and_costliest(con: duckdb.DuckDBPyConnection) -> None:
    df = coaching.by_code(con, Filters(), "player", "bo")
    assert df.select("code", "decisions", "judged", "mistakes", "points_lost").rows() == [
        ("lost_trick", 2, 2, 2, 65.0),
        ("fed_points", 1, 1, 1, 5.0),
    ]
    assert df["lost_per_hand"].to_list() == [32.5, 2.5]
    top = coaching.costliest(con, Filters(), "bo", limit=2)
    assert top.select("hand_id", "trick", "code", "cost").rows() == [
        ("h2", 1, "lost_trick", 40.0),
        ("h1", 1, "lost_trick", 25.0),
    ]
    assert coaching.costliest(con, Filters(), "cy").is_empty()


def test_a_decision_the_review_could_not_judge_is_in_no_rate(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """Per code it is counted as a decision but not judged, so it has no rate; a note likewise.
    Rollups and full tables agree."""
    for usable in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            if not usable:
                mp.setattr(coaching.rollup, "usable", lambda f: False)
            ann = coaching.by_code(con, Filters(), "player", "ann")
            di = coaching.by_code(con, Filters(), "player", "di")
        skipped = ann.filter(pl.col("code") == "throw_skipped").row(0, named=True)
        assert (skipped["decisions"], skipped["judged"], skipped["rate"]) == (1, 0, None), usable
        risky = ann.filter(pl.col("code") == "throw_risky").row(0, named=True)
        assert (risky["decisions"], risky["judged"], risky["rate"]) == (1, 1, 1.0), usable
        note = di.filter(pl.col("code") == "ruffed_partner").row(0, named=True)
        assert (note["decisions"], note["judged"]) == (1, 0), usable
        # A fourth seat skipped has no row: counted on its seat, in no rate either.
        last = ann.filter(pl.col("code") == "last_seat_skipped").row(0, named=True)
        assert (last["kind"], last["decisions"], last["judged"], last["rate"]) == (
            "last_seat",
            1,
            0,
            None,
        ), usable


def test_trick_and_hand_decisions(con: duckdb.DuckDBPyConnection) -> None:
    df = coaching.trick_decisions(con, "s", "h1", 1)
    assert df["decision_no"].to_list() == [2, 3, 4, None]
    assert df["reason"][0] == "reason 2 <b>"
    # The sound fourth seat comes back from its trick: seat, verdict and the cards it played.
    sound = df.row(3, named=True)
    assert (sound["seat"], sound["code"], sound["severity"], sound["cost"], sound["play"]) == (
        3,
        "last_seat_ok",
        "ok",
        0.0,
        "4S",
    )
    assert sound["reason"] == "played 4S: no legal play does better"
    hand = coaching.hand_decisions(con, "s", "h1")
    assert hand["trick"].to_list() == [None, 1, 1, 1, 1]
    assert hand["code"].to_list()[-1] == "last_seat_ok"
    # A decision the review could not judge is listed as such, not as sound.
    skipped = coaching.hand_decisions(con, "s", "h2").filter(pl.col("code") == "throw_skipped")
    assert skipped.select("trick", "severity").rows() == [(3, "not judged")]
    h2 = coaching.trick_decisions(con, "s", "h2", 1)
    assert h2.filter(pl.col("code") == "last_seat_ok")["seat"].to_list() == [2]
    # A fourth seat skipped for its many legal plays comes back from its trick too, not judged.
    (row,) = coaching.trick_decisions(con, "s", "h2", 2).iter_rows(named=True)
    assert (row["seat"], row["code"], row["severity"], row["play"], row["reason"]) == (
        0,
        "last_seat_skipped",
        "not judged",
        "4H",
        skipped_reason(),
    )
    assert coaching.trick_decisions(con, "s", "h2", 3)["code"].to_list() == ["throw_skipped"]
    assert coaching.trick_decisions(con, "s", "h2", 4).is_empty()


def test_sound_fourth_seats_count_as_judged_under_a_date_filter_too(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """The full tables (as under a date filter) give the rollup's figures for the counted
    decisions."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(coaching.rollup, "usable", lambda f: False)
        full = coaching.leak_table(con, Filters(), "player")
        codes = coaching.by_code(con, Filters(), "player")
    rows = {r["who"]: r for r in full.iter_rows(named=True)}
    assert (rows["di"]["judged"], rows["di"]["last_seat_judged"]) == (1, 1)
    assert (rows["cy"]["judged"], rows["cy"]["mistakes"]) == (1, 0)
    assert full.equals(coaching.leak_table(con, Filters(), "player"))
    ok = codes.filter(pl.col("code") == "last_seat_ok")
    assert ok.select("kind", "judged", "mistakes", "points_lost").rows() == [
        ("last_seat", 2, 0, 0.0)
    ]
    assert codes.equals(coaching.by_code(con, Filters(), "player"))
