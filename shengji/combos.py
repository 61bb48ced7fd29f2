"""Units, tractors and how a lead or a play reads as components (R3, R4.1, R4.2).

Everything here works on one effective suit at a time: a count per face, laid out along the suit's
ladder (`SuitLayout`). Positions run 0, 1, … from low to high; several faces share a position only
for the off-suit level cards, which are equal in strength and so never consecutive (R3.2). Under
`ace_low_tractor` the suit's plain A may also stand on position -1, below the lowest rank, but only
as the low end of a tractor (R3.3): AA2233 is a tractor whose `top` is the 3's position, KKAA22 is
none, and no tractor uses the A at both ends.

A unit is 1..`rules.max_width` identical cards (same face: ♥10 and ♦10 are never a pair). A tractor
is two or more units of one width >= 2 on consecutive positions (R3.2); mixed widths are not one
(R3.4).

Reading a lead (R4.2): components are ordered by their *key* — card count, then tractor before
unit, then the wider unit, then the higher top. The reading takes the greatest component the cards
allow, then the greatest of what is left, and so on, until every card is placed. Any leftover can
always be split (into singles at worst), so the first component is the largest any split can have,
a tractor when one of that size exists: exactly R4.2's rule. The later steps make the reading
deterministic (e.g. ♥5555 66 reads ⟨5566⟩ + 55 because a tractor beats a quad of equal size;
♥555 6666 77 reads ⟨555 666⟩ + 77 + 6, the wider tractor first). Where several faces share a
position, a component takes the face with the fewest copies that suffice (so wider units stay
whole for later components), then the lowest face id. The components come out greatest first.
That is `throw_split = widest`; under `lowest_first` (rbtying/shengji) the reading is R4.2's walk
from the lowest card up (`_LowestFirst`): the largest component any such split can have is found
first (memoised over the counts left), then each step takes the most preferred choice — the unit,
then the longer tractor — that can still reach it.
A stated split (FORMAT.md `split`) is taken as stated when its parts are units and tractors that
use exactly the lead's cards, even where it splits what would read as one tractor (it is then a
throw, judged by R4.3 like any other).

Matching a play against a lead's shape (`match_shape`, `iter_matches`): a play has the lead's exact
shape when it splits into components of exactly the lead's (width, length), one for each lead
component. Several splits may fit; lead components of equal shape are answered highest with
highest, and the *strongest* split is the one whose answers, taken in the lead's key order, have
the lexicographically highest tops.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Final

from .cards import Card, equal_rank_order, pretty_card
from .pickling import picklable
from .rbtying import read_server
from .rules import RuleSet
from .shape import Component, Reading
from .trump import TrumpContext

__all__ = [
    "ComponentCache",
    "PlayError",
    "ShapePlan",
    "SuitLayout",
    "as_component",
    "cached_component",
    "component_cache",
    "component_key",
    "describe_cards",
    "effective_suit",
    "iter_matches",
    "match_shape",
    "read_lead",
    "reading_cache",
    "shape_plan",
    "suit_counts",
    "suit_layout",
]


class PlayError(ValueError):
    """A lead or stated split that cannot be read; the message quotes the cards."""


@dataclass(frozen=True, slots=True)
class SuitLayout:
    """One effective suit's ladder under a trump context.

    `at[p]` are the faces on position p (ascending face id); `low` is the face that may also stand
    on position -1 (the plain A, R3.3) or -1 when there is none; a tractor starting there must end
    below `low_stop`, the A's own position, so that it never holds the A twice.
    """

    suit: int
    at: tuple[tuple[Card, ...], ...]
    faces: tuple[Card, ...]
    low: int
    low_stop: int

    @property
    def positions(self) -> int:
        return len(self.at)

    def __init__(
        self,
        suit: int,
        at: tuple[tuple[Card, ...], ...],
        faces: tuple[Card, ...],
        low: int,
        low_stop: int,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "at", at)
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "low_stop", low_stop)


_LAYOUTS: Final[dict[tuple[int | None, int, bool, bool, bool], tuple[SuitLayout, ...]]] = {}


def _build_layouts(trump: TrumpContext) -> tuple[SuitLayout, ...]:
    layouts = []
    for suit in range(5):
        faces = sorted((c for c in range(54) if trump.eff[c] == suit), key=trump.sort_key)
        top = max((trump.pos[c] for c in faces), default=-1)  # the trump suit's own is empty
        at = tuple(tuple(c for c in faces if trump.pos[c] == p) for p in range(top + 1))
        low = next((c for c in faces if trump.low_pos[c] == -1), -1)
        layouts.append(SuitLayout(suit, at, tuple(faces), low, trump.pos[low] if low >= 0 else 0))
    return tuple(layouts)


def suit_layout(trump: TrumpContext, suit: int) -> SuitLayout:
    """The ladder of effective suit `suit` (0..3 or TRUMP), cached per trump suit and level."""
    key = trump.key
    layouts = _LAYOUTS.get(key)
    if layouts is None:
        layouts = _LAYOUTS[key] = _build_layouts(trump)
    return layouts[suit]


def describe_cards(cards: Sequence[Card]) -> str:
    return " ".join(pretty_card(c) for c in cards)


def effective_suit(cards: Sequence[Card], trump: TrumpContext) -> int | None:
    """The one effective suit of `cards` (0..3, or TRUMP), None if they mix suits or are empty."""
    if not cards:
        return None
    eff = trump.eff
    suit = eff[cards[0]]
    for c in cards:
        if eff[c] != suit:
            return None
    return suit


def suit_counts(cards: Sequence[Card]) -> list[int]:
    """Copies of each face, indexed by face id."""
    counts = [0] * 54
    for c in cards:
        counts[c] += 1
    return counts


def component_key(comp: Component) -> tuple[int, bool, int, int]:
    """The order of R4.2: card count, tractor before unit, wider, higher top."""
    return (comp.width * len(comp.faces), len(comp.faces) > 1, comp.width, comp.top)


def as_component(cards: Sequence[Card], trump: TrumpContext, rules: RuleSet) -> Component | None:
    """`cards` as exactly one unit or one tractor (R3), else None."""
    if len(cards) == 1:
        return Component(1, (cards[0],), trump.pos[cards[0]])
    if not cards or effective_suit(cards, trump) is None:
        return None
    counts: dict[Card, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    width = counts[cards[0]]
    if width > rules.max_width or any(n != width for n in counts.values()):
        return None
    pos = trump.pos
    if len(counts) == 1:
        return Component(width, (cards[0],), pos[cards[0]])
    if width < 2:
        return None
    faces = sorted(counts, key=pos.__getitem__)
    low = pos[faces[0]]
    if all(pos[f] == low + i for i, f in enumerate(faces)):
        return Component(width, tuple(faces), pos[faces[-1]])
    if rules.ace_low_tractor:
        # R3.3: the A below the lowest rank, only as the low end of the run.
        ace = faces[-1]
        if trump.low_pos[ace] == -1 and all(pos[f] == i for i, f in enumerate(faces[:-1])):
            return Component(width, (ace, *faces[:-1]), len(faces) - 2)
    return None


def _widest(counts: list[int], faces: tuple[Card, ...]) -> int:
    # An empty position (a gap of the Botzone ladder, shengji/trump.py) holds nothing.
    return counts[faces[0]] if len(faces) == 1 else max([counts[f] for f in faces], default=0)


def _greatest(
    counts: list[int], best_per_pos: list[int], layout: SuitLayout, rules: RuleSet
) -> tuple[int, int, int] | None:
    """The greatest component (R4.2 key) `counts` allow, as (width, first position, length);
    `best_per_pos[p]` is the most copies of one face on position p."""
    n = len(best_per_pos)
    low = layout.low if rules.ace_low_tractor else -1
    low_count = counts[low] if low >= 0 else 0
    best_key: tuple[int, bool, int, int] | None = None
    best: tuple[int, int, int] | None = None
    for width in range(min(rules.max_width, max(best_per_pos)), 0, -1):
        if best_key is not None and best_key[0] > width * n:
            break  # no run of this width can hold more cards than the best found
        p = 0
        while p < n:
            if best_per_pos[p] < width:
                p += 1
                continue
            q = p
            while q + 1 < n and best_per_pos[q + 1] >= width:
                q += 1
            if width >= 2 and q > p:
                key = (width * (q - p + 1), True, width, q)
                if best_key is None or key > best_key:
                    best_key, best = key, (width, p, q - p + 1)
            else:
                key = (width, False, width, q)
                if best_key is None or key > best_key:
                    best_key, best = key, (width, q, 1)
            p = q + 1
        if width >= 2 and low_count >= width:
            q = -1
            while q + 1 < min(n, layout.low_stop) and best_per_pos[q + 1] >= width:
                q += 1
            if q >= 0:
                key = (width * (q + 2), True, width, q)
                if best_key is None or key > best_key:
                    best_key, best = key, (width, -1, q + 2)
    return best


def _take(counts: list[int], layout: SuitLayout, width: int, start: int, length: int) -> Component:
    """Remove the component (width, start, length) from `counts`; faces chosen best-fit."""
    faces: list[Card] = []
    for p in range(start, start + length):
        if p == -1:
            face = layout.low
        else:
            face = -1
            for f in layout.at[p]:
                if counts[f] >= width and (face < 0 or counts[f] < counts[face]):
                    face = f
        counts[face] -= width
        faces.append(face)
    return Component(width, tuple(faces), start + length - 1)


def _lead_suit(cards: Sequence[Card], trump: TrumpContext, rules: RuleSet) -> tuple[int, list[int]]:
    if not cards:
        raise PlayError("a lead needs at least one card")
    suit = effective_suit(cards, trump)
    if suit is None:
        raise PlayError(f"a lead must be one effective suit (R4.1): {describe_cards(cards)}")
    counts = suit_counts(cards)
    for face in cards:
        n = counts[face]
        if n > rules.max_width:
            raise PlayError(
                f"{n} copies of {pretty_card(face)} with {rules.decks} decks: {describe_cards(cards)}"
            )
    return suit, counts


# ---------------------------------------------------------------------------------------------
# Remembered readings: a replay reads the same few hundred plays over and over


ComponentCache = dict[tuple[Card, ...], Component | None]
_COMPONENTS: Final[dict[tuple[int | None, int, bool, bool, bool, int, bool], ComponentCache]] = {}
_READINGS: Final[
    dict[
        tuple[int | None, int, bool, bool, bool, int, bool, str, str],
        dict[tuple[Card, ...], Reading],
    ]
] = {}
_MEMO_LIMIT: Final = 50_000
"""Entries all remembered components and readings may hold together (a few MB); past it every
table starts afresh."""
_memo_left = _MEMO_LIMIT


def _spend() -> None:
    """Count one new entry against `_MEMO_LIMIT`; clear every table when it is spent."""
    global _memo_left
    _memo_left -= 1
    if _memo_left < 0:
        for table in _COMPONENTS.values():
            table.clear()
        for known in _READINGS.values():
            known.clear()
        _memo_left = _MEMO_LIMIT


def clear_caches() -> None:
    """Forget every remembered component and reading (benchmarks measure the cold cost)."""
    _COMPONENTS.clear()
    _READINGS.clear()


def component_cache(trump: TrumpContext, rules: RuleSet) -> ComponentCache:
    """The `as_component` results remembered for one trump context and rule set, by card tuple
    (for `cached_component`). A reading depends on the cards, the trump, the decks and
    `ace_low_tractor` only, and components are values, so they can be shared."""
    key = (*trump.key, rules.decks, rules.ace_low_tractor)
    cache = _COMPONENTS.get(key)
    if cache is None:
        cache = _COMPONENTS[key] = {}
    return cache


def cached_component(
    cards: tuple[Card, ...], trump: TrumpContext, rules: RuleSet, cache: ComponentCache
) -> Component | None:
    """`as_component(cards, trump, rules)`, remembered in `cache` (`component_cache(trump,
    rules)`)."""
    try:
        return cache[cards]
    except KeyError:
        pass
    comp = as_component(cards, trump, rules)
    _spend()
    cache[cards] = comp
    return comp


def read_lead(
    cards: Sequence[Card],
    trump: TrumpContext,
    rules: RuleSet,
    split: Sequence[Sequence[Card]] | None = None,
) -> Reading:
    """The lead read into components, greatest first (R4.1, R4.2; see the module docstring).

    `split` is the leader's stated grouping; it must partition `cards` into units and tractors.
    Raises PlayError for an empty or mixed-suit lead, impossible card counts or a bad split.
    Readings without a split are remembered per trump context and rule set.
    """
    if split is None and type(cards) is tuple:
        known = reading_cache(trump, rules)
        reading = known.get(cards)
        if reading is None:
            reading = _read_lead(cards, trump, rules, None)
            _spend()
            known[cards] = reading
        return reading
    return _read_lead(cards, trump, rules, split)


def reading_cache(trump: TrumpContext, rules: RuleSet) -> dict[tuple[Card, ...], Reading]:
    """The readings `read_lead` remembers for one trump context and rule set, by card tuple: a
    caller reading many leads may look there first."""
    key = (
        *trump.key,
        rules.decks,
        rules.ace_low_tractor,
        rules.throw_split,
        rules.tractor_width,
    )
    known = _READINGS.get(key)
    if known is None:
        known = _READINGS[key] = {}
    return known


def _read_lead(
    cards: Sequence[Card],
    trump: TrumpContext,
    rules: RuleSet,
    split: Sequence[Sequence[Card]] | None,
) -> Reading:
    if split is None:
        # Most leads are one unit or one tractor: the whole lead is then the largest component.
        single = as_component(cards, trump, rules)
        if single is not None:
            return Reading(trump.eff[cards[0]], (single,))
    suit, counts = _lead_suit(cards, trump, rules)
    if split is not None:
        return _read_split(cards, suit, counts, split, trump, rules)
    layout = suit_layout(trump, suit)
    if rules.throw_split == "lowest_first":
        if rules.tractor_width == "running":
            return read_server(cards, suit, trump, rules)
        return _read_lowest_first(suit, counts, layout, rules)
    at = layout.at
    best_per_pos = [_widest(counts, faces) for faces in at]
    comps: list[Component] = []
    while max(best_per_pos, default=0) > 1:
        found = _greatest(counts, best_per_pos, layout, rules)
        assert found is not None, "cards left but no unit found"
        width, start, length = found
        comps.append(_take(counts, layout, width, start, length))
        for p in range(max(start, 0), start + length):
            best_per_pos[p] = _widest(counts, at[p])
        if start == -1:
            best_per_pos[layout.low_stop] = _widest(counts, at[layout.low_stop])
    # Only singles are left: the greedy order takes the highest first and, on a shared
    # position, the lowest face id first.
    for p in range(len(at) - 1, -1, -1):
        if best_per_pos[p]:
            comps.extend(Component(1, (f,), p) for f in at[p] if counts[f])
    return Reading(suit, tuple(comps))


# ---------------------------------------------------------------------------------------------
# R4.2 `throw_split = lowest_first`: splits built from the lowest card up

Choice = tuple[int, tuple[int, ...], int]
"""One step of a `lowest_first` split: (width, the walk indices of its faces, top position)."""


class _LowestFirst:
    """The walk of R4.2 `lowest_first` over one lead's face counts.

    The faces are walked low to high (`walk[k]` = (position, face); faces sharing a position in
    the R4.4 suit order, `cards.equal_rank_order`). A state is the tuple of counts left along the walk; its lowest card X
    starts either a unit of all its copies or a tractor running up the positions above it. Under
    `ace_low_tractor` the plain A may first start a tractor below the lowest rank (R3.3); not
    doing so is preferred, like the unit, and leaves the A at its own place.
    """

    def __init__(self, counts: list[int], layout: SuitLayout, rules: RuleSet) -> None:
        self.walk: list[tuple[int, Card]] = [
            (p, f)
            for p, faces in enumerate(layout.at)
            for f in sorted(faces, key=equal_rank_order)
            if counts[f]
        ]
        self.start = tuple(counts[f] for _, f in self.walk)
        self.low = -1
        self.low_stop = layout.low_stop
        if rules.ace_low_tractor and layout.low >= 0:
            self.low = next((k for k, (_, f) in enumerate(self.walk) if f == layout.low), -1)
        self.best: dict[tuple[int, ...], tuple[int, bool]] = {}

    def _runs(self, state: tuple[int, ...], first: int, pos: int) -> list[Choice]:
        """Every tractor that starts with walk index `first` (on position `pos`, -1 for the low
        A) and climbs the positions above it, faces held >= 2 times; longest first, then, of runs
        as long, the one on the later face of a shared position (the later suit in ♠ ♥ ♦ ♣)
        first, whatever their widths: rbtying/shengji tries the off-suit level cards in that
        order and keeps the last split it found (`TrickFormat::from_cards`)."""
        walk = self.walk
        out: list[Choice] = []

        def climb(faces: tuple[int, ...], width: int, p: int) -> None:
            if len(faces) >= 2:
                out.append((width, faces, p))
            nxt = p + 1
            if self.low >= 0 and pos == -1 and nxt >= self.low_stop:
                return  # an ace-low run stops below the A's own place (R3.3)
            for k, (q, _) in enumerate(walk):
                if q == nxt and state[k] >= 2 and k not in faces:
                    climb((*faces, k), min(width, state[k]), nxt)

        if state[first] >= 2:
            climb((first,), state[first], pos)
        out.sort(key=lambda c: (-len(c[1]), [-k for k in c[1]]))
        return out

    def choices(self, state: tuple[int, ...], low_first: bool) -> list[Choice]:
        """The choices for the lowest card of `state`, most preferred first (R4.2): the unit,
        then longer tractors before shorter (then the later suit on a shared position)."""
        if low_first:
            # The plain A below the lowest rank: not using it there comes first (empty choice).
            return [(0, (), -1), *self._runs(state, self.low, -1)]
        first = next(k for k, n in enumerate(state) if n)
        pos = self.walk[first][0]
        runs = self._runs(state, first, pos)
        unit: list[Choice] = [(state[first], (first,), pos)]
        if runs and all(all(state[k] == w for k in faces) for w, faces, _ in runs):
            unit = []
        return unit + runs

    @staticmethod
    def after(state: tuple[int, ...], choice: Choice) -> tuple[int, ...]:
        width, faces, _ = choice
        left = list(state)
        for k in faces:
            left[k] -= width
        return tuple(left)

    @staticmethod
    def key(choice: Choice) -> tuple[int, bool]:
        """R4.2's measure of the largest component: card count, then tractor before unit."""
        width, faces, _ = choice
        return (width * len(faces), len(faces) > 1)

    def best_max(self, state: tuple[int, ...]) -> tuple[int, bool]:
        """The largest component any complete split of `state` can have."""
        if not any(state):
            return (0, False)
        found = self.best.get(state)
        if found is None:
            found = max(
                max(self.key(c), self.best_max(self.after(state, c)))
                for c in self.choices(state, False)
            )
            self.best[state] = found
        return found

    def split(self) -> list[Choice]:
        """The split R4.2 keeps: largest component largest, then preferred choices lowest first."""
        state = self.start
        low_first = self.low >= 0
        if low_first:
            target = max(
                max(self.key(c), self.best_max(self.after(state, c)))
                for c in self.choices(state, True)
            )
        else:
            target = self.best_max(state)
        taken: list[Choice] = []
        reached: tuple[int, bool] = (0, False)
        while any(state):
            chosen: Choice | None = None
            for c in self.choices(state, low_first):
                nxt = self.after(state, c)
                if max(reached, self.key(c), self.best_max(nxt)) == target:
                    chosen = c
                    break
            assert chosen is not None, "some choice completes the best split"
            low_first = False
            if chosen[1]:
                taken.append(chosen)
                reached = max(reached, self.key(chosen))
            state = self.after(state, chosen)
        return taken


