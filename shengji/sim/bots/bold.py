"""The bold style: throws on hope, trumps eagerly, shows early.

- Shows: as soon as a show would make a fifth of its cards trump; overturns any opponent.
- Bury: voids short side suits, points or not.
- Leads: throws on hope (on half its aggression): it reasons like a counter but believes each
  card still out is gone with a chance of 0.1 + 0.2 × aggression, so its throws fail at a
  realistic rate; with a fair share of trumps it leads them; otherwise its biggest combination.
- Follows: feeds points to a partner who is winning, beats an opponent whenever it can (ruffing
  freely), and otherwise plays its cheapest cards.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ...cards import Hand
from ...trump import TRUMP
from ..units import suit_count
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
        if rng.random() < self.persona.aggression * 0.5:
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
        """A throw made on hope: the bot reasons like a counter but treats each card still out
        as gone with a chance that grows with its aggression, so it throws cards that others
        can often still beat."""
        hand, trump = view.hand, view.trump
        hope = 0.1 + 0.2 * self.persona.aggression
        unseen = view.unseen()
        believed = Hand(tuple(sum(rng.random() >= hope for _ in range(n)) for n in unseen.counts))
        best: LeadChoice | None = None
        for suit in lead_suits(hand, trump):
            if suit == TRUMP:
                continue
            throw = proven_throw(view, suit, believed, state_split=rng.random() < 0.2)
            if throw is not None and (best is None or len(throw.cards) > len(best.cards)):
                best = throw
        return best

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
