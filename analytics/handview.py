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


def _search(search: str) -> tuple[str, dict[str, Any]]:
    """WHERE over `fh` for the picker's search: hand id, match or any player, as a substring."""
    if not search:
        return "", {}
    where = (
        "WHERE hand_id ILIKE $q OR coalesce(match_id, '') ILIKE $q OR player0 ILIKE $q "
        "OR player1 ILIKE $q OR player2 ILIKE $q OR player3 ILIKE $q"
    )
    return where, {"q": f"%{search}%"}


def hand_list(con: Connection, f: Filters, search: str = "", limit: int = 200) -> pl.DataFrame:
    """Hands in scope for the picker, newest first; `search` matches hand id, match or player."""
    where, params = _search(search)
    params["limit"] = limit
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


def hand_count(con: Connection, f: Filters, search: str = "") -> int:
    """How many hands `hand_list` would list without its limit."""
    where, params = _search(search)
    return int(run(con, f, f"SELECT count(*) AS n FROM fh {where}", params=params)["n"][0])


def load_decisions(con: Connection, source: str, hand_id: str) -> pl.DataFrame | None:
    """The coaching review's rows for one hand, or None when the store has no `decisions`
    table (a store written before the review existed)."""
    exists = con.sql(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'decisions'"
    ).fetchall()[0][0]
    if not exists:
        return None
    df: pl.DataFrame = con.sql(
        "SELECT * FROM decisions WHERE source = $s AND hand_id = $h",
        params={"s": source, "h": hand_id},
    ).pl()
    return df


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
        df: pl.DataFrame = con.sql(
            f"SELECT * FROM {name} WHERE {key} ORDER BY {order}", params=params
        ).pl()
        return df

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


# --- the replayer's data: one JSON-ready value per hand -----------------------------------------

_GROUPS = ("S", "H", "C", "D", "T")
"""Effective suits for the card tracker: the four side suits and trump (`T`)."""
_NOT_FOLLOWING = frozenset({"ruff", "discard", "short"})
"""Play kinds that show the seat has no more cards of the led suit."""


def _faces(trump: str | None, level: str | None) -> list[dict[str, Any]]:
    """Every face 0..53 as the replayer draws it: rank, suit symbol, colour, trump, tracker
    group, display order (strongest first) and points."""
    from shengji.cards import SUIT_SYMBOLS, card_points, card_rank, card_suit, pretty_card
    from shengji.trump import TRUMP, parse_trump

    ctx = None
    if trump and level:
        try:
            ctx = parse_trump(trump, level)
        except ValueError:
            ctx = None
    order = sorted(
        range(54), key=ctx.sort_key if ctx else lambda c: (card_suit(c), card_rank(c), c)
    )
    rank_of_order = {c: i for i, c in enumerate(order)}
    faces = []
    for c in range(54):
        if c >= 52:
            rank, suit, red = ("BJ" if c == 53 else "SJ"), "joker", c == 53
            group = "T"
        else:
            rank, suit = pretty_card(c)[:-1], SUIT_SYMBOLS[card_suit(c)]
            red = card_suit(c) in (1, 3)
            group = "SHCD"[card_suit(c)]
        is_trump = ctx.eff[c] == TRUMP if ctx else c >= 52
        if ctx is not None:
            group = _GROUPS[ctx.eff[c]] if ctx.eff[c] != TRUMP else "T"
        faces.append(
            {
                "r": rank,
                "s": suit,
                "red": red,
                "t": is_trump,
                "g": group,
                "o": rank_of_order[c],
                "p": card_points(c),
            }
        )
    return faces


def _cards(text: str | None) -> list[int]:
    return list(parse_cards(text)) if text else []


def _opt(value: Any) -> Any:
    """A value JSON can carry: dates as ISO text, everything else as is."""
    if hasattr(value, "isoformat"):
        return value.isoformat(sep=" ", timespec="minutes")
    return value


