"""The dashboard in a real browser: `streamlit run` on a free port against a fixture store, pages
loaded in headless Chromium (Debian's chromium and chromedriver; selenium-manager never runs) at a
1600×1000 viewport, charts drawn, no error element, a screenshot of each; the Hand replay driven
with keys and clicks (it lives in a shadow root: `_rp` reaches into it).

Every wait is on a condition (WebDriverWait on the state checked), never a sleep, with timeouts
meant for a machine at load 20: `PATIENCE` for a page, `STEP` for a step of the replayer.

Screenshots go to the test's temporary folder; with SHENGJI_SCREENSHOTS=DIR they are also saved
there, and SHENGJI_BROWSER_DB=FILE points the run at another store. The README's pictures
(docs/img) are taken apart, on the bundled sample: `python -m bench.screenshots`."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("SE_OFFLINE", "true")  # selenium-manager must not fetch anything

import hostile_store as hs
from analytics_testdb import corpus_lines
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
PATIENCE = 240
"""Seconds a page may take to load and draw (a first query, a machine at load 20)."""
STEP = 120
"""Seconds a replayer step, a click's rerun or a page switch may take."""
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("SHENGJI_BROWSER_DB")
    if chosen:
        return Path(chosen).resolve()
    from ingest.pipeline import ingest

    folder = Path(tmp_path_factory.mktemp("browser"))
    lines = corpus_lines(40)
    # A player whose name is markup (it must show as text), and a hand whose log breaks at
    # trick 4 (seat out of turn): rejected, with three tricks kept.
    evil = json.loads(lines[0])
    evil["hand_id"], evil["players"][0] = "evil-1", HOSTILE
    broken = json.loads(lines[1])
    broken["hand_id"] = "broken-1"
    broken["plays"][12]["seat"] = (broken["plays"][12]["seat"] + 1) % 4
    src = folder / "corpus.jsonl"
    src.write_text("\n".join([*lines, json.dumps(evil), json.dumps(broken)]) + "\n")
    db = folder / "tractor.duckdb"
    ingest([src], db, workers=0, progress=False)
    return db


HOSTILE = '<img src=x onerror="window.__pwned=1">'


