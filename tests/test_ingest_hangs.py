"""Slow lines and hung workers: each line is timed on its own, and every retry and timeout is
reported in the run's summary. The replayers here are fakes (a sleep, an endless wait) with tiny
line timeouts, so nothing depends on the machine's speed."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from store_factory import hand_line, make_replay

from ingest.pipeline import Incident, _Workers, ingest, summary
from ingest.store import open_reader


def _query(db: Path, sql: str) -> list[tuple]:
    con = open_reader(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def logging_replayer(text: str, *, line=None, file=None, strict=False):
    """Writes the line's number to the file named by `log` before replaying it; sleeps `slow`
    seconds on a line that asks, and never answers on a line marked `hang`."""
    obj = json.loads(text)
    with open(obj["log"], "a") as out:
        out.write(f"{line}\n")
    if obj.get("hang"):
        time.sleep(3600)
    time.sleep(obj.get("slow", 0))
    return make_replay(obj["hand_id"], line=line)


def _write(tmp_path: Path, n: int, **marks: dict[int, object]) -> tuple[Path, Path]:
    log = tmp_path / "replayed.log"
    log.touch()
    path = tmp_path / "h.jsonl"
    lines = []
    for i in range(n):
        extra = {k: v[i] for k, v in marks.items() if i in v}
        lines.append(hand_line(f"h{i}", log=str(log), **extra))
    path.write_text("\n".join(lines) + "\n")
    return path, log


def _replayed(log: Path) -> Counter[int]:
    return Counter(int(x) for x in log.read_text().split())


def test_a_hung_line_is_rejected_without_a_second_try_and_reported(tmp_path: Path) -> None:
    path, log = _write(tmp_path, 10, hang={4: True})
    db = tmp_path / "h.duckdb"
    result = ingest([path], db, workers=1, replay=logging_replayer, line_timeout=0.5)
    assert result.counts.adds_up()
    assert result.counts.status == {"ok": 9, "rejected": 1}
    ((line, code, reason),) = _query(db, "SELECT line, code, reason FROM rejects")
    assert (line, code) == (5, "internal") and "did not finish within 0.5 s" in reason
    replayed = _replayed(log)
    assert replayed[5] == 1, "the hung line was tried again"
    # The lines after the hang were never replayed before it; the ones before it were lost with
    # the stopped worker and replayed once more.
    assert {n: replayed[n] for n in (1, 2, 3, 4)} == dict.fromkeys((1, 2, 3, 4), 2)
    assert {n: replayed[n] for n in range(6, 11)} == dict.fromkeys(range(6, 11), 1)
    kinds = [(i.kind, i.line, i.lines) for i in result.incidents]
    assert kinds == [("timeout", 5, 0), ("retry", 1, 9)]
    text = summary(result)
    assert (
        "timeouts: 1 line(s) taken as hung · retries: 1 chunk(s), 9 line(s) replayed again" in text
    )
    assert f"timeout {path}:5: the replay of this line did not finish within 0.5 s" in text
    assert len(_query(db, "SELECT * FROM hands")) == 9


def test_slow_lines_are_timed_each_on_its_own_and_never_retried(tmp_path: Path) -> None:
    """Forty lines that each take a tenth of the line timeout: together four timeouts' worth,
    which a budget for the whole chunk would have taken for a hang."""
    path, log = _write(tmp_path, 40, slow=dict.fromkeys(range(40), 0.2))
    db = tmp_path / "s.duckdb"
    result = ingest([path], db, workers=1, replay=logging_replayer, line_timeout=2.0)
    assert result.counts.status == {"ok": 40}
    assert result.incidents == []
    assert set(_replayed(log).values()) == {1}
    assert "timeouts" not in summary(result)


def test_a_hang_sends_the_other_workers_chunks_again_whole(tmp_path: Path) -> None:
    """Two workers, chunks of four lines: the hang stops both workers; the chunks they held are
    sent again whole (not a line at a time), and each is reported."""
    path, log = _write(tmp_path, 24, hang={9: True}, slow=dict.fromkeys(range(24), 0.05))
    db = tmp_path / "w.duckdb"
    result = ingest([path], db, workers=2, chunk_lines=4, replay=logging_replayer, line_timeout=0.5)
    assert result.counts.adds_up()
    assert result.counts.status == {"ok": 23, "rejected": 1}
    assert _replayed(log)[10] == 1
    kinds = Counter(i.kind for i in result.incidents)
    assert kinds["timeout"] == 1 and kinds["one_by_one"] == 0 and kinds["retry"] >= 1
    assert all(isinstance(i, Incident) and i.file == str(path) for i in result.incidents)
    assert len(_query(db, "SELECT * FROM hands")) == 23


def test_a_worker_is_stuck_only_past_the_timeout_on_one_line() -> None:
    pool = _Workers(1, line_timeout=10.0)
    try:
        beats = pool.beats
        beats[0], beats[1], beats[2] = 7, 12, 100.0  # chunk 7, line 12, begun at 100 s
        assert pool.stuck(7, now=109.0) is None
        assert pool.stuck(7, now=111.0) == (12, 11.0)
        assert pool.stuck(8, now=111.0) is None  # another chunk: not this worker's
        assert pool.stuck(0, now=1e9) is None
    finally:
        pool.close()
