"""Rollup tables: the dashboard's seat-, throw- and trump-level figures pre-counted by filter value.

At ten million hands `seats` holds 40 million rows and `tricks` 250 million, and every page that
joined them to `hands` took seconds. A rollup holds one row per combination of the values the
filters narrow by (source, rules preset, level played, status, player, role, …) and of the values
a page breaks its figures down by, with additive counts and sums: a page sums the rows its filters
keep instead of joining the big tables. The combinations do not grow with the number of hands, so
the rollups stay a few thousand rows where the tables they summarise hold millions. They carry no
date: a date filter makes `analytics` read the full tables (analytics/rollup.py decides).

`refresh` rebuilds them from the hand tables. An ingest run does not: `update` brings them up to
date in the same transaction as the rows they summarise, reading only what the run changed. The
hands it wrote are summed on their own and added to the stored rows (counts and sums add, the
first and last dates take the min and max, `review_worst` keeps the costliest of both). Hands it
replaced cannot be taken out that way (a sum that loses its last non-null term must become NULL,
a min or a top 25 must be found again), so every rollup row of their partition (source, rules
preset, level, status: keys of every rollup) is rebuilt from the hand tables of that partition
only. A big run's hands are summed in slices (bounded memory), cut in the order they are stored
so each slice reads only its own row groups: the whole costs one pass over what the run wrote.
The query benchmark adds its replicated store chunk by chunk the same way (`add`).
Every rollup's SQL is written against the same columns the full queries read, and
tests/test_rollups.py checks that both give the same figures under every filter, and that the
rollups a series of ingests leaves equal a rebuild.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from shengji.coach.review import SKIPPED, SOUND

from .schema import (
    HAND_TABLES,
    REVIEW_KINDS,
    ROLLUP_TABLES,
    WORST_KEPT,
    Table,
    judged_sql,
    sql_name,
)
from .schema import REVIEW_WORST as _WORST_TABLE

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

FIRST_SCOPES: dict[str, tuple[str, ...]] = {
    "first_hand": (),
    "first_seat": ("leader",),
    "first_team": ("leader_team",),
    "first_player": ("player",),
    "first_player_seat": ("player", "leader"),
    "first_player_team": ("player", "leader_team"),
}
"""Each `first_*` count and the columns, beside the hand, of the partition it takes the first
throw of. Each also has an `_outcome` twin, the first among the throws of the same outcome (failed
or stood)."""


def _ranks() -> str:
    """Each throw's earlier throws of its hand (`prev`), in one window: a throw is the first of a
    scope when no earlier one shares its values. One window over the hand instead of a
    `row_number()` per scope: at 1,500 hands (3,417 throws, one thread) 80 ms against 175."""
    fields = ", ".join(f"{c} := {c}" for c in _SCOPE_COLUMNS)
    return (
        f"coalesce(list(struct_pack({fields})) OVER (PARTITION BY source, hand_id ORDER BY trick "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), []) AS prev"
    )


_SCOPE_COLUMNS = (
    *dict.fromkeys(c for scope in FIRST_SCOPES.values() for c in scope),
    "throw_failed",
)
"""The columns any scope matches on, and the outcome."""


def _first(columns: tuple[str, ...]) -> str:
    """True for a throw no earlier throw of its hand matches on `columns` (NULL matching NULL,
    as a partition groups them)."""
    if not columns:
        return "len(prev) = 0"
    same = " AND ".join(f"x.{c} IS NOT DISTINCT FROM {c}" for c in columns)
    return f"NOT coalesce(list_bool_or(list_transform(prev, lambda x: {same})), false)"


def _firsts() -> str:
    return ",\n       ".join(
        f"count(*) FILTER (WHERE {_first(scope + extra)}) AS {name}{suffix}"
        for name, scope in FIRST_SCOPES.items()
        for suffix, extra in (("", ()), ("_outcome", ("throw_failed",)))
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


def _outcome_code(total: str, step: str) -> str:
    """analytics.query.level_outcome_code (ingest cannot import analytics; tests compare them)."""
    return (
        f"(CASE WHEN {total} >= 2 * {step} THEN {total} // {step} - 2 "
        f"WHEN {total} <= 0 THEN -(3 + (-{total}) // {step}) "
        f"WHEN {total} < {step} THEN -2 ELSE -1 END)"
    )


_SEAT_ROLE = """CASE WHEN h.banker IS NULL THEN NULL WHEN i = h.banker THEN 'banker'
                WHEN i % 2 = h.banker % 2 THEN 'banker_partner' ELSE 'attacker' END"""

_PER_SEAT = f"""
    SELECT NULL::VARCHAR AS player, NULL::VARCHAR AS role, h.* FROM h
    UNION ALL
    SELECT [h.player0, h.player1, h.player2, h.player3][i + 1] AS player, {_SEAT_ROLE} AS role,
           h.*
    FROM h, range(4) AS r(i)
    WHERE [h.player0, h.player1, h.player2, h.player3][i + 1] IS NOT NULL
