"""The careful style: counts every card, throws only what public information proves safe.

- Shows: waits until a fair part of its hand is dealt, then shows a suit that would make at least
  three tenths of its cards trump; overturns opponents only, and reinforces its own show.
- Bury: low side cards without points, short suits first so they become voids; never points or
  trumps while other cards remain.
- Leads: a throw only when `check_throw` lets it stand against the worst case (every unseen card
  in one opponent's hand) — unless it lapses (at 0.4 times its blunder rate) and forgets that the
  best card still out in the suit is out; otherwise a sure winner in a side suit nobody is known to ruff; on the
  banker side with long trumps it draws trumps; an attacker keeps its biggest trump combination
  for the last trick (the bottom's multiplier grows with the last lead's largest component);
  else a low card from a suit its partner can ruff, or its biggest side-suit combination.
- Follows: feeds points to a partner whose win is safe, takes an opponent's trick that holds
  points (or when it plays last) as cheaply as possible, and otherwise gives the least; in the
  last trick it fights for the bottom at any cost.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

from ...cards import Card, Hand, card_points
from ...combos import suit_layout
from ...shape import Component
from ...trump import TRUMP
from ..units import suit_count, units_in_suit
from .base import (
    Bot,
    BuryView,
    Cards,
    LeadChoice,
    Option,
    PlayView,
    ShowView,
    lead_suits,
    proven_throw,
    show_suit_share,
    suit_components,
    sure_of,
    throw_is_safe,
    try_read,
)

T = TypeVar("T")

try:  # read by mypyc when it compiles this module; a no-op at run time
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure package needs nothing beyond the standard library

    def mypyc_attr(*args: object, **kwargs: object) -> Callable[[T], T]:  # type: ignore[misc]
        return lambda cls: cls


def bury_by(view: BuryView, key_points: bool, key_pairs: bool) -> Cards:
    """The 8 cards to bury: side suits before trumps, then (optionally) no points before points,
    singles before pairs, short suits before long, low before high."""
    hand, trump = view.hand, view.trump
    counts = hand.counts
    length = [suit_count(hand, trump, s) for s in range(TRUMP + 1)]
    top = [len(suit_layout(trump, s).at) - 1 for s in range(TRUMP)] + [99]

    def key(card: Card) -> tuple[int, ...]:
        suit = trump.eff[card]
        return (
            1 if suit == TRUMP else 0,
            card_points(card) if key_points else 0,
            1 if key_pairs and counts[card] >= 2 else 0,
            1 if key_points and trump.pos[card] >= top[suit] else 0,
            length[suit],
            trump.pos[card],
            card,
        )

    return tuple(sorted(hand, key=key)[: view.count])


def _forget_top(unseen: Hand, suit: int, view: PlayView) -> Hand:
    """A lapse of counting: one copy of the best card still out in `suit` believed played."""
    faces = [f for f in range(54) if view.trump.eff[f] == suit and unseen.counts[f]]
    if not faces:
        return unseen
    return unseen.remove([max(faces, key=lambda f: view.trump.pos[f])])


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled, it takes Python subclasses
class Careful(Bot):
    def choose_show(
        self, view: ShowView, options: Sequence[Cards], rng: random.Random
    ) -> Cards | None:
        if view.standing is not None and view.standing[0] == view.partner:
            return None
        held = len(view.hand)
        if not view.frying and view.dealt < view.to_deal * 0.4:
            return None
        scored = [(show_suit_share(view.hand, o, view.level), len(o), o) for o in options]
        if view.standing is not None and view.standing[0] == view.seat:
            # Reinforce: the same face, more copies, so nobody can overturn cheaply.
            more = [o for _, _, o in scored if o[0] == view.standing[1][0]]
            return max(more, key=len) if more and rng.random() < 0.5 else None
        if view.frying:
            need = 0.42
        elif view.standing is not None:
            need = 0.34
        else:
            need = 0.30 - 0.05 * (view.dealt >= view.to_deal)
        good = [s for s in scored if s[0] >= need and held >= 10]
        if not good:
            return None
        return max(good)[2]

    def name_trump(self, view: ShowView, cards: Cards) -> str | None:
        counts = view.hand.counts
        lengths = [sum(counts[s * 13 : s * 13 + 13]) for s in range(4)]
        best = max(range(4), key=lambda s: lengths[s])
        return "SHCD"[best] if lengths[best] * 4 > len(view.hand) * 1.4 else None

    def choose_bury(self, view: BuryView, rng: random.Random) -> Cards:
        return bury_by(view, key_points=True, key_pairs=True)

    # -- leading ---------------------------------------------------------------------------------

    def choose_lead(self, view: PlayView, rng: random.Random) -> LeadChoice:
        hand, trump, rules = view.hand, view.trump, view.rules
        unseen = view.unseen()
        suits = lead_suits(hand, trump)
        opponents = ((view.seat + 1) % 4, (view.seat + 3) % 4)
        unseen_trumps = suit_count(unseen, trump, TRUMP)

        def ruffable(suit: int) -> bool:
            return (
                suit != TRUMP
                and unseen_trumps > 0
                and any(view.memory.is_void(o, suit) for o in opponents)
            )

        if len(suits) == 1:
            # Everything left is one suit: lead all of it if it stands, else its biggest piece.
            whole = tuple(hand)
            reading = try_read(whole, trump, rules)
            if reading is not None and throw_is_safe(reading, view.seat, unseen, trump, rules):
                return LeadChoice(whole)
        keep = self._kept_for_last(view)
        lapse = rng.random() < 0.4 * self.persona.blunder
        for suit in suits:
            if ruffable(suit):
                continue
            counted = _forget_top(unseen, suit, view) if lapse else unseen
            throw = proven_throw(view, suit, counted, state_split=len(view.hand) % 3 == 0)
            if throw is not None:
                return throw
        sure: list[Component] = []
        for suit in suits:
            if suit == TRUMP or ruffable(suit):
                continue
            sure.extend(
                c
                for c in suit_components(hand, trump, rules, suit)
                if sure_of(c, unseen, suit, trump, rules)
            )
        if sure:
            best = max(sure, key=lambda c: (c.size, sum(card_points(f) for f in c.faces), c.top))
            return LeadChoice(best.cards())
        trumps = suit_count(hand, trump, TRUMP)
        if view.banker_side and unseen_trumps and trumps * 3 >= len(hand):
            comps = [c for c in suit_components(hand, trump, rules, TRUMP) if c.cards() != keep]
            if comps:
                best = max(comps, key=lambda c: (c.size, c.top))
                if best.size >= 2 or sure_of(best, unseen, TRUMP, trump, rules):
                    return LeadChoice(best.cards())
        partner = view.partner
        for suit in suits:
            if (
                suit != TRUMP
                and view.memory.is_void(partner, suit)
                and not any(view.memory.is_void(o, suit) for o in opponents)
            ):
                low = min(units_in_suit(hand, trump, suit), key=lambda u: trump.pos[u[0]])
                return LeadChoice((low[0],))
        return LeadChoice(self._plain_lead(view, keep))

    def _kept_for_last(self, view: PlayView) -> Cards:
        """Trumps saved for the last trick while other cards remain: an attacker's biggest trump
        combination (it sets the bottom's multiplier), the banker side's highest trump (whoever
        holds the best trump at the end takes the last trick and the bottom)."""
        comps = suit_components(view.hand, view.trump, view.rules, TRUMP)
        if not comps:
            return ()
        if view.banker_side:
            top = max(comps, key=lambda c: (c.top, c.size))
            return top.cards() if top.size < len(view.hand) else ()
        best = max(comps, key=lambda c: (c.size, c.top))
        if best.size < 2 or best.size >= len(view.hand):
            return ()
        return best.cards()

    def _plain_lead(self, view: PlayView, keep: Cards) -> Cards:
        """Nothing sure to lead: the biggest combination of a side suit (a pair or tractor makes
        the others break theirs), trumps only when no side suit is left."""
        hand, trump, rules = view.hand, view.trump, view.rules
        suits = lead_suits(hand, trump)
        side = [s for s in suits if s != TRUMP] or suits
        comps = [
            c for s in side for c in suit_components(hand, trump, rules, s) if c.cards() != keep
        ]
        if not comps:
            comps = [c for s in suits for c in suit_components(hand, trump, rules, s)]
        return max(comps, key=lambda c: (c.size, c.top)).cards()

    # -- following -------------------------------------------------------------------------------

    def choose_follow(self, view: PlayView, options: Sequence[Option], rng: random.Random) -> Cards:
        current = self.verdict(view)
        on_table = current.points
        rest = view.still_to_play()
        partner_wins = current.winner == view.partner
        if view.last_trick:
            winners = [o for o in options if o.wins or o.winner == view.partner]
            if winners:
                return min(winners, key=lambda o: (o.cost, -o.points)).cards
        if partner_wins and self._partner_safe(view, rest):
            keep = [o for o in options if o.winner == view.partner]
            if keep:
                return max(keep, key=lambda o: (o.points, -o.cost)).cards
        winners = [o for o in options if o.wins]
        if winners and not partner_wins:
            best = min(winners, key=lambda o: (o.cost, -o.points))
            if not rest or on_table + best.points > 0:
                return best.cards
        return min(options, key=lambda o: (o.points, o.cost)).cards

    def _partner_safe(self, view: PlayView, rest: list[int]) -> bool:
        """The partner's winning play cannot be beaten by anyone still to play, as far as the
        unseen cards tell."""
        opponents = [s for s in rest if s % 2 != view.seat % 2]
        if not opponents:
            return True
        lead = view.lead
        assert lead is not None
        trump, rules = view.trump, view.rules
        current = self.verdict(view)
        unseen = view.unseen()
        winning = view.plays[current.winner_index][1]
        in_trump = all(trump.eff[c] == TRUMP for c in winning)
        if (
            lead.suit != TRUMP
            and not in_trump
            and any(view.memory.is_void(o, lead.suit) for o in opponents)
        ):
            return False
        suit = TRUMP if in_trump else lead.suit
        return all(sure_of(c, unseen, suit, trump, rules) for c in current.winning)
