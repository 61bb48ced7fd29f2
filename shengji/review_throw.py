"""How likely a throw was to fail, seen from the thrower's seat (R4.3), for the coaching review.

The thrower knows their own holding, every card played so far, the bottom if they were the last
to bury it, the cards other seats exposed (a failed throw's cards, the shows of a seat that never
buried) and which seats are void in the thrown suit (a legal play of fewer of the suit than the
lead asked). Every other card is unseen. The model (docs/review.md): the unseen cards are dealt
uniformly at random to the other three seats and, when the thrower did not bury it, the bottom,
each taking as many cards as it is known to hold, seats void in the suit taking none of it.

Under that model the void seats' cards come from the cards outside the suit, and the rest is a
plain multivariate hypergeometric deal among the other destinations. Only the unseen faces that
could take part in a beating combination matter (`relevant`); their copies are dealt face by face,
highest first, each face's split weighted by the hypergeometric count, and a branch stops as soon
as some seat beats a component (beating only grows with more cards). That walk is exact; when it
would visit more than `NODE_LIMIT` branches, a seeded Monte Carlo estimate with its standard error
is given instead.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, Hand
from .pickling import picklable
from .rules import RuleSet
from .shape import Component, Reading
from .throws import lowest_beating
from .trump import TrumpContext

NODE_LIMIT = 800
"""Branches the exact walk may visit before it gives way to sampling."""
SAMPLES = 200
"""Deals drawn for a Monte Carlo estimate (standard error at most 0.036)."""

BOTTOM = -1
"""The destination index of the bottom among `Unseen.seats`."""


@dataclass(frozen=True, slots=True)
class Unseen:
    """What the thrower cannot see, and where it can be.

    `pool`: the unseen cards (54 counts). `seats`: the destinations, other seats then `BOTTOM`
    when the bottom is unknown; `capacity[i]`: how many unseen cards destination i holds (its
    known card count less its pinned cards); `pinned[i]`: cards known to be there (54 counts);
    `void[i]`: the destination holds none of the thrown suit."""

    pool: tuple[int, ...]
    seats: tuple[int, ...]
    capacity: tuple[int, ...]
    pinned: tuple[tuple[int, ...], ...]
    void: tuple[bool, ...]

    def __init__(
        self,
        pool: tuple[int, ...],
        seats: tuple[int, ...],
        capacity: tuple[int, ...],
        pinned: tuple[tuple[int, ...], ...],
        void: tuple[bool, ...],
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "pool", pool)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "capacity", capacity)
        object.__setattr__(self, "pinned", pinned)
        object.__setattr__(self, "void", void)


@dataclass(frozen=True, slots=True)
class FailOdds:
    """The probability that the throw fails; `error` is 0.0 when exact, else the standard error
    of the estimate from `samples` deals."""

    p: float
    error: float
    exact: bool
    samples: int = 0
    beatable: tuple[int, ...] = ()
    """Indexes of the components some arrangement of the unseen cards beats."""

    def __init__(
        self,
        p: float,
        error: float,
        exact: bool,
        samples: int = 0,
        beatable: tuple[int, ...] = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "error", error)
        object.__setattr__(self, "exact", exact)
        object.__setattr__(self, "samples", samples)
        object.__setattr__(self, "beatable", beatable)


class Inconsistent(ValueError):
    """The counts do not add up (a flagged hand's holdings): the throw is not judged."""


def _beats(
    comps: Sequence[Component],
    counts: Sequence[int],
    reading: Reading,
    trump: TrumpContext,
    rules: RuleSet,
    face: Card | None = None,
) -> bool:
    """Whether `counts` hold a combination beating one of `comps` (R4.3). With `face`, the
    holding did not beat before that face's copies were added, so a unit can only be beaten
    through that face."""
    pos, eff = trump.pos, trump.eff
    suit = reading.suit
    for comp in comps:
        if comp.length == 1:
            w, top = comp.width, comp.top
            if face is not None:
                if counts[face] >= w and pos[face] > top:
                    return True
                continue
            for f in range(54):
                if counts[f] >= w and eff[f] == suit and pos[f] > top:
                    return True
        elif lowest_beating(comp, Hand(tuple(counts)), suit, trump, rules) is not None:
            return True
    return False


def beatable_components(
    reading: Reading, unseen: Unseen, trump: TrumpContext, rules: RuleSet
) -> tuple[int, ...]:
    """Components that some seat could beat if every unseen card of the suit sat with it
    (capacities ignored: an over-estimate, used only to name what is safe for certain)."""
    suit_pool = [n if trump.eff[f] == reading.suit else 0 for f, n in enumerate(unseen.pool)]
    out: list[int] = []
    for i, comp in enumerate(reading.components):
        for d, seat in enumerate(unseen.seats):
            if seat == BOTTOM:
                continue
            counts = list(unseen.pinned[d])
            if not unseen.void[d]:
                counts = [a + b for a, b in zip(counts, suit_pool, strict=True)]
            if _beats((comp,), counts, reading, trump, rules):
                out.append(i)
                break
    return tuple(out)


def _relevant(
    reading: Reading, pool: Sequence[int], trump: TrumpContext, rules: RuleSet
) -> list[Card]:
    """Unseen faces of the suit that can be part of a combination beating some component,
    highest first: above a unit's top, or within a run ending above a tractor's top."""
    eff, pos = trump.eff, trump.pos
    low = min(c.top + 1 if c.length == 1 else c.top - c.length + 2 for c in reading.components)
    tractor = any(c.length > 1 for c in reading.components)
    faces = [
        f
        for f in range(54)
        if pool[f]
        and eff[f] == reading.suit
        and (pos[f] >= low or (tractor and rules.ace_low_tractor and trump.low_pos[f] >= -1))
    ]
    return sorted(faces, key=lambda f: -pos[f])


def _splits(k: int, caps: Sequence[int]) -> list[tuple[int, ...]]:
    """Every way to put k copies into destinations with room `caps`."""
    out: list[tuple[int, ...]] = []

    def rec(i: int, left: int, acc: list[int]) -> None:
        if i == len(caps) - 1:
            if left <= caps[i]:
                out.append((*acc, left))
            return
        for a in range(min(left, caps[i]), -1, -1):
            acc.append(a)
            rec(i + 1, left - a, acc)
            acc.pop()

    rec(0, k, [])
    return out


def fail_odds(
    reading: Reading,
    unseen: Unseen,
    trump: TrumpContext,
    rules: RuleSet,
    seed: int,
    plain: bool = False,
) -> FailOdds:
    """P(the throw fails) under the model of the module doc. Raises Inconsistent when the
    capacities cannot hold the pool. `plain`: without the shortcuts (the slow path the tests
    hold the fast one to; the same figures)."""
    pool = unseen.pool
    suit = reading.suit
    eff = trump.eff
    comps = reading.components
    beatable = beatable_components(reading, unseen, trump, rules)
    # Pinned cards alone may already beat.
    for d, seat in enumerate(unseen.seats):
        if seat != BOTTOM and _beats(comps, unseen.pinned[d], reading, trump, rules):
            return FailOdds(1.0, 0.0, True, 0, beatable)
    if not beatable:
        return FailOdds(0.0, 0.0, True, 0, beatable)
    total = sum(pool)
    if total != sum(unseen.capacity) or min(unseen.capacity, default=0) < 0:
        raise Inconsistent(f"{total} unseen cards for room {sum(unseen.capacity)}")
    in_suit = sum(n for f, n in enumerate(pool) if eff[f] == suit)
    # Void destinations draw from the cards outside the suit; the rest is dealt among the others.
    live = [d for d in range(len(unseen.seats)) if not unseen.void[d]]
    void_room = sum(unseen.capacity[d] for d in range(len(unseen.seats)) if unseen.void[d])
    if total - in_suit < void_room:
        raise Inconsistent("void seats need more cards than there are outside the suit")
    caps = [unseen.capacity[d] for d in live]
    faces = _relevant(reading, pool, trump, rules)
    blocking = [unseen.seats[d] != BOTTOM for d in live]
    base = [list(unseen.pinned[d]) for d in live]
    exact = _exact(faces, pool, caps, base, blocking, comps, reading, trump, rules)
    if exact is not None:
        return FailOdds(exact, 0.0, True, 0, beatable)
    sample = _sample_plain if plain else _sample
    return sample(faces, pool, caps, base, blocking, comps, reading, trump, rules, seed, beatable)


def _exact(
    faces: list[Card],
    pool: Sequence[int],
    caps: list[int],
    base: list[list[int]],
    blocking: list[bool],
    comps: Sequence[Component],
    reading: Reading,
    trump: TrumpContext,
    rules: RuleSet,
) -> float | None:
    nodes = 0
    room = sum(caps)
    # With units only, whether a face's split beats depends on that face alone, so the odds of
    # the rest depend only on which face comes next and the room left: remembered.
    units_only = all(c.length == 1 for c in comps)
    memo: dict[tuple[int, tuple[int, ...]], float] = {}
    # Whether some deal fails and some deal stands: a sum of floats near 0 or 1 is not exact.
    seen = [False, False]

    def walk(i: int, room: int) -> float | None:
        """P(fail | the faces before i placed as they are in `base`)."""
        nonlocal nodes
        if i == len(faces):
            seen[1] = True
            return 0.0
        if units_only:
            key = (i, tuple(caps))
            hit = memo.get(key)
            if hit is not None:
                return hit
        f = faces[i]
        k = pool[f]
        whole = math.comb(room, k)
        p_fail = 0.0
        for split in _splits(k, caps):
            nodes += 1
            if nodes > NODE_LIMIT:
                return None
            weight = 1
            for d, a in enumerate(split):
                if a:
                    weight *= math.comb(caps[d], a)
            if not weight:
                continue
            p = weight / whole
            failed = False
            for d, a in enumerate(split):
                base[d][f] += a
                caps[d] -= a
            for d, a in enumerate(split):
                if a and blocking[d] and _beats(comps, base[d], reading, trump, rules, f):
                    failed = True
                    break
            if failed:
                seen[0] = True
            rest = 1.0 if failed else walk(i + 1, room - k)
            for d, a in enumerate(split):
                base[d][f] -= a
                caps[d] += a
            if rest is None:
                return None
            p_fail += p * rest
        if units_only:
            memo[key] = p_fail
        return p_fail

    p = walk(0, room)
    if p is None:
        return None
    if not seen[1]:
        return 1.0
    if not seen[0]:
        return 0.0
    return min(max(p, 0.0), 1.0)


def _sample(
    faces: list[Card],
    pool: Sequence[int],
    caps: list[int],
    base: list[list[int]],
    blocking: list[bool],
    comps: Sequence[Component],
    reading: Reading,
    trump: TrumpContext,
    rules: RuleSet,
    seed: int,
    beatable: tuple[int, ...],
) -> FailOdds:
    rng = random.Random(seed)
    room = sum(caps)
    cards = [f for f in faces for _ in range(pool[f])]
    bounds: list[int] = []
    acc = 0
    for c in caps:
        acc += c
        bounds.append(acc)
    # A blocking destination's pinned cards alone never beat (`fail_odds` returned before), and
    # beating only grows with more cards: only a destination dealt some card can beat. For units
    # only through a face dealt to it, of which `need` says how many copies beat (0: none do).
    pos = trump.pos
    need = [0] * 54
    if all(c.length == 1 for c in comps):
        for f in set(cards):
            widths = [c.width for c in comps if pos[f] > c.top]
            need[f] = min(widths) if widths else 0
        units = True
    else:
        units = False
    fails = 0
    where = bisect.bisect_right
    for _ in range(SAMPLES):
        spots = rng.sample(range(room), len(cards))
        got: list[list[Card]] = [[] for _ in caps]
        for card, spot in zip(cards, spots, strict=True):
            got[where(bounds, spot)].append(card)
        for d, dealt in enumerate(got):
            if not dealt or not blocking[d]:
                continue
            if units:
                pinned = base[d]
                if any(need[f] and pinned[f] + dealt.count(f) >= need[f] for f in set(dealt)):
                    fails += 1
                    break
            else:
                held = list(base[d])
                for f in dealt:
                    held[f] += 1
                if _beats(comps, held, reading, trump, rules):
                    fails += 1
                    break
    return _estimate(fails, beatable)


def _sample_plain(
    faces: list[Card],
    pool: Sequence[int],
    caps: list[int],
    base: list[list[int]],
    blocking: list[bool],
    comps: Sequence[Component],
    reading: Reading,
    trump: TrumpContext,
    rules: RuleSet,
    seed: int,
    beatable: tuple[int, ...],
) -> FailOdds:
    """`_sample` as the model says it, deal by deal, every destination checked whole."""
    rng = random.Random(seed)
    room = sum(caps)
    cards = [f for f in faces for _ in range(pool[f])]
    bounds: list[int] = []
    acc = 0
    for c in caps:
        acc += c
        bounds.append(acc)
    fails = 0
    for _ in range(SAMPLES):
        spots = rng.sample(range(room), len(cards))
        held = [list(b) for b in base]
        for card, spot in zip(cards, spots, strict=True):
            d = next(i for i, b in enumerate(bounds) if spot < b)
            held[d][card] += 1
        if any(
            blocking[d] and _beats(comps, held[d], reading, trump, rules) for d in range(len(held))
        ):
            fails += 1
    return _estimate(fails, beatable)


def _estimate(fails: int, beatable: tuple[int, ...]) -> FailOdds:
    p = fails / SAMPLES
    # At p = 0 or 1 the formula gives 0, which would read as exact: never below one deal's worth.
    error = max(math.sqrt(p * (1 - p) / SAMPLES), 1 / SAMPLES)
    return FailOdds(p, error, False, SAMPLES, beatable)


picklable(Unseen, FailOdds)
