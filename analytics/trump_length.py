"""Trump length: trumps held at the start of play (the banker's after the bury and any fry) against
how the hand went.

Counts are binned (`bin` trumps wide, labelled by the bin's middle) and every point is a rate or a
mean with its interval, so thin bins show their doubt instead of a confident wiggle. Two-deck and
four-deck hands are not comparable here (52 vs 25 cards a seat), and neither are suit and
no-trump hands (a no-trump hand has only jokers and level cards as trumps: about a third as many),
so every function takes the deck count and the kind of trump to look at.
"""

from __future__ import annotations

import polars as pl

from . import rollup
from .filters import Filters
from .query import Connection, run
from .stats import Z95, with_wilson

KINDS = ("suit", "no-trump", "all")


def _kind(kind: str, alias: str) -> str:
    """SQL narrowing `alias` (a view with a `trump` column) to suit or no-trump hands."""
    if kind == "suit":
        return f" AND {alias}.trump <> 'NT'"
    if kind == "no-trump":
        return f" AND {alias}.trump = 'NT'"
    if kind == "all":
        return ""
    raise ValueError(f"unknown trump kind {kind!r} (known: {', '.join(KINDS)})")


def _rollup_kind(kind: str) -> str:
    """`_kind` over a rollup, whose `nt` says whether the hand was played in no-trump."""
    _kind(kind, "r")  # the same check of `kind`
    return {"suit": " AND nt = false", "no-trump": " AND nt", "all": ""}[kind]


TEAM = """
, per_hand AS (
    SELECT fh.banker_won, fh.attackers_points,
           CASE WHEN fh.end_state = 'complete' THEN fh.bottom_captured END AS bottom_captured,
           sum(s.trumps_start) FILTER (WHERE s.team = fh.banker_team)::INTEGER AS banker_trumps,
           sum(s.trumps_start) FILTER (WHERE s.team <> fh.banker_team)::INTEGER
               AS attacker_trumps,
           max(s.trumps_start) FILTER (WHERE s.seat = fh.banker)::INTEGER AS banker_own
    FROM fh JOIN seats s USING (source, hand_id)
    WHERE fh.banker_won IS NOT NULL AND fh.decks = $decks {kind}
    GROUP BY fh.source, fh.hand_id, fh.banker_won, fh.attackers_points, fh.bottom_captured,
             fh.end_state
)
SELECT {columns} FROM per_hand GROUP BY ALL
"""
"""Replayed hands by each team's trumps at the start of play (all four seats, whatever the
player filter: a team's length is both its players') and how the hand went."""

GROUPS = """
banker_trumps, attacker_trumps, banker_own, banker_won, bottom_captured,
{n} AS n, {points_n} AS points_n, {points_sum} AS points_sum, {points_sumsq} AS points_sumsq
"""
FROM_HANDS = GROUPS.format(
    n="count(*)",
    points_n="count(attackers_points)",
    points_sum="sum(attackers_points::DOUBLE)",
    points_sumsq="sum(attackers_points::DOUBLE * attackers_points)",
)
FROM_ROLLUP = GROUPS.format(
    n="sum(n)::BIGINT",
    points_n="sum(points_n)::BIGINT",
    points_sum="sum(points_sum)",
    points_sumsq="sum(points_sumsq)",
)


def hand_trumps(con: Connection, f: Filters, decks: int = 4, kind: str = "suit") -> pl.DataFrame:
    """Replayed hands in scope counted by `banker_trumps`, `attacker_trumps`, `banker_own`,
    `banker_won` and `bottom_captured` (null unless the hand was completed): `n` hands, of which
    `points_n` with the attackers' points known, their sum `points_sum` and sum of squares
    `points_sumsq`. The curves below are drawn from this one frame."""
    if rollup.usable(f) and len(f.players) <= 1:
        return rollup.query(
            con,
            f,
            "hand_trumps",
            FROM_ROLLUP,
            where="decks = $decks" + _rollup_kind(kind),
            tail="GROUP BY ALL",
            params={"decks": decks},
            seats=False,
        )
    return run(
        con, f, TEAM.format(kind=_kind(kind, "fh"), columns=FROM_HANDS), params={"decks": decks}
    )


