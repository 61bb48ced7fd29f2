"""The Coaching page and the review section of Hand replay under AppTest, against a store made by
the real ingest (which runs the review), plus a hostile stored reason that must stay text."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import duckdb
import pytest
from analytics_testdb import ingested_db
from streamlit.testing.v1 import AppTest

from ingest import rollups
from shengji.cards import parse_cards, pretty_card

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")
HOSTILE = "<script>alert(1)</script> **bold** [x](http://example.invalid)"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = ingested_db(Path(tmp_path_factory.mktemp("coaching")), n_hands=24)
    con = duckdb.connect(str(db.resolve()))
    try:
        con.execute("UPDATE decisions SET reason = $r WHERE is_mistake", {"r": HOSTILE})
        rollups.refresh(con)  # as an ingest run does after writing hands
    finally:
        con.close()
    return db


def _sql(store: Path, q: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(store.resolve()), read_only=True)
    try:
        return con.sql(q).fetchall()
    finally:
        con.close()


def _app(store: Path, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    return at


def _no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _no_raw_html(at: AppTest) -> None:
    for m in at.markdown:
        assert "<script>" not in m.value and "example.invalid" not in m.value


def test_coaching_page_ranks_players_and_links_costliest_decisions(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (player, _lost), *_ = _sql(
        store,
        "SELECT s.player, sum(d.cost) AS lost FROM decisions d JOIN seats s "
        "USING (source, hand_id, seat) WHERE d.is_mistake GROUP BY 1 ORDER BY 2 DESC, 1",
    )
    at = _app(store, monkeypatch, player=str(player))
    at.switch_page("views/coaching.py").run()
    _no_errors(at)
    _no_raw_html(at)
    assert at.title[0].value == "Coaching"
    assert len(list(at.get("vega_lite_chart"))) >= 1
    leaks, _codes, worst = (t.value for t in at.dataframe)  # type: ignore[attr-defined]
    assert leaks["judged"].sum() > 0 and list(leaks["lost_per_hand"]) == sorted(
        leaks["lost_per_hand"], reverse=True
    )
    assert at.selectbox(key="co_player").value == player
    assert len(worst) and list(worst["cost"]) == sorted(worst["cost"], reverse=True)
    first = worst.iloc[0]
    q = urllib.parse.parse_qs(urllib.parse.urlparse(first["open"]).query)
    assert first["open"].startswith("replay?")
    assert q["hand"] == [first["hand_id"]] and q["trick"] == [str(first["trick"])]
    assert first["reason"] == HOSTILE  # shown as text in a dataframe cell
    at.radio(key="co_by").set_value("style").run()
    _no_errors(at)
    styles = set(at.dataframe[0].value["who"])  # type: ignore[attr-defined]
    assert styles <= {"careful", "bold", "novice"} and styles


def test_replay_shows_the_tricks_decisions(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source, hand_id, trick, code = _sql(
        store,
        "SELECT source, hand_id, trick, code FROM decisions WHERE trick > 1 AND is_mistake "
        "ORDER BY source, hand_id, trick LIMIT 1",
    )[0]
    at = _app(store, monkeypatch, source=str(source), hand=str(hand_id), trick=str(trick))
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    _no_raw_html(at)
    review = next(
        t.value  # type: ignore[attr-defined]
        for t in at.dataframe
        if "severity" in t.value.columns  # type: ignore[attr-defined]
    )
    assert code in set(review["code"]) and HOSTILE in set(review["reason"])


def test_replay_says_a_sound_fourth_seat_was_judged_sound(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fourth seat judged sound has no `decisions` row; its trick's review still lists it."""
    source, hand_id, trick, seat, cards = _sql(
        store,
        "SELECT t.source, t.hand_id, t.trick, p.seat, p.cards FROM tricks t "
        "JOIN plays p USING (source, hand_id, trick) "
        "WHERE t.last_seat_ok AND p.position = 4 AND t.trick > 1 "
        "ORDER BY t.source, t.hand_id, t.trick LIMIT 1",
    )[0]
    at = _app(store, monkeypatch, source=str(source), hand=str(hand_id), trick=str(trick))
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    review = next(
        t.value  # type: ignore[attr-defined]
        for t in at.dataframe
        if "severity" in t.value.columns  # type: ignore[attr-defined]
    )
    last = review.iloc[-1]
    assert (last["seat"], last["code"], last["severity"], last["play"]) == (
        seat,
        "last_seat_ok",
        "ok",
        " ".join(pretty_card(c) for c in parse_cards(cards)),  # as drawn on the table
    )


def test_players_links_to_coaching(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _app(store, monkeypatch)
    at.switch_page("views/players.py").run()
    _no_errors(at)
    links = list(at.get("page_link"))
    assert any("Coaching" in str(getattr(x, "proto", x)) for x in links)
