"""Every dashboard page under `streamlit.testing.v1.AppTest`, against a small store made by the real
ingest pipeline from legal random hands (plus a flagged hand and rejected lines): each renders
without an exception, draws its charts, and follows the sidebar filters."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from analytics_testdb import corpus_lines, ingested_db
from streamlit.testing.v1 import AppTest

from dashboard import ui

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")
PAGES = {
    "views/overview.py": 3,
    "views/bottom.py": 3,
    "views/throws.py": 1,
    "views/trump_length.py": 6,
    "views/players.py": 3,
    "views/explorer.py": 1,
    "views/replay.py": 1,
    "views/audit.py": 1,
    "views/import_files.py": 0,
}
"""Each page and the charts it must draw on the fixture store."""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_db(Path(tmp_path_factory.mktemp("pages")), n_hands=40)


@pytest.fixture
def app(store: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    return at


def _charts(at: AppTest) -> list[object]:
    return list(at.get("vega_lite_chart"))


def _sql(store: Path, q: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(store.resolve()), read_only=True)
    try:
        return con.sql(q).fetchall()
    finally:
        con.close()


def _no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("page", list(PAGES))
def test_page_renders_with_its_charts(app: AppTest, page: str) -> None:
    app.switch_page(page).run()
    _no_errors(app)
    assert len(_charts(app)) >= PAGES[page]
    assert app.title[0].value


def test_overview_follows_the_source_filter(app: AppTest, store: Path) -> None:
    assert "41 replayed hands" in app.caption[0].value
    app.sidebar.multiselect(key="f_sources").set_value(["club-server"]).run()
    _no_errors(app)
    ((n,),) = _sql(
        store, "SELECT count(*) FROM hands WHERE status <> 'rejected' AND source = 'club-server'"
    )
    assert f"{n} replayed hands" in app.caption[0].value
    assert 0 < n < 41


def test_player_and_role_filters_narrow_every_page(app: AppTest, store: Path) -> None:
    app.sidebar.multiselect(key="f_players").set_value(["lin"]).run()
    app.sidebar.selectbox(key="f_role").set_value("banker").run()
    _no_errors(app)
    ((n,),) = _sql(
        store,
        "SELECT count(*) FROM hands h JOIN seats s USING (source, hand_id) "
        "WHERE h.status <> 'rejected' AND s.player = 'lin' AND s.seat = h.banker",
    )
    assert f"{n:,} replayed hands" in app.caption[0].value
    for page in PAGES:
        app.switch_page(page).run()
        _no_errors(app)


def test_date_and_level_filters(app: AppTest, store: Path) -> None:
    import datetime as dt

    app.sidebar.date_input(key="f_dates").set_value((dt.date(2026, 10, 1), dt.date(2026, 10, 3)))
    app.run()
    _no_errors(app)
    ((n,),) = _sql(
        store,
        "SELECT count(*) FROM hands WHERE status <> 'rejected' AND played_at < '2026-10-04'",
    )
    assert f"{n} replayed hands" in app.caption[0].value
    level = _sql(store, "SELECT min(level) FROM hands WHERE status <> 'rejected'")[0][0]
    app.sidebar.multiselect(key="f_levels").set_value([level]).run()
    _no_errors(app)


def test_bottom_and_throw_breakdowns(app: AppTest) -> None:
    app.switch_page("views/bottom.py").run()
    for dim in ("level played", "rules", "last trick's lead"):
        app.selectbox(key="bc_dim").set_value(dim).run()
        _no_errors(app)
    app.switch_page("views/throws.py").run()
    for dim in ("components", "shape", "suit", "trick number", "player", "bot style", "role"):
        app.selectbox(key="th_dim").set_value(dim).run()
        _no_errors(app)
        assert _charts(app)


def test_explorer_metric_by_dimension(app: AppTest) -> None:
    app.switch_page("views/explorer.py").run()
    for metric, dim in (
        ("Bottom captured", "trump"),
        ("Throw failed", "bot style"),
        ("Attackers' points", "month"),
        ("Points won per hand", "trumps at the start of play"),
    ):
        app.selectbox(key="ex_metric").set_value(metric)
        app.selectbox(key="ex_dim").set_value(dim).run()
        _no_errors(app)
        assert len(_charts(app)) == 1
        assert app.dataframe


def test_player_page_deep_link(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["player"] = "mei"
    at.switch_page("views/players.py").run()
    _no_errors(at)
    assert at.selectbox(key="pl_player").value == "mei"
    assert any(s.value == "mei" for s in at.subheader)
    at.selectbox(key="pl_player").set_value("bo").run()
    assert at.query_params["player"] == "bo"


def test_replay_deep_link_steps_and_explains(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flagged = _sql(store, "SELECT hand_id, n_tricks FROM hands WHERE status = 'flagged'")
    hand_id, n_tricks = flagged[0]
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": hand_id, "trick": "3"})
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    assert at.slider(key="rp_trick").value == 3
    assert any(f"Trick 3 of {n_tricks}" in s.value for s in at.subheader)
    # The hand's own finding (the server's wrong score) is shown in place.
    assert any("5" in w.value for w in at.warning)
    # The source file is readable, so the replay's own reason is shown, not a composed one.
    assert not any("composed from the stored plays" in c.value for c in at.caption)
    text = " ".join(m.value for m in at.markdown)
    assert "Won by seat" in text and 'class="card' in text
    at.button(key="rp_next").click().run()
    assert at.slider(key="rp_trick").value == 4
    assert at.query_params["trick"] == "4"
    at.slider(key="rp_trick").set_value(n_tricks).run()
    _no_errors(at)
    assert at.success or at.info  # the bottom: captured or kept


def _replay_page(store: Path, hand_id: str, trick: int) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": hand_id, "trick": str(trick)})
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    return at


def _won_line(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Won by seat"))


def _composed(at: AppTest) -> bool:
    return any("composed from the stored plays" in c.value for c in at.caption)


def test_replay_shows_the_stored_reason_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tricks.reason` is shown as stored, the source file replayed or not; a row without one
    falls back to replaying the file, and without the file to a reason composed from the plays."""
    store = ingested_db(tmp_path / "reasons", n_hands=4)
    con = duckdb.connect(str(store.resolve()))  # the published version, before any reader
    try:
        marked, blank, gone = (
            h
            for (h,) in con.sql(
                "SELECT hand_id FROM hands WHERE status = 'ok' ORDER BY hand_id LIMIT 3"
            ).fetchall()
        )
        ((replayed,),) = con.execute(
            "SELECT reason FROM tricks WHERE hand_id = ? AND trick = 2", [blank]
        ).fetchall()
        con.execute("UPDATE tricks SET reason = 'the stored reason' WHERE hand_id = ?", [marked])
        con.execute("UPDATE tricks SET reason = '' WHERE hand_id IN (?, ?)", [blank, gone])
    finally:
        con.close()
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = _replay_page(store, marked, 2)
    assert _won_line(at).endswith("— the stored reason") and not _composed(at)
    # Seat headers name each player's stored bot style (the corpus gives most hands one).
    styles = dict(_sql(store, f"SELECT player, style FROM seats WHERE hand_id = '{marked}'"))
    headers = [m.value for m in at.markdown if m.value.startswith("<div><b>Seat ")]
    assert len(headers) == 4 and any(styles.values())
    for text in headers:
        player = text.split(" · ")[1].split("</b>")[0]
        assert (f" · {styles[player]}</small>" in text) == bool(styles[player]), text
    at = _replay_page(store, blank, 2)
    assert _won_line(at).endswith(f"— {ui.md(replayed)}") and not _composed(at)
    (tmp_path / "reasons" / "corpus.jsonl").unlink()
    at = _replay_page(store, marked, 2)
    assert _won_line(at).endswith("— the stored reason") and not _composed(at)
    at = _replay_page(store, gone, 2)
    assert "— seat " in _won_line(at) and _composed(at)