@pytest.fixture(scope="module")
def server(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _serve(store, tmp_path_factory)


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _serve(hs.hostile_db(Path(tmp_path_factory.mktemp("hostile"))), tmp_path_factory)


def _serve(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = Path(tmp_path_factory.mktemp("streamlit")) / "server.log"
    env = {**os.environ, "SHENGJI_DB": str(store), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                str(ROOT / "dashboard" / "serve.py"),
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
                "--server.fileWatcherType",
                "none",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + PATIENCE
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start:\n{log.read_text()}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    for program in (CHROMIUM, CHROMEDRIVER):
        # Never a skip: `make test` installs both (.ci/chromium) before the suite runs.
        assert Path(program).exists(), f"{program} is missing: run `make test` (it installs it)"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--window-size=1600,1200",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    # The viewport itself at 1600×1000, whatever the window's frame takes.
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1600, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
    )
    driver.set_page_load_timeout(PATIENCE)
    try:
        yield driver
    finally:
        driver.quit()


def _idle(driver: webdriver.Chrome) -> bool:
    """The script has finished its run: Streamlit's status widget no longer offers to stop it
    (while it runs it shows "Running…" or a Stop button)."""
    status = driver.find_elements(By.CSS_SELECTOR, '[data-testid="stStatusWidget"]')
    return not status or not any(word in status[0].text for word in ("Running", "Stop"))


_DRAWN = """
const charts = [...document.querySelectorAll('.vega-embed')];
return charts.length >= arguments[0] && charts.every(c => {
  const drawn = c.querySelector('canvas, svg.marks');
  return drawn && drawn.getBoundingClientRect().width > 0;
});
"""


def _load(driver: webdriver.Chrome, url: str, charts: int, shot: Path | None = None) -> None:
    """Open `url` and wait until the script has run and at least `charts` charts are drawn; no
    error element; a screenshot to `shot`."""
    driver.get(url)
    _wait_for(driver, lambda d: bool(d.execute_script(_DRAWN, charts)) and _idle(d), PATIENCE)
    errors = driver.find_elements(By.CSS_SELECTOR, '[data-testid="stException"]')
    assert not errors, [e.text for e in errors]
    if shot is not None:
        _save(driver, shot)


def _sql(store: Path, q: str) -> list[tuple[object, ...]]:
    import duckdb

    con = duckdb.connect(str(store.resolve()), read_only=True)
    try:
        return con.sql(q).fetchall()
    finally:
        con.close()


_FIND = """
const find = (root, sel) => {
  const hit = root.querySelector(sel);
  if (hit) return hit;
  for (const node of root.querySelectorAll('*')) {
    if (node.shadowRoot) { const inner = find(node.shadowRoot, sel); if (inner) return inner; }
  }
  return null;
};
"""


def _rp(driver: webdriver.Chrome, selector: str, what: str = "text") -> object:
    """Inside the replayer's shadow root: an element's text, a click on it, its box or its
    classes."""
    script = _FIND + "const e = find(document, arguments[0]); if (!e) return null;"
    if what == "text":
        script += "return e.textContent;"
    elif what == "click":
        script += "e.click(); return true;"
    elif what == "rect":
        script += "const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right];"
    elif what == "class":
        script += "return e.className;"
    return driver.execute_script(script, selector)


def _position(driver: webdriver.Chrome) -> str:
    return str(_rp(driver, '[data-testid="replayer-position"]') or "")


def _trick_play(position: str) -> tuple[int, int]:
    """(trick, play) of a replayer position text, (0, 0) before the first trick."""
    found = re.search(r"Trick (\d+) of \d+ · play (\d+) of", position)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def _wait_for(driver: webdriver.Chrome, cond: object, timeout: float = STEP) -> None:
    WebDriverWait(
        driver, timeout, poll_frequency=0.2, ignored_exceptions=(StaleElementReferenceException,)
    ).until(cond)  # type: ignore[arg-type]


def _open_replay(driver: webdriver.Chrome, url: str, expect: str) -> None:
    driver.get(url)
    _wait_for(driver, lambda d: expect in _position(d), PATIENCE)


def _press(driver: webdriver.Chrome, *keys: str) -> None:
    ActionChains(driver).send_keys(*keys).perform()


def _on_screen(driver: webdriver.Chrome, selector: str) -> bool:
    found = _rp(driver, selector, "rect")
    if not found:
        return False
    top, bottom, left, right = found  # type: ignore[misc]
    return bool(top >= 0 and bottom <= 1000 and left >= 0 and right <= 1600)


def _scrolled(driver: webdriver.Chrome) -> int:
    """How far the page's main area is scrolled (Streamlit scrolls `stMain`, not the window)."""
    return int(
        driver.execute_script(
            "const m = document.querySelector('[data-testid=\"stMain\"]');"
            "return Math.max(window.scrollY, m ? m.scrollTop : 0);"
        )
    )


def _scroll_top(driver: webdriver.Chrome) -> None:
    """Back to the top, asked again until it holds: a rerun still laying the page out (a loaded
    machine) may scroll it once more after the first request."""

    def top(d: webdriver.Chrome) -> bool:
        d.execute_script(
            "const m = document.querySelector('[data-testid=\"stMain\"]');"
            "if (m) m.scrollTo({top: 0, behavior: 'instant'});"
            "window.scrollTo({top: 0, behavior: 'instant'});"
        )
        return _scrolled(d) == 0

    _wait_for(driver, top)


def test_replayer_steps_with_keys_and_clicks(
    server: str, browser: webdriver.Chrome, store: Path, tmp_path: Path
) -> None:
    ((source, hand_id, n),) = _sql(
        store,
        "SELECT source, hand_id, n_tricks FROM hands WHERE status = 'ok' AND n_tricks > 8 "
        "ORDER BY played_at DESC NULLS LAST, hand_id LIMIT 1",
    )
    names = _sql(
        store, f"SELECT player FROM seats WHERE hand_id = '{hand_id}' AND source = '{source}'"
    )
    # A deep link with a play: trick 2, one play shown.
    _open_replay(
        browser,
        f"{server}/replay?source={source}&hand={hand_id}&trick=2&play=1",
        f"Trick 2 of {n} · play 1 of 4",
    )
    # The controls, the whole table and the trick's panel beside it are on screen at
    # 1600×1000, without scrolling.
    for part in (".controls", ".table", '[data-testid="replayer-trick"]'):
        assert _on_screen(browser, part), part
    _press(browser, Keys.ARROW_RIGHT)
    _wait_for(browser, lambda d: f"Trick 2 of {n} · play 2 of 4" in _position(d))
    _wait_for(browser, lambda d: "trick=2&play=2" in d.current_url)
    ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.ARROW_RIGHT).key_up(
        Keys.SHIFT
    ).perform()
    _wait_for(browser, lambda d: f"Trick 3 of {n} · play 4 of 4" in _position(d))
    # The panels name the players, not the seat numbers.
    trick_text = str(_rp(browser, '[data-testid="replayer-trick"]'))
    assert "Won by " in trick_text and "Won by seat" not in trick_text
    assert any(f"Won by {name}" in trick_text for (name,) in names), trick_text
    # After a trick's last play, the next trick with its table cleared (play 0), then its lead.
    _press(browser, Keys.ARROW_RIGHT)
    _wait_for(browser, lambda d: f"Trick 4 of {n} · play 0 of 4" in _position(d))
    _press(browser, Keys.ARROW_RIGHT)
    _wait_for(browser, lambda d: f"Trick 4 of {n} · play 1 of 4" in _position(d))
    _press(browser, Keys.END)
    _wait_for(browser, lambda d: f"Trick {n} of {n} · play 4 of 4" in _position(d))
    assert "Final: attackers" in str(_rp(browser, '[data-testid="replayer-final"]'))
    _rp(browser, 'button[data-action="prev"]', "click")
    _wait_for(browser, lambda d: f"Trick {n} of {n} · play 3 of 4" in _position(d))
    _press(browser, Keys.HOME)
    _wait_for(browser, lambda d: "Deal" in _position(d) and "play 0 of" in _position(d))
    _rp(browser, '.timeline [data-trick="5"]', "click")
    _wait_for(browser, lambda d: f"Trick 5 of {n} · play 4 of 4" in _position(d))
    _wait_for(browser, lambda d: "trick=5&play=4" in d.current_url)
    # The position reaches the page too (its review follows the trick): a reload opens the
    # same play.
    _wait_for(browser, lambda d: "Review of trick 5" in _body(d) and _idle(d))
    browser.refresh()
    _wait_for(browser, lambda d: f"Trick 5 of {n} · play 4 of 4" in _position(d), PATIENCE)
    # Hands can be hidden for "play it yourself": all of them, one seat by its own button, or
    # all but one seat's ("view as").
    _rp(browser, ".toggle input", "click")
    _wait_for(browser, lambda d: "(hidden)" in str(_rp(d, '[data-seat="0"]')))
    _rp(browser, ".toggle input", "click")
    _wait_for(browser, lambda d: "(hidden)" not in str(_rp(d, '[data-seat="0"]')))
    assert str(_rp(browser, '[data-seat="1"] button[data-action="hide"]')) == "hide"
    _rp(browser, '[data-seat="1"] button[data-action="hide"]', "click")
    _wait_for(browser, lambda d: "(hidden)" in str(_rp(d, '[data-seat="1"]')))
    assert "(hidden)" not in str(_rp(browser, '[data-seat="0"]'))
    _rp(browser, '[data-seat="1"] button[data-action="hide"]', "click")
    _wait_for(browser, lambda d: "(hidden)" not in str(_rp(d, '[data-seat="1"]')))
    browser.execute_script(
        _FIND + "const s = find(document, '[data-testid=\"replayer-view-as\"]');"
        "s.value = '2'; s.dispatchEvent(new Event('change'));"
    )
    _wait_for(browser, lambda d: "(hidden)" in str(_rp(d, '[data-seat="0"]')))
    assert "(hidden)" not in str(_rp(browser, '[data-seat="2"]'))
    assert all("(hidden)" in str(_rp(browser, f'[data-seat="{s}"]')) for s in (1, 3))
    browser.execute_script(
        _FIND + "const s = find(document, '[data-testid=\"replayer-view-as\"]');"
        "s.value = ''; s.dispatchEvent(new Event('change'));"
    )
    _wait_for(browser, lambda d: "(hidden)" not in str(_rp(d, '[data-seat="0"]')))
    # Autoplay moves on by itself.
    _rp(browser, 'button[data-action="autoplay"]', "click")
    # Past the position it started from, wherever it is by then: a loaded machine may poll
    # less often than autoplay steps, so one exact position could be stepped over unseen.
    _wait_for(browser, lambda d: _trick_play(_position(d)) > (5, 4))
    _rp(browser, 'button[data-action="autoplay"]', "click")
    _save(browser, tmp_path / "dashboard-replay.png")


def test_replayer_leaves_page_down_and_space_to_scrolling(
    server: str, browser: webdriver.Chrome, store: Path
) -> None:
    """Page Down and Space scroll the page (to the review below the table) and do not step or
    start the autoplay; a link's `play=0` is before that trick's lead."""
    ((source, hand_id, n),) = _sql(
        store,
        "SELECT source, hand_id, n_tricks FROM hands WHERE status = 'ok' AND n_tricks > 8 "
        "ORDER BY played_at DESC NULLS LAST, hand_id LIMIT 1",
    )
    _open_replay(
        browser,
        f"{server}/replay?source={source}&hand={hand_id}&trick=3&play=0",
        f"Trick 3 of {n} · play 0 of 4",
    )
    _wait_for(browser, _idle)
    # A click on the controls, as a user steps, then the keys.
    _rp(browser, 'button[data-action="next"]', "click")
    _wait_for(browser, lambda d: f"Trick 3 of {n} · play 1 of 4" in _position(d))
    ActionChains(browser).move_to_element(browser.find_element(By.TAG_NAME, "h1")).click().perform()
    for key in (Keys.PAGE_DOWN, Keys.SPACE):
        _scroll_top(browser)
        _press(browser, key)
        _wait_for(browser, lambda d: _scrolled(d) > 0)
        assert f"Trick 3 of {n} · play 1 of 4" in _position(browser), key
    assert str(_rp(browser, 'button[data-action="autoplay"]')) == "Play"


def _pick_hand(driver: webdriver.Chrome, hand_id: str) -> None:
    """Choose a hand in the page's picker as a user does: open it, type, click the hand."""
    box = next(
        b
        for b in driver.find_elements(
            By.CSS_SELECTOR, '[data-testid="stMain"] [data-testid="stSelectbox"]'
        )
        if b.text.startswith("Hand")
    )
    box.find_element(By.TAG_NAME, "input").click()
    ActionChains(driver).send_keys(hand_id).perform()

    def filtered(d: webdriver.Chrome) -> bool:
        # Enter takes the first option: wait until the typed text has filtered the list (on a
        # loaded machine the list can still show every hand for a while).
        texts = [o.text for o in d.find_elements(By.CSS_SELECTOR, '[role="option"]')]
        return bool(texts) and all(hand_id in t for t in texts)

    _wait_for(driver, filtered)

    # A click on the option, not Enter: on a loaded machine a rerun could redraw the list between
    # the filtering and the key, and the key then picked nothing (the URL never changed).
    def clicked(d: webdriver.Chrome) -> bool:
        hits = [o for o in d.find_elements(By.CSS_SELECTOR, '[role="option"]') if hand_id in o.text]
        if hits:
            hits[0].click()
        return bool(hits)

    _wait_for(driver, clicked)


_TABLES = """
const tables = [];
const walk = root => {
  for (const e of root.querySelectorAll('*')) {
    if (e.getAttribute('data-testid') === 'replayer') {
      const where = e.querySelector('[data-testid="replayer-position"]');
      tables.push([e.getAttribute('data-hand'), where ? where.textContent : '']);
    }
    if (e.shadowRoot) walk(e.shadowRoot);
  }
};
walk(document);
return tables;
"""
"""Every replayer table on the page: [its hand, its position text]."""


def test_picking_another_hand_shows_one_table(
    server: str, browser: webdriver.Chrome, store: Path
) -> None:
    """The picker replaces the table: exactly one, showing the new hand, and stepping moves it
    (the old table once stayed, the new one stacked below it)."""
    rows = _sql(
        store,
        "SELECT source, hand_id, n_tricks FROM hands WHERE status = 'ok' AND n_tricks > 8 "
        "AND hand_id IN (SELECT hand_id FROM hands GROUP BY hand_id HAVING count(*) = 1) "
        "ORDER BY played_at DESC NULLS LAST, hand_id LIMIT 3",
    )  # ids of one source only: the picker is searched by id
    (source, first, _), *others = rows
    _open_replay(browser, f"{server}/replay?source={source}&hand={first}&trick=2", "Trick 2 of")
    _wait_for(browser, _idle)
    for _source, hand_id, n in others:
        _pick_and_step(browser, hand_id, n)


def _pick_and_step(driver: webdriver.Chrome, hand_id: str, n: int) -> None:
    def new_hand_shown(d: webdriver.Chrome) -> bool:
        return any(
            "Deal" in where and f"of {n}" in where for _h, where in d.execute_script(_TABLES)
        )

    _pick_hand(driver, hand_id)
    _wait_for(driver, lambda d: f"hand={hand_id}" in d.current_url and _idle(d))
    _wait_for(driver, new_hand_shown, 40)
    tables = driver.execute_script(_TABLES)
    assert len(tables) == 1 and tables[0][0] == hand_id, tables
    _rp(driver, 'button[data-action="next"]', "click")  # the picker keeps the keys' focus
    _wait_for(driver, lambda d: f"Trick 1 of {n} · play 1 of" in _position(d))
    assert [h for h, _where in driver.execute_script(_TABLES)] == [hand_id]


def test_back_and_forward_walk_the_hands_picked(
    server: str, browser: webdriver.Chrome, store: Path
) -> None:
    """After a pick, the browser's back shows the hand left where it was, and forward the hand
    picked: history entries are links, unlike the URL a rerun carries."""
    (source, first, _), (_source, second, n) = _sql(
        store,
        "SELECT source, hand_id, n_tricks FROM hands WHERE status = 'ok' AND n_tricks > 8 "
        "AND hand_id IN (SELECT hand_id FROM hands GROUP BY hand_id HAVING count(*) = 1) "
        "ORDER BY played_at DESC NULLS LAST, hand_id LIMIT 2",
    )
    _open_replay(browser, f"{server}/replay?source={source}&hand={first}&trick=2", "Trick 2 of")
    _wait_for(browser, _idle)
    _pick_and_step(browser, second, n)

    def shows(hand_id: str, where: str) -> Callable[[webdriver.Chrome], bool]:
        def check(d: webdriver.Chrome) -> bool:
            tables = d.execute_script(_TABLES)
            return (
                len(tables) == 1
                and tables[0][0] == hand_id
                and where in tables[0][1]
                and f"hand={hand_id}" in d.current_url
                and _idle(d)
            )

        return check

    browser.back()
    _wait_for(browser, shows(first, "Trick 2 of"))
    browser.forward()
    _wait_for(browser, shows(second, f"of {n}"))


def test_a_verdict_is_drawn_on_the_table(
    server: str, browser: webdriver.Chrome, store: Path, tmp_path: Path
) -> None:
    """A fourth seat's mistake: its seat outlined, the better play as ghost cards at that seat,
    the verdict beside the table in words with its cost, the trick's timeline cell marked."""
    ((source, hand_id, trick, seat, severity, better),) = _sql(
        store,
        "SELECT d.source, d.hand_id, d.trick, d.seat, d.severity, d.better FROM decisions d "
        "JOIN hands h USING (source, hand_id) WHERE d.kind = 'last_seat' AND d.is_mistake "
        "AND h.status = 'ok' ORDER BY d.cost DESC, d.hand_id, d.trick LIMIT 1",
    )
    ((name,),) = _sql(
        store,
        f"SELECT player FROM seats WHERE hand_id = '{hand_id}' AND source = '{source}' "
        f"AND seat = {seat}",
    )
    _open_replay(
        browser, f"{server}/replay?source={source}&hand={hand_id}&trick={trick}", f"Trick {trick}"
    )
    classes = str(_rp(browser, f'.seat[data-seat="{seat}"]', "class") or "")
    assert "reviewed" in classes
    ghost = str(_rp(browser, f'[data-testid="replayer-ghost"][data-seat="{seat}"]'))
    faces = ["10" if t[0] == "T" else t[:-1] if t[-1] in "SHCD" else t for t in better.split()]
    assert all(face in ghost for face in faces), (ghost, better)
    verdict = str(_rp(browser, '[data-testid="replayer-verdict"]'))
    assert f"{name}: {severity}" in verdict and "points" in verdict
    mark = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}[severity]
    assert mark in str(_rp(browser, f'.timeline [data-trick="{trick}"] .marks'))
    assert _on_screen(browser, '[data-testid="replayer-verdict"]')
    _save(browser, tmp_path / "replay-verdict.png")


