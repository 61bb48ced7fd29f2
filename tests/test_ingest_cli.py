"""`shengji ingest` end to end with the real replay engine and real worker processes."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from hh_builder import played_hand
from store_factory import duplicate_keys, orphans

from analytics.cli import main
from ingest.store import Publication, current_version, open_reader
from shengji.hhfile import write_lines
from shengji.record import format_hand, parse_hand
from shengji.replay import replay_line


@pytest.fixture(scope="module")
def hands() -> list[str]:
    return [
        format_hand(played_hand(seed, hand_id=f"cli-{seed}", throw_rate=0.3)) for seed in range(12)
    ]


def _tampered(line: str, **change) -> str:
    obj = json.loads(line)
    obj.update(change)
    return json.dumps(obj)


def _corpus(tmp_path: Path, hands: list[str]) -> Path:
    root = tmp_path / "in"
    root.mkdir()
    write_lines(root / "a.jsonl.gz", hands[:6])
    bad_play = json.loads(hands[7])
    bad_play["plays"][10]["cards"] = "BJ BJ BJ"
    write_lines(
        root / "b.jsonl",
        [
            *hands[6:7],
            "",
            "{not json",
            _tampered(hands[8], claimed={"attackers_points": 5}),  # flagged: claim mismatch
            json.dumps(bad_play),  # rejected after a few tricks
            *hands[9:],
            hands[0],  # the same hand again, in another file
        ],
    )
    return root


def test_ingest_command_loads_real_replays(tmp_path: Path, hands: list[str], capsys) -> None:
    db = tmp_path / "t.duckdb"
    root = _corpus(tmp_path, hands)
    assert main(["ingest", str(root), "--db", str(db), "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "10 ok · 1 flagged · 2 rejected · 1 duplicate(s) · 1 blank line(s)" in out
    assert "claim_mismatch 1" in out and "wrong_count 1" in out and "bad_json 1" in out
    con = open_reader(db)
    try:
        assert all(n == 0 for n in orphans(con).values()), orphans(con)
        assert all(n == 0 for n in duplicate_keys(con).values())
        assert con.execute("SELECT count(*) FROM hands").fetchall()[0] == (12,)
        # stored figures are the replay's figures
        for line in hands[:3]:
            r = replay_line(line)
            rec = parse_hand(line)
            row = con.execute(
                "SELECT attackers_points, n_tricks, trump, banker, next_banker, content_hash "
                "FROM hands WHERE hand_id = ?",
                [r.hand_id],
            ).fetchall()[0]
            assert row == (
                r.attackers_points,
                len(r.tricks),
                r.trump,
                r.banker,
                r.next_banker,
                r.content_hash,
            )
            n_plays = con.execute(
                "SELECT count(*), sum(n_cards) FROM plays WHERE hand_id = ?", [r.hand_id]
            ).fetchall()[0]
            assert n_plays[0] == len(rec.plays)
            assert n_plays[1] == sum(len(p.cards) for t in r.tricks for p in t.plays)
            cards = con.execute(
                "SELECT sum(n_cards_start) FROM seats WHERE hand_id = ?", [r.hand_id]
            ).fetchall()[0]
            assert cards == (4 * 52,)
        # a rejected hand keeps the tricks before its fault
        rejected = con.execute(
            "SELECT status, n_tricks FROM hands WHERE hand_id = 'cli-7'"
        ).fetchall()[0]
        assert rejected[0] == "rejected" and rejected[1] > 0
        codes = dict(con.execute("SELECT code, count(*) FROM rejects GROUP BY ALL").fetchall())
        assert codes == {"bad_json": 1, "wrong_count": 1}
        points = con.execute(
            "SELECT sum(points) FILTER (WHERE winner_team <> h.banker_team) "
            "= any_value(h.trick_points) FROM tricks JOIN hands h USING (source, hand_id) "
            "WHERE h.status = 'ok' AND h.throw_penalty_points = 0 GROUP BY hand_id"
        ).fetchall()
        assert points and all(ok for (ok,) in points)
    finally:
        con.close()


def test_environment_default_and_rerun_is_a_no_op(
    tmp_path: Path, hands: list[str], capsys, monkeypatch
) -> None:
    db = tmp_path / "env.duckdb"
    monkeypatch.setenv("SHENGJI_DB", str(db))
    src = tmp_path / "one.jsonl"
    write_lines(src, hands[:3])
    assert main(["ingest", str(src), "--workers", "0"]) == 0
    assert current_version(db) == 1
    assert main(["ingest", str(tmp_path / "*.jsonl"), "--workers", "1"]) == 0
    assert "0 inserted · 0 replaced · 3 unchanged" in capsys.readouterr().out
    assert current_version(db) == 2


def test_a_missing_path_is_a_usage_error(tmp_path: Path, capsys) -> None:
    code = main(["ingest", str(tmp_path / "missing"), "--db", str(tmp_path / "x.duckdb")])
    assert code == 2
    assert "missing" in capsys.readouterr().err
    assert not (tmp_path / "x.duckdb").exists()


def test_the_summary_prints_the_speed_the_run_stored(
    tmp_path: Path, hands: list[str], capsys, monkeypatch
) -> None:
    """One run, one speed: the closing line's seconds and hands/s are the `ingest_runs` row's
    (the Audit page's). Publishing is slowed on purpose, so a summary that timed the command on
    its own clock, publishing included, would print another figure than the one stored."""
    publish = Publication.publish

    def slow_publish(self: Publication) -> int:
        time.sleep(0.5)
        return publish(self)

    monkeypatch.setattr(Publication, "publish", slow_publish)
    db = tmp_path / "speed.duckdb"
    src = tmp_path / "one.jsonl"
    write_lines(src, hands[:6])
    assert main(["ingest", str(src), "--db", str(db), "--workers", "0"]) == 0
    printed = re.search(r" in ([\d.,]+) s — ([\d,]+) hands/s", capsys.readouterr().out)
    assert printed is not None
    con = open_reader(db)
    try:
        duration, per_s = con.execute("SELECT duration_s, hands_per_s FROM ingest_runs").fetchall()[
            0
        ]
    finally:
        con.close()
    assert printed.groups() == (f"{duration:,.1f}", f"{per_s:,.0f}")
