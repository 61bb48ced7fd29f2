"""The rbtying/shengji server's own rules code, where the `rbtying` preset follows it (R4.2–R4.4,
R6.2; docs/rules.md, "Where the rbtying server departs from the rule book").

Ported from the server's `mechanics` crate at commit 71f8d43 with its iteration orders and
tie-breaks, since in the cases where the server departs from the rule book those orders decide
the outcome. Each function names the server function it copies:

- `server_key` is `OrderedCard`'s order (`Trump::compare`, types.rs): within one effective suit
  the strength, then the card's Unicode character, which puts cards of equal strength (the
  off-suit level cards) in the suit order ♠ ♥ ♦ ♣.
- `successors` is `Trump::successor`: the faces a tractor may climb to, the off-suit level
  cards listed in `ALL_SUITS` order ♠ ♥ ♦ ♣.
- `tractors_from_start` is `find_tractors_from_start` (trick.rs): a breadth-first climb that
  keeps one running width across all branches.
- `server_units` is `TrickFormat::from_cards` without a format hint over `find_plays_inner`.
- `blocks` is one component's check in `Trick::play_cards`'s search for a blocker.
- `format_matches` is `find_format_matches` (format_match.rs): every reading of a play into a
  format, in the server's order.
- `first_defeating` is what `Trick::compute_winner` keeps: the first of those readings that
  `Trick::_defeats` the winner so far.

Cards are our face ids and units our `Component`s (a tractor's faces in climbing order), so the
callers in `combos`, `throws` and `trick` read the results like their own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from typing import Final

from .cards import BIG_JOKER, SMALL_JOKER, Card, card_rank, card_suit, equal_rank_order, make_card
from .rules import RuleSet
from .shape import Component, Reading
from .trump import TRUMP, TrumpContext

__all__ = [
    "blocks",
    "first_defeating",
    "format_matches",
    "read_server",
    "server_key",
    "server_order",
    "server_units",
    "successors",
    "tractors_from_start",
]

_ALL_SUITS: Final = (0, 1, 3, 2)
"""`ALL_SUITS` (♠ ♥ ♦ ♣) as our suit indices (S H C D)."""

ServerKey = tuple[int, int]


def server_key(trump: TrumpContext, card: Card) -> ServerKey:
    """`Trump::compare` within one effective suit: the strength, then (equal strength: the
    off-suit level cards) the card's character, ♠ before ♥ before ♦ before ♣."""
    return (trump.pos[card], equal_rank_order(card))


def successors(trump: TrumpContext, card: Card) -> tuple[Card, ...]:
    """`Trump::successor`: the faces one step above `card` on its ladder."""
    if card == BIG_JOKER:
        return ()
    if card == SMALL_JOKER:
        return (BIG_JOKER,)
    rank, suit, level = card_rank(card), card_suit(card), trump.level
    if rank == level:
        if trump.suit is not None and suit != trump.suit:
            return (make_card(level, trump.suit),)
        return (SMALL_JOKER,)
    nxt = rank + 1
    if nxt == level:
        nxt += 1
    if nxt <= 14:
        return (make_card(nxt, suit),)
    if trump.eff[card] == TRUMP:
        # The trump suit's A climbs to every off-suit level card.
        return tuple(make_card(level, s) for s in _ALL_SUITS if s != trump.suit)
    return ()


def tractors_from_start(
    trump: TrumpContext,
    card: Card,
    count: int,
    counts: Mapping[Card, int],
    min_count: int,
    min_length: int,
    running: bool = True,
) -> list[Component]:
    """`find_tractors_from_start`: every tractor climbing from `card` (held `count` times) through
    faces held at least twice, at least `min_count` wide and `min_length` long, in the server's
    order (shorter first, then the branches in `successors` order).

    The server climbs breadth first and keeps ONE width for the whole climb, lowered by every
    face reached on any branch; `running` false gives each branch its own width (R4.2's text)."""
    found: list[Component] = []
    if count < min_count:
        return found
    pos = trump.pos
    frontier: list[tuple[Card, tuple[Card, ...], int]] = [
        (nxt, (card,), count) for nxt in successors(trump, card)
    ]
    width = count
    while frontier:
        following: list[tuple[Card, tuple[Card, ...], int]] = []
        for face, path, own in frontier:
            held = counts.get(face, 0)
            if held < 2:
                continue
            width = min(width, held)
            own = min(own, held)
            path = (*path, face)
            w = width if running else own
            if w >= min_count and len(path) >= min_length:
                found.append(Component(w, path, pos[face]))
            following.extend((nxt, path, own) for nxt in successors(trump, face))
        frontier = following
    return found


