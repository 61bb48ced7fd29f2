"""What a player knows at a decision, and the deals of the cards they cannot see (docs/analysis.md).

One knowledge model serves the coaching review's throw odds and the analysis: the actor's holding,
every card played, the bottom if the actor buried it last, the cards known to sit with another
seat (shown by a seat that never buried; a failed throw's cards until played) and the voids
proved by play (R5.2). Hidden cards never enter it.

`spread` is the one sampler: it places cards uniformly at random into destinations of known room
(the seats' unseen cards and, when the actor did not bury it, the bottom). The throw odds' estimate
spreads the cards of the thrown suit (`review_throw`); `sample_world` deals every unseen card,
suit by suit, each through `spread` over the destinations not void in that suit, so a world is
consistent with everything the actor knows.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import Card
from ..trump import TrumpContext

BOTTOM = -1
"""The destination that is the bottom (a seat is 0..3)."""


class Inconsistent(ValueError):
    """The counts do not add up (a flagged hand's holdings): nothing can be dealt."""


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What `seat` knows at a decision.

    `hand`: its holding (54 counts). `pool`: the cards it cannot see (54 counts). `dests`: where
    they can be, the other seats in play order and then `BOTTOM` when the bottom is unknown to
    it; `room[i]`: how many unseen cards destination i holds; `pinned[i]`: cards known to be
    there (54 counts, not in `pool`); `void[i]`: per effective suit (0..4), whether destination i
    holds none of it. `bottom`: the bottom's cards when `seat` buried it last, else None."""

    seat: int
    hand: tuple[int, ...]
    pool: tuple[int, ...]
    dests: tuple[int, ...]
    room: tuple[int, ...]
    pinned: tuple[tuple[int, ...], ...]
    void: tuple[tuple[bool, ...], ...]
    bottom: tuple[Card, ...] | None


def knowledge(
    seat: int,
    holdings: Sequence[Sequence[int]],
    played: Sequence[int],
    exposed: Sequence[Sequence[int]],
    voids: Sequence[Sequence[bool]],
    bottom: Sequence[Card],
    knows_bottom: bool,
    decks: int,
) -> Knowledge:
    """The knowledge of `seat`: `holdings` are every seat's cards now (only their counts and the
    actor's own cards are read), `played` the cards played so far, `exposed[s]` the cards known
    to sit with seat s (they must still be in its holding), `voids[s][suit]` what play proved,
    `bottom` the cards buried (read only when `knows_bottom`)."""
    mine = holdings[seat]
    others = [(seat + k) % 4 for k in (1, 2, 3)]
    pool = [decks - mine[f] - played[f] for f in range(54)]
    dests: list[int] = []
    room: list[int] = []
    pinned: list[tuple[int, ...]] = []
    void: list[tuple[bool, ...]] = []
    for d in others:
        pin = exposed[d]
        held = 0
        pins = 0
        for f in range(54):
            held += holdings[d][f]
            pins += pin[f]
            pool[f] -= pin[f]
        dests.append(d)
        room.append(held - pins)
        pinned.append(tuple(pin))
        void.append(tuple(voids[d]))
    known: tuple[Card, ...] | None = None
    if knows_bottom:
        known = tuple(bottom)
        for f in bottom:
            pool[f] -= 1
    else:
        dests.append(BOTTOM)
        room.append(len(bottom))
        pinned.append((0,) * 54)
        void.append((False,) * 5)
    for f in range(54):
        if pool[f] < 0:
            raise Inconsistent("more cards seen than the decks hold")
    return Knowledge(
        seat,
        tuple(mine),
        tuple(pool),
        tuple(dests),
        tuple(room),
        tuple(pinned),
        tuple(void),
        known,
    )


def spread(cards: Sequence[Card], room: Sequence[int], rng: random.Random) -> list[list[Card]]:
    """`cards` placed uniformly at random into destinations with `room[i]` places each (at least
    as many places as cards in all): each card takes a place drawn without replacement, so every
    way of filling the places is equally likely. Returns the cards each destination got."""
    bounds: list[int] = []
    acc = 0
    for r in room:
        acc += r
        bounds.append(acc)
    spots = rng.sample(range(acc), len(cards))
    got: list[list[Card]] = [[] for _ in room]
    where = bisect.bisect_right
    for j, card in enumerate(cards):
        got[where(bounds, spots[j])].append(card)
    return got


def sample_world(k: Knowledge, trump: TrumpContext, rng: random.Random) -> list[list[int]]:
    """One deal of the unseen cards consistent with `k`: per destination of `k.dests`, its cards
    (54 counts, pinned cards included). The cards of suits some destination is void in are dealt
    first, one by one, each to a destination that may hold it with probability in proportion to
    its room left, never to one that would leave the rest impossible to deal (Hall's condition
    over those suits, kept as each subset's slack); then the other suits are `spread` over all
    the room left. Without voids this is a uniform deal; with them every deal it makes is
    consistent (none is rejected) and close to uniform."""
    n = len(k.dests)
    if any(r < 0 for r in k.room) or sum(k.pool) != sum(k.room):
        raise Inconsistent("the unseen cards do not fit the room the other seats have")
    eff = trump.eff
    by_suit: list[list[Card]] = [[] for _ in range(5)]
    for f in range(54):
        c = k.pool[f]
        if c:
            by_suit[eff[f]].extend([f] * c)
    left = list(k.room)
    held = [list(p) for p in k.pinned]
    takers = [sum(1 << d for d in range(n) if not k.void[d][s]) for s in range(5)]
    constrained = [s for s in range(5) if by_suit[s] and takers[s] != (1 << n) - 1]
    # The most constrained suits first: fewest destinations that may take them.
    constrained.sort(key=lambda s: bin(takers[s]).count("1"))
    m = len(constrained)
    subsets = range(1, 1 << m)
    reach = [0] * (1 << m)
    slack = [0] * (1 << m)
    for mask in subsets:
        cards = 0
        for j in range(m):
            if mask >> j & 1:
                reach[mask] |= takers[constrained[j]]
                cards += len(by_suit[constrained[j]])
        slack[mask] = sum(left[d] for d in range(n) if reach[mask] >> d & 1) - cards
        if slack[mask] < 0:
            raise Inconsistent("no deal of the unseen cards fits the voids")
    for j, s in enumerate(constrained):
        dealing = by_suit[s]
        rng.shuffle(dealing)
        bit = 1 << j
        for f in dealing:
            # A destination is barred when some set of suits still to deal has no slack, the
            # destination can take them, and this card is not of them.
            tight = 0
            for mask in subsets:
                if slack[mask] == 0 and not mask & bit:
                    tight |= reach[mask]
            total = 0
            for d in range(n):
                if takers[s] >> d & 1 and left[d] and not tight >> d & 1:
                    total += left[d]
            if total == 0:
                raise Inconsistent("no deal of the unseen cards fits the voids")
            pick = rng.random() * total
            chosen = -1
            for d in range(n):
                if takers[s] >> d & 1 and left[d] and not tight >> d & 1:
                    chosen = d
                    pick -= left[d]
                    if pick < 0:
                        break
            left[chosen] -= 1
            held[chosen][f] += 1
            for mask in subsets:
                if reach[mask] >> chosen & 1:
                    slack[mask] -= 1
                if mask & bit:
                    slack[mask] += 1
    rest = [f for s in range(5) if s not in constrained for f in by_suit[s]]
    for d, got in enumerate(spread(rest, left, rng)):
        for f in got:
            held[d][f] += 1
    return held
