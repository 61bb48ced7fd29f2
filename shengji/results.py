"""What a replay yields: immutable records a viewer, the audit and the store use directly.

These types are the contract between the replay engine (`shengji.replay`) and everything above it
(`ingest`, `analytics`, `dashboard`). Tricks and seats count the way people do in reports: tricks
from 1, seats 0..3, source lines from 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from .cards import Card, Hand
from .pickling import picklable
from .rules import RuleSet
from .shape import Component

Status = Literal["ok", "flagged", "rejected"]
TrumpSource = Literal["show", "overturn", "fry", "bottom"]
PlayKind = Literal["lead", "follow", "ruff", "discard", "short"]
"""How a play answered the lead: `follow` in the led suit; `ruff` all trump from a void in a side
suit; `discard` other cards from a void; `short` all the led suit it had plus other cards (R5.2)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One fault found in a hand: a stable `code` (docs/findings.md) and a reason quoting cards."""

    code: str
    reason: str
    trick: int | None = None
    seat: int | None = None
    line: int | None = None

    def __init__(
        self,
        code: str,
        reason: str,
        trick: int | None = None,
        seat: int | None = None,
        line: int | None = None,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "trick", trick)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "line", line)


@dataclass(frozen=True, slots=True)
class BidRecord:
    """A show during the deal (R8.1–R8.3) or a fry after the bury (R8.7), as judged."""

    seat: int
    cards: tuple[Card, ...]
    kind: Literal["show", "overturn", "fry"]
    dealt: int | None
    trump: str
    """The trump it names: `S H C D` or `NT`."""
    valid: bool
    buried: tuple[Card, ...] = ()
    """For a fry: the 8 cards that player buried."""

    def __init__(
        self,
        seat: int,
        cards: tuple[Card, ...],
        kind: Literal["show", "overturn", "fry"],
        dealt: int | None,
        trump: str,
        valid: bool,
        buried: tuple[Card, ...] = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "dealt", dealt)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "valid", valid)
        object.__setattr__(self, "buried", buried)


@dataclass(frozen=True, slots=True)
class ThrowOutcome:
    """A lead with several components (R4): whether it failed, and what was played instead."""

    failed: bool
    attempted: tuple[Card, ...]
    forced: tuple[Card, ...] | None
    blocker: int | None
    blocking_component: tuple[Card, ...] | None = None
    """The blocker's cards that beat the forced component (None when the throw stood)."""

    def __init__(
        self,
        failed: bool,
        attempted: tuple[Card, ...],
        forced: tuple[Card, ...] | None,
        blocker: int | None,
        blocking_component: tuple[Card, ...] | None = None,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "failed", failed)
        object.__setattr__(self, "attempted", attempted)
        object.__setattr__(self, "forced", forced)
        object.__setattr__(self, "blocker", blocker)
        object.__setattr__(self, "blocking_component", blocking_component)


@dataclass(frozen=True, slots=True)
class PlayRecord:
    seat: int
    cards: tuple[Card, ...]
    kind: PlayKind
    legal: bool
    line: int | None = None
    """The source file line of the hand the play belongs to."""
    index: int | None = None
    """The play's index in the hand's `plays` list (0-based): links a play to its source."""

    def __init__(
        self,
        seat: int,
        cards: tuple[Card, ...],
        kind: PlayKind,
        legal: bool,
        line: int | None = None,
        index: int | None = None,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "legal", legal)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "index", index)


@dataclass(frozen=True, slots=True)
class TrickRecord:
    number: int
    leader: int
    suit: int
    """Effective suit of the lead: 0..3 (S H C D) or 4 (trump)."""
    components: tuple[Component, ...]
    """The lead as played (the forced component after a failed throw)."""
    throw: ThrowOutcome | None
    plays: tuple[PlayRecord, ...]
    """In play order; the first is the lead as actually played."""
    winner: int
    points: int
    attackers_total: int
    """Attackers' points after this trick (penalties included)."""
    reason: str
    """Who won and why, one line quoting the cards (R6)."""

    def __init__(
        self,
        number: int,
        leader: int,
        suit: int,
        components: tuple[Component, ...],
        throw: ThrowOutcome | None,
        plays: tuple[PlayRecord, ...],
        winner: int,
        points: int,
        attackers_total: int,
        reason: str,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "number", number)
        object.__setattr__(self, "leader", leader)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "components", components)
        object.__setattr__(self, "throw", throw)
        object.__setattr__(self, "plays", plays)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "attackers_total", attackers_total)
        object.__setattr__(self, "reason", reason)