"""
"""Each hand of `h` once with `player` NULL and once per seat with its player and role, so a
player filter keeps the hands that player sat in (in the chosen role), as
analytics.filters.hand_conditions does."""

HAND_TOTALS = f"""
WITH sim AS (SELECT DISTINCT source, hand_id FROM seats WHERE persona IS NOT NULL),
h AS (
    SELECT h.source, h.rules_preset, h.level, h.status, h.end_state, h.banker, h.trump,
           h.bottom_multiplier_rule, h.last_lead_shape, h.bottom_captured, h.bottom_points,
           h.bottom_added, h.bottom_multiplier, h.banker_won, h.level_up, h.attackers_points,
           {_outcome_code("h.attackers_points", "h.level_step")} AS with_code,
           {_outcome_code("h.trick_points", "h.level_step")} AS without_code,
           sim.hand_id IS NOT NULL AS simulated, h.n_findings, h.played_at,
           h.throw_seats <> 0 AS any_throw, h.failed_throw_seats <> 0 AS failed_throw,
           h.stood_throw_seats <> 0 AS stood_throw, h.ruff_seats <> 0 AS any_ruff,
           h.player0, h.player1, h.player2, h.player3
    FROM hands h LEFT JOIN sim USING (source, hand_id)
), rows AS ({_PER_SEAT})
SELECT source, rules_preset, level, status, player, role, end_state, banker, trump,
       bottom_multiplier_rule, last_lead_shape, bottom_captured, bottom_points, bottom_added,
       bottom_multiplier, banker_won, level_up, attackers_points, with_code, without_code,
       simulated, n_findings, any_throw, failed_throw, stood_throw, any_ruff,
       count(*) AS n, min(played_at) AS first_played, max(played_at) AS last_played
FROM rows GROUP BY ALL
ORDER BY player NULLS FIRST
"""
"""Hands (every status) by every value the hand-level pages count by. Sorted by player, so a
player filter reads only that player's rows (DuckDB skips the others by their min/max)."""

HAND_PERIODS = f"""
WITH h AS (
    SELECT date_trunc('week', played_at)::DATE AS week,
           date_trunc('month', played_at)::DATE AS month,
           source, rules_preset, level, status, banker, player0, player1, player2, player3
    FROM hands WHERE played_at IS NOT NULL
), rows AS ({_PER_SEAT})
SELECT week, month, source, rules_preset, level, status, player, role, count(*) AS n
FROM rows GROUP BY ALL
ORDER BY player NULLS FIRST, week
"""

REVIEW_SEATS = "rollup_review_seats"
"""A temp table of each seat with its filter values and its counts of fourth seats judged sound
and skipped, which have no `decisions` row (docs/schema.md): the sound count as judged, never as
mistakes, and cost nothing; the skipped count in no rate, only by code. The three review rollups
read it, made once before them (`SHARED`), instead of each joining `seats` to `hands` again."""