def test_replayer_shows_why_a_hand_was_rejected_and_names_as_text(
    server: str, browser: webdriver.Chrome, store: Path
) -> None:
    rows = _sql(
        store,
        "SELECT h.source, h.hand_id, f.trick, f.code FROM hands h JOIN findings f "
        "USING (source, hand_id) WHERE h.status = 'rejected' AND f.trick > h.n_tricks "
        "ORDER BY h.hand_id LIMIT 1",
    )
    ((source, hand_id, trick, code),) = rows
    # The Audit page's link to the fault's trick opens that trick, with the reason.
    _open_replay(
        browser,
        f"{server}/replay?source={source}&hand={hand_id}&trick={trick}",
        f"Trick {trick} · replay stopped",
    )
    assert code in str(_rp(browser, '[data-testid="replayer-fault"]'))
    hostile = _sql(store, "SELECT source, hand_id, player0 FROM hands WHERE player0 LIKE '<%'")
    for source, hand_id, name in hostile:  # the fixture store's markup-named player
        _open_replay(browser, f"{server}/replay?source={source}&hand={hand_id}", "Trick 1 of")
        assert _rp(browser, '[data-seat="0"] .name') == name
        assert _rp(browser, '[data-testid="replayer"] img') is None
        assert browser.execute_script("return window.__pwned === undefined")


