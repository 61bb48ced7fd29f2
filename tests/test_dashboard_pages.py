"""Every dashboard page under `streamlit.testing.v1.AppTest`, against a small store made by the real
ingest pipeline from legal random hands (plus a flagged hand and rejected lines): each renders
without an exception, draws its charts, and follows the sidebar filters."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from altair.vegalite.v6.schema.core import Root
from analytics_testdb import corpus_lines, ingested_db
from streamlit.testing.v1 import AppTest

from dashboard import ui
from shengji.cards import parse_cards

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")
PAGES = {
    "views/overview.py": 3,
    "views/bottom.py": 3,
    "views/throws.py": 1,
    "views/trump_length.py": 6,
    "views/players.py": 3,
    "views/explorer.py": 1,
    "views/replay.py": 0,
    "views/hands.py": 0,
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
    # Handed to Streamlit unchecked (dashboard/ui.py `served`): each chart drawn is valid
    # Vega-Lite.
    for chart in _charts(app):
        Root.validate(json.loads(chart.proto.spec))  # type: ignore[attr-defined]


def test_a_chart_served_unchecked_is_the_chart_checked() -> None:
    """`served` changes nothing but the check: the same spec, and the chart itself untouched."""
    import altair as alt
    import polars as pl

    c = alt.Chart(pl.DataFrame({"a": ["x", "y"], "n": [1, 2]})).mark_bar().encode(x="a:N", y="n:Q")
    assert ui.served(c).to_dict() == c.to_dict()
    bad = alt.Chart(pl.DataFrame({"a": [1]})).mark_bar().encode(x=alt.X("a:Q", bin="yes"))
    with pytest.raises(Exception, match="bin"):
        bad.to_dict()
    assert ui.served(bad).to_dict()["encoding"]["x"]["bin"] == "yes"
    assert "to_dict" not in vars(c) and "to_dict" not in c.to_dict()


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


def _replayer(at: AppTest) -> dict[str, Any]:
    """The JSON the Hand replay hands its table component."""
    (element,) = at.get("bidi_component")
    data: dict[str, Any] = json.loads(element.proto.json)
    return data


def _replay_link(params: dict[str, str]) -> AppTest:
    """Hand replay opened at a link, as a browser opens a typed or pasted URL: a new session.
    (Inside a session the URL a rerun carries is not a link: dashboard/visits.py.)"""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    return at


def test_replay_deep_link_opens_the_play_with_everything_in_place(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flagged = _sql(store, "SELECT source, hand_id, n_tricks FROM hands WHERE status = 'flagged'")
    source, hand_id, n_tricks = flagged[0]
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": hand_id, "trick": "3", "play": "2"})
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    data = _replayer(at)
    assert data["start"] == {"trick": 3, "play": 2, "note": None}
    assert data["hand"]["id"] == hand_id and len(data["tricks"]) == n_tricks
    assert at.query_params["source"] == source
    # Every play of the store, in order, as card faces the component draws.
    plays = _sql(
        store,
        f"SELECT trick, seat, cards FROM plays WHERE hand_id = '{hand_id}' ORDER BY trick, position",
    )
    got = [(t["n"], p["seat"], p["cards"]) for t in data["tricks"] for p in t["plays"]]
    assert got == [(t, seat, list(parse_cards(cards))) for t, seat, cards in plays]
    # The hand's own finding (the server's wrong score) is in the deal's panel.
    assert any("5" in f["reason"] for f in data["findings"])
    # The running score ends at the final total once the bottom is added.
    ((final, trick_points, added),) = _sql(
        store,
        "SELECT attackers_points, trick_points, bottom_added FROM hands "
        f"WHERE hand_id = '{hand_id}'",
    )
    assert data["tricks"][-1]["attackers_total"] == trick_points
    assert trick_points + added == final == data["hand"]["attackers_points"]
    # A link without `play` opens the trick complete; past the end, the last trick, said so.
    at = _replay_link({"hand": hand_id, "trick": "2"})
    assert _replayer(at)["start"]["play"] == len(data["tricks"][1]["plays"])
    at = _replay_link({"hand": hand_id, "trick": str(n_tricks + 5)})
    assert _replayer(at)["start"]["trick"] == n_tricks
    # The note reads as one sentence (it once ran "asked for trick 99 does not exist: …").
    assert (
        f"The link asks for trick {n_tricks + 5}, but this hand has {n_tricks} tricks: "
        "showing the last one, complete." in [c.value for c in at.caption]
    )


def test_replay_of_a_rejected_hand_opens_its_fault(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ((source, hand_id, code, reason),) = _sql(
        store,
        "SELECT source, hand_id, code, reason FROM findings JOIN hands USING (source, hand_id) "
        "WHERE status = 'rejected'",
    )
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": hand_id, "source": source})
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    data = _replayer(at)
    assert data["hand"]["status"] == "rejected"
    assert data["fault"]["code"] == code and data["fault"]["reason"] == reason


def test_replay_payload_marks_key_moments_and_the_fault_trick() -> None:
    from analytics.handview import replay_payload, start_position

    hand = _hand_data(
        tricks=[
            {"trick": 1, "leader": 0, "winner": 1, "points": 10, "attackers_total": 10},
            {
                "trick": 2,
                "leader": 1,
                "winner": 2,
                "points": 20,
                "attackers_total": 10,
                "throw": True,
                "throw_failed": True,
                "throw_cards": "AS KS",
                "forced_cards": "KS",
                "blocker": 3,
                "blocking_cards": "AS",
            },
        ],
        plays=[
            (1, 0, "AH", "lead"),
            (1, 1, "2S", "ruff"),
            (1, 2, "3H", "follow"),
            (1, 3, "4H", "follow"),
            (2, 1, "KS", "lead"),
            (2, 2, "3S", "follow"),
            (2, 3, "4S", "follow"),
            (2, 0, "5S", "follow"),
        ],
        findings=[{"code": "not_in_hand", "trick": 3, "seat": 2, "reason": "seat 2 plays"}],
    )
    data = replay_payload(hand)
    kinds = [[m["kind"] for m in t["marks"]] for t in data["tricks"]]
    assert kinds == [["ruff"], ["throw"]]
    assert data["fault"] == {"trick": 3, "seat": 2, "code": "not_in_hand", "reason": "seat 2 plays"}
    assert start_position(data, 3, None) == {"trick": 3, "play": 0, "note": None}
    assert start_position(data, 1, 9)["play"] == 4
    assert start_position(data, None, None) == {"trick": 1, "play": 0, "note": None}
    # Faces: trump first in the display order, ♥ red, points counted.
    faces = data["faces"]
    assert faces[53]["o"] > faces[0]["o"] and faces[13]["red"] and faces[11]["p"] == 10


def _hand_data(
    tricks: list[dict[str, Any]], plays: list[tuple[int, int, str, str]], findings: list[Any]
) -> Any:
    import polars as pl

    from analytics.handview import HandData

    base = {
        "throw": False,
        "throw_failed": None,
        "throw_cards": None,
        "forced_cards": None,
        "blocker": None,
        "blocking_cards": None,
        "lead_shape": "single",
        "lead_suit": "H",
        "reason": "why",
    }
    hand = {
        "hand_id": "h1",
        "source": "s",
        "played_at": None,
        "match_id": None,
        "hand_no": None,
        "status": "rejected",
        "trump": "S",
        "level": "2",
        "trump_source": "show",
        "decks": 4,
        "banker": 0,
        "end_state": None,
        "attackers_points": None,
        "trick_points": None,
        "bottom_points": None,
        "bottom_captured": None,
        "bottom_winner": None,
        "bottom_multiplier": None,
        "bottom_added": None,
        "last_lead_shape": None,
        "level_up_team": None,
        "level_up": None,
        "banker_won": None,
    }
    seats = pl.DataFrame(
        [
            {
                "seat": s,
                "player": f"p{s}",
                "role": None,
                "team": s % 2,
                "style": None,
                "cards_start": "",
                "cards_before_bury": None,
            }
            for s in range(4)
        ]
    )
    return HandData(
        hand=hand,
        seats=seats,
        tricks=pl.DataFrame([{**base, **t} for t in tricks]),
        plays=pl.DataFrame(
            [
                {
                    "trick": t,
                    "seat": seat,
                    "cards": cards,
                    "kind": kind,
                    "legal": True,
                    "position": i % 4 + 1,
                }
                for i, (t, seat, cards, kind) in enumerate(plays)
            ]
        ),
        findings=pl.DataFrame(findings),
        bids=pl.DataFrame(
            schema={
                "seat": pl.Int32,
                "kind": pl.String,
                "cards": pl.String,
                "trump": pl.String,
                "valid": pl.Boolean,
                "buried": pl.String,
            }
        ),
    )


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

    def reason(hand_id: str) -> str:
        at = AppTest.from_file(APP, default_timeout=60)
        at.query_params.update({"hand": hand_id, "trick": "2"})
        at.switch_page("views/replay.py").run()
        _no_errors(at)
        return str(_replayer(at)["tricks"][1]["reason"])

    assert reason(marked) == "the stored reason"
    # Seats carry each player's stored bot style (the corpus gives most hands one).
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": marked})
    at.switch_page("views/replay.py").run()
    styles = dict(_sql(store, f"SELECT player, style FROM seats WHERE hand_id = '{marked}'"))
    seats = _replayer(at)["seats"]
    assert len(seats) == 4 and any(styles.values())
    assert {s["player"]: s["style"] for s in seats} == styles
    assert reason(blank) == replayed
    (tmp_path / "reasons" / "corpus.jsonl").unlink()
    assert reason(marked) == "the stored reason"
    assert reason(gone).startswith("seat ")  # composed from the plays


def test_audit_lists_findings_and_rejects(app: AppTest) -> None:
    app.switch_page("views/audit.py").run()
    _no_errors(app)
    metrics = {m.label: m.value for m in app.metric}
    # As `shengji ingest` counts them: every line not replayed to the end, of which one hand is
    # stored up to its fault.
    assert metrics["rejected"] == "2" and "Rejected lines" not in metrics
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
    deadline = time.monotonic() + 300  # the import runs in its own process: wait for its end
    while any(b.key == "im_cancel" for b in at.button):
        assert time.monotonic() < deadline, "the import did not finish"
        time.sleep(0.2)
        at.run()
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


def test_tables_show_dashes_for_missing_values_and_one_decimal_rates(app: AppTest) -> None:
    import polars as pl

    from dashboard import ui

    df = pl.DataFrame({"trick": [1, None], "who": [None, "lin"], "rate": [0.2191, None]})
    shown = ui.blank_nulls(df)
    assert shown["trick"].to_list() == ["1", "—"] and shown["who"].to_list() == ["—", "lin"]
    assert shown["rate"].null_count() == 1  # numbers keep their type (and their formatting)
    assert ui.blank_nulls(pl.DataFrame({"trick": [None, None]}))["trick"].to_list() == ["—", "—"]
    assert (ui.count(1, "player"), ui.count(1374, "capture")) == ("1 player", "1,374 captures")
    app.switch_page("views/players.py").run()
    _no_errors(app)
    table = app.dataframe[0]
    assert table.proto.columns  # the config was applied
    assert '"%.1f%%"' in table.proto.columns


def test_hand_finder_counts_pages_and_links_every_hand(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every hand with a failed throw by one player, counted without a cap, paged, and each row
    linking to the replay at that player's first failed throw."""
    monkeypatch.setenv("SHENGJI_DB", str(store))
    ((who, n),) = _sql(
        store,
        "SELECT [h.player0, h.player1, h.player2, h.player3][t.leader + 1] AS who, "
        "count(DISTINCT h.hand_id) AS n FROM tricks t JOIN hands h USING (source, hand_id) "
        "WHERE t.throw_failed AND h.status <> 'rejected' GROUP BY ALL ORDER BY n DESC, who LIMIT 1",
    )
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"event": "failed_throw", "who": who})
    at.switch_page("views/hands.py").run()
    _no_errors(at)
    assert at.selectbox(key="hf_event").value == "failed_throw"
    assert at.selectbox(key="hf_who").value == who
    assert any(f"**{n:,} hands**" in m.value for m in at.markdown)
    rows = at.dataframe[0].value
    assert len(rows) == n
    for link, trick, hand_id in zip(rows["open"], rows["trick"], rows["hand_id"], strict=True):
        ((first,),) = _sql(
            store,
            f"SELECT min(t.trick) FROM tricks t JOIN hands h USING (source, hand_id) "
            f"WHERE h.hand_id = '{hand_id}' AND t.throw_failed "
            f"AND [h.player0, h.player1, h.player2, h.player3][t.leader + 1] = '{who}'",
        )
        assert int(trick) == first and f"hand={hand_id}&trick={first}&list=" in link
    # All hands: more than a page, said so, and page 2 holds the rest.
    at.selectbox(key="hf_who").set_value(None).run()
    at.selectbox(key="hf_event").set_value("all").run()
    ((total,),) = _sql(store, "SELECT count(*) FROM hands WHERE status <> 'rejected'")
    at.number_input(key="hf_page").set_value(1).run()
    text = " ".join(m.value for m in at.markdown)
    assert f"**{total:,} hands**" in text
    if total > 50:
        at.number_input(key="hf_page").set_value(2).run()
        assert len(at.dataframe[0].value) == total - 50
        assert at.query_params["page"] == "2"
    # A chart mark's value narrows it; an unknown field from a link is dropped, said so.
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"event": "all", "where": ["level=2", "nope=1"]})
    at.switch_page("views/hands.py").run()
    _no_errors(at)
    ((lv2,),) = _sql(store, "SELECT count(*) FROM hands WHERE status <> 'rejected' AND level='2'")
    assert any(f"**{lv2:,} hands**" in m.value for m in at.markdown) or lv2 == 0
    assert any(f"Ignored in the link: {ui.md('nope=1')}" in c.value for c in at.caption)


