"""The computer analysis stored with the hands (ingest/analysis_store.py, docs/analysis.md): one
hand's decisions for Hand replay, the figures over the analysed hands for Coaching, and the
evaluation graph.

A stored analysis counts only when its `engine` is the engine asked for (the running
`analysis.ENGINE`, passed in by the page) and its `content_hash` is the stored hand's: an
analysis of a hand since changed, or by another engine, reads as not there (`hand_state` says
which). A store without the analysis tables has no analysed hand.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl

from .filters import Filters
from .query import Connection, plain, run

HANDS_TABLE = "analysis_hands"
DECISIONS_TABLE = "analysis_decisions"
SEVERITIES = ("inaccuracy", "mistake", "blunder")
SEVERITY_COLOURS = {
    "ok": "#999999",
    "inaccuracy": "#E69F00",
    "mistake": "#D55E00",
    "blunder": "#B00020",
}
"""Okabe–Ito's orange and vermilion for the review's severities, a deep red for a blunder; the
decisions not flagged in grey."""


def present(con: Connection) -> bool:
    """The store holds the analysis tables (written by the first analysis stored)."""
    found = con.sql(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name IN ($a, $b)",
        params={"a": HANDS_TABLE, "b": DECISIONS_TABLE},
    ).fetchall()[0][0]
    return int(found) == 2


def hand_state(con: Connection, source: str, hand_id: str, engine: str) -> dict[str, Any]:
    """Whether the hand is analysed: `state` is `none` (never analysed), `engine` (by another
    engine: `stored_engine` names it), `changed` (the hand changed since), or `ok`, with
    `complete`, `decisions`, `judged`, `flagged`, `settings` (JSON text) and `analysed_at`."""
    if not present(con):
        return {"state": "none"}
    df = plain(
        con,
        f"""
        SELECT a.engine, a.content_hash = h.content_hash AS same, a.complete, a.decisions,
               a.judged, a.flagged, a.settings, a.analysed_at
        FROM {HANDS_TABLE} a JOIN hands h USING (source, hand_id)
        WHERE a.source = $s AND a.hand_id = $h
        """,
        {"s": source, "h": hand_id},
    )
    if not df.height:
        return {"state": "none"}
    row = df.row(0, named=True)
    state = "engine" if row["engine"] != engine else "ok" if row["same"] else "changed"
    return {
        "state": state,
        "stored_engine": row["engine"],
        "complete": bool(row["complete"]),
        "decisions": int(row["decisions"]),
        "judged": int(row["judged"]),
        "flagged": int(row["flagged"]),
        "settings": row["settings"],
        "analysed_at": row["analysed_at"],
    }


def hand_decisions(con: Connection, source: str, hand_id: str, engine: str) -> pl.DataFrame:
    """The hand's analysed decisions in order (empty unless `hand_state` is `ok`): the stored
    fields (docs/analysis.md) with `player` (the seat's) and `position` (the play's place in its
    trick, 1 = the lead)."""
    if not present(con):
        return pl.DataFrame()
    return plain(
        con,
        f"""
        SELECT d.number, d.trick, coalesce(p.position, 0) AS position, d.seat, s.player, d.kind, d.play, d.judged,
               d.best, d.loss, d.loss_se, d.worlds, d.flagged, d.severity, d.value,
               d.best_value, d.attackers, d.levels, d.best_levels, d.candidates, d.legal,
               d.screened, d.pruned, d.note,
               d.alternatives
        FROM {DECISIONS_TABLE} d
        JOIN {HANDS_TABLE} a USING (source, hand_id)
        JOIN hands h USING (source, hand_id)
        LEFT JOIN plays p ON p.source = d.source AND p.hand_id = d.hand_id
             AND p.trick = d.trick AND p.seat = d.seat
        LEFT JOIN seats s ON s.source = d.source AND s.hand_id = d.hand_id AND s.seat = d.seat
        WHERE d.source = $s AND d.hand_id = $h AND a.engine = $e AND d.engine = $e
          AND a.content_hash = h.content_hash
        ORDER BY d.number
        """,
        {"s": source, "h": hand_id, "e": engine},
    )


def summary(con: Connection, f: Filters, engine: str) -> pl.DataFrame:
    """Over the analysed hands under the filters (with players chosen, their decisions only): one
    row per kind (`lead`, `follow`): `hands` (analysed hands under the filters, the same on every
    row), `decisions`, `judged`, `flagged`, one column per severity, `points_lost` (expected
    points lost by the flagged decisions), `lost_per_hand` and `loss_per_judged` (expected points
    lost per judged decision, flagged or not). Empty when no hand under the filters is
    analysed."""
    if not present(con):
        return pl.DataFrame()
    severities = ", ".join(
        f"count(*) FILTER (WHERE d.flagged AND d.severity = '{s}')::BIGINT AS {s}"
        for s in SEVERITIES
    )
    df = run(
        con,
        f,
        f"""
        , ah AS (
            SELECT fh.source, fh.hand_id FROM fh
            JOIN {HANDS_TABLE} a USING (source, hand_id)
            WHERE a.engine = $e AND a.content_hash = fh.content_hash
        ), n AS (SELECT count(*) AS hands FROM ah)
        SELECT d.kind, any_value(n.hands)::BIGINT AS hands, count(*)::BIGINT AS decisions,
               count(*) FILTER (WHERE d.judged)::BIGINT AS judged,
               count(*) FILTER (WHERE d.flagged)::BIGINT AS flagged, {severities},
               coalesce(sum(d.loss) FILTER (WHERE d.flagged), 0.0) AS points_lost,
               coalesce(sum(d.loss) FILTER (WHERE d.flagged), 0.0) / any_value(n.hands)
                   AS lost_per_hand,
               avg(d.loss) FILTER (WHERE d.judged) AS loss_per_judged
        FROM ah JOIN {DECISIONS_TABLE} d USING (source, hand_id)
        JOIN (SELECT DISTINCT source, hand_id, seat FROM fs) USING (source, hand_id, seat), n
        WHERE d.engine = $e
        GROUP BY d.kind
        """,
        params={"e": engine},
    )
    return df.sort("kind", descending=True)  # leads first


def analysed_hands(con: Connection, f: Filters, engine: str) -> int:
    """Hands under the filters with a current analysis."""
    if not present(con):
        return 0
    df = run(
        con,
        f,
        f"""
        SELECT count(*)::BIGINT AS n FROM fh JOIN {HANDS_TABLE} a USING (source, hand_id)
        WHERE a.engine = $e AND a.content_hash = fh.content_hash
        """,
        params={"e": engine},
    )
    return int(df["n"][0])


# --- the evaluation graph ----------------------------------------------------------------------


def graph_data(decisions: pl.DataFrame) -> pl.DataFrame:
    """The judged decisions as the evaluation graph draws them: `number`, `trick`, `position`,
    `who`, `kind`, `attackers`, `severity` (`ok` when not flagged), `loss`, `loss_se`, `worlds`,
    `mark` (a flagged decision's severity, else `not flagged`). A decision with one distinct
    play has no figure and is left out."""
    if not decisions.height:
        return pl.DataFrame(
            schema={
                "number": pl.Int64,
                "trick": pl.Int64,
                "position": pl.Int64,
                "who": pl.String,
                "kind": pl.String,
                "attackers": pl.Float64,
                "severity": pl.String,
                "loss": pl.Float64,
                "loss_se": pl.Float64,
                "worlds": pl.Int64,
                "mark": pl.String,
            }
        )
    return decisions.filter(pl.col("judged")).select(
        pl.col("number").cast(pl.Int64),
        pl.col("trick").cast(pl.Int64),
        pl.col("position").cast(pl.Int64),
        pl.coalesce(
            pl.col("player").cast(pl.String),
            pl.lit("seat ") + pl.col("seat").cast(pl.String),
        ).alias("who"),
        "kind",
        pl.col("attackers").cast(pl.Float64),
        pl.when(pl.col("flagged"))
        .then(pl.col("severity"))
        .otherwise(pl.lit("ok"))
        .alias("severity"),
        pl.col("loss").cast(pl.Float64),
        pl.col("loss_se").cast(pl.Float64),
        pl.col("worlds").cast(pl.Int64),
        pl.when(pl.col("flagged"))
        .then(pl.col("severity"))
        .otherwise(pl.lit("not flagged"))
        .alias("mark"),
    )


def evaluation_chart(df: pl.DataFrame, final: float | None = None) -> alt.LayerChart:
    """The evaluation graph of `graph_data(df)`: the expected attackers' final total after each
    judged decision, in the order played; flagged decisions drawn larger in their severity's
    colour. Every point's tooltip names the trick, the player, the expected loss with its
    standard error and the worlds it rests on. With `final`, the hand's actual final total as a
    dashed rule, for comparison."""
    domain = ["not flagged", *SEVERITIES]
    colours = [SEVERITY_COLOURS["ok"], *(SEVERITY_COLOURS[s] for s in SEVERITIES)]
    x = alt.X("number:Q", title="decision (every play of the hand, in order)")
    y = alt.Y("attackers:Q", title="attackers' expected total")
    base = alt.Chart(df)
    line = base.mark_line(color="#555555", strokeWidth=1.5).encode(x=x, y=y)
    points = base.mark_point(filled=True).encode(
        x=x,
        y=y,
        color=alt.Color("mark:N", title="decision", scale=alt.Scale(domain=domain, range=colours)),
        size=alt.Size(
            "mark:N",
            scale=alt.Scale(domain=domain, range=[30, 90, 130, 200]),
            title="decision",
        ),
        shape=alt.Shape(
            "mark:N",
            scale=alt.Scale(domain=domain, range=["circle", "triangle-down", "diamond", "cross"]),
            title="decision",
        ),
        tooltip=[
            alt.Tooltip("number:Q", title="decision"),
            alt.Tooltip("trick:Q", title="trick"),
            alt.Tooltip("who:N", title="player"),
            alt.Tooltip("kind:N", title="kind"),
            alt.Tooltip("attackers:Q", title="expected attackers' total", format=".1f"),
            alt.Tooltip("mark:N", title="verdict"),
            alt.Tooltip("loss:Q", title="expected points lost", format=".1f"),
            alt.Tooltip("loss_se:Q", title="± standard error", format=".1f"),
            alt.Tooltip("worlds:Q", title="worlds"),
        ],
    )
    layers: list[alt.Chart] = [points, line]
    if final is not None:
        rule = pl.DataFrame({"final": [float(final)], "what": ["the hand's actual final total"]})
        layers.append(
            alt.Chart(rule)
            .mark_rule(color="#0072B2", strokeDash=[6, 4])
            .encode(
                y="final:Q",
                tooltip=[
                    alt.Tooltip("what:N", title=""),
                    alt.Tooltip("final:Q", title="attackers' points"),
                ],
            )
        )
    return alt.LayerChart(layer=layers, height=260)
