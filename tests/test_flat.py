"""shengji/flat.py: a replayed hand's rows, in the store's column order and adding up.

The store's digests (tests/test_store_digest.py) pin every value end to end; these tests say what
a hand's rows must hold whatever the digests are, on the first hands of the bundled sample."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import pytest

from ingest.decode import replay_text
from ingest.schema import BIDS, DECISIONS, FINDINGS, HANDS, PLAYS, SEATS, TRICKS
from shengji.coach.review import review_for_store
from shengji.flat import HandRows, add_hand, cards_text
from shengji.results import HandReplay

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"


def _replays(n: int) -> list[HandReplay]:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as f:
        lines = list(itertools.islice(f, n))
    return [replay_text(x, line=i, strict=False) for i, x in enumerate(lines, 1)]


@pytest.fixture(scope="module")
def hands() -> list[tuple[HandReplay, HandRows]]:
    out = []
    for r in _replays(40):
        rows = HandRows()
        add_hand(rows, r, review_for_store(r), file="f", line=1, digest="d", run_id=7, seq=3)
        out.append((r, rows))
    return out


def _col(table: object, row: tuple[object, ...], name: str) -> object:
    return row[table.column_names.index(name)]  # type: ignore[attr-defined]


def test_every_row_has_its_tables_columns_and_the_hands_seq(
    hands: list[tuple[HandReplay, HandRows]],
) -> None:
    tables = (HANDS, SEATS, BIDS, TRICKS, PLAYS, FINDINGS, DECISIONS)
    seen = dict.fromkeys((t.name for t in tables), 0)
    for r, rows in hands:
        by_name = rows.by_table()
        for t in tables:
            for row in by_name[t.name]:
                assert len(row) == len(t.column_names) + 1, t.name
                assert row[:2] == (r.source, r.hand_id), t.name
                assert row[-1] == 3, t.name
                seen[t.name] += 1
    assert all(seen[t] for t in ("hands", "seats", "bids", "tricks", "plays", "decisions")), seen


def test_a_hands_rows_add_up(hands: list[tuple[HandReplay, HandRows]]) -> None:
    for r, rows in hands:
        (hand,) = rows.hands
        assert _col(HANDS, hand, "n_tricks") == len(r.tricks) == len(rows.tricks)
        assert _col(HANDS, hand, "ingest_run") == 7
        assert _col(HANDS, hand, "line_hash") == "d"
        assert len(rows.seats) == 4
        assert sum(_col(SEATS, s, "tricks_won") for s in rows.seats) == len(r.tricks)  # type: ignore[misc]
        assert sum(_col(SEATS, s, "points_won") for s in rows.seats) == sum(  # type: ignore[misc]
            t.points for t in r.tricks
        )
        assert sum(_col(SEATS, s, "tricks_led") for s in rows.seats) == len(r.tricks)  # type: ignore[misc]
        plays = iter(rows.plays)
        for t in r.tricks:
            for pos, p in enumerate(t.plays, 1):
                row = next(plays)
                assert _col(PLAYS, row, "trick") == t.number
                assert _col(PLAYS, row, "position") == pos
                assert _col(PLAYS, row, "seat") == p.seat
                assert _col(PLAYS, row, "cards") == cards_text(p.cards)
                assert _col(PLAYS, row, "n_cards") == len(p.cards)
        assert next(plays, None) is None
