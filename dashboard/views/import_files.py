"""Import: upload hand-history files and ingest them with the pipeline `shengji ingest` uses.

Uploads are saved beside the database (`<db dir>/uploads/`) and ingested by a process of its own
(dashboard/uploads.py: bounded, cancellable, never inside the server), whose progress this page
polls. Ingesting publishes a new database version; every page then reads it on its next run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from dashboard import db, ui, uploads
from ingest.lake import is_lake

# Per file. A club night is a few hundred hands (~1 MB gzipped); larger loads belong to
# `shengji ingest` on the command line. (A comment, not a docstring: Streamlit's "magic" would
# draw a bare string on the page.)
MAX_MB = 50
RUNNING = ("starting", "running")

st.title("Import")
target = db.db_path()
if is_lake(target):
    st.info(
        f"The dashboard reads the Parquet lake `{target}`: load files into it with "
        f"`shengji ingest PATH… --engine ray --lake {target}`.",
        icon=":material/database:",
    )
    st.stop()
if not st.session_state.get("im_expired"):
    # Once a session: saved uploads past their age or the folder's size are deleted.
    uploads.expire(uploads.uploads_root(target))
    st.session_state["im_expired"] = True
st.caption(
    f"Upload `tractor-hh/1` files (`.jsonl` or `.jsonl.gz`, up to {MAX_MB} MB each), or other "
    "engines' logs as they are: jerryyyu room logs, Botzone matches (`.json`), ejfn game logs "
    "(`.log.gz`), recognised by their content (docs/import.md). They are "
    f"replayed and stored in `{target}` exactly as `shengji ingest` would, by a process of their "
    "own that you can cancel: re-importing a file changes nothing, a changed hand replaces its "
    f"rows. Uploads are kept {uploads.KEEP_DAYS} days ({uploads.KEEP_MB:,} MB at most)."
)
job: str | None = st.session_state.get("im_job")
busy = job is not None and uploads.running(Path(job))
files = st.file_uploader(
    "Hand-history files",
    type=["jsonl", "gz", "json", "ndjson", "log"],
    accept_multiple_files=True,
    max_upload_size=MAX_MB,
    key="im_files",
    disabled=busy,
)

if st.button("Ingest", type="primary", disabled=not files or busy, key="im_go"):
    folder, paths, skipped = uploads.save([(up.name, up.getvalue()) for up in files or []], target)
    st.session_state["im_skipped"] = skipped
    if paths:
        uploads.start(folder, paths, target)
        job = st.session_state["im_job"] = str(folder)
        st.session_state["im_seen"] = False

for name in st.session_state.get("im_skipped", []):
    st.warning(f"Skipped {ui.md(name)}: not a hand history or an engine's log.")


@st.fragment(run_every=1.0)
def _progress(folder: Path) -> None:
    """The running import's progress, polled every second without rerunning the page."""
    status = uploads.status(folder)
    if status.get("state") not in RUNNING:
        st.rerun()  # finished: the whole page shows the outcome
    files = int(status.get("files", 0))
    started = int(status.get("files_started", 0))
    hands = int(status.get("hands", 0))
    text = (
        f"Replaying file {max(started, 1)} of {files}: {hands:,} hands so far"
        f" ({int(status.get('rejected', 0)):,} rejected)"
        if status.get("state") == "running"
        else "Starting the import…"
    )
    st.progress(min(max(started - 1, 0) / max(files, 1), 1.0), text=text)
    if st.button("Cancel", key="im_cancel"):
        uploads.cancel(folder)
        st.rerun()


def _code(code: str) -> str:
    """A finding code as code text; anything else a code column could hold, made inert."""
    return f"`{code}`" if re.fullmatch(r"[a-z_]+", code) else ui.md(code)


def _outcome(o: dict[str, Any]) -> None:
    outcome = uploads.Outcome(
        **{k: v for k, v in o.items() if k in uploads.Outcome.__annotations__}
    )
    kind, text = uploads.verdict(outcome)
    {"success": st.success, "info": st.info, "warning": st.warning, "error": st.error}[kind](text)
    if outcome.rejects:
        per_code = " · ".join(f"{_code(c)} {n:,}" for c, n in outcome.rejects.items())
        st.markdown(f"Rejected lines by reason (docs/findings.md): {per_code}")
        ui.table(
            pl.DataFrame(
                outcome.examples,
                schema=["file", "line", "code", "reason"],
                orient="row",
            ),
            key="im_rejects",
        )
    for skipped in outcome.skipped:
        st.warning(f"Skipped {ui.md(skipped)}")
    st.code(outcome.summary, language=None)


if job is not None:
    folder = Path(job)
    status = uploads.status(folder)
    state = status.get("state")
    if state in RUNNING:
        _progress(folder)
    else:
        if not st.session_state.get("im_seen"):
            st.cache_data.clear()
            st.session_state["im_seen"] = True
        if state == "done":
            _outcome(status.get("outcome", {}))
        elif state == "cancelled":
            st.warning("Import cancelled: the store is as it was before it.")
        else:
            st.error(f"Could not ingest: {ui.md(str(status.get('message', state)))}")
