"""Bottom capture (R7.2): how often the attackers take the last trick and the bottom, for how
much, and whether it decided the hand.

The opportunity is a completed hand that was replayed to its last trick: abandoned and redealt
hands have no last trick, so they count neither way. "Changed the outcome" compares the level
outcome of R7.3 (which team goes up, by how many levels) computed from the attackers' total with
the bottom (`attackers_points`) and without it (`trick_points`), each under the hand's own
`level_step`.
"""

from __future__ import annotations

import polars as pl

from . import rollup
from .filters import LEVEL_ORDER, Filters
from .query import Connection, level_outcome_code, outcome_label, run
from .stats import with_wilson

OPPORTUNITY = "fh.end_state = 'complete' AND fh.bottom_captured IS NOT NULL"
WITH = level_outcome_code("attackers_points", "level_step")
WITHOUT = level_outcome_code("trick_points", "level_step")

DIMENSIONS: dict[str, str] = {
    "banker seat": "CAST(fh.banker AS VARCHAR)",
    "level played": "fh.level",
    "rules": "fh.rules_preset || ' · ' || fh.bottom_multiplier_rule",
    "last trick's lead": "fh.last_lead_shape",
    "trump": "fh.trump",
    "source": "fh.source",
}
"""What a capture rate can be broken down by: a label and its SQL over `fh`."""


def summary(con: Connection, f: Filters) -> dict[str, float | int | None]:
    """The headline figures: opportunities, captures, points, outcome changes."""
    if rollup.usable_for_hands(f):
        df = _rollup(
            con,
            f,
            f"""coalesce(sum(n), 0)::BIGINT AS n,
            coalesce(sum(n) FILTER (WHERE bottom_captured), 0)::BIGINT AS hits,
            {_mean("bottom_points")} AS mean_bottom_points,
            {_mean("bottom_points", "bottom_captured")} AS mean_captured_points,
            {_mean("bottom_added", "bottom_captured")} AS mean_added,
            coalesce(sum(n::HUGEINT * bottom_added), 0)::BIGINT AS total_added,
            coalesce(sum(n) FILTER (WHERE bottom_captured AND with_code <> without_code), 0)
                ::BIGINT AS changed,
            coalesce(sum(n) FILTER (WHERE bottom_captured AND with_code >= 0
                                    AND without_code < 0), 0)::BIGINT AS flipped""",
        )
        return with_wilson(df, "hits", "n").row(0, named=True)
    df = run(
        con,
        f,
        f"""
        , b AS (SELECT *, {WITH} AS with_bottom, {WITHOUT} AS without_bottom
                FROM fh WHERE {OPPORTUNITY})
        SELECT count(*) AS n,
               count(*) FILTER (WHERE bottom_captured) AS hits,
               avg(bottom_points) AS mean_bottom_points,
               avg(bottom_points) FILTER (WHERE bottom_captured) AS mean_captured_points,
               avg(bottom_added) FILTER (WHERE bottom_captured) AS mean_added,
               coalesce(sum(bottom_added), 0)::BIGINT AS total_added,
               count(*) FILTER (WHERE bottom_captured AND with_bottom <> without_bottom)
                   AS changed,
               count(*) FILTER (WHERE bottom_captured AND with_bottom >= 0
                                AND without_bottom < 0) AS flipped
        FROM b
        """,
    )
    row = with_wilson(df, "hits", "n").row(0, named=True)
    return row


def _mean(column: str, when: str = "") -> str:
    """SQL over `hand_totals`: the mean of `column` over the hands counted (where `when`), as
    `avg` gives it over the hands themselves."""
    cond = f"{column} IS NOT NULL" + (f" AND {when}" if when else "")
    return f"(sum(n::HUGEINT * {column}) FILTER (WHERE {cond}) / sum(n) FILTER (WHERE {cond}))"


def _rollup(
    con: Connection, f: Filters, select: str, where: str = "", tail: str = ""
) -> pl.DataFrame:
    """`select` over the bottom-capture opportunities of `hand_totals` under the filters."""
    opportunity = "end_state = 'complete' AND bottom_captured IS NOT NULL"
    return rollup.query(
        con,
        f,
        "hand_totals",
        select,
        where=opportunity + (f" AND {where}" if where else ""),
        tail=tail,
        seats=False,
    )


def _label(code: pl.Expr) -> pl.Expr:
    """`outcome_label` in polars."""
    return (
        pl.when(code >= 0)
        .then(pl.lit("attackers +") + code.cast(pl.String))
        .otherwise(pl.lit("banker +") + (-code).cast(pl.String))
    )


def capture_by(con: Connection, f: Filters, dimension: str) -> pl.DataFrame:
    """Capture rate per value of one of `DIMENSIONS`: `value, hits, n, rate, lo, hi`."""
    expr = DIMENSIONS[dimension]
    if rollup.usable_for_hands(f):
        df = _rollup(
            con,
            f,
            f"{expr.replace('fh.', '')} AS value, "
            "sum(n) FILTER (WHERE bottom_captured)::BIGINT AS hits, sum(n)::BIGINT AS n",
            tail="GROUP BY ALL",
        ).with_columns(pl.col("hits").fill_null(0))
    else:
        df = run(
            con,
            f,
            f"""
            SELECT {expr} AS value, count(*) FILTER (WHERE bottom_captured) AS hits,
                   count(*) AS n
            FROM fh WHERE {OPPORTUNITY} GROUP BY ALL
            """,
        )
    df = with_wilson(df, "hits", "n")
    if dimension == "level played":
        return _sort_levels(df, "value")
    return df.sort("value", nulls_last=True)


