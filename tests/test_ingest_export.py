"""`shengji export --parquet`: every table round-trips, partitioned by month of play."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
from store_factory import fake_replay_line, hand_line

from analytics.cli import main
from ingest.export import export_parquet
from ingest.pipeline import ingest
from ingest.schema import TABLES
from ingest.store import open_reader

MONTHS = ("2026-10-31T23:59:59Z", "2026-11-01T00:00:00Z", "2026-12-24T12:00:00Z")


def _db(tmp_path: Path) -> Path:
    lines = [
        hand_line(f"h{i}", tricks=1 + i % 4, played_at=MONTHS[i % 3], throw_failed=i % 2 == 0)
        for i in range(30)
    ]
    lines += [hand_line("flag", status="flagged"), hand_line("rej", status="rejected"), "{bad"]
    lines.append(hand_line("undated", played_at=None))
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    db = tmp_path / "x.duckdb"
    ingest([src], db, workers=0, replay=fake_replay_line)
    return db


def _checksums(con: duckdb.DuckDBPyConnection, source: str) -> tuple[int, int]:
    return con.execute(f"SELECT count(*), coalesce(sum(hash(t)), 0) FROM {source} t").fetchall()[0]


def test_every_table_round_trips_with_equal_counts_and_checksums(tmp_path: Path) -> None:
    db = _db(tmp_path)
    out = tmp_path / "parquet"
    counts = export_parquet(db, out)
    assert counts["hands"] == 33 and counts["rejects"] == 2 and counts["ingest_runs"] == 1
    con = open_reader(db)
    try:
        for table in TABLES:
            cols = ", ".join(table.column_names)
            back = (
                f"(SELECT {cols} FROM read_parquet('{out}/{table.name}/**/*.parquet', "
                "hive_partitioning = true))"
            )
            assert _checksums(con, f"(SELECT {cols} FROM {table.name})") == _checksums(con, back), (
                table.name
            )
            assert _checksums(con, back)[0] == counts[table.name]
    finally:
        con.close()


def test_partitions_are_months_and_children_follow_their_hand(tmp_path: Path) -> None:
    db = _db(tmp_path)
    out = tmp_path / "parquet"
    export_parquet(db, out)
    months = sorted(p.name for p in (out / "hands").iterdir())
    assert months == ["month=2026-10", "month=2026-11", "month=2026-12", "month=unknown"]
    assert sorted(p.name for p in (out / "plays").iterdir()) == months
    plays = pl.scan_parquet(out / "plays" / "**" / "*.parquet", hive_partitioning=True)
    hands = pl.scan_parquet(out / "hands" / "**" / "*.parquet", hive_partitioning=True)
    joined = (
        plays.join(hands.select("source", "hand_id", "month"), on=["source", "hand_id"])
        .filter(pl.col("month") != pl.col("month_right"))
        .collect()
    )
    assert joined.height == 0
    late = hands.filter(pl.col("hand_id") == "h0").select("month").collect()
    assert late["month"].to_list() == ["2026-10"]  # 23:59:59 UTC on the 31st stays in October
    assert list((out / "rejects").glob("*.parquet"))  # no month: one unpartitioned file


def test_export_twice_replaces_and_the_cli_reports(tmp_path: Path, capsys) -> None:
    db = _db(tmp_path)
    out = tmp_path / "parquet"
    export_parquet(db, out)
    assert main(["export", "--parquet", str(out), "--db", str(db)]) == 0
    assert "hands 33" in capsys.readouterr().out
    n = pl.scan_parquet(out / "hands" / "**" / "*.parquet", hive_partitioning=True)
    assert n.select(pl.len()).collect().item() == 33  # not doubled
    assert not list(out.glob(".export-*"))


def test_export_without_a_database_fails_cleanly(tmp_path: Path, capsys) -> None:
    assert (
        main(["export", "--parquet", str(tmp_path / "o"), "--db", str(tmp_path / "no.db")]) == 3
    )  # docs/cli.md: 3, no database
    assert "shengji ingest" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
