"""The follow ladders of R5.3: what a follower with enough cards of the led suit must match.

A rung is a tuple of requirements that disjoint cards must meet; a requirement is a tuple of unit
widths on consecutive faces, low face first (`(3,)` a triple, `(3, 2)` a triple directly below a
pair, `(1,)` any single). A ladder runs from the lead's own shape to `1×N`.

The ladder is derived from the lead's shape alone (docs/ladders.md has the reasoning and the rows it
yields): the partitions of the lead's N cards into unit widths no wider than its widest unit, in
reverse-lexicographic order; inside one partition every way to chain its non-single units into
runs, ordered by run lengths (reverse-lexicographic) and then by the runs' widths (descending); and
of those only the rungs that pack into the lead's components, so no rung is stricter than the lead.
The first rung is the lead itself. Ladders of long leads are large, so they are built lazily, one
partition (a `Block`) at a time, and cached per shape. That is `throw_ladder = widest_first`.

Under `throw_ladder = one_at_a_time` (rbtying/shengji) a throw's ladder is built from its
components' own ladders (the ones above, of each component alone): rung 0 is the components
themselves, and each next rung moves exactly one component one rung down its own ladder — the one
with the most rungs left; on a tie the one moved most recently; among components never moved, the
first in component order (fewer cards first, then the lower first card) — until none has rungs
left. Rung 0 lists the components in component order; later rungs list the components' current
requirements in component order, singles last. Its blocks are runs of consecutive rungs with the
same unit widths. A lead of one component has the same ladder under both options.

A ladder is cached by its *key*: `lead_shape` for `widest_first` (and for any simple lead), and
for `one_at_a_time` throws the components' shapes in component order behind the marker
`ONE_AT_A_TIME`, a (0, 0) no real component has.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from threading import Lock
from typing import Final

from .cards import equal_rank_order
from .memo import Budget
from .pickling import picklable
from .rules import RuleSet
from .shape import Component, Reading

Requirement = tuple[int, ...]
Rung = tuple[Requirement, ...]
LeadShape = tuple[tuple[int, int], ...]
"""A lead's components as (width, length) pairs, sorted: the cache key of its ladder."""


@dataclass(frozen=True, slots=True)
class Block:
    """The admissible rungs of one partition of the lead's cards into units.

    `widths` is the partition (unit widths, widest first). Every rung of the block uses exactly
    these units, so a holding that cannot host them as separate units satisfies none of its rungs.
    """

    widths: tuple[int, ...]
    rungs: tuple[Rung, ...]

    def __init__(self, widths: tuple[int, ...], rungs: tuple[Rung, ...]) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "widths", widths)
        object.__setattr__(self, "rungs", rungs)


ONE_AT_A_TIME: Final = (0, 0)
"""The first entry of a `one_at_a_time` ladder key (see the module docstring)."""


def lead_shape(lead: Reading) -> LeadShape:
    return tuple(sorted(c.shape() for c in lead.components))


def component_order(comp: Component) -> tuple[int, int, int]:
    """R5.3 `one_at_a_time`'s component order: fewer cards first, then the lower first card (by
    position, an ace-low run's A lowest; equal ranks in the R4.4 suit order)."""
    return (
        comp.width * len(comp.faces),
        comp.top - len(comp.faces) + 1,
        equal_rank_order(comp.faces[0]),
    )


def ladder_key(lead: Reading, rules: RuleSet | None = None) -> LeadShape:
    """The key the lead's ladder is built and cached by under `rules.throw_ladder`."""
    comps = lead.components
    if len(comps) == 1:
        return ((comps[0].width, len(comps[0].faces)),)
    if rules is None or rules.throw_ladder == "widest_first":
        return tuple(sorted([(c.width, len(c.faces)) for c in comps]))
    ordered = sorted(comps, key=component_order)
    return (ONE_AT_A_TIME, *[(c.width, len(c.faces)) for c in ordered])


