"""The headline figures (Overview page, `shengji report`): volume, the banker team's record, bottom
captures, throws, and how hands end. All from `hands` and `seats`, so they stay fast at scale."""

from __future__ import annotations

from typing import Any

import polars as pl

from . import rollup
from .filters import LEVEL_ORDER, Filters
from .query import Connection, run
from .stats import rate

_HEADLINE_ROLLUP = """
    coalesce(sum(n), 0)::BIGINT AS hands,
    count(DISTINCT source) AS sources,
    min(first_played) AS first, max(last_played) AS last,
    coalesce(sum(n) FILTER (WHERE status = 'flagged'), 0)::BIGINT AS flagged,
    coalesce(sum(n) FILTER (WHERE banker_won), 0)::BIGINT AS held,
    coalesce(sum(n) FILTER (WHERE banker_won IS NOT NULL), 0)::BIGINT AS decided,
    coalesce(sum(n) FILTER (WHERE bottom_captured AND end_state = 'complete'), 0)::BIGINT
        AS captured,
    coalesce(sum(n) FILTER (WHERE bottom_captured IS NOT NULL AND end_state = 'complete'), 0)
        ::BIGINT AS completed,
    sum(n::HUGEINT * attackers_points) / sum(n) FILTER (WHERE attackers_points IS NOT NULL)
        AS mean_points
"""


