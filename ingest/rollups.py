"""Rollup tables: the dashboard's seat-, throw- and trump-level figures pre-counted by filter value.

At ten million hands `seats` holds 40 million rows and `tricks` 250 million, and every page that
joined them to `hands` took seconds. A rollup holds one row per combination of the values the
filters narrow by (source, rules preset, level played, status, player, role, …) and of the values
a page breaks its figures down by, with additive counts and sums: a page sums the rows its filters
keep instead of joining the big tables. The combinations do not grow with the number of hands, so
the rollups stay a few thousand rows where the tables they summarise hold millions. They carry no
date: a date filter makes `analytics` read the full tables (analytics/rollup.py decides).

`refresh` rebuilds them from the hand tables, in the same transaction as the rows they summarise:
`shengji ingest` calls it at the end of a run that changed any hand, and the query benchmark after
replicating its store. Every rollup's SQL is written against the same columns the full queries
read, and tests/test_rollups.py checks that both give the same figures under every filter.
"""

from __future__ import annotations

from typing import Any

from .schema import ROLLUP_TABLES

SEATS_JOINED = """
SELECT s.*, h.status, h.rules_preset, h.level, h.decks, h.trump = 'NT' AS nt, h.played_at,
       h.banker_won, h.level_up_team, h.level_up, h.end_state, h.bottom_captured, h.bottom_winner
FROM seats s JOIN hands h USING (source, hand_id)
"""

SEAT_TOTALS = f"""
SELECT source, rules_preset, level, status, decks, nt, player, role, style, trumps_start,
       count(*) AS seats,
       count(*) FILTER (WHERE level_up_team = team) AS won,
       count(*) FILTER (WHERE level_up_team IS NOT NULL) AS won_n,
       count(*) FILTER (WHERE banker_won) AS held,
       count(*) FILTER (WHERE NOT banker_won) AS lost,
       sum(throws_attempted) AS throws_attempted,
       sum(throws_failed) AS throws_failed,
       sum(tricks_led) AS tricks_led,
       count(*) FILTER (WHERE bottom_captured AND bottom_winner = seat) AS took_bottom,
       count(*) FILTER (WHERE end_state = 'complete' AND bottom_captured IS NOT NULL)
           AS completed,
       count(*) FILTER (WHERE end_state = 'complete' AND bottom_captured) AS captured,
       count(*) FILTER (WHERE end_state = 'complete' AND bottom_captured
                        AND bottom_winner = seat) AS took_bottom_complete,
       count(*) FILTER (WHERE n_findings > 0) AS with_findings,
       sum(level_up) FILTER (WHERE level_up_team = team) AS levels_gained,
       sum(points_won) AS points_won,
       count(points_won) AS points_won_n,
       sum(ruffs) AS ruffs,
       sum(n_findings) AS n_findings,
       sum(ladder_points) AS ladder_points
FROM ({SEATS_JOINED}) GROUP BY ALL
"""

SEAT_PERIODS = f"""
SELECT date_trunc('week', played_at)::DATE AS week, date_trunc('month', played_at)::DATE AS month,
       source, rules_preset, level, status, player, role,
       count(*) AS seats,
       count(*) FILTER (WHERE level_up_team = team) AS won,
       count(*) FILTER (WHERE level_up_team IS NOT NULL) AS won_n,
       sum(points_won) AS points_won,
       count(points_won) AS points_won_n
FROM ({SEATS_JOINED}) WHERE played_at IS NOT NULL AND player IS NOT NULL GROUP BY ALL
"""

THROW_TOTALS = """
WITH t AS (
    SELECT t.source, t.hand_id, t.trick, t.leader, t.leader_team, t.throw_failed, t.points,
           t.throw_components, t.throw_shape, t.lead_suit, t.throw_cards, t.winner_team,
           h.status, h.rules_preset, h.level, h.throw_penalty_points, s.style,
           [h.player0, h.player1, h.player2, h.player3][t.leader + 1] AS player,
           CASE WHEN t.leader = h.banker THEN 'banker'
                WHEN t.leader % 2 = h.banker % 2 THEN 'banker_partner'
                ELSE 'attacker' END AS role
    FROM tricks t JOIN hands h USING (source, hand_id)
    LEFT JOIN seats s ON s.source = t.source AND s.hand_id = t.hand_id AND s.seat = t.leader
    WHERE t.throw
), ranked AS (
    SELECT *, {ranks}
    FROM t
)
SELECT source, rules_preset, level, status, player, role, style, throw_failed,
       throw_components, throw_shape,
       CASE WHEN lead_suit = 'trump' THEN 'trump' ELSE 'side suit' END AS suit_kind,
       (length(throw_cards) + 1) // 3 AS throw_size,
       ((trick - 1) // {bin}) * {bin} + 1 AS trick_bin,
       count(*) AS n,
       sum(points) AS points,
       sum(CASE WHEN winner_team <> leader_team THEN points ELSE 0 END) AS conceded,
       sum(throw_penalty_points) AS penalty,
       {firsts}
FROM ranked GROUP BY ALL
"""
"""Every attempted throw, as analytics/throws.py's `th` reads it. `first_*` count each hand once
per thrower scope (the hand, a seat, a team, a player, …), so "hands with a throw" is a sum too."""