def _read_lowest_first(suit: int, counts: list[int], layout: SuitLayout, rules: RuleSet) -> Reading:
    walker = _LowestFirst(counts, layout, rules)
    comps: list[Component] = []
    for width, faces, top in walker.split():
        comps.append(Component(width, tuple(walker.walk[k][1] for k in faces), top))
    comps.sort(key=lambda c: (component_key(c), c.faces), reverse=True)
    return Reading(suit, tuple(comps))


def _read_split(
    cards: Sequence[Card],
    suit: int,
    counts: list[int],
    split: Sequence[Sequence[Card]],
    trump: TrumpContext,
    rules: RuleSet,
) -> Reading:
    comps: list[Component] = []
    for part in split:
        comp = as_component(tuple(part), trump, rules)
        if comp is None:
            raise PlayError(
                f"stated split part {describe_cards(part) or '(empty)'} is not a unit or tractor"
                " (R4.2)"
            )
        comps.append(comp)
    if sorted(c for comp in comps for c in comp.cards()) != sorted(cards):
        parts = " | ".join(describe_cards(p) for p in split)
        raise PlayError(
            f"stated split {parts} does not use exactly the lead {describe_cards(cards)} (R4.2)"
        )
    comps.sort(key=lambda c: (component_key(c), c.faces), reverse=True)
    return Reading(suit, tuple(comps))


