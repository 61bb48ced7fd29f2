"""The computer analysis of hands (shengji/coach/analysis.py) kept in the store, beside the hands.

Two tables, outside the ingest's schema (`ingest.schema.TABLES`): a store without them is a
complete store, and a store written before them needs no rebuild. They are created by the first
analysis stored:

- `analysis_hands`: one row per analysed hand (`source`, `hand_id`): the engine's version, the
  settings, whether the run completed, how many decisions it judged and flagged, and the
  `content_hash` of the hand it analysed;
- `analysis_decisions`: one row per decision (`source`, `hand_id`, `number`) with the fields of
  `analysis.judgement_json` (docs/analysis.md), its alternatives as JSON text.

An analysis is written as an ingest is (`store.Publication`): under the writer's lock, into a
new version copied from the current one, published by swapping the pointer, so readers (the
dashboard) are never blocked and never see half of it. The lock is held only while the rows are
written, not while the hand is analysed. An ingest copies the current version too, so the rows
survive every later ingest (a `--fresh` rebuild starts empty: analyses are then gone with
everything else). Readers trust a row only when its `engine` is the running `analysis.ENGINE`
and its `content_hash` is the stored hand's: a changed hand, or a new engine, reads as not
analysed, and analysing again replaces the rows.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from shengji.coach.analysis import HandAnalysis, analysis_json, judgement_json

from .store import Publication, StoreError

HANDS_TABLE = "analysis_hands"
DECISIONS_TABLE = "analysis_decisions"

DDL = (
    f"""
    CREATE TABLE IF NOT EXISTS {HANDS_TABLE} (
        source VARCHAR NOT NULL,
        hand_id VARCHAR NOT NULL,
        content_hash VARCHAR,
        engine VARCHAR NOT NULL,
        settings VARCHAR NOT NULL,
        complete BOOLEAN NOT NULL,
        decisions INTEGER NOT NULL,
        judged INTEGER NOT NULL,
        flagged INTEGER NOT NULL,
        analysed_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (source, hand_id)
    )
    """,
    f"""
    CREATE TABLE IF NOT EXISTS {DECISIONS_TABLE} (
        source VARCHAR NOT NULL,
        hand_id VARCHAR NOT NULL,
        number INTEGER NOT NULL,
        trick INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        kind VARCHAR NOT NULL,
        play VARCHAR NOT NULL,
        judged BOOLEAN NOT NULL,
        best VARCHAR,
        loss DOUBLE NOT NULL,
        loss_se DOUBLE NOT NULL,
        worlds INTEGER NOT NULL,
        flagged BOOLEAN NOT NULL,
        severity VARCHAR NOT NULL,
        value DOUBLE NOT NULL,
        best_value DOUBLE NOT NULL,
        attackers DOUBLE NOT NULL,
        levels DOUBLE NOT NULL,
        best_levels DOUBLE NOT NULL,
        candidates INTEGER NOT NULL,
        legal INTEGER,
        screened INTEGER NOT NULL,
        pruned INTEGER NOT NULL,
        note VARCHAR NOT NULL,
        alternatives VARCHAR NOT NULL,
        engine VARCHAR NOT NULL,
        PRIMARY KEY (source, hand_id, number)
    )
    """,
)

_COLUMNS = (
    "number",
    "trick",
    "seat",
    "kind",
    "play",
    "judged",
    "best",
    "loss",
    "loss_se",
    "worlds",
    "flagged",
    "severity",
    "value",
    "best_value",
    "attackers",
    "levels",
    "best_levels",
    "candidates",
    "legal",
    "screened",
    "pruned",
    "note",
)


def create_tables(con: duckdb.DuckDBPyConnection) -> None:
    for sql in DDL:
        con.execute(sql)


def write_analysis(
    con: duckdb.DuckDBPyConnection, analysis: HandAnalysis, content_hash: str | None
) -> None:
    """Replace the hand's analysis with `analysis` on an open writer's connection."""
    create_tables(con)
    key = {"s": analysis.source, "h": analysis.hand_id}
    con.execute(f"DELETE FROM {DECISIONS_TABLE} WHERE source = $s AND hand_id = $h", key)
    con.execute(f"DELETE FROM {HANDS_TABLE} WHERE source = $s AND hand_id = $h", key)
    settings = json.dumps(analysis_json(analysis)["settings"], sort_keys=True)
    ds = analysis.decisions
    con.execute(
        f"INSERT INTO {HANDS_TABLE} VALUES ($s, $h, $c, $e, $settings, $complete, $n, $j, $f, $t)",
        {
            **key,
            "c": content_hash,
            "e": analysis.engine,
            "settings": settings,
            "complete": analysis.complete,
            "n": len(ds),
            "j": sum(d.judged for d in ds),
            "f": sum(d.flagged for d in ds),
            "t": datetime.now(UTC),
        },
    )
    rows = []
    for d in ds:
        j = judgement_json(d)
        rows.append(
            (
                analysis.source,
                analysis.hand_id,
                *(j[c] for c in _COLUMNS),
                json.dumps(j["alternatives"], ensure_ascii=False),
                analysis.engine,
            )
        )
    if rows:
        marks = ", ".join("?" * (len(_COLUMNS) + 4))
        con.executemany(f"INSERT INTO {DECISIONS_TABLE} VALUES ({marks})", rows)


def store_analysis(db: str | Path, analysis: HandAnalysis, content_hash: str | None) -> int:
    """Publish a new version of the store at `db` holding `analysis` for its hand (replacing
    any earlier one); the version number. Waits for an ingest under way to finish. Raises
    StoreError when the store cannot be written (it is then as it was)."""
    with Publication(db) as pub:
        assert pub.con is not None
        try:
            write_analysis(pub.con, analysis, content_hash)
        except duckdb.Error as e:
            raise StoreError(f"cannot store the analysis in {db}: {e}") from e
        return pub.publish()