def _save(driver: webdriver.Chrome, shot: Path) -> None:
    assert driver.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    copy_to = os.environ.get("SHENGJI_SCREENSHOTS")
    if copy_to:
        Path(copy_to).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(copy_to) / shot.name)


def test_pages_render_in_chromium(
    server: str, browser: webdriver.Chrome, store: Path, tmp_path: Path
) -> None:
    _load(browser, f"{server}/", 3, tmp_path / "dashboard-overview.png")
    sidebar = browser.find_element(By.CSS_SELECTOR, '[data-testid="stSidebar"]').text
    assert "Filters apply to every page" in sidebar
    assert "Banker team held" in browser.find_element(By.TAG_NAME, "body").text
    _load(browser, f"{server}/bottom", 3, tmp_path / "dashboard-bottom.png")
    _load(browser, f"{server}/trump_length", 5, tmp_path / "dashboard-trump-length.png")
    _load(browser, f"{server}/throws", 1, tmp_path / "dashboard-throws.png")
    _load(browser, f"{server}/players?player=lin", 3, tmp_path / "dashboard-players.png")
    assert "lin against the field" in browser.find_element(By.TAG_NAME, "body").text


def _no_markup_from_the_data(driver: webdriver.Chrome) -> str:
    """Assert that nothing of the hostile store became an element or took effect, in the page or
    in any shadow root (the replayer's); return the text shown, shadow roots included."""
    found = driver.execute_script(
        """
        const nodes = [];
        const walk = root => {
          for (const e of root.querySelectorAll('*')) {
            nodes.push(e);
            if (e.shadowRoot) walk(e.shadowRoot);
          }
        };
        walk(document);
        const tag = t => nodes.filter(e => e.tagName === t);
        const dataUrl = /127\\.0\\.0\\.1:9|^[xyzr]$/;
        return {
          evil: nodes.filter(e => (e.id || '').startsWith('evil')).map(e => e.outerHTML),
          frames: nodes.filter(e => ['IFRAME', 'OBJECT', 'EMBED'].includes(e.tagName)
              || (e.tagName === 'FORM' && !e.classList.contains('vega-bindings')))
              .map(e => e.outerHTML),
          images: tag('IMG').map(e => e.getAttribute('src') || '').filter(s => dataUrl.test(s)),
          links: tag('A').map(e => e.getAttribute('href') || '').filter(s => dataUrl.test(s)),
          styles: tag('STYLE').filter(e => e.textContent.includes('body{display:none}')).length,
          katex: nodes.filter(e => e.classList && e.classList.contains('katex')).length,
          bodyDisplay: getComputedStyle(document.body).display,
          title: document.title,
          inputs: tag('INPUT').map(e => e.value).join('\\n'),
          shadowText: nodes.filter(e => e.shadowRoot).map(e => e.shadowRoot.textContent).join('\\n'),
        };
        """
    )
    assert found["evil"] == [] and found["frames"] == [], found
    assert found["images"] == [] and found["links"] == [], found
    assert found["styles"] == 0 and found["bodyDisplay"] != "none", found
    assert found["katex"] == 0 and found["title"] != "pwned", found
    shown = (browser_text(driver), str(found["inputs"]), str(found["shadowText"]))
    return "\n".join(shown).replace("\u2060", "")


