"""What a bot sees, what it may answer, and the machinery every style shares.

A bot never judges the rules itself. The table hands it only shows that are allowed; a bot builds
candidate leads from its hand's units and runs and reads them with `combos.read_lead`; it builds
candidate follows (highest or lowest exact shape, cheapest or richest fill, a ruff) and keeps only
those `follow.check_follow` accepts, falling back to `follow.random_legal_play`; it asks
`trick.trick_winner` (R6 as `resolve_trick`, without its reason) whether a candidate would take the trick. So whatever a style prefers, every
play it makes is legal.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ...bidding import read_show
from ...cards import Card, Hand, card_points, points_of
from ...combos import as_component, read_lead, suit_layout
from ...follow import check_follow, demand, random_legal_play
from ...pickling import picklable
from ...rules import RuleSet
from ...shape import Component, Reading
from ...throws import check_throw, lowest_beating
from ...trick import TrickVerdict, trick_winner
from ...trump import TRUMP, TrumpContext
from ..memory import Memory
from ..personas import Persona
from ..units import cheapness, held_in_suit, runs_in_suit, suit_count, units_in_suit

Cards = tuple[Card, ...]
T = TypeVar("T")

try:  # read by mypyc when it compiles this module; a no-op at run time
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure package needs nothing beyond the standard library

    def mypyc_attr(*args: object, **kwargs: object) -> Callable[[T], T]:  # type: ignore[misc]
        return lambda cls: cls


# --- what a bot sees ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShowView:
    """A chance to show during the deal (or to fry after the bury, `frying`)."""

    seat: int
    hand: Hand
    dealt: int
    """Cards dealt so far to all seats."""
    to_deal: int
    """Cards the deal hands out in all (216 - 8 with four decks)."""
    level: int
    banker: int | None
    standing: tuple[int, Cards] | None
    """The show that stands: (seat, cards)."""
    frying: bool = False

    @property
    def partner(self) -> int:
        return (self.seat + 2) % 4

    def __init__(
        self,
        seat: int,
        hand: Hand,
        dealt: int,
        to_deal: int,
        level: int,
        banker: int | None,
        standing: tuple[int, Cards] | None,
        frying: bool = False,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "dealt", dealt)
        object.__setattr__(self, "to_deal", to_deal)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "banker", banker)
        object.__setattr__(self, "standing", standing)
        object.__setattr__(self, "frying", frying)


@dataclass(frozen=True, slots=True)
class BuryView:
    seat: int
    hand: Hand
    """The holding with the bottom taken in."""
    trump: TrumpContext
    rules: RuleSet
    count: int = 8

    def __init__(
        self,
        seat: int,
        hand: Hand,
        trump: TrumpContext,
        rules: RuleSet,
        count: int = 8,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "count", count)


@dataclass(frozen=True, slots=True)
class PlayView:
    """A turn in a trick: the lead is None when this seat leads."""

    seat: int
    hand: Hand
    trump: TrumpContext
    rules: RuleSet
    banker: int
    trick: int
    memory: Memory
    buried: Cards
    """The bottom this seat buried, if it did (it knows where those cards are)."""
    attackers_points: int
    lead: Reading | None = None
    plays: tuple[tuple[int, Cards], ...] = ()
    voids: tuple[bool, ...] = ()

    @property
    def partner(self) -> int:
        return (self.seat + 2) % 4

    @property
    def banker_side(self) -> bool:
        return self.seat % 2 == self.banker % 2

    def unseen(self) -> Hand:
        """Every card this seat cannot see: in other hands, or in a bottom it did not bury."""
        return self.memory.unseen(self.hand, self.buried)

    def still_to_play(self) -> list[int]:
        """Seats that play after this one in the current trick."""
        left = 3 - len(self.plays) if self.lead is not None else 3
        return [(self.seat + k) % 4 for k in range(1, left + 1)]

    @property
    def last_trick(self) -> bool:
        """Every card this seat holds goes into this trick: whoever wins it takes the bottom."""
        return self.lead is not None and len(self.hand) == self.lead.size

    def __init__(
        self,
        seat: int,
        hand: Hand,
        trump: TrumpContext,
        rules: RuleSet,
        banker: int,
        trick: int,
        memory: Memory,
        buried: Cards,
        attackers_points: int,
        lead: Reading | None = None,
        plays: tuple[tuple[int, Cards], ...] = (),
        voids: tuple[bool, ...] = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "banker", banker)
        object.__setattr__(self, "trick", trick)
        object.__setattr__(self, "memory", memory)
        object.__setattr__(self, "buried", buried)
        object.__setattr__(self, "attackers_points", attackers_points)
        object.__setattr__(self, "lead", lead)
        object.__setattr__(self, "plays", plays)
        object.__setattr__(self, "voids", voids)


@dataclass(frozen=True, slots=True)
class LeadChoice:
    cards: Cards
    split: tuple[Cards, ...] | None = None

    def __init__(
        self,
        cards: Cards,
        split: tuple[Cards, ...] | None = None,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "split", split)


@dataclass(frozen=True, slots=True)
class Option:
    """A legal follow and what it would do to the trick."""

    cards: Cards
    wins: bool
    winner: int
    points: int
    cost: int

    def __init__(
        self,
        cards: Cards,
        wins: bool,
        winner: int,
        points: int,
        cost: int,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "wins", wins)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "cost", cost)


# --- reading one's own hand -----------------------------------------------------------------------


def suit_components(hand: Hand, trump: TrumpContext, rules: RuleSet, suit: int) -> list[Component]:
    """The units (each face at the copies held) and runs of one suit the hand could lead."""
    comps: list[Component] = []
    for face, n in units_in_suit(hand, trump, suit):
        comps.append(Component(min(n, rules.max_width), (face,), trump.pos[face]))
    for run in runs_in_suit(hand, trump, suit, rules.max_width):
        comp = as_component(run.cards(), trump, rules)
        if comp is not None:
            comps.append(comp)
    return comps


def lead_suits(hand: Hand, trump: TrumpContext) -> list[int]:
    return [s for s in range(TRUMP + 1) if suit_count(hand, trump, s)]


def sure_of(comp: Component, unseen: Hand, suit: int, trump: TrumpContext, rules: RuleSet) -> bool:
    """No card this seat cannot see could beat `comp` in its own suit (R4.3's test)."""
    return lowest_beating(comp, unseen, suit, trump, rules) is None


def throw_is_safe(
    reading: Reading, seat: int, unseen: Hand, trump: TrumpContext, rules: RuleSet
) -> bool:
    """The worst case: every unseen card in one opponent's hand. If `check_throw` lets the throw
    stand then, no deal of the unseen cards can block it."""
    holdings = [Hand.empty()] * 4
    holdings[(seat + 1) % 4] = unseen
    return not check_throw(reading, seat, holdings, trump, rules).failed


def proven_throw(
    view: PlayView, suit: int, unseen: Hand, *, state_split: bool = False
) -> LeadChoice | None:
    """Every unit of `suit` that no card of `unseen` beats, thrown together when that makes a
    throw and `throw_is_safe` lets it stand against `unseen`; the R4.2 split stated if asked."""
    hand, trump, rules = view.hand, view.trump, view.rules
    units = sorted(units_in_suit(hand, trump, suit), key=lambda u: -trump.pos[u[0]])
    picked: list[Card] = []
    for face, n in units:
        comp = Component(min(n, rules.max_width), (face,), trump.pos[face])
        if sure_of(comp, unseen, suit, trump, rules):
            picked.extend([face] * n)
    if len(units) < 2 or len(picked) < 2:
        return None
    reading = try_read(tuple(picked), trump, rules)
    if reading is None or not reading.is_throw:
        return None
    if not throw_is_safe(reading, view.seat, unseen, trump, rules):
        return None
    split = tuple(c.cards() for c in reading.components) if state_split else None
    return LeadChoice(tuple(picked), split)


def try_read(cards: Cards, trump: TrumpContext, rules: RuleSet) -> Reading | None:
    try:
        return read_lead(cards, trump, rules)
    except ValueError:
        return None


# --- building follows -----------------------------------------------------------------------------

Pick = Callable[[int, tuple[Card, ...]], tuple[int, ...]]
"""Ranks a placement (top, faces): the smallest key is taken."""


def _place(
    counts: list[int],
    trump: TrumpContext,
    suit: int,
    width: int,
    length: int,
    floor: int,
    key: Pick,
) -> tuple[int, tuple[Card, ...]] | None:
    at = suit_layout(trump, suit).at
    # The face each position would give does not depend on the placement: the first of its
    # faces held `width` times with the fewest copies (-1: none). A placement is then a window
    # of `length` positions that all give one.
    picks: list[int] = []
    for faces_at in at:
        face = -1
        for f in faces_at:
            if counts[f] >= width and (face < 0 or counts[f] < counts[face]):
                face = f
        picks.append(face)
    best: tuple[int, tuple[Card, ...]] | None = None
    best_key: tuple[int, ...] | None = None
    run = 0  # positions in a row up to `top` that give a face
    start = max(length - 1, floor + 1)
    for top in range(len(at)):
        run = run + 1 if picks[top] >= 0 else 0
        if top < start or run < length:
            continue
        faces = tuple(picks[top - length + 1 : top + 1])
        k = key(top, faces)
        if best_key is None or k < best_key:
            best, best_key = (top, faces), k
    return best


def shaped(
    hand: Hand,
    lead: Reading,
    trump: TrumpContext,
    rules: RuleSet,
    suit: int,
    key: Pick,
    floors: Sequence[int] | None = None,
) -> Cards | None:
    """Cards of `suit` in the lead's exact shape, each component picked by `key` (and above its
    floor), or None when the hand lacks the shape."""
    counts = list(hand.counts)
    out: list[Card] = []
    for i, comp in enumerate(lead.components):
        floor = floors[i] if floors is not None else -99
        got = _place(counts, trump, suit, comp.width, comp.length, floor, key)
        if got is None:
            return None
        for f in got[1]:
            counts[f] -= comp.width
            out.extend([f] * comp.width)
    return tuple(out)


def high_key(top: int, faces: tuple[Card, ...]) -> tuple[int, ...]:
    return (-top,)


def low_key(top: int, faces: tuple[Card, ...]) -> tuple[int, ...]:
    return (sum(card_points(f) for f in faces), top)


def rich_key(top: int, faces: tuple[Card, ...]) -> tuple[int, ...]:
    return (-sum(card_points(f) for f in faces), top)


def card_cost(card: Card, trump: TrumpContext) -> int:
    """What giving a card away costs its owner: trumps dear, high cards dearer than low."""
    return trump.pos[card] + (20 if trump.eff[card] == TRUMP else 0)


# Compiled, the styles' base class still takes subclasses written in Python (bold, novice, and
# bots of tests and benchmarks).
@mypyc_attr(allow_interpreted_subclasses=True)
class Bot:
    """A player at the table. Styles override the `choose_*` policies; the helpers are shared."""

    def __init__(self, persona: Persona) -> None:
        self.persona = persona

    # -- policies (styles override) ------------------------------------------------------------

    def choose_show(
        self, view: ShowView, options: Sequence[Cards], rng: random.Random
    ) -> Cards | None:
        raise NotImplementedError

    def choose_bury(self, view: BuryView, rng: random.Random) -> Cards:
        raise NotImplementedError

    def choose_lead(self, view: PlayView, rng: random.Random) -> LeadChoice:
        raise NotImplementedError

    def choose_follow(self, view: PlayView, options: Sequence[Option], rng: random.Random) -> Cards:
        raise NotImplementedError

    def name_trump(self, view: ShowView, cards: Cards) -> str | None:
        """The trump a four-joker show names (None: no-trump, written as no field)."""
        return None

    # -- entry points the table calls ---------------------------------------------------------------

    def lead(self, view: PlayView, rng: random.Random) -> LeadChoice:
        if rng.random() < self.persona.blunder:
            return self.random_lead(view, rng)
        return self.choose_lead(view, rng)

    def follow(self, view: PlayView, rng: random.Random) -> Cards:
        lead = view.lead
        assert lead is not None
        if rng.random() < self.persona.blunder:
            return random_legal_play(lead, view.hand, view.trump, view.rules, rng)
        options = self.follow_options(view, rng)
        return self.choose_follow(view, options, rng)

    # -- shared helpers ----------------------------------------------------------------------------

    def random_lead(self, view: PlayView, rng: random.Random) -> LeadChoice:
        suit = rng.choice(lead_suits(view.hand, view.trump))
        comps = suit_components(view.hand, view.trump, view.rules, suit)
        return LeadChoice(rng.choice(comps).cards())

    def verdict(self, view: PlayView) -> TrickVerdict:
        assert view.lead is not None
        # Without the reason text (`trick_winner`): the same verdict, and bots never read it.
        return trick_winner(view.lead, view.plays, view.voids, view.trump, view.rules)

    def follow_candidates(self, view: PlayView, current: TrickVerdict) -> list[Cards]:
        """Sensible answers to the lead (not yet checked): exact shapes high, low, just beating
        and rich in points; the demanded rung filled cheaply, richly or high; ruffs."""
        lead = view.lead
        assert lead is not None
        hand, trump, rules = view.hand, view.trump, view.rules
        n, suit = lead.size, lead.suit
        mine = held_in_suit(hand, trump, suit)
        out: list[Cards] = []
        if len(mine) <= n:
            if len(mine) == n:
                return [tuple(mine)]
            others = [c for c in hand if trump.eff[c] != suit]
            need = n - len(mine)
            by_cheap = sorted(others, key=lambda c: cheapness(c, trump))
            out.append(tuple(mine) + tuple(by_cheap[:need]))
            side = [c for c in by_cheap if trump.eff[c] != TRUMP]
            rich = sorted(side, key=lambda c: (-card_points(c), trump.pos[c]))
            if len(rich) >= need:
                out.append(tuple(mine) + tuple(rich[:need]))
            if not mine and suit != TRUMP:
                floors = self._floors(current, lead, view, ruff=True)
                for key in (low_key, high_key, rich_key):
                    got = shaped(hand, lead, trump, rules, TRUMP, key, floors)
                    if got is not None:
                        out.append(got)
                got = shaped(hand, lead, trump, rules, TRUMP, low_key)
                if got is not None:
                    out.append(got)
            return out
        floors = self._floors(current, lead, view, ruff=False)
        for key in (high_key, low_key, rich_key):
            got = shaped(hand, lead, trump, rules, suit, key)
            if got is not None:
                out.append(got)
        if floors is not None:
            got = shaped(hand, lead, trump, rules, suit, low_key, floors)
            if got is not None:
                out.append(got)
        demanded = demand(lead, hand, trump, rules)
        base = list(demanded.witness) if demanded is not None else []
        rest = list(Hand.of(mine).remove(base)) if base else list(mine)
        missing = n - len(base)
        if missing >= 0:
            fills = (
                sorted(rest, key=lambda c: cheapness(c, trump)),
                sorted(rest, key=lambda c: (-card_points(c), trump.pos[c])),
                sorted(rest, key=lambda c: -trump.pos[c]),
            )
            for fill in fills:
                out.append(tuple(base) + tuple(fill[:missing]))
        return out

    @staticmethod
    def _floors(
        current: TrickVerdict, lead: Reading, view: PlayView, *, ruff: bool
    ) -> list[int] | None:
        """Tops a play must exceed to beat the current winner; None when its class cannot."""
        win_cards = view.plays[current.winner_index][1]
        trump = view.trump
        winner_trumps = lead.suit != TRUMP and all(trump.eff[c] == TRUMP for c in win_cards)
        if ruff and not winner_trumps:
            return None  # any matching ruff beats a side-suit winner
        if not ruff and winner_trumps:
            return None
        if len(current.winning) != len(lead.components):
            return None
        return [c.top for c in current.winning]

    def follow_options(self, view: PlayView, rng: random.Random) -> list[Option]:
        """The candidate follows that are legal, each with what it would do to the trick."""
        lead = view.lead
        assert lead is not None
        hand, trump, rules = view.hand, view.trump, view.rules
        current = self.verdict(view)
        seen: set[Cards] = set()
        options: list[Option] = []
        held = suit_count(hand, trump, lead.suit)
        void = held == 0
        # Candidates short of the suit hold all of it (R5.2), and any card of the suit answers a
        # single (R5.3): those need no check.
        plain = held <= lead.size or lead.size == 1
        for cand in self.follow_candidates(view, current):
            key = tuple(sorted(cand))
            if key in seen or len(key) != lead.size:
                continue
            seen.add(key)
            if not plain and not check_follow(lead, hand, key, trump, rules).legal:
                continue
            options.append(self._option(view, key, void, current))
        if not options:
            play = random_legal_play(lead, hand, trump, rules, rng)
            options.append(self._option(view, play, void, current))
        return options

    def _option(
        self, view: PlayView, cards: Cards, void: bool, before: TrickVerdict | None = None
    ) -> Option:
        assert view.lead is not None
        plays = (*view.plays, (view.seat, cards))
        # R6 compares each play with the winner so far: given the verdict on the plays before
        # (`before`), only this one is compared with it.
        verdict = trick_winner(
            view.lead, plays, (*view.voids, void), view.trump, view.rules, before
        )
        cost = sum(card_cost(c, view.trump) for c in cards)
        return Option(cards, verdict.winner == view.seat, verdict.winner, points_of(cards), cost)


def show_suit_share(hand: Hand, cards: Cards, level: int) -> float:
    """Share of the hand that would be trump if `cards` named trump: the suit, level cards, jokers."""
    reading = read_show(cards, level)
    total = len(hand)
    if reading is None or total == 0:
        return 0.0
    counts = hand.counts
    trumps = counts[52] + counts[53] + sum(counts[s * 13 + level - 2] for s in range(4))
    if reading.trump != "NT":
        s = "SHCD".index(reading.trump)
        trumps += sum(counts[s * 13 + r - 2] for r in range(2, 15) if r != level)
    return trumps / total


picklable(ShowView, BuryView, PlayView, LeadChoice, Option)
