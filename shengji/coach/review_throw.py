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
highest first, each face's split weighted by the hypergeometric count, and the deals still
standing are merged by the room they leave (`_count_units` for a throw of units only,
`_count_runs` for one with a tractor, which also carries each seat's run of positions that could
make a beating tractor; up to `COUNT_LIMIT` steps each). A face no split of which can beat is left
with the cards that do not matter. A count that gives up hands the throw to the walk: a branch
stops as soon as some seat beats a component (beating only grows with more cards). All are exact;
when the walk would visit more than `NODE_LIMIT` branches the throw gets a seeded Monte Carlo
estimate with its standard error.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..cards import Card, Hand
from ..combos import suit_layout
from ..pickling import picklable
from ..rules import RuleSet
from ..shape import Component, Reading
from ..throws import lowest_beating
from ..trump import TrumpContext
from .analysis_world import BOTTOM as BOTTOM
from .analysis_world import Inconsistent as Inconsistent
from .analysis_world import spread

NODE_LIMIT = 800
"""Branches the exact walk may visit before it gives way to sampling."""
COUNT_LIMIT = 200_000
"""Steps (a partial deal extended by one face's split, or by the end of a position) an exact count
may take before it gives way to the walk. Of 10,051 simulated hands, 6 had a throw past 60,000
steps, whose count gave up, was walked and then sampled; 5 of them end within 200,000 steps,
exact and, but for one, sooner than the count given up, walked and sampled (6 to 13 ms a hand
where it took 8 to 17, compiled); the one past 200,000 costs 30 ms where it cost 12."""
SAMPLES = 200
"""Deals drawn for a Monte Carlo estimate (standard error at most 0.036)."""

_COMB: Final[list[list[int]]] = []
"""C(m, a) as `_COMB[m][a]`, shared by every count (see `_comb_table`)."""


def _comb_table(rooms: int, most: int) -> list[list[int]]:
    """C(m, a) for every m <= `rooms` and a <= `most`, as `table[m][a]` (read only). Made once
    and grown when a count needs more: the counts look up thousands of these per throw, and
    `math.comb` is a Python call per entry in the compiled build."""
    if len(_COMB) <= rooms or len(_COMB[0]) <= most:
        rows = max(rooms + 1, len(_COMB), 256)
        width = max(most + 1, len(_COMB[0]) if _COMB else 0, 9)
        _COMB[:] = [[math.comb(m, a) for a in range(width)] for m in range(rows)]
    return _COMB


def _split_ways(
    key: int,
    shifts: list[int],
    copies: list[int],
    start: int,
    end: int,
    mask: int,
    comb: list[list[int]],
) -> int:
    """The ways to deal one split into the rooms a deal leaves: its destinations' copies are
    `copies[start:end]`, each destination's room sits at `shifts[i]` in `key` (`mask` wide); the
    product of C(room, copies), 0 where a destination lacks room."""
    ways = 1
    for q in range(start, end):
        have = (key >> shifts[q]) & mask
        a = copies[q]
        if a > have:
            return 0
        ways *= comb[have][a]
    return ways


