"""A replayed hand for people (terminal text) and for programs (a JSON object).

`render_hand` draws a hand trick by trick: the leader, every play, the winner, the points and the
attackers' running total, each finding under its trick, then the outcome. Colour (ANSI) only when
asked for: the command turns it on when stdout is a terminal. `replay_json` is the `--json` form:
cards as canonical token strings, seats as 0..3, tricks from 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import Card, format_cards, pretty_card, rank_token
from .results import Finding, HandReplay, TrickRecord
from .trump import SUIT_NAMES

_RED = "\x1b[31m"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_YELLOW = "\x1b[33m"
_RESET = "\x1b[0m"
_SUIT_LABEL = ("♠", "♥", "♣", "♦", "trump")


# --- JSON --------------------------------------------------------------------------------------


def _finding_json(f: Finding) -> dict[str, Any]:
    return {"code": f.code, "trick": f.trick, "seat": f.seat, "line": f.line, "reason": f.reason}


def _trick_json(t: TrickRecord) -> dict[str, Any]:
    throw = None
    if t.throw is not None:
        throw = {
            "failed": t.throw.failed,
            "attempted": format_cards(t.throw.attempted),
            "forced": None if t.throw.forced is None else format_cards(t.throw.forced),
            "blocker": t.throw.blocker,
        }
    return {
        "number": t.number,
        "leader": t.leader,
        "suit": SUIT_NAMES[t.suit],
        "plays": [
            {"seat": p.seat, "cards": format_cards(p.cards), "kind": p.kind, "legal": p.legal}
            for p in t.plays
        ],
        "throw": throw,
        "winner": t.winner,
        "points": t.points,
        "attackers_total": t.attackers_total,
        "reason": t.reason,
    }


def replay_json(r: HandReplay) -> dict[str, Any]:
    """The `shengji replay --json` object of one hand."""
    bottom = None
    if r.bottom is not None:
        bottom = {
            "captured": r.bottom.captured,
            "multiplier": r.bottom.multiplier,
            "points": r.bottom.points,
            "bottom_points": r.bottom.bottom_points,
            "winner": r.bottom.winner,
            "lead_shape": r.bottom.lead_shape,
        }
    change = None
    if r.level_change is not None:
        change = {
            "team": r.level_change.team,
            "levels": r.level_change.levels,
            "banker_won": r.level_change.banker_won,
        }
    return {
        "hand_id": r.hand_id,
        "source": r.source,
        "line": r.line,
        "status": r.status,
        "rules": None if r.rules is None else r.rules.spec(),
        "players": list(r.players),
        "levels": None if r.levels is None else [rank_token(x) for x in r.levels],
        "level": None if r.level is None else rank_token(r.level),
        "banker": r.banker,
        "trump": r.trump,
        "trump_source": r.trump_source,
        "end": r.end,
        "bids": [
            {
                "seat": b.seat,
                "cards": format_cards(b.cards),
                "kind": b.kind,
                "dealt": b.dealt,
                "trump": b.trump,
                "valid": b.valid,
                "buried": format_cards(b.buried) if b.kind == "fry" else None,
            }
            for b in r.bids
        ],
        "bottom_dealt": format_cards(r.bottom_dealt),
        "bottom_buried": format_cards(r.bottom_buried),
        "tricks": [_trick_json(t) for t in r.tricks],
        "attackers_points": r.attackers_points,
        "bottom": bottom,
        "level_change": change,
        "next_banker": r.next_banker,
        "ladder_points": None if r.ladder_points is None else list(r.ladder_points),
        "failed_throws": list(r.failed_throws),
        "findings": [_finding_json(f) for f in r.findings],
        "content_hash": r.content_hash,
    }


def audit_json(r: HandReplay) -> dict[str, Any]:
    """The `shengji audit --json` object of one hand."""
    return {
        "hand_id": r.hand_id,
        "line": r.line,
        "status": r.status,
        "findings": [_finding_json(f) for f in r.findings],
    }


# --- text --------------------------------------------------------------------------------------


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def wrap(self, code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if self.color else text

    def card(self, c: Card) -> str:
        text = pretty_card(c)
        red = c < 52 and c // 13 in (1, 3)
        return self.wrap(_RED, text) if red else text

    def cards(self, cards: Sequence[Card]) -> str:
        return " ".join(self.card(c) for c in cards) or "—"


def _seat(r: HandReplay, seat: int | None) -> str:
    if seat is None:
        return "—"
    name = r.players[seat] if len(r.players) == 4 else ""
    return f"seat {seat} ({name})" if name else f"seat {seat}"


def _finding_lines(findings: Sequence[Finding], style: _Style, indent: str) -> list[str]:
    out = []
    for f in findings:
        where = f" seat {f.seat}" if f.seat is not None else ""
        out.append(indent + style.wrap(_YELLOW, f"! {f.code}{where}: {f.reason}"))
    return out


def render_hand(r: HandReplay, *, color: bool = False) -> str:
    """A hand drawn for a terminal, trick by trick."""
    st = _Style(color)
    lines: list[str] = []
    where = f", line {r.line}" if r.line is not None else ""
    lines.append(
        st.wrap(_BOLD, f"hand {r.hand_id or '(no id)'}") + f"  {r.source}{where}  {r.status}"
    )
    if r.players:
        lines.append("players  " + "  ".join(f"{i}:{p}" for i, p in enumerate(r.players)))
    if r.levels is not None:
        lines.append(
            f"levels   team 0 {rank_token(r.levels[0])}, team 1 {rank_token(r.levels[1])}"
            + (f"; playing {rank_token(r.level)}" if r.level is not None else "")
        )
    for b in r.bids:
        mark = "" if b.valid else st.wrap(_YELLOW, "  (faulty)")
        at = f" after {b.dealt} dealt" if b.dealt is not None else ""
        names = f" → {b.trump}" if b.trump else ""
        lines.append(f"{b.kind:<8} {_seat(r, b.seat)} {st.cards(b.cards)}{at}{names}{mark}")
        if b.kind == "fry":
            lines.append(f"         buries {st.cards(b.buried)}")
    if r.trump is not None:
        lines.append(f"trump    {r.trump} (from {r.trump_source}); banker {_seat(r, r.banker)}")
    if r.bottom_dealt:
        lines.append(f"bottom   {st.cards(r.bottom_dealt)}")
    if r.bottom_buried:
        lines.append(f"buried   {st.cards(r.bottom_buried)}")
    by_trick: dict[int | None, list[Finding]] = {}
    for f in r.findings:
        by_trick.setdefault(f.trick, []).append(f)
    lines.extend(_finding_lines(by_trick.pop(None, []), st, ""))
    for t in r.tricks:
        lines.append("")
        lines.append(
            st.wrap(_BOLD, f"trick {t.number}")
            + f"  {_seat(r, t.leader)} leads {_SUIT_LABEL[t.suit]}"
        )
        for p in t.plays:
            mark = st.wrap(_BOLD, " ◀") if p.seat == t.winner else ""
            kind = "" if p.kind in ("lead", "follow") else st.wrap(_DIM, f"  ({p.kind})")
            lines.append(f"  {p.seat}  {st.cards(p.cards)}{kind}{mark}")
            if p.kind == "lead" and t.throw is not None:
                if t.throw.failed:
                    blocker = (
                        f", blocked by seat {t.throw.blocker}"
                        if t.throw.blocker is not None
                        else ""
                    )
                    lines.append(f"     throw of {st.cards(t.throw.attempted)} failed{blocker}")
                else:
                    lines.append("     throw stands")
        lines.append(f"  → seat {t.winner} wins {t.points} points; attackers {t.attackers_total}")
        lines.extend(_finding_lines(by_trick.pop(t.number, []), st, "  "))
    for rest in by_trick.values():
        lines.extend(_finding_lines(rest, st, "  "))
    lines.append("")
    lines.append(_outcome(r))
    return "\n".join(lines)


def _outcome(r: HandReplay) -> str:
    if r.end == "redeal":
        return "redeal: nobody showed"
    if r.attackers_points is None:
        why = {"abandoned": "abandoned", "complete": "not played to the end"}.get(r.end, r.end)
        return f"outcome  none ({why}; {r.status})"
    parts = [f"attackers {r.attackers_points}"]
    if r.bottom is not None:
        if r.bottom.captured:
            parts.append(
                f"bottom {r.bottom.bottom_points} × {r.bottom.multiplier} = {r.bottom.points} "
                f"taken by seat {r.bottom.winner} ({r.bottom.lead_shape})"
            )
        else:
            parts.append(f"bottom {r.bottom.bottom_points} kept by the banker team")
    if r.level_change is not None:
        who = "banker team" if r.level_change.banker_won else "attackers"
        parts.append(f"team {r.level_change.team} ({who}) +{r.level_change.levels}")
    if r.next_banker is not None:
        parts.append(f"next banker seat {r.next_banker}")
    return "outcome  " + "; ".join(parts)


@dataclass
class AuditTotals:
    """Counts per status and per finding code, gathered hand by hand so a long run keeps only
    counts in memory, not every replay."""

    status: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)

    def add(self, replay: HandReplay) -> None:
        self.status[replay.status] += 1
        self.codes.update(f.code for f in replay.findings)

    @property
    def hands(self) -> int:
        return sum(self.status.values())

    def all_ok(self) -> bool:
        return self.status.get("ok", 0) == self.hands

    def render(self) -> str:
        lines = [
            f"{self.hands} hands: "
            + ", ".join(f"{self.status.get(s, 0)} {s}" for s in ("ok", "flagged", "rejected"))
        ]
        for code, n in sorted(self.codes.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {code:<22} {n}")
        return "\n".join(lines)


def render_totals(replays: Sequence[HandReplay]) -> str:
    """Counts per status and per finding code, for the end of a run."""
    totals = AuditTotals()
    for replay in replays:
        totals.add(replay)
    return totals.render()
