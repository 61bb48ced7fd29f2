"""Hand-built replays for the store tests, and a stand-in replayer for small JSON lines.

`fake_replay_line` reads lines like `{"source": "s", "hand_id": "h1", "tricks": 3}` so that pipeline
tests can write corpora whose outcome they control (status, findings, tricks, time) and that replay
in microseconds. It honours the real replayer's contract: it never raises for a data fault, and a
line it cannot read comes back rejected with hand_id "".
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from typing import Any

from shengji.cards import Hand, parse_cards
from shengji.results import (
    BidRecord,
    BottomResult,
    Finding,
    HandReplay,
    LevelChange,
    PlayRecord,
    ThrowOutcome,
    TrickRecord,
)
from shengji.rules import FOUR_DECK
from shengji.shape import Component

# Trump hearts, level 5. Spades are a side suit (0), hearts trump (4).
_AS, _KS, _QS, _5S = parse_cards("AS KS QS 5S")
_2H, _3H = parse_cards("2H 3H")


def make_trick(number: int, *, leader: int = 0, attackers_total: int = 0) -> TrickRecord:
    """A single-card spade trick: seat leader+1 ruffs with a heart every third trick."""
    ruff = number % 3 == 0
    seats = [(leader + i) % 4 for i in range(4)]
    plays = [
        PlayRecord(seats[0], (_KS,), "lead", True, index=(number - 1) * 4),
        PlayRecord(seats[1], (_2H,) if ruff else (_QS,), "ruff" if ruff else "follow", True),
        PlayRecord(seats[2], (_5S,), "follow", True, index=(number - 1) * 4 + 2),
        PlayRecord(seats[3], (_AS,) if not ruff else (_5S,), "follow", True),
    ]
    winner = seats[1] if ruff else seats[3]
    return TrickRecord(
        number=number,
        leader=leader,
        suit=0,
        components=(Component(1, (_KS,), 11),),
        throw=None,
        plays=tuple(plays),
        winner=winner,
        points=15,
        attackers_total=attackers_total,
        reason="test trick",
    )


def make_replay(
    hand_id: str,
    source: str = "club",
    *,
    status: str = "ok",
    tricks: int = 3,
    line: int | None = 1,
    played_at: str | None = "2026-11-28T20:15:03Z",
    findings: tuple[Finding, ...] = (),
    content_hash: str = "",
    throw_failed: bool | None = None,
) -> HandReplay:
    if status == "flagged" and not findings:
        findings = (Finding("illegal-follow", "played qs holding ks", trick=1, seat=1, line=line),)
    if status == "rejected" and not findings:
        findings = (Finding("not-in-hand", "played 3h not held", trick=tricks + 1, seat=2),)
    trick_list = []
    total = 0
    leader = 0
    for n in range(1, tricks + 1):
        t = make_trick(n, leader=leader)
        if t.winner % 2 == 1:  # banker is seat 0, attackers are team 1
            total += t.points
        t = TrickRecord(**{**_fields(t), "attackers_total": total})
        trick_list.append(t)
        leader = t.winner
    if throw_failed is not None and trick_list:
        first = trick_list[0]
        throw = ThrowOutcome(
            failed=throw_failed,
            attempted=(_AS, _KS),
            forced=(_KS,) if throw_failed else None,
            blocker=1 if throw_failed else None,
            blocking_component=(_AS,) if throw_failed else None,
        )
        trick_list[0] = TrickRecord(**{**_fields(first), "throw": throw})
    start = tuple(Hand.of(parse_cards("AS KS 5S 2H 3H")) for _ in range(4))
    complete = status != "rejected"
    bottom = BottomResult(25, True, 1, "single", 2, 50) if complete else None
    return HandReplay(
        hand_id=hand_id,
        source=source,
        status=status,  # type: ignore[arg-type]
        findings=findings,
        line=line,
        match_id="m1",
        hand_no=1,
        played_at=played_at,
        rules=FOUR_DECK,
        players=("lin", "mei", "jun", "hao"),
        levels=(5, 3),
        level=5,
        banker=0,
        trump="H",
        trump_source="show",
        bids=(BidRecord(0, (parse_cards("5H")[0],), "show", 40, "H", True),),
        banker_before_bury=Hand.of(parse_cards("AS KS 5S 2H 3H 5H")),
        start=start,
        tricks=tuple(trick_list),
        attackers_points=(total + 50) if complete else None,
        bottom=bottom,
        level_change=LevelChange(0, 1, True) if complete else None,
        next_banker=2 if complete else None,
        ladder_points=(3, 0, 3, 0) if complete else None,
        content_hash=content_hash,
    )


def _fields(t: TrickRecord) -> dict[str, Any]:
    return {name: getattr(t, name) for name in TrickRecord.__dataclass_fields__}


def fake_replay_line(
    text: str, *, line: int | None = None, file: str | None = None, strict: bool = False
) -> HandReplay:
    delay = float(os.environ.get("STORE_TEST_REPLAY_DELAY", "0"))
    if delay:
        time.sleep(delay)
    try:
        obj = json.loads(text)
        if not isinstance(obj, dict):
            raise ValueError("not an object")
    except ValueError as e:
        return HandReplay(
            hand_id="",
            source="",
            status="rejected",
            findings=(Finding("bad-json", f"not valid json: {e}", line=line),),
            line=line,
        )
    if obj.get("boom"):
        raise RuntimeError("a program error in the replayer")
    canonical = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return make_replay(
        str(obj.get("hand_id", "")),
        str(obj.get("source", "club")),
        status=obj.get("status", "ok"),
        tricks=int(obj.get("tricks", 3)),
        line=line,
        played_at=obj.get("played_at", "2026-11-28T20:15:03Z"),
        content_hash=hashlib.sha256(canonical.encode()).hexdigest(),
        throw_failed=obj.get("throw_failed"),
    )


def hand_line(hand_id: str, **fields: Any) -> str:
    return json.dumps({"source": "club", "hand_id": hand_id, **fields})


# --- looking at a store ------------------------------------------------------------------------

HAND_TABLES = ("hands", "seats", "bids", "tricks", "plays", "findings", "decisions")


def snapshot(db_path: Any, tables: tuple[str, ...] = (*HAND_TABLES, "rejects")) -> dict[str, Any]:
    """Rows and an order-independent checksum of every table: equal snapshots, equal contents."""
    from ingest.store import open_reader

    con = open_reader(db_path)
    try:
        return {
            t: con.execute(f"SELECT count(*), sum(hash(x)) FROM {t} x").fetchall()[0]
            for t in tables
        }
    finally:
        con.close()


SEAT_BITS = """
SELECT source, hand_id,
       coalesce(bit_or(1 << leader) FILTER (WHERE throw), 0) AS throw_seats,
       coalesce(bit_or(1 << leader) FILTER (WHERE throw_failed), 0) AS failed_throw_seats,
       coalesce(bit_or(1 << leader) FILTER (WHERE throw AND NOT throw_failed), 0)
           AS stood_throw_seats,
       coalesce(bit_or(1 << winner) FILTER (WHERE trump_in), 0) AS ruff_seats