def lead_rung(shape: LeadShape) -> Rung:
    """The lead's own rung, spelled as a throw's format is: smaller components first (rbtying's
    order, which the table's `1+<2-2>` row follows); equal sizes keep the other rungs' order."""
    reqs = [(width,) * length for width, length in shape]
    reqs.sort(key=lambda r: (-sum(r), r), reverse=True)
    return tuple(reqs)


def canonical(rung: Rung) -> Rung:
    """A rung's requirements in the order derived rungs are spelled (descending): `4+<2-2>`."""
    return tuple(sorted(rung, reverse=True))


def ladder_of_shape(shape: LeadShape) -> tuple[Rung, ...]:
    return tuple(r for block in blocks(shape) for r in block.rungs)


def ladder(lead: Reading, rules: RuleSet | None = None) -> tuple[Rung, ...]:
    """Every rung of the lead's ladder, strict to loose (R5.3, LADDERS.md), under
    `rules.throw_ladder` (`widest_first` without rules). Besides that option the ladder depends
    on the lead's shape only (a two-deck lead simply never has units wider than pairs)."""
    return ladder_of_shape(ladder_key(lead, rules))


def format_requirement(req: Requirement) -> str:
    if len(req) == 1:
        return str(req[0])
    return "<" + "-".join(str(w) for w in req) + ">"


def format_rung(rung: Rung) -> str:
    """LADDERS.md notation: `<3-2>+1`, `2+2+1×4`.

    A run of k singles is spelled out when k <= 3, or k = 4 in a rung of at most five units;
    otherwise it is `1×k` (the table writes `4+1+1+1+1` but `2+2+1×4` and `1×5`).
    """
    units = sum(len(r) for r in rung)
    parts: list[str] = []
    i = 0
    while i < len(rung):
        if rung[i] != (1,):
            parts.append(format_requirement(rung[i]))
            i += 1
            continue
        j = i
        while j < len(rung) and rung[j] == (1,):
            j += 1
        k = j - i
        if k >= 5 or (k == 4 and units >= 6):
            parts.append(f"1×{k}")
        else:
            parts.extend(["1"] * k)
        i = j
    return "+".join(parts)


def format_ladder(rungs: tuple[Rung, ...]) -> str:
    return " → ".join(format_rung(r) for r in rungs)


def parse_rung(text: str) -> Rung:
    """The inverse of `format_rung`, for tests and docs: `<3-2>+1×4` → ((3, 2), (1,)×4)."""
    reqs: list[Requirement] = []
    for part in text.split("+"):
        part = part.strip()
        if part.startswith("<"):
            reqs.append(tuple(int(w) for w in part.strip("<>").split("-")))
        elif "×" in part:
            width, count = part.split("×")
            reqs.extend([(int(width),)] * int(count))
        else:
            reqs.append((int(part),))
    return tuple(reqs)


# --- derivation -----------------------------------------------------------------------------


def partitions(n: int, cap: int) -> Iterator[tuple[int, ...]]:
    """Partitions of n into parts <= cap, widest parts first, in reverse-lexicographic order."""
    if n == 0:
        yield ()
        return
    for first in range(min(n, cap), 0, -1):
        for rest in partitions(n - first, first):
            yield (first, *rest)


def _rooms(comps: LeadShape) -> list[int]:
    """rooms[w]: the cards of the largest component at least w wide (0 when none is): a run whose
    widest unit is w fits inside some component exactly when its size is at most rooms[w]."""
    rooms = [0] * (max(width for width, _ in comps) + 1)
    for width, length in comps:
        for w in range(1, width + 1):
            rooms[w] = max(rooms[w], width * length)
    return rooms