def test_filters_live_in_the_url(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"f_source": "club-server", "f_role": "banker", "f_player": "lin"})
    at.run()
    _no_errors(at)
    assert at.sidebar.multiselect(key="f_sources").value == ["club-server"]
    assert at.sidebar.multiselect(key="f_players").value == ["lin"]
    assert at.sidebar.selectbox(key="f_role").value == "banker"
    # A widget change goes back into the URL; "all" leaves no parameter behind.
    at.sidebar.selectbox(key="f_role").set_value("any").run()
    assert "f_role" not in at.query_params
    assert at.query_params["f_player"] == "lin"
    at.sidebar.toggle(key="f_flagged").set_value(False).run()
    assert at.query_params["f_clean"] == "1"
    # Values the store does not hold are ignored, not trusted.
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"f_player": "<b>nobody</b>", "f_role": "king"})
    at.run()
    _no_errors(at)
    assert at.sidebar.multiselect(key="f_players").value == []
    assert at.sidebar.selectbox(key="f_role").value == "any"


def test_hand_finder_queries_are_whitelisted() -> None:
    from analytics.handfinder import HandQuery

    for bad in (
        {"event": "drop table"},
        {"where": (("level; --", "2"),)},
        {"ranges": (("x", 0.0, 1.0),)},
        {"throw": ("nope", "1")},
    ):
        with pytest.raises(ValueError):
            HandQuery(**bad)  # type: ignore[arg-type]