SHARED: dict[str, str] = {
    REVIEW_SEATS: """
    SELECT s.source, s.hand_id, s.seat, h.rules_preset, h.level, h.status, h.played_at,
           s.player, s.role, s.style, s.persona, s.last_seat_ok, s.last_seat_skipped
    FROM seats s JOIN hands h USING (source, hand_id)
"""
}
"""Temp tables some rollups read, made from the hand tables before the rollups are computed and
dropped after them."""


_COST = "cost::DECIMAL(38, 10)"
"""Costs are summed as decimals: a sum of doubles depends on the order of its terms, and the same
rows read from a lake or a store must give the same rollup to the last bit."""


COUNTED_CODES = f"{SOUND}, {SKIPPED}"
"""The codes of the fourth seats counted on their seat, not stored as `decisions` rows: each is
also the name of its `seats` column."""

_SOUND = " + s.last_seat_ok"
"""Fourth seats judged sound are judged decisions of kind `last_seat` counted on their seat."""


def _kind_sums() -> str:
    return ",\n           ".join(
        f"count(*) FILTER (WHERE kind = '{k}' AND {judged_sql()}) AS {k}_judged, "
        f"count(*) FILTER (WHERE kind = '{k}' AND is_mistake) AS {k}_mistakes, "
        f"sum({_COST}) FILTER (WHERE kind = '{k}') AS {k}_lost"
        for k in REVIEW_KINDS
    )


def _kind_per_seat() -> str:
    return ",\n           ".join(
        f"coalesce(d.{k}_judged, 0){_SOUND if k == 'last_seat' else ''} AS {k}_judged, "
        f"coalesce(d.{k}_mistakes, 0) AS {k}_mistakes, coalesce(d.{k}_lost, 0) AS {k}_lost"
        for k in REVIEW_KINDS
    )


def _kind_totals() -> str:
    return ",\n       ".join(
        f"sum({k}_judged) AS {k}_judged, sum({k}_mistakes) AS {k}_mistakes, "
        f"sum({k}_lost) AS {k}_lost"
        for k in REVIEW_KINDS
    )


SEAT_REVIEWS = f"""
WITH d AS (
    SELECT source, hand_id, seat,
           count(*) FILTER (WHERE {judged_sql()}) AS judged,
           count(*) FILTER (WHERE is_mistake) AS mistakes,
           sum({_COST}) AS lost,
           {_kind_sums()}
    FROM decisions GROUP BY source, hand_id, seat
), per AS (
    SELECT s.source, s.rules_preset, s.level, s.status, s.player, s.role, s.style, s.persona,
           coalesce(d.judged, 0){_SOUND} AS judged,
           coalesce(d.mistakes, 0) AS mistakes,
           coalesce(d.lost, 0) AS lost,
           {_kind_per_seat()}
    FROM {REVIEW_SEATS} s
    LEFT JOIN d ON d.source = s.source AND d.hand_id = s.hand_id AND d.seat = s.seat
)
SELECT source, rules_preset, level, status, player, role, style, persona,
       count(*) AS seats, sum(judged) AS judged, sum(mistakes) AS mistakes,
       sum(lost) AS lost, sum(lost * lost) AS lost_sq,
       {_kind_totals()}
FROM per GROUP BY ALL
ORDER BY player
"""
"""Each seat's review sums (analytics/coaching.py's `per`), summed by the seat's values; the sum
of squares gives the spread of points lost per seat. A seat's decisions are summed by its key
alone before they meet the seat's values (grouping the joined rows by the key and every value:
133 million instructions at 1,500 hands, 114 this way; callgrind)."""