def _merge(slot: dict[int, int], keys: list[int], probs: list[float], key: int, p: float) -> None:
    """Add probability p to the standing deal `key`: deals are kept in the order first reached
    (`slot` says where each is), so that each merged sum adds its terms in that order."""
    i = slot.get(key, -1)
    if i < 0:
        slot[key] = len(keys)
        keys.append(key)
        probs.append(p)
    else:
        probs[i] = probs[i] + p


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
    pool = unseen.pool
    layout = suit_layout(trump, reading.suit)
    at = layout.at
    comps = reading.components
    widest = max(c.width for c in comps)
    held: list[list[int]] = []  # what each seat would hold, made once for every component
    highs: list[list[int]] = []  # highs[s][w]: its highest position with w copies of a face
    for d, seat in enumerate(unseen.seats):
        if seat == BOTTOM:
            continue
        pinned = unseen.pinned[d]
        counts = list(pinned)
        if not unseen.void[d]:
            for f in layout.faces:
                counts[f] = counts[f] + pool[f]  # not `+=`: native only so when compiled
        high = [-1] * (widest + 1)
        w = 1
        for p in range(len(at) - 1, -1, -1):
            for f in at[p]:
                while w <= widest and counts[f] >= w:
                    high[w] = p
                    w += 1
            if w > widest:
                break
        held.append(counts)
        highs.append(high)
    out: list[int] = []
    for i, comp in enumerate(comps):
        for s, counts in enumerate(held):
            if highs[s][comp.width] <= comp.top:
                continue  # no w copies of one face above the top: neither unit nor run
            if comp.length == 1 or _beats((comp,), counts, reading, trump, rules):
                out.append(i)
                break
    return tuple(out)


def unbeatable(
    reading: Reading,
    pool: list[int],
    pinned: list[list[int]],
    void: list[bool],
    trump: TrumpContext,
) -> bool:
    """Whether no seat could beat any component even with every unseen card of the suit: no
    seat (`pinned[i]`, `void[i]`: the other seats, never the bottom) could hold w copies of a
    face of the suit above the top of a component of width w. A unit is beaten only by such a
    face and a tractor only through such a face at the top of a run (the referee's own first
    test, `throws.check_throw`), so `beatable_components` then finds none and `fail_odds` says
    0 exactly: what two thirds of the throws come to, known here from the unseen counts alone,
    before any `Unseen` is made."""
    at = suit_layout(trump, reading.suit).at
    comps = reading.components
    low = comps[0].top
    for c in comps:
        low = min(low, c.top)
    seats = len(pinned)
    for p in range(len(at) - 1, low, -1):
        need = 0  # the narrowest component below this position
        for c in comps:
            if c.top < p and (need == 0 or c.width < need):
                need = c.width
        for f in at[p]:
            k = pool[f]
            for s in range(seats):
                held = pinned[s][f] if void[s] else pinned[s][f] + k
                if held >= need:
                    return False
    return True


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
    _split(k, caps, 0, [], out)
    return out


_SPLITS: Final[dict[tuple[int, ...], list[tuple[int, ...]]]] = {}
"""`_bounded_splits`'s answers by k and bounds."""


def _bounded_splits(k: int, bound: list[int]) -> list[tuple[int, ...]]:
    """`_splits(k, bound)` for the counts, remembered (read only): their bounds never pass the
    copies of one face, so the same few hundred come up again and again."""
    key = (k, *bound)
    out = _SPLITS.get(key)
    if out is None:
        out = _splits(k, bound)
        _SPLITS[key] = out
    return out


def _split(
    left: int, caps: Sequence[int], i: int, acc: list[int], out: list[tuple[int, ...]]
) -> None:
    if i == len(caps) - 1:
        if left <= caps[i]:
            out.append((*acc, left))
        return
    for a in range(min(left, caps[i]), -1, -1):
        acc.append(a)
        _split(left - a, caps, i + 1, acc, out)
        acc.pop()


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
        pinned = unseen.pinned[d]
        # No card pinned (the usual case) beats nothing: not searched. (`any` over a generator
        # is a loop when compiled; over the tuple itself, a Python call.)
        if (
            seat != BOTTOM
            and any(k for k in pinned)
            and _beats(comps, pinned, reading, trump, rules)
        ):
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
    # A throw of units only is counted (cheaper than the walk, whatever its size); the walk is
    # for throws with a tractor, and for the rare count that gives up.
    exact: float | None = None
    if all(c.length == 1 for c in comps):
        exact = _count_units(faces, pool, caps, base, blocking, _needs(faces, comps, trump))
    else:
        exact = _count_runs(reading, pool, caps, base, blocking, trump, rules, plain)
    if exact is None:
        exact = _exact(faces, pool, caps, base, blocking, comps, reading, trump, rules)
    if exact is not None:
        return FailOdds(exact, 0.0, True, 0, beatable)
    if plain:
        return _sample_plain(
            faces, pool, caps, base, blocking, comps, reading, trump, rules, seed, beatable
        )
    return _sample(faces, pool, caps, base, blocking, comps, reading, trump, rules, seed, beatable)


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
    walk = _Walk(faces, pool, caps, base, blocking, comps, reading, trump, rules)
    p = walk.fail(0, sum(caps))
    if p is None:
        return None
    if not walk.stands:
        return 1.0
    if not walk.fails:
        return 0.0
    return min(max(p, 0.0), 1.0)