@dataclass(frozen=True, slots=True)
class BottomResult:
    """R7.2: who took the last trick, and what the bottom added to the attackers."""

    bottom_points: int
    """Points among the cards finally buried."""
    captured: bool
    """The attackers won the last trick."""
    winner: int | None
    lead_shape: str | None
    """The last trick's lead, e.g. `single`, `pair`, `tractor<2-2>`, `throw`."""
    multiplier: int
    points: int
    """Points the bottom added to the attackers' total (0 unless captured)."""

    def __init__(
        self,
        bottom_points: int,
        captured: bool,
        winner: int | None,
        lead_shape: str | None,
        multiplier: int,
        points: int,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "bottom_points", bottom_points)
        object.__setattr__(self, "captured", captured)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "lead_shape", lead_shape)
        object.__setattr__(self, "multiplier", multiplier)
        object.__setattr__(self, "points", points)


@dataclass(frozen=True, slots=True)
class LevelChange:
    """R7.3: `team` (0 = seats 0+2, 1 = seats 1+3) goes up `levels`; `banker_won`: the banker team held."""

    team: int
    levels: int
    banker_won: bool

    def __init__(self, team: int, levels: int, banker_won: bool) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "team", team)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "banker_won", banker_won)


@dataclass(frozen=True, slots=True)
class SeatPersona:
    """A seat's bot persona as the hand's `_personas` source field states it (the simulator writes
    `{"style", "blunder", "aggression"}` per seat, docs/bots.md). The field belongs to the source:
    it is read for the store, never judged, so what cannot be read is None, not a finding."""

    style: str | None
    """The bot style, e.g. `careful`, `bold`, `novice`."""
    persona: str | None
    """`style/blunder/aggression`, e.g. `careful/0.06/0.25` (as `sim.personas.Persona.tag`)."""

    def __init__(self, style: str | None, persona: str | None) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "style", style)
        object.__setattr__(self, "persona", persona)


NO_PERSONA: Final = SeatPersona(None, None)


def read_personas(extra: Sequence[tuple[str, object]]) -> tuple[SeatPersona, ...]:
    """Each seat's persona from a hand's `_*` fields (`HandRecord.extra`): four values when
    `_personas` is a list of four, else `()`. An entry is `{"style", "blunder", "aggression"}`
    or a `style/blunder/aggression` string; what an entry does not say well is None."""
    value = next((v for k, v in extra if k == "_personas"), None)
    if not isinstance(value, list) or len(value) != 4:
        return ()
    return tuple(_persona(v) for v in value)


def _persona(entry: object) -> SeatPersona:
    if isinstance(entry, str):
        text = entry.strip()
        style = text.split("/", 1)[0].strip()
        return SeatPersona(style or None, text or None)
    if not isinstance(entry, dict):
        return NO_PERSONA
    named = entry.get("style")
    if not isinstance(named, str) or not named.strip():
        return NO_PERSONA
    style = named.strip()
    blunder, aggression = _share(entry.get("blunder")), _share(entry.get("aggression"))
    if blunder is None or aggression is None:
        return SeatPersona(style, None)
    return SeatPersona(style, f"{style}/{blunder:.2f}/{aggression:.2f}")