def test_audit_lists_findings_and_rejects(app: AppTest) -> None:
    app.switch_page("views/audit.py").run()
    _no_errors(app)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Rejected"] == "1" and metrics["Rejected lines"] == "2"
    frames = [d.value for d in app.dataframe]
    findings = frames[0]
    assert all(link.startswith("replay?source=") for link in findings["open"])


def test_import_uploads_and_ingests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "fresh" / "tractor.duckdb"
    monkeypatch.setenv("SHENGJI_DB", str(target))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert any("shengji ingest" in i.value for i in at.info)  # nothing yet: a friendly message
    at.switch_page("views/import_files.py").run()
    body = ("\n".join(corpus_lines(3, seed=5)[:3]) + "\n").encode()
    at.file_uploader(key="im_files").set_value([("night.jsonl", body, "application/json")])
    at.run()
    at.button(key="im_go").click().run()
    _no_errors(at)
    assert at.success and "3 ok" in at.code[0].value
    assert target.is_symlink()
    at.switch_page("views/overview.py").run()
    _no_errors(at)
    assert "3 replayed hands" in at.caption[0].value


@pytest.mark.parametrize("page", list(PAGES)[:-1])
def test_missing_database_is_a_friendly_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, page: str
) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(tmp_path / "nothing.duckdb"))
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(page).run()
    _no_errors(at)
    assert any("shengji ingest" in i.value for i in at.info)