class _Walk:
    """`_exact`'s walk over the splits of each face, with what it has seen (a class rather than
    a closure: the compiled build calls its method natively)."""

    def __init__(
        self,
        faces: list[Card],
        pool: Sequence[int],
        caps: list[int],
        base: list[list[int]],
        blocking: list[bool],
        comps: Sequence[Component],
        reading: Reading,
        trump: TrumpContext,
        rules: RuleSet,
    ) -> None:
        self.faces = faces
        self.pool = pool
        self.caps = caps
        self.base = base
        self.blocking = blocking
        self.comps = comps
        self.reading = reading
        self.trump = trump
        self.rules = rules
        self.nodes = 0
        self.limit: int = NODE_LIMIT
        most = max((pool[f] for f in faces), default=0)
        self.comb = _comb_table(max(caps, default=0), most)
        """`comb[m][a]` = C(m, a), for every room and copy count the walk meets (shared, read only)."""
        # With units only, whether a face's split beats depends on that face alone, so the odds
        # of the rest depend only on which face comes next and the room left: remembered.
        self.units_only = all(c.length == 1 for c in comps)
        self.need = _needs(faces, comps, trump) if self.units_only else [0] * 54
        """With units only, how many copies of each face beat (`_beats` with that face)."""
        self.memo: dict[tuple[int, tuple[int, ...]], float] = {}
        # Whether some deal fails and some deal stands: a sum of floats near 0 or 1 is not exact.
        self.fails = False
        self.stands = False

    def fail(self, i: int, room: int) -> float | None:
        """P(fail | the faces before i placed as they are in `base`); None past the limit."""
        faces, caps, base, comb = self.faces, self.caps, self.base, self.comb
        if i == len(faces):
            self.stands = True
            return 0.0
        key = (i, tuple(caps))
        if self.units_only:
            hit = self.memo.get(key)
            if hit is not None:
                return hit
        f = faces[i]
        k = self.pool[f]
        need = self.need[f]
        whole = math.comb(room, k)
        p_fail = 0.0
        for split in _splits(k, caps):
            self.nodes += 1
            if self.nodes > self.limit:
                return None
            weight = 1
            for d, a in enumerate(split):
                if a:
                    weight *= comb[caps[d]][a]
            if not weight:
                continue
            p = weight / whole
            failed = False
            for d, a in enumerate(split):
                base[d][f] += a
                caps[d] -= a
            for d, a in enumerate(split):
                if a and self.blocking[d]:
                    if self.units_only:
                        beaten = 0 < need <= base[d][f]
                    else:
                        beaten = _beats(
                            self.comps, base[d], self.reading, self.trump, self.rules, f
                        )
                    if beaten:
                        failed = True
                        break
            if failed:
                self.fails = True
            rest = 1.0 if failed else self.fail(i + 1, room - k)
            for d, a in enumerate(split):
                base[d][f] -= a
                caps[d] += a
            if rest is None:
                return None
            p_fail += p * rest
        if self.units_only:
            self.memo[key] = p_fail
        return p_fail