REVIEW_CODES = f"""
SELECT s.source, s.rules_preset, s.level, s.status, s.player, s.role, s.style, s.persona,
       d.kind, d.code, count(*) AS n, count(*) FILTER (WHERE d.is_mistake) AS mistakes,
       sum(d.{_COST}) AS cost
FROM {REVIEW_SEATS} s
JOIN decisions d ON d.source = s.source AND d.hand_id = s.hand_id AND d.seat = s.seat
GROUP BY ALL
UNION ALL
SELECT source, rules_preset, level, status, player, role, style, persona,
       'last_seat' AS kind, code, sum(n) AS n, 0 AS mistakes, 0::DECIMAL(38, 10) AS cost
FROM (
    UNPIVOT (
        SELECT source, rules_preset, level, status, player, role, style, persona,
               {COUNTED_CODES}
        FROM {REVIEW_SEATS}
    ) ON {COUNTED_CODES} INTO NAME code VALUE n
)
WHERE n > 0
GROUP BY ALL
ORDER BY player
"""
"""Decisions by code; the fourth seats judged sound or skipped, which have no row, from their
seats' counts, one column per code named after it (`COUNTED_CODES`). The seats come joined to
their hands (`REVIEW_SEATS`), read once for both parts."""


def _worst_top(value: str, d: str = "") -> str:
    """The `value` of the costliest `WORST_KEPT` mistakes of a group (rows of table alias `d`), in
    the order `REVIEW_WORST` ranks them, as a list: a bounded heap per group, not a sort."""
    a = f"{d}." if d else ""
    return (
        f"arg_min({value}, {{nan: NOT isnan({a}cost), cost: -{a}cost, hand_id: {a}hand_id, "
        f"decision_no: {a}decision_no}}, {WORST_KEPT})"
    )


_WORST_KEY = "{hand_id: d.hand_id, decision_no: d.decision_no, played_at: s.played_at}"

REVIEW_WORST = f"""
WITH m AS (
    SELECT d.source, s.rules_preset, s.level, s.status, s.player, s.role,
           {_worst_top(_WORST_KEY, "d")} AS top
    FROM decisions d
    JOIN {REVIEW_SEATS} s ON s.source = d.source AND s.hand_id = d.hand_id AND s.seat = d.seat
    WHERE d.is_mistake AND s.player IS NOT NULL
    GROUP BY ALL
), k AS (
    SELECT * EXCLUDE (top, t), t.* FROM (SELECT *, unnest(top) AS t FROM m)
)
SELECT k.source, k.rules_preset, k.level, k.status, k.player, k.role, k.hand_id,
       k.decision_no, k.played_at, d.trick, d.seat, d.kind, d.code, d.severity, d.cost,
       d.play, d.better, d.p_fail, d.p_error, d.outcome, d.reason
FROM k
JOIN decisions d
  ON d.source = k.source AND d.hand_id = k.hand_id AND d.decision_no = k.decision_no
ORDER BY player
"""
"""The costliest mistakes of each (filters' values, player, role): the first `WORST_KEPT` in the
order analytics.coaching.costliest lists them (the partition fixes the source), cost descending
(NaN first, as ORDER BY puts it), then hand id and decision (`_worst_top`). They are found among
narrow rows (`arg_min`'s bounded heap, not a sort of every mistake) and only they are joined to
their text: at 1,500 hands 194 million instructions against 222 for a window over the wide rows
(callgrind)."""

FINDING_TOTALS = f"""
WITH f AS (
    SELECT source, hand_id, code, count(*) AS n FROM findings GROUP BY ALL
), h AS (
    SELECT f.code, f.n, h.source, h.rules_preset, h.level, h.status, h.banker,
           h.player0, h.player1, h.player2, h.player3
    FROM f JOIN hands h USING (source, hand_id)
), rows AS ({_PER_SEAT})
SELECT source, rules_preset, level, status, player, role, code, sum(n) AS n, count(*) AS hands
FROM rows GROUP BY ALL
"""

SQL: dict[str, str] = {
    "seat_totals": SEAT_TOTALS,
    "seat_periods": SEAT_PERIODS,
    "throw_totals": THROW_TOTALS.format(bin=TRICK_BIN, ranks=_ranks(), firsts=_firsts()),
    "hand_trumps": HAND_TRUMPS,
    "hand_totals": HAND_TOTALS,
    "hand_periods": HAND_PERIODS,
    "seat_reviews": SEAT_REVIEWS,
    "review_codes": REVIEW_CODES,
    "review_worst": REVIEW_WORST,
    "finding_totals": FINDING_TOTALS,
}


