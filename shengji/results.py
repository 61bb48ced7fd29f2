"""What a replay yields: immutable records a viewer, the audit and the store use directly.

These types are the contract between the replay engine (`shengji.replay`) and everything above it
(`ingest`, `analytics`, `dashboard`). Tricks and seats count the way people do in reports: tricks
from 1, seats 0..3, source lines from 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .cards import Card, Hand
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


@dataclass(frozen=True, slots=True)
class ThrowOutcome:
    """A lead with several components (R4): whether it failed, and what was played instead."""

    failed: bool
    attempted: tuple[Card, ...]
    forced: tuple[Card, ...] | None
    blocker: int | None
    blocking_component: tuple[Card, ...] | None = None
    """The blocker's cards that beat the forced component (None when the throw stood)."""


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


@dataclass(frozen=True, slots=True)
class LevelChange:
    """R7.3: `team` (0 = seats 0+2, 1 = seats 1+3) goes up `levels`; `banker_won`: the banker team held."""

    team: int
    levels: int
    banker_won: bool


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