# ---------------------------------------------------------------------------------------------
# Matching a play to a lead's exact shape


def _placements(
    counts: list[int], layout: SuitLayout, width: int, length: int, ace_low: bool, floor: int
) -> Iterator[tuple[int, tuple[Card, ...]]]:
    """Every (top, faces) of a width×length component in `counts` with top > floor, highest first."""
    at = layout.at
    if length == 1:
        for p in range(len(at) - 1, max(floor, -1), -1):
            for f in reversed(at[p]):
                if counts[f] >= width:
                    yield p, (f,)
        return
    for top in range(len(at) - 1, max(length - 2, floor), -1):
        choices = []
        for p in range(top - length + 1, top + 1):
            fs = tuple(f for f in reversed(at[p]) if counts[f] >= width)
            if not fs:
                break
            choices.append(fs)
        else:
            if all(len(fs) == 1 for fs in choices):
                yield top, tuple(fs[0] for fs in choices)
            else:
                for combo in product(*choices):
                    yield top, combo
    top = length - 2
    low = layout.low
    # A window reaching up to just below the A holds the same cards as the plain run ending on the
    # A, which is stronger: only shorter ace-low windows are other splits.
    if ace_low and floor < top < layout.low_stop - 1 and low >= 0 and counts[low] >= width:
        choices = []
        for p in range(top + 1):
            fs = tuple(f for f in reversed(at[p]) if counts[f] >= width)
            if not fs:
                return
            choices.append(fs)
        for combo in product(*choices):
            yield top, (low, *combo)