PARTITION = ("source", "rules_preset", "level", "status")
"""Keys of every rollup, all the hand's own: a hand's rows only ever count in rollup rows of its
partition, so a partition can be rebuilt alone."""

SORT: dict[str, str] = {
    "hand_totals": "player NULLS FIRST",
    "hand_periods": "player NULLS FIRST, week",
    "seat_reviews": "player",
    "review_codes": "player",
    "review_worst": "player",
}
"""How a rollup's rows are kept in order (as its SQL orders them), so a player filter skips the
row groups of other players by their min/max."""

MERGE: dict[str, str] = {"first_played": "min", "last_played": "max"}
"""How a measure of the stored rows and of the added hands' rows combine; any other: `sum`."""


def _worst_combined(stored: str) -> str:
    """`review_worst`'s rows of `stored` and `rollup_new_review_worst`: the costliest `WORST_KEPT`
    of both are the costliest of all. They are found among narrow rows (`_worst_top`) and the wide
    ones kept by key (a decision is in one group, and stored and added hands are never the same):
    adding 1,500 hands to a 1,500-hand store, the whole update took 1,873 million instructions
    with a window over the wide rows, 1,857 so (callgrind); this statement 22 -> 20 ms of CPU."""
    names = ", ".join(_WORST_TABLE.column_names)
    group = ", ".join(_merge_keys(_WORST_TABLE))
    narrow = f"{group}, hand_id, decision_no, cost"
    top = _worst_top("{hand_id: hand_id, decision_no: decision_no}")
    return f"""
WITH k AS (
    SELECT source, unnest({top}, recursive := true)
    FROM (SELECT {narrow} FROM ({stored}) UNION ALL SELECT {narrow} FROM rollup_new_review_worst)
    GROUP BY {group}
)
SELECT {names} FROM ({stored}) SEMI JOIN k USING (source, hand_id, decision_no)
UNION ALL
SELECT {names} FROM rollup_new_review_worst SEMI JOIN k USING (source, hand_id, decision_no)
"""


def refresh(con: Any, only: Collection[str] | None = None) -> None:
    """Rebuild every rollup (or those named in `only`) from the hand tables (`con`: a read-write
    duckdb connection)."""
    tables = [t for t in ROLLUP_TABLES if only is None or t.name in only]
    make_shared(con, [t.name for t in tables])
    try:
        for table in tables:
            # Straight from the SQL: a temp view in between cost a binding of the SQL of its own
            # (creating it, 2.7 to 7 ms a rollup at 1,500 hands; the whole refresh 1,216 million
            # instructions with it, 1,150 without; callgrind).
            con.execute(f"DELETE FROM {table.name}")
            con.execute(f"INSERT INTO {table.name} BY NAME {SQL[table.name]}")
    finally:
        drop_shared(con)


def make_shared(con: Any, rollups: Collection[str] | None = None) -> None:
    """The temp tables of `SHARED` that the rollups named in `rollups` read (all, by default),
    from the hand tables `con` reads now: a rebuild of one rollup at ten million hands must not
    first join every seat to its hand for rollups it does not make."""
    for name, sql in SHARED.items():
        if rollups is None or any(name in SQL[r] for r in rollups):
            con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {sql}")


def drop_shared(con: Any) -> None:
    """Drop the temp tables `make_shared` made."""
    for name in SHARED:
        con.execute(f"DROP TABLE IF EXISTS temp.main.{name}")


def _catalog(con: Any) -> str:
    """The store's catalog as a quoted identifier (DuckDB names it after the file)."""
    return sql_name(str(con.execute("SELECT current_database()").fetchall()[0][0]))


