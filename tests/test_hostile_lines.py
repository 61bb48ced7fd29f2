"""Hostile lines: each one costs its own line (a reject with a reason), never the run.

Every case here once aborted a whole `shengji ingest` (nothing of any file stored) or crashed
`shengji audit`; each test replays the line and ingests it between good lines.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from store_factory import hand_line, make_replay

from analytics.cli import main
from ingest.pipeline import ingest
from ingest.store import open_reader
from shengji.record import parse_hand
from shengji.replay import replay_line
from shengji.results import Finding

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"


@pytest.fixture(scope="module")
def good() -> list[str]:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as fh:
        return [next(fh).rstrip("\n") for _ in range(4)]


def _edit(line: str, hand_id: str, **change: object) -> str:
    obj = json.loads(line)
    obj["hand_id"] = hand_id
    obj.update(change)
    return json.dumps(obj)


def _rules(line: str, hand_id: str, **options: object) -> str:
    return _edit(line, hand_id, rules={"preset": "four-deck", **options})


def _query(db: Path, sql: str) -> list[tuple]:
    con = open_reader(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


HOSTILE = {
    "lone surrogate in a player name": (
        lambda g: _edit(g, "sur", players=["\ud800", "b", "c", "d"]),
        "bad_record",
        "players[0]",
    ),
    "lone surrogate in the hand id": (
        lambda g: _edit(g, "\udfff"),
        "bad_record",
        "hand_id",
    ),
    "lone surrogate in a source field": (
        lambda g: _edit(g, "sur2", _note={"x": ["\udc80"]}),
        "bad_record",
        "_note",
    ),
    "hand_no of 2^31": (lambda g: _edit(g, "big", hand_no=2**31), "bad_record", "hand_no"),
    "hand_no of 10^30": (lambda g: _edit(g, "big2", hand_no=10**30), "bad_record", "hand_no"),
    "huge level_step": (
        lambda g: _rules(g, "ls", level_step=8000000000000000000000),
        "bad_record",
        "level_step",
    ),
    "huge throw_penalty_points": (
        lambda g: _rules(g, "tp", throw_penalty_points=8000000000000000000000),
        "bad_record",
        "throw_penalty_points",
    ),
    "a 5,000-digit integer": (
        lambda g: g[:-1] + ',"_n":' + "9" * 5000 + "}",
        "bad_json",
        "digits",
    ),
    "huge claimed points": (
        lambda g: _edit(g, "cp", claimed={"attackers_points": 10**40}),
        "bad_record",
        "claimed.attackers_points",
    ),
    "huge claimed levels": (
        lambda g: _edit(g, "cl", claimed={"level_change": {"team": 0, "levels": 2**63}}),
        "bad_record",
        "claimed.level_change.levels",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_line_is_a_reject_with_a_reason(name: str, good: list[str]) -> None:
    make, code, mention = HOSTILE[name]
    r = replay_line(make(good[0]), line=3, strict=False)
    assert r.status == "rejected"
    assert [f.code for f in r.findings] == [code]
    assert mention in r.findings[0].reason


def test_surrogate_pairs_are_text_not_faults(good: list[str]) -> None:
    line = _edit(good[0], "emoji", players=["\ud83d\ude00", "b", "c", "d"])
    assert "\\ud83d" in line
    assert parse_hand(line).players[0] == "😀"
    assert replay_line(line).status != "rejected"


def test_hostile_lines_cost_only_themselves(tmp_path: Path, good: list[str], capsys) -> None:
    bad = [make(good[0]) for make, _, _ in HOSTILE.values()]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([good[1], *bad, good[2], good[3]]) + "\n", encoding="utf-8")
    db = tmp_path / "t.duckdb"
    assert main(["ingest", str(path), "--db", str(db), "--workers", "2"]) == 0
    stored = {h for (h,) in _query(db, "SELECT hand_id FROM hands WHERE status <> 'rejected'")}
    assert stored == {json.loads(g)["hand_id"] for g in good[1:]}
    rejects = _query(db, "SELECT line, code, reason FROM rejects ORDER BY line")
    assert [line for line, _, _ in rejects] == list(range(2, 2 + len(bad)))
    assert [code for _, code, _ in rejects] == [code for _, code, _ in HOSTILE.values()]
    assert all(reason for _, _, reason in rejects)


def test_audit_and_replay_go_on_after_a_huge_integer(tmp_path: Path, good: list[str], capsys):
    path = tmp_path / "n.jsonl"
    path.write_text(good[0][:-1] + ',"_n":' + "9" * 5000 + "}\n" + good[1] + "\n")
    assert main(["audit", str(path)]) == 1
    out = capsys.readouterr().out
    assert "bad_json" in out and "2 hands" in out
    assert main(["replay", str(path), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[0])["status"] == "rejected"
    assert len(lines) == 2


# --- the worker side: whatever a replay returns or raises costs its line only ---------------------


def hostile_replayer(text: str, *, line=None, file=None, strict=False):
    """A replayer whose results the store cannot take, or which raises (module level: workers
    import it)."""
    obj = json.loads(text)
    kind = obj.get("kind")
    if kind == "raise":
        raise RuntimeError("the replayer broke")
    if kind == "unstorable":
        r = make_replay(obj["hand_id"], line=line)
        return r.__class__(**{**_fields(r), "hand_no": 2**40})
    if kind == "builder":
        r = make_replay(obj["hand_id"], line=line)
        return r.__class__(**{**_fields(r), "players": ("a", "b", "c", "d"), "start": (1, 2, 3, 4)})
    if kind == "huge_bottom":
        r = make_replay(obj["hand_id"], line=line)
        bottom = r.bottom.__class__(25, True, 1, "tractor<4-4-4-4-4-4-4-4>", 2**32, 25 * 2**32)
        return r.__class__(**{**_fields(r), "bottom": bottom, "attackers_points": 25 * 2**32})
    if kind == "reject_after_flag":
        r = make_replay(obj["hand_id"], line=line, status="rejected")
        findings = (
            Finding("bid_late", "a flag first", line=line),
            Finding("not_in_hand", "played 3h not held", trick=2, seat=1, line=line),
        )
        return r.__class__(**{**_fields(r), "findings": findings})
    return make_replay(obj["hand_id"], line=line)


def _fields(r) -> dict:
    return {name: getattr(r, name) for name in r.__dataclass_fields__}


@pytest.mark.parametrize("workers", [0, 2])
def test_a_line_the_worker_cannot_handle_is_rejected_alone(tmp_path: Path, workers: int) -> None:
    path = tmp_path / "w.jsonl"
    lines = [
        hand_line("ok1"),
        hand_line("x1", kind="raise"),
        hand_line("x2", kind="unstorable"),
        hand_line("x3", kind="builder"),
        hand_line("big", kind="huge_bottom"),
        hand_line("ok2"),
    ]
    path.write_text("\n".join(lines) + "\n")
    db = tmp_path / "w.duckdb"
    result = ingest([path], db, workers=workers, replay=hostile_replayer)
    assert result.counts.adds_up()
    hands = dict(_query(db, "SELECT hand_id, status FROM hands"))
    assert hands["ok1"] == hands["ok2"] == "ok"
    assert hands["big"] == "ok"
    assert _query(db, "SELECT bottom_multiplier FROM hands WHERE hand_id = 'big'") == [(2**32,)]
    rejects = _query(db, "SELECT line, code, reason FROM rejects ORDER BY line")
    assert [(line, code) for line, code, _ in rejects] == [
        (2, "internal"),
        (3, "internal"),
        (4, "internal"),
    ]
    assert "the replayer broke" in rejects[0][2]
    assert "hand_no" in rejects[1][2]
    assert result.counts.status == {"ok": 3, "rejected": 3}


def test_reject_code_is_the_finding_that_rejected(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(hand_line("r1", kind="reject_after_flag") + "\n")
    db = tmp_path / "r.duckdb"
    ingest([path], db, workers=0, replay=hostile_replayer)
    assert _query(db, "SELECT code, reason FROM rejects") == [("not_in_hand", "played 3h not held")]


def test_a_conflicting_duplicate_says_which_line_was_kept(tmp_path: Path) -> None:
    from store_factory import fake_replay_line

    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text("\n".join([hand_line("d1", tricks=3), hand_line("d2")]) + "\n")
    b.write_text(
        "\n".join([hand_line("d1", tricks=4), hand_line("d2"), hand_line("d1", tricks=5)]) + "\n"
    )
    db = tmp_path / "d.duckdb"
    result = ingest([a, b], db, workers=0, replay=fake_replay_line)
    assert (result.counts.duplicates, result.counts.conflicts) == (3, 2)
    assert result.counts.adds_up()
    rows = _query(db, "SELECT file, line, hand_id, code, reason FROM rejects ORDER BY line")
    assert [(Path(f).name, line, h, code) for f, line, h, code, _ in rows] == [
        ("b.jsonl", 1, "d1", "duplicate_conflict"),
        ("b.jsonl", 3, "d1", "duplicate_conflict"),
    ]
    assert all(f"{a} line 1 with different content" in r[4] for r in rows)
    assert _query(db, "SELECT file, line FROM hands WHERE hand_id = 'd1'") == [(str(a), 1)]