def _search(
    counts: list[int],
    layout: SuitLayout,
    shapes: Sequence[tuple[int, int]],
    floors: Sequence[int],
    i: int,
    prev: tuple[int, tuple[Card, ...]] | None,
    ace_low: bool,
    out: list[Component],
    desc: Sequence[tuple[int, Card]],
) -> Iterator[list[Component]]:
    if i == len(shapes):
        yield out
        return
    width, length = shapes[i]
    if width == 1 and length == 1 and all(s == (1, 1) for s in shapes[i:]):
        # A tail of singles is whatever is left, highest first: one way only.
        tail = [Component(1, (f,), p) for p, f in desc for _ in range(counts[f])]
        if all(c.top > fl for c, fl in zip(tail, floors[i:], strict=True)):
            yield out + tail
        return
    same_as_prev = i > 0 and shapes[i - 1] == shapes[i]
    for top, faces in _placements(counts, layout, width, length, ace_low, floors[i]):
        if same_as_prev and prev is not None and (top, faces) > prev:
            continue  # equal shapes come highest first: skip mirrored orders
        for f in faces:
            counts[f] -= width
        out.append(Component(width, faces, top))
        yield from _search(counts, layout, shapes, floors, i + 1, (top, faces), ace_low, out, desc)
        out.pop()
        for f in faces:
            counts[f] += width