def _computed(con: Any, rows: dict[str, str] | None, empty: Collection[str] = ()) -> None:
    """Every rollup's rows over some hands into temp tables `rollup_new_<name>`, or straight into
    the rollup for those named in `empty` (they hold no row: nothing to combine with).

    `rows["hands"]` selects those hands' `hands` rows; `rows` may give the rows of other hand
    tables too, else they are read from the store. Every SELECT names the store's tables in full
    (`<catalog>.main.<table>`): while the rollup SQL runs, unchanged, temp views named after the
    hand tables stand in for them, holding only those hands' rows. `rows` None: every hand of the
    store, read from its tables as they are."""
    if rows is None:
        make_shared(con)
        try:
            _write_computed(con, empty)
        finally:
            drop_shared(con)
        return
    db = _catalog(con)
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE rollup_keys AS SELECT source, hand_id FROM ({rows['hands']})"
    )
    views = {
        t.name: rows.get(t.name)
        or f"SELECT c.* FROM {db}.main.{t.name} c SEMI JOIN rollup_keys k USING (source, hand_id)"
        for t in HAND_TABLES
    }
    try:
        for name, sql in views.items():
            con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS {sql}")
        make_shared(con)
        _write_computed(con, empty)
    finally:
        drop_shared(con)
        for name in views:
            con.execute(f"DROP VIEW IF EXISTS temp.main.{name}")
        con.execute("DROP TABLE IF EXISTS temp.main.rollup_keys")


def _write_computed(con: Any, empty: Collection[str]) -> None:
    """Every rollup's rows over the hand tables `con` reads now (`_computed`)."""
    for table in ROLLUP_TABLES:
        if table.name in empty:
            # Nothing to combine with: the new rows are the table, written straight from the
            # SQL (in its order, SORT's) instead of into a temp table first and copied. For
            # `review_worst`'s 6,426 wide rows of a 1,500-hand run: 280 million instructions
            # instead of 338 (callgrind).
            con.execute(f"INSERT INTO {table.name} BY NAME {SQL[table.name]}")
            continue
        con.execute(f"CREATE OR REPLACE TEMP TABLE rollup_new_{table.name} AS {SQL[table.name]}")


def _merge_keys(table: Table) -> tuple[str, ...]:
    """The columns whose values a stored row and an added one must share to combine."""
    if table.name == "review_worst":
        return (*PARTITION, "player", "role")
    return table.key


def _same(keys: tuple[str, ...], a: str, b: str) -> str:
    return " AND ".join(f"{a}.{k} IS NOT DISTINCT FROM {b}.{k}" for k in keys)


def _combined(table: Table, stored: str) -> str:
    """The rows of `stored` (a SELECT of `table`'s rows) and `rollup_new_<name>` as one set."""
    names = ", ".join(table.column_names)
    if table.name == "review_worst":
        return _worst_combined(stored)
    both = f"SELECT {names} FROM ({stored}) UNION ALL SELECT {names} FROM rollup_new_{table.name}"
    keys = set(table.key)
    out = [
        c.name if c.name in keys else f"{MERGE.get(c.name, 'sum')}({c.name})::{c.sql} AS {c.name}"
        for c in table.columns
    ]
    return f"SELECT {', '.join(out)} FROM ({both}) GROUP BY ALL"


def _store(con: Any, table: Table, *, in_order: bool) -> None:
    """Combine `rollup_new_<name>` into `table`. `in_order`: rewrite the table whole, in its order
    (SORT); else replace only the rows the new ones combine with, appending them (`compact`
    puts the table back in order)."""
    name = table.name
    names = ", ".join(table.column_names)
    order = f" ORDER BY {SORT[name]}" if name in SORT else ""
    if in_order:
        sql = _combined(table, f"SELECT * FROM {name}")
    else:
        same = _same(_merge_keys(table), "t", "n")
        sql = _combined(
            table,
            f"SELECT t.* FROM {name} t WHERE EXISTS (SELECT 1 FROM rollup_new_{name} n WHERE {same})",
        )
    con.execute(f"CREATE OR REPLACE TEMP TABLE rollup_merged AS {sql}")
    if in_order:
        con.execute(f"DELETE FROM {name}")
    else:
        con.execute(f"DELETE FROM {name} t USING rollup_new_{name} n WHERE {same}")
    con.execute(f"INSERT INTO {name} ({names}) SELECT {names} FROM rollup_merged{order}")
    con.execute("DROP TABLE rollup_merged")