FROM tricks GROUP BY ALL
"""
"""`hands`' seat bit columns as `tricks` gives them (hands without tricks: all 0)."""

BIT_COLUMNS = ("throw_seats", "failed_throw_seats", "stood_throw_seats", "ruff_seats")


def orphans(con: Any) -> dict[str, int]:
    """Child rows whose hand is missing, and keyed hands missing their seats (anti-joins)."""
    out = {}
    for t in HAND_TABLES[1:]:
        (n,) = con.execute(
            f"SELECT count(*) FROM {t} c ANTI JOIN hands h USING (source, hand_id)"
        ).fetchall()[0]
        out[t] = n
    (n,) = con.execute(
        "SELECT count(*) FROM hands h ANTI JOIN seats s USING (source, hand_id) "
        "WHERE h.player0 IS NOT NULL"
    ).fetchall()[0]
    out["hands without seats"] = n
    (n,) = con.execute(
        "SELECT count(*) FROM hands h WHERE n_tricks <> "
        "(SELECT count(*) FROM tricks t WHERE t.source = h.source AND t.hand_id = h.hand_id) "
        "OR n_findings <> (SELECT count(*) FROM findings f "
        "WHERE f.source = h.source AND f.hand_id = h.hand_id)"
    ).fetchall()[0]
    out["hands whose counts disagree with their rows"] = n
    differ = " OR ".join(f"h.{c} <> coalesce(b.{c}, 0)" for c in BIT_COLUMNS)
    (n,) = con.execute(
        f"SELECT count(*) FROM hands h LEFT JOIN ({SEAT_BITS}) b USING (source, hand_id) "
        f"WHERE {differ}"
    ).fetchall()[0]
    out["hands whose seat bits disagree with their tricks"] = n
    return out


def duplicate_keys(con: Any) -> dict[str, int]:
    """Rows sharing a key, per table (the declared keys of ingest.schema)."""
    from ingest.schema import TABLES

    out = {}
    for table in TABLES:
        key = ", ".join(table.key)
        (n,) = con.execute(
            f"SELECT count(*) FROM (SELECT {key} FROM {table.name} GROUP BY ALL HAVING count(*) > 1)"
        ).fetchall()[0]
        out[table.name] = n
    return out