def _needs(faces: Sequence[Card], comps: Sequence[Component], trump: TrumpContext) -> list[int]:
    """For a throw of units only: how many copies of each face beat one of its units (the
    narrowest unit below the face), 0 when none does; by face."""
    pos = trump.pos
    need = [0] * 54
    for f in faces:
        widths = [c.width for c in comps if pos[f] > c.top]
        need[f] = min(widths) if widths else 0
    return need


def _count_units(
    faces: list[Card],
    pool: Sequence[int],
    caps: list[int],
    base: list[list[int]],
    blocking: list[bool],
    need: list[int],
) -> float | None:
    """P(fail) of a throw of units only under the model, as exact as `_exact`'s walk; None past
    `COUNT_LIMIT` steps.

    With units only, a seat beats exactly when it holds `need[f]` copies of some face f (its
    pinned copies included), so the throw stands while each blocking destination gets fewer than
    that of each face: a bound per face and destination, whatever the other faces did. The faces
    are dealt one after the other as in `_exact`, each split weighted by Π_d C(room left at d,
    copies to d) / C(room left, copies); but the deals still standing are merged by the room they
    leave at each destination, their probabilities added, so the work grows with those rooms and
    not with the number of branches. Each merged deal passes on the weight of its failing splits
    (whole less the bounded splits' weight, counted in integers) to P(fail)."""
    n = len(caps)
    most = 0
    for f in faces:
        most = max(most, pool[f])
    room = 0
    for d in range(n):
        room += caps[d]
    comb = _comb_table(room, most)
    # The standing deals, as their keys (the room left at each destination, 8 bits each) and
    # probabilities in the order they were first reached: the order their probabilities are
    # summed in.
    keys: list[int] = [sum(caps[d] << (8 * d) for d in range(n))]
    probs: list[float] = [1.0]
    p_fail = 0.0
    failing = False
    steps = 0
    # Each face's bound per destination, whether some split of it beats, and the last face
    # some split of which beats: after it only P(fail) is wanted, not the standing deals, so
    # those are not merged there.
    bounds: list[list[int]] = []
    beats: list[bool] = []
    last = -1
    for i, f in enumerate(faces):
        k = pool[f]
        bound = [k] * n
        beat = False
        for d in range(n):
            if blocking[d]:
                bound[d] = min(k, need[f] - base[d][f] - 1)
                if bound[d] < k:
                    beat = True
        bounds.append(bound)
        beats.append(beat)
        if beat:
            last = i
    for i, f in enumerate(faces):
        if not beats[i]:
            # No split of this face beats: its copies are dealt with the cards that do not
            # matter, which leaves the others' odds as they are.
            continue
        k = pool[f]
        whole = comb[room][k]
        room -= k
        splits = _bounded_splits(k, bounds[i])
        steps += len(keys) * len(splits)
        if steps > COUNT_LIMIT:
            return None
        # The splits, made once per face and not once per deal, as flat lists: split s deals
        # `copies[q]` to the room at bit `shifts[q]` for q up to `ends[s]`, and takes `takes[s]`
        # off the key.
        shifts: list[int] = []
        copies: list[int] = []
        ends: list[int] = []
        takes: list[int] = []
        for split in splits:
            take = 0
            for d in range(n):
                a = split[d]
                if a:
                    shifts.append(8 * d)
                    copies.append(a)
                    take += a << (8 * d)
            ends.append(len(shifts))
            takes.append(take)
        count = len(takes)
        final = i == last
        standing = False
        next_keys: list[int] = []
        next_probs: list[float] = []
        slot: dict[int, int] = {}  # where each key is in next_keys
        for t in range(len(keys)):
            key = keys[t]
            p = probs[t]
            kept = 0
            q = 0
            for s in range(count):
                end = ends[s]
                ways = _split_ways(key, shifts, copies, q, end, 255, comb)
                q = end
                if ways:
                    kept += ways
                    if final:
                        standing = True
                    else:
                        after = key - takes[s]
                        _merge(slot, next_keys, next_probs, after, p * (ways / whole))
            if kept < whole:
                failing = True
                p_fail += p * ((whole - kept) / whole)
        if final:
            if not standing:
                return 1.0
            break
        keys = next_keys
        probs = next_probs
        if not keys:
            return 1.0
    if not failing:
        return 0.0
    return min(max(p_fail, 0.0), 1.0)