def compact(con: Any) -> None:
    """Rewrite every rollup in its order (after `add(..., in_order=False)`)."""
    for table in ROLLUP_TABLES:
        if table.name in SORT:
            names = ", ".join(table.column_names)
            con.execute(f"CREATE OR REPLACE TEMP TABLE rollup_merged AS SELECT * FROM {table.name}")
            con.execute(f"DELETE FROM {table.name}")
            con.execute(
                f"INSERT INTO {table.name} ({names}) SELECT {names} FROM rollup_merged "
                f"ORDER BY {SORT[table.name]}"
            )
            con.execute("DROP TABLE rollup_merged")


def add(con: Any, rows: dict[str, str] | None, *, in_order: bool = True) -> None:
    """Add to every rollup the hands `rows["hands"]` selects (None: every hand of the store),
    which they do not count yet (`rows` as in `_computed`; `in_order` as in `_store`)."""
    # Nothing stored to combine with (a new store): the new rows are the table, and skipping the
    # combining GROUP BY (a top 25 for `review_worst`) saves most of a small run's rollup time.
    empty = {
        t.name
        for t in ROLLUP_TABLES
        if not con.execute(f"SELECT 1 FROM {t.name} LIMIT 1").fetchall()
    }
    _computed(con, rows, empty)
    try:
        for table in ROLLUP_TABLES:
            if table.name not in empty:
                _store(con, table, in_order=in_order)
    finally:
        for table in ROLLUP_TABLES:
            con.execute(f"DROP TABLE IF EXISTS temp.main.rollup_new_{table.name}")


def update(
    con: Any, added: str, removed: str | None = None, staged: dict[str, str] | None = None
) -> None:
    """Bring every rollup up to date after an ingest run wrote and replaced hands.

    `added`: SQL over `hands h` true for the hands written since the rollups were last up to date
    (new, or replacing others). `removed`: a SELECT of the partitions (PARTITION's columns) of
    the hands whose old rows were deleted since, or None. Those partitions are rebuilt whole from
    the hand tables; the other added hands are added. `staged`: SELECTs, by hand table (`hands`
    and every table `reads` names), of exactly the rows of the hands `added` selects, at most
    SLICE_HANDS hands, to read instead of the store's tables, whose scans grow with the store."""
    hands = f"{_catalog(con)}.main.hands"
    if removed is None:
        _add_sliced(con, hands, added, staged)
        return
    con.execute(f"CREATE OR REPLACE TEMP TABLE rollup_dirty AS SELECT DISTINCT * FROM ({removed})")
    try:
        for table in ROLLUP_TABLES:
            con.execute(
                f"DELETE FROM {table.name} t USING rollup_dirty d WHERE {_same(PARTITION, 't', 'd')}"
            )
        dirty = f"EXISTS (SELECT 1 FROM rollup_dirty d WHERE {_same(PARTITION, 'h', 'd')})"
        _add_sliced(con, hands, dirty)
        _add_sliced(con, hands, f"({added}) AND NOT {dirty}", staged)
    finally:
        con.execute("DROP TABLE IF EXISTS temp.main.rollup_dirty")


SLICE_HANDS = 50_000
"""Hands summed at once by `update`. Its memory grows with the hands summed together (their keys,
and the joins of their rows): in one go, the rollups of a 240,000-hand run failed at the ingest's
256 MB limit (measured); in slices, a run of any size needs what one slice needs."""


def reads(table: str) -> bool:
    """Whether some rollup's SQL reads the hand table `table`."""
    pattern = re.compile(rf"\b(?:FROM|JOIN)\s+{table}\b", re.IGNORECASE)
    return any(pattern.search(sql) for sql in (*SQL.values(), *SHARED.values()))