def browser_text(driver: webdriver.Chrome) -> str:
    """The page's text, without the invisible word joiners that keep URLs in the data from
    becoming links (dashboard/ui.py `md`)."""
    return str(driver.find_element(By.TAG_NAME, "body").text).replace("\u2060", "")


def test_hostile_strings_render_as_text_in_chromium(
    hostile_server: str, browser: webdriver.Chrome, tmp_path: Path
) -> None:
    """Hand replay, Players and Audit on the hostile store: no element from the data exists in
    the page, no style of it applies, and the strings are there literally."""
    hand = hs.HAND_PREFIX + "010"  # the flagged hand: its finding's reason is shown too
    query = urllib.parse.urlencode({"hand": hand, "source": hs.SOURCE, "trick": "2"})
    _open_replay(browser, f"{hostile_server}/replay?{query}", "Trick 2")
    _wait_for(browser, _idle)
    _save(browser, tmp_path / "hostile-replay.png")
    text = _no_markup_from_the_data(browser)
    for s in (hand, hs.MATCH, hs.STYLE_NAME, hs.REASON):  # the hand's id: in the picker
        assert s in text, s
    assert sum(name in text for name in hs.PLAYERS) >= 4, text

    for name in (hs.STYLE, hs.MD_IMAGE):
        query = urllib.parse.urlencode({"player": name})
        _load(browser, f"{hostile_server}/players?{query}", 3, tmp_path / "hostile-players.png")
        text = _no_markup_from_the_data(browser)
        assert name in text, name

    _load(browser, f"{hostile_server}/audit", 1, tmp_path / "hostile-audit.png")
    _no_markup_from_the_data(browser)