def weighted_median(values: list[Any], counts: list[int]) -> float | None:
    """The median of `values` repeated `counts` times (sorted by value), as DuckDB's `median`
    gives it: the middle value, or the mean of the two middle values."""
    total = sum(counts)
    if not total:
        return None
    wanted = [(total - 1) // 2, total // 2]
    found: list[float] = []
    seen = 0
    for v, c in zip(values, counts, strict=True):
        while wanted and wanted[0] < seen + c:
            found.append(float(v))
            wanted.pop(0)
        seen += c
    return (found[0] + found[1]) / 2


def _headline_rollup(con: Connection, f: Filters) -> dict[str, Any]:
    h = rollup.query(con, f, "hand_totals", _HEADLINE_ROLLUP, seats=False).row(0, named=True)
    dist = rollup.query(
        con,
        f,
        "hand_totals",
        "attackers_points AS v, sum(n)::BIGINT AS n",
        where="attackers_points IS NOT NULL",
        tail="GROUP BY v ORDER BY v",
        seats=False,
    )
    h["median_points"] = weighted_median(dist["v"].to_list(), dist["n"].to_list())
    return h


def headline(con: Connection, f: Filters) -> dict[str, Any]:
    """Counts and the main rates (each an `analytics.stats.Rate`: hits over opportunities)."""
    if rollup.usable_for_hands(f):
        return _headline(con, f, _headline_rollup(con, f))
    h = run(
        con,
        f,
        """
        SELECT count(*) AS hands,
               count(DISTINCT source) AS sources,
               min(played_at) AS first, max(played_at) AS last,
               count(*) FILTER (WHERE status = 'flagged') AS flagged,
               count(*) FILTER (WHERE banker_won) AS held,
               count(*) FILTER (WHERE banker_won IS NOT NULL) AS decided,
               count(*) FILTER (WHERE bottom_captured AND end_state = 'complete') AS captured,
               count(*) FILTER (WHERE bottom_captured IS NOT NULL AND end_state = 'complete')
                   AS completed,
               avg(attackers_points) AS mean_points,
               median(attackers_points) AS median_points
        FROM fh
        """,
    ).row(0, named=True)
    return _headline(con, f, h)


def _headline(con: Connection, f: Filters, h: dict[str, Any]) -> dict[str, Any]:
    seat_sums = """
        count(DISTINCT player) AS players,
        coalesce(sum(throws_attempted), 0)::BIGINT AS throws,
        coalesce(sum(throws_failed), 0)::BIGINT AS failed,
        coalesce(sum(tricks_led), 0)::BIGINT AS led
    """
    if rollup.usable(f):
        s = rollup.query(con, f, "seat_totals", seat_sums).row(0, named=True)
    else:
        s = run(con, f, f"SELECT {seat_sums} FROM fs").row(0, named=True)
    return {
        "hands": int(h["hands"]),
        "players": int(s["players"]),
        "sources": int(h["sources"]),
        "first": h["first"],
        "last": h["last"],
        "flagged": rate(int(h["flagged"]), int(h["hands"])),
        "banker_held": rate(int(h["held"]), int(h["decided"])),
        "bottom_captured": rate(int(h["captured"]), int(h["completed"])),
        "throw_rate": rate(int(s["throws"]), int(s["led"])),
        "throw_failed": rate(int(s["failed"]), int(s["throws"])),
        "mean_points": h["mean_points"],
        "median_points": h["median_points"],
    }


def hands_over_time(con: Connection, f: Filters, period: str = "week") -> pl.DataFrame:
    """Hands per `period` (`day`, `week`, `month`) by status."""
    if period not in ("day", "week", "month"):
        raise ValueError(f"unknown period {period!r}")
    if period != "day" and rollup.usable_for_hands(f):
        return rollup.query(
            con,
            f,
            "hand_periods",
            f"{period} AS period, status, sum(n)::BIGINT AS n",
            tail="GROUP BY ALL",
            seats=False,
        ).sort(["period", "status"], nulls_last=True)
    return run(
        con,
        f,
        f"""
        SELECT date_trunc('{period}', played_at)::DATE AS period, status, count(*) AS n
        FROM fh WHERE played_at IS NOT NULL GROUP BY ALL
        """,
        order=["period", "status"],
    )


OUTCOME = """
CASE WHEN banker_won THEN 'banker +' || CAST(level_up AS VARCHAR)
     ELSE 'attackers +' || CAST(level_up AS VARCHAR) END
"""


def outcomes(con: Connection, f: Filters) -> pl.DataFrame:
    """Hands by level outcome (R7.3): `outcome` (`banker +3` … `attackers +k`), `n`, and `order`
    running from the banker's best to the attackers' best."""
    if rollup.usable_for_hands(f):
        counted = rollup.query(
            con,
            f,
            "hand_totals",
            "banker_won, level_up, sum(n)::BIGINT AS n",
            where="banker_won IS NOT NULL AND level_up IS NOT NULL",
            tail="GROUP BY ALL",
            seats=False,
        )
        won = pl.col("banker_won")
        up = pl.col("level_up").cast(pl.Int64)
        return counted.select(
            pl.when(won)
            .then(pl.lit("banker +") + up.cast(pl.String))
            .otherwise(pl.lit("attackers +") + up.cast(pl.String))
            .alias("outcome"),
            pl.when(won).then(-up).otherwise(up + 1).alias("order"),
            "n",
        ).sort("order")
    df = run(
        con,
        f,
        f"""
        , counted AS (
            SELECT banker_won, level_up, count(*) AS n
            FROM fh WHERE banker_won IS NOT NULL AND level_up IS NOT NULL GROUP BY ALL
        )
        SELECT {OUTCOME} AS outcome,
               CASE WHEN banker_won THEN -level_up ELSE level_up + 1 END AS "order", n
        FROM counted
        """,
    )
    return df.sort("order")


def points_histogram(con: Connection, f: Filters, width: int = 20) -> pl.DataFrame:
    """Hands by attackers' final points, in bins `width` wide (`points` is the bin's start)."""
    if rollup.usable_for_hands(f):
        return rollup.query(
            con,
            f,
            "hand_totals",
            f"(attackers_points // {int(width)}) * {int(width)} AS points, sum(n)::BIGINT AS n",
            where="attackers_points IS NOT NULL",
            tail="GROUP BY ALL",
            seats=False,
        ).sort("points")
    return run(
        con,
        f,
        f"""
        SELECT (attackers_points // {width}) * {width} AS points, count(*) AS n
        FROM fh WHERE attackers_points IS NOT NULL GROUP BY ALL
        """,
        order=["points"],
    )


def filter_options(con: Connection) -> dict[str, list[Any]]:
    """Values the sidebar offers: sources, rules presets, players, levels and the date span."""
    out: dict[str, list[Any]] = {}
    # `hand_totals` holds every hand once where `player` is NULL, rejected ones included.
    hands = "hand_totals WHERE player IS NULL"
    for key, sql in (
        ("sources", f"SELECT DISTINCT source AS v FROM {hands}"),
        ("presets", f"SELECT DISTINCT rules_preset AS v FROM {hands} AND rules_preset IS NOT NULL"),
        ("players", "SELECT DISTINCT player AS v FROM seat_totals WHERE player IS NOT NULL"),
        ("levels", f"SELECT DISTINCT level AS v FROM {hands} AND level IS NOT NULL"),
    ):
        values = con.sql(sql).pl()["v"].to_list()
        if key == "levels":
            rank = {lv: i for i, lv in enumerate(LEVEL_ORDER)}
            out[key] = sorted(values, key=lambda v: rank.get(v, 99))
        else:
            out[key] = sorted(values)
    span = con.sql(
        f"SELECT min(first_played)::DATE AS a, max(last_played)::DATE AS b FROM {hands}"
    ).pl()
    out["dates"] = [span["a"][0], span["b"][0]]
    return out


def simulated(con: Connection, f: Filters) -> tuple[int, int]:
    """(hands from the simulator, hands) under the filters. A simulated hand is one whose log
    carries the simulator's `_personas` field (`shengji simulate` writes it; the bundled sample is
    made that way): its seats have a stored persona. A real server's log has no reason to."""
    if rollup.usable_for_hands(f):
        r = rollup.query(
            con,
            f,
            "hand_totals",
            "coalesce(sum(n), 0)::BIGINT AS hands, "
            "coalesce(sum(n) FILTER (WHERE simulated), 0)::BIGINT AS simulated",
            seats=False,
        ).row(0, named=True)
        return int(r["simulated"]), int(r["hands"])
    r = run(
        con,
        f,
        """
        SELECT count(*) AS hands, count(sim.hand_id) AS simulated
        FROM fh
        LEFT JOIN (SELECT DISTINCT source, hand_id FROM seats WHERE persona IS NOT NULL) AS sim
            ON sim.source = fh.source AND sim.hand_id = fh.hand_id
        """,
    ).row(0, named=True)
    return int(r["simulated"]), int(r["hands"])
