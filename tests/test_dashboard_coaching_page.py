"""The Coaching page under AppTest, against a store made by the real ingest (which runs the
review): every number says what it counts and over how many opportunities, no `None`, verdicts
in the words of analytics.review_codes, choices in the URL, the player a link names."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import duckdb
import pytest
from analytics_testdb import ingested_db
from streamlit.testing.v1 import AppTest

from analytics import review_codes
from shengji.coach.review import KIND, NOT_JUDGED

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_db(Path(tmp_path_factory.mktemp("coaching-page")), n_hands=24)


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


def _players_by_loss(store: Path) -> list[str]:
    return [
        str(p)
        for (p, _lost) in _sql(
            store,
            "SELECT s.player, sum(d.cost) FROM decisions d JOIN seats s "
            "USING (source, hand_id, seat) WHERE d.is_mistake GROUP BY 1 ORDER BY 2 DESC, 1",
        )
    ]


def _frames(at: AppTest) -> list[object]:
    return [t.value for t in at.dataframe]  # type: ignore[attr-defined]


def test_code_rates_are_per_opportunity_with_words_help_and_no_none(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = _players_by_loss(store)[0]
    at = _app(store, monkeypatch, player=player)
    at.switch_page("views/coaching.py").run()
    _no_errors(at)
    leaks, codes, worst = _frames(at)
    for frame in (leaks, codes, worst):
        shown = frame.astype(str)  # type: ignore[attr-defined]
        assert not shown.isin(["None", "nan", "NaN"]).any().any(), shown
    # Each verdict over the decisions of its kind judged: a mistake code is not ~100% by
    # definition, and the rate is its count over those opportunities.
    assert (codes["opportunities"] >= codes["decisions"]).all()
    assert ((codes["rate"] - 100 * codes["decisions"] / codes["opportunities"]).abs() < 1e-9).all()
    fed = codes[codes["verdict"] == review_codes.label("lost_trick")]
    assert len(fed) and (fed["rate"] < 100).all()
    # Not judged codes count in no rate, and are not in the table.
    labels = set(codes["verdict"])
    assert labels <= {review_codes.label(c) for c in KIND if c not in NOT_JUDGED}
    assert not labels & {review_codes.label(c) for c in NOT_JUDGED}
    assert set(codes["kind"]) <= set(review_codes.KIND_LABEL.values())
    # Help in place and a link to the guide for every verdict; a hands link only with mistakes.
    assert all(codes["meaning"].str.len() > 20)
    assert all(codes["guide"].str.startswith(f"{review_codes.GUIDE_PAGE}?code="))
    assert all((codes["open"] == "") == (codes["mistakes"] == 0))
    assert all((leaks["open"] == "") == (leaks["mistakes"] == 0))
    # Too few seat-hands for an interval of points lost: it says so (24 hands, 4 seats each).
    assert all(leaks["lost_ci"].str.startswith("too few") | (leaks["hands"] >= 30))
    markdown = " ".join(m.value for m in at.markdown)
    assert f"]({review_codes.GUIDE_PAGE}?code=fed_points)" in markdown
    assert "the review guide" in " ".join(c.value for c in at.caption)


def test_where_the_points_go_names_kinds_as_the_table_does(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _app(store, monkeypatch)
    at.switch_page("views/coaching.py").run()
    (chart,) = list(at.get("vega_lite_chart"))
    spec = str(getattr(chart, "proto", chart))
    for kind in ("throw", "last_seat", "bury"):
        assert review_codes.kind_label(kind) in spec
    # The table's column for the fourth seat says it in the same words.
    assert review_codes.kind_label("last_seat") in str(at.dataframe[0].proto)


def test_group_by_and_player_live_in_the_url(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _app(store, monkeypatch, by="style")
    at.switch_page("views/coaching.py").run()
    _no_errors(at)
    assert at.radio(key="co_by").value == "style"
    assert set(_frames(at)[0]["who"]) <= {"careful", "bold", "novice"}  # type: ignore[index]
    at.radio(key="co_by").set_value("persona").run()
    assert at.query_params["by"] == "persona"
    at.radio(key="co_by").set_value("player").run()
    assert "by" not in at.query_params


def test_a_link_to_another_player_opens_that_player_every_time(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Coaching, then Players, then a link to Coaching for another player, in one session:
    the link's player is shown, not the one chosen before — also when the choice before is
    still in the session (a click that interrupts a run keeps the widgets' state of the page
    left: the frontend sends them with the new run, and the interrupted run never removes them)."""
    first, second, *_ = _players_by_loss(store)
    at = _app(store, monkeypatch, player=first)
    at.switch_page("views/coaching.py").run()
    assert at.selectbox(key="co_player").value == first
    shown = first
    for wanted in (second, first, second):
        at.switch_page("views/players.py").run()
        at.session_state["co_player"] = shown
        at.query_params.clear()
        at.query_params["player"] = wanted
        at.switch_page("views/coaching.py").run()
        _no_errors(at)
        assert at.selectbox(key="co_player").value == wanted
        assert at.query_params["player"] == wanted
        shown = wanted


