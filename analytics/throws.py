"""Throws (R4): how often players throw, how often throws fail, and what failing costs.

A throw is a lead of several components; it fails when another player holds a combination that
beats one of them (R4.3), and the thrower then plays only the forced component (R4.4). Rates are
failures over attempts; the throw rate is attempts over tricks led. A failure costs the points of
that trick the other team won, the `throw_penalty_points` of the hand's rules (R4.5) and one
personal ladder point (R7.5).

The attempted throw's components and shape are the store's `throw_components` and `throw_shape`
(read at ingest, R4.2); a throw whose cards could not be read shows as `unread`. Everything is
aggregated in DuckDB: at 100,000 hands there are ~150,000 throws, and moving them to Python costs
more than counting them where they are.
"""

from __future__ import annotations

import json
from functools import lru_cache

import polars as pl

from shengji.cards import parse_cards
from shengji.combos import PlayError, read_lead
from shengji.rules import RuleError, rules_from_spec
from shengji.trump import parse_trump

from . import rollup
from .filters import Filters
from .query import Connection, run
from .stats import with_wilson

THROWS = """
, th_all AS (
    SELECT t.source, t.hand_id, t.trick, t.leader, t.throw_failed, t.points,
           t.throw_components, t.throw_shape, {style} AS style,
           [fh.player0, fh.player1, fh.player2, fh.player3][t.leader + 1] AS player,
           CASE WHEN t.leader = fh.banker THEN 'banker'
                WHEN t.leader % 2 = fh.banker % 2 THEN 'banker_partner'
                ELSE 'attacker' END AS role,
           fh.throw_penalty_points,
           CASE WHEN t.lead_suit = 'trump' THEN 'trump' ELSE 'side suit' END AS suit_kind,
           (length(t.throw_cards) + 1) // 3 AS throw_size,
           CASE WHEN t.winner_team <> t.leader_team THEN t.points ELSE 0 END AS conceded
    FROM tricks t JOIN fh USING (source, hand_id){join}
    WHERE t.throw
), th AS (SELECT * FROM th_all WHERE {seats})
"""
"""Every attempted throw in scope, with its thrower, narrowed by the player and role filters. The
thrower comes from the hand's player columns, not a join with `seats` (3x faster at 100k hands);
only the bot style breakdown joins the thrower's seat for its stored `style`. Card tokens are two
characters, so a throw of k cards is 3k - 1 characters long."""

STYLE_JOIN = """
    LEFT JOIN seats s ON s.source = t.source AND s.hand_id = t.hand_id AND s.seat = t.leader"""
"""The thrower's seat, for its `style` (from the hand's `_personas` source field)."""

TRICK_BIN = 5
"""Trick numbers are grouped in fives: a hand has up to 52 tricks, most of them single cards."""

DIMENSIONS: dict[str, str] = {
    "components": "throw_components",
    "shape": "coalesce(throw_shape, 'unread')",
    "suit": "suit_kind",
    "cards thrown": "throw_size",
    "trick number": f"((trick - 1) // {TRICK_BIN}) * {TRICK_BIN} + 1",
    "player": "player",
    "bot style": "style",
    "role": "role",
}
"""Each breakdown and its SQL over `th`; a NULL value shows as `unknown` (a bot style the source
did not state)."""
NUMERIC = {"components", "cards thrown", "trick number"}


def throws_sql(f: Filters, *, style: bool = False) -> str:
    """The `th` scope; `style` joins each thrower's seat for its stored bot style."""
    terms = ["TRUE"]
    if f.players:
        terms.append("list_contains($players, player)")
    if f.role == "banker_team":
        terms.append("role IN ('banker', 'banker_partner')")
    elif f.role != "any":
        terms.append(f"role = '{f.role}'")
    return THROWS.format(
        seats=" AND ".join(terms),
        style="s.style" if style else "NULL::VARCHAR",
        join=STYLE_JOIN if style else "",
    )


ROLLUP_DIMENSIONS: dict[str, str] = {
    **DIMENSIONS,
    "trick number": "trick_bin",
}
"""`DIMENSIONS` over the `throw_totals` rollup (which stores the trick number's bin)."""


