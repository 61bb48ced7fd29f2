"""Hand replay's "Analyse this hand": the computer analysis of one hand (shengji/coach/analysis.py,
docs/analysis.md) as a job of its own, never inside the Streamlit server.

The job is a process (`python -m dashboard.analysis_job run FOLDER DB SOURCE HAND_ID`) started,
followed and cancelled as the Import page's ingest is (dashboard/uploads.py: niced, its own
process group, a status file the page polls, `JOB_MAX_SECONDS` at most). It reads the hand's line
from its source file, analyses it in that one process (the server keeps the other core), writing
its progress as it goes, then stores the result in a new version of the store
(ingest/analysis_store.py: under the writer's lock, readers never blocked). Cancelled or killed
before that, it leaves the store as it was.

How hard it looks: `analysis.DEFAULT`, or `$SHENGJI_ANALYSIS_SETTINGS` as `name=value` pairs of
`analysis.Settings` (`worlds=4 min_worlds=2`), read by the job (tests keep it quick so).

Nothing here imports Streamlit: the page draws what it returns.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import shutil
import signal
import sys
import threading
import time
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from dashboard import uploads

SETTINGS_ENV = "SHENGJI_ANALYSIS_SETTINGS"
JOB_MAX_SECONDS = 30 * 60
"""An analysis still running after this long stops itself (one hand takes about a minute at the
default settings)."""
KEEP_DAYS = 2
"""Folders of finished analysis jobs older than this are deleted when another starts."""
PROGRESS_EVERY_S = 0.5


def jobs_root(db: Path) -> Path:
    return db.parent / "analysis-jobs"


def start(db: Path, source: str, hand_id: str) -> Path:
    """Start the analysis of the hand in a process of its own; the job's folder, which
    `status`, `cancel` and `running` take."""
    root = jobs_root(db)
    root.mkdir(parents=True, exist_ok=True)
    _expire(root)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    tag = hashlib.sha256(f"{source}\0{hand_id}".encode()).hexdigest()[:10]
    folder = root / f"{stamp}-{tag}-{os.getpid()}-{time.monotonic_ns() % 10**9}"
    folder.mkdir()
    uploads.write_status(folder, {"state": "starting"})
    uploads.spawn(folder, ["dashboard.analysis_job", "run", str(folder), str(db), source, hand_id])
    return folder


def status(folder: Path) -> dict[str, Any]:
    """As `uploads.status`: `state` starting, running (`done` of `total` decisions,
    `seconds`), done (`judged`, `flagged`, `decisions`), error, cancelled or failed, with a
    `message` for the last three."""
    return uploads.status(folder, what="analysis")


def cancel(folder: Path) -> None:
    uploads.cancel(folder)


def running(folder: Path) -> bool:
    return status(folder).get("state") in ("starting", "running")


def _expire(root: Path, now: float | None = None) -> None:
    now = time.time() if now is None else now
    for f in root.iterdir():
        if not f.is_dir() or now - f.stat().st_mtime <= KEEP_DAYS * 86400:
            continue
        if uploads.read_status(f).get("state") not in ("starting", "running"):
            shutil.rmtree(f, ignore_errors=True)


def settings_from(text: str | None) -> Any:
    """`analysis.Settings` from `name=value` pairs (spaces or commas between them); DEFAULT for
    none. Raises ValueError naming a pair it cannot read. `min_worlds` follows a smaller
    `worlds` unless given."""
    from shengji.coach.analysis import DEFAULT

    if not text or not text.strip():
        return DEFAULT
    names = {f.name for f in fields(DEFAULT)}
    given: dict[str, int] = {}
    for pair in text.replace(",", " ").split():
        name, sep, value = pair.partition("=")
        if not sep or name not in names or not value.strip().lstrip("-").isdigit():
            raise ValueError(f"{SETTINGS_ENV}: cannot read {pair!r} (known: {', '.join(names)})")
        given[name] = int(value)
    if "worlds" in given and "min_worlds" not in given:
        given["min_worlds"] = min(DEFAULT.min_worlds, given["worlds"])
    return replace(DEFAULT, **given)


def _hand_line(db: Path, source: str, hand_id: str) -> tuple[str, str, str | None]:
    """The hand's line from its source file, the file's path and the stored content hash.
    Raises LookupError with a sentence for the page when it cannot be read."""
    from ingest.store import open_reader
    from shengji.hhfile import iter_lines

    con = open_reader(db)
    try:
        rows = con.execute(
            "SELECT file, line, content_hash FROM hands WHERE source = $s AND hand_id = $h",
            {"s": source, "h": hand_id},
        ).fetchall()
    finally:
        con.close()
    if not rows:
        raise LookupError("the hand is no longer in the store")
    file, line, content_hash = rows[0]
    if not file or not line or not Path(file).is_file():
        raise LookupError(
            "the hand's source file is gone (uploads are kept for a while only): import the "
            "file again, or analyse it with `shengji analyse FILE --hand ID`"
        )
    try:
        text = next((t for n, t in iter_lines(Path(file)) if n == line), None)
    except (OSError, EOFError) as e:
        raise LookupError(f"the hand's source file cannot be read: {e}") from e
    if text is None:
        raise LookupError("the hand's line is no longer in its source file")
    return text, str(file), content_hash


def _run(folder: Path, db: Path, source: str, hand_id: str) -> int:
    """The analysis process: read, analyse, store, writing the status as it goes."""
    from ingest.analysis_store import store_analysis
    from ingest.store import StoreError
    from shengji.coach.analysis import analyse_hand
    from shengji.replay import replay_line

    if os.getpriority(os.PRIO_PROCESS, 0) < uploads.JOB_NICE:
        with contextlib.suppress(OSError):
            os.nice(uploads.JOB_NICE)
    started = time.monotonic()

    def overtime() -> None:
        uploads.write_status(
            folder,
            {
                "state": "error",
                "message": f"stopped after {JOB_MAX_SECONDS // 60} minutes: analyse hands this "
                "slow with `shengji analyse FILE --hand ID --jobs N` on the command line",
            },
        )
        os.killpg(0, signal.SIGKILL)  # the store stays as it was

    timer = threading.Timer(JOB_MAX_SECONDS, overtime)
    timer.daemon = True
    timer.start()
    last = 0.0

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last < PROGRESS_EVERY_S and done < total:
            return
        last = now
        uploads.write_status(
            folder,
            {"state": "running", "done": done, "total": total, "seconds": now - started},
        )

    uploads.write_status(folder, {"state": "running", "done": 0, "total": 0, "seconds": 0.0})
    try:
        settings = settings_from(os.environ.get(SETTINGS_ENV))
        text, file, content_hash = _hand_line(db, source, hand_id)
        replay = replay_line(text, file=file, strict=False)
        if replay.hand_id != hand_id or replay.source != source:
            raise LookupError("the hand's line in its source file is another hand now")
        result = analyse_hand(replay, settings, progress=progress)
        if not result.decisions:
            raise LookupError(
                "this hand cannot be analysed: it was rejected, or has an illegal play, or its "
                "trump or holdings are unknown (docs/analysis.md)"
            )
        uploads.write_status(
            folder,
            {
                "state": "running",
                "done": len(result.decisions),
                "total": len(result.decisions),
                "storing": True,
                "seconds": time.monotonic() - started,
            },
        )
        store_analysis(db, result, content_hash)
    except (LookupError, ValueError, StoreError) as e:
        uploads.write_status(folder, {"state": "error", "message": str(e)})
        return 3
    finally:
        timer.cancel()
    uploads.write_status(
        folder,
        {
            "state": "done",
            "decisions": len(result.decisions),
            "judged": sum(j.judged for j in result.decisions),
            "flagged": sum(j.flagged for j in result.decisions),
            "seconds": time.monotonic() - started,
        },
    )
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 5 or argv[0] != "run":
        print(
            "usage: python -m dashboard.analysis_job run FOLDER DB SOURCE HAND_ID", file=sys.stderr
        )
        return 2
    return _run(Path(argv[1]), Path(argv[2]), argv[3], argv[4])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