def test_empty_database_is_a_friendly_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from analytics_testdb import connect

    empty = tmp_path / "empty.duckdb"
    connect(empty).close()
    monkeypatch.setenv("SHENGJI_DB", str(empty))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    _no_errors(at)
    assert any("shengji ingest" in i.value for i in at.info)


def test_stored_throw_shapes_match_the_rules_core(store: Path) -> None:
    """The store's reading of each attempted throw (tricks.throw_shape) is the rules core's."""
    from analytics.throws import read_throw

    con = duckdb.connect(str(store.resolve()), read_only=True)
    try:
        rows = con.sql(
            "SELECT t.throw_cards, h.trump, h.level, h.rules_preset, h.rules_options, "
            "t.throw_components, t.throw_shape FROM tricks t JOIN hands h USING (source, hand_id) "
            "WHERE t.throw ORDER BY t.source, t.hand_id, t.trick"
        ).fetchall()
    finally:
        con.close()
    assert len(rows) > 20
    for cards, trump, level, preset, options, n, shape in rows:
        assert read_throw(cards, trump, level, preset, options) == (n, shape)


def test_holdings_rebuilt_from_the_tables(store: Path) -> None:
    """Before trick 1 every seat holds its start of play; each trick removes exactly the cards
    played; after the last trick of a completed hand every seat is empty."""
    from collections import Counter

    from analytics.handview import holdings_before, load_hand, replay_reasons
    from shengji.cards import parse_cards

    con = duckdb.connect(str(store.resolve()), read_only=True)
    try:
        ((source, hand_id, file, line),) = con.sql(
            "SELECT source, hand_id, file, line FROM hands WHERE status = 'ok' "
            "ORDER BY hand_id LIMIT 1"
        ).fetchall()
        data = load_hand(con, source, hand_id)
    finally:
        con.close()
    assert data is not None
    n = data.tricks.height
    first = holdings_before(data, 1)
    for row in data.seats.iter_rows(named=True):
        assert Counter(first[row["seat"]]) == Counter(parse_cards(row["cards_start"]))
    for t in (2, n // 2, n):
        before, after = holdings_before(data, t), holdings_before(data, t + 1)
        for p in data.plays.filter(data.plays["trick"] == t).iter_rows(named=True):
            gone = Counter(before[p["seat"]]) - Counter(after[p["seat"]])
            assert gone == Counter(parse_cards(p["cards"]))
    assert all(not cards for cards in holdings_before(data, n + 1).values())
    reasons = replay_reasons(file, line, hand_id)
    assert reasons is not None and len(reasons) == n
    assert replay_reasons(file, line, "another-hand") is None
    assert replay_reasons("/nonexistent.jsonl", line, hand_id) is None


def test_a_new_ingest_is_picked_up_on_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store publishes a new version; the running dashboard reads it on its next run."""
    import json

    from ingest.pipeline import ingest

    db = ingested_db(tmp_path / "live", n_hands=6)
    monkeypatch.setenv("SHENGJI_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert "7 replayed hands" in at.caption[0].value  # six clean and one flagged
    more = tmp_path / "more.jsonl"
    lines = [json.loads(x) for x in corpus_lines(4, seed=12)[:4]]
    for obj in lines:
        obj["hand_id"] = "late-" + obj["hand_id"]
    more.write_text("\n".join(json.dumps(o) for o in lines) + "\n")
    ingest([more], db, workers=0, progress=False)
    at.run()
    _no_errors(at)
    assert "11 replayed hands" in at.caption[0].value


def test_filters_that_keep_nothing_say_so_on_every_page(app: AppTest, store: Path) -> None:
    rows = _sql(
        store,
        "SELECT level FROM hands WHERE status <> 'rejected' GROUP BY level "
        "HAVING count(*) FILTER (WHERE source = 'night-table') = 0 ORDER BY level LIMIT 1",
    )
    assert rows, "the fixture corpus has levels played at one table only"
    app.sidebar.multiselect(key="f_levels").set_value([rows[0][0]])
    app.sidebar.multiselect(key="f_sources").set_value(["night-table"]).run()
    for page in list(PAGES)[:-1]:
        app.switch_page(page).run()
        _no_errors(app)
        if page not in ("views/audit.py",):
            assert app.info, page
