"""Metric × dimension exploration, after lichess Insights: pick what to measure and what to split it
by; get one row per value with its sample size and interval.

Every metric is either a rate (hits over opportunities, Wilson interval) or a mean (normal
interval of the mean). Queries return additive sums (hits and opportunities; count, sum and sum of
squares), so groups can be pooled exactly. A hand-level metric split by a seat-level dimension
(player, role…) counts a hand once for every seat in the split, which the chart's subtitle says.
The bot style is the seats' stored `style` (the source's `_personas`); `unknown` where none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from . import rollup
from .filters import LEVEL_ORDER, Filters
from .query import Connection, level_outcome_code, run
from .stats import Z95, with_wilson

Level = Literal["hand", "seat"]


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    level: Level
    kind: Literal["rate", "mean"]
    hits: str = ""
    """Rate: the numerator, an aggregate SQL expression."""
    n: str = ""
    """Rate: the opportunities, an aggregate SQL expression."""
    value: str = ""
    """Mean: the value averaged (rows where it is NULL do not count)."""
    counts: str = ""
    """What one opportunity is, for the chart's subtitle."""


@dataclass(frozen=True, slots=True)
class Dimension:
    name: str
    level: Level
    expr: str
    numeric: bool = False


_CHANGED = (
    f"{level_outcome_code('fh.attackers_points', 'fh.level_step')} <> "
    f"{level_outcome_code('fh.trick_points', 'fh.level_step')}"
)
_COMPLETE = "fh.end_state = 'complete' AND fh.bottom_captured IS NOT NULL"

METRICS: tuple[Metric, ...] = (
    Metric(
        "Banker team holds",
        "hand",
        "rate",
        "count(*) FILTER (WHERE fh.banker_won)",
        "count(*) FILTER (WHERE fh.banker_won IS NOT NULL)",
        counts="hands",
    ),
    Metric(
        "Bottom captured",
        "hand",
        "rate",
        f"count(*) FILTER (WHERE fh.bottom_captured AND {_COMPLETE})",
        f"count(*) FILTER (WHERE {_COMPLETE})",
        counts="completed hands",
    ),
    Metric(
        "Bottom capture changed the level outcome",
        "hand",
        "rate",
        f"count(*) FILTER (WHERE fh.bottom_captured AND {_COMPLETE} AND {_CHANGED})",
        f"count(*) FILTER (WHERE {_COMPLETE})",
        counts="completed hands",
    ),
    Metric("Attackers' points", "hand", "mean", value="fh.attackers_points", counts="hands"),
    Metric(
        "Points the bottom added (captures)",
        "hand",
        "mean",
        value="CASE WHEN fh.bottom_captured THEN fh.bottom_added END",
        counts="captures",
    ),
    Metric(
        "Hand has findings",
        "hand",
        "rate",
        "count(*) FILTER (WHERE fh.n_findings > 0)",
        "count(*)",
        counts="hands",
    ),
    Metric(
        "Player's team won the hand",
        "seat",
        "rate",
        "count(*) FILTER (WHERE fs.level_up_team = fs.team)",
        "count(*) FILTER (WHERE fs.level_up_team IS NOT NULL)",
        counts="player-hands",
    ),
    Metric(
        "Throw failed",
        "seat",
        "rate",
        "coalesce(sum(fs.throws_failed), 0)",
        "coalesce(sum(fs.throws_attempted), 0)",
        counts="throws",
    ),
    Metric(
        "Threw (per trick led)",
        "seat",
        "rate",
        "coalesce(sum(fs.throws_attempted), 0)",
        "coalesce(sum(fs.tricks_led), 0)",
        counts="tricks led",
    ),
    Metric("Points won per hand", "seat", "mean", value="fs.points_won", counts="player-hands"),
    Metric("Ruffs per hand", "seat", "mean", value="fs.ruffs", counts="player-hands"),
    Metric("Trumps at the start of play", "seat", "mean", value="fs.trumps_start", counts="seats"),
    Metric(
        "Ladder points per hand", "seat", "mean", value="fs.ladder_points", counts="player-hands"
    ),
)

DIMENSIONS: tuple[Dimension, ...] = (
    Dimension("level played", "hand", "fh.level"),
    Dimension("trump", "hand", "fh.trump"),
    Dimension("trump source", "hand", "fh.trump_source"),
    Dimension("banker seat", "hand", "fh.banker", numeric=True),
    Dimension("rules", "hand", "fh.rules_preset || ' · ' || fh.bottom_multiplier_rule"),
    Dimension("source", "hand", "fh.source"),
    Dimension("month", "hand", "strftime(date_trunc('month', fh.played_at), '%Y-%m')"),
    Dimension("last trick's lead", "hand", "fh.last_lead_shape"),
    Dimension("points buried", "hand", "fh.bottom_points", numeric=True),
    Dimension("hand number in match", "hand", "fh.hand_no", numeric=True),
    Dimension("player", "seat", "fs.player"),
    Dimension("bot style", "seat", "coalesce(fs.style, 'unknown')"),
    Dimension("role", "seat", "fs.role"),
    Dimension("seat", "seat", "fs.seat", numeric=True),
    Dimension("trumps at the start of play", "seat", "fs.trumps_start", numeric=True),
)