SEVERITY_MARK = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
"""The review's severities as chess annotators mark moves (docs/review.md: inaccuracy under 10
points, mistake under 30, blunder 30 or more)."""
SEVERITY_ORDER = {"inaccuracy": 1, "mistake": 2, "blunder": 3}


def verdict(d: dict[str, Any], players: dict[int, str | None]) -> dict[str, Any]:
    """One `decisions` row as the replayer draws it: who, severity and its mark, the code in words
    with its help (analytics.review_codes), the cost, the cards played and the better play as card
    numbers (drawn as the faces the reason names), and the reason."""
    from .review_codes import help_text, label

    severity = str(d.get("severity") or "")
    code = str(d.get("code") or "")
    seat = d.get("seat")
    return {
        "seat": seat,
        "player": players.get(seat) if seat is not None else None,
        "kind": d.get("kind"),
        "code": code,
        "label": label(code),
        "help": help_text(code),
        "severity": severity,
        "mark": SEVERITY_MARK.get(severity, ""),
        "cost": float(d["cost"]) if d.get("cost") is not None else None,
        "play": _cards(d.get("play")),
        "better": _cards(d.get("better")),
        "reason": str(d.get("reason") or ""),
    }


def original_bottom(file: str | None, line: int | None, hand_id: str) -> tuple[int, ...] | None:
    """The 8 cards the banker took up (the deal's last 8), read from the hand's source line: the
    store keeps the hand after the bury, not the bottom. None when the file or line is gone or no
    longer this hand."""
    if not file or not line:
        return None
    path = Path(file)
    if not path.is_file():
        return None
    from shengji.hhfile import iter_lines
    from shengji.record import RecordError, parse_hand

    try:
        text = next((t for n, t in iter_lines(path) if n == line), None)
        record = parse_hand(text) if text is not None else None
    except (OSError, RecordError):
        return None
    if record is None or record.hand_id != hand_id or len(record.deal.cards) < 8:
        return None
    return tuple(record.deal.cards[-8:])


def _markers(
    tricks: pl.DataFrame, plays: pl.DataFrame, hand: dict[str, Any]
) -> dict[int, list[dict[str, str]]]:
    """Key moments per trick: failed throws, ruffs, over-ruffs, the bottom capture."""
    marks: dict[int, list[dict[str, str]]] = {}
    ruffs: dict[int, list[dict[str, Any]]] = {}
    for p in plays.filter(pl.col("kind") == "ruff").iter_rows(named=True):
        ruffs.setdefault(p["trick"], []).append(p)
    for t in tricks.iter_rows(named=True):
        n = t["trick"]
        out = marks.setdefault(n, [])
        if t["throw"] and t["throw_failed"]:
            out.append({"kind": "throw", "text": f"failed throw by seat {t['leader']}"})
        rs = ruffs.get(n, [])
        if len(rs) > 1 and t["winner"] in {r["seat"] for r in rs[1:]}:
            out.append({"kind": "overruff", "text": f"over-ruffed: seat {t['winner']} won"})
        elif rs:
            seats = ", ".join(str(r["seat"]) for r in rs)
            out.append({"kind": "ruff", "text": f"ruffed by seat {seats}"})
    last = tricks.height
    if last and hand.get("bottom_captured"):
        marks.setdefault(last, []).append(
            {
                "kind": "bottom",
                "text": f"bottom captured: {hand['bottom_points']} × "
                f"{hand['bottom_multiplier']} = {hand['bottom_added']}",
            }
        )
    return marks