def _first_column(f: Filters) -> str | None:
    """The `throw_totals` count of hands with a throw under these filters: each hand's first
    throw among the throwers the filters keep. None when several players are chosen (one hand
    can hold several of them: only a distinct count over the throws says how many hands)."""
    if len(f.players) > 1:
        return None
    if f.players:
        if f.role in ("banker", "banker_partner"):
            return "first_player_seat"
        if f.role in ("banker_team", "attacker"):
            return "first_player_team"
        return "first_player"
    if f.role in ("banker", "banker_partner"):
        return "first_seat"
    if f.role in ("banker_team", "attacker"):
        return "first_team"
    return "first_hand"


def outcomes(con: Connection, f: Filters) -> pl.DataFrame:
    """Throws by outcome (`failed`, `stood`) and in total (`all`), in one scan: `n`, `hands` with a
    throw, points conceded to the other team (sum and mean), mean points in the trick, penalty
    points (R4.5). `summary` and `cost` read it."""
    first = _first_column(f)
    if rollup.usable(f) and first is not None:
        return rollup.query(
            con,
            f,
            "throw_totals",
            f"""
            CASE WHEN grouping(throw_failed) = 1 THEN 'all'
                 WHEN throw_failed THEN 'failed' ELSE 'stood' END AS outcome,
            coalesce(sum(n), 0)::BIGINT AS n,
            coalesce(CASE WHEN grouping(throw_failed) = 1 THEN sum({first})
                          ELSE sum({first}_outcome) END, 0)::BIGINT AS hands,
            coalesce(sum(conceded), 0)::BIGINT AS conceded_sum,
            sum(conceded) / sum(n) AS conceded,
            sum(points) / sum(n) AS points,
            coalesce(sum(penalty), 0)::BIGINT AS penalty
            """,
            tail="GROUP BY GROUPING SETS ((throw_failed), ())",
        ).sort("outcome")
    df = run(
        con,
        f,
        throws_sql(f)
        + """
        SELECT CASE WHEN grouping(throw_failed) = 1 THEN 'all'
                    WHEN throw_failed THEN 'failed' ELSE 'stood' END AS outcome,
               count(*) AS n,
               count(DISTINCT hash(source, hand_id)) AS hands,
               coalesce(sum(conceded), 0)::BIGINT AS conceded_sum,
               avg(conceded) AS conceded,
               avg(points) AS points,
               coalesce(sum(throw_penalty_points), 0)::BIGINT AS penalty
        FROM th GROUP BY GROUPING SETS ((throw_failed), ())
        """,
        order=["outcome"],
    )
    return df


def summary_from(out: pl.DataFrame) -> dict[str, float | int | None]:
    """Attempts and failures (`hits`/`n` with the Wilson interval) and the failures' cost: points
    the other team took in those tricks, the penalty points (R4.5) and ladder points (R7.5)."""
    rows = {r["outcome"]: r for r in out.iter_rows(named=True)}
    total = rows.get("all") or {"n": 0, "hands": 0}
    failed = rows.get("failed") or {"n": 0, "conceded_sum": 0, "conceded": None, "penalty": 0}
    stood = rows.get("stood") or {"conceded": None}
    counts = pl.DataFrame({"hits": [int(failed["n"])], "n": [int(total["n"])]})
    res = with_wilson(counts, "hits", "n").row(0, named=True)
    res.update(
        hands=int(total["hands"]),
        points_conceded=int(failed["conceded_sum"]),
        conceded_per_failure=failed["conceded"],
        conceded_per_success=stood["conceded"],
        penalty_points=int(failed["penalty"]),
        ladder_points_lost=int(failed["n"]),
    )
    return res


def summary(con: Connection, f: Filters) -> dict[str, float | int | None]:
    """`summary_from(outcomes(con, f))`."""
    return summary_from(outcomes(con, f))


def cost_from(out: pl.DataFrame) -> pl.DataFrame:
    """What throwing got, by outcome (`failed` / `stood`): throws, mean points the other team took
    in the trick, mean points in the trick, and the penalty points (R4.5)."""
    return (
        out.filter(pl.col("outcome") != "all")
        .with_columns(pl.when(pl.col("outcome") == "failed").then("penalty").otherwise(0))
        .select("outcome", "n", "conceded", "points", "penalty")
        .sort("outcome")
    )


def cost(con: Connection, f: Filters) -> pl.DataFrame:
    return cost_from(outcomes(con, f))