def _sort_levels(df: pl.DataFrame, column: str) -> pl.DataFrame:
    order = {lv: i for i, lv in enumerate(LEVEL_ORDER)}
    key = pl.col(column).replace_strict(order, default=99, return_dtype=pl.Int32)
    return df.with_columns(key.alias("_k")).sort("_k").drop("_k")


def by_multiplier(con: Connection, f: Filters) -> pl.DataFrame:
    """Captures by the last trick's lead and the multiplier applied: how many, the mean bottom
    and the mean points added."""
    if rollup.usable_for_hands(f):
        return _rollup(
            con,
            f,
            f"""last_lead_shape AS lead, bottom_multiplier AS multiplier, sum(n)::BIGINT AS n,
            {_mean("bottom_points")} AS mean_bottom_points, {_mean("bottom_added")} AS mean_added,
            sum(n::HUGEINT * bottom_added)::BIGINT AS total_added""",
            where="bottom_captured",
            tail="GROUP BY ALL",
        ).sort(["multiplier", "lead"], nulls_last=True)
    return run(
        con,
        f,
        f"""
        SELECT last_lead_shape AS lead, bottom_multiplier AS multiplier, count(*) AS n,
               avg(bottom_points) AS mean_bottom_points, avg(bottom_added) AS mean_added,
               sum(bottom_added)::BIGINT AS total_added
        FROM fh WHERE {OPPORTUNITY} AND bottom_captured GROUP BY ALL
        """,
        order=["multiplier", "lead"],
    )


def buried_vs_added(con: Connection, f: Filters) -> pl.DataFrame:
    """Captured hands counted by (points buried, points the capture added)."""
    if rollup.usable_for_hands(f):
        return _rollup(
            con,
            f,
            "bottom_points, bottom_added, bottom_multiplier AS multiplier, sum(n)::BIGINT AS n",
            where="bottom_captured",
            tail="GROUP BY ALL",
        ).sort(["bottom_points", "bottom_added", "multiplier"], nulls_last=True)
    return run(
        con,
        f,
        f"""
        SELECT bottom_points, bottom_added, bottom_multiplier AS multiplier, count(*) AS n
        FROM fh WHERE {OPPORTUNITY} AND bottom_captured GROUP BY ALL
        """,
        order=["bottom_points", "bottom_added", "multiplier"],
    )


def buried_points(con: Connection, f: Filters) -> pl.DataFrame:
    """Every completed hand by the points the banker buried, with the capture rate at each."""
    if rollup.usable_for_hands(f):
        df = _rollup(
            con,
            f,
            f"""bottom_points, sum(n) FILTER (WHERE bottom_captured)::BIGINT AS hits,
            sum(n)::BIGINT AS n, {_mean("bottom_added", "bottom_captured")} AS mean_added""",
            tail="GROUP BY ALL",
        ).with_columns(pl.col("hits").fill_null(0))
        df = df.sort("bottom_points", nulls_last=True)
    else:
        df = run(
            con,
            f,
            f"""
            SELECT bottom_points, count(*) FILTER (WHERE bottom_captured) AS hits,
                   count(*) AS n, avg(bottom_added) FILTER (WHERE bottom_captured) AS mean_added
            FROM fh WHERE {OPPORTUNITY} GROUP BY ALL
            """,
            order=["bottom_points"],
        )
    return with_wilson(df, "hits", "n")


def outcome_changes(con: Connection, f: Filters) -> pl.DataFrame:
    """Captured hands by level outcome without the bottom → with it (R7.3)."""
    labels = f"""{outcome_label("without_code")} AS without_bottom,
               {outcome_label("with_code")} AS with_bottom, n"""
    if rollup.usable_for_hands(f):
        df = _rollup(
            con,
            f,
            "without_code, with_code, sum(n)::BIGINT AS n",
            where="bottom_captured",
            tail="GROUP BY ALL",
        ).select(
            _label(pl.col("without_code")).alias("without_bottom"),
            _label(pl.col("with_code")).alias("with_bottom"),
            "n",
        )
    else:
        df = run(
            con,
            f,
            f"""
            , codes AS (
                SELECT {WITHOUT} AS without_code, {WITH} AS with_code, count(*) AS n
                FROM fh WHERE {OPPORTUNITY} AND bottom_captured GROUP BY ALL
            )
            SELECT {labels} FROM codes
            """,
        )
    return df.sort(["n", "without_bottom", "with_bottom"], descending=[True, False, False])


def by_player(con: Connection, f: Filters) -> pl.DataFrame:
    """Per player, over the hands they attacked: how often their team took the bottom (`hits`
    over `n`) and how often they won the last trick themselves (`own`)."""
    if rollup.usable(f):
        df = rollup.query(
            con,
            f,
            "seat_totals",
            "player, sum(captured)::BIGINT AS hits, sum(completed)::BIGINT AS n, "
            "sum(took_bottom_complete)::BIGINT AS own",
            where="role = 'attacker'",
            tail="GROUP BY player HAVING sum(completed) > 0",
        )
    else:
        df = run(
            con,
            f,
            """
            SELECT player, count(*) FILTER (WHERE bottom_captured) AS hits, count(*) AS n,
                   count(*) FILTER (WHERE bottom_captured AND bottom_winner = seat) AS own
            FROM fs WHERE role = 'attacker' AND end_state = 'complete'
                      AND bottom_captured IS NOT NULL
            GROUP BY ALL
            """,
        )
    return with_wilson(df, "hits", "n").sort(["n", "player"], descending=[True, False])