METRIC_BY_NAME = {m.name: m for m in METRICS}
DIMENSION_BY_NAME = {d.name: d for d in DIMENSIONS}


def explore(con: Connection, f: Filters, metric: str, dimension: str) -> pl.DataFrame:
    """One row per value of `dimension`: `value`, `n` and for a rate `hits, rate, lo, hi`, for a
    mean `mean, mean_lo, mean_hi`. Sorted by value (levels in rank order)."""
    m = METRIC_BY_NAME[metric]
    d = DIMENSION_BY_NAME[dimension]
    seat_level = m.level == "seat" or d.level == "seat"
    source = "fs JOIN fh USING (source, hand_id)" if seat_level else "fh"
    if not seat_level and d.name in ROLLUP_DIMENSIONS and rollup.usable_for_hands(f):
        df = rollup.query(
            con,
            f,
            "hand_totals",
            f"{_on_rollup(d.expr)} AS value, {_rollup_aggregates(m)}",
            tail="GROUP BY ALL",
            seats=False,
        )
    else:
        if m.kind == "rate":
            aggs = f"({m.hits})::BIGINT AS hits, ({m.n})::BIGINT AS n"
        else:
            aggs = (
                f"count({m.value})::BIGINT AS n, sum({m.value})::DOUBLE AS s, "
                f"sum(({m.value})::DOUBLE * ({m.value})) AS ss"
            )
        df = run(con, f, f"SELECT {d.expr} AS value, {aggs} FROM {source} GROUP BY ALL")
    df = with_wilson(df, "hits", "n") if m.kind == "rate" else _mean_columns(df)
    df = df.filter(pl.col("value").is_not_null() & (pl.col("n") > 0))
    if d.name == "level played":
        order = {lv: i for i, lv in enumerate(LEVEL_ORDER)}
        return (
            df.with_columns(pl.col("value").replace_strict(order, default=99).alias("_k"))
            .sort("_k")
            .drop("_k")
        )
    return df.sort("value")


ROLLUP_DIMENSIONS = frozenset(
    (
        "level played",
        "trump",
        "banker seat",
        "rules",
        "source",
        "last trick's lead",
        "points buried",
    )
)
"""Hand dimensions that are columns of `hand_totals`: a hand metric split by one of them is a sum
over its rows."""


def _on_rollup(expr: str) -> str:
    """A hand-level SQL expression over `fh` rewritten over `hand_totals`' columns."""
    return expr.replace(_CHANGED, "with_code <> without_code").replace("fh.", "")


def _rollup_aggregates(m: Metric) -> str:
    """The metric's additive sums over `hand_totals` (each row stands for `n` hands)."""
    if m.kind == "rate":
        hits, n = (_on_rollup(x).replace("count(*)", "sum(n)") for x in (m.hits, m.n))
        return f"coalesce({hits}, 0)::BIGINT AS hits, coalesce({n}, 0)::BIGINT AS n"
    v = _on_rollup(m.value)
    return (
        f"coalesce(sum(n) FILTER (WHERE ({v}) IS NOT NULL), 0)::BIGINT AS n, "
        f"sum(n::HUGEINT * ({v}))::DOUBLE AS s, sum(n * ({v})::DOUBLE * ({v})) AS ss"
    )


def _mean_columns(df: pl.DataFrame) -> pl.DataFrame:
    n = pl.col("n").cast(pl.Float64)
    mean = pl.col("s") / n
    var = ((pl.col("ss") - n * mean * mean) / (n - 1)).clip(lower_bound=0.0)
    half = pl.when(n > 1).then(Z95 * (var / n).sqrt()).otherwise(None)
    return df.with_columns(
        mean.alias("mean"), (mean - half).alias("mean_lo"), (mean + half).alias("mean_hi")
    ).drop("s", "ss")


def subtitle_counts(metric: str, dimension: str) -> str:
    m = METRIC_BY_NAME[metric]
    d = DIMENSION_BY_NAME[dimension]
    base = f"{m.name.lower()} over {m.counts}" if m.kind == "rate" else f"mean over {m.counts}"
    if m.level == "hand" and d.level == "seat":
        base += " (a hand counts once per seat in the split)"
    return base
