"""What the store keeps beyond the replay's verdicts: each seat's bot style and persona, from the
hand's `_personas` source field (NULL when the field is missing or unreadable, never a finding),
and each trick's reason, the replay's own "who won and why"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ingest.pipeline import ingest
from ingest.store import open_reader
from shengji.replay import replay_line
from shengji.results import NO_PERSONA, SeatPersona, read_personas
from shengji.rules import FOUR_DECK
from shengji.sim.match import match_specs
from shengji.sim.personas import persona
from shengji.sim.run import run_matches


@pytest.fixture(scope="module")
def sim_line() -> str:
    """A simulated hand that was played (not a redeal)."""
    hands = run_matches(match_specs(1, 3, 41, FOUR_DECK))
    return next(h.line for h in hands if h.played.record.end != "redeal")


def _ingest(tmp_path: Path, lines: list[str]) -> Path:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(line + "\n" for line in lines))
    db = tmp_path / "t.duckdb"
    ingest([src], db, workers=0, progress=False)
    return db


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = open_reader(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_a_simulated_hand_stores_each_seats_style_persona_and_each_tricks_reason(
    sim_line: str, tmp_path: Path
) -> None:
    obj = json.loads(sim_line)
    db = _ingest(tmp_path, [sim_line])
    seats = _query(db, "SELECT seat, player, style, persona FROM seats ORDER BY seat")
    assert len(seats) == 4
    for (seat, player, style, tag), given in zip(seats, obj["_personas"], strict=True):
        assert style == given["style"] == persona(player).style, seat
        assert (
            tag
            == persona(player).tag()
            == (f"{given['style']}/{given['blunder']:.2f}/{given['aggression']:.2f}")
        )
    replay = replay_line(sim_line)
    assert replay.tricks
    stored = _query(db, "SELECT trick, reason FROM tricks ORDER BY trick")
    assert stored == [(t.number, t.reason) for t in replay.tricks]


MALFORMED: list[object] = [
    "careful",  # not a list
    {"0": {"style": "bold"}},
    [{"style": "bold", "blunder": 0.1, "aggression": 0.2}] * 3,  # not one per seat
    [None, 7, ["bold"], {}],  # entries that are no persona
    [{"style": 5}, {"style": ""}, {"style": None}, {"blunder": 0.1, "aggression": 0.2}],
]


def test_no_or_malformed_personas_store_null_and_the_hand_stays_ok(
    sim_line: str, tmp_path: Path
) -> None:
    base = json.loads(sim_line)
    lines = []
    for i, value in enumerate([None, *MALFORMED]):
        obj = dict(base, hand_id=f"{base['hand_id']}-{i}")
        if value is None:
            del obj["_personas"]
        else:
            obj["_personas"] = value
        lines.append(json.dumps(obj))
    db = _ingest(tmp_path, lines)
    assert _query(db, "SELECT DISTINCT status FROM hands") == [("ok",)]
    assert _query(db, "SELECT count(*) FROM rejects") == [(0,)]
    rows = _query(db, "SELECT count(*), count(style), count(persona) FROM seats")
    assert rows == [(4 * len(lines), 0, 0)]
    # The trick reasons do not depend on the source field.
    assert _query(db, "SELECT count(*) FROM tricks WHERE reason = ''") == [(0,)]


def test_read_personas_tolerates_what_a_source_may_write() -> None:
    good = {"style": "bold", "blunder": 0.08, "aggression": 0.95}
    assert read_personas(()) == ()
    assert read_personas((("_other", [good] * 4),)) == ()
    assert (
        read_personas((("_personas", [good] * 4),)) == (SeatPersona("bold", "bold/0.08/0.95"),) * 4
    )
    # A tag string per seat, a style alone, numbers that are not shares.
    value = [
        " novice/0.30/0.20 ",
        {"style": "careful"},
        {"style": "bold", "blunder": True, "aggression": 0.5},
        {"style": "bold", "blunder": 10**400, "aggression": float("nan")},
    ]
    assert read_personas((("_personas", value),)) == (
        SeatPersona("novice", "novice/0.30/0.20"),
        SeatPersona("careful", None),
        SeatPersona("bold", None),
        SeatPersona("bold", None),
    )
    for bad in MALFORMED:
        found = read_personas((("_personas", bad),))
        assert found in ((), (NO_PERSONA,) * 4), bad