# ---------------------------------------------------------------------------------------------
# R4.2: how the server splits a lead (`TrickFormat::from_cards`, `find_plays_inner`)

_PlayKey = tuple[int, bool]
_Plays = tuple[int, dict[_PlayKey, tuple[int, tuple[Component, ...]]]]


def _unit_key(comp: Component) -> _PlayKey:
    return (comp.size, comp.is_tractor)


class _Splitter:
    """`find_plays_inner` over one lead, remembered by the counts left.

    The server lists every split (each lowest card starts each tractor `tractors_from_start`
    finds, then — unless every such tractor uses all copies of its faces — the unit of all its
    copies; a start that uses every card left ends the split) and `from_cards` keeps the LAST
    split whose greatest (size, is tractor) is greatest. The list can be long, so for each state
    only the last split of each key and the list's length are kept: enough to know which one
    the server keeps."""

    def __init__(self, cards: Sequence[Card], trump: TrumpContext, running: bool) -> None:
        self.trump = trump
        self.running = running
        self.faces = sorted(set(cards), key=lambda c: server_key(trump, c))
        self.start = tuple(sum(1 for c in cards if c == f) for f in self.faces)
        self.known: dict[tuple[int, ...], _Plays] = {}

    def _starts(self, state: tuple[int, ...]) -> list[Component]:
        first = next(k for k, n in enumerate(state) if n)
        card = self.faces[first]
        counts = {f: n for f, n in zip(self.faces, state, strict=True) if n}
        tractors = tractors_from_start(
            self.trump, card, state[first], counts, 2, 2, running=self.running
        )
        consumed = bool(tractors) and all(
            counts.get(f, 0) == t.width for t in tractors for f in t.faces
        )
        if consumed:
            return tractors
        return [*tractors, Component(state[first], (card,), self.trump.pos[card])]

    def _after(self, state: tuple[int, ...], unit: Component) -> tuple[int, ...]:
        left = list(state)
        for f in unit.faces:
            left[self.faces.index(f)] -= unit.width
        return tuple(left)

    def plays(self, state: tuple[int, ...]) -> _Plays:
        found = self.known.get(state)
        if found is not None:
            return found
        starts = self._starts(state)
        left = sum(state)
        whole = next((s for s in starts if s.size == left), None)
        if whole is not None:
            found = (1, {_unit_key(whole): (0, (whole,))})
        else:
            total = 0
            last: dict[_PlayKey, tuple[int, tuple[Component, ...]]] = {}
            for start in starts:
                n, sub = self.plays(self._after(state, start))
                own = _unit_key(start)
                for key, (index, play) in sub.items():
                    k = max(own, key)
                    at = total + index
                    if k not in last or at > last[k][0]:
                        last[k] = (at, (*play, start))
                total += n
            found = (total, last)
        self.known[state] = found
        return found


def server_units(
    cards: Sequence[Card], trump: TrumpContext, running: bool = True
) -> list[Component]:
    """The units `TrickFormat::from_cards` reads from a lead of one effective suit (no format
    hint), in its order: by size, then first (lowest) card (`server_key`), ties as found."""
    splitter = _Splitter(cards, trump, running)
    _, last = splitter.plays(splitter.start)
    play = last[max(last)][1]
    return sorted(play, key=lambda u: (u.size, server_key(trump, u.faces[0])))