def _sequence_list(
    pool: dict[int, int], order: list[int], max_size: int, rooms: list[int]
) -> list[Requirement]:
    """Every distinct ordered run drawable from the multiset `pool` (width -> count, drawn in
    `order`, descending) that fits inside some lead component (`rooms`). A prefix's widest unit
    and size are carried along rather than recomputed."""
    out: list[Requirement] = []

    def extend(prefix: Requirement, size: int, widest: int) -> None:
        if prefix and size <= rooms[widest]:
            out.append(prefix)
        for width in order:
            if pool[width] and size + width <= max_size:
                pool[width] -= 1
                extend((*prefix, width), size + width, max(widest, width))
                pool[width] += 1

    extend((), 0, 0)
    return out


def _groupings(widths: tuple[int, ...], comps: LeadShape) -> list[tuple[Requirement, ...]]:
    """Every way to chain the units `widths` (all >= 2) into runs, each collection once: runs are
    listed longest first, then by widths descending, and each run is drawn no greater than the last
    one, which makes the listing canonical."""
    pool: dict[int, int] = {}
    for w in widths:
        pool[w] = pool.get(w, 0) + 1
    max_size = max(width * length for width, length in comps)
    order = sorted(pool, reverse=True)
    rooms = _rooms(comps)
    out: list[tuple[Requirement, ...]] = []
    # The runs drawable from each state of the pool: the same state is met down many branches.
    drawable: dict[tuple[int, ...], list[tuple[tuple[int, Requirement], Requirement]]] = {}

    def runs_of() -> list[tuple[tuple[int, Requirement], Requirement]]:
        state = tuple(pool[w] for w in order)
        found = drawable.get(state)
        if found is None:
            found = drawable[state] = [
                ((len(run), run), run) for run in _sequence_list(pool, order, max_size, rooms)
            ]
        return found

    def rec(left: int, bound: tuple[int, Requirement] | None, acc: list[Requirement]) -> None:
        if left == 0:
            out.append(tuple(acc))
            return
        for key, run in runs_of():
            if bound is not None and key > bound:
                continue
            for w in run:
                pool[w] -= 1
            acc.append(run)
            rec(left - len(run), key, acc)
            acc.pop()
            for w in run:
                pool[w] += 1

    rec(len(widths), None, [])
    return out


def _packs(reqs: tuple[Requirement, ...], comps: LeadShape) -> bool:
    """Whether the requirements fit into the lead's components: each inside one component at least
    as wide as its widest unit, no component asked for more cards than it has. A rung that does
    not pack asks for more structure than the lead showed, so it is stricter than the lead."""
    return _packs_items(tuple((max(r), sum(r)) for r in reqs), comps)


def _packs_items(items: tuple[tuple[int, int], ...], comps: LeadShape) -> bool:
    """`_packs` for requirements given as (widest unit, cards): all it looks at."""
    order = sorted(items, reverse=True)
    room = [width * length for width, length in comps]
    widths = [width for width, _ in comps]

    def place(i: int) -> bool:
        if i == len(order):
            return True
        widest, size = order[i]
        tried: set[tuple[int, int]] = set()
        for c, free in enumerate(room):
            if widths[c] < widest or free < size or (widths[c], free) in tried:
                continue
            tried.add((widths[c], free))
            room[c] -= size
            if place(i + 1):
                return True
            room[c] += size
        return False

    return place(0)


def ladder_index(shape: LeadShape, rung: Rung) -> int:
    """Where `rung` stands in the ladder of `shape` (it must be one of its rungs): the ladder is
    listed up to it, which for a long throw takes long."""
    index = 0
    for block in blocks(shape):
        for r in block.rungs:
            if r == rung:
                return index
            index += 1
    raise ValueError(f"{format_rung(rung)} is not a rung of the ladder of {shape}")