def _share(value: object) -> float | None:
    """A finite number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        share = float(value)
    except OverflowError:  # an integer too large for a float
        return None
    return share if math.isfinite(share) else None


@dataclass(frozen=True, slots=True)
class HandReplay:
    hand_id: str
    source: str
    status: Status
    findings: tuple[Finding, ...]
    line: int | None
    """The line of the source file the hand came from."""
    match_id: str | None = None
    hand_no: int | None = None
    played_at: str | None = None
    rules: RuleSet | None = None
    players: tuple[str, ...] = ()
    levels: tuple[int, int] | None = None
    """Team levels before the hand, as ranks 2..14."""
    level: int | None = None
    """The level rank played (the banker team's level)."""
    banker: int | None = None
    trump: str | None = None
    """`S H C D` or `NT`; None when the hand was rejected before trump was set."""
    trump_source: TrumpSource | None = None
    end: str = "complete"
    bids: tuple[BidRecord, ...] = ()
    dealt: tuple[Hand, ...] = ()
    """Each seat's cards from the deal, before bottom, bury and fries."""
    banker_before_bury: Hand | None = None
    start: tuple[Hand, ...] = ()
    """Each seat's holding at the start of play (after the bury and every fry)."""
    bottom_dealt: tuple[Card, ...] = ()
    bottom_buried: tuple[Card, ...] = ()
    tricks: tuple[TrickRecord, ...] = ()
    attackers_points: int | None = None
    """Final total: trick points, bottom, penalties."""
    bottom: BottomResult | None = None
    level_change: LevelChange | None = None
    next_banker: int | None = None
    ladder_points: tuple[int, int, int, int] | None = None
    failed_throws: tuple[int, int, int, int] = (0, 0, 0, 0)
    content_hash: str = ""
    """sha256 of the canonical hand line: detects a changed hand under the same key."""
    personas: tuple[SeatPersona, ...] = ()
    """Each seat's bot persona from the source's `_personas` field (`read_personas`); `()` when
    the source does not say."""

    def __init__(
        self,
        hand_id: str,
        source: str,
        status: Status,
        findings: tuple[Finding, ...],
        line: int | None,
        match_id: str | None = None,
        hand_no: int | None = None,
        played_at: str | None = None,
        rules: RuleSet | None = None,
        players: tuple[str, ...] = (),
        levels: tuple[int, int] | None = None,
        level: int | None = None,
        banker: int | None = None,
        trump: str | None = None,
        trump_source: TrumpSource | None = None,
        end: str = "complete",
        bids: tuple[BidRecord, ...] = (),
        dealt: tuple[Hand, ...] = (),
        banker_before_bury: Hand | None = None,
        start: tuple[Hand, ...] = (),
        bottom_dealt: tuple[Card, ...] = (),
        bottom_buried: tuple[Card, ...] = (),
        tricks: tuple[TrickRecord, ...] = (),
        attackers_points: int | None = None,
        bottom: BottomResult | None = None,
        level_change: LevelChange | None = None,
        next_banker: int | None = None,
        ladder_points: tuple[int, int, int, int] | None = None,
        failed_throws: tuple[int, int, int, int] = (0, 0, 0, 0),
        content_hash: str = "",
        personas: tuple[SeatPersona, ...] = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "hand_id", hand_id)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "findings", findings)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "match_id", match_id)
        object.__setattr__(self, "hand_no", hand_no)
        object.__setattr__(self, "played_at", played_at)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "banker", banker)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "trump_source", trump_source)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "bids", bids)
        object.__setattr__(self, "dealt", dealt)
        object.__setattr__(self, "banker_before_bury", banker_before_bury)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "bottom_dealt", bottom_dealt)
        object.__setattr__(self, "bottom_buried", bottom_buried)
        object.__setattr__(self, "tricks", tricks)
        object.__setattr__(self, "attackers_points", attackers_points)
        object.__setattr__(self, "bottom", bottom)
        object.__setattr__(self, "level_change", level_change)
        object.__setattr__(self, "next_banker", next_banker)
        object.__setattr__(self, "ladder_points", ladder_points)
        object.__setattr__(self, "failed_throws", failed_throws)
        object.__setattr__(self, "content_hash", content_hash)
        object.__setattr__(self, "personas", personas)


picklable(
    Finding,
    BidRecord,
    ThrowOutcome,
    PlayRecord,
    TrickRecord,
    BottomResult,
    LevelChange,
    SeatPersona,
    HandReplay,
)