def test_review_guide_opens_at_a_code(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _app(store, monkeypatch, code="fed_points")
    at.switch_page("views/review_guide.py").run()
    _no_errors(at)
    assert review_codes.help_text("fed_points") in at.info[0].value
    opened = [e for e in at.expander if e.proto.expanded]
    assert [e.label for e in opened] == ["The fourth seat (R5, R6) — fourth seat"]
    text = " ".join(m.value for m in at.markdown)
    assert "`fed_points`" in text and "`throw_risky`" in text
    at = _app(store, monkeypatch, code="<b>x</b>")
    at.switch_page("views/review_guide.py").run()
    _no_errors(at)
    assert "<b>" not in at.warning[0].value


def test_the_coaching_tables_link_to_hands_with_the_filters(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = _players_by_loss(store)[0]
    at = _app(store, monkeypatch, player=player, f_clean="1")
    at.switch_page("views/coaching.py").run()
    _leaks, codes, _worst = _frames(at)
    link = next(x for x in codes["open"] if x)
    q = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)
    assert q["who"] == [player] and q["f_clean"] == ["1"] and q["event"] == ["mistake"]


def test_a_click_picks_the_bar_under_the_pointer_and_the_point_nearest_it() -> None:
    """Bars are picked by their own area: Vega-Lite's nearest-mark picking answers a hover on a
    long bar with another row's bar (its tooltip, its hands). Points keep nearest picking."""
    import altair as alt
    import polars as pl

    from analytics import charts
    from analytics.coaching import leak_bars_data
    from dashboard import ui

    table = pl.DataFrame(
        {
            "who": ["wei", "fang"],
            "hands": [40, 40],
            "lost_per_hand": [30.0, 1.0],
            **{f"{k}_{c}": [1, 1] for k in ("throw", "last_seat", "bury") for c in ("judged",)},
            **{f"{k}_mistakes": [1, 1] for k in ("throw", "last_seat", "bury")},
            **{f"{k}_lost": [10.0, 1.0] for k in ("throw", "last_seat", "bury")},
            **{f"{k}_per_hand": [10.0, 0.3] for k in ("throw", "last_seat", "bury")},
        }
    )
    bars = ui.pickable(
        charts.leak_bars(leak_bars_data(table), who_title="player", hands=80), ["who"]
    )
    (param,) = bars.to_dict()["params"]
    assert param["select"].get("nearest") is False
    points = alt.Chart(pl.DataFrame({"x": [1], "y": [2]})).mark_point().encode(x="x:Q", y="y:Q")
    (param,) = ui.pickable(points, ["x"]).to_dict()["params"]
    assert param["select"]["nearest"] is True
    spec = charts.leak_bars(leak_bars_data(table), who_title="player", hands=80).to_dict()
    # A row per label, every label drawn, kinds in words.
    assert spec["height"] == {"step": charts.BAR_STEP}
    assert spec["encoding"]["y"]["axis"]["labelOverlap"] is False
    assert spec["encoding"]["color"]["scale"]["domain"] == ["throw", "fourth seat", "bury"]


def test_my_leaks_gives_accuracy_per_kind_with_counts_and_intervals(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from analytics.stats import rate

    player = _players_by_loss(store)[0]
    at = _app(store, monkeypatch, player=player)
    at.switch_page("views/leaks.py").run()
    _no_errors(at)
    assert at.selectbox(key="lk_player").value == player
    kinds, worst = _frames(at)
    assert list(kinds["decision"]) == ["every decision", "throw", "fourth seat", "bury"]
    ((judged, mistakes),) = _sql(
        store,
        "SELECT (SELECT count(*) FROM decisions d JOIN seats s USING (source, hand_id, seat) "
        "WHERE s.player = '" + player + "' AND d.kind <> 'note' AND d.code NOT IN "
        "('throw_skipped', 'last_seat_skipped')) + (SELECT sum(last_seat_ok) FROM seats "
        "WHERE player = '" + player + "'), (SELECT count(*) FROM decisions d JOIN seats s "
        "USING (source, hand_id, seat) WHERE s.player = '" + player + "' AND d.is_mistake)",
    )
    every = kinds.iloc[0]
    assert (every["judged"], every["mistakes"]) == (judged, mistakes)
    r = rate(int(str(mistakes)), int(str(judged)))
    assert r.value is not None
    assert every["accuracy"] == f"{100 * (1 - r.value):.1f}%"
    assert every["ci"] == f"{100 * (1 - r.hi):.1f}–{100 * (1 - r.lo):.1f}%"
    assert all((kinds["open"] == "") == (kinds["mistakes"] == 0))
    assert len(worst) and list(worst["cost"]) == sorted(worst["cost"], reverse=True)
    assert set(worst["verdict"]) <= set(review_codes.LABEL.values())
    (chart,) = list(at.get("vega_lite_chart"))
    assert "Accuracy per" in str(getattr(chart, "proto", chart))