def _derived_blocks(shape: LeadShape) -> Iterator[Block]:
    n = sum(width * length for width, length in shape)
    cap = max(width for width, _ in shape)
    # One component takes any rung the groupings give: each run fits it (`_sequences` keeps only
    # those), and their cards add up to its own.
    alone = len(shape) == 1
    packed: dict[tuple[tuple[int, int], ...], bool] = {}

    def packs(rung: Rung) -> bool:
        if alone:
            return True
        key = tuple(sorted(((max(r), sum(r)) for r in rung), reverse=True))
        found = packed.get(key)
        if found is None:
            found = packed[key] = _packs_items(key, shape)
        return found

    for part in partitions(n, cap):
        wide = tuple(w for w in part if w >= 2)
        singles = ((1,),) * (len(part) - len(wide))
        groupings: list[tuple[Requirement, ...]] = _groupings(wide, shape) if wide else [()]
        groupings.sort(key=lambda runs: (tuple(len(r) for r in runs), runs), reverse=True)
        rungs = tuple(
            rung for rung in (canonical(runs + singles) for runs in groupings) if packs(rung)
        )
        if rungs:
            yield Block(part, rungs)


class _LazyLadder:
    """A ladder's blocks, computed on first need and kept: most follows stop at the first block.
    A lock guards the shared generator, so threads (a dashboard's sessions) may share ladders."""

    def __init__(self, key: LeadShape) -> None:
        self._done: list[Block] = []
        if key and key[0] == ONE_AT_A_TIME:
            self._more = _one_at_a_time_blocks(key[1:])
        else:
            self._more = self._all(key)
        self._lock = Lock()

    @staticmethod
    def _all(shape: LeadShape) -> Iterator[Block]:
        own = lead_rung(shape)
        key = canonical(own)
        first = True
        for block in _derived_blocks(shape):
            rungs = tuple(r for r in block.rungs if r != key)
            if first:
                rungs = (own, *rungs)
                first = False
            if rungs:
                yield Block(block.widths, rungs)

    def _extend(self, i: int) -> bool:
        """Make block i known; False when the ladder has fewer blocks."""
        with self._lock:
            while len(self._done) <= i:
                block = next(self._more, None)
                if block is None:
                    return False
                _BUDGET.spend(len(block.rungs))
                self._done.append(block)
            return True

    def __iter__(self) -> Iterator[Block]:
        i = 0
        while i < len(self._done) or self._extend(i):
            yield self._done[i]
            i += 1


_LADDERS: Final[dict[LeadShape, _LazyLadder]] = {}
_LADDERS_LOCK: Final = Lock()
_BUDGET: Final = Budget()
"""Rungs the remembered ladders hold together: a long throw's ladder has hundreds of thousands."""
_BUDGET.watch(_LADDERS.clear)


def _ladder_cache(shape: LeadShape) -> _LazyLadder:
    found = _LADDERS.get(shape)
    if found is None:
        with _LADDERS_LOCK:
            found = _LADDERS.get(shape)
            if found is None:
                _BUDGET.spend()
                found = _LADDERS[shape] = _LazyLadder(shape)
    return found


def remembered_rungs() -> int:
    """Ladders and rungs remembered now, counted against the memo bound (tests check it)."""
    return _BUDGET.used()


def blocks(key: LeadShape) -> Iterator[Block]:
    """The ladder of a ladder key (`ladder_key`; a lead shape), block by block, strict to loose."""
    return iter(_ladder_cache(key))


class _Own:
    """One component's own ladder during a `one_at_a_time` walk, its rungs read block by block as
    the walk needs them (a wide component's own ladder can be huge)."""

    __slots__ = ("done", "rungs", "source")

    def __init__(self, shape: LeadShape) -> None:
        self.rungs: list[Rung] = []
        self.source = iter(_ladder_cache(shape))
        self.done = False

    def extend(self) -> None:
        """Read one more block (or learn that there is none)."""
        block = next(self.source, None)
        if block is None:
            self.done = True
        else:
            self.rungs.extend(block.rungs)


def one_at_a_time_rungs(order: LeadShape) -> Iterator[Rung]:
    """The `one_at_a_time` ladder of components of these shapes, in component order (R5.3).

    Which component moves depends on how many rungs each has left, so every component's own
    ladder is read to its end except the longest one's, which is read only as far as it must be to
    stay ahead of the others: a throw with one huge component costs what the others cost."""
    for rung, _ in _one_at_a_time_moves(order):
        yield rung


