"""Throws (甩牌, R4): how often players throw, how often throws fail, and what failing costs.

A throw is a lead of several components; it fails when another player holds a combination that
beats one of them (R4.3), and the thrower then plays only the forced component (R4.4). Rates are
failures over attempts; the throw rate is attempts over tricks led. A failure costs the points of
that trick the other team won, the `throw_penalty_points` of the hand's rules (R4.5) and one
personal ladder point (R7.5).

The attempted throw's components and shape come from the store's `throw_components` and
`throw_shape` columns (read at ingest). Throws the store left unread — a store from before those
columns, or cards that cannot be read — are read here with the rules core
(`shengji.combos.read_lead`): exact, but ~20 µs a throw.
"""

from __future__ import annotations

from functools import lru_cache

import polars as pl

from shengji.cards import parse_cards
from shengji.combos import PlayError, read_lead
from shengji.rules import RuleError, rules_from_spec
from shengji.trump import parse_trump

from .filters import Filters
from .query import Connection, has_column, run
from .stats import with_wilson

THROWS = """
, th AS (
    SELECT t.*, fs.player, fs.role, fh.level AS level_rank, fh.trump AS trump_suit,
           fh.rules_preset, fh.rules_options, fh.throw_penalty_points,
           CASE WHEN t.lead_suit = 'trump' THEN 'trump' ELSE 'side suit' END AS suit_kind,
           len(string_split(t.throw_cards, ' ')) AS throw_size,
           CASE WHEN t.winner_team <> t.leader_team THEN t.points ELSE 0 END AS conceded
    FROM tricks t
    JOIN fh USING (source, hand_id)
    JOIN fs ON fs.source = t.source AND fs.hand_id = t.hand_id AND fs.seat = t.leader
    WHERE t.throw
)
"""
"""Every attempted throw in scope, with its thrower (narrowed by the player/role filters)."""

DIMENSIONS: dict[str, str] = {
    "components": "components",
    "shape": "shape",
    "suit": "suit_kind",
    "cards thrown": "throw_size",
    "trick number": "trick_bin",
    "player": "player",
    "bot style": "style",
    "role": "role",
}
NUMERIC = {"components", "cards thrown", "trick number"}
TRICK_BIN = 5
"""Trick numbers are grouped in fives: a hand has up to 52 tricks, most of them single cards."""


def _shape_label(width: int, length: int) -> str:
    if length > 1:
        return "tractor<" + "-".join([str(width)] * length) + ">"
    return {1: "single", 2: "pair", 3: "triple", 4: "quad"}.get(width, f"{width}-of-a-kind")


@lru_cache(maxsize=200_000)
def read_throw(cards: str, trump: str, level: str, preset: str, options: str) -> tuple[int, str]:
    """(components, shape) of an attempted throw, e.g. (3, `pair+single+single`); (0, `unread`)
    when the cards cannot be read (a faulty hand)."""
    import json

    if not (cards and trump and level):
        return (0, "unread")
    try:
        spec = {"preset": preset, **json.loads(options or "{}")}
        reading = read_lead(parse_cards(cards), parse_trump(trump, level), rules_from_spec(spec))
    except (PlayError, RuleError, ValueError):
        return (0, "unread")
    comps = reading.components
    return (len(comps), "+".join(_shape_label(c.width, c.length) for c in comps))


def throws_frame(con: Connection, f: Filters) -> pl.DataFrame:
    """One row per attempted throw in scope: the dimensions above plus `failed`, `points`,
    `conceded` (points the other team took in that trick) and the hand's penalty."""
    stored = has_column(con, "tricks", "throw_components")
    extra = (
        ", throw_components AS components, throw_shape AS shape"
        if stored
        else ", NULL::INTEGER AS components, NULL::VARCHAR AS shape"
    )
    df = run(
        con,
        f,
        THROWS
        + f"""
        SELECT source, hand_id, trick, leader, player, role, suit_kind, throw_size,
               ((trick - 1) // {TRICK_BIN}) * {TRICK_BIN} + 1 AS trick_bin,
               coalesce(throw_failed, FALSE) AS failed, points, conceded,
               throw_penalty_points AS penalty, throw_cards, trump_suit, level_rank,
               rules_preset, rules_options{extra}
        FROM th
        """,
        order=["source", "hand_id", "trick"],
    )
    # Throws the store did not read (an older store, or cards it could not read) are read here.
    missing = df["components"].is_null()
    if missing.any():
        todo = df.filter(missing)
        read = [
            read_throw(c, t, lv, p, o)
            for c, t, lv, p, o in zip(
                todo["throw_cards"],
                todo["trump_suit"],
                todo["level_rank"],
                todo["rules_preset"],
                todo["rules_options"],
                strict=True,
            )
        ]
        filled = iter(read)
        comps, shapes = [], []
        for is_missing, c, sh in zip(missing, df["components"], df["shape"], strict=True):
            if is_missing:
                n, label = next(filled)
                comps.append(n)
                shapes.append(label)
            else:
                comps.append(c)
                shapes.append(sh)
        df = df.with_columns(
            pl.Series("components", comps, dtype=pl.Int32),
            pl.Series("shape", shapes, dtype=pl.String),
        )
    return df.with_columns(style=_style_expr()).drop(
        "throw_cards", "trump_suit", "level_rank", "rules_preset", "rules_options"
    )


def _style_expr() -> pl.Expr:
    styles = player_styles()
    return pl.col("player").replace_strict(styles, default="unknown", return_dtype=pl.String)