def replay_payload(
    data: HandData,
    reasons: dict[int, str] | None = None,
    decisions: pl.DataFrame | None = None,
    bottom: tuple[int, ...] | None = None,
) -> dict[str, Any]:
    """Everything the Hand replay draws, as plain JSON values: the seats and their cards at the
    start of play, every trick with its plays, reason, findings, markers and the review's
    mistakes (`verdict`), the deal (shows, fries, the bury: the banker's hand before it, the
    original `bottom` when known and the bury's verdicts), the score and the end. Text is data
    here: the page sets it as text, never as markup."""
    h = data.hand
    banker = h["banker"]
    seats = []
    for r in data.seats.sort("seat").iter_rows(named=True):
        seats.append(
            {
                "seat": r["seat"],
                "player": r["player"],
                "role": r["role"],
                "team": r["team"],
                "style": r["style"],
                "start": _cards(r["cards_start"]),
            }
        )
    by_trick_plays: dict[int, list[dict[str, Any]]] = {}
    for p in data.plays.iter_rows(named=True):
        by_trick_plays.setdefault(p["trick"], []).append(
            {
                "seat": p["seat"],
                "cards": _cards(p["cards"]),
                "kind": p["kind"],
                "legal": bool(p["legal"]),
            }
        )
    findings_at: dict[int, list[dict[str, Any]]] = {}
    general = []
    for f in data.findings.iter_rows(named=True):
        item = {"code": f["code"], "seat": f["seat"], "reason": f["reason"], "trick": f["trick"]}
        if f["trick"] is None:
            general.append(item)
        else:
            findings_at.setdefault(f["trick"], []).append(item)
    verdicts_at: dict[int, list[dict[str, Any]]] = {}
    bury_verdicts: list[dict[str, Any]] = []
    players = {r["seat"]: r["player"] for r in data.seats.iter_rows(named=True)}
    if decisions is not None and decisions.height and "trick" in decisions.columns:
        for d in decisions.iter_rows(named=True):
            # The table draws the review's mistakes; sound decisions stay in the review table.
            if not d.get("is_mistake"):
                continue
            item = verdict(d, players)
            if d["trick"] is None:
                bury_verdicts.append(item)
            else:
                verdicts_at.setdefault(int(d["trick"]), []).append(item)
    marks = _markers(data.tricks, data.plays, h)
    tricks = []
    previous_total = 0
    for t in data.tricks.iter_rows(named=True):
        n = t["trick"]
        plays = by_trick_plays.get(n, [])
        attackers_won = banker is not None and t["winner"] % 2 != banker % 2
        gained = t["points"] if attackers_won else 0
        total = t["attackers_total"] if t["attackers_total"] is not None else previous_total
        reason = t["reason"] or (reasons or {}).get(n)
        if not reason:
            reason = composed_reason(t, data.plays.filter(pl.col("trick") == n).to_dicts())
        trick_marks = list(marks.get(n, []))
        for f in findings_at.get(n, []):
            trick_marks.append({"kind": "finding", "text": f"{f['code']}: {f['reason']}"})
        worst = max(
            verdicts_at.get(n, []), key=lambda v: SEVERITY_ORDER[v["severity"]], default=None
        )
        if worst is not None:
            # One mark per trick, the worst verdict's; its tooltip lists them all.
            text = "\n".join(
                f"{v['mark']} {v['severity']} ({v['label']}), seat {v['seat']}: {v['reason']}"
                for v in verdicts_at[n]
            )
            trick_marks.append({"kind": worst["severity"], "text": text})
        tricks.append(
            {
                "n": n,
                "leader": t["leader"],
                "lead_shape": t["lead_shape"],
                "lead_suit": t["lead_suit"],
                "throw": bool(t["throw"]),
                "throw_failed": bool(t["throw_failed"]),
                "throw_cards": _cards(t["throw_cards"]),
                "blocker": t["blocker"],
                "blocking_cards": _cards(t["blocking_cards"]),
                "forced_cards": _cards(t["forced_cards"]),
                "winner": t["winner"],
                "points": t["points"],
                "attackers_won": attackers_won,
                "attackers_total": total,
                "penalty": total - previous_total - gained,
                "reason": reason,
                "plays": plays,
                "findings": findings_at.get(n, []),
                "verdicts": verdicts_at.get(n, []),
                "marks": trick_marks,
            }
        )
        previous_total = total
    bids = [
        {
            "seat": b["seat"],
            "kind": b["kind"],
            "cards": _cards(b["cards"]),
            "trump": b["trump"],
            "valid": bool(b["valid"]),
            "buried": _cards(b["buried"]),
        }
        for b in data.bids.iter_rows(named=True)
    ]
    buried: list[int] = []
    banker_row = next((s for s in data.seats.iter_rows(named=True) if s["seat"] == banker), None)
    if banker_row and banker_row["cards_before_bury"] and banker_row["cards_start"]:
        rest = Counter(parse_cards(banker_row["cards_before_bury"]))
        rest.subtract(parse_cards(banker_row["cards_start"]))
        buried = sorted(rest.elements())
    fries = [b for b in bids if b["kind"] == "fry" and b["buried"]]
    if fries:
        buried = fries[-1]["buried"]
    fault = None
    if h["status"] == "rejected":
        # The finding that stopped the replay is the hand's last.
        rows = data.findings.to_dicts()
        if rows:
            fault = {k: rows[-1][k] for k in ("trick", "seat", "code", "reason")}
    return {
        "hand": {
            "id": h["hand_id"],
            "source": h["source"],
            "played_at": _opt(h["played_at"]),
            "match_id": h["match_id"],
            "hand_no": h["hand_no"],
            "status": h["status"],
            "trump": h["trump"],
            "level": h["level"],
            "trump_source": h["trump_source"],
            "decks": h["decks"] or 4,
            "banker": banker,
            "end_state": h["end_state"],
            "attackers_points": h["attackers_points"],
            "trick_points": h["trick_points"],
            "bottom_points": h["bottom_points"],
            "bottom_captured": h["bottom_captured"],
            "bottom_winner": h["bottom_winner"],
            "bottom_multiplier": h["bottom_multiplier"],
            "bottom_added": h["bottom_added"],
            "last_lead_shape": h["last_lead_shape"],
            "level_up_team": h["level_up_team"],
            "level_up": h["level_up"],
            "banker_won": h["banker_won"],
        },
        "faces": _faces(h["trump"], h["level"]),
        "seats": seats,
        "tricks": tricks,
        "bids": bids,
        "buried": buried,
        "findings": general,
        "fault": fault,
        "bury": {
            "verdicts": bury_verdicts,
            "before": _cards(banker_row["cards_before_bury"]) if banker_row else [],
            "bottom": list(bottom) if bottom is not None else None,
        },
    }


