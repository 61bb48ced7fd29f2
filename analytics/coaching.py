"""Coaching: where players leak points, from the review's `decisions` table (docs/review.md).

A player's "hand" is one seat in one replayed hand of the filter scope (`fs`). A decision is judged
when the review gave it a verdict (notes are not judgements, nor are the decisions it could not
judge: `shengji.coach.review.NOT_JUDGED`); a mistake is one of severity
`inaccuracy`, `mistake` or `blunder`. A fourth seat judged sound (`last_seat_ok`) or not judged
for its many legal plays (`last_seat_skipped`) has no row: it is counted on its seat
(`seats.last_seat_ok`, `seats.last_seat_skipped`) and marked on its trick (the tricks' columns of
those names). Every rate is mistakes over decisions judged with a 95%
Wilson interval; points lost per hand is a mean over the seat-hands (zeros included) with a normal
95% interval.
"""

from __future__ import annotations

import polars as pl

from ingest.rollups import COUNTED_CODES
from ingest.schema import WORST_KEPT, judged_sql
from shengji.coach.review import SKIPPED, SOUND, skipped_reason

from . import rollup
from .filters import Filters, dated, id_range
from .query import Connection, run
from .review_codes import kind_label
from .stats import SMALL_SAMPLE, Z95, with_wilson

GROUPS = {"player": "player", "style": "style", "persona": "persona"}
"""What a leak table can be grouped by: the seat's player id, bot style or persona."""
KINDS = ("throw", "last_seat", "bury")
"""The kinds of judged decision (`note` is not judged)."""


def _group(by: str) -> str:
    col = GROUPS.get(by)
    if col is None:
        raise ValueError(f"unknown grouping {by!r} (known: {', '.join(GROUPS)})")
    return col


def _decisions(f: Filters) -> str:
    """`decisions`, kept to the filtered hands' ids under a date filter (`filters.id_range`)."""
    if dated(f):
        return f"(SELECT * FROM decisions d WHERE {id_range('d')})"
    return "decisions"


def _kind_columns() -> str:
    cols = []
    for k in KINDS:
        sound = " + fs.last_seat_ok" if k == "last_seat" else ""
        cols.append(
            f"count(d.kind) FILTER (WHERE d.kind = '{k}' AND {judged_sql('d')}){sound} "
            f"AS {k}_judged, "
            f"count(*) FILTER (WHERE d.kind = '{k}' AND d.is_mistake) AS {k}_mistakes, "
            f"coalesce(sum(d.cost) FILTER (WHERE d.kind = '{k}'), 0) AS {k}_lost"
        )
    return ",\n               ".join(cols)


def _kind_sums() -> str:
    return ",\n               ".join(
        f"sum({k}_judged)::BIGINT AS {k}_judged, sum({k}_mistakes)::BIGINT AS {k}_mistakes, "
        f"sum({k}_lost) AS {k}_lost"
        for k in KINDS
    )


def leak_table(con: Connection, f: Filters, by: str = "player") -> pl.DataFrame:
    """One row per player (or `style`, `persona`): `who, hands, judged, mistakes` with
    `rate, lo, hi` (mistakes per decision judged, Wilson), `per_100`, `points_lost`,
    `lost_per_hand` with `lost_lo, lost_hi`, and per kind `{kind}_judged, {kind}_mistakes,
    {kind}_lost, {kind}_rate, {kind}_lo, {kind}_hi, {kind}_per_hand`. Most points lost per
    hand first."""
    col = _group(by)
    if rollup.usable(f):
        df = rollup.query(
            con,
            f,
            "seat_reviews",
            f"""{col} AS who, sum(seats)::BIGINT AS hands, sum(judged)::BIGINT AS judged,
            sum(mistakes)::BIGINT AS mistakes, sum(lost) AS points_lost,
            sum(lost) / sum(seats) AS lost_per_hand,
            CASE WHEN sum(seats) > 1
                 THEN sqrt(greatest(sum(lost_sq) - sum(lost) * sum(lost) / sum(seats), 0)
                           / (sum(seats) - 1))
                 ELSE 0 END AS lost_sd,
            {_kind_sums()}""",
            where=f"{col} IS NOT NULL",
            tail=f"GROUP BY {col}",
        )
        return _leaks(df)
    df = run(
        con,
        f,
        f"""
        , per AS (
            SELECT fs.{col} AS who, fs.source, fs.hand_id, fs.seat,
                   count(d.kind) FILTER (WHERE {judged_sql("d")}) + fs.last_seat_ok AS judged,
                   count(*) FILTER (WHERE d.is_mistake) AS mistakes,
                   coalesce(sum(d.cost), 0) AS lost,
                   {_kind_columns()}
            FROM fs LEFT JOIN {_decisions(f)} d USING (source, hand_id, seat)
            WHERE fs.{col} IS NOT NULL
            GROUP BY fs.{col}, fs.source, fs.hand_id, fs.seat, fs.last_seat_ok
        )
        SELECT who, count(*)::BIGINT AS hands, sum(judged)::BIGINT AS judged,
               sum(mistakes)::BIGINT AS mistakes, sum(lost) AS points_lost,
               avg(lost) AS lost_per_hand, coalesce(stddev_samp(lost), 0) AS lost_sd,
               {_kind_sums()}
        FROM per GROUP BY who
        """,
    )
    return _leaks(df)


