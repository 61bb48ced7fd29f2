"""The `decisions` table: one row per decision the review judged, the fourth seats judged sound
counted on their seat and marked on their trick instead, filled at ingest, replaced with its hand
and rebuilt by a fresh ingest (docs/schema.md, docs/review.md)."""

from __future__ import annotations

from collections import Counter
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from store_factory import duplicate_keys, orphans

from ingest.pipeline import ingest
from ingest.rows import BatchBuilder
from ingest.schema import judged_sql
from ingest.store import open_reader
from shengji.cards import format_cards
from shengji.coach.review import review_hand
from shengji.hhfile import iter_lines
from shengji.replay import replay_line

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
    lines = _lines(6)  # the fifth and sixth skip a fourth seat with too many plays
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
    sound = []
    skipped = []
    for text in lines:
        r = replay_line(text)
        for i, d in enumerate(review_hand(r), 1):
            if d.code == "last_seat_ok":
                sound.append((r.hand_id, d.trick, d.seat))
                continue
            if d.code == "last_seat_skipped":
                skipped.append((r.hand_id, d.trick, d.seat))
                continue
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
    assert rows == expected and len(rows) > 20
    # The sound fourth seats: a mark on each trick (the seat is its fourth play's), a count on
    # each seat.
    marked = _query(
        db,
        "SELECT t.hand_id, t.trick, p.seat FROM tricks t JOIN plays p USING (source, hand_id, trick) "
        "WHERE t.last_seat_ok AND p.position = 4 ORDER BY ALL",
    )
    assert marked == sorted(sound) and len(marked) > 50
    counted = _query(
        db,
        "SELECT hand_id, seat, last_seat_ok FROM seats WHERE last_seat_ok > 0 ORDER BY ALL",
    )
    per_seat = Counter((hand, seat) for hand, _, seat in sound)
    assert counted == [(hand, seat, n) for (hand, seat), n in sorted(per_seat.items())]
    # So are the fourth seats skipped for their many legal plays.
    assert skipped, "the sample's first hands skip some fourth seats"
    marked = _query(
        db,
        "SELECT t.hand_id, t.trick, p.seat FROM tricks t JOIN plays p USING (source, hand_id, trick) "
        "WHERE t.last_seat_skipped AND p.position = 4 ORDER BY ALL",
    )
    assert marked == sorted(skipped)
    counted = _query(
        db,
        "SELECT hand_id, seat, last_seat_skipped FROM seats WHERE last_seat_skipped > 0 "
        "ORDER BY ALL",
    )
    per_seat = Counter((hand, seat) for hand, _, seat in skipped)
    assert counted == [(hand, seat, n) for (hand, seat), n in sorted(per_seat.items())]
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


def test_stored_rows_and_counts_give_the_full_reviews_totals(tmp_path: Path) -> None:
    """Per seat and in the rollups, the rows and the sound fourth seats' counts add up to exactly
    what `review_hand` judged: decisions judged (by kind and code), mistakes and points lost."""
    lines = _lines(30)
    src = tmp_path / "in.jsonl"
    src.write_text("".join(line + "\n" for line in lines))
    db = tmp_path / "t.duckdb"
    ingest([src], db, workers=0, progress=False)
    per_seat: dict[tuple[str, int, str], list[Any]] = {}
    codes: Counter[str] = Counter()
    for text in lines:
        r = replay_line(text)
        for d in review_hand(r):
            codes[d.code] += 1
            if not d.judged:
                continue
            tally = per_seat.setdefault((r.hand_id, d.seat, d.kind), [0, 0, 0.0])
            tally[0] += 1
            tally[1] += d.is_mistake
            tally[2] += d.cost
    assert codes["last_seat_ok"] > 100
    assert codes["last_seat_skipped"] > 0  # counted, but neither judged nor a mistake
    stored = _query(
        db,
        f"""
        WITH rows AS (
            SELECT hand_id, seat, kind, count(*) AS judged,
                   count(*) FILTER (WHERE is_mistake) AS mistakes, sum(cost) AS lost
            FROM decisions WHERE {judged_sql()} GROUP BY ALL
            UNION ALL
            SELECT hand_id, seat, 'last_seat', last_seat_ok, 0, 0.0
            FROM seats WHERE last_seat_ok > 0
        )
        SELECT hand_id, seat, kind, sum(judged), sum(mistakes), sum(lost) FROM rows GROUP BY ALL
        """,
    )
    got = {(h, s, k): [j, m, lost] for h, s, k, j, m, lost in stored}
    assert got.keys() == per_seat.keys()
    for key, (judged, mistakes, lost) in per_seat.items():
        assert got[key][:2] == [judged, mistakes], key
        assert got[key][2] == pytest.approx(lost, abs=1e-9), key
    # The Coaching page's rollups say the same.
    (judged, mistakes, lost, last_judged) = _query(
        db,
        "SELECT sum(judged), sum(mistakes), sum(lost), sum(last_seat_judged) FROM seat_reviews",
    )[0]
    assert judged == sum(t[0] for t in per_seat.values())
    assert mistakes == sum(t[1] for t in per_seat.values())
    assert lost == pytest.approx(sum(t[2] for t in per_seat.values()), abs=1e-6)
    assert last_judged == sum(t[0] for (_, _, k), t in per_seat.items() if k == "last_seat")
    by_code = dict(_query(db, "SELECT code, sum(n) FROM review_codes GROUP BY code"))
    assert by_code == dict(codes)
