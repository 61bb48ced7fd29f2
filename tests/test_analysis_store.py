"""The computer analysis kept in the store (ingest/analysis_store.py), read back by analytics
(analytics/analysed.py), and Hand replay's analysis job (dashboard/analysis_job.py): stored
results survive a re-ingest of the same file, are ignored when the engine or the hand changed,
and the job's process analyses a hand into the store while a reader keeps its connection."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
from analytics_testdb import ingested_db

from analytics import analysed
from analytics.filters import Filters
from dashboard import analysis_job
from ingest.analysis_store import store_analysis
from ingest.pipeline import ingest
from ingest.store import current_version, open_reader
from shengji.coach.analysis import ENGINE, Settings, analyse_hand, analysis_from_json, analysis_json
from shengji.hhfile import iter_lines
from shengji.replay import replay_line

FAST = Settings(worlds=2, min_worlds=2, cap=2, screen=1, listed=8, seed=3)
"""Small settings: a hand in seconds (the figures are rough, the plumbing is the same)."""
JOB_SETTINGS = "worlds=2 min_worlds=2 cap=2 screen=1 listed=8 seed=3"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_db(Path(tmp_path_factory.mktemp("analysed")) / "db", n_hands=6)


def _first_ok(db: Path) -> tuple[str, str, str, int]:
    con = open_reader(db)
    try:
        row = con.execute(
            "SELECT source, hand_id, file, line FROM hands WHERE status = 'ok' "
            "ORDER BY hand_id LIMIT 1"
        ).fetchall()[0]
    finally:
        con.close()
    return str(row[0]), str(row[1]), str(row[2]), int(row[3])


def _analyse(file: str, line: int) -> object:
    text = next(t for n, t in iter_lines(Path(file)) if n == line)
    return analyse_hand(replay_line(text, file=file, strict=False), FAST, seat=0)


def _read(db: Path, source: str, hand_id: str, engine: str = ENGINE) -> tuple[dict, object]:
    con = open_reader(db)
    try:
        return (
            analysed.hand_state(con, source, hand_id, engine),
            analysed.hand_decisions(con, source, hand_id, engine),
        )
    finally:
        con.close()


def test_stored_analysis_survives_a_reingest_and_reads_back(store: Path) -> None:
    source, hand_id, file, line = _first_ok(store)
    result = _analyse(file, line)
    assert result.decisions  # type: ignore[attr-defined]
    con = open_reader(store)
    try:
        (content_hash,) = con.execute(
            "SELECT content_hash FROM hands WHERE source = $s AND hand_id = $h",
            {"s": source, "h": hand_id},
        ).fetchall()[0]
        assert not analysed.present(con)
        assert analysed.analysed_hands(con, Filters(), ENGINE) == 0
    finally:
        con.close()
    before = current_version(store)
    version = store_analysis(store, result, content_hash)  # type: ignore[arg-type]
    assert version == (before or 0) + 1 == current_version(store)
    state, df = _read(store, source, hand_id)
    assert state["state"] == "ok" and state["complete"]
    ds = result.decisions  # type: ignore[attr-defined]
    assert df["number"].to_list() == [j.number for j in ds]  # type: ignore[attr-defined]
    assert df["loss"].to_list() == [j.loss for j in ds]  # type: ignore[attr-defined]
    # Every decision sits at its play in the trick, with the seat's player.
    assert df["position"].null_count() == 0 and df["player"].null_count() == 0  # type: ignore[attr-defined]
    # The stored decisions are the analysis's JSON form, read back unchanged.
    rows = df.to_dicts()  # type: ignore[attr-defined]
    back = analysis_from_json(
        {
            **analysis_json(result),  # type: ignore[arg-type]
            "decisions": [
                {**r, "hand_id": hand_id, "alternatives": json.loads(r["alternatives"])}
                for r in rows
            ],
        }
    )
    assert back == result
    # A re-ingest of the same file keeps the analysis (and the hands as they were).
    ingest([Path(file)], store, workers=0, progress=False)
    assert current_version(store) == version + 1
    state, df2 = _read(store, source, hand_id)
    assert state["state"] == "ok"
    assert df2.equals(df)  # type: ignore[attr-defined]
    con = open_reader(store)
    try:
        assert analysed.analysed_hands(con, Filters(), ENGINE) == 1
        summary = analysed.summary(con, Filters(), ENGINE)
    finally:
        con.close()
    assert set(summary["hands"].to_list()) == {1}
    assert summary["decisions"].sum() == len(ds)
    assert summary["flagged"].sum() == sum(j.flagged for j in ds)  # type: ignore[attr-defined]
    # Another engine's results read as not analysed.
    state, df3 = _read(store, source, hand_id, engine="pimc-0")
    assert state["state"] == "engine" and state["stored_engine"] == ENGINE
    assert df3.height == 0  # type: ignore[attr-defined]
    # A stored analysis of another engine is replaced by the next one.
    store_analysis(store, replace(result, engine="pimc-0"), content_hash)  # type: ignore[type-var]
    assert _read(store, source, hand_id)[0]["state"] == "engine"
    store_analysis(store, result, content_hash)  # type: ignore[arg-type]
    assert _read(store, source, hand_id)[0]["state"] == "ok"
    # A hand changed since it was analysed reads as not analysed.
    store_analysis(store, result, "another hand")  # type: ignore[arg-type]
    state, df4 = _read(store, source, hand_id)
    assert state["state"] == "changed" and df4.height == 0  # type: ignore[attr-defined]


def test_the_evaluation_graph_draws_judged_decisions_and_marks_flagged_ones() -> None:
    import polars as pl

    df = pl.DataFrame(
        {
            "number": [1, 2, 3, 4],
            "trick": [1, 1, 1, 1],
            "position": [1, 2, 3, 4],
            "seat": [0, 1, 2, 3],
            "player": ["ann", None, "cy", "di"],
            "kind": ["lead", "follow", "follow", "follow"],
            "judged": [True, True, False, True],
            "attackers": [40.0, 42.5, 0.0, 70.0],
            "flagged": [False, True, False, True],
            "severity": ["ok", "blunder", "ok", "inaccuracy"],
            "loss": [1.0, 31.0, 0.0, 6.0],
            "loss_se": [0.5, 3.0, 0.0, 0.4],
            "worlds": [8, 16, 0, 8],
        }
    )
    g = analysed.graph_data(df)
    # The decision with nothing to choose has no figure: it is not drawn (not as 0 points).
    assert g["number"].to_list() == [1, 2, 4]
    assert g["mark"].to_list() == ["not flagged", "blunder", "inaccuracy"]
    assert g["who"].to_list() == ["ann", "seat 1", "di"]
    spec = analysed.evaluation_chart(g).to_dict()
    points = spec["layer"][0]
    assert points["mark"]["type"] == "point"
    assert points["encoding"]["color"]["scale"]["domain"] == [
        "not flagged",
        "inaccuracy",
        "mistake",
        "blunder",
    ]
    assert {t["title"] for t in points["encoding"]["tooltip"]} >= {
        "expected points lost",
        "± standard error",
        "worlds",
    }
    assert len(spec["layer"]) == 2
    # The hand's actual result, for comparison, as a rule.
    with_final = analysed.evaluation_chart(g, final=125).to_dict()
    rule = with_final["layer"][2]
    assert rule["mark"]["type"] == "rule"
    assert any(
        rows == [{"final": 125.0, "what": "the hand's actual final total"}]
        for rows in with_final["datasets"].values()
    )
    assert analysed.graph_data(df.clear()).height == 0


def test_job_settings_are_read_from_the_environment() -> None:
    s = analysis_job.settings_from(JOB_SETTINGS)
    assert (s.worlds, s.min_worlds, s.cap, s.screen, s.seed) == (2, 2, 2, 1, 3)
    assert analysis_job.settings_from("worlds=4").min_worlds == 4
    assert analysis_job.settings_from(None).worlds == Settings().worlds
    with pytest.raises(ValueError, match="cannot read"):
        analysis_job.settings_from("worlds=many")
    with pytest.raises(ValueError, match="cannot read"):
        analysis_job.settings_from("speed=2")


def test_the_job_analyses_a_hand_into_the_store_while_a_reader_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = ingested_db(tmp_path / "db", n_hands=4)
    source, hand_id, _, _ = _first_ok(db)
    reader = open_reader(db)  # a dashboard's connection, open all along
    monkeypatch.setenv(analysis_job.SETTINGS_ENV, JOB_SETTINGS)
    folder = analysis_job.start(db, source, hand_id)
    seen = set()
    deadline = time.monotonic() + 600
    while analysis_job.running(folder):
        seen.add(analysis_job.status(folder)["state"])
        # The reader keeps answering while the job runs and publishes.
        assert reader.execute("SELECT count(*) FROM hands").fetchall()[0][0] > 0
        assert time.monotonic() < deadline, analysis_job.status(folder)
        time.sleep(0.1)
    st = analysis_job.status(folder)
    assert st["state"] == "done", st
    assert st["decisions"] > 0 and st["judged"] <= st["decisions"]
    reader.close()
    state, df = _read(db, source, hand_id)
    assert state["state"] == "ok" and df.height == st["decisions"]  # type: ignore[attr-defined]
    assert json.loads(state["settings"])["worlds"] == 2


def test_the_job_says_why_a_hand_cannot_be_analysed(tmp_path: Path) -> None:
    db = ingested_db(tmp_path / "db", n_hands=2)
    source, hand_id, file, _ = _first_ok(db)
    Path(file).unlink()
    folder = analysis_job.start(db, source, hand_id)
    deadline = time.monotonic() + 300
    while analysis_job.running(folder):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    st = analysis_job.status(folder)
    assert st["state"] == "error" and "source file is gone" in st["message"], st
    assert current_version(db) == 1  # nothing written


def test_a_cancelled_job_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    db = ingested_db(tmp_path / "db", n_hands=2)
    source, hand_id, _, _ = _first_ok(db)
    before = current_version(db)
    folder = analysis_job.start(db, source, hand_id)  # the default settings: a minute or so
    deadline = time.monotonic() + 300
    while analysis_job.status(folder).get("state") != "running":
        assert analysis_job.running(folder), analysis_job.status(folder)
        assert time.monotonic() < deadline
        time.sleep(0.05)
    analysis_job.cancel(folder)
    assert analysis_job.status(folder)["state"] == "cancelled"
    assert not analysis_job.running(folder)
    assert current_version(db) == before
    con = open_reader(db)
    try:
        assert not analysed.present(con)
    finally:
        con.close()