def _count_runs(
    reading: Reading,
    pool: Sequence[int],
    caps: Sequence[int],
    base: Sequence[Sequence[int]],
    blocking: Sequence[bool],
    trump: TrumpContext,
    rules: RuleSet,
    plain: bool = False,
) -> float | None:
    """P(fail) of a throw with a tractor under the model, as exact as `_exact`'s walk; None past
    `COUNT_LIMIT` steps (or for a shape it does not follow: then the walk decides). `plain`:
    every position dealt face by face and then ended, never in one pass (the same figures).

    The suit's positions are dealt from the highest down, each face's copies split as in
    `_count_units` (its units bound each blocking destination's copies of a face the same way).
    A blocking destination beats a tractor of width w, length L and top t when it holds L
    consecutive positions, each with a face of at least w copies, the highest above t (R4.3, as
    `throws.lowest_beating`): dealt from the top, that is the run of such positions it has been
    holding since one above t, which each standing deal carries along with the room it leaves
    (and, inside a position of several faces, the most copies of one face it got there). A deal
    in which the run reaches L fails; those carrying the same room and runs are merged
    (`_Runs`)."""
    comps = reading.components
    layout = suit_layout(trump, reading.suit)
    at = layout.at
    tractors = [c for c in comps if c.length > 1]
    n = len(caps)
    blockers = [d for d in range(n) if blocking[d]]
    widest = max(c.width for c in tractors)
    narrowest = min(c.width for c in tractors)
    for c in tractors:
        # An ace-low run (R3.3) never ranks above a thrown tractor as long (its top is its
        # length less 2); were it to, the walk (through `lowest_beating`) decides.
        if c.length > 15 or (
            rules.ace_low_tractor and layout.low >= 0 and c.top < c.length - 2 < layout.low_stop - 1
        ):
            return None
    if widest > 7 or max(caps, default=0) > 255:
        return None
    low = max(min(c.top + 1 if c.length == 1 else c.top - c.length + 2 for c in comps), 0)
    need = [0] * 54
    for p in range(low, len(at)):
        for f in at[p]:
            widths = [c.width for c in comps if c.length == 1 and p > c.top]
            need[f] = min(widths) if widths else 0
    most = max((pool[f] for p in range(low, len(at)) for f in at[p]), default=0)
    room = sum(caps)
    runs = _Runs(caps, blockers, tractors, widest, _comb_table(room, most))
    for p in range(len(at) - 1, low - 1, -1):
        # What each blocker holds on this position before any card is dealt: its pinned copies.
        runs.first = [min(widest, max((base[d][f] for f in at[p]), default=0)) for d in blockers]
        dealt: list[Card] = []
        bounds: list[list[int]] = []
        for f in at[p]:
            k = pool[f]
            if not k:
                continue
            bound = [k] * n
            for d in blockers:
                if need[f]:
                    bound[d] = min(k, need[f] - base[d][f] - 1)
            if min(bound) >= k and all(base[d][f] + k < narrowest for d in blockers):
                continue  # neither beats a unit nor makes a run: dealt with the rest
            dealt.append(f)
            bounds.append(bound)
        ended = False
        for i, f in enumerate(dealt):
            k = pool[f]
            whole = runs.comb[room][k]
            room -= k
            splits = _bounded_splits(k, bounds[i])
            runs.steps += len(runs.keys) * len(splits)
            if runs.steps > COUNT_LIMIT:
                return None
            # A position's only face, no two splits of which give the blockers the same copies:
            # dealt and the position ended in one pass (the same sums in the same order).
            if runs.split(splits, base, f) and len(dealt) == 1 and not plain:
                standing = runs.deal_and_end(whole, p)
                ended = True
            else:
                standing = runs.deal(whole)
            if not standing:
                return 1.0
        if not ended and not runs.end(p):
            return 1.0
    if not runs.failing:
        return 0.0
    return min(max(runs.p_fail, 0.0), 1.0)