def read_server(cards: Sequence[Card], suit: int, trump: TrumpContext, rules: RuleSet) -> Reading:
    """A lead read as the server reads it (R4.2 `tractor_width` `running`), as a `Reading`
    (greatest component first, like `combos.read_lead`'s)."""
    units = server_units(cards, trump, rules.tractor_width == "running")
    units.sort(key=lambda c: (c.size, c.is_tractor, c.width, c.top, c.faces), reverse=True)
    return Reading(suit, tuple(units))


def server_order(reading: Reading, trump: TrumpContext, rules: RuleSet) -> list[int]:
    """The reading's component indices in the server's `TrickFormat` order: by size, then first
    card (`server_key`). Two components alike in both (two tractors of four decks from the same
    card) keep the order the server's split found them in when the reading is the server's own,
    else the reading's."""
    comps = reading.components
    order = sorted(
        range(len(comps)), key=lambda i: (comps[i].size, server_key(trump, comps[i].faces[0]))
    )
    keys = [(comps[i].size, server_key(trump, comps[i].faces[0])) for i in order]
    if len(set(keys)) == len(keys) or rules.throw_split != "lowest_first":
        return order
    units = server_units(reading.cards(), trump, rules.tractor_width == "running")
    wanted = [(u.width, u.faces) for u in units]
    if sorted(wanted) != sorted((c.width, c.faces) for c in comps):
        return order  # a stated split: the server sorts the leader's own grouping
    left = list(range(len(comps)))
    out = []
    for shape in wanted:
        i = next(k for k in left if (comps[k].width, comps[k].faces) == shape)
        left.remove(i)
        out.append(i)
    return out


# ---------------------------------------------------------------------------------------------
# R4.3: the server's search for a seat that beats a thrown component (`Trick::play_cards`)


def blocks(
    comp: Component, counts: Sequence[int], suit: int, trump: TrumpContext, rules: RuleSet
) -> bool:
    """Does a holding (`counts`, per face) beat `comp` as the server checks it (R4.3
    `throw_block_search` `from_second_card`)? A unit: as many copies of a stronger face. A
    tractor: a tractor at least as wide and as long climbing from a face at or above the thrown
    tractor's SECOND card in the server's order — so one starting on an off-suit level card
    sorted before it is missed — found by `tractors_from_start`, with the running width under
    `tractor_width` `running`."""
    eff = trump.eff
    pos = trump.pos
    if len(comp.faces) == 1:
        return any(
            eff[f] == suit and counts[f] >= comp.width and pos[f] > comp.top for f in range(54)
        )
    held = {f: counts[f] for f in range(54) if counts[f] and eff[f] == suit}
    floor = server_key(trump, comp.faces[1])
    running = rules.tractor_width == "running"
    for face in sorted(held, key=lambda c: server_key(trump, c)):
        if server_key(trump, face) < floor:
            continue
        if tractors_from_start(
            trump, face, held[face], held, comp.width, len(comp.faces), running=running
        ):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# R6.2: which reading of a play the server keeps (`find_format_matches`, `Trick::_defeats`)

Matching = tuple[tuple[Card, int], ...]
"""`MatchingCards`: (face, copies) per face of one matched unit, climbing."""
Shape = tuple[int, ...]
"""`AdjacentTupleSizes`: the copies per face of one unit."""
_State = dict[Shape, dict[Matching, int]]


def _multiset_combinations(multiplicity: Sequence[int], k: int) -> Iterator[list[tuple[int, int]]]:
    """`multiset_k_combination_iter` over indices 0..n-1 with the given multiplicities."""
    if sum(multiplicity) < k:
        return
    current = [0] * len(multiplicity)

    def fill(n: int) -> None:
        i = 0
        while True:
            m = multiplicity[i]
            if n <= m:
                current[i] = n
                return
            current[i] = m
            n -= m
            i += 1

    fill(k)
    while True:
        yield [(i, c) for i, c in enumerate(current) if c > 0]
        i = next(j for j, x in enumerate(current) if x != 0)
        left = current[i]
        current[i] = 0
        while True:
            i += 1
            if i >= len(current):
                return
            if current[i] == multiplicity[i]:
                left += current[i]
                current[i] = 0
            else:
                left -= 1
                current[i] += 1
                break
        fill(left)