def _binned(column: str, width: int) -> pl.Expr:
    # The middle of the bin, so a curve's x reads as "about this many trumps".
    return ((pl.col(column) // width) * width + width / 2).cast(pl.Float64).alias("trumps")


def decks_in_scope(con: Connection, f: Filters) -> list[int]:
    """The deck counts of the hands the filters keep. Every replayed hand has a seat in every
    role, so the seats `seat_totals` keeps hold the same deck counts as those hands."""
    if rollup.usable(f):
        df = rollup.query(
            con,
            f,
            "seat_totals",
            "DISTINCT decks",
            where="decks IS NOT NULL",
            tail="ORDER BY decks",
        )
    else:
        df = run(con, f, "SELECT DISTINCT decks FROM fh WHERE decks IS NOT NULL", order=["decks"])
    return [int(d) for d in df["decks"]]


def _rate_by(ht: pl.DataFrame, column: str, width: int, hit: str) -> pl.DataFrame:
    return (
        ht.filter(pl.col(column).is_not_null() & pl.col(hit).is_not_null())
        .group_by(_binned(column, width))
        .agg(
            hits=pl.col("n").filter(pl.col(hit)).sum().cast(pl.Int64),
            n=pl.col("n").sum().cast(pl.Int64),
        )
    )


def team_curves(ht: pl.DataFrame, width: int = 4) -> pl.DataFrame:
    """Banker team's win rate against each team's trumps: `team` (whose trumps are on x),
    `trumps` (bin middle), `hits` (banker team held), `n` (hands), with intervals."""
    parts = [
        _rate_by(ht, col, width, "banker_won").with_columns(team=pl.lit(label))
        for label, col in (("banker team", "banker_trumps"), ("attackers", "attacker_trumps"))
    ]
    df = pl.concat(parts).select("team", "trumps", "hits", "n").sort(["team", "trumps"])
    return with_wilson(df, "hits", "n")


def banker_curve(ht: pl.DataFrame, width: int = 2) -> pl.DataFrame:
    """Banker team's win rate against the banker's own trumps after the bury."""
    return with_wilson(_rate_by(ht, "banker_own", width, "banker_won").sort("trumps"), "hits", "n")


def capture_curve(ht: pl.DataFrame, width: int = 4) -> pl.DataFrame:
    """Bottom capture rate against the attackers' trumps (completed hands)."""
    df = _rate_by(ht, "attacker_trumps", width, "bottom_captured").sort("trumps")
    return with_wilson(df, "hits", "n")


def attackers_points(ht: pl.DataFrame, width: int = 4) -> pl.DataFrame:
    """Mean attackers' points (R7, with the bottom) against each team's trumps, with a normal 95%
    interval of the mean (`points_lo`, `points_hi`) and the hands behind it (`n`)."""
    parts = []
    for label, col in (("banker team", "banker_trumps"), ("attackers", "attacker_trumps")):
        parts.append(
            ht.filter(pl.col(col).is_not_null() & (pl.col("points_n") > 0))
            .group_by(_binned(col, width))
            .agg(
                k=pl.col("points_n").sum().cast(pl.Float64),
                s=pl.col("points_sum").sum().cast(pl.Float64),
                ss=pl.col("points_sumsq").sum().cast(pl.Float64),
                n=pl.col("points_n").sum().cast(pl.Int64),
            )
            .with_columns(
                points=pl.col("s") / pl.col("k"),
                # The sample standard deviation from the sums (exact for integer points).
                sd=pl.when(pl.col("k") > 1)
                .then(
                    ((pl.col("ss") - pl.col("s") ** 2 / pl.col("k")) / (pl.col("k") - 1))
                    .clip(lower_bound=0)
                    .sqrt()
                )
                .otherwise(None),
                team=pl.lit(label),
            )
        )
    df = pl.concat(parts).select("team", "trumps", "points", "sd", "n").sort(["team", "trumps"])
    return with_mean_interval(df, "points", "sd", "n")


def with_mean_interval(df: pl.DataFrame, mean: str, sd: str, n: str) -> pl.DataFrame:
    half = Z95 * pl.col(sd) / pl.col(n).cast(pl.Float64).sqrt()
    return df.with_columns(
        (pl.col(mean) - half).alias(f"{mean}_lo"), (pl.col(mean) + half).alias(f"{mean}_hi")
    )


def _bin(column: str, width: int) -> str:
    return f"(CAST(({column}) // {width} AS DOUBLE) * {width} + {width / 2})"


def throw_curve(
    con: Connection, f: Filters, decks: int = 4, kind: str = "suit", width: int = 2
) -> pl.DataFrame:
    """Throws that stood over throws attempted, against the thrower's own trumps."""
    select = f"""
        {_bin("trumps_start", width)} AS trumps,
        (sum(throws_attempted) - sum(throws_failed))::BIGINT AS hits,
        sum(throws_attempted)::BIGINT AS n
    """
    if rollup.usable(f):
        df = rollup.query(
            con,
            f,
            "seat_totals",
            select,
            where=f"trumps_start IS NOT NULL AND decks = $decks {_rollup_kind(kind)}",
            tail="GROUP BY ALL HAVING sum(throws_attempted) > 0",
            params={"decks": decks},
        ).sort("trumps")
    else:
        df = run(
            con,
            f,
            f"""
            SELECT {select}
            FROM fs WHERE trumps_start IS NOT NULL AND decks = $decks {_kind(kind, "fs")}
            GROUP BY ALL HAVING sum(throws_attempted) > 0
            """,
            params={"decks": decks},
            order=["trumps"],
        )
    return with_wilson(df, "hits", "n")


def seat_distribution(
    con: Connection, f: Filters, decks: int = 4, kind: str = "suit"
) -> pl.DataFrame:
    """How many seats started with each trump count, by role (the banker after the bury)."""
    if rollup.usable(f):
        return rollup.query(
            con,
            f,
            "seat_totals",
            "role, trumps_start AS trumps, sum(seats)::BIGINT AS n",
            where="trumps_start IS NOT NULL AND role IS NOT NULL AND decks = $decks "
            + _rollup_kind(kind),
            tail="GROUP BY ALL",
            params={"decks": decks},
        ).sort(["role", "trumps"])
    return run(
        con,
        f,
        f"""
        SELECT role, trumps_start AS trumps, count(*) AS n
        FROM fs WHERE trumps_start IS NOT NULL AND role IS NOT NULL AND decks = $decks
                  {_kind(kind, "fs")}
        GROUP BY ALL
        """,
        params={"decks": decks},
        order=["role", "trumps"],
    )


def hands_in_scope(con: Connection, f: Filters, decks: int = 4, kind: str = "suit") -> int:
    df = run(
        con,
        f,
        "SELECT count(*) AS n FROM fh WHERE banker_won IS NOT NULL AND decks = $decks"
        + _kind(kind, "fh"),
        params={"decks": decks},
    )
    return int(df["n"][0])
