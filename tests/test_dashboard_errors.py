"""No page ever shows a traceback: bad deep-link parameters are answered in words, and an
unexpected error in any page becomes a short message (the traceback goes to the server's log)."""

from __future__ import annotations

from pathlib import Path

import pytest
from analytics_testdb import ingested_db
from hostile_store import PAGES
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_db(Path(tmp_path_factory.mktemp("errors")), n_hands=6)


def _shown(at: AppTest) -> str:
    parts = []
    for node in at._tree:
        proto = getattr(node, "proto", None)
        for field in ("body", "label", "message", "stack_trace"):
            value = getattr(proto, field, None) if proto is not None else None
            if isinstance(value, str):
                parts.append(value)
            elif value is not None and hasattr(value, "__iter__"):
                parts.extend(str(v) for v in value)
    return "\n".join(parts)


def _no_traceback(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    text = _shown(at)
    for leak in ("Traceback", 'File "', "/work/", "site-packages", "Error:"):
        assert leak not in text, (leak, text[-600:])


@pytest.mark.parametrize(
    "params",
    [
        {"trick": "abc"},
        {"trick": "-3"},
        {"trick": "1e5"},
        {"trick": "99999999999999999999999"},
        {"trick": "٣"},  # a digit, but not an ASCII one
        {"trick": ""},
        {"trick": "0"},
    ],
)
def test_replay_bad_trick_parameter(
    store: Path, monkeypatch: pytest.MonkeyPatch, params: dict[str, str]
) -> None:
    import duckdb

    con = duckdb.connect(str(store.resolve()), read_only=True)
    try:
        ((hand_id,),) = con.sql("SELECT min(hand_id) FROM hands WHERE status = 'ok'").fetchall()
    finally:
        con.close()
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"hand": hand_id, **params})
    at.switch_page("views/replay.py").run()
    _no_traceback(at)
    assert not at.error
    start = at.session_state["rp_start"]  # where the table opens: a trick of this hand
    assert start["trick"] >= 1 and at.get("bidi_component")


@pytest.mark.parametrize(
    "params",
    [
        {"hand": "no-such-hand", "trick": "2"},
        {"hand": "x" * 5000},
        {"hand": "g0001", "source": "\x00 nowhere"},
        {"hand": "", "source": "", "trick": "abc"},
    ],
)
def test_replay_bad_hand_parameter(
    store: Path, monkeypatch: pytest.MonkeyPatch, params: dict[str, str]
) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    at.switch_page("views/replay.py").run()
    _no_traceback(at)
    assert not at.error
    if params["hand"]:
        assert any("No hand" in w.value for w in at.warning)


@pytest.mark.parametrize("player", ["nobody", "", "x" * 5000, "**lin**"])
def test_players_bad_player_parameter(
    store: Path, monkeypatch: pytest.MonkeyPatch, player: str
) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["player"] = player
    at.switch_page("views/players.py").run()
    _no_traceback(at)
    assert not at.error
    assert at.selectbox(key="pl_player").value  # the first player instead


BAD_URL = {
    "f_from": "not-a-date",
    "f_to": "2026-13-45",
    "f_source": ["<img src=x>", "nowhere"],
    "f_rules": "**none**",
    "f_player": "nobody",
    "f_role": "boss",
    "f_level": "ZZ",
    "f_clean": "maybe",
    "event": "nope",
    "who": "nobody",
    "match": "$m$",
    "page": "abc",
    "where": ["garbage", "outcome=banker +99"],
    "range": "a..b",
    "throw": "=",
    "trick": "-1",
    "play": "x",
    "hand": "nope",
    "player": "nobody",
}
"""Every parameter a page or the sidebar reads from the URL, each wrong."""


@pytest.mark.parametrize("page", PAGES)
def test_every_page_takes_a_wrong_url(
    store: Path, monkeypatch: pytest.MonkeyPatch, page: str
) -> None:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    for name, value in BAD_URL.items():
        at.query_params[name] = value
    at.switch_page(page).run()
    _no_traceback(at)
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("page", PAGES)
def test_an_unexpected_error_is_a_short_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, page: str
) -> None:
    """Whatever raises inside a page (here: every query, and the upload's ingest), the page
    shows a short message, never the exception, its traceback or a server path."""
    from dashboard import db

    def boom(*args: object, **kwargs: object) -> object:
        raise RuntimeError(f"secret detail at {tmp_path}/server/path.py")

    store = ingested_db(tmp_path / "s", n_hands=4)
    monkeypatch.setenv("SHENGJI_DB", str(store))
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(page).run()
    _no_traceback(at)
    if page == "views/import_files.py":
        # The ingest itself runs in a process of its own; what raises here is starting it.
        monkeypatch.setattr("dashboard.uploads.start", boom)
        at.file_uploader(key="im_files").set_value([("a.jsonl", b"{}\n", "application/json")])
        at.run()
        at.button(key="im_go").click()
    else:
        monkeypatch.setattr(db, "query", boom)
        monkeypatch.setattr(db, "query_plain", boom)
    at.run()
    _no_traceback(at)
    assert "secret detail" not in _shown(at)
    assert any("Something went wrong" in e.value for e in at.error), page
