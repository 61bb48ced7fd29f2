"""Hostile files and processes: bounded memory per line, a worker that dies, a killed ingest."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from store_factory import hand_line, make_replay

from analytics.cli import main
from bench.campaign import zeros_gzip
from ingest.pipeline import ingest
from ingest.store import open_reader
from shengji.hhfile import read_lines

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _query(db: Path, sql: str) -> list[tuple]:
    con = open_reader(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_an_overlong_line_is_skipped_in_bounded_memory(tmp_path: Path) -> None:
    bomb = zeros_gzip(tmp_path / "bomb.jsonl.gz", 50 << 20, before=b"first\n", after=b"\nlast\n")
    assert bomb.stat().st_size < 200_000
    tracemalloc.start()
    try:
        lines = list(read_lines(bomb, max_bytes=64 << 10))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [(x.number, x.too_long) for x in lines] == [(1, False), (2, True), (3, False)]
    assert lines[1].size == 50 << 20
    assert len(lines[1].text) <= 200 and lines[2].text == "last"
    assert peak < 8 << 20, f"peak {peak:,} bytes: the line was held"


@pytest.mark.parametrize("n", [64, 65])
def test_the_limit_is_on_the_line_without_its_newline(tmp_path: Path, n: int) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"a" * n + b"\nok\n")
    lines = list(read_lines(path, max_bytes=64))
    assert [x.too_long for x in lines] == [n > 64, False]
    assert lines[0].size >= n


def test_ingest_rejects_a_bomb_line_and_keeps_the_rest(tmp_path: Path, capsys) -> None:
    with gzip.open(ROOT / "data" / "sample" / "hands.jsonl.gz", "rb") as fh:
        first, second = next(fh), next(fh)
    zeros_gzip(tmp_path / "bomb.jsonl.gz", 50 << 20, before=first, after=b"\n" + second)
    db = tmp_path / "b.duckdb"
    code = main(
        ["ingest", str(tmp_path), "--db", str(db), "--workers", "1", "--max-line-bytes", "65536"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert " 1 rejected" in out and "2 inserted" in out
    ((line, code_, reason, raw),) = _query(db, "SELECT line, code, reason, raw FROM rejects")
    assert (line, code_) == (2, "line_too_long")
    assert "52,428,800 bytes" in reason and "65,536" in reason
    assert len(raw) <= 200


def test_audit_reports_an_overlong_line_and_goes_on(tmp_path: Path, capsys) -> None:
    path = tmp_path / "long.jsonl"
    path.write_text("x" * ((1 << 20) + 1) + "\n" + "{}\n")
    assert main(["audit", str(path)]) == 1
    out = capsys.readouterr().out
    assert "line_too_long" in out and "2 hands" in out
    assert len(out) < 10_000


# --- workers ---------------------------------------------------------------------------------


def dying_replayer(text: str, *, line=None, file=None, strict=False):
    """Ends its process on a line marked `die` (a worker killed by the kernel, say)."""
    obj = json.loads(text)
    if obj.get("die"):
        os._exit(3)
    return make_replay(obj["hand_id"], line=line)


def test_a_worker_that_dies_costs_its_line_only(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    lines = [hand_line(f"h{i}", die=(i == 5)) for i in range(12)]
    path.write_text("\n".join(lines) + "\n")
    db = tmp_path / "d.duckdb"
    result = ingest([path], db, workers=2, replay=dying_replayer)
    assert result.counts.adds_up()
    assert result.counts.status == {"ok": 11, "rejected": 1}
    ((line, code, reason),) = _query(db, "SELECT line, code, reason FROM rejects")
    assert (line, code) == (6, "internal") and "worker" in reason
    assert len(_query(db, "SELECT * FROM hands")) == 11


def hanging_replayer(text: str, *, line=None, file=None, strict=False):
    """Never answers on a line marked `hang` (an endless loop in the rules, say)."""
    obj = json.loads(text)
    if obj.get("hang"):
        time.sleep(3600)
    return make_replay(obj["hand_id"], line=line)


def test_a_worker_that_hangs_costs_its_line_only(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    lines = [hand_line(f"h{i}", hang=(i == 4)) for i in range(10)]
    path.write_text("\n".join(lines) + "\n")
    db = tmp_path / "h.duckdb"
    started = time.monotonic()
    # each line gets 0.05 s: the hung one is rejected at once, the others sent again
    result = ingest([path], db, workers=1, replay=hanging_replayer, line_timeout=0.05)
    assert time.monotonic() - started < 60
    assert result.counts.adds_up()
    assert result.counts.status == {"ok": 9, "rejected": 1}
    ((line, code, reason),) = _query(db, "SELECT line, code, reason FROM rejects")
    assert (line, code) == (5, "internal")
    assert "did not finish within 0.05 s" in reason
    assert len(_query(db, "SELECT * FROM hands")) == 9


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_exit_when_the_ingest_is_killed(tmp_path: Path) -> None:
    src = tmp_path / "slow.jsonl"
    src.write_text("".join(hand_line(f"s{i}") + "\n" for i in range(4000)))
    script = (
        "import sys; sys.path[:0] = [sys.argv[1]];"
        "from store_factory import fake_replay_line;"
        "from ingest.pipeline import ingest;"
        "ingest([sys.argv[2]], sys.argv[3], workers=2, replay=fake_replay_line)"
    )
    env = {**os.environ, "STORE_TEST_REPLAY_DELAY": "0.02"}
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(TESTS), str(src), str(tmp_path / "k.duckdb")],
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.1)
            workers = [
                c
                for c in _children(proc.pid)
                if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()
            ]
        assert len(workers) >= 2, "the ingest started no workers"
        helpers = _children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(c) for c in helpers):
            time.sleep(0.1)
        assert not any(_alive(c) for c in helpers), "workers outlived the killed ingest"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_workers_keep_running_under_a_live_parent(tmp_path: Path) -> None:
    """The watchdog does not end workers of a parent that is alive (a run longer than its poll)."""
    src = tmp_path / "w.jsonl"
    src.write_text("".join(hand_line(f"w{i}") + "\n" for i in range(200)))
    os.environ["STORE_TEST_REPLAY_DELAY"] = "0.01"
    try:
        from store_factory import fake_replay_line

        result = ingest([src], tmp_path / "w.duckdb", workers=2, replay=fake_replay_line)
    finally:
        del os.environ["STORE_TEST_REPLAY_DELAY"]
    assert result.counts.status == {"ok": 200}