class _FormatMatches:
    """`find_format_matches`: every way to read `cards` (one effective suit) as the units of
    `format_seq`, in the server's order — a queue of states (the units placed so far, whatever
    the order they were placed in), each expanded by every remaining shape's candidates,
    highest first, depth first through the queue's front. A finished state gives each slot of
    `format_seq` the highest unit placed for its shape, in turn."""

    def __init__(
        self, format_seq: Sequence[Shape], cards: Sequence[Card], trump: TrumpContext
    ) -> None:
        self.trump = trump
        self.format_seq = list(format_seq)
        self.format: dict[Shape, int] = {}
        for shape in format_seq:
            self.format[shape] = self.format.get(shape, 0) + 1
        self.shapes = sorted(self.format)
        counts: dict[Card, int] = {}
        for c in cards:
            counts[c] = counts.get(c, 0) + 1
        self.cards = counts
        self.descending = sorted(counts, key=lambda c: server_key(trump, c), reverse=True)

    def _mkey(self, m: Matching) -> tuple[tuple[ServerKey, int], ...]:
        return tuple((server_key(self.trump, c), n) for c, n in m)

    def _tractors(self, shape: Shape, used: Mapping[Card, int]) -> list[Matching]:
        """`find_possible_tractors`: from each face held at least shape[0] times, highest
        first, a depth-first climb through `successors` (the last successor first)."""
        out: list[Matching] = []
        for card in self.descending:
            if self.cards[card] < shape[0]:
                continue
            stack: list[tuple[Card, list[int], Matching]] = [(card, list(reversed(shape)), ())]
            while stack:
                face, left, seq = stack.pop()
                left = list(left)
                have = self.cards.get(face, 0) - used.get(face, 0)
                need = left.pop()
                if have < need:
                    continue
                seq = (*seq, (face, need))
                if not left:
                    out.append(seq)
                else:
                    for nxt in successors(self.trump, face):
                        stack.append((nxt, left, seq))
        return out

    def _finish(self, state: _State) -> list[Matching]:
        opts = {shape: dict(m) for shape, m in state.items()}
        out = []
        for shape in self.format_seq:
            bucket = opts[shape]
            best = max(bucket, key=self._mkey)
            if bucket[best] == 1:
                del bucket[best]
            else:
                bucket[best] -= 1
            out.append(best)
        return out

    def __iter__(self) -> Iterator[list[Matching]]:
        visited: set[_Frozen] = set()
        # A state to expand, or a run of children (its next child, the rest) still to visit.
        queue: deque[_State | tuple[_State, Iterator[_State]]] = deque([{}])
        while queue:
            item = queue.popleft()
            if isinstance(item, tuple):
                nxt, children = item
                following = next(children, None)
                if following is not None:
                    queue.appendleft((following, children))
                if _frozen(nxt) not in visited:
                    queue.appendleft(nxt)
                continue
            state = item
            frozen = _frozen(state)
            if frozen in visited:
                continue
            visited.add(frozen)
            used = _contained(state)
            remaining = []
            for shape in self.shapes:
                filled = sum(state.get(shape, {}).values())
                if filled < self.format[shape]:
                    remaining.append((shape, self.format[shape] - filled))
            if not remaining:
                yield self._finish(state)
                continue
            expansion: list[tuple[list[tuple[Matching, int]], int]] = []
            for shape, copies in remaining:
                if len(shape) > 1:
                    expansion.append(([(t, 1) for t in self._tractors(shape, used)], 1))
                else:
                    w = shape[0]
                    opts = [
                        (((c, w),), (self.cards[c] - used.get(c, 0)) // w) for c in self.descending
                    ]
                    expansion.append(([o for o in opts if o[1] > 0], copies))
            if all(sum(n for _, n in e) >= k for e, k in expansion):
                for e, k in expansion:
                    children = _children(state, e, k)
                    first = next(children, None)
                    if first is not None:
                        queue.append((first, children))


_Frozen = frozenset[tuple[Shape, frozenset[tuple[Matching, int]]]]


def _frozen(state: _State) -> _Frozen:
    """A state as the server's `FormatMatchState` compares: the units placed per shape."""
    return frozenset((shape, frozenset(opts.items())) for shape, opts in state.items())


def _contained(state: _State) -> dict[Card, int]:
    used: dict[Card, int] = {}
    for opts in state.values():
        for m, times in opts.items():
            for c, n in m:
                used[c] = used.get(c, 0) + n * times
    return used


def _children(state: _State, options: list[tuple[Matching, int]], k: int) -> Iterator[_State]:
    """The states `state` leads to by placing `k` of `options` (each at most its multiplicity)."""
    for combination in _multiset_combinations([n for _, n in options], k):
        child = {shape: dict(m) for shape, m in state.items()}
        for index, times in combination:
            m = options[index][0]
            shape = tuple(n for _, n in m)
            bucket = child.setdefault(shape, {})
            bucket[m] = bucket.get(m, 0) + times
        yield child


def format_matches(
    format_seq: Sequence[Shape], cards: Sequence[Card], trump: TrumpContext
) -> Iterator[list[Matching]]:
    """`find_format_matches`: the readings of `cards` (one effective suit) as the units of
    `format_seq` (each unit's copies per face), one `Matching` per unit, in the server's order."""
    return iter(_FormatMatches(format_seq, cards, trump))


def _cmp(trump: TrumpContext, a: Card, b: Card) -> int:
    """`Trump::compare_effective` for a play in the led suit or in trump: trump above any other
    suit, then the strength; equal strength is equal."""
    ka = (trump.eff[a] == TRUMP, trump.pos[a])
    kb = (trump.eff[b] == TRUMP, trump.pos[b])
    return (ka > kb) - (ka < kb)


def _defeats(
    m: Sequence[Component], winner: Sequence[Component], trump: TrumpContext, rules: RuleSet
) -> bool:
    """`Trick::_defeats` (no bombs), units paired in the server's slot order, under
    `throw_compare` as the server's `ThrowEvaluationPolicy`; a value the server does not have
    (`botzone`) counts as `all`."""
    policy = rules.throw_compare
    if policy == "highest":

        def top(units: Sequence[Component]) -> Card:
            return max(
                (u.faces[-1] for u in units),
                key=lambda c: (trump.eff[c] == TRUMP, server_key(trump, c)),
            )

        return _cmp(trump, top(m), top(winner)) > 0
    if policy == "longest_unit":  # `TrickUnitLength`
        skip_singles = len(m) > 1 and any(n.size > 1 for n in m)
        comparisons = [
            (n.size, _cmp(trump, n.faces[0], w.faces[0]))
            for n, w in zip(m, winner, strict=True)
            if not skip_singles or n.size > 1
        ]
        comparisons.sort(key=lambda sc: (-sc[0], sc[1] == 0))
        for _, c in comparisons:
            if c != 0:
                return c > 0
        return False
    return all(_cmp(trump, n.faces[0], w.faces[0]) > 0 for n, w in zip(m, winner, strict=True))


def first_defeating(
    cards: Sequence[Card],
    lead: Reading,
    winner: Sequence[Component],
    trump: TrumpContext,
    rules: RuleSet,
) -> tuple[Component, ...] | None:
    """The reading of `cards` the server keeps when they beat `winner` (R6.2 `winning_split`
    `first_match`): the first match of the lead's format, in `find_format_matches`'s order,
    that `_defeats` the winner; None when none does. Both `winner` and the result answer the
    lead's components index by index (as `combos.iter_matches` does)."""
    comps = lead.components
    order = server_order(lead, trump, rules)
    format_seq = [tuple([comps[i].width] * len(comps[i].faces)) for i in order]
    theirs = [winner[i] for i in order]
    pos = trump.pos
    for matching in format_matches(format_seq, cards, trump):
        units = [Component(m[0][1], tuple(c for c, _ in m), pos[m[-1][0]]) for m in matching]
        if _defeats(units, theirs, trump, rules):
            out: list[Component] = list(units)
            for slot, i in enumerate(order):
                out[i] = units[slot]
            return tuple(out)
    return None
