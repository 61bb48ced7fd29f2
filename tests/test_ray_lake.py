"""The Ray engine and the Parquet lake, against the local ingest of the same input.

One local Ray instance with 2 CPUs serves the whole module (started once; the module's tests run
in one xdist worker, `xdist_group`, so two instances never start at once). The bundled sample plus
the faulty file go through both engines; the lake must hold exactly the store's rows, give the same
`shengji report --json`, gain nothing from a re-ingest, and survive a driver killed mid-run.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from store_factory import duplicate_keys, orphans

from analytics.cli import main as shengji
from ingest import ray_engine
from ingest.lake import current_manifest, open_lake
from ingest.pipeline import ingest
from ingest.ray_engine import ingest_lake, ray_session
from ingest.schema import TABLES
from ingest.store import StoreError, open_reader

ROOT = Path(__file__).resolve().parent.parent
INPUT = [ROOT / "data" / "sample", ROOT / "data" / "faulty" / "faulty.jsonl.gz"]
TIMING = {"started", "finished", "duration_s", "hands_per_s"}
"""ingest_runs columns that measure the run rather than describe the data."""

pytestmark = [
    pytest.mark.xdist_group("ray"),
    # Ray's own modules, imported and started here, warn about things that are not ours
    # (deprecated APIs it still calls, the sockets of its processes).
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:google"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.timeout(900),
]


@pytest.fixture(scope="module")
def cluster() -> Any:
    """The address of a local Ray instance with 2 CPUs, connected in this process."""
    with ray_session(num_cpus=2) as ray:
        yield ray.get_runtime_context().gcs_address


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The DuckDB store the local ingest builds from the same input."""
    db = tmp_path_factory.mktemp("local") / "t.duckdb"
    ingest(INPUT, db, workers=2)
    return db


