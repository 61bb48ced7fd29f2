"""The Hand finder's queries against independent SQL over the same store: each event, a field,
a range, a throw breakdown, and paging that lists every hand exactly once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from analytics_testdb import ingested_db

from analytics import handfinder
from analytics.filters import Filters
from analytics.handfinder import HandQuery


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    db = ingested_db(Path(tmp_path_factory.mktemp("finder")), n_hands=40)
    c = duckdb.connect(str(db.resolve()), read_only=True)
    yield c
    c.close()


def _n(con: duckdb.DuckDBPyConnection, where: str) -> int:
    return int(
        con.sql(
            f"SELECT count(*) FROM hands h WHERE h.status <> 'rejected' AND {where}"
        ).fetchall()[0][0]
    )


EXPECTED = {
    "all": "TRUE",
    "capture": "h.bottom_captured AND h.end_state = 'complete'",
    "capture_x4": "h.bottom_captured AND h.end_state = 'complete' AND h.bottom_multiplier >= 4",
    "banker_held": "h.banker_won",
    "banker_lost": "NOT h.banker_won",
    "findings": "h.n_findings > 0",
    "failed_throw": "EXISTS (SELECT 1 FROM tricks t WHERE t.source = h.source "
    "AND t.hand_id = h.hand_id AND t.throw_failed)",
    "ruff": "EXISTS (SELECT 1 FROM tricks t WHERE t.source = h.source "
    "AND t.hand_id = h.hand_id AND t.trump_in)",
}


@pytest.mark.parametrize("event", list(EXPECTED))
def test_events_count_what_they_say(con: duckdb.DuckDBPyConnection, event: str) -> None:
    assert handfinder.count(con, Filters(), HandQuery(event)) == _n(con, EXPECTED[event])


def test_fields_ranges_and_throws(con: duckdb.DuckDBPyConnection) -> None:
    f = Filters()
    q = HandQuery(where=(("level", "2"),), ranges=(("attackers' points", 40, 120),))
    assert handfinder.count(con, f, q) == _n(
        con, "h.level = '2' AND h.attackers_points >= 40 AND h.attackers_points < 120"
    )
    q = HandQuery(ranges=(("banker's trumps", 10, 14),))
    assert handfinder.count(con, f, q) == _n(
        con,
        "(SELECT s.trumps_start FROM seats s WHERE s.source = h.source AND s.hand_id = h.hand_id "
        "AND s.seat = h.banker) BETWEEN 10 AND 13",
    )
    ((who,),) = con.sql(
        "SELECT [h.player0, h.player1, h.player2, h.player3][t.leader + 1] FROM tricks t "
        "JOIN hands h USING (source, hand_id) WHERE t.throw AND h.status <> 'rejected' "
        "GROUP BY ALL ORDER BY count(*) DESC, 1 LIMIT 1"
    ).fetchall()
    thrown = _n(
        con,
        "EXISTS (SELECT 1 FROM tricks t WHERE t.source = h.source AND t.hand_id = h.hand_id "
        f"AND t.throw AND [h.player0, h.player1, h.player2, h.player3][t.leader + 1] = '{who}')",
    )
    assert thrown > 0
    assert handfinder.count(con, f, HandQuery("throw", who=who)) == thrown
    assert handfinder.count(con, f, HandQuery("throw", throw=("player", who))) == thrown
    # The row opens at that player's first throw.
    rows = handfinder.find(con, f, HandQuery("throw", who=who), 1, 500)
    for r in rows.iter_rows(named=True):
        ((first,),) = con.sql(
            "SELECT min(t.trick) FROM tricks t JOIN hands h USING (source, hand_id) "
            f"WHERE h.hand_id = '{r['hand_id']}' AND t.throw "
            f"AND [h.player0, h.player1, h.player2, h.player3][t.leader + 1] = '{who}'"
        ).fetchall()
        assert r["trick"] == first


def test_pages_list_every_hand_once(con: duckdb.DuckDBPyConnection) -> None:
    f = Filters()
    total = handfinder.count(con, f, HandQuery())
    seen: list[str] = []
    for page in range(1, total // 7 + 2):
        seen += handfinder.find(con, f, HandQuery(), page, 7)["hand_id"].to_list()
    assert len(seen) == len(set(seen)) == total


def test_a_players_rates_open_the_hands_of_their_hits(con: duckdb.DuckDBPyConnection) -> None:
    from analytics import players

    labels = [label for label, *_ in players.RATES]
    assert set(handfinder.PLAYER_RATES) == set(labels)  # a new rate needs its hands too
    table = players.player_table(con, Filters())
    row = table.sort("hands", descending=True).row(0, named=True)
    who = row["player"]
    f = Filters()
    held = handfinder.count(con, f, HandQuery("banker_held", who=who, role="banker"))
    assert held == round(row["banker_rate"] * row["banker_n"])  # hands, not seats: one a hand
    failed = handfinder.count(con, f, HandQuery("failed_throw", who=who))
    assert (failed > 0) == (row["fail_hits"] > 0) and failed <= row["fail_hits"]


def test_a_seat_a_mark_stood_for_narrows_the_hands_and_carries_the_event(
    con: duckdb.DuckDBPyConnection,
) -> None:
    f = Filters()
    # Seat distribution: a banker holding 12 trumps.
    q = HandQuery(seat=(("role", "banker"),), seat_ranges=(("trumps", 12, 13),))
    assert handfinder.count(con, f, q) == _n(
        con,
        "EXISTS (SELECT 1 FROM seats s WHERE s.source = h.source AND s.hand_id = h.hand_id "
        "AND s.role = 'banker' AND s.trumps_start = 12)",
    )
    # Throw curve: a throw by a seat holding 10 or 11 trumps (not any throw in such a hand).
    q = HandQuery("throw", seat_ranges=(("trumps", 10, 12),))
    expected = _n(
        con,
        "EXISTS (SELECT 1 FROM seats s JOIN tricks t ON t.source = s.source AND "
        "t.hand_id = s.hand_id AND t.leader = s.seat WHERE s.source = h.source "
        "AND s.hand_id = h.hand_id AND t.throw AND s.trumps_start BETWEEN 10 AND 11)",
    )
    assert expected > 0
    assert handfinder.count(con, f, q) == expected
    for r in handfinder.find(con, f, q, 1, 500).iter_rows(named=True):
        ((first,),) = con.sql(
            "SELECT min(t.trick) FROM tricks t JOIN seats s ON t.source = s.source AND "
            "t.hand_id = s.hand_id AND t.leader = s.seat WHERE t.throw AND "
            f"s.trumps_start BETWEEN 10 AND 11 AND t.hand_id = '{r['hand_id']}'"
        ).fetchall()
        assert r["trick"] == first
    # A ruff won by the player's own seat, not anyone's in their hands.
    ((who,),) = con.sql(
        "SELECT player FROM seats GROUP BY ALL ORDER BY count(*) DESC, 1 LIMIT 1"
    ).fetchall()
    ruffed = _n(
        con,
        "EXISTS (SELECT 1 FROM tricks t JOIN seats s ON t.source = s.source AND "
        "t.hand_id = s.hand_id AND t.winner = s.seat WHERE t.source = h.source AND "
        f"t.hand_id = h.hand_id AND t.trump_in AND s.player = '{who}')",
    )
    assert handfinder.count(con, f, HandQuery("ruff", who=who)) == ruffed
    assert handfinder.count(con, f, HandQuery("ruff", seat=(("player", who),))) == ruffed
    assert ruffed < handfinder.count(con, f, HandQuery("ruff"))


def test_a_failed_throw_of_a_shape_is_that_throw(con: duckdb.DuckDBPyConnection) -> None:
    f = Filters()
    for (shape,) in con.sql(
        "SELECT DISTINCT throw_shape FROM tricks WHERE throw_failed AND throw_shape IS NOT NULL"
    ).fetchall():
        q = HandQuery("failed_throw", throw=("shape", shape))
        assert handfinder.count(con, f, q) == _n(
            con,
            "EXISTS (SELECT 1 FROM tricks t WHERE t.source = h.source AND t.hand_id = h.hand_id "
            f"AND t.throw_failed AND t.throw_shape = '{shape}')",
        )


def test_week_and_day_fields(con: duckdb.DuckDBPyConnection) -> None:
    f = Filters()
    ((week, n),) = con.sql(
        "SELECT date_trunc('week', played_at)::DATE::VARCHAR, count(*) FROM hands "
        "WHERE status <> 'rejected' AND played_at IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 1"
    ).fetchall()
    assert handfinder.count(con, f, HandQuery(where=(("week", week),))) == n
    ((day, n),) = con.sql(
        "SELECT played_at::DATE::VARCHAR, count(*) FROM hands "
        "WHERE status <> 'rejected' AND played_at IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 1"
    ).fetchall()
    assert handfinder.count(con, f, HandQuery(where=(("day", day),))) == n


def test_a_players_mistakes_open_at_the_costliest(con: duckdb.DuckDBPyConnection) -> None:
    f = Filters()
    ((who, kind),) = con.sql(
        "SELECT s.player, d.kind FROM decisions d JOIN seats s USING (source, hand_id, seat) "
        "WHERE d.is_mistake GROUP BY ALL ORDER BY count(*) DESC, 1, 2 LIMIT 1"
    ).fetchall()
    q = HandQuery("mistake", seat=(("player", who),))
    mine = (
        "FROM decisions d JOIN seats s USING (source, hand_id, seat) WHERE d.is_mistake "
        f"AND s.player = '{who}' AND d.source = h.source AND d.hand_id = h.hand_id"
    )
    assert handfinder.count(con, f, q) == _n(con, f"EXISTS (SELECT 1 {mine})") > 0
    assert handfinder.count(con, f, HandQuery("mistake", who=who)) == handfinder.count(con, f, q)
    for r in handfinder.find(con, f, q, 1, 500).iter_rows(named=True):
        ((trick,),) = con.sql(
            "SELECT coalesce(arg_max(d.trick, d.cost), 1) FROM decisions d JOIN seats s "
            "USING (source, hand_id, seat) WHERE d.is_mistake AND s.player = $who "
            "AND d.hand_id = $hand",
            params={"who": who, "hand": r["hand_id"]},
        ).fetchall()
        assert r["trick"] == trick
    # One kind of decision: the Coaching chart's bars.
    q = HandQuery(f"mistake_{kind}", seat=(("player", who),))
    assert handfinder.count(con, f, q) == _n(con, f"EXISTS (SELECT 1 {mine} AND d.kind = '{kind}')")


def test_a_pooled_other_is_every_value_not_shown(con: duckdb.DuckDBPyConnection) -> None:
    f = Filters()
    shapes = [
        s
        for (s,) in con.sql(
            "SELECT throw_shape FROM tricks WHERE throw AND throw_shape IS NOT NULL "
            "GROUP BY ALL ORDER BY count(*) DESC, 1 LIMIT 2"
        ).fetchall()
    ]
    q = HandQuery("stood_throw", throw=("shape", "other"), throw_others=tuple(shapes))
    listed = ", ".join(f"'{s}'" for s in shapes)
    assert handfinder.count(con, f, q) == _n(
        con,
        "EXISTS (SELECT 1 FROM tricks t WHERE t.source = h.source AND t.hand_id = h.hand_id "
        f"AND t.throw AND NOT t.throw_failed AND coalesce(t.throw_shape, 'unread') "
        f"NOT IN ({listed}))",
    )


def test_every_explorer_mark_has_its_hands(con: duckdb.DuckDBPyConnection) -> None:
    from analytics import explorer

    assert set(handfinder.EXPLORER_FIELDS) == {d.name for d in explorer.DIMENSIONS}
    assert set(handfinder.EXPLORER_EVENTS) <= {m.name for m in explorer.METRICS}
    for m in explorer.METRICS:
        assert (m.kind == "rate") == (m.name in handfinder.EXPLORER_EVENTS) or m.name.startswith(
            "Points the bottom"
        )
    for kind, name in handfinder.EXPLORER_FIELDS.values():
        assert name in {"where": handfinder.FIELDS, "seat": handfinder.SEAT_FIELDS}.get(
            kind, handfinder.SEAT_RANGES
        )
    # A rate's bar opens as many hands as it has hits, when one hand is one opportunity.
    f = Filters()
    df = explorer.explore(con, f, "Banker team holds", "level played")
    for r in df.iter_rows(named=True):
        q = HandQuery("banker_held", where=(("level", r["value"]),))
        assert handfinder.count(con, f, q) == r["hits"]
    df = explorer.explore(con, f, "Throw failed", "bot style")
    for r in df.iter_rows(named=True):
        q = HandQuery("failed_throw", seat=(("bot style", r["value"]),))
        found = handfinder.count(con, f, q)
        assert (found > 0) == (r["hits"] > 0) and found <= r["hits"]


def test_outcomes_with_and_without_the_bottom(con: duckdb.DuckDBPyConnection) -> None:
    from analytics import bottom

    f = Filters()
    for r in bottom.outcome_changes(con, f).iter_rows(named=True):
        q = HandQuery(
            "capture",
            where=(
                ("outcome without the bottom", r["without_bottom"]),
                ("outcome with the bottom", r["with_bottom"]),
            ),
        )
        assert handfinder.count(con, f, q) == r["n"]


@pytest.mark.parametrize("event", ["throw", "failed_throw", "stood_throw", "ruff"])
def test_seat_events_read_hands_as_tricks_say(con: duckdb.DuckDBPyConnection, event: str) -> None:
    """The throw and ruff events narrow by `hands`' seat bits: the same hands as `tricks` give,
    for any seat, a player in every role, and a seat a mark stood for."""
    cond, seat = {
        "throw": ("t.throw", "t.leader"),
        "failed_throw": ("t.throw_failed", "t.leader"),
        "stood_throw": ("t.throw AND NOT t.throw_failed", "t.leader"),
        "ruff": ("t.trump_in", "t.winner"),
    }[event]
    f = Filters()
    anyone = _n(
        con,
        f"EXISTS (SELECT 1 FROM tricks t WHERE t.source = h.source AND t.hand_id = h.hand_id "
        f"AND {cond})",
    )
    assert anyone > 0
    assert handfinder.count(con, f, HandQuery(event)) == anyone
    players = [p for (p,) in con.sql("SELECT DISTINCT player FROM seats ORDER BY 1").fetchall()]
    role_of = {
        "banker": "s.seat = h.banker",
        "banker_partner": "s.seat = (h.banker + 2) % 4",
        "attacker": "s.seat % 2 <> h.banker % 2",
    }
    hits = 0
    for who in players[:4]:
        for role in (None, *role_of):
            mine = (
                "EXISTS (SELECT 1 FROM seats s JOIN tricks t ON t.source = s.source AND "
                f"t.hand_id = s.hand_id AND {seat} = s.seat WHERE s.source = h.source AND "
                f"s.hand_id = h.hand_id AND {cond} AND s.player = '{who}'"
                + (f" AND {role_of[role]}" if role else "")
                + ")"
            )
            expected = _n(con, mine)
            hits += expected
            assert handfinder.count(con, f, HandQuery(event, who=who, role=role)) == expected
        q = HandQuery(event, seat=(("player", who),))
        assert handfinder.count(con, f, q) == handfinder.count(con, f, HandQuery(event, who=who))
    assert hits > 0


def test_hands_the_bottom_changed_are_those_bottom_capture_counts(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """The finder's hands behind the Bottom capture page's "changed" and "turned" figures, from
    the rollup and from the hand tables (a player filter in the second pair forces the latter)."""
    from analytics import bottom, players, rollup

    name = players.players(con, Filters())[0]
    for f in (Filters(), Filters(players=(name,), role="attacker")):
        s = bottom.summary(con, f)
        counts = (
            handfinder.count(con, f, HandQuery("bottom_decided")),
            handfinder.count(con, f, HandQuery("bottom_flipped")),
        )
        assert counts == (s["changed"], s["flipped"])
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(rollup, "usable_for_hands", lambda f: False)
            assert counts == (
                handfinder.count(con, f, HandQuery("bottom_decided")),
                handfinder.count(con, f, HandQuery("bottom_flipped")),
            )
    assert bottom.summary(con, Filters())["flipped"] > 0


@pytest.mark.parametrize("windows", [(), (0, 1), (2, 9, 40)])
def test_pages_looked_for_among_the_newest_hands_are_the_pages_of_all(
    con: duckdb.DuckDBPyConnection, windows: tuple[int, ...]
) -> None:
    """`find` looks among the newest hands first: whatever the spans, each page is the page of all
    hands sorted newest first (ties on the date broken by source and id)."""
    from analytics import players

    name = players.players(con, Filters())[0]
    dates = con.sql("SELECT max(played_at) - min(played_at) FROM hands").fetchall()[0][0]
    assert dates.days >= 3  # or every span would hold every hand
    queries = [
        (Filters(), HandQuery()),
        (Filters(players=(name,), role="attacker"), HandQuery("failed_throw")),
        (Filters(), HandQuery("throw", who=name)),
    ]
    for f, q in queries:
        expected = handfinder.find(con, f, q, 1, 10_000)
        assert expected.height > 8
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(handfinder, "WINDOWS_DAYS", windows)
            for page in range(1, expected.height // 4 + 2):
                rows = handfinder.find(con, f, q, page, 4)
                want = expected.slice((page - 1) * 4, 4)
                assert rows["hand_id"].to_list() == want["hand_id"].to_list(), (q, page)
                assert rows["trick"].to_list() == want["trick"].to_list(), (q, page)


def test_a_query_survives_the_trip_through_a_replay_link() -> None:
    """The finder's query as URL parameters (what a replay link carries to list the same hands)
    reads back as the same query; a name no whitelist knows is dropped and reported."""
    q = HandQuery(
        event="mistake_last_seat",
        who="lin",
        role="attacker",
        where=(("trump", "S"), ("match", "m 1")),
        ranges=(("attackers' points", 40.0, 80.0),),
        code="lost_trick",
        seat=(("bot style", "bold"),),
        seat_ranges=(("trumps", 10.0, 12.5),),
    )
    params = handfinder.to_params(q)
    back, dropped = handfinder.from_params(lambda n: [v for k, v in params if k == n])
    assert back == q and dropped == []
    throw = HandQuery(event="failed_throw", throw=("shape", "other"), throw_others=("pair", "x"))
    params = [*handfinder.to_params(throw), ("where", "nope=1"), ("event", "drop table")]
    back, dropped = handfinder.from_params(lambda n: [v for k, v in params if k == n])
    assert back == throw and dropped == ["nope=1"]


def test_mistake_lists_name_the_costliest_mistake(con: duckdb.DuckDBPyConnection) -> None:
    """A list of hands with a mistake says which (the costliest of the kind asked for), what it
    cost and how many the hand has, per the player when one is chosen."""
    for q, narrow in (
        (HandQuery(event="mistake"), ""),
        (HandQuery(event="mistake_throw"), "AND d.kind = 'throw'"),
    ):
        rows = handfinder.find(con, Filters(), q, 1, 50)
        assert rows.height
        for r in rows.iter_rows(named=True):
            ((code, cost, n),) = con.sql(
                "SELECT arg_max(code, cost), max(cost), count(*) FROM decisions d "
                f"WHERE is_mistake AND hand_id = '{r['hand_id']}' AND source = '{r['source']}' "
                f"{narrow}"
            ).fetchall()
            assert (r["cost"], r["mistakes"]) == (cost, n)
            assert r["code"] is not None
            # Ties on cost may name either code; the cost is the code's.
            ((tied,),) = con.sql(
                "SELECT count(*) FROM decisions d WHERE is_mistake AND "
                f"hand_id = '{r['hand_id']}' AND source = '{r['source']}' {narrow} "
                f"AND code = '{r['code']}' AND cost = {cost}"
            ).fetchall()
            assert tied >= 1, (r, code)
    assert "code" not in handfinder.find(con, Filters(), HandQuery(event="all"), 1, 5).columns
