"""Import: upload hand-history files and ingest them with the pipeline `shengji ingest` uses.

Uploads are saved beside the database (`<db dir>/uploads/`) so every hand keeps a readable source
file (the Hand replay page re-reads it for the replay's explanations). Ingesting publishes a new
database version; every page then reads it on its next run.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import streamlit as st

from dashboard import db, ui
from dashboard.uploads import stored_name
from ingest.lake import is_lake

# Per file. A club night is a few hundred hands (~1 MB gzipped); larger loads belong to
# `shengji ingest` on the command line. (A comment, not a docstring: Streamlit's "magic" would
# draw a bare string on the page.)
MAX_MB = 50

st.title("Import")
target = db.db_path()
if is_lake(target):
    st.info(
        f"The dashboard reads the Parquet lake `{target}`: load files into it with "
        f"`shengji ingest PATH… --engine ray --lake {target}`.",
        icon=":material/database:",
    )
    st.stop()
st.caption(
    f"Upload `tractor-hh/1` files (`.jsonl` or `.jsonl.gz`, up to {MAX_MB} MB each), or other "
    "engines' logs as they are: jerryyyu room logs, Botzone matches (`.json`), ejfn game logs "
    "(`.log.gz`), recognised by their content (docs/import.md). They are "
    f"replayed and stored in `{target}` exactly as `shengji ingest` would: re-importing a file "
    "changes nothing, a changed hand replaces its rows."
)
files = st.file_uploader(
    "Hand-history files",
    type=["jsonl", "gz", "json", "ndjson", "log"],
    accept_multiple_files=True,
    max_upload_size=MAX_MB,
    key="im_files",
)


if st.button("Ingest", type="primary", disabled=not files, key="im_go"):
    from ingest.pipeline import ingest, summary
    from ingest.sources import SourceError
    from ingest.store import StoreError

    folder = target.parent / "uploads" / dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for up in files or []:
        content = up.getvalue()
        name = stored_name(up.name, content)
        if name is None:
            st.warning(f"Skipped {ui.md(up.name)}: not a hand history or an engine's log.")
            continue
        path = folder / name
        if path not in paths:
            path.write_bytes(content)
            paths.append(path)
    if paths:
        with st.spinner(f"Replaying {len(paths)} file(s)…"):
            try:
                result = ingest(paths, target, workers=0, progress=False)
            except (SourceError, StoreError) as e:
                st.session_state["im_report"] = ("error", str(e))
            else:
                st.session_state["im_report"] = ("ok", summary(result))
        st.cache_data.clear()

report = st.session_state.get("im_report")
if report:
    kind, text = report
    if kind == "ok":
        st.success("Ingested. Every page now shows the new data.")
        st.code(text, language=None)
    else:
        st.error(f"Could not ingest: {ui.md(text)}")
