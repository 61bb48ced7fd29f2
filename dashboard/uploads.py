"""The Import page's uploads: where each is saved, the bounded process that ingests them, and when
they are deleted.

An import runs in a process of its own (`python -m dashboard.uploads run FOLDER DB`), never in the
Streamlit server: the server only reads the job's status file, so pages keep answering while it
runs. The process is bounded: it runs at a lower priority (nice 10) with one replay worker, so the
hang guard of the ingest times every line (ingest/pipeline.py); it stops itself after
`JOB_MAX_SECONDS`; the page can cancel it, which kills its process group (as safe as a `kill -9`
of `shengji ingest`: the store stays as it was). Saved uploads older than `KEEP_DAYS`, and the
oldest beyond `KEEP_MB` together, are deleted when the page opens, unless an import is running
(hands already stored keep their rows; the Hand replay page then composes a trick's explanation
from the store alone).

Nothing here imports Streamlit: the page (dashboard/views/import_files.py) draws what it returns.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SUFFIXES = (
    ".jsonl.gz",
    ".jsonl",
    ".json.gz",
    ".json",
    ".ndjson.gz",
    ".ndjson",
    ".log.gz",
    ".log",
)
"""Hand histories, and other engines' logs (docs/import.md): ingest recognises each by content."""
MAX_NAME = 120
"""Characters in a stored name, suffix and hash included."""

JOB_WORKERS = 1
"""Replay workers of an import: the server keeps the other core(s)."""
JOB_NICE = 10
JOB_MAX_SECONDS = 30 * 60
"""An import still running after this long stops itself (a club night's file takes seconds;
larger loads belong to `shengji ingest` on the command line)."""
KEEP_DAYS = 30
"""Saved uploads older than this are deleted when the Import page opens."""
KEEP_MB = 1024
"""And the oldest saved uploads beyond this many MB together."""
STATUS = "status.json"
LOG = "job.log"
PROGRESS_EVERY_S = 0.5


def stored_name(name: str, content: bytes) -> str | None:
    """The file name an upload is saved under, or None when `name` has none of SUFFIXES.

    The suffix is checked on the name as uploaded, then the stem is cleaned to ASCII and cut so the
    whole name fits MAX_NAME characters, and a short hash of the content is added: two uploads
    whose names clean alike (`ü.jsonl`, `ö.jsonl`) cannot overwrite each other, and the same file
    uploaded twice keeps one name (re-ingesting it then changes nothing)."""
    suffix = next((s for s in SUFFIXES if name.lower().endswith(s)), None)
    if suffix is None:
        return None
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name[: -len(suffix)]).strip("._") or "upload"
    tag = hashlib.sha256(content).hexdigest()[:12]
    return f"{stem[: MAX_NAME - len(suffix) - len(tag) - 1]}-{tag}{suffix}"


def uploads_root(db: Path) -> Path:
    return db.parent / "uploads"


def save(files: list[tuple[str, bytes]], db: Path) -> tuple[Path, list[Path], list[str]]:
    """Save uploads (name, content) under `uploads_root(db)`, and make a folder for the job that
    imports them (`jobs/…`): the job's folder, the paths saved, and the names skipped (not
    .jsonl / .jsonl.gz). A file is saved under its `stored_name`, so the same file uploaded again
    is the same path, and re-importing it changes nothing."""
    root = uploads_root(db)
    jobs = root / "jobs"
    jobs.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    folder = Path(tempfile.mkdtemp(prefix=f"{stamp}-", dir=jobs))
    paths: list[Path] = []
    skipped: list[str] = []
    for name, content in files:
        stored = stored_name(name, content)
        if stored is None:
            skipped.append(name)
            continue
        path = root / stored
        if path not in paths:
            if path.is_file() and path.stat().st_size == len(content):
                path.touch()  # kept as it is (the name holds its hash); young again for expiry
            else:
                path.write_bytes(content)
            paths.append(path)
    return folder, paths, skipped


# --- the job, seen from the page --------------------------------------------------------------

_CHILDREN: dict[str, subprocess.Popen[bytes]] = {}
"""The import processes this server started, by folder: polled so that none is left a zombie."""
_CHILDREN_LOCK = threading.Lock()


def start(folder: Path, paths: list[Path], db: Path) -> None:
    """Start the import of `paths` into `db` in a process of its own (a new process group, so a
    cancel reaches its workers too); its status is written to `folder/status.json`."""
    write_status(folder, {"state": "starting", "files": len(paths)})
    spawn(folder, ["dashboard.uploads", "run", str(folder), str(db), *(str(p) for p in paths)])