@dataclass(frozen=True, slots=True)
class ShapePlan:
    """A lead's shape prepared once for matching many plays against it.

    `order` lists the lead's component indices in key order (ties keep the lead's order) and
    `shapes` their (width, length) in that order.
    """

    size: int
    order: tuple[int, ...]
    shapes: tuple[tuple[int, int], ...]
    in_order: bool

    def __init__(
        self, size: int, order: tuple[int, ...], shapes: tuple[tuple[int, int], ...], in_order: bool
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "shapes", shapes)
        object.__setattr__(self, "in_order", in_order)


def shape_plan(lead: Reading) -> ShapePlan:
    comps = lead.components
    order = tuple(sorted(range(len(comps)), key=lambda i: component_key(comps[i]), reverse=True))
    return ShapePlan(
        sum(c.width * len(c.faces) for c in comps),
        order,
        tuple((comps[i].width, len(comps[i].faces)) for i in order),
        order == tuple(range(len(comps))),
    )


def iter_matches(
    cards: Sequence[Card],
    lead: Reading,
    trump: TrumpContext,
    rules: RuleSet,
    floors: Sequence[int] | None = None,
    *,
    plan: ShapePlan | None = None,
) -> Iterator[tuple[Component, ...]]:
    """Every split of `cards` into the lead's exact shape, strongest first.

    Component i answers lead component i; among lead components of equal shape the highest answers
    the highest. `floors` (indexed like the lead's components) keeps only splits whose component i
    has a top above floors[i]. The cards must be of one effective suit (any suit: a ruff is matched
    against a side-suit lead's shape too). `plan` is `shape_plan(lead)`, for callers matching many
    plays against one lead.
    """
    if plan is None:
        plan = shape_plan(lead)
    if len(cards) != plan.size:
        return
    suit = effective_suit(cards, trump)
    if suit is None:
        return
    counts = suit_counts(cards)
    max_width = rules.max_width
    for c in cards:
        if counts[c] > max_width:
            return
    order = plan.order
    ordered_floors = [-2] * len(order) if floors is None else [floors[i] for i in order]
    layout = suit_layout(trump, suit)
    pos = trump.pos
    desc = sorted({(pos[c], c) for c in cards}, reverse=True)
    search = _search(
        counts, layout, plan.shapes, ordered_floors, 0, None, rules.ace_low_tractor, [], desc
    )
    if plan.in_order:
        for found in search:
            yield tuple(found)
        return
    for found in search:
        result: list[Component] = list(found)
        for k, i in enumerate(order):
            result[i] = found[k]
        yield tuple(result)


def match_shape(
    cards: Sequence[Card], reading: Reading, trump: TrumpContext, rules: RuleSet
) -> tuple[Component, ...] | None:
    """The strongest split of a play into the lead's exact shape, or None if it has another shape.

    Component i answers lead component i (see `iter_matches`).
    """
    if len(reading.components) == 1:
        comp = as_component(cards, trump, rules)
        if comp is None or comp.shape() != reading.components[0].shape():
            return None
        return (comp,)
    return next(iter_matches(cards, reading, trump, rules), None)


picklable(SuitLayout, ShapePlan)
