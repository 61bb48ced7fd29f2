"""The dashboard in a real browser: `streamlit run` on a free port against a fixture store, pages
loaded in headless Chromium (Debian's chromium and chromedriver; selenium-manager never runs),
charts drawn, no error element, a screenshot of each.

Screenshots go to the test's temporary folder; with SHENGJI_SCREENSHOTS=DIR they are also saved
there, and SHENGJI_BROWSER_DB=FILE points the run at another store (the README's pictures are
taken with `SHENGJI_BROWSER_DB=data/tractor.duckdb SHENGJI_SCREENSHOTS=docs/img`)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("SE_OFFLINE", "true")  # selenium-manager must not fetch anything

import hostile_store as hs
from analytics_testdb import ingested_db
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
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
    return ingested_db(Path(tmp_path_factory.mktemp("browser")), n_hands=40)


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
                str(ROOT / "dashboard" / "app.py"),
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
        deadline = time.monotonic() + 90
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
        "--window-size=1440,1100",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _load(driver: webdriver.Chrome, url: str, charts: int, shot: Path) -> None:
    driver.get(url)
    # Streamlit redraws elements as the script runs: a found element may go stale under us.
    wait = WebDriverWait(
        driver, 90, poll_frequency=0.5, ignored_exceptions=(StaleElementReferenceException,)
    )
    # Streamlit marks the app as running while the script executes; charts appear as vega-embed.
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".vega-embed")) >= charts)
    wait.until(
        lambda d: (
            not d.find_elements(By.CSS_SELECTOR, '[data-testid="stStatusWidget"]')
            or "Running"
            not in d.find_element(By.CSS_SELECTOR, '[data-testid="stStatusWidget"]').text
        )
    )
    time.sleep(1.0)  # let Vega finish drawing before the screenshot
    errors = driver.find_elements(By.CSS_SELECTOR, '[data-testid="stException"]')
    assert not errors, [e.text for e in errors]
    assert driver.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    copy_to = os.environ.get("SHENGJI_SCREENSHOTS")
    if copy_to:
        Path(copy_to).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(copy_to) / shot.name)


def test_pages_render_in_chromium(
    server: str, browser: webdriver.Chrome, store: Path, tmp_path: Path
) -> None:
    import duckdb

    con = duckdb.connect(str(store.resolve()), read_only=True)
    try:
        ((source, hand_id),) = con.sql(
            "SELECT source, hand_id FROM hands WHERE status <> 'rejected' AND n_tricks > 5 "
            "ORDER BY played_at DESC NULLS LAST, hand_id LIMIT 1"
        ).fetchall()
    finally:
        con.close()
    # A deep link first, as a bookmark would open it on a fresh server.
    _load(
        browser,
        f"{server}/replay?source={source}&hand={hand_id}&trick=5",
        1,
        tmp_path / "dashboard-replay.png",
    )
    sidebar = browser.find_element(By.CSS_SELECTOR, '[data-testid="stSidebar"]').text
    assert "Filters apply to every page" in sidebar
    assert "Trick 5 of" in browser.find_element(By.TAG_NAME, "body").text
    _load(browser, f"{server}/", 3, tmp_path / "dashboard-overview.png")
    assert "Banker team held" in browser.find_element(By.TAG_NAME, "body").text
    _load(browser, f"{server}/bottom", 3, tmp_path / "dashboard-bottom.png")
    _load(browser, f"{server}/trump_length", 5, tmp_path / "dashboard-trump-length.png")
    _load(browser, f"{server}/throws", 1, tmp_path / "dashboard-throws.png")
    _load(browser, f"{server}/players?player=lin", 3, tmp_path / "dashboard-players.png")
    assert "lin against the field" in browser.find_element(By.TAG_NAME, "body").text


def _no_markup_from_the_data(driver: webdriver.Chrome) -> str:
    """Assert that nothing of the hostile store became an element or took effect; return the
    page's text."""
    found = driver.execute_script(
        """
        const evil = [...document.querySelectorAll('[id^="evil"]')].map(e => e.outerHTML);
        const frames = [...document.querySelectorAll('iframe, form:not(.vega-bindings), object, embed')]
            .map(e => e.outerHTML);
        const images = [...document.querySelectorAll('img')]
            .map(e => e.getAttribute('src') || '')
            .filter(src => /127\\.0\\.0\\.1:9|^[xyzr]$/.test(src));
        const styles = [...document.querySelectorAll('style')]
            .filter(e => e.textContent.includes('body{display:none}')).length;
        const links = [...document.querySelectorAll('a')]
            .map(e => e.getAttribute('href') || '').filter(h => h.includes('127.0.0.1:9'));
        return {evil, frames, images, styles, links,
                katex: document.querySelectorAll('.katex').length,
                bodyDisplay: getComputedStyle(document.body).display,
                title: document.title};
        """
    )
    assert found["evil"] == [] and found["frames"] == [], found
    assert found["images"] == [] and found["links"] == [], found
    assert found["styles"] == 0 and found["bodyDisplay"] != "none", found
    assert found["katex"] == 0 and found["title"] != "pwned", found
    return browser_text(driver)


def browser_text(driver: webdriver.Chrome) -> str:
    """The page's text, without the invisible word joiners that keep URLs in the data from
    becoming links (dashboard/ui.py `md`)."""
    return str(driver.find_element(By.TAG_NAME, "body").text).replace("\u2060", "")


def test_hostile_strings_render_as_text_in_chromium(
    hostile_server: str, browser: webdriver.Chrome, tmp_path: Path
) -> None:
    """Hand replay, Players and Audit on the hostile store: no element from the data exists in
    the page, no style of it applies, and the strings are there literally."""
    import urllib.parse

    hand = hs.HAND_PREFIX + "010"  # the flagged hand: its finding's reason is shown too
    query = urllib.parse.urlencode({"hand": hand, "source": hs.SOURCE, "trick": "2"})
    _load(browser, f"{hostile_server}/replay?{query}", 1, tmp_path / "hostile-replay.png")
    text = _no_markup_from_the_data(browser)
    for s in (hand, hs.SOURCE, hs.MATCH, hs.REASON):
        assert s in text, s
    assert sum(name in text for name in hs.PLAYERS) >= 4, text

    for name in (hs.STYLE, hs.MD_IMAGE):
        query = urllib.parse.urlencode({"player": name})
        _load(browser, f"{hostile_server}/players?{query}", 3, tmp_path / "hostile-players.png")
        text = _no_markup_from_the_data(browser)
        assert name in text, name

    _load(browser, f"{hostile_server}/audit", 1, tmp_path / "hostile-audit.png")
    _no_markup_from_the_data(browser)
