"""The bold style: throws on hope, trumps eagerly, shows early.

- Shows: as soon as a show would make a fifth of its cards trump; overturns any opponent.
- Bury: voids short side suits, points or not.
- Leads: often throws the high cards of a side suit (its aces, kings and queens, any pair of a
  jack or better) without counting what is out, so throws fail at a realistic rate; with a fair
  share of trumps it leads them; otherwise its biggest combination.
- Follows: feeds points to a partner who is winning, beats an opponent whenever it can (ruffing
  freely), and otherwise plays its cheapest cards.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ...cards import Card
from ...combos import suit_layout
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
    show_suit_share,
    suit_components,
    try_read,
)
from .careful import bury_by


class Bold(Bot):
    def choose_show(
        self, view: ShowView, options: Sequence[Cards], rng: random.Random
    ) -> Cards | None:
        standing = view.standing
        if standing is not None and standing[0] == view.partner:
            return None
        if standing is not None and standing[0] == view.seat:
            return None
        need = 0.33 if view.frying else 0.20 if standing is None else 0.30
        scored = [(show_suit_share(view.hand, o, view.level), len(o), o) for o in options]
        good = [s for s in scored if s[0] >= need and len(view.hand) >= 6]
        if not good or (view.frying and rng.random() > self.persona.aggression * 0.6):
            return None
        return max(good)[2]

    def choose_bury(self, view: BuryView, rng: random.Random) -> Cards:
        return bury_by(view, key_points=False, key_pairs=True)

    def choose_lead(self, view: PlayView, rng: random.Random) -> LeadChoice:
        hand, trump, rules = view.hand, view.trump, view.rules
        suits = lead_suits(hand, trump)
        if rng.random() < self.persona.aggression:
            throw = self._hopeful_throw(view, rng)
            if throw is not None:
                return throw
        if TRUMP in suits and suit_count(hand, trump, TRUMP) * 4 >= len(hand):
            comps = suit_components(hand, trump, rules, TRUMP)
            big = max(comps, key=lambda c: (c.size, c.top))
            if big.size >= 2 or rng.random() < self.persona.aggression * 0.5:
                return LeadChoice(big.cards())
        side = [s for s in suits if s != TRUMP] or suits
        comps = [c for s in side for c in suit_components(hand, trump, rules, s)]
        return LeadChoice(max(comps, key=lambda c: (c.size, c.top)).cards())

    def _hopeful_throw(self, view: PlayView, rng: random.Random) -> LeadChoice | None:
        """The high cards of a side suit thrown together, in the hope nobody holds better."""
        hand, trump, rules = view.hand, view.trump, view.rules
        best: tuple[int, list[Card]] | None = None
        # On a daring day a king counts as a winner too, although four aces are out there.
        single_reach = 1 if rng.random() < self.persona.aggression * 0.15 else 0
        for suit in lead_suits(hand, trump):
            if suit == TRUMP:
                continue
            top = len(suit_layout(trump, suit).at) - 1
            picked: list[Card] = []
            for face, n in units_in_suit(hand, trump, suit):
                # Aces, pairs from the king up, triples from the jack: likely winners, not sure ones.
                reach = (0, single_reach, 1, 3, 5)[min(n, 4)]
                if trump.pos[face] >= top - reach:
                    picked.extend([face] * n)
            if len({*picked}) >= 2 and (best is None or len(picked) > best[0]):
                best = (len(picked), picked)
        if best is None:
            return None
        cards = tuple(best[1])
        reading = try_read(cards, trump, rules)
        if reading is None or not reading.is_throw:
            return None
        split = tuple(c.cards() for c in reading.components) if rng.random() < 0.2 else None
        return LeadChoice(cards, split)

    def choose_follow(self, view: PlayView, options: Sequence[Option], rng: random.Random) -> Cards:
        current = self.verdict(view)
        if current.winner == view.partner:
            keep = [o for o in options if o.winner == view.partner]
            if keep:
                return max(keep, key=lambda o: (o.points, -o.cost)).cards
        winners = [o for o in options if o.wins]
        if winners and (current.points > 0 or rng.random() < self.persona.aggression):
            return min(winners, key=lambda o: (o.cost, -o.points)).cards
        return min(options, key=lambda o: (o.cost, o.points)).cards