def test_hand_finder_shows_linked_text_as_text(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"match": "<img src=x onerror=alert(1)>", "where": "[x](javascript:1)"})
    at.switch_page("views/hands.py").run()
    _no_errors(at)
    captions = " ".join(c.value for c in at.caption)
    assert "img" in captions and "javascript" in captions
    # Every character Markdown would act on arrives escaped.
    assert not re.search(r"(?<!\\)[<>\[\]()]", captions), captions


def test_replay_payload_marks_the_reviews_mistakes() -> None:
    """A mistake is drawn on the table: who, its severity's mark (?!, ?, ??) in the timeline, the
    code in words with its help, the cards played and the better play as card faces; a bury's
    verdict goes with the deal, with the banker's hand before the bury and the original bottom."""
    import polars as pl

    from analytics import review_codes
    from analytics.handview import replay_payload

    hand = _hand_data(
        tricks=[{"trick": 1, "leader": 0, "winner": 1, "points": 0, "attackers_total": 0}],
        plays=[(1, s, "AH", "lead" if s == 0 else "follow") for s in range(4)],
        findings=[],
    )
    decisions = pl.DataFrame(
        {
            "trick": [1, 1, 1, None],
            "seat": [3, 1, 2, 0],
            "kind": ["last_seat", "last_seat", "last_seat", "bury"],
            "code": ["lost_trick", "fed_points", "missed_points", "bury_points"],
            "severity": ["blunder", "ok", "inaccuracy", "mistake"],
            "is_mistake": [True, False, True, True],
            "cost": [35.0, 0.0, 5.0, 20.0],
            "play": ["AH", "AH", "AH", "TS KS 2C 3C 4C 6C 7C 8C"],
            "better": ["TS BJ", None, "KH", "2C 3C 4C 6C 7C 8C 9C 9C"],
            "reason": ["played A♥; 10♠ BJ wins", "fine", "K♥ adds 10", "buried 20 points"],
        }
    )
    bottom = tuple(parse_cards("TS KS 9C 9C 2D 3D 4D 5D"))
    before = "AH TS KS 2C 3C 4C 6C 7C 8C"
    hand = dataclasses.replace(
        hand,
        seats=hand.seats.with_columns(
            cards_before_bury=pl.when(pl.col("seat") == 0).then(pl.lit(before)),
            cards_start=pl.when(pl.col("seat") == 0).then(pl.lit("AH")).otherwise(pl.lit("")),
        ),
    )
    data = replay_payload(hand, None, decisions, bottom)
    (trick,) = data["tricks"]
    blunder, inaccuracy = trick["verdicts"]
    assert blunder == {
        "seat": 3,
        "player": "p3",
        "kind": "last_seat",
        "code": "lost_trick",
        "label": review_codes.label("lost_trick"),
        "help": review_codes.help_text("lost_trick"),
        "severity": "blunder",
        "mark": "??",
        "cost": 35.0,
        "play": list(parse_cards("AH")),
        "better": list(parse_cards("TS BJ")),
        "reason": "played A♥; 10♠ BJ wins",
    }
    assert blunder["help"] and blunder["label"] != "lost_trick"
    assert (inaccuracy["seat"], inaccuracy["mark"]) == (2, "?!")
    # One mark for the trick, the worst verdict's, its tooltip naming both.
    (mark,) = trick["marks"]
    assert mark["kind"] == "blunder" and "10♠ BJ wins" in mark["text"] and "K♥" in mark["text"]
    (bury,) = data["bury"]["verdicts"]
    assert (bury["seat"], bury["mark"], bury["code"]) == (0, "?", "bury_points")
    assert data["bury"]["bottom"] == list(bottom)
    assert data["bury"]["before"] == list(parse_cards(before))
    # A store without the review: no verdicts, no markers.
    data = replay_payload(hand, None, None)
    (trick,) = data["tricks"]
    assert trick["verdicts"] == [] and trick["marks"] == []
    assert data["bury"] == {"verdicts": [], "before": list(parse_cards(before)), "bottom": None}


