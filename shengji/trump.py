"""Trump context: which cards are trump, each card's effective suit and its place in that suit (R2).

A card's effective suit and rank are derived from the context, never stored on the card. Each
effective suit is a ladder of positions 0, 1, 2, … from low to high; cards of equal strength share
a position (the off-suit level cards), and two faces are consecutive for a tractor exactly when
their positions differ by one (R3.2). The A of a plain rank run may also sit one below the lowest
rank (R3.3, `ace_low_tractor`): that alternative position is `low_pos`.

Without `level_tractors` (the Botzone judge's tractors, docs/rules.md "Engine presets") the trump
ladder keeps its order but leaves an empty position between the plain trumps, the off-suit level
cards, the trump-suit level card and the jokers, so that no tractor climbs from one to the next;
the two jokers stay adjacent (SJ SJ BJ BJ is the one tractor there).

The 2023 Botzone judge orders plain ranks 3 … K A 2 (`two_above_ace`, its `pointorder`) and puts
the trump suit's A lowest in strength (`trump_ace_low`, its `setMajor`); a tractor still needs
faces adjacent in the plain order, so the trump ladder leaves a gap wherever strength neighbours
are not neighbours there (docs/rules.md, "The 2023 Botzone judge").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final

from .cards import (
    BIG_JOKER,
    SMALL_JOKER,
    SUIT_SYMBOLS,
    SUITS,
    Card,
    CardError,
    card_rank,
    card_suit,
    parse_rank,
    rank_token,
)
from .pickling import picklable

if TYPE_CHECKING:
    from .rules import RuleSet

TRUMP: Final = 4
"""The effective-suit index of all trumps; suits 0..3 are S H C D."""
NO_LOW: Final = -99
SUIT_NAMES: Final = ("S", "H", "C", "D", "trump")


@dataclass(frozen=True, slots=True)
class TrumpContext:
    """A hand's trump: the trump suit (None for no-trump, 无主) and the level rank."""

    suit: int | None
    level: int
    eff: tuple[int, ...]
    pos: tuple[int, ...]
    low_pos: tuple[int, ...]
    level_tractors: bool = True
    trump_ace_low: bool = False
    two_above_ace: bool = False

    def is_trump(self, card: Card) -> bool:
        return self.eff[card] == TRUMP

    def suit_token(self) -> str:
        """`S H C D` or `NT`, as in FORMAT.md's `claimed.trump`."""
        return "NT" if self.suit is None else SUITS[self.suit]

    def describe(self) -> str:
        trump = "no-trump" if self.suit is None else f"trump {SUIT_SYMBOLS[self.suit]}"
        return f"{trump}, level {rank_token(self.level)}"

    def sort_key(self, card: Card) -> tuple[int, int, int]:
        """Display order: by effective suit, then strength, then face."""
        return (self.eff[card], self.pos[card], card)

    def top_position(self, suit: int) -> int:
        """The highest position of an effective suit's ladder."""
        return max(p for c, p in enumerate(self.pos) if self.eff[c] == suit)

    def __init__(
        self,
        suit: int | None,
        level: int,
        eff: tuple[int, ...],
        pos: tuple[int, ...],
        low_pos: tuple[int, ...],
        level_tractors: bool = True,
        trump_ace_low: bool = False,
        two_above_ace: bool = False,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "eff", eff)
        object.__setattr__(self, "pos", pos)
        object.__setattr__(self, "low_pos", low_pos)
        object.__setattr__(self, "level_tractors", level_tractors)
        object.__setattr__(self, "trump_ace_low", trump_ace_low)
        object.__setattr__(self, "two_above_ace", two_above_ace)

    @property
    def key(self) -> tuple[int | None, int, bool, bool, bool]:
        """What a context is determined by, for keying caches of anything built from it."""
        return (self.suit, self.level, self.level_tractors, self.trump_ace_low, self.two_above_ace)


def _plain_order(level: int, two_above_ace: bool) -> list[int]:
    """The plain ranks, low to high, the level rank removed: 2 … A, or with `two_above_ace` (the
    2023 Botzone judge's `pointorder`) 3 … K A 2."""
    ranks = [*range(3, 15), 2] if two_above_ace else list(range(2, 15))
    return [r for r in ranks if r != level]


