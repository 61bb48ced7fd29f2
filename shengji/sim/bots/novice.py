"""The novice style: legal but naive.

- Shows: now and then, whenever it holds a level card, without weighing its suit; may overturn
  its own partner.
- Bury: its lowest-ranked cards, points and trumps included.
- Leads: a suit at random, usually its highest card there; sometimes a naive throw of a few
  singles that others can often beat.
- Follows: follows the lead without counting: usually its cheapest legal answer, sometimes
  whatever comes to hand, and it wins a trick mostly by accident.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ...trump import TRUMP
from ..units import units_in_suit
from .base import (
    Bot,
    BuryView,
    Cards,
    LeadChoice,
    Option,
    PlayView,
    ShowView,
    lead_suits,
    suit_components,
    try_read,
)


class Novice(Bot):
    def choose_show(
        self, view: ShowView, options: Sequence[Cards], rng: random.Random
    ) -> Cards | None:
        chance = 0.02 if view.frying else 0.004 + 0.012 * self.persona.aggression
        if view.dealt >= view.to_deal:
            chance = 0.6 if view.standing is None else 0.1
        if rng.random() >= chance:
            return None
        return min(options, key=len)

    def choose_bury(self, view: BuryView, rng: random.Random) -> Cards:
        trump = view.trump
        ranked = sorted(view.hand, key=lambda c: (trump.pos[c], trump.eff[c] == TRUMP, c))
        return tuple(ranked[: view.count])

    def choose_lead(self, view: PlayView, rng: random.Random) -> LeadChoice:
        hand, trump, rules = view.hand, view.trump, view.rules
        suits = lead_suits(hand, trump)
        suit = rng.choice(suits)
        if rng.random() < self.persona.aggression * 0.15:
            units = units_in_suit(hand, trump, suit)
            if len(units) >= 3:
                picked = rng.sample(units, 2)
                cards = tuple(f for f, n in picked for _ in range(n))
                reading = try_read(cards, trump, rules)
                if reading is not None and reading.is_throw:
                    return LeadChoice(cards)
        comps = suit_components(hand, trump, rules, suit)
        if rng.random() < 0.6:
            return LeadChoice(max(comps, key=lambda c: (c.top, c.size)).cards())
        return LeadChoice(rng.choice(comps).cards())

    def choose_follow(self, view: PlayView, options: Sequence[Option], rng: random.Random) -> Cards:
        if rng.random() < 0.35:
            return rng.choice(list(options)).cards
        return min(options, key=lambda o: (o.cost, o.points)).cards