def _body(driver: webdriver.Chrome) -> str:
    return str(driver.find_element(By.TAG_NAME, "body").text)


def _click_chart(driver: webdriver.Chrome, index: int) -> None:
    """Click the middle of the page's `index`-th chart: the nearest mark is picked."""
    chart = driver.find_elements(By.CSS_SELECTOR, ".vega-embed")[index]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", chart)
    ActionChains(driver).move_to_element(chart).click().perform()


def _finder_count(driver: webdriver.Chrome) -> int:
    """The Hand finder's count, once it has listed its hands."""
    found: list[int] = []

    def listed(d: webdriver.Chrome) -> bool:
        text = _body(d)
        if "Nothing to show" in text and _idle(d):
            found.append(0)
            return True
        match = re.search(r"([\d,]+) hands · showing", text)
        rows = d.find_elements(By.PARTIAL_LINK_TEXT, "Replay the first")
        if match and rows and _idle(d):
            found.append(int(match.group(1).replace(",", "")))
            return True
        return False

    _wait_for(driver, lambda d: "/hands?" in d.current_url and listed(d))
    return found[-1]


def test_a_chart_mark_opens_its_hands_again_and_a_row_opens_the_replay(
    server: str, browser: webdriver.Chrome, store: Path, tmp_path: Path
) -> None:
    # Under a filter (clean hands only), which the list keeps.
    _load(browser, f"{server}/?f_clean=1", 3)
    _click_chart(browser, 0)  # "How hands end"
    n = _finder_count(browser)
    url = browser.current_url
    assert "f_clean=1" in url
    outcome = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["where"][0]
    side, levels = outcome.removeprefix("outcome=").split(" +")
    ((expected,),) = _sql(
        store,
        "SELECT count(*) FROM hands WHERE status = 'ok' AND banker_won = "
        f"{'true' if side == 'banker' else 'false'} AND level_up = {int(levels)}",
    )
    assert n == expected > 0
    assert "clean hands only" in _body(browser)
    _save(browser, tmp_path / "dashboard-hand-finder.png")
    # Back once is the Overview again, and the same mark opens the same hands again.
    browser.back()
    _wait_for(browser, lambda d: "/hands" not in d.current_url and "Overview" in _body(d))
    _wait_for(browser, lambda d: bool(d.execute_script(_DRAWN, 3)) and _idle(d), PATIENCE)
    _click_chart(browser, 0)
    assert _finder_count(browser) == n
    assert browser.current_url == url
    # The first row opens in the replay.
    link = browser.find_element(By.PARTIAL_LINK_TEXT, "Replay the first")
    hand_id = link.text.split(": ", 1)[1].split(" at trick")[0].strip()
    link.click()
    _wait_for(browser, lambda d: f"hand={hand_id}" in d.current_url and "Trick" in _position(d))


