"""One hand, trick by trick, for the Hand replay page: rebuilt from the store's tables.

The tables hold every seat's cards at the start of play and every play, so each seat's holding
before any trick is the start minus what it has played — all four hands are visible at every
step, rejected hands included (up to their fault). The replay's one-line explanation of each
trick (who won and why, R6) is stored as `tricks.reason`; where a row has none, the hand's source
file, if still readable, is replayed again (`replay_reasons`), else a reason is composed from the
tables (`composed_reason`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from shengji.cards import parse_cards

from .filters import Filters
from .query import Connection, run


def hand_list(con: Connection, f: Filters, search: str = "", limit: int = 200) -> pl.DataFrame:
    """Hands in scope for the picker, newest first; `search` matches hand id, match or player."""
    params: dict[str, Any] = {"limit": limit}
    where = ""
    if search:
        where = (
            "WHERE hand_id ILIKE $q OR coalesce(match_id, '') ILIKE $q OR player0 ILIKE $q "
            "OR player1 ILIKE $q OR player2 ILIKE $q OR player3 ILIKE $q"
        )
        params["q"] = f"%{search}%"
    df = run(
        con,
        f,
        f"""
        SELECT source, hand_id, played_at, match_id, hand_no, status, n_findings,
               player0, player1, player2, player3, attackers_points, banker_won
        FROM fh {where}
        ORDER BY played_at DESC NULLS LAST, source, hand_id LIMIT $limit
        """,
        params=params,
    )
    return df.sort(["played_at", "source", "hand_id"], descending=[True, False, False])


def find_hand(con: Connection, hand_id: str, source: str | None = None) -> tuple[str, str] | None:
    """The key of a hand by id (and source, when ids repeat across sources)."""
    params: dict[str, Any] = {"h": hand_id}
    where = "hand_id = $h"
    if source:
        where += " AND source = $s"
        params["s"] = source
    rows = con.sql(
        f"SELECT source, hand_id FROM hands WHERE {where} ORDER BY source LIMIT 1", params=params
    ).fetchall()
    return (rows[0][0], rows[0][1]) if rows else None


@dataclass(frozen=True)
class HandData:
    hand: dict[str, Any]
    seats: pl.DataFrame
    tricks: pl.DataFrame
    plays: pl.DataFrame
    findings: pl.DataFrame
    bids: pl.DataFrame


def load_hand(con: Connection, source: str, hand_id: str) -> HandData | None:
    params = {"s": source, "h": hand_id}
    key = "source = $s AND hand_id = $h"
    hand = con.sql(f"SELECT * FROM hands WHERE {key}", params=params).pl()
    if not hand.height:
        return None

    def table(name: str, order: str) -> pl.DataFrame:
        return con.sql(f"SELECT * FROM {name} WHERE {key} ORDER BY {order}", params=params).pl()

    return HandData(
        hand=hand.row(0, named=True),
        seats=table("seats", "seat"),
        tricks=table("tricks", "trick"),
        plays=table("plays", "trick, position"),
        findings=table("findings", "finding_no"),
        bids=table("bids", "bid_no"),
    )


def holdings_before(data: HandData, trick: int) -> dict[int, tuple[int, ...]]:
    """Each seat's cards before `trick` is played (trick numbers from 1; `n_tricks + 1` gives what
    is left at the end): the start of play minus every earlier play."""
    held: dict[int, Counter[int]] = {}
    for row in data.seats.iter_rows(named=True):
        held[row["seat"]] = Counter(parse_cards(row["cards_start"] or ""))
    for row in data.plays.filter(pl.col("trick") < trick).iter_rows(named=True):
        counts = held.setdefault(row["seat"], Counter())
        counts.subtract(parse_cards(row["cards"]))
    return {seat: tuple(sorted(c.elements())) for seat, c in sorted(held.items())}


def composed_reason(trick: dict[str, Any], plays: list[dict[str, Any]]) -> str:
    """A reason from the tables alone: who won, with what, and how (follow or ruff)."""
    winner = trick["winner"]
    play = next((p for p in plays if p["seat"] == winner), None)
    if play is None:
        return f"seat {winner} won"
    if play["position"] == 1:
        how = "the lead held"
    elif play["kind"] == "ruff":
        how = "trumped in from a void"
    else:
        how = "highest in the led suit"
    return f"seat {winner} won with {play['cards']}: {how}"


def replay_reasons(file: str | None, line: int | None, hand_id: str) -> dict[int, str] | None:
    """The replay's own reason for every trick, by replaying the hand's line from its source
    file; None when the file is gone or the line is no longer this hand."""
    if not file or not line:
        return None
    path = Path(file)
    if not path.is_file():
        return None
    from shengji.hhfile import iter_lines
    from shengji.replay import replay_line

    try:
        text = next((t for n, t in iter_lines(path) if n == line), None)
    except OSError:
        return None
    if text is None:
        return None
    replay = replay_line(text, line=line, file=str(path), strict=False)
    if replay.hand_id != hand_id:
        return None
    return {t.number: t.reason for t in replay.tricks}