def spawn(folder: Path, module_args: list[str]) -> None:
    """Run `python -m MODULE ARGS…` (`module_args`) as a job of this server: niced, in a new
    process group (a cancel reaches its workers too), its output to `folder/job.log`; `status`,
    `cancel` and `running` then follow it by `folder`. The Import page's ingest and Hand
    replay's analysis (dashboard/analysis_job.py) both run so."""
    with (folder / LOG).open("wb") as log:
        # Lowered before Python starts (so from its first instruction on); the process lowers
        # itself too where there is no `nice` program.
        nice = shutil.which("nice")
        prefix = [nice, "-n", str(JOB_NICE)] if nice else []
        child = subprocess.Popen(
            [*prefix, sys.executable, "-m", *module_args],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
    with _CHILDREN_LOCK:
        _CHILDREN[str(folder)] = child


def status(folder: Path, what: str = "import") -> dict[str, Any]:
    """The job's status: `state` is starting, running, done, error, cancelled or failed (the
    process ended without saying how: its log's end is in `message`, which names the job as
    `what`)."""
    st = read_status(folder)
    with _CHILDREN_LOCK:
        child = _CHILDREN.get(str(folder))
    if child is None:
        return st
    code = child.poll()
    if code is None:
        return st
    with _CHILDREN_LOCK:
        _CHILDREN.pop(str(folder), None)
    st = read_status(folder)  # it may have finished between the two reads
    if st.get("state") in ("starting", "running"):
        st = {
            "state": "failed",
            "message": f"the {what} process ended with exit status {code} before it finished: "
            + _log_tail(folder),
        }
        write_status(folder, st)
    return st


def cancel(folder: Path) -> None:
    """Stop the job: its process group is killed (the store stays as it was)."""
    with _CHILDREN_LOCK:
        child = _CHILDREN.pop(str(folder), None)
    if child is not None and child.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    if read_status(folder).get("state") in ("starting", "running"):
        write_status(folder, {"state": "cancelled"})


def running(folder: Path) -> bool:
    return status(folder).get("state") in ("starting", "running")


def read_status(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / STATUS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"state": "failed", "message": "the job's status could not be read"}
    return data if isinstance(data, dict) else {"state": "failed", "message": "bad status"}


def write_status(folder: Path, data: dict[str, Any]) -> None:
    tmp = folder / f".{STATUS}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(data), encoding="utf-8")
    tmp.replace(folder / STATUS)


def _log_tail(folder: Path, chars: int = 600) -> str:
    try:
        text = (folder / LOG).read_bytes()[-chars:].decode("utf-8", "replace").strip()
    except OSError:
        return "(no log)"
    return text or "(no output)"


def expire(
    root: Path,
    *,
    now: float | None = None,
    keep_days: float = KEEP_DAYS,
    keep_mb: float = KEEP_MB,
) -> list[Path]:
    """Delete saved uploads older than `keep_days`, then the oldest until the rest hold at most
    `keep_mb` MB, and the folders of finished jobs older than `keep_days`; while an import runs,
    nothing is deleted (it may be reading any of the files). The paths deleted."""
    if not root.is_dir():
        return []
    now = time.time() if now is None else now
    jobs = root / "jobs"
    folders = [f for f in jobs.iterdir() if f.is_dir()] if jobs.is_dir() else []
    if any(read_status(f).get("state") in ("starting", "running") for f in folders):
        return []
    removed: list[Path] = []
    for f in folders:
        if now - f.stat().st_mtime > keep_days * 86400:
            shutil.rmtree(f, ignore_errors=True)
            removed.append(f)
    files = []
    for entry in root.iterdir():
        if entry.is_file() and not entry.is_symlink() and entry.name.endswith(SUFFIXES):
            info = entry.stat()
            files.append((info.st_mtime, info.st_size, entry))
    files.sort()
    total = sum(size for _, size, _ in files)
    for mtime, size, entry in files:
        if now - mtime <= keep_days * 86400 and total <= keep_mb * 2**20:
            continue
        entry.unlink(missing_ok=True)
        total -= size
        removed.append(entry)
    return removed


# --- the job, in its own process ---------------------------------------------------------------


@dataclass
class Outcome:
    """What an import did, for the page: counts, the reasons of its rejects, its summary."""

    files: int = 0
    lines: int = 0
    ok: int = 0
    flagged: int = 0
    rejected: int = 0
    duplicates: int = 0
    inserted: int = 0
    replaced: int = 0
    unchanged: int = 0
    file_errors: int = 0
    timeouts: int = 0
    retries: int = 0
    rejects: dict[str, int] = field(default_factory=dict)
    """Lines rejected (file errors included) per the code that rejected them."""
    examples: list[tuple[str, int, str, str]] = field(default_factory=list)
    """The first rejected lines: (file name, line, code, reason)."""
    skipped: list[str] = field(default_factory=list)
    summary: str = ""


def read_uploads(
    paths: list[Path], db: Path, on_progress: Callable[[Any], None] | None = None
) -> Outcome:
    """Ingest the saved uploads into `db`: the one call through which the Import page reads
    files (a reader of another engine's logs goes here)."""
    from ingest.pipeline import ingest, summary

    result = ingest(paths, db, workers=JOB_WORKERS, progress=False, on_progress=on_progress)
    c = result.counts
    rejects, examples = _rejects(db, result.run_id)
    return Outcome(
        files=len(c.files),
        lines=c.lines_read,
        ok=c.status["ok"],
        flagged=c.status["flagged"],
        rejected=c.status["rejected"],
        duplicates=c.duplicates,
        inserted=c.inserted,
        replaced=c.replaced,
        unchanged=c.unchanged,
        file_errors=c.file_errors,
        timeouts=sum(1 for i in result.incidents if i.kind == "timeout"),
        retries=sum(1 for i in result.incidents if i.kind != "timeout"),
        rejects=rejects,
        examples=examples,
        skipped=[f"{p}: {why}" for p, why in result.skipped],
        summary=summary(result),
    )


def verdict(o: Outcome) -> tuple[str, str]:
    """How the page reports an import: (`success` | `info` | `warning` | `error`, the sentence).
    Green only when hands were stored and no line was rejected, no file cut short and no line
    taken as hung; an import that stored nothing is an error."""
    kept = o.ok + o.flagged
    changed = o.inserted + o.replaced
    flagged = f", {o.flagged:,} of them flagged (replayed, with findings)" if o.flagged else ""
    trouble = []
    if o.rejected:
        trouble.append(f"{o.rejected:,} line(s) rejected (could not be replayed)")
    if o.file_errors:
        trouble.append(f"{o.file_errors:,} file(s) could not be read to the end")
    if o.timeouts:
        trouble.append(f"{o.timeouts:,} line(s) taken as hung")
    if not kept:
        if not o.lines:
            return "error", "Nothing stored: the files hold no line."
        if not trouble:
            return "error", f"Nothing stored: {o.lines:,} line(s) read, none a new hand."
        return "error", "Nothing stored: " + "; ".join(trouble) + "."
    text = f"{kept:,} hand(s) stored{flagged}."
    if changed:
        tail = " Every page now shows the new data."
    else:
        text += " Nothing changed: every hand was stored already as it is."
        tail = ""
    if trouble:
        return "warning", f"{text} But " + "; ".join(trouble) + f".{tail}"
    if not changed:
        return "info", text
    return "success", text + tail


EXAMPLES = 5
"""Rejected lines the page quotes (file, line, code, reason)."""


def _rejects(db: Path, run_id: int) -> tuple[dict[str, int], list[tuple[str, int, str, str]]]:
    """The run's rejected lines per code, and the first few with their reasons."""
    from ingest.store import open_reader

    con = open_reader(db)
    try:
        per_code = con.execute(
            "SELECT code, count(*) FROM rejects WHERE ingest_run = $r AND code <> "
            "'duplicate_conflict' GROUP BY code ORDER BY 2 DESC, 1",
            {"r": run_id},
        ).fetchall()
        first = con.execute(
            "SELECT file, line, code, reason FROM rejects WHERE ingest_run = $r AND code <> "
            "'duplicate_conflict' ORDER BY file, line LIMIT $n",
            {"r": run_id, "n": EXAMPLES},
        ).fetchall()
    finally:
        con.close()
    return (
        {str(code): int(n) for code, n in per_code},
        [(Path(str(f)).name, int(line), str(code), str(reason)) for f, line, code, reason in first],
    )


def _run(folder: Path, db: Path, paths: list[Path]) -> int:
    """The import process: ingest, writing the status as it goes."""
    from ingest.sources import SourceError
    from ingest.store import StoreError

    if os.getpriority(os.PRIO_PROCESS, 0) < JOB_NICE:
        with contextlib.suppress(OSError):
            os.nice(JOB_NICE)
    started = time.monotonic()

    def overtime() -> None:
        write_status(
            folder,
            {
                "state": "error",
                "message": f"stopped after {JOB_MAX_SECONDS // 60} minutes: load files this "
                "large with `shengji ingest` on the command line",
            },
        )
        os.killpg(0, signal.SIGKILL)  # this process and its workers; the store stays as it was

    timer = threading.Timer(JOB_MAX_SECONDS, overtime)
    timer.daemon = True
    timer.start()
    last = 0.0

    def progress(counts: Any) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last < PROGRESS_EVERY_S:
            return
        last = now
        write_status(
            folder,
            {
                "state": "running",
                "files": len(paths),
                "files_started": len(counts.files),
                "hands": counts.hands,
                "rejected": counts.status["rejected"],
                "seconds": now - started,
            },
        )

    write_status(folder, {"state": "running", "files": len(paths), "hands": 0})
    try:
        outcome = read_uploads(paths, db, progress)
    except (SourceError, StoreError) as e:
        write_status(folder, {"state": "error", "message": str(e)})
        return 3
    finally:
        timer.cancel()
    write_status(folder, {"state": "done", "outcome": outcome.__dict__})
    return 0


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] != "run":
        print("usage: python -m dashboard.uploads run FOLDER DB [PATH…]", file=sys.stderr)
        return 2
    return _run(Path(argv[1]), Path(argv[2]), [Path(p) for p in argv[3:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