def _leaks(df: pl.DataFrame) -> pl.DataFrame:
    df = with_wilson(df, "mistakes", "judged")
    half = Z95 * pl.col("lost_sd") / pl.col("hands").cast(pl.Float64).sqrt()
    # No interval on too few seat-hands (stats.SMALL_SAMPLE); none below 0 points either.
    enough = pl.col("hands") >= SMALL_SAMPLE
    df = df.with_columns(
        (100 * pl.col("rate")).alias("per_100"),
        pl.when(enough).then((pl.col("lost_per_hand") - half).clip(0.0)).alias("lost_lo"),
        pl.when(enough).then(pl.col("lost_per_hand") + half).alias("lost_hi"),
    )
    for k in KINDS:
        df = with_wilson(df, f"{k}_mistakes", f"{k}_judged", prefix=f"{k}_")
        df = df.with_columns((pl.col(f"{k}_lost") / pl.col("hands")).alias(f"{k}_per_hand"))
    return df.sort(["lost_per_hand", "who"], descending=[True, False], nulls_last=True)


def leak_bars_data(table: pl.DataFrame) -> pl.DataFrame:
    """`leak_table`'s rows as the "Where the points go" chart draws them (charts.leak_bars): a
    row per who and kind, `who, kind, kind_label, lost, points_lost, hands, judged, mistakes,
    total`."""
    parts = [
        table.select(
            "who",
            pl.lit(k).alias("kind"),
            pl.lit(kind_label(k)).alias("kind_label"),
            pl.col(f"{k}_per_hand").alias("lost"),
            pl.col(f"{k}_lost").alias("points_lost"),
            "hands",
            pl.col(f"{k}_judged").alias("judged"),
            pl.col(f"{k}_mistakes").alias("mistakes"),
            pl.col("lost_per_hand").alias("total"),
        )
        for k in KINDS
    ]
    return pl.concat(parts).sort(["total", "who", "kind"], descending=[True, False, False])


def by_code(
    con: Connection, f: Filters, by: str = "player", who: str | None = None
) -> pl.DataFrame:
    """Where the points go: per review code (of one player/style/persona, or everyone), `kind,
    code, decisions, judged, mistakes, opportunities, rate, lo, hi, points_lost, lost_per_hand`
    (per seat-hand of the group). `opportunities` is the number of decisions of the code's kind
    judged (every fourth seat judged for `fed_points`), and `rate` the code's decisions per
    opportunity with its Wilson interval: how often a fourth seat fed points, not the share of
    `fed_points` that were mistakes (all of them). `judged` is 0 for a note and a code the review
    could not judge (`decisions` counts them): their opportunities and rate are null. Most points
    lost first."""
    df = _codes(con, f, by, who)
    leaks = leak_table(con, f, by)
    if who is not None:
        leaks = leaks.filter(pl.col("who") == who)
    per_kind = {k: int(leaks[f"{k}_judged"].sum() or 0) for k in KINDS}
    opportunities = pl.Series(
        "opportunities",
        [per_kind.get(k) if j else None for k, j in zip(df["kind"], df["judged"], strict=True)],
        dtype=pl.Int64,
    )
    df = df.drop("rate", "lo", "hi").with_columns(opportunities)
    df = with_wilson(
        df.with_columns(pl.col("opportunities").fill_null(0).alias("_n")), "decisions", "_n"
    )
    df = df.with_columns(
        [
            pl.when(pl.col("opportunities").is_null()).then(None).otherwise(pl.col(c)).alias(c)
            for c in ("lo", "hi")
        ]
    ).drop("_n")
    return df.select(
        "kind",
        "code",
        "decisions",
        "judged",
        "mistakes",
        "opportunities",
        "rate",
        "lo",
        "hi",
        "points_lost",
        "lost_per_hand",
    )