@lru_cache(maxsize=1)
def player_styles() -> dict[str, str]:
    """Bot style per player name, from the simulator's roster: the sample corpus's players are
    its personas. Players of real logs have no style and show as `unknown`."""
    try:
        from shengji.sim.personas import ROSTER
    except ImportError:  # the simulator is optional for analysing real logs
        return {}
    return {p.name: p.style for p in ROSTER}


def summary(df: pl.DataFrame) -> dict[str, float | int | None]:
    """Attempts, failures (rate with interval) and the failures' cost, from `throws_frame`."""
    fails = df.filter(pl.col("failed"))
    counts = pl.DataFrame({"hits": [fails.height], "n": [df.height]})
    out = with_wilson(counts, "hits", "n").row(0, named=True)
    out["points_conceded"] = int(fails["conceded"].sum() or 0)
    out["conceded_per_failure"] = float(fails["conceded"].mean()) if fails.height else None
    ok = df.filter(~pl.col("failed"))
    out["conceded_per_success"] = float(ok["conceded"].mean()) if ok.height else None
    out["penalty_points"] = int(fails["penalty"].sum() or 0)
    out["ladder_points_lost"] = fails.height
    out["hands"] = df.select(pl.struct("source", "hand_id").n_unique()).item() if df.height else 0
    return out


def failure_by(df: pl.DataFrame, dimension: str, top: int = 12) -> pl.DataFrame:
    """Failure rate per value of `dimension`: `value, hits, n, rate, lo, hi`, plus the mean points
    conceded per failure. Categorical dimensions keep the `top` most frequent values; the rest
    are pooled as `other`, so rare shapes do not crowd the chart."""
    col = DIMENSIONS[dimension]
    grouped = (
        df.group_by(pl.col(col).alias("value"))
        .agg(
            hits=pl.col("failed").sum().cast(pl.Int64),
            n=pl.len().cast(pl.Int64),
            conceded=pl.col("conceded").filter(pl.col("failed")).mean(),
        )
        .sort("value", nulls_last=True)
    )
    if dimension not in NUMERIC and grouped.height > top:
        grouped = grouped.with_columns(pl.col("value").cast(pl.String))
        keep = grouped.sort(["n", "value"], descending=[True, False]).head(top)["value"]
        grouped = (
            grouped.with_columns(
                pl.when(pl.col("value").is_in(keep.implode()))
                .then(pl.col("value"))
                .otherwise(pl.lit("other"))
                .alias("value"),
                (pl.col("conceded").fill_null(0) * pl.col("hits")).alias("_c"),
            )
            .group_by("value")
            .agg(pl.col("hits").sum(), pl.col("n").sum(), pl.col("_c").sum())
            .with_columns(
                (pl.col("_c") / pl.col("hits")).fill_nan(None).alias("conceded"),
            )
            .drop("_c")
        )
        order = pl.when(pl.col("value") == "other").then(1).otherwise(0)
        grouped = grouped.sort([order, "n", "value"], descending=[False, True, False])
    return with_wilson(grouped, "hits", "n")


def cost(df: pl.DataFrame) -> pl.DataFrame:
    """What throwing got, by outcome: throws, mean points the other team took in the trick, mean
    points in the trick, and the penalties (R4.5) — the price of a failure beside a success."""
    return (
        df.group_by(pl.when(pl.col("failed")).then(pl.lit("failed")).otherwise(pl.lit("stood")))
        .agg(
            n=pl.len().cast(pl.Int64),
            conceded=pl.col("conceded").mean(),
            points=pl.col("points").mean(),
            penalty=pl.col("penalty").filter(pl.col("failed")).sum().cast(pl.Int64),
        )
        .rename({"literal": "outcome"})
        .sort("outcome")
    )


def throw_rate_by_player(con: Connection, f: Filters) -> pl.DataFrame:
    """Per player: throws attempted over tricks led (`rate`) and failures over attempts
    (`fail_rate`), each with its interval."""
    df = run(
        con,
        f,
        """
        SELECT player, count(*) AS hands,
               sum(throws_attempted)::BIGINT AS attempted, sum(tricks_led)::BIGINT AS led,
               sum(throws_failed)::BIGINT AS failed
        FROM fs GROUP BY player
        """,
    )
    df = with_wilson(df, "attempted", "led")
    df = with_wilson(df, "failed", "attempted", prefix="fail_")
    return df.with_columns(style=_style_expr()).sort(
        ["attempted", "player"], descending=[True, False]
    )


def failure_cost(con: Connection, f: Filters) -> dict[str, float | int | None]:
    """The price of failed throws, in SQL only (no reading of throws): how many failed, the points
    the other team took in those tricks, the penalty points (R4.5) and ladder points (R7.5)."""
    row = run(
        con,
        f,
        THROWS
        + """
        SELECT count(*) AS attempts,
               count(*) FILTER (WHERE throw_failed) AS failed,
               coalesce(sum(conceded) FILTER (WHERE throw_failed), 0)::BIGINT AS conceded,
               avg(conceded) FILTER (WHERE throw_failed) AS conceded_per_failure,
               avg(conceded) FILTER (WHERE NOT throw_failed) AS conceded_per_success,
               coalesce(sum(throw_penalty_points) FILTER (WHERE throw_failed), 0)::BIGINT
                   AS penalty_points
        FROM th
        """,
    ).row(0, named=True)
    row["ladder_points_lost"] = row["failed"]
    return row