def failure_by(con: Connection, f: Filters, dimension: str, top: int = 12) -> pl.DataFrame:
    """Failure rate per value of `dimension`: `value, hits, n, rate, lo, hi`, and `conceded`, the
    mean points conceded per failure. Categorical breakdowns keep the `top` most frequent values
    and pool the rest as `other`, so rare shapes do not crowd the chart."""
    if rollup.usable(f):
        df = rollup.query(
            con,
            f,
            "throw_totals",
            f"""
            {ROLLUP_DIMENSIONS[dimension]} AS value,
            coalesce(sum(n) FILTER (WHERE throw_failed), 0)::BIGINT AS hits,
            sum(n)::BIGINT AS n,
            coalesce(sum(conceded) FILTER (WHERE throw_failed), 0)::BIGINT AS conceded_sum
            """,
            tail="GROUP BY ALL",
        )
    else:
        df = run(
            con,
            f,
            throws_sql(f, style=dimension == "bot style")
            + f"""
            SELECT {DIMENSIONS[dimension]} AS value, count(*) FILTER (WHERE throw_failed) AS hits,
                   count(*) AS n,
                   coalesce(sum(conceded) FILTER (WHERE throw_failed), 0)::BIGINT AS conceded_sum
            FROM th GROUP BY ALL
            """,
        )
    if dimension in NUMERIC:
        df = df.filter(pl.col("value").is_not_null())
    else:
        df = df.with_columns(pl.col("value").cast(pl.String).fill_null("unknown"))
        ranked = (
            df.group_by("value")
            .agg(pl.col("n").sum())
            .sort(["n", "value"], descending=[True, False])
        )
        if ranked.height > top:
            keep = ranked.head(top)["value"].implode()
            df = df.with_columns(
                pl.when(pl.col("value").is_in(keep)).then("value").otherwise(pl.lit("other"))
            )
    df = (
        df.group_by("value")
        .agg(pl.col("hits").sum(), pl.col("n").sum(), pl.col("conceded_sum").sum())
        .with_columns(
            pl.when(pl.col("hits") > 0)
            .then(pl.col("conceded_sum") / pl.col("hits"))
            .otherwise(None)
            .alias("conceded")
        )
        .drop("conceded_sum")
    )
    if dimension in NUMERIC:
        df = df.sort("value")
    else:
        last = pl.when(pl.col("value") == "other").then(1).otherwise(0)
        df = df.sort([last, "n", "value"], descending=[False, True, False])
    return with_wilson(df, "hits", "n")


def throw_rate_by_player(con: Connection, f: Filters) -> pl.DataFrame:
    """Per player: throws attempted over tricks led (`rate`) and failures over attempts
    (`fail_rate`), each with its interval, and `style`: the bot styles stored for the player's
    seats (from the source's `_personas`), joined by `, ` if several, `unknown` if none."""
    select = """
        player, {hands} AS hands,
        sum(throws_attempted)::BIGINT AS attempted, sum(tricks_led)::BIGINT AS led,
        sum(throws_failed)::BIGINT AS failed,
        coalesce(string_agg(DISTINCT style, ', ' ORDER BY style), 'unknown') AS style
    """
    if rollup.usable(f):
        df = rollup.query(
            con,
            f,
            "seat_totals",
            select.format(hands="sum(seats)::BIGINT"),
            tail="GROUP BY player",
        )
    else:
        df = run(con, f, f"SELECT {select.format(hands='count(*)')} FROM fs GROUP BY player")
    df = with_wilson(df, "attempted", "led")
    df = with_wilson(df, "failed", "attempted", prefix="fail_")
    return df.sort(["attempted", "player"], descending=[True, False])


def _shape_label(width: int, length: int) -> str:
    if length > 1:
        return "tractor<" + "-".join([str(width)] * length) + ">"
    return {1: "single", 2: "pair", 3: "triple", 4: "quad"}.get(width, f"{width}-of-a-kind")


@lru_cache(maxsize=4096)
def read_throw(
    cards: str, trump: str, level: str, preset: str, options: str
) -> tuple[int | None, str | None]:
    """(components, shape) of an attempted throw as the rules core reads it (R4.2), e.g.
    (3, `pair+single+single`), from the store's text columns; (None, None) when the cards cannot
    be read. The store's `throw_components`/`throw_shape` must agree (tests check it)."""
    if not (cards and trump and level):
        return (None, None)
    try:
        spec = {"preset": preset, **json.loads(options or "{}")}
        reading = read_lead(parse_cards(cards), parse_trump(trump, level), rules_from_spec(spec))
    except (PlayError, RuleError, ValueError):
        return (None, None)
    comps = reading.components
    return (len(comps), "+".join(_shape_label(c.width, c.length) for c in comps))