def _codes(con: Connection, f: Filters, by: str, who: str | None) -> pl.DataFrame:
    """`by_code` before its opportunities: `rate` is mistakes per decision of the code."""
    col = _group(by)
    if rollup.usable(f):
        where = f"{col} IS NOT NULL" + (f" AND {col} = $who" if who is not None else "")
        params = {"who": who} if who is not None else None
        seats = rollup.query(
            con, f, "seat_reviews", "sum(seats)::BIGINT AS n", where=where, params=params
        )["n"][0]
        df = rollup.query(
            con,
            f,
            "review_codes",
            f"kind, code, sum(n)::BIGINT AS decisions, "
            f"coalesce(sum(n) FILTER (WHERE {judged_sql()}), 0)::BIGINT AS judged, "
            "sum(mistakes)::BIGINT AS mistakes, sum(cost) AS points_lost",
            where=where,
            tail="GROUP BY kind, code",
            params=params,
        ).with_columns((pl.col("points_lost") / (seats or 0)).alias("lost_per_hand"))
        df = with_wilson(df, "mistakes", "judged")
        return df.sort(["points_lost", "code"], descending=[True, False])
    where = f"fs.{col} IS NOT NULL" + (f" AND fs.{col} = $who" if who is not None else "")
    df = run(
        con,
        f,
        f"""
        , hands AS (SELECT count(*) AS n FROM fs WHERE {where})
        SELECT d.kind, d.code, count(*)::BIGINT AS decisions,
               count(*) FILTER (WHERE {judged_sql("d")})::BIGINT AS judged,
               count(*) FILTER (WHERE d.is_mistake)::BIGINT AS mistakes,
               sum(d.cost) AS points_lost,
               sum(d.cost) / any_value(hands.n) AS lost_per_hand
        FROM fs JOIN {_decisions(f)} d USING (source, hand_id, seat), hands
        WHERE {where}
        GROUP BY d.kind, d.code
        UNION ALL
        SELECT 'last_seat', code, sum(n)::BIGINT,
               coalesce(sum(n) FILTER (WHERE code = '{SOUND}'), 0)::BIGINT, 0, 0.0, 0.0
        FROM (
            UNPIVOT (SELECT {COUNTED_CODES} FROM fs WHERE {where})
            ON {COUNTED_CODES} INTO NAME code VALUE n
        )
        GROUP BY code HAVING sum(n) > 0
        """,
        params={"who": who} if who is not None else None,
    )
    df = with_wilson(df, "mistakes", "judged")
    return df.sort(["points_lost", "code"], descending=[True, False])


def costliest(con: Connection, f: Filters, player: str, limit: int = 25) -> pl.DataFrame:
    """A player's costliest flagged decisions: `source, hand_id, played_at, trick, seat, kind,
    code, severity, cost, play, better, p_fail, p_error, outcome, reason`, dearest first."""
    if rollup.usable(f) and limit <= WORST_KEPT:
        return rollup.query(
            con,
            f,
            "review_worst",
            "source, hand_id, played_at, trick, seat, kind, code, severity, cost, play, better, "
            "p_fail, p_error, outcome, reason",
            where="player = $player",
            tail="ORDER BY cost DESC, source, hand_id, decision_no LIMIT $limit",
            params={"player": player, "limit": limit},
        ).sort(["cost", "source", "hand_id", "trick"], descending=[True, False, False, False])
    return run(
        con,
        f,
        f"""
        SELECT d.source, d.hand_id, fh.played_at, d.trick, d.seat, d.kind, d.code, d.severity,
               d.cost, d.play, d.better, d.p_fail, d.p_error, d.outcome, d.reason
        FROM fs JOIN {_decisions(f)} d USING (source, hand_id, seat) JOIN fh USING (source, hand_id)
        WHERE fs.player = $player AND d.is_mistake
        ORDER BY d.cost DESC, d.source, d.hand_id, d.decision_no
        LIMIT $limit
        """,
        params={"player": player, "limit": limit},
        order=None,
    ).sort(["cost", "source", "hand_id", "trick"], descending=[True, False, False, False])