@pytest.fixture(scope="module")
def lake(cluster: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lake") / "lake"
    result = ingest_lake(INPUT, folder)
    assert result.counts.adds_up() and result.counts.inserted > 3_000
    return folder


def rows(con: Any, skip: frozenset[str] = frozenset()) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, sorted; the run's timings and the columns `skip` left out."""
    out = {}
    for table in TABLES:
        cols = ", ".join(c.name for c in table.columns if c.name not in TIMING | skip)
        out[table.name] = sorted(
            con.execute(f"SELECT {cols} FROM {table.name}").fetchall(), key=repr
        )
    return out


def lake_rows(folder: Path, skip: frozenset[str] = frozenset()) -> dict[str, list[tuple[Any, ...]]]:
    con = open_lake(folder)
    try:
        return rows(con, skip)
    finally:
        con.close()


def store_rows(db: Path, skip: frozenset[str] = frozenset()) -> dict[str, list[tuple[Any, ...]]]:
    con = open_reader(db)
    try:
        return rows(con, skip)
    finally:
        con.close()


def report(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    capsys.readouterr()
    assert shengji(["report", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_lake_holds_exactly_the_rows_of_the_local_store(
    lake: Path, reference: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    got, want = lake_rows(lake), store_rows(reference)
    for table in TABLES:
        assert len(got[table.name]) == len(want[table.name]), table.name
        assert got[table.name] == want[table.name], table.name
    assert len(want["rejects"]) > 0 and len(want["findings"]) > 0  # the faulty file's
    assert report(capsys, "--lake", str(lake)) == report(capsys, "--db", str(reference))
    con = open_lake(lake)
    try:
        assert not any(orphans(con).values())
        assert not any(duplicate_keys(con).values())
    finally:
        con.close()


def test_lake_is_hive_partitioned_by_source_and_month(lake: Path) -> None:
    manifest = current_manifest(lake)
    assert manifest is not None
    hands = manifest.files("hands")
    assert hands and all(f.startswith("hands/source=") and "/month=" in f for f in hands)
    assert {f.split("/")[1] for f in hands} == {"source=faulty-server", "source=shengji-sim"}
    assert len({f.split("/")[2] for f in hands}) > 1  # several months
    # Each part (one chunk's output) has the same name in every hand table.
    parts = {f.rsplit("/", 1)[1] for f in hands}
    assert parts == {f.rsplit("/", 1)[1] for f in manifest.files("seats")}


def test_reingest_adds_nothing(lake: Path, cluster: str, tmp_path: Path) -> None:
    lake = Path(shutil.copytree(lake, tmp_path / "lake"))  # the module's lake stays at one run
    before = current_manifest(lake)
    rows_before = lake_rows(lake)
    result = ingest_lake(INPUT, lake)
    c = result.counts
    assert (c.inserted, c.replaced) == (0, 0)
    assert c.unchanged == len(rows_before["hands"])
    after = current_manifest(lake)
    assert before is not None and after is not None and after.version == before.version + 1
    for table in ("hands", "seats", "bids", "tricks", "plays", "findings"):
        assert after.files(table) == before.files(table)  # not a file rewritten
    rows_after = lake_rows(lake)
    assert len(rows_after["ingest_runs"]) == len(rows_before["ingest_runs"]) + 1
    for table in TABLES:
        if table.name != "ingest_runs":
            assert rows_after[table.name] == rows_before[table.name], table.name


def _lines() -> list[str]:
    path = ROOT / "data" / "faulty" / "faulty.jsonl.gz"
    return gzip.decompress(path.read_bytes()).decode().splitlines()


def test_changes_duplicates_and_vanished_rejects_as_the_local_ingest(
    tmp_path: Path, cluster: str
) -> None:
    """A sequence of runs over edited files leaves the lake as the same runs leave the store."""
    lines = _lines()
    keyed = [i for i, line in enumerate(lines) if '"hand_id"' in line]
    folder = tmp_path / "in"
    folder.mkdir()
    a, b = folder / "a.jsonl", folder / "b.jsonl"
    conflicting = json.loads(lines[keyed[1]])
    conflicting["played_at"] = "2024-01-01T00:00:00Z"
    a.write_text("\n".join(lines[:60]) + "\n")
    b.write_text("\n".join(lines[60:]) + f"\n{lines[keyed[0]]}\n\n{json.dumps(conflicting)}\n")

    def both() -> tuple[Any, Any]:
        r_lake = ingest_lake([folder], tmp_path / "lake", chunk_lines=16)
        r_store = ingest([folder], tmp_path / "db" / "t.duckdb", workers=0, chunk_lines=16)
        assert lake_rows(tmp_path / "lake") == store_rows(tmp_path / "db" / "t.duckdb")
        return r_lake.counts, r_store.counts

    first = both()
    assert first[0] == first[1] and first[0].duplicates == 2 and first[0].conflicts == 1
    again = both()
    assert again[0] == again[1] and again[0].inserted == 0 and again[0].replaced == 0
    changed = json.loads(lines[keyed[2]])
    changed["played_at"] = "2025-12-31T10:00:00Z"  # another month: another partition
    edited = list(lines)
    edited[keyed[2]] = json.dumps(changed)
    a.write_text("\n".join(edited[:60]) + "\n")
    third = both()
    assert third[0] == third[1] and third[0].replaced == 1
    b.write_text("\n".join(lines[60:100]) + "\n")  # lines (and their rejects) gone from b
    fourth = both()
    assert fourth[0] == fourth[1]


def _staged(folder: Path, file: Path | None = None) -> list[Path]:
    """meta.json of the chunks staged completely (not those still in a worker's `.tmp` folder),
    of `file` only if given."""
    found = sorted(folder.glob("_staging/run-*/[!.]*/meta.json"))
    if file is None:
        return found
    return [m for m in found if json.loads(m.read_text())["file"] == str(file)]


def test_killed_driver_leaves_the_lake_readable_and_a_rerun_completes_it(
    tmp_path: Path, cluster: str, reference: Path
) -> None:
    folder = tmp_path / "lake"
    ingest_lake([INPUT[1]], folder)  # a published version to keep reading
    sample = next((INPUT[0]).glob("*.jsonl.gz")).resolve()
    readable = lake_rows(folder)
    command = [sys.executable, "-m", "analytics.cli", "ingest", *map(str, INPUT)]
    command += ["--engine", "ray", "--address", cluster, "--lake", str(folder)]
    driver = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 600
        # Killed once a chunk of the sample is staged (the faulty file's, first, are unchanged).
        while not _staged(folder, sample) and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert driver.poll() is None, "the driver ended before a chunk was staged"
        os.kill(driver.pid, signal.SIGKILL)
    finally:
        driver.wait()
    staged = _staged(folder, sample)
    assert staged
    assert lake_rows(folder) == readable  # the killed run published nothing
    # What was staged is taken as done: the re-run links those files instead of replaying.
    inodes = {p.name: p.stat().st_ino for m in staged for p in m.parent.glob("hands/*/*/*.parquet")}
    result = ingest_lake(INPUT, folder)
    assert result.run_id == 2
    published = {p.name: p.stat().st_ino for p in folder.glob("hands/*/*/*.parquet")}
    assert inodes and all(published.get(name) == ino for name, ino in inodes.items())
    # The reference loaded everything in one run; here the faulty file's hands are from run 1.
    want = store_rows(reference, frozenset({"ingest_run"}))
    got = lake_rows(folder, frozenset({"ingest_run"}))
    for table in TABLES:
        if table.name != "ingest_runs":
            assert got[table.name] == want[table.name], table.name


def test_crash_between_staging_and_publishing(
    tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file written but the manifest not renamed: nothing changed; the re-run publishes."""
    path = [INPUT[1]]
    folder = tmp_path / "lake"

    def crash(lake: Path, manifest: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ray_engine, "publish", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest_lake(path, folder, chunk_lines=32)
    with pytest.raises(Exception, match="no lake"):
        open_lake(folder)
    assert _staged(folder)
    monkeypatch.undo()
    result = ingest_lake(path, folder, chunk_lines=32)
    assert result.version == 1 and result.counts.inserted > 100
    db = tmp_path / "t.duckdb"
    ingest(path, db, workers=0)
    assert lake_rows(folder) == store_rows(db)
    assert not (folder / "_staging").exists()


def test_export_and_dashboard_read_the_lake(
    lake: Path, reference: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert shengji(["export", "--lake", str(lake), "--parquet", str(tmp_path / "a")]) == 0
    assert shengji(["export", "--db", str(reference), "--parquet", str(tmp_path / "b")]) == 0
    import duckdb

    con = duckdb.connect()
    for table in TABLES:
        q = "SELECT count(*), sum(hash(x)) FROM read_parquet('{}/**/*.parquet') x"
        if table.name == "ingest_runs":  # its timings differ
            q = "SELECT count(*), sum(lines_read) FROM read_parquet('{}/**/*.parquet')"
        a = con.execute(q.format(tmp_path / "a" / table.name)).fetchall()
        b = con.execute(q.format(tmp_path / "b" / table.name)).fetchall()
        assert a == b, table.name
    con.close()

    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("SHENGJI_LAKE", str(lake))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception and not at.error
    con = open_reader(reference)
    (n,) = con.execute("SELECT count(*) FROM hands WHERE status <> 'rejected'").fetchall()[0]
    con.close()
    assert f"{n:,} replayed hands" in at.caption[0].value
    for page in ("views/audit.py", "views/import_files.py"):
        at.switch_page(page).run()
        assert not at.exception and not at.error, page


def test_cli_refuses_mixed_engine_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SHENGJI_LAKE", raising=False)
    sample = str(INPUT[1])
    assert shengji(["ingest", sample, "--lake", str(tmp_path / "l")]) == 2
    assert "need --engine ray" in capsys.readouterr().err
    assert shengji(["ingest", sample, "--engine", "ray"]) == 2
    assert "give --lake DIR" in capsys.readouterr().err
    assert shengji(["ingest", sample, "--engine", "ray", "--lake", "x", "--workers", "2"]) == 2
    assert shengji(["report", "--db", "a", "--lake", "b"]) == 2
    (tmp_path / "notes.txt").write_text("not a lake")
    with pytest.raises(StoreError, match="holds files but no lake"):
        ingest_lake([sample], tmp_path)
    assert (tmp_path / "notes.txt").exists() and not (tmp_path / "_manifests").exists()
