"""Retake the README's pictures (docs/img/dashboard-*.png) from the dashboard as it is now.

    .venv/bin/python -m bench.screenshots [--out docs/img]

Loads the bundled sample as `make demo` does (`shengji ingest data/sample data/faulty/...
data/engines`) into a store in a temporary folder, serves the dashboard on it with `streamlit run`
on a free localhost port, opens each page in headless Chromium (Debian's chromium and
chromedriver, as the browser tests; selenium-manager never runs) at a 1600×1000 viewport, waits
until the page has run, drawn its charts and shows no spinner, and saves its screenshot reduced to
256 colours (Pillow), a third of the browser's PNG. Not part of `make test` or `python -m bench`:
it measures nothing and takes a few minutes.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WIDTH, HEIGHT = 1600, 1000
PATIENCE = 300
"""Seconds a page may take to run and draw (a first query on a loaded machine)."""
SAMPLE = ["data/sample", "data/faulty/faulty.jsonl.gz", "data/engines"]
"""What `make demo` loads."""

PLAYER = "lin"
"""The sample's player the pages show (Players, the finder's list, the replayed hand)."""
PAGES: list[tuple[str, str, int]] = [
    ("dashboard-overview.png", "", 3),
    ("dashboard-bottom.png", "bottom", 3),
    ("dashboard-trump-length.png", "trump_length", 5),
    ("dashboard-throws.png", "throws", 1),
    ("dashboard-players.png", f"players?player={PLAYER}", 3),
    (
        "dashboard-hand-finder.png",
        "hands?"
        + urllib.parse.urlencode({"who": PLAYER, "where": "outcome=banker +1", "f_clean": "1"}),
        0,
    ),
]
"""(file, path, charts drawn when loaded) of each chart page; the replay is taken apart."""
REPLAY_AT = (6, 3)
"""(trick, play) the replay is shown at: mid-trick, three plays on the felt."""

_DRAWN = """
const charts = [...document.querySelectorAll('.vega-embed')];
return charts.length >= arguments[0] && charts.every(c => {
  const drawn = c.querySelector('canvas, svg.marks');
  return drawn && drawn.getBoundingClientRect().width > 0;
});
"""
_BUSY = """
const find = (root, sel) => {
  if (root.querySelector(sel)) return true;
  for (const node of root.querySelectorAll('*')) {
    if (node.shadowRoot && find(node.shadowRoot, sel)) return true;
  }
  return false;
};
return find(document, '[data-testid="stSpinner"], [data-testid="stSkeleton"], .stSpinner');
"""
_POSITION = """
const find = (root, sel) => {
  const hit = root.querySelector(sel);
  if (hit) return hit;
  for (const node of root.querySelectorAll('*')) {
    if (node.shadowRoot) { const inner = find(node.shadowRoot, sel); if (inner) return inner; }
  }
  return null;
};
const e = find(document, '[data-testid="replayer-position"]');
return e ? e.textContent : '';
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_store(folder: Path) -> Path:
    """The sample loaded as `make demo` loads it, into `folder`."""
    db = folder / "tractor.duckdb"
    shengji = Path(sys.executable).parent / "shengji"
    subprocess.run(
        [str(shengji), "ingest", *SAMPLE, "--db", str(db)],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return db


@contextmanager
def serve(db: Path, log: Path) -> Iterator[str]:
    """The dashboard on `db`, on a free localhost port, until the block ends."""
    with serve_process(db, log) as (url, _):
        yield url


@contextmanager
def serve_process(
    db: Path, log: Path, script: str = "serve.py"
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """As `serve`, with the server's process (bench/serving.py reads its CPU time); `script` is
    the file in dashboard/ that `streamlit run` is given."""
    port = _free_port()
    env = {**os.environ, "SHENGJI_DB": str(db), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                str(ROOT / "dashboard" / script),
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
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    """Headless Chromium with its viewport at WIDTH×HEIGHT."""
    os.environ.setdefault("SE_OFFLINE", "true")  # selenium-manager must not fetch anything
    from selenium import webdriver  # the test extra's: only this script needs it here
    from selenium.webdriver.chrome.service import Service

    for program in (CHROMIUM, CHROMEDRIVER):
        if not Path(program).exists():
            raise SystemExit(f"{program} is missing: `make chromium` installs it")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        f"--window-size={WIDTH},{HEIGHT + 200}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
    )
    driver.set_page_load_timeout(PATIENCE)
    try:
        yield driver
    finally:
        driver.quit()


def _idle(driver: Any) -> bool:
    """The script has finished its run (Streamlit's status widget offers no Stop) and nothing on
    the page is still loading."""
    from selenium.webdriver.common.by import By

    status = driver.find_elements(By.CSS_SELECTOR, '[data-testid="stStatusWidget"]')
    running = status and any(word in status[0].text for word in ("Running", "Stop"))
    return not running and not driver.execute_script(_BUSY)


def _wait(driver: Any, ready: Callable[[Any], bool], what: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, PATIENCE, poll_frequency=0.5).until(ready, f"{what} did not load")
    # Settled: still ready a second later (a rerun may start once the first one has drawn).
    time.sleep(1.0)
    WebDriverWait(driver, PATIENCE, poll_frequency=0.5).until(ready, f"{what} did not settle")


def shoot(driver: Any, shot: Path) -> None:
    """The viewport, scrolled to the top, saved to `shot` in 256 colours."""
    from PIL import Image
    from selenium.webdriver.common.by import By

    errors = driver.find_elements(By.CSS_SELECTOR, '[data-testid="stException"]')
    if errors:
        raise RuntimeError(f"{shot.name}: the page shows an error: {errors[0].text[:300]}")
    driver.execute_script(
        "window.scrollTo(0, 0);"
        "document.querySelectorAll('section.main, [data-testid=\"stMain\"]')"
        ".forEach(e => e.scrollTo(0, 0));"
    )
    time.sleep(0.5)
    raw = shot.with_suffix(".raw.png")
    if not driver.save_screenshot(str(raw)):
        raise RuntimeError(f"{shot.name}: no screenshot")
    with Image.open(raw) as img:
        small = img.convert("RGB").quantize(colors=256, dither=Image.Dither.NONE)
        small.save(shot, optimize=True)
    raw.unlink()


def take(out: Path) -> list[Path]:
    from ingest.store import connect

    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="shengji-shots-") as tmp:
        folder = Path(tmp)
        print("loading the sample (make demo's files) ...", flush=True)
        db = build_store(folder)
        con = connect(db.resolve(), read_only=True)
        try:
            source, hand_id = con.sql(
                "SELECT source, hand_id FROM hands WHERE status = 'ok' AND n_tricks >= 10 "
                "AND ? IN (player0, player1, player2, player3) "
                "ORDER BY played_at DESC, hand_id LIMIT 1",
                params=[PLAYER],
            ).fetchall()[0]
        finally:
            con.close()
        with serve(db, folder / "streamlit.log") as url, chromium(folder / "profile") as driver:
            for name, path, charts in PAGES:
                driver.get(f"{url}/{path}")
                _wait(driver, _drawn(charts), name)
                if name == "dashboard-hand-finder.png":
                    _wait(driver, lambda d: "hands · showing" in _body(d) and _idle(d), name)
                shoot(driver, out / name)
                saved.append(out / name)
                print(f"  {out / name}", flush=True)
            trick, play = REPLAY_AT
            # Opened as from the finder's list of the player's hands: the picker beside the
            # table lists those hands (the hand among them), not the newest of every source.
            listed = urllib.parse.urlencode({"event": "all", "who": PLAYER})
            query = urllib.parse.urlencode(
                {"source": source, "hand": hand_id, "trick": trick, "play": play, "list": listed}
            )
            driver.get(f"{url}/replay?{query}")
            at = f"Trick {trick} of"
            _wait(driver, lambda d: at in str(d.execute_script(_POSITION)) and _idle(d), "replay")
            shot = out / "dashboard-replay.png"
            shoot(driver, shot)
            saved.append(shot)
            print(f"  {shot}", flush=True)
    return saved


def _drawn(charts: int) -> Callable[[Any], bool]:
    """Ready: at least `charts` charts drawn and the page idle."""
    return lambda d: bool(d.execute_script(_DRAWN, charts)) and _idle(d)


def _body(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.TAG_NAME, "body").text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=OUT, help="folder of the PNGs (docs/img)")
    args = parser.parse_args(argv)
    take(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