def _slices(con: Any, hands: str, where: str) -> list[dict[str, tuple[int, int] | None]]:
    """The hands of `hands h` that `where` selects, cut in slices of SLICE_HANDS in storage order,
    and for each slice the rowids (first, last) each hand table holds the rows of its hands in
    (None: no row).

    A slice is a run of consecutive hands by rowid, and an ingest inserts a hand's rows in every
    table in the same transaction, one batch after the other: a slice's rows are a run of
    consecutive rows of each table too, and a scan narrowed to their rowids skips the row groups
    of every other slice. The rowids are those of the rows found by key (one pass over each
    table), not assumed from that order: whatever the order, a slice's range holds all its rows.
    """
    db = _catalog(con)
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE rollup_slices AS
        SELECT h.source, h.hand_id, h.rowid AS row_id,
               (row_number() OVER (ORDER BY h.rowid) - 1) // {int(SLICE_HANDS)} AS i
        FROM {hands} h WHERE {where}"""
    )
    try:
        n = int(con.execute("SELECT coalesce(max(i) + 1, 0) FROM rollup_slices").fetchall()[0][0])
        out: list[dict[str, tuple[int, int] | None]] = [{} for _ in range(n)]
        for t in HAND_TABLES:
            if t.name != "hands" and not reads(t.name):
                continue
            for ranges in out:
                ranges[t.name] = None
            if t.name == "hands":
                sql = "SELECT i, min(row_id), max(row_id) FROM rollup_slices GROUP BY i"
            else:
                sql = (
                    f"SELECT s.i, min(c.rowid), max(c.rowid) FROM {db}.main.{t.name} c "
                    "JOIN rollup_slices s USING (source, hand_id) GROUP BY s.i"
                )
            for i, first, last in con.execute(sql).fetchall():
                out[int(i)][t.name] = (int(first), int(last))
        return out
    finally:
        con.execute("DROP TABLE IF EXISTS temp.main.rollup_slices")


def _add_sliced(con: Any, hands: str, where: str, staged: dict[str, str] | None = None) -> None:
    """`add` the hands of `hands h` that `where` selects, in slices of about SLICE_HANDS hands in
    storage order (`_slices`): each slice's scans read only its own rows' row groups, so the
    whole costs about one pass over the hands added, whatever their number. With `staged` (as in
    `update`, holding every hand `where` selects) they are read from there, in one go."""
    if staged is not None:
        hands = f"({staged['hands']})"
    n, stored = (
        int(x)
        for x in con.execute(
            f"SELECT count(*) FILTER (WHERE {where}), count(*) FROM {hands} h"
        ).fetchall()[0]
    )
    if staged is not None and n > SLICE_HANDS:
        raise ValueError(f"{n} staged hands: at most SLICE_HANDS ({SLICE_HANDS}) are read at once")
    if n <= SLICE_HANDS:
        if n and staged is None and n == stored:
            # Every stored hand (a new store's run): the rollups read the tables as `refresh`
            # does. Through views holding the hands' rows, each read was a semi-join of the
            # table with their keys: a new store's rollups, 1,500 hands on one thread, took
            # 181.6 ms of CPU so and 148.4 ms without (6,508 hands: 369.6 and 306.8; medians
            # of 8).
            add(con, None)
        elif n:
            rows = {"hands": f"SELECT h.* FROM {hands} h WHERE {where}"}
            for name, sql in (staged or {}).items():
                if name != "hands":
                    rows[name] = (
                        f"SELECT c.* FROM ({sql}) c SEMI JOIN rollup_keys k USING (source, hand_id)"
                    )
            add(con, rows)
        return
    db = _catalog(con)
    for ranges in _slices(con, hands, where):
        rows = {}
        for name, span in ranges.items():
            if span is None:
                rows[name] = f"SELECT c.* FROM {db}.main.{name} c WHERE false"
                continue
            if name == "hands":
                rows[name] = (
                    f"SELECT h.* FROM {hands} h "
                    f"WHERE h.rowid BETWEEN {span[0]} AND {span[1]} AND ({where})"
                )
            else:
                rows[name] = (
                    f"SELECT c.* FROM {db}.main.{name} c SEMI JOIN rollup_keys k "
                    f"USING (source, hand_id) WHERE c.rowid BETWEEN {span[0]} AND {span[1]}"
                )
        add(con, rows)