DRILLS = [
    ("bottom", 4),
    ("throws", 1),
    ("trump_length", 6),
    ("players?player=lin", 3),
    ("coaching?player=lin", 1),
    ("explorer", 1),
    ("", 3),
]
"""Every analytics page and how many charts it draws on the fixture store."""


@pytest.mark.parametrize(("page", "charts"), DRILLS, ids=[p or "overview" for p, _ in DRILLS])
def test_every_chart_drills_down_to_its_hands(
    server: str, browser: webdriver.Chrome, page: str, charts: int
) -> None:
    """Each chart of each page opens the Hand finder on the hands of the mark clicked, filters
    kept (a rate's mark with no hits lists none, and says so)."""
    joiner = "&" if "?" in page else "?"
    counts = []
    for index in range(charts):
        _load(browser, f"{server}/{page}{joiner}f_clean=1", charts)
        _click_chart(browser, index)
        counts.append(_finder_count(browser))
        assert "f_clean=1" in browser.current_url, (page, index)
        assert not browser.find_elements(By.CSS_SELECTOR, '[data-testid="stException"]')
    assert any(counts), (page, counts)


def test_filters_come_back_from_the_url(
    server: str, browser: webdriver.Chrome, store: Path, tmp_path: Path
) -> None:
    ((source,),) = _sql(
        store, "SELECT source FROM hands GROUP BY ALL ORDER BY count(*), source LIMIT 1"
    )
    ((player, n),) = _sql(
        store,
        "SELECT who, count(*) FROM (SELECT DISTINCT h.hand_id, "
        "[h.player0, h.player1, h.player2, h.player3][t.leader + 1] AS who FROM tricks t "
        "JOIN hands h USING (source, hand_id) WHERE t.throw_failed AND h.status <> 'rejected' "
        f"AND h.source = '{source}') GROUP BY ALL ORDER BY 2 DESC, 1 LIMIT 1",
    )
    url = f"{server}/hands?event=failed_throw&who={player}&f_source={source}"
    browser.get(url)
    _wait_for(browser, lambda d: f"{n:,} hands · showing" in _body(d), PATIENCE)
    sidebar = browser.find_element(By.CSS_SELECTOR, '[data-testid="stSidebar"]').text
    assert source in sidebar
    browser.refresh()
    _wait_for(browser, lambda d: f"{n:,} hands · showing" in _body(d), PATIENCE)
    assert f"f_source={source}" in browser.current_url
