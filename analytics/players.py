"""Players: records, level gains, points, throws, ruffs, captures and findings, each a numerator
over its opportunities (PokerTracker style), and one player's trends and deviations from the field.

A player's "hand" is one seat in one replayed hand. The field is every other seat in the same
filtered hands, so a player is compared with the people they actually played with and against.
"""

from __future__ import annotations

import datetime as dt
import math

import polars as pl

from . import rollup
from .filters import Filters
from .query import Connection, run
from .stats import with_wilson

RATES: tuple[tuple[str, str, str, str], ...] = (
    # label, hits SQL, opportunities SQL, what the opportunity is
    (
        "won the hand",
        "count(*) FILTER (WHERE level_up_team = team)",
        "count(*) FILTER (WHERE level_up_team IS NOT NULL)",
        "hands",
    ),
    (
        "held as banker",
        "count(*) FILTER (WHERE role = 'banker' AND banker_won)",
        "count(*) FILTER (WHERE role = 'banker' AND banker_won IS NOT NULL)",
        "hands as banker",
    ),
    (
        "held as banker's partner",
        "count(*) FILTER (WHERE role = 'banker_partner' AND banker_won)",
        "count(*) FILTER (WHERE role = 'banker_partner' AND banker_won IS NOT NULL)",
        "hands as partner",
    ),
    (
        "took over as attacker",
        "count(*) FILTER (WHERE role = 'attacker' AND NOT banker_won)",
        "count(*) FILTER (WHERE role = 'attacker' AND banker_won IS NOT NULL)",
        "hands as attacker",
    ),
    (
        "threw (per trick led)",
        "coalesce(sum(throws_attempted), 0)",
        "coalesce(sum(tricks_led), 0)",
        "tricks led",
    ),
    (
        "throw failed",
        "coalesce(sum(throws_failed), 0)",
        "coalesce(sum(throws_attempted), 0)",
        "throws",
    ),
    (
        "took the bottom (last trick)",
        "count(*) FILTER (WHERE role = 'attacker' AND bottom_captured AND bottom_winner = seat)",
        "count(*) FILTER (WHERE role = 'attacker' AND end_state = 'complete' "
        "AND bottom_captured IS NOT NULL)",
        "completed hands as attacker",
    ),
    (
        "hand with a finding against them",
        "count(*) FILTER (WHERE n_findings > 0)",
        "count(*)",
        "hands",
    ),
)
"""Every rate on the Players page: label, numerator, opportunities, what an opportunity is."""

_KEYS = [
    "won",
    "banker",
    "partner",
    "attacker",
    "throw",
    "fail",
    "capture",
    "finding",
]


ROLLUP_RATES: dict[str, tuple[str, str]] = {
    "won": ("sum(won)", "sum(won_n)"),
    "banker": (
        "sum(held) FILTER (WHERE role = 'banker')",
        "sum(held + lost) FILTER (WHERE role = 'banker')",
    ),
    "partner": (
        "sum(held) FILTER (WHERE role = 'banker_partner')",
        "sum(held + lost) FILTER (WHERE role = 'banker_partner')",
    ),
    "attacker": (
        "sum(lost) FILTER (WHERE role = 'attacker')",
        "sum(held + lost) FILTER (WHERE role = 'attacker')",
    ),
    "throw": ("sum(throws_attempted)", "sum(tricks_led)"),
    "fail": ("sum(throws_failed)", "sum(throws_attempted)"),
    "capture": (
        "sum(took_bottom) FILTER (WHERE role = 'attacker')",
        "sum(completed) FILTER (WHERE role = 'attacker')",
    ),
    "finding": ("sum(with_findings)", "sum(seats)"),
}
"""`RATES` over the `seat_totals` rollup: the same counts, summed."""


def _rollup_columns() -> str:
    cols = []
    for key in _KEYS:
        hits, n = ROLLUP_RATES[key]
        cols.append(
            f"coalesce({hits}, 0)::BIGINT AS {key}_hits, coalesce({n}, 0)::BIGINT AS {key}_n"
        )
    return ",\n               ".join(cols)