def start_position(payload: dict[str, Any], trick: int | None, play: int | None) -> dict[str, Any]:
    """Where a deep link opens: `trick` alone shows that trick complete; `play` counts the plays
    shown in it (0 = before its lead, the table cleared). A trick past the last replayed one opens
    the rejected hand's fault when it is that trick, else the last trick; `note` completes "the
    link asks for …" when the link was bent to fit the hand."""
    n = len(payload["tricks"])
    fault = payload.get("fault")
    if trick is None or n == 0:
        return {"trick": 1 if n else 0, "play": 0, "note": None}
    if trick > n:
        if fault and fault.get("trick") == trick:
            return {"trick": trick, "play": 0, "note": None}
        return {
            "trick": n,
            "play": len(payload["tricks"][-1]["plays"]),
            "note": f"trick {trick}, but this hand has {n} tricks: showing the last one, complete",
        }
    note = None
    if trick < 1:
        note = f"trick {trick}, but tricks count from 1: showing the first"
        trick = 1
    plays = len(payload["tricks"][trick - 1]["plays"])
    if play is None:
        p = plays
    elif play > plays or play < 0:
        p = max(0, min(play, plays))
        note = note or (
            f"play {play} of trick {trick}, which has {plays} plays: showing "
            + ("it complete" if p == plays else "it before its lead")
        )
    else:
        p = play
    return {"trick": trick, "play": p, "note": note}