def _build(
    suit: int | None,
    level: int,
    level_tractors: bool = True,
    trump_ace_low: bool = False,
    two_above_ace: bool = False,
) -> TrumpContext:
    eff = [0] * 54
    pos = [0] * 54
    low = [NO_LOW] * 54
    plain_ranks = _plain_order(level, two_above_ace)
    rank_pos = {r: i for i, r in enumerate(plain_ranks)}
    trump_pos = rank_pos
    if trump_ace_low and suit is not None:
        # The trump suit's strength puts the A lowest (2023 Botzone `setMajor`), while a tractor
        # still needs faces adjacent in the plain order: a gap is left between two trump ranks
        # that are neighbours in strength but not in that order.
        strength = [14, *(r for r in range(2, 14))]
        trump_pos = {}
        at = -1
        previous = -1
        for r in (r for r in strength if r != level):
            adjacent = previous >= 0 and rank_pos[r] == rank_pos[previous] + 1
            at += 1 if adjacent or previous < 0 else 2
            trump_pos[r] = at
            previous = r
    top_plain = max(trump_pos.values())
    for card in range(52):
        s, r = card_suit(card), card_rank(card)
        if r == level:
            eff[card] = TRUMP
            if suit is None:
                pos[card] = 0
            else:
                pos[card] = top_plain + (2 if s == suit else 1)
        else:
            eff[card] = TRUMP if s == suit else s
            pos[card] = trump_pos[r] if s == suit else rank_pos[r]
            if r == 14:
                low[card] = -1
    if suit is None:
        pos[SMALL_JOKER], pos[BIG_JOKER] = 1, 2
    else:
        pos[SMALL_JOKER], pos[BIG_JOKER] = top_plain + 3, top_plain + 4
    eff[SMALL_JOKER] = eff[BIG_JOKER] = TRUMP
    if not level_tractors:
        # One empty position above the plain trumps and above each level-card place: the order
        # stays, the steps between them are no longer consecutive.
        if suit is None:  # the level cards, then the jokers
            spread = {0: 0, 1: 2, 2: 3}
        else:  # above the plain trumps: off-suit level, trump-suit level, SJ, BJ
            t = top_plain
            spread = {t + 1: t + 2, t + 2: t + 4, t + 3: t + 6, t + 4: t + 7}
        for card in range(54):
            if eff[card] == TRUMP and (card >= 52 or card_rank(card) == level):
                pos[card] = spread[pos[card]]
    return TrumpContext(
        suit,
        level,
        tuple(eff),
        tuple(pos),
        tuple(low),
        level_tractors,
        trump_ace_low and suit is not None,
        two_above_ace,
    )


@cache
def trump_context(
    suit: int | None,
    level: int,
    level_tractors: bool = True,
    trump_ace_low: bool = False,
    two_above_ace: bool = False,
) -> TrumpContext:
    """The context of a trump suit (None: no-trump) and level; `level_tractors` false gives the
    Botzone ladder, `trump_ace_low` and `two_above_ace` the 2023 Botzone judge's orders (module
    docstring)."""
    if not 2 <= level <= 14:
        raise CardError(f"no level rank {level}")
    if suit is not None and not 0 <= suit <= 3:
        raise CardError(f"no suit {suit}")
    return _build(suit, level, level_tractors, trump_ace_low, two_above_ace)


def parse_trump(
    trump: str,
    level: str | int,
    level_tractors: bool = True,
    trump_ace_low: bool = False,
    two_above_ace: bool = False,
) -> TrumpContext:
    """A context from `S H C D NT` and a level rank token (`2`…`9`, `T`/`10`, `J`, `Q`, `K`, `A`)."""
    level_value = level if isinstance(level, int) else parse_rank(level)
    token = trump.strip().upper()
    if token == "NT":
        return trump_context(None, level_value, level_tractors, False, two_above_ace)
    if len(token) != 1 or token not in SUITS:
        raise CardError(f"unknown trump {trump!r} (expected S, H, C, D or NT)")
    return trump_context(
        SUITS.index(token), level_value, level_tractors, trump_ace_low, two_above_ace
    )


def ladder_options(rules: RuleSet) -> tuple[bool, bool, bool]:
    """The rule options a trump context depends on, in `trump_context`'s order."""
    return (rules.level_tractors, rules.trump_ace_low, rules.two_above_ace)


def rules_trump(trump: str, level: str | int, rules: RuleSet) -> TrumpContext:
    """`parse_trump` under a rule set's ladder options."""
    return parse_trump(trump, level, *ladder_options(rules))


picklable(TrumpContext)