def _rate_columns() -> str:
    cols = []
    for key, (_, hits, n, _what) in zip(_KEYS, RATES, strict=True):
        cols.append(f"({hits})::BIGINT AS {key}_hits, ({n})::BIGINT AS {key}_n")
    return ",\n               ".join(cols)


def player_table(con: Connection, f: Filters) -> pl.DataFrame:
    """One row per player: hands, every rate of `RATES` (`{key}_hits`, `{key}_n`, `{key}_rate`,
    `{key}_lo`, `{key}_hi`), level gains, points won, ruffs and ladder points per hand."""
    if rollup.usable(f):
        df = rollup.query(
            con,
            f,
            "seat_totals",
            f"""
            player, sum(seats)::BIGINT AS hands,
            {_rollup_columns()},
            coalesce(sum(levels_gained), 0)::BIGINT AS levels_gained,
            sum(points_won) / nullif(sum(points_won_n), 0) AS points_per_hand,
            coalesce(sum(ruffs), 0)::BIGINT AS ruffs,
            coalesce(sum(n_findings), 0)::BIGINT AS findings,
            coalesce(sum(ladder_points), 0)::BIGINT AS ladder_points
            """,
            where="player IS NOT NULL",
            tail="GROUP BY player",
        )
    else:
        df = run(
            con,
            f,
            f"""
            SELECT player, count(*) AS hands,
                   {_rate_columns()},
                   coalesce(sum(level_up) FILTER (WHERE level_up_team = team), 0)::BIGINT
                       AS levels_gained,
                   avg(points_won) AS points_per_hand,
                   coalesce(sum(ruffs), 0)::BIGINT AS ruffs,
                   coalesce(sum(n_findings), 0)::BIGINT AS findings,
                   coalesce(sum(ladder_points), 0)::BIGINT AS ladder_points
            FROM fs WHERE player IS NOT NULL GROUP BY player
            """,
        )
    for key in _KEYS:
        df = with_wilson(df, f"{key}_hits", f"{key}_n", prefix=f"{key}_")
    df = df.with_columns(
        (pl.col("levels_gained") / pl.col("hands")).alias("levels_per_hand"),
        (pl.col("ruffs") / pl.col("hands")).alias("ruffs_per_hand"),
        (pl.col("ladder_points") / pl.col("hands")).alias("ladder_per_hand"),
    )
    return df.sort(["hands", "player"], descending=[True, False])


def players(con: Connection, f: Filters) -> list[str]:
    """Players in scope, most hands first."""
    if rollup.usable(f):
        df = rollup.query(
            con,
            f,
            "seat_totals",
            "player, sum(seats)::BIGINT AS n",
            where="player IS NOT NULL",
            tail="GROUP BY player",
        )
    else:
        df = run(
            con,
            f,
            "SELECT player, count(*) AS n FROM fs WHERE player IS NOT NULL GROUP BY player",
        )
    return df.sort(["n", "player"], descending=[True, False])["player"].to_list()


def vs_field(con: Connection, f: Filters, player: str) -> pl.DataFrame:
    """Every rate of `RATES` for `player` and for the field (everyone else in the same hands):
    `metric, who, hits, n, rate, lo, hi, z`; see `vs_field_from`."""
    return vs_field_from(player_table(con, f.with_(players=())), player)


