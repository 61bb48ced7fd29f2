"""The dashboard's one read-only connection to the store, and the cache every page queries through.

The store publishes each ingest as a new file behind a symbolic link (ingest/store.py). The
connection is cached per (path, version): when `current_version` moves, the next run opens the
new version and the old connection is closed when its cache entry is released. Query results are
cached per (query, version, filters), so a new ingest invalidates them by construction.

With $SHENGJI_LAKE set, the dashboard reads that Parquet lake instead (ingest/lake.py): an
in-memory DuckDB connection whose views, named as the store's tables, read the lake's current
version, so every analytics query runs unchanged; the version is the lake's manifest number.

DuckDB connections are not shared between threads, and Streamlit runs every session in its own
thread: each query runs on a cursor (a connection of its own to the same database) and closes it.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import duckdb
import streamlit as st

from analytics.filters import Filters
from analytics.query import has_data
from ingest.lake import current_lake_version, is_lake, lake_from_env, open_lake
from ingest.store import StoreError, current_version, default_db_path, open_reader

from .ui import md

ROOT = Path(__file__).resolve().parent.parent

Key = tuple[str, int]
"""(database path, published version): what a cached result depends on."""


def db_path() -> Path:
    """$SHENGJI_LAKE, else $SHENGJI_DB or data/tractor.duckdb; a relative path is taken from the
    working directory when it exists there, else from the project root (so `streamlit run` works
    from anywhere)."""
    path = lake_from_env() or default_db_path()
    if path.is_absolute() or path.exists() or path.is_symlink():
        return path
    return ROOT / path


def _release(con: duckdb.DuckDBPyConnection) -> None:
    con.close()


@st.cache_resource(max_entries=2, on_release=_release, show_spinner=False)
def _connect(path: str, version: int) -> duckdb.DuckDBPyConnection:
    return open_lake(path) if is_lake(path) else open_reader(path)


def key() -> Key | None:
    """The current (path, version), or None when there is no database to read."""
    path = db_path()
    version = current_lake_version(path) if is_lake(path) else current_version(path)
    if version is None:
        return None
    return (str(path), version)


def connection(k: Key) -> duckdb.DuckDBPyConnection:
    """A fresh cursor on the cached connection of `k`; the caller closes it."""
    return _connect(*k).cursor()


@st.cache_data(show_spinner=False, max_entries=1024)
def query(name: str, k: Key, f: Filters, *args: Any) -> Any:
    """Run `analytics.<module>.<function>(con, f, *args)` for `name` = `module.function`, cached.

    Only hashable values go in (the name, the key, the frozen filters, plain arguments)."""
    module, func = name.rsplit(".", 1)
    fn = getattr(importlib.import_module(f"analytics.{module}"), func)
    con = connection(k)
    try:
        return fn(con, f, *args)
    finally:
        con.close()


@st.cache_data(show_spinner=False, max_entries=64)
def query_plain(name: str, k: Key, *args: Any) -> Any:
    """As `query`, for functions that take no filters (`coverage.ingest_runs`, options)."""
    module, func = name.rsplit(".", 1)
    fn = getattr(importlib.import_module(f"analytics.{module}"), func)
    con = connection(k)
    try:
        return fn(con, *args)
    finally:
        con.close()


@st.cache_data(show_spinner=False, max_entries=16)
def problem(k: Key) -> str | None:
    """Why the database at `k` cannot be read (not a DuckDB store, a directory, another schema,
    a missing table), with what to do; None when it can."""
    try:
        connection(k).close()
    except StoreError as e:
        return str(e)
    return None


@st.cache_data(show_spinner=False, max_entries=16)
def ready(k: Key) -> bool:
    """The database at `k` opens and holds at least one hand."""
    try:
        con = connection(k)
    except StoreError:
        return False
    try:
        return has_data(con)
    finally:
        con.close()


def require() -> Key:
    """The key of a readable, non-empty database, or a friendly message and a stopped page."""
    k = key()
    why = problem(k) if k is not None else None
    if why is not None:
        st.warning(
            f"The database {md(db_path())} cannot be read: {md(why)}",
            icon=":material/warning:",
        )
        st.stop()
    if k is None or not ready(k):
        path = db_path()
        st.info(
            f"No hands to show yet: the database `{path}` is missing or empty.\n\n"
            f"Load hand histories with `shengji ingest PATH --db {path}` (for the bundled sample: "
            "`make demo`), or upload files on the **Import** page.",
            icon=":material/database:",
        )
        st.stop()
    return k
