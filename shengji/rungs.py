"""The first rung of a lead's ladder that some cards satisfy, found without listing the ladder.

A long throw's ladder (R5.3, `shengji.ladder`) has hundreds of thousands of rungs: listing them to
walk them costs seconds. The ladder's order makes a direct search possible. Its rungs come in
blocks, one per partition of the lead's cards into units (widths), partitions in
reverse-lexicographic order; inside a block the rungs are the ways to chain the block's units into
runs that pack into the lead's components, ordered by their run lengths and then by the runs'
widths, both descending. Two facts cut the search down:

- Cards that satisfy some rung of a block satisfy its rung of lone units (chaining only adds
  demands), and that rung packs whenever another of the block does (a run's units fit wherever
  the run fits). So the first block whose lone units the cards can host, and which packs, decides.
  Finding it is a greedy walk over partition prefixes: a prefix the cards can host always extends
  with singles (without `protect_longer_units`), so no prefix is tried twice.
- Inside that block the first rung is the greatest (lengths, runs) key the cards can satisfy. It
  is built greedily, one run length and then one run at a time, each time the greatest value for
  which some completion exists; a completion exists exactly when one with every later unit lone
  exists (splitting runs never hurts), which a memoised search over placements decides.

The cards are per-face counts of one suit along its ladder positions (`follow._Layout`): `at[i]`
the faces standing on position lo + i, a run from the low A (position -1) may not reach
`ace_stop`. Under `protect_longer_units` a unit of width w takes only a face held exactly w
times and untouched (`protect` holds the holding's counts).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence

from .ladder import LeadShape, Requirement, Rung, canonical, lead_rung

Position = tuple[int, tuple[int, ...], tuple[int, ...], tuple[Requirement, ...]]
"""Where a rung stands in its ladder, smaller first: (0, …) the lead's own rung, then (1, partition,
run lengths, runs) with every number negated (the ladder lists those keys greatest first)."""
OWN: Position = (0, (), (), ())

_WIDE = (4, 3, 2)


class _Cards:
    """The cards searched: per-face counts (changed during the search and restored), the suit's
    positions, and the memo of the block search."""

    __slots__ = (
        "ace_stop",
        "at",
        "lo",
        "memo",
        "packable",
        "packed",
        "protect",
        "room",
        "shape",
        "singles",
        "spans",
        "vals",
    )

    def __init__(
        self,
        shape: LeadShape,
        at: tuple[tuple[int, ...], ...],
        lo: int,
        ace_stop: int,
        vals: list[int],
        protect: Sequence[int] | None,
    ) -> None:
        self.shape = shape
        self.at = at
        self.lo = lo
        self.ace_stop = ace_stop
        self.vals = vals
        self.protect = protect
        self.singles = 0
        self.memo: dict[tuple[object, ...], bool] = {}
        self.packed: dict[tuple[tuple[int, int], ...], bool] = {}
        self.packable: dict[tuple[object, ...], bool] = {}
        self.spans: dict[tuple[object, ...], bool] = {}
        self.room = [0] * 5
        """room[w]: the cards of the largest component at least w wide (what one run may take)."""
        for width, length in shape:
            for w in range(1, width + 1):
                self.room[w] = max(self.room[w], width * length)

    def packs(self, reqs: tuple[Requirement, ...]) -> bool:
        """`ladder.fits_into`, remembered by what it looks at (each requirement's widest unit and
        size)."""
        key = tuple(sorted(((max(r), sum(r)) for r in reqs), reverse=True))
        known = self.packed.get(key)
        if known is None:
            known = self.packed[key] = _packs(key, self.shape)
        return known

    def packs_items(self, items: tuple[tuple[int, int], ...]) -> bool:
        """`packs` for requirements given as (widest unit, cards)."""
        key = tuple(sorted(items, reverse=True))
        known = self.packed.get(key)
        if known is None:
            known = self.packed[key] = _packs(key, self.shape)
        return known

    def usable(self, f: int, w: int) -> bool:
        c = self.vals[f]
        if self.protect is None:
            return c >= w
        return c == w and self.protect[f] == w

    def lone(self, pool: Sequence[int], singles: int) -> bool:
        """Whether the units `pool` (count by width, index 0..4) and `singles` single cards fit
        the cards as lone units (best fit, widest first: exact for units of at most four)."""
        vals = self.vals
        protect = self.protect
        if protect is not None:
            for w in (4, 3, 2, 1):
                need = pool[w] if w > 1 else singles
                if need:
                    have = 0
                    for f, c in enumerate(vals):
                        if c == w and protect[f] == w:
                            have += 1
                    if have < need:
                        return False
            return True
        if sum(vals) < singles + 2 * pool[2] + 3 * pool[3] + 4 * pool[4]:
            return False
        wide = sorted(c for c in vals if c >= 2)
        for w in _WIDE:
            for _ in range(pool[w]):
                k = bisect_left(wide, w)
                if k == len(wide):
                    return False
                c = wide.pop(k)
                if c - w >= 2:
                    insort(wide, c - w)
        return True


def _packs(items: tuple[tuple[int, int], ...], shape: LeadShape) -> bool:
    """Whether items (widest unit, cards), widest and largest first, go into the components
    (width, length) of a lead: each into one at least as wide with room for it. Bins in the same
    state are interchangeable, so the search remembers the states that failed."""
    failed: set[tuple[int, tuple[tuple[int, int], ...]]] = set()
    bins = [[width, width * length] for width, length in shape]

    def place(i: int) -> bool:
        if i == len(items):
            return True
        state = (i, tuple(sorted((b[0], b[1]) for b in bins)))
        if state in failed:
            return False
        widest, size = items[i]
        tried: set[tuple[int, int]] = set()
        for b in bins:
            if b[0] < widest or b[1] < size or (b[0], b[1]) in tried:
                continue
            tried.add((b[0], b[1]))
            b[1] -= size
            ok = place(i + 1)
            b[1] += size
            if ok:
                return True
        failed.add(state)
        return False

    return place(0)


def _lone_reqs(pool: Sequence[int]) -> list[Requirement]:
    return [(w,) for w in _WIDE for _ in range(pool[w])]


# --- the deciding block ---------------------------------------------------------------------------


def first_partition(cards: _Cards, n: int) -> tuple[int, ...] | None:
    """The first partition of the lead's n cards (reverse-lexicographic, parts <= the widest
    unit) whose lone units pack into the lead and fit the cards; None if none does."""
    cap = max(width for width, _ in cards.shape)
    pool = [0, 0, 0, 0, 0]
    prefix: list[int] = []
    failed: set[tuple[int, ...]] = set()

    def extend(left: int, top: int) -> bool:
        if left == 0:
            return True
        key = (left, top, *pool)
        if key in failed:
            return False
        for w in range(min(top, left), 0, -1):
            if w == 1:
                # Only singles are left: the prefix decides.
                if cards.lone(pool, left):
                    prefix.extend([1] * left)
                    return True
                break
            pool[w] += 1
            if cards.lone(pool, 0) and cards.packs(tuple(_lone_reqs(pool))):
                prefix.append(w)
                if extend(left - w, w):
                    return True
                prefix.pop()
            pool[w] -= 1
        failed.add(key)
        return False

    if extend(n, cap):
        return tuple(prefix)
    return None


# --- the first rung inside the block --------------------------------------------------------------


def _pool_of(partition: Sequence[int]) -> list[int]:
    pool = [0, 0, 0, 0, 0]
    for w in partition:
        pool[w] += 1
    return pool


Spec = tuple[tuple[int, ...], int]
"""A run to place: (its first widths, its length); all its widths, or none of them, may be given."""


def _packable(
    cards: _Cards,
    specs: tuple[Spec, ...],
    bound: Requirement | None,
    pool: list[int],
    placed: tuple[tuple[int, int], ...],
) -> bool:
    """Whether runs meeting `specs` can take widths from `pool` so that they, the runs already
    `placed` ((widest unit, cards) each) and the pool's other units as lone units pack into the
    lead — `_exists` without the cards, so its answer holds for every placement that leads here.
    Remembered per cards (the lead does not change)."""
    key = (specs, bound, tuple(pool), placed)
    known = cards.packable.get(key)
    if known is not None:
        return known
    found = False
    if not specs:
        lone = tuple((w, w) for w in _WIDE for _ in range(pool[w]))
        found = cards.packs_items(placed + lone)
    else:
        given, length = specs[0]
        chain = len(specs) > 1 and specs[1][1] == length
        widths: list[int] = []
        room = cards.room

        def choose(j: int, widest: int, size: int) -> bool:
            if j == length:
                run = tuple(widths)
                if bound is not None and run > bound:
                    return False
                item = ((widest, size),)
                return _packable(
                    cards,
                    specs[1:],
                    run if chain else None,
                    pool,
                    tuple(sorted(placed + item)),
                )
            options = (given[j],) if j < len(given) else _WIDE
            for w in options:
                if not pool[w] or size + w > room[max(w, widest)]:
                    continue
                if bound is not None and [*widths, w] > list(bound[: j + 1]):
                    continue
                pool[w] -= 1
                widths.append(w)
                ok = choose(j + 1, max(w, widest), size + w)
                widths.pop()
                pool[w] += 1
                if ok:
                    return True
            return False

        found = choose(0, 0, 0)
    cards.packable[key] = found
    return found


def _spans(cards: _Cards, lengths: tuple[int, ...]) -> bool:
    """Whether runs of these lengths (longest first) could stand on the cards as intervals of
    positions, each position giving each run a unit of at least two cards: a position offers one
    unit per pair its faces hold (under `protect_longer_units`, one per untouched face held at
    least twice). Widths, the pool and the low A's limits are ignored, so a False is certain."""
    vals, protect = cards.vals, cards.protect
    caps: list[int] = []
    for faces in cards.at:
        if protect is None:
            caps.append(sum(vals[f] // 2 for f in faces))
        else:
            caps.append(sum(1 for f in faces if vals[f] >= 2 and vals[f] == protect[f]))
    key = (lengths, tuple(caps))
    known = cards.spans.get(key)
    if known is not None:
        return known
    npos = len(caps)

    def fit(i: int, floor: int) -> bool:
        if i == len(lengths):
            return True
        m = len_i = lengths[i]
        # Runs of one length are interchangeable: start each at or after the one before.
        first = floor if i and lengths[i - 1] == len_i else 0
        for s in range(first, npos - m + 1):
            if all(caps[s + j] for j in range(m)):
                for j in range(m):
                    caps[s + j] -= 1
                ok = fit(i + 1, s)
                for j in range(m):
                    caps[s + j] += 1
                if ok:
                    return True
        return False

    found = fit(0, 0)
    cards.spans[key] = found
    return found


def _exists(cards: _Cards, specs: tuple[Spec, ...], pool: list[int]) -> bool:
    """Whether runs meeting `specs` (in order; consecutive runs of one length are taken in
    non-increasing order of widths) can be placed on the cards together with every other unit of
    `pool` as a lone unit and the block's singles, all packing into the lead."""
    placed: list[Requirement] = []
    at, vals, lo, ace_stop, room = cards.at, cards.vals, cards.lo, cards.ace_stop, cards.room
    npos = len(at)

    def feasible() -> bool:
        return cards.lone(pool, cards.singles) and cards.packs((*placed, *_lone_reqs(pool)))

    def rec(i: int, bound: Requirement | None) -> bool:
        if not feasible():
            return False
        if i == len(specs):
            return True
        sig = tuple(sorted((max(r), sum(r)) for r in placed))
        if not _packable(cards, specs[i:], bound, pool, sig):
            return False
        if not _spans(cards, tuple(length for _, length in specs[i:])):
            return False
        key = (specs[i:], bound, tuple(vals), tuple(pool), sig)
        known = cards.memo.get(key)
        if known is not None:
            return known
        given, length = specs[i]
        fixed = len(given)
        chain = i + 1 < len(specs) and specs[i + 1][1] == length
        widths: list[int] = []
        top = [0]  # the widest unit of the run so far, after each unit
        found = False

        def place(s: int, j: int) -> bool:
            if j == length:
                run = tuple(widths)
                if bound is not None and run > bound:
                    return False
                placed.append(run)
                ok = rec(i + 1, run if chain else None)
                placed.pop()
                return ok
            options = (given[j],) if j < fixed else _WIDE
            for w in options:
                if not pool[w]:
                    continue
                if bound is not None and [*widths, w] > list(bound[: j + 1]):
                    continue
                if sum(widths) + w > room[max(w, top[-1])]:
                    continue  # the run so far fits no component: longer it never will
                pool[w] -= 1
                widths.append(w)
                top.append(max(w, top[-1]))
                for f in at[s + j]:
                    if cards.usable(f, w):
                        vals[f] -= w
                        ok = place(s, j + 1)
                        vals[f] += w
                        if ok:
                            widths.pop()
                            top.pop()
                            pool[w] += 1
                            return True
                widths.pop()
                top.pop()
                pool[w] += 1
            return False

        for s in range(npos - length + 1):
            if s + lo == -1 and s + length - 1 + lo >= ace_stop:
                continue  # a run from the low A may not reach the A again (R3.3)
            if place(s, 0):
                found = True
                break
        cards.memo[key] = found
        return found

    return rec(0, None)


def best_in_block(cards: _Cards, partition: tuple[int, ...]) -> tuple[Position, Rung]:
    """The first rung of the block `partition` the cards satisfy (one exists: the lone units)."""
    pool = _pool_of(partition)
    cards.singles = pool[1]
    pool[1] = 0
    cards.memo.clear()
    wide = pool[2] + pool[3] + pool[4]
    lengths: list[int] = []
    top = min(wide, len(cards.at))
    while True:
        used = sum(lengths)
        best = 0
        for length in range(min(top, wide - used), 1, -1):
            if _exists(cards, tuple(((), k) for k in (*lengths, length)), pool):
                best = length
                break
        if not best:
            break
        lengths.append(best)
        top = best
    # The runs, greatest first, one width at a time: the greatest width some completion allows.
    runs: list[Requirement] = []
    for j, length in enumerate(lengths):
        done = tuple((run, len(run)) for run in runs)
        rest = tuple(((), k) for k in lengths[j + 1 :])
        widths: list[int] = []
        for _ in range(length):
            for w in _WIDE:
                if _exists(cards, (*done, ((*widths, w), length), *rest), pool):
                    widths.append(w)
                    break
            else:
                raise AssertionError(f"no run of length {length} although one was found")
        runs.append(tuple(widths))
    left = list(pool)
    for run in runs:
        for w in run:
            left[w] -= 1
    rung = canonical((*runs, *_lone_reqs(left), *((1,),) * cards.singles))
    where = (
        1,
        tuple(-w for w in partition),
        tuple(-k for k in lengths) + (-1,) * sum(left),
        tuple(tuple(-w for w in run) for run in runs),
    )
    return where, rung


def satisfies(
    shape: LeadShape,
    at: tuple[tuple[int, ...], ...],
    lo: int,
    ace_stop: int,
    hold: list[int],
    play: list[int],
    owed: Rung,
) -> bool:
    """Whether a play of the holding (per-face counts of both) is legal without
    `protect_longer_units`: it is the whole holding or satisfies `owed`, the rung `decide` finds
    the holding owes (`decide` with a play asks this; `follow.legal_plays` asks it of every
    candidate against one rung found once)."""
    return play == hold or _meets(_Cards(shape, at, lo, ace_stop, play, None), owed)


def _meets(cards: _Cards, rung: Rung) -> bool:
    """Whether the cards satisfy one given rung (that packs into the lead)."""
    pool = [0, 0, 0, 0, 0]
    runs: list[Requirement] = []
    for req in rung:
        if len(req) > 1:
            runs.append(req)
        else:
            pool[req[0]] += 1
    for run in runs:
        for w in run:
            pool[w] += 1
    cards.singles = pool[1]
    pool[1] = 0
    cards.memo.clear()
    runs.sort(key=lambda r: (len(r), r), reverse=True)
    return _exists(cards, tuple((run, len(run)) for run in runs), pool)


def _first(cards: _Cards, n: int) -> tuple[tuple[int, ...], Rung | None] | None:
    """The first partition whose block the cards reach, and the rung when it is the lead's own
    (checked first); None when the cards satisfy no rung."""
    own = lead_rung(cards.shape)
    if _meets(cards, own):
        return (), own
    partition = first_partition(cards, n)
    if partition is None:
        return None
    return partition, None


def decide(
    shape: LeadShape,
    at: tuple[tuple[int, ...], ...],
    lo: int,
    ace_stop: int,
    hold: list[int],
    protect: Sequence[int] | None,
    play: list[int] | None,
) -> tuple[Position, Rung, bool] | None:
    """The rung that decides a follow (R5.3): where it stands, the rung, and whether the play
    (per-face counts, or None to ask only what the holding owes) satisfies it. The play is
    judged on its cards; the holding under `protect` when given. The play decides when it
    reaches a rung at or before the holding's first; None when neither reaches any rung. The
    play must be part of the holding (R5.1 is checked before)."""
    n = sum(width * length for width, length in shape)
    if play is not None and protect is None:
        # The play is part of the holding, so every rung it meets the holding meets: it is legal
        # exactly when it meets the holding's first rung.
        owed = decide(shape, at, lo, ace_stop, hold, None, None)
        if owed is None:
            raise AssertionError("a holding of the lead's size meets no rung")
        return owed[0], owed[1], satisfies(shape, at, lo, ace_stop, hold, play, owed[1])
    if play is not None and protect is None and play == hold:
        play = None  # the same cards: the play reaches the holding's first rung
        same = True
    else:
        same = False
    mine = None if play is None else _Cards(shape, at, lo, ace_stop, play, None)
    held = _Cards(shape, at, lo, ace_stop, hold, protect)
    mine_at = None if mine is None else _first(mine, n)
    if mine_at is not None and mine_at[1] is not None:
        return OWN, mine_at[1], True
    held_at = _first(held, n)
    if held_at is not None and held_at[1] is not None:
        return OWN, held_at[1], same
    if mine is not None and mine_at is not None and (held_at is None or mine_at[0] > held_at[0]):
        where, rung = best_in_block(mine, mine_at[0])
        return where, rung, True
    if held_at is None:
        return None
    where, rung = best_in_block(held, held_at[0])
    if same:
        return where, rung, True
    if mine is not None and mine_at is not None and mine_at[0] == held_at[0]:
        mine_where, mine_rung = best_in_block(mine, mine_at[0])
        if mine_where <= where:
            return mine_where, mine_rung, True
    return where, rung, False


def first_rung(
    shape: LeadShape,
    at: tuple[tuple[int, ...], ...],
    lo: int,
    ace_stop: int,
    vals: list[int],
    protect: Sequence[int] | None,
) -> tuple[Position, Rung] | None:
    """The first derived rung of the ladder of `shape` (the lead's own rung aside: the caller
    tries it first) that the per-face counts `vals` satisfy, and where it stands; None when none
    is (possible only with `protect`). `vals` is left as it was."""
    cards = _Cards(shape, at, lo, ace_stop, vals, protect)
    n = sum(width * length for width, length in shape)
    partition = first_partition(cards, n)
    if partition is None:
        return None
    return best_in_block(cards, partition)
