"""The `decisions` table: one row per decision the review judged, filled at ingest, replaced with
its hand and rebuilt by a fresh ingest (docs/schema.md, docs/review.md)."""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Any

from store_factory import duplicate_keys, orphans

from ingest.pipeline import ingest
from ingest.rows import BatchBuilder
from ingest.store import open_reader
from shengji.cards import format_cards
from shengji.hhfile import iter_lines
from shengji.replay import replay_line
from shengji.review import review_hand

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"


def _lines(n: int) -> list[str]:
    return [text for _, text in islice(iter_lines(SAMPLE), n)]


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = open_reader(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_ingest_stores_every_judged_decision(tmp_path: Path) -> None:
    lines = _lines(4)
    src = tmp_path / "in.jsonl"
    src.write_text("".join(line + "\n" for line in lines))
    db = tmp_path / "t.duckdb"
    ingest([src], db, workers=0, progress=False)
    rows = _query(
        db,
        "SELECT hand_id, decision_no, trick, seat, kind, code, severity, is_mistake, cost, play, "
        "better, p_fail, p_error, outcome, reason FROM decisions ORDER BY hand_id, decision_no",
    )
    expected = []
    for text in lines:
        r = replay_line(text)
        for i, d in enumerate(review_hand(r), 1):
            expected.append(
                (
                    r.hand_id,
                    i,
                    d.trick,
                    d.seat,
                    d.kind,
                    d.code,
                    d.severity,
                    d.is_mistake,
                    d.cost,
                    format_cards(sorted(d.play)),
                    None if d.better is None else format_cards(sorted(d.better)),
                    d.p_fail,
                    d.p_error,
                    d.outcome,
                    d.reason,
                )
            )
    assert rows == expected and len(rows) > 50
    con = open_reader(db)
    try:
        assert set(orphans(con).values()) == {0}
        assert duplicate_keys(con)["decisions"] == 0
        (bad,) = con.execute(
            "SELECT count(*) FROM decisions d ANTI JOIN tricks t USING (source, hand_id, trick) "
            "WHERE d.trick IS NOT NULL"
        ).fetchall()[0]
        assert bad == 0
    finally:
        con.close()
    # Re-ingesting the same file changes nothing; a fresh ingest rebuilds the same rows.
    ingest([src], db, workers=0, progress=False)
    assert _query(db, "SELECT count(*) FROM decisions") == [(len(rows),)]
    ingest([src], db, workers=0, progress=False, fresh=True)
    assert _query(db, "SELECT count(*) FROM decisions") == [(len(rows),)]


def test_rejected_hands_have_no_decisions_and_no_review_errors() -> None:
    builder = BatchBuilder("in.jsonl", 1)
    for i, text in enumerate([*_lines(3), '{"source":"x","hand_id":"cut"'], 1):
        builder.add(replay_line(text, strict=False), text, i)
    batch = builder.finish()
    assert builder.review_errors == 0
    hands = set(batch.tables["decisions"].column("hand_id").to_pylist())
    assert hands == {"s2026-m001-h001", "s2026-m001-h002", "s2026-m001-h003"}