FIRST_SCOPES: dict[str, str] = {
    "first_hand": "",
    "first_seat": ", leader",
    "first_team": ", leader_team",
    "first_player": ", player",
    "first_player_seat": ", player, leader",
    "first_player_team": ", player, leader_team",
}
"""Each `first_*` count and the partition of a hand's throws it takes the first of. Each also
has an `_outcome` twin, the first among the throws of the same outcome (failed or stood)."""


def _ranks() -> str:
    out = []
    for name, scope in FIRST_SCOPES.items():
        for suffix, extra in (("", ""), ("_outcome", ", throw_failed")):
            out.append(
                f"row_number() OVER (PARTITION BY source, hand_id{scope}{extra} ORDER BY trick) = 1"
                f" AS r_{name}{suffix}"
            )
    return ",\n           ".join(out)


def _firsts() -> str:
    return ",\n       ".join(
        f"count(*) FILTER (WHERE r_{name}{suffix}) AS {name}{suffix}"
        for name in FIRST_SCOPES
        for suffix in ("", "_outcome")
    )


TRICK_BIN = 5
"""Trick numbers grouped in fives (analytics/throws.py's `trick number` breakdown)."""

HAND_TRUMPS = """
WITH per_hand AS (
    SELECT h.source, h.hand_id, h.rules_preset, h.level, h.status, h.decks, h.trump = 'NT' AS nt,
           h.banker_won, h.attackers_points,
           CASE WHEN h.end_state = 'complete' THEN h.bottom_captured END AS bottom_captured,
           sum(s.trumps_start) FILTER (WHERE s.team = h.banker_team)::INTEGER AS banker_trumps,
           sum(s.trumps_start) FILTER (WHERE s.team <> h.banker_team)::INTEGER
               AS attacker_trumps,
           max(s.trumps_start) FILTER (WHERE s.seat = h.banker)::INTEGER AS banker_own,
           [h.player0, h.player1, h.player2, h.player3] AS players, h.banker
    FROM hands h JOIN seats s USING (source, hand_id)
    WHERE h.banker_won IS NOT NULL
    GROUP BY ALL
), rows AS (
    SELECT *, NULL::VARCHAR AS player, NULL::VARCHAR AS role FROM per_hand
    UNION ALL
    SELECT p.*, p.players[i + 1] AS player,
           CASE WHEN i = p.banker THEN 'banker'
                WHEN i % 2 = p.banker % 2 THEN 'banker_partner'
                ELSE 'attacker' END AS role
    FROM per_hand p, range(4) AS r(i)
    WHERE p.players[i + 1] IS NOT NULL
)
SELECT source, rules_preset, level, status, decks, nt, player, role, banker_trumps,
       attacker_trumps, banker_own, banker_won, bottom_captured,
       count(*) AS n,
       count(attackers_points) AS points_n,
       sum(attackers_points::DOUBLE) AS points_sum,
       sum(attackers_points::DOUBLE * attackers_points) AS points_sumsq
FROM rows GROUP BY ALL
"""
"""Replayed hands by each team's trumps at the start of play and how the hand went
(analytics/trump_length.py), once per hand (`player` NULL) and once per seat with its player and
role, so a player filter keeps the hands that player sat in."""

SQL: dict[str, str] = {
    "seat_totals": SEAT_TOTALS,
    "seat_periods": SEAT_PERIODS,
    "throw_totals": THROW_TOTALS.format(bin=TRICK_BIN, ranks=_ranks(), firsts=_firsts()),
    "hand_trumps": HAND_TRUMPS,
}


def refresh(con: Any) -> None:
    """Rebuild every rollup from the hand tables (`con`: a read-write duckdb connection)."""
    for table in ROLLUP_TABLES:
        names = ", ".join(table.column_names)
        con.execute(f"CREATE OR REPLACE TEMP VIEW rollup_rows AS {SQL[table.name]}")
        con.execute(f"DELETE FROM {table.name}")
        con.execute(f"INSERT INTO {table.name} ({names}) SELECT {names} FROM rollup_rows")
    con.execute("DROP VIEW rollup_rows")