_Parts = tuple[tuple[Requirement, ...], int, tuple[int, ...]]
"""One own rung taken apart: its requirements other than singles, its singles, and its count of
units by width (index w)."""


def _one_at_a_time_moves(order: LeadShape) -> Iterator[tuple[Rung, tuple[int, ...]]]:
    """`one_at_a_time_rungs`, each rung with its count of units by width. The counts of rungs
    left, the throw's units and each own rung's parts are kept as the components move rather than
    recomputed for every rung (a throw with a large component has thousands of rungs)."""
    n = len(order)
    top = max(width for width, _ in order) + 1
    own = [_Own((shape,)) for shape in order]
    for o in own:
        o.extend()
    at = [0] * n
    moved = [-1] * n  # the move that last moved each component, -1: never
    parts_of: dict[Rung, _Parts] = {}

    def parts(r: Rung) -> _Parts:
        found = parts_of.get(r)
        if found is None:
            units = [0] * top
            for req in r:
                for w in req:
                    units[w] += 1
            wide = tuple(req for req in r if req != (1,))
            found = parts_of[r] = (wide, len(r) - len(wide), tuple(units))
        return found

    current = [parts(o.rungs[0]) for o in own]
    units = [sum(p[2][w] for p in current) for w in range(top)]

    def rung() -> Rung:
        reqs: list[Requirement] = []
        singles = 0
        for wide, k, _ in current:
            reqs.extend(wide)
            singles += k
        return (*reqs, *((1,),) * singles)

    yield tuple(req for o in own for req in o.rungs[0]), tuple(units)  # the components themselves
    move = 0
    unread = [k for k in range(n) if not own[k].done]
    while len(unread) > 1:
        for k in unread:
            own[k].extend()
        unread = [k for k in range(n) if not own[k].done]
    left = [len(own[k].rungs) - 1 for k in range(n)]
    while True:
        if unread and not own[unread[0]].done:
            # The one ladder not read to its end moves while it surely has the most rungs left.
            j = unread[0]
            others = max((left[k] for k in range(n) if k != j), default=0)
            while not own[j].done and left[j] <= others:
                own[j].extend()
                left[j] = len(own[j].rungs) - 1 - at[j]
        # most rungs left, then the most recently moved, then the first in component order
        best = 0
        for k in range(1, n):
            if left[k] > left[best] or (left[k] == left[best] and moved[k] > moved[best]):
                best = k
        if left[best] == 0:
            return
        at[best] += 1
        left[best] -= 1
        move += 1
        moved[best] = move
        was = current[best][2]
        now = current[best] = parts(own[best].rungs[at[best]])
        for w in range(top):
            units[w] += now[2][w] - was[w]
        yield rung(), tuple(units)


def _one_at_a_time_blocks(order: LeadShape) -> Iterator[Block]:
    """The rungs of `one_at_a_time_rungs` grouped into blocks of consecutive rungs with the same
    unit widths (what `follow` prefilters a block by)."""
    counts: tuple[int, ...] = ()
    rungs: list[Rung] = []
    for rung, units in _one_at_a_time_moves(order):
        if rungs and units != counts:
            yield Block(_widths(counts), tuple(rungs))
            rungs = []
        counts = units
        rungs.append(rung)
    yield Block(_widths(counts), tuple(rungs))


def _widths(counts: tuple[int, ...]) -> tuple[int, ...]:
    """Unit widths, widest first, from their counts by width."""
    return tuple(w for w in range(len(counts) - 1, 0, -1) for _ in range(counts[w]))


def derived_first_rung(shape: LeadShape) -> Rung | None:
    """The first admissible rung the construction yields before the lead's own rung is put first;
    the construction is right only if this is the lead's shape (tests check it)."""
    for block in _derived_blocks(shape):
        return block.rungs[0]
    return None


picklable(Block)