def vs_field_from(table: pl.DataFrame, player: str) -> pl.DataFrame:
    """`vs_field` from a `player_table` of every player: the counts are additive, so the field is
    the sum of everyone else's. `z` is the two-proportion z statistic of the player's rate
    against the field's (on the player's row); |z| > 1.96 marks a deviation unlikely to be chance
    at the 5% level."""
    mine = table.filter(pl.col("player") == player)
    rest = table.filter(pl.col("player") != player)
    rows = []
    for i, key in enumerate(_KEYS):
        for who, part in ((player, mine), ("field", rest)):
            rows.append(
                {
                    "m": i,
                    "who": who,
                    "hits": int(part[f"{key}_hits"].sum() or 0),
                    "n": int(part[f"{key}_n"].sum() or 0),
                }
            )
    labels = {i: label for i, (label, *_rest) in enumerate(RATES)}
    long = pl.DataFrame(
        rows, schema={"m": pl.Int32, "who": pl.String, "hits": pl.Int64, "n": pl.Int64}
    )
    long = with_wilson(long, "hits", "n").with_columns(
        pl.col("m").replace_strict(labels, return_dtype=pl.String).alias("metric")
    )
    long = _with_z(long, player)
    return long.select("metric", "who", "hits", "n", "rate", "lo", "hi", "z")


def _with_z(df: pl.DataFrame, who: str) -> pl.DataFrame:
    zs: list[float | None] = []
    rows = {(r["metric"], r["who"]): r for r in df.iter_rows(named=True)}
    for r in df.iter_rows(named=True):
        other = rows.get((r["metric"], "field"))
        if r["who"] != who or other is None:
            zs.append(None)
            continue
        zs.append(two_proportion_z(r["hits"], r["n"], other["hits"], other["n"]))
    return df.with_columns(pl.Series("z", zs, dtype=pl.Float64))


def two_proportion_z(k1: int, n1: int, k2: int, n2: int) -> float | None:
    """The pooled two-proportion z statistic; None when either side has no opportunity or the
    pooled rate is 0 or 1 (no variance to compare against)."""
    if not n1 or not n2:
        return None
    pooled = (k1 + k2) / (n1 + n2)
    var = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if var <= 0:
        return None
    return (k1 / n1 - k2 / n2) / math.sqrt(var)


def trend(con: Connection, f: Filters, player: str, period: str = "month") -> pl.DataFrame:
    """Per `period` (`week` or `month`): the player's and the field's hand-win rate and points won
    per hand: `period, who, hits, n, rate, lo, hi, points`."""
    if period not in ("week", "month"):
        raise ValueError(f"unknown period {period!r}")
    base = f.with_(players=())
    if rollup.usable(base):
        df = rollup.query(
            con,
            base,
            "seat_periods",
            f"""
            {period} AS period,
            CASE WHEN player = $player THEN $player ELSE 'field' END AS who,
            sum(won)::BIGINT AS hits, sum(won_n)::BIGINT AS n,
            sum(points_won) / nullif(sum(points_won_n), 0) AS points
            """,
            tail="GROUP BY ALL",
            params={"player": player},
        ).sort(["period", "who"], nulls_last=True)
    else:
        df = run(
            con,
            base,
            f"""
            SELECT date_trunc('{period}', played_at)::DATE AS period,
                   CASE WHEN player = $player THEN $player ELSE 'field' END AS who,
                   count(*) FILTER (WHERE level_up_team = team) AS hits,
                   count(*) FILTER (WHERE level_up_team IS NOT NULL) AS n,
                   avg(points_won) AS points
            FROM fs WHERE player IS NOT NULL AND played_at IS NOT NULL GROUP BY ALL
            """,
            params={"player": player},
            order=["period", "who"],
        )
    return with_wilson(df, "hits", "n")


def date_span(con: Connection, f: Filters) -> tuple[dt.datetime | None, dt.datetime | None]:
    """When the hands the filters keep were played: the first and the last (None: no dates)."""
    if rollup.usable(f):
        # The least and greatest of the hands' dates is the least and greatest of the rows'.
        select = "min(first_played) AS a, max(last_played) AS b"
        df = rollup.query(con, f, "hand_totals", select, seats=False)
    else:
        df = run(con, f, "SELECT min(played_at) AS a, max(played_at) AS b FROM fh")
    return df["a"][0], df["b"][0]


def suggested_period(con: Connection, f: Filters) -> str:
    """Weeks for up to ~6 months of hands, months beyond."""
    a, b = date_span(con, f)
    if a is None or b is None:
        return "month"
    return "week" if (b - a).days <= 183 else "month"
