"""The Overview page says when its hands are simulated bot play (the bundled sample is)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from analytics_testdb import corpus_lines
from streamlit.testing.v1 import AppTest

from analytics.filters import Filters
from analytics.overview import simulated

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


def _store(folder: Path, personas: str) -> Path:
    """The test corpus with `_personas` on every hand ("all"), on none ("none") or as the corpus
    has it (three hands in four, "some")."""
    from ingest.pipeline import ingest

    lines = []
    for line in corpus_lines(8, seed=3):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if personas == "none":
            obj.pop("_personas", None)
        elif personas == "all" and "_personas" not in obj:
            obj["_personas"] = json.loads(corpus_lines(8, seed=3)[0])["_personas"]
        lines.append(json.dumps(obj))
    folder.mkdir(parents=True)
    src = folder / "hands.jsonl"
    src.write_text("\n".join(lines) + "\n")
    db = folder / "tractor.duckdb"
    ingest([src], db, workers=0, progress=False)
    return db


def _note(db: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("SHENGJI_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception
    return [i.value for i in at.info if "simulated bot play" in i.value]


@pytest.mark.parametrize(
    ("personas", "expected"),
    [("all", "All these hands are"), ("some", "7 of these 9 hands are"), ("none", None)],
)
def test_overview_says_when_hands_are_simulated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, personas: str, expected: str | None
) -> None:
    db = _store(tmp_path / personas, personas)
    con = duckdb.connect(str(db.resolve()), read_only=True)
    try:
        sim, hands = simulated(con, Filters())
        ((with_personas,),) = con.sql(
            "SELECT count(DISTINCT hand_id) FROM seats JOIN hands USING (source, hand_id) "
            "WHERE persona IS NOT NULL AND status <> 'rejected'"
        ).fetchall()
    finally:
        con.close()
    assert sim == with_personas and hands == 9
    notes = _note(db, monkeypatch)
    if expected is None:
        assert notes == [] and sim == 0
    else:
        assert len(notes) == 1 and notes[0].startswith(expected), notes