_COLUMNS = (
    "decision_no, trick, seat, kind, code, "
    f"CASE WHEN kind <> 'note' AND NOT {judged_sql()} THEN 'not judged' ELSE severity END "
    "AS severity, cost, play, better, p_fail, p_error, outcome, reason"
)
"""A trick's or hand's decisions as Hand replay lists them: one the review could not judge
(stored with severity `ok`) says so in its severity."""

_COUNTED_ROWS = f"""
SELECT NULL::INTEGER AS decision_no, t.trick, p.seat, 'last_seat' AS kind,
       CASE WHEN t.last_seat_ok THEN '{SOUND}' ELSE '{SKIPPED}' END AS code,
       CASE WHEN t.last_seat_ok THEN 'ok' ELSE 'not judged' END AS severity,
       0.0::DOUBLE AS cost, p.cards AS play, NULL::VARCHAR AS better,
       NULL::DOUBLE AS p_fail, NULL::DOUBLE AS p_error, NULL::VARCHAR AS outcome,
       CASE WHEN t.last_seat_ok THEN 'played ' || p.cards || ': no legal play does better'
            ELSE '{skipped_reason()}' END AS reason
FROM tricks t JOIN plays p USING (source, hand_id, trick)
WHERE t.source = $source AND t.hand_id = $hand_id AND (t.last_seat_ok OR t.last_seat_skipped)
  AND p.position = 4
"""
"""The fourth seats judged sound or not judged, which have no `decisions` row, rebuilt from their
trick: the review's code, severity (`not judged` as `_COLUMNS` says it) and cost, the cards
played and its reason (cards as stored tokens)."""


def _in_order(df: pl.DataFrame) -> pl.DataFrame:
    """The review's order: buries first, then trick by trick, a trick's fourth seat judged sound
    or skipped (no number) last, as `shengji review` lists them."""
    return df.sort(["trick", "decision_no"], nulls_last=[False, True])


def trick_decisions(con: Connection, source: str, hand_id: str, trick: int) -> pl.DataFrame:
    """Every judged decision (and note) of one trick, for Hand replay: `decision_no, trick, seat,
    kind, code, severity, cost, play, better, p_fail, p_error, outcome, reason`; a fourth seat
    judged sound or skipped has no `decision_no`."""
    return _in_order(
        con.sql(
            f"""
        SELECT {_COLUMNS}
        FROM decisions WHERE source = $source AND hand_id = $hand_id AND trick = $trick
        UNION ALL
        SELECT * FROM ({_COUNTED_ROWS}) WHERE trick = $trick
        """,
            params={"source": source, "hand_id": hand_id, "trick": trick},
        ).pl()
    )


def hand_decisions(con: Connection, source: str, hand_id: str) -> pl.DataFrame:
    """Every judged decision of one hand (trick null for a bury), in the review's order."""
    return _in_order(
        con.sql(
            f"""
        SELECT {_COLUMNS}
        FROM decisions WHERE source = $source AND hand_id = $hand_id
        UNION ALL
        {_COUNTED_ROWS}
        """,
            params={"source": source, "hand_id": hand_id},
        ).pl()
    )


def trend(con: Connection, f: Filters, player: str, period: str = "month") -> pl.DataFrame:
    """One player's decisions per `period` (`week` or `month`): `period, hands, judged,
    mistakes, points_lost, rate, lo, hi` (mistakes per decision judged, Wilson), oldest first."""
    if period not in ("week", "month"):
        raise ValueError(f"unknown period {period!r}")
    df = run(
        con,
        f,
        f"""
        , per AS (
            SELECT date_trunc('{period}', fs.played_at)::DATE AS period,
                   count(d.kind) FILTER (WHERE {judged_sql("d")}) + fs.last_seat_ok AS judged,
                   count(*) FILTER (WHERE d.is_mistake) AS mistakes,
                   coalesce(sum(d.cost), 0) AS lost
            FROM fs LEFT JOIN {_decisions(f)} d USING (source, hand_id, seat)
            WHERE fs.player = $player AND fs.played_at IS NOT NULL
            GROUP BY fs.played_at, fs.source, fs.hand_id, fs.seat, fs.last_seat_ok
        )
        SELECT period, count(*)::BIGINT AS hands, sum(judged)::BIGINT AS judged,
               sum(mistakes)::BIGINT AS mistakes, sum(lost) AS points_lost
        FROM per GROUP BY period
        """,
        params={"player": player},
        order=["period"],
    )
    return with_wilson(df, "mistakes", "judged")
