"""The stored computer analysis on the pages, under AppTest: Hand replay offers "Analyse this
hand" until the hand is analysed, then shows its evaluation graph and each decision's best
alternative and expected gain (no `None`, numbers that say what they count); Coaching adds the
analysed hands' figures, saying how many hands they rest on."""

from __future__ import annotations

from pathlib import Path

import pytest
from analytics_testdb import ingested_db
from streamlit.testing.v1 import AppTest

from ingest.analysis_store import store_analysis
from ingest.store import open_reader
from shengji.coach.analysis import Settings, analyse_hand
from shengji.hhfile import iter_lines
from shengji.replay import replay_line

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")
FAST = Settings(worlds=2, min_worlds=2, cap=2, screen=1, listed=8, seed=1)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A store of 6 hands, the first of them analysed (seats 0 and 1, small settings)."""
    db = ingested_db(Path(tmp_path_factory.mktemp("hand-analysis")) / "db", n_hands=6)
    con = open_reader(db)
    try:
        source, hand_id, file, line, content_hash = con.execute(
            "SELECT source, hand_id, file, line, content_hash FROM hands WHERE status = 'ok' "
            "ORDER BY hand_id LIMIT 1"
        ).fetchall()[0]
    finally:
        con.close()
    text = next(t for n, t in iter_lines(Path(file)) if n == line)
    replay = replay_line(text, file=file, strict=False)
    result = analyse_hand(replay, FAST)
    store_analysis(db, result, content_hash)
    return db, source, hand_id


def _app(db: Path, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    monkeypatch.setenv("SHENGJI_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(params)
    return at


def _no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _no_none(frame: object) -> None:
    shown = frame.astype(str)  # type: ignore[attr-defined]
    assert not shown.isin(["None", "nan", "NaN", "null"]).any().any(), shown


def test_replay_shows_the_analysis_of_an_analysed_hand(
    store: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, source, hand_id = store
    at = _app(db, monkeypatch, source=source, hand=hand_id, trick="1")
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    assert not [b for b in at.button if b.label == "Analyse this hand"]
    captions = " ".join(c.value for c in at.caption)
    assert "decisions analysed" in captions and "judged" in captions
    charts = list(at.get("arrow_vega_lite_chart")) or list(at.get("vega_lite_chart"))
    assert charts, "no evaluation graph"
    assert any(m.value == "Analysis of trick 1" for m in at.markdown)
    frames = [t.value for t in at.dataframe]
    trick = next(f for f in frames if "best alternative" in f.columns)
    _no_none(trick.drop(columns=["expected attackers' total"]))
    assert list(trick["trick"].unique()) == [1]
    gains = list(trick["expected gain"])
    # Every gain says what it rests on: worlds, or why it was not judged.
    assert all("world" in g or g.startswith("not judged") for g in gains), gains
    # Cards as the table draws them (suit symbols, not stored tokens).
    assert any(any(s in p for s in "♠♥♣♦") or "J" in p for p in trick["play"])


def test_replay_offers_the_analysis_of_a_hand_not_analysed(
    store: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, _source, analysed_id = store
    con = open_reader(db)
    try:
        source, hand_id = con.execute(
            "SELECT source, hand_id FROM hands WHERE status = 'ok' AND hand_id <> $h "
            "ORDER BY hand_id LIMIT 1",
            {"h": analysed_id},
        ).fetchall()[0]
    finally:
        con.close()
    at = _app(db, monkeypatch, source=source, hand=hand_id)
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    assert [b for b in at.button if b.label == "Analyse this hand"]
    assert any("not been analysed yet" in c.value for c in at.caption)


def test_coaching_says_how_many_analysed_hands_its_figures_rest_on(
    store: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, _source, _hand = store
    at = _app(db, monkeypatch)
    at.switch_page("views/coaching.py").run()
    _no_errors(at)
    assert any(s.value == "Computer analysis" for s in at.subheader)
    assert any("Over 1 analysed hand (of " in c.value for c in at.caption)
    table = next(t.value for t in at.dataframe if "loss_per_judged" in t.value.columns)
    assert set(table["kind"]) <= {"lead", "follow", "bury"} and len(table)
    _no_none(table)
    assert (table["flagged"] <= table["judged"]).all()
    assert (table["flagged"] == table["inaccuracy"] + table["mistake"] + table["blunder"]).all()


def test_one_analysis_at_a_time_and_its_progress_on_its_hand(
    store: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A job of this session still running on another hand disables the action here; on its own
    hand the page shows its progress and a Cancel button, not the action."""
    from dashboard import uploads

    db, _source, analysed_id = store
    con = open_reader(db)
    try:
        (first, second) = con.execute(
            "SELECT source, hand_id FROM hands WHERE status = 'ok' AND hand_id <> $h "
            "ORDER BY hand_id LIMIT 2",
            {"h": analysed_id},
        ).fetchall()
    finally:
        con.close()
    folder = tmp_path / "job"
    folder.mkdir()
    uploads.write_status(folder, {"state": "running", "done": 3, "total": 12, "seconds": 4.0})
    at = _app(db, monkeypatch, source=second[0], hand=second[1])
    at.session_state["an_jobs"] = {f"{first[0]}\0{first[1]}": str(folder)}
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    (button,) = [b for b in at.button if b.label == "Analyse this hand"]
    assert button.disabled
    assert any(f"hand {first[1]} is still running" in c.value for c in at.caption)
    (picker,) = [b for b in at.selectbox if b.label == "Hand"]
    picker.set_value(tuple(first)).run()
    _no_errors(at)
    assert not [b for b in at.button if b.label == "Analyse this hand"]
    assert [b for b in at.button if b.label == "Cancel the analysis"]
    (bar,) = at.get("progress")
    assert "3 of 12 decisions" in str(bar.proto)