class _Runs:
    """The standing deals of `_count_runs` and what it has summed (a class rather than one long
    function: the compiled build keeps its fields and calls its methods natively).

    A deal is a key and its probability (`keys[i]`, `probs[i]`), in the order the deals were
    first reached: the order their probabilities are summed in, kept exactly so that every
    figure comes out the same to the last bit. The key, from its lowest bits: the room left at
    each destination, then each blocker's run for each tractor, then the most copies of one face
    each blocker got on the position being dealt (0 between positions); each field as wide as
    its largest value needs, so that keys stay machine integers in the compiled build."""

    def __init__(
        self,
        caps: Sequence[int],
        blockers: list[int],
        tractors: list[Component],
        widest: int,
        comb: list[list[int]],
    ) -> None:
        n = len(caps)
        nb = len(blockers)
        nt = len(tractors)
        self.n = n
        self.blockers = blockers
        self.nt = nt
        self.widest = widest
        self.comb = comb
        self.t_width = [c.width for c in tractors]
        self.t_length = [c.length for c in tractors]
        self.t_top = [c.top for c in tractors]
        room_bits = max(max(caps, default=0), 1).bit_length()
        run_bits = max(c.length - 1 for c in tractors).bit_length()
        most_bits = widest.bit_length()
        self.room_mask = (1 << room_bits) - 1
        self.run_bits = run_bits
        self.run_mask = (1 << run_bits) - 1
        self.run_base = room_bits * n
        self.runs_bits = run_bits * nb * nt
        self.most_mask = (1 << most_bits) - 1
        self.room_at = [room_bits * d for d in range(n)]
        # blocker j's run for tractor i at run_at[j * nt + i]
        self.run_at = [room_bits * n + run_bits * i for i in range(nb * nt)]
        self.most_at = [room_bits * n + run_bits * nb * nt + most_bits * j for j in range(nb)]
        self.keys: list[int] = [sum(caps[d] << self.room_at[d] for d in range(n))]
        self.probs: list[float] = [1.0]
        self.p_fail = 0.0
        self.failing = False
        self.steps = 0
        self.first: list[int] = []
        """What each blocker holds on the position being dealt before any card: its pinned
        copies (at most `widest`)."""
        # The face being dealt's splits, made once per face and not once per deal, as flat
        # lists: split s deals `copies[q]` to the room at bit `shifts[q]` for q up to `ends[s]`
        # and takes `takes[s]` off the key; it raises the blockers' most copies at bit
        # `raise_at[q]` to `raise_to[q]` for q up to `raise_ends[s]`; `held[s * nb + j]`:
        # what blocker j then holds on the position when the face is the position's only one.
        self.shifts: list[int] = []
        self.copies: list[int] = []
        self.ends: list[int] = []
        self.takes: list[int] = []
        self.raise_at: list[int] = []
        self.raise_to: list[int] = []
        self.raise_ends: list[int] = []
        self.held: list[int] = []

    def split(self, splits: list[tuple[int, ...]], base: Sequence[Sequence[int]], f: Card) -> bool:
        """Lay out the splits of face f; whether no two of them give every blocker the same
        most copies of one face (then, from deals with no copies on the position yet, no two
        deals reach the same key)."""
        n, blockers, widest = self.n, self.blockers, self.widest
        room_at, most_at = self.room_at, self.most_at
        shifts: list[int] = []
        copies: list[int] = []
        ends: list[int] = []
        takes: list[int] = []
        raise_at: list[int] = []
        raise_to: list[int] = []
        raise_ends: list[int] = []
        held: list[int] = []
        first = self.first
        seen: set[int] = set()
        for split in splits:
            take = 0
            for d in range(n):
                a = split[d]
                if a:
                    shifts.append(room_at[d])
                    copies.append(a)
                    take += a << room_at[d]
            ends.append(len(shifts))
            takes.append(take)
            mosts = 0
            for j in range(len(blockers)):
                a = split[blockers[j]]
                v = 0
                if a:
                    v = min(widest, base[blockers[j]][f] + a)
                    raise_at.append(most_at[j])
                    raise_to.append(v)
                    mosts += v << most_at[j]
                held.append(max(v, first[j]))
            raise_ends.append(len(raise_at))
            seen.add(mosts)
        self.shifts = shifts
        self.copies = copies
        self.ends = ends
        self.takes = takes
        self.raise_at = raise_at
        self.raise_to = raise_to
        self.raise_ends = raise_ends
        self.held = held
        return len(seen) == len(splits)

    def deal(self, whole: int) -> bool:
        """Deal the face laid out by `split` (`whole`: C(room left, its copies)) to every deal:
        the failing splits' weight goes to P(fail), the others make the new deals. Whether
        some deal stands."""
        comb = self.comb
        room_mask, most_mask = self.room_mask, self.most_mask
        shifts, copies, ends, takes = self.shifts, self.copies, self.ends, self.takes
        raise_at, raise_to, raise_ends = self.raise_at, self.raise_to, self.raise_ends
        keys, probs = self.keys, self.probs
        count = len(takes)
        next_keys: list[int] = []
        next_probs: list[float] = []
        slot: dict[int, int] = {}
        for t in range(len(keys)):
            key = keys[t]
            weight = probs[t]
            kept = 0
            q = 0
            for s in range(count):
                end = ends[s]
                ways = _split_ways(key, shifts, copies, q, end, room_mask, comb)
                q = end
                if not ways:
                    continue
                kept += ways
                after = key - takes[s]
                for r in range(raise_ends[s - 1] if s else 0, raise_ends[s]):
                    shift = raise_at[r]
                    v = raise_to[r]
                    if v > (after >> shift) & most_mask:
                        after = (after & ~(most_mask << shift)) | (v << shift)
                _merge(slot, next_keys, next_probs, after, weight * (ways / whole))
            if kept < whole:
                self.failing = True
                self.p_fail += weight * ((whole - kept) / whole)
        self.keys = next_keys
        self.probs = next_probs
        return bool(next_keys)

    def end(self, p: int) -> bool:
        """Position p is dealt: each blocker's runs go on or stop; a deal in which one reaches
        its tractor's length fails. Whether some deal stands."""
        blockers, nt, first = self.blockers, self.nt, self.first
        t_width, t_length, t_top = self.t_width, self.t_length, self.t_top
        run_at, most_at = self.run_at, self.most_at
        run_mask, most_mask = self.run_mask, self.most_mask
        keys, probs = self.keys, self.probs
        self.steps += len(keys)
        next_keys: list[int] = []
        next_probs: list[float] = []
        slot: dict[int, int] = {}
        for t in range(len(keys)):
            key = keys[t]
            weight = probs[t]
            after = key
            beaten = False
            for j in range(len(blockers)):
                shift = most_at[j]
                held = max((key >> shift) & most_mask, first[j])
                after &= ~(most_mask << shift)
                for i in range(nt):
                    shift = run_at[j * nt + i]
                    r = (key >> shift) & run_mask
                    if held >= t_width[i] and (r or p > t_top[i]):
                        r += 1
                        if r >= t_length[i]:
                            beaten = True
                            break
                    else:
                        r = 0
                    after = (after & ~(run_mask << shift)) | (r << shift)
                if beaten:
                    break
            if beaten:
                self.failing = True
                self.p_fail += weight
                continue
            _merge(slot, next_keys, next_probs, after, weight)
        self.keys = next_keys
        self.probs = next_probs
        return bool(next_keys)

    def deal_and_end(self, whole: int, p: int) -> bool:
        """`deal` then `end(p)` in one pass, for a face that is the only one dealt on position p
        and whose splits `split` found distinct: the deals `deal` would make are then all
        distinct (none merged), so `end` would take them one by one in the order they were made,
        which is the order they are made here; the probabilities of those that fail are added
        after every failing split's, as `end` would. Whether some deal stands."""
        comb = self.comb
        room_mask = self.room_mask
        shifts, copies, ends, takes = self.shifts, self.copies, self.ends, self.takes
        run_base = self.run_base
        runs_mask = (1 << self.runs_bits) - 1
        rooms_mask = (1 << run_base) - 1
        keys, probs = self.keys, self.probs
        count = len(takes)
        # What the blockers' runs become after split s, by the runs before (`_ended`), made
        # when first wanted: -2 not made yet.
        kinds = 1 << self.runs_bits
        known = count * kinds <= 4096
        ended = [-2] * (count * kinds) if known else []
        made = 0
        beaten_probs: list[float] = []
        next_keys: list[int] = []
        next_probs: list[float] = []
        slot: dict[int, int] = {}
        for t in range(len(keys)):
            key = keys[t]
            weight = probs[t]
            runs = (key >> run_base) & runs_mask
            rooms = key & rooms_mask
            kept = 0
            q = 0
            for s in range(count):
                end = ends[s]
                ways = _split_ways(key, shifts, copies, q, end, room_mask, comb)
                q = end
                if not ways:
                    continue
                kept += ways
                made += 1
                add = weight * (ways / whole)
                if known:
                    e = s * kinds + runs
                    now = ended[e]
                    if now == -2:
                        now = self.ended(s, runs, p)
                        ended[e] = now
                else:
                    now = self.ended(s, runs, p)
                if now < 0:
                    beaten_probs.append(add)
                    continue
                _merge(slot, next_keys, next_probs, rooms - takes[s] + (now << run_base), add)
            if kept < whole:
                self.failing = True
                self.p_fail += weight * ((whole - kept) / whole)
        if not made:
            return False
        self.steps += made
        for add in beaten_probs:
            self.failing = True
            self.p_fail += add
        self.keys = next_keys
        self.probs = next_probs
        return bool(next_keys)

    def ended(self, s: int, runs: int, p: int) -> int:
        """The blockers' runs (`runs`: the key's run fields, shifted down) once position p is
        dealt, split s of its only face given: the new run fields, -1 when one reaches its
        tractor's length."""
        nb, nt, held = len(self.blockers), self.nt, self.held
        run_bits, run_mask = self.run_bits, self.run_mask
        out = 0
        for j in range(nb):
            h = held[s * nb + j]
            for i in range(nt):
                shift = run_bits * (j * nt + i)
                r = (runs >> shift) & run_mask
                if h >= self.t_width[i] and (r or p > self.t_top[i]):
                    r += 1
                    if r >= self.t_length[i]:
                        return -1
                else:
                    r = 0
                out |= r << shift
        return out


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
    cards = [f for f in faces for _ in range(pool[f])]
    # A blocking destination's pinned cards alone never beat (`fail_odds` returned before), and
    # beating only grows with more cards: only a destination dealt some card can beat. For units
    # only through a face dealt to it, of which `need` says how many copies beat (0: none do).
    units = all(c.length == 1 for c in comps)
    need = _needs(faces, comps, trump) if units else [0] * 54
    fails = 0
    for _ in range(SAMPLES):
        # The shared sampler (`analysis_world.spread`): the thrown suit's unseen cards into the
        # destinations' room, every filling equally likely.
        got = spread(cards, caps, rng)
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
        for j, card in enumerate(cards):
            spot = spots[j]
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