def test_replay_link_to_an_unknown_hand_opens_none(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An id the store lacks is said to be unknown; no other hand is opened in its place and the
    link stays as it was."""
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": "no-such-hand", "trick": "5"})
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    assert any("No hand with this id" in w.value for w in at.warning)
    assert not at.get("bidi_component")
    assert at.query_params["hand"] == "no-such-hand" and at.query_params["trick"] == "5"
    assert _picker(at).value is None
    # Picking a hand then opens it, at its deal.
    ((source, hand_id),) = _sql(
        store, "SELECT source, hand_id FROM hands WHERE status = 'ok' ORDER BY hand_id LIMIT 1"
    )
    _picker(at).set_value((source, hand_id)).run()
    _no_errors(at)
    assert not at.warning
    assert _replayer(at)["hand"]["id"] == hand_id and at.query_params["hand"] == hand_id
    assert "trick" not in at.query_params
    # Back from another page without a link: no warning, the hand shown last.
    at.query_params.clear()
    at.switch_page("views/overview.py").run()
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    assert not at.warning and _replayer(at)["hand"]["id"] == hand_id


def test_replay_opened_without_a_link_after_an_unknown_one_shows_a_hand(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warning about an unknown id belongs to its link: opened again from the sidebar, the
    page shows the newest hand, with no warning."""
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": "no-such-hand"})
    at.switch_page("views/replay.py").run()
    assert at.warning and not at.get("bidi_component")
    at.query_params.clear()
    at.switch_page("views/overview.py").run()
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    assert not at.warning
    assert _replayer(at)["hand"]["id"] == _picker(at).value[1] == at.query_params["hand"]


def test_replay_keeps_a_pick_against_a_late_rerun_of_the_hand_left(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A browser still drawing the hand left can send a rerun after the pick, before the pick's
    answer arrives (the old table reporting its position late): its URL, picker and hand list are
    the hand left's. The pick holds: the hand shown, the URL and the picker stay the new hand's.
    (This rerun once brought the hand left back, at its deal.)"""
    (sa, a), (sb, b) = _sql(
        store,
        "SELECT source, hand_id FROM hands WHERE status = 'ok' "
        "AND hand_id IN (SELECT hand_id FROM hands GROUP BY hand_id HAVING count(*) = 1) "
        "ORDER BY played_at DESC NULLS LAST, hand_id LIMIT 2",
    )  # the picker's newest hands, so both are in the list beside the table
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": a, "source": sa, "trick": "2"})
    at.switch_page("views/replay.py").run()
    assert _replayer(at)["hand"]["id"] == a and _hand_list(at).value is not None
    left = {**at.query_params, "play": "1"}
    _picker(at).set_value((sb, b))
    # What the browser sends with the pick, and again with any rerun until the answer arrives.
    in_flight = at._tree.get_widget_states()
    at.run()
    assert _replayer(at)["hand"]["id"] == b and at.query_params["hand"] == b
    at.query_params = dict(left)
    at._run(in_flight)
    _no_errors(at)
    assert _replayer(at)["hand"]["id"] == b
    assert _replayer(at)["start"]["trick"] == 1 and _replayer(at)["start"]["play"] == 0
    assert at.query_params["hand"] == b and at.query_params["source"] == sb
    assert "trick" not in at.query_params and "play" not in at.query_params
    assert _picker(at).value == (sb, b)
    # A click afterwards is a click: the list still opens the hand left.
    _hand_list(at).set_value(
        _hand_list(at).options.index(next(o for o in _hand_list(at).options if o.startswith(a)))
    ).run()
    assert _replayer(at)["hand"]["id"] == a


def test_replay_bends_a_link_and_says_how(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`play=0` is before the trick's lead (not the trick before, complete); a play or a trick out
    of range opens the nearest, with one readable sentence saying so."""
    ((hand_id,),) = _sql(
        store, "SELECT hand_id FROM hands WHERE status = 'ok' ORDER BY hand_id LIMIT 1"
    )
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": hand_id, "trick": "3", "play": "0"})
    at.switch_page("views/replay.py").run()
    assert _replayer(at)["start"] == {"trick": 3, "play": 0, "note": None}
    assert not at.caption or not any("asks for" in c.value for c in at.caption)
    at = _replay_link({"hand": hand_id, "trick": "3", "play": "9"})
    assert _replayer(at)["start"]["play"] == 4
    assert "The link asks for play 9 of trick 3, which has 4 plays: showing it complete." in [
        c.value for c in at.caption
    ]
    at = _replay_link({"hand": hand_id, "trick": "0"})
    assert _replayer(at)["start"]["trick"] == 1
    assert "The link asks for trick 0, but tricks count from 1: showing the first." in [
        c.value for c in at.caption
    ]


def test_replay_review_shows_no_none_and_cards_as_drawn(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review table under the table: p(fail) is a number for a throw and says "not a throw"
    otherwise (never `None`); cards read as the reason writes them (10♠, not TS); each code's
    meaning is on the page."""
    from analytics import review_codes

    ((source, hand_id, trick),) = _sql(
        store,
        "SELECT source, hand_id, trick FROM decisions WHERE trick IS NOT NULL GROUP BY ALL "
        "HAVING count(DISTINCT kind) > 1 AND bool_or(kind = 'throw') "
        "AND bool_or(better LIKE '%T%' OR play LIKE '%T%') ORDER BY hand_id, trick LIMIT 1",
    )
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": hand_id, "source": source, "trick": str(trick)})
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    review = next(t.value for t in at.dataframe if "p_fail" in t.value.columns)
    p_fail = list(review["p_fail"])
    assert all(isinstance(p, str) and p not in ("None", "nan") for p in p_fail), p_fail
    assert "not a throw" in p_fail and any(re.fullmatch(r"[01]\.\d{3}", p) for p in p_fail)
    cards = " ".join(str(v) for col in ("play", "better") for v in review[col])
    assert "10" in cards and not re.search(r"\bT[SHCD]\b", cards), cards
    captions = " ".join(c.value for c in at.caption)
    for code in set(review["code"]):
        if review_codes.help_text(code):
            assert ui.md(review_codes.help_text(code)) in captions, code


def test_replay_payload_carries_the_bury_and_the_original_bottom(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand whose bury the review faulted: the banker's hand before the bury and the bottom the
    deal left (read from the source file), as the table draws them at the deal."""
    ((source, hand_id, banker, before),) = _sql(
        store,
        "SELECT h.source, h.hand_id, h.banker, s.cards_before_bury FROM hands h "
        "JOIN seats s ON s.source = h.source AND s.hand_id = h.hand_id AND s.seat = h.banker "
        "WHERE EXISTS (SELECT 1 FROM decisions d WHERE d.source = h.source "
        "AND d.hand_id = h.hand_id AND d.kind = 'bury' AND d.is_mistake) ORDER BY h.hand_id LIMIT 1",
    )
    from shengji.record import parse_hand

    record = next(
        parse_hand(text)
        for text in (store.parent / "corpus.jsonl").read_text().splitlines()
        if f'"hand_id": "{hand_id}"' in text or f'"hand_id":"{hand_id}"' in text
    )
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": hand_id, "source": source})
    at.switch_page("views/replay.py").run()
    bury = _replayer(at)["bury"]
    assert bury["before"] == list(parse_cards(str(before)))
    assert bury["bottom"] == list(record.deal.cards[-8:]) and len(bury["bottom"]) == 8
    (verdict,) = bury["verdicts"]
    assert verdict["seat"] == banker and verdict["mark"] in ("?!", "?", "??")


def test_replay_hand_list_walks_the_finders_results(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replay opened from the Hand finder lists the finder's hands beside the table, with
    previous and next hand: next opens the following result at its trick, the list kept."""
    import urllib.parse

    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"event": "mistake_last_seat"})
    at.switch_page("views/hands.py").run()
    _no_errors(at)
    rows = at.dataframe[0].value
    # The finder names each hand's costliest mistake and its cost.
    first = rows.iloc[0]
    ((code, cost, mistakes),) = _sql(
        store,
        "SELECT arg_max(code, cost), max(cost), count(*) FROM decisions WHERE is_mistake "
        f"AND kind = 'last_seat' AND hand_id = '{first['hand_id']}'",
    )
    assert first["mistake"] == f"{review_codes_label(code)} ({code})"
    assert (first["cost"], first["mistakes"]) == (cost, mistakes)
    link = first["open"]
    query = urllib.parse.parse_qs(link.partition("?")[2])
    at = AppTest.from_file(APP, default_timeout=60)
    for name, values in query.items():
        at.query_params[name] = values[0]
    at.switch_page("views/replay.py").run()
    _no_errors(at)
    assert _replayer(at)["hand"]["id"] == first["hand_id"]
    listed = _hand_list(at)
    assert len(listed.options) == min(len(rows), 50)
    assert listed.value == 0 and at.button(key="rp_prev_hand").disabled
    at.button(key="rp_next_hand").click().run()
    _no_errors(at)
    second = rows.iloc[1]
    assert _replayer(at)["hand"]["id"] == second["hand_id"]
    assert at.query_params["hand"] == second["hand_id"]
    assert at.query_params["trick"] == str(second["trick"])
    assert at.query_params["list"] == query["list"][0]
    assert _hand_list(at).value == 1
    # Picking from the list opens that hand.
    _hand_list(at).set_value(3).run()
    assert _replayer(at)["hand"]["id"] == rows.iloc[3]["hand_id"]
    assert not at.button(key="rp_prev_hand").disabled


def _picker(at: AppTest) -> Any:
    """Hand replay's picker (its key changes with each hand shown)."""
    (box,) = [b for b in at.selectbox if b.label == "Hand"]
    return box


def _hand_list(at: AppTest) -> Any:
    """The list of hands beside the table (its key changes with each hand and list)."""
    (radio,) = [r for r in at.radio if r.label == "Hands in the list"]
    return radio


def review_codes_label(code: str) -> str:
    from analytics import review_codes

    return review_codes.label(code)


def test_replay_hand_list_without_a_finder_is_the_pickers(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opened by hand, the list is the picker's hands (a player's, when searched for one)."""
    ((player,),) = _sql(store, "SELECT player0 FROM hands ORDER BY hand_id LIMIT 1")
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("views/replay.py").run()
    at.text_input(key="rp_search").set_value(player).run()
    _no_errors(at)
    ((n,),) = _sql(
        store,
        f"SELECT count(*) FROM hands WHERE '{player}' IN (player0, player1, player2, player3)",
    )
    assert len(_hand_list(at).options) == n
    shown = _replayer(at)["hand"]["id"]
    at.button(key="rp_next_hand").click().run()
    assert _replayer(at)["hand"]["id"] != shown


def _finder_from_link(link: str, store: Path) -> AppTest:
    """Open a table's link to the Hand finder as a new tab would: a new session, the link's URL."""
    import urllib.parse

    path, _, query = link.partition("?")
    assert path == "hands", link
    at = AppTest.from_file(APP, default_timeout=60)
    for name, values in urllib.parse.parse_qs(query).items():
        at.query_params[name] = values if len(values) > 1 else values[0]
    at.switch_page("views/hands.py").run()
    _no_errors(at)
    return at


def _listed(at: AppTest) -> int:
    for m in at.markdown:
        found = re.search(r"\*\*([\d,]+) hands\*\*", m.value)
        if found:
            return int(found.group(1).replace(",", ""))
    return 0


def test_table_rows_link_to_their_hands_with_the_filters(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Throws, Players, Bottom capture, Explorer and Coaching tables: each row's link opens the
    Hand finder on the hands it counts, under the filters of the page's URL."""
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"f_clean": "1"})
    at.switch_page("views/throws.py").run()
    _no_errors(at)
    tables = {tuple(t.value.columns): t.value for t in at.dataframe}
    per_player = next(v for cols, v in tables.items() if "player" in cols and "led" in cols)
    row = per_player.sort_values("attempted", ascending=False).iloc[0]
    assert "f_clean=1" in row["hands"]
    finder = _finder_from_link(row["hands"], store)
    ((n,),) = _sql(
        store,
        "SELECT count(DISTINCT h.hand_id) FROM tricks t JOIN hands h USING (source, hand_id) "
        "WHERE t.throw AND h.status = 'ok' AND "
        f"[h.player0, h.player1, h.player2, h.player3][t.leader + 1] = '{row['player']}'",
    )
    assert _listed(finder) == n > 0
    assert finder.sidebar.toggle(key="f_flagged").value is False

    for page in ("views/players.py", "views/bottom.py", "views/explorer.py", "views/coaching.py"):
        at = AppTest.from_file(APP, default_timeout=60)
        at.query_params.update({"f_clean": "1"})
        at.switch_page(page).run()
        _no_errors(at)
        linked = [
            list(t.value[c])
            for t in at.dataframe
            for c in ("open", "hands")
            if c in t.value.columns and any(str(x).startswith("hands?") for x in t.value[c])
        ]
        assert linked, page
        for links in linked:
            # A row with nothing to open (no hit, no mistake) has no link.
            assert all("f_clean=1" in link for link in links if link), page
        linked = [[link for link in links if link] for links in linked]
        assert _listed(_finder_from_link(linked[0][0], store)) > 0, (page, linked[0][0])


def test_no_page_shows_a_stray_string(app: AppTest) -> None:
    """A bare string in a page script is drawn by Streamlit's magic: none may be there."""
    import ast

    views = Path(APP).parent / "views"
    for path in sorted(views.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body[1:]:  # the first may be the module's docstring
            is_str = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            assert not is_str, f"{path.name}:{node.lineno} is drawn on the page"


def test_a_kept_chart_follows_the_filters(app: AppTest) -> None:
    """Charts are kept between runs (ui.built): a filter that changes a chart's data changes the
    chart drawn, and undoing it draws the first chart again."""

    def drawn() -> list[bytes]:
        return [
            c.proto.spec.encode() + b"".join(d.data.data for d in c.proto.datasets)  # type: ignore[attr-defined]
            for c in _charts(app)
        ]

    app.switch_page("views/bottom.py").run()
    _no_errors(app)
    everyone = drawn()
    app.sidebar.multiselect(key="f_players").set_value(["lin"]).run()
    _no_errors(app)
    lin = drawn()
    assert len(lin) == len(everyone) and lin != everyone
    app.sidebar.multiselect(key="f_players").set_value([]).run()
    assert drawn() == everyone


def test_hand_finder_keeps_a_cleared_selection_against_a_late_rerun(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chart's selection cleared, then a rerun the browser sent before that answer arrived
    (the URL still holding the selection): the selection stays cleared."""
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"event": "all", "where": "level=2"})
    at.switch_page("views/hands.py").run()
    _no_errors(at)
    narrowed = _listed(at)
    before = dict(at.query_params)
    at.button(key="hf_clear").click().run()
    assert "where" not in at.query_params and _listed(at) > narrowed
    at.query_params = dict(before)
    at.run()
    _no_errors(at)
    assert "where" not in at.query_params and _listed(at) > narrowed
