"""What the fourth player of a trick could have done: every distinct legal answer and its outcome.

The fourth player sees the whole trick, so each legal play (R5, `follow.legal_plays`) decides the
winner and the points exactly (`trick.trick_winner`: R6 without its reason). Distinct plays are counted by card multiset.

A follower short of the led suit (R5.2) plays all of it plus any other cards, and the number of
such plays explodes. Only an all-trump play from a player void in a side suit can change the
winner (R6.1), so those are enumerated; every other short or void play leaves the winner as it
was after three plays and differs only in its points, so only the cheapest and the richest of
them are needed. At most `limit` plays are resolved; past it the caller is told (None).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..cards import Card, Hand, card_points
from ..follow import ladder_plays, legal_plays
from ..pickling import picklable
from ..rules import RuleSet
from ..shape import Reading
from ..trick import TrickVerdict, trick_winner
from ..trump import TRUMP, TrumpContext

UNRESOLVED: Final = -1
"""The winner of an option `options(..., lazy=True)` left for the caller to find."""

POINT_CLASS: Final = tuple(card_points(c) // 5 for c in range(54))
"""Each face's points in fives: 0, 1 or 2."""

# Final: the compiled build keeps it in a native static, not the module's dict, read per card.
_POINTS: Final = tuple(card_points(c) for c in range(54))


def _points(cards: Sequence[Card]) -> int:
    """The cards' points, by table (the compiled build then calls nothing per card)."""
    total = 0
    for c in cards:
        total += _POINTS[c]
    return total


LEGAL_LIMIT: Final = 120
"""Candidate plays (distinct card multisets of the led suit, or of trumps for a ruff) one fourth
seat may have before its judgement is skipped rather than guessed."""


def _as_list(counts: Sequence[int]) -> list[int]:
    """The counts as a list (the review's holdings are lists already): the compiled build indexes
    a list[int] natively, a Sequence through the object protocol, index boxed and item unboxed."""
    return counts if isinstance(counts, list) else list(counts)


def _widest(lead: Reading) -> int:
    """The width of the lead's widest component: a loop, as the compiled build runs `max` over a
    generator through Python."""
    widest = 0
    for c in lead.components:
        if c.width > widest:
            widest = c.width
    return widest


def _lowest_top(before: TrickVerdict) -> int:
    """The lowest top among the components of the winning play's split."""
    floor = before.winning[0].top
    for c in before.winning:
        if c.top < floor:
            floor = c.top
    return floor


def count_multisets(copies: Sequence[int], k: int) -> int:
    """How many k-card sub-multisets faces with these copy counts have (a polynomial product)."""
    ways = [1] + [0] * k
    for have in copies:
        nxt = [0] * (k + 1)
        for total, w in enumerate(ways):
            if w:
                for take in range(min(have, k - total) + 1):
                    nxt[total + take] = nxt[total + take] + w
        ways = nxt
    return ways[k]


def over_limit(
    lead: Reading, counts: Sequence[int], held: int, trump: TrumpContext, limit: int
) -> bool:
    """Whether this fourth seat may have more than `limit` plays, known from the holding alone:
    more than `limit` multisets of the led suit from a seat holding `held` >= the lead's size of
    it (an upper bound: R5.3 may allow far fewer, which `too_many_plays` then lists), or of trumps
    from one void in a side suit (exact: each is a legal play); never for a single or pair lead
    (`_unit_options` lists few plays). Most seats are cleared here before anything is listed."""
    comps = lead.components
    if len(comps) == 1 and comps[0].length == 1 and comps[0].width <= 2:
        return False
    n = lead.size
    if held >= n:
        # The led suit's cards are `held`: the upper bound below needs no pass over the faces.
        if _choose(held, n) <= limit:
            return False
        suit = lead.suit
    elif held == 0 and lead.suit != TRUMP and sum(counts) >= n:
        suit = TRUMP
    else:
        return False
    vals = _as_list(counts)
    eff = trump.eff
    cards = 0
    faces = 0
    for f in range(54):
        have = vals[f]
        if have and eff[f] == suit:
            cards += have
            faces += 1
    # The n-card multisets number at most the ways to choose n of the cards and at least the ways
    # to choose n distinct faces: most seats are decided by these two bounds alone.
    if _choose(cards, n) <= limit:
        return False
    if _choose(faces, n) > limit:
        return True
    # `count_multisets` face by face, stopping once past the limit: the count of n-card
    # multisets never falls as faces are added. In place, from the top down: ways[total] then
    # still reads the counts before this face for every smaller total.
    ways = [1] + [0] * n
    for f in range(54):
        have = vals[f]
        if have and eff[f] == suit:
            for total in range(n, 0, -1):
                w = ways[total]
                for take in range(1, min(have, total) + 1):
                    w += ways[total - take]
                ways[total] = w
            if ways[n] > limit:
                return True
    return False


def listed_plays(
    lead: Reading,
    hand: Hand,
    held: int,
    trump: TrumpContext,
    rules: RuleSet,
    limit: int,
) -> list[tuple[Card, ...]] | None:
    """The fourth seat's legal plays of the led suit when `over_limit`'s count of every multiset
    of the suit passes `limit` but the seat holds enough of the suit: R5.3 lets it play far fewer
    (a triple lead answered by the one triple held), so they are listed, up to one past the limit.
    None when there are more than `limit` (or the seat answers from a void, whose trump plays
    `over_limit` counted exactly): then the seat is not judged, and the reason says so truly."""
    if held < lead.size:
        return None
    out: list[tuple[Card, ...]] = []
    for play in legal_plays(lead, hand, trump, rules):
        if len(out) == limit:
            return None
        out.append(play)
    return out


def too_many_plays(
    lead: Reading, hand: Hand, held: int, trump: TrumpContext, rules: RuleSet, limit: int
) -> tuple[bool, list[tuple[Card, ...]] | None]:
    """Whether the fourth seat has more than `limit` distinct legal plays (the review skips it),
    and the plays when they had to be listed to know (`listed_plays`), else None."""
    if not over_limit(lead, hand.counts, held, trump, limit):
        return False, None
    plays = listed_plays(lead, hand, held, trump, rules, limit)
    return plays is None, plays


def _choose(m: int, k: int) -> int:
    """The binomial coefficient C(m, k) (0 when k > m)."""
    out = 1
    for i in range(k):
        out = out * (m - i) // (i + 1)
    return out


@dataclass(frozen=True, slots=True)
class Option:
    """One legal play of the fourth seat and what it would have made of the trick."""

    cards: tuple[Card, ...]
    winner: int
    points: int

    def __init__(
        self,
        cards: tuple[Card, ...],
        winner: int,
        points: int,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "points", points)


def _multisets(items: list[tuple[Card, int]], k: int) -> list[tuple[Card, ...]]:
    """Every k-card sub-multiset of (face, copies) pairs, each once, more copies of earlier faces
    first (a list: the callers bound how many there are first)."""
    faces = [f for f, _ in items]
    copies = [have for _, have in items]
    # room[i]: the cards of faces i and after, so that no branch is followed that cannot be
    # filled (without it most of the walk, for a long trump holding, ended empty-handed).
    room = [0] * (len(items) + 1)
    for i in range(len(items) - 1, -1, -1):
        room[i] = room[i + 1] + copies[i]
    out: list[tuple[Card, ...]] = []
    _gather(faces, copies, room, 0, k, [], out)
    return out


def _gather(
    faces: list[Card],
    copies: list[int],
    room: list[int],
    i: int,
    left: int,
    picked: list[Card],
    out: list[tuple[Card, ...]],
) -> None:
    # A plain recursive function, not a generator: the compiled build calls it natively, where
    # nested generators pass every multiset up through each level.
    if left == 0:
        out.append(tuple(picked))
        return
    if room[i] < left:
        return
    face = faces[i]
    least = max(0, left - room[i + 1])
    for take in range(min(copies[i], left), least - 1, -1):
        for _ in range(take):
            picked.append(face)
        _gather(faces, copies, room, i + 1, left - take, picked, out)
        for _ in range(take):
            picked.pop()


def options(
    lead: Reading,
    first: Sequence[tuple[int, tuple[Card, ...]]],
    voids: Sequence[bool],
    seat: int,
    hand: Hand,
    trump: TrumpContext,
    rules: RuleSet,
    limit: int = LEGAL_LIMIT,
    before: TrickVerdict | None = None,
    fixed: bool = False,
    checked: bool = False,
    lazy: bool = False,
    listed: list[tuple[Card, ...]] | None = None,
) -> list[Option] | None:
    """The outcomes of the fourth seat's legal plays that can matter (module doc); None when
    more than `limit` plays would have to be resolved. `first`: the first three plays, `voids`:
    whether each of them held none of the led suit; `hand`: the fourth seat's holding; `before`:
    the trick resolved after those three plays, if the caller has it; `fixed`: no play of the
    fourth seat can beat its winner (`may_beat` said so), so none is resolved; `checked`: the
    caller has asked `too_many_plays` with this limit already (and it said no; `listed`: the plays
    it listed to know, if it did); `lazy`: a play that
    may beat the winner is not resolved but given the winner `UNRESOLVED` (its points are known
    without it), for the caller to resolve only the plays its judgement needs (`resolve`)."""
    n = lead.size
    eff = trump.eff
    counts = hand.counts
    vals = _as_list(counts)
    suit = lead.suit
    # The led suit's cards held, and each face's copies: one loop over a list (a comprehension
    # over the counts tuple tests and boxes each count through Python's protocols).
    mine: list[Card] = []
    for f in range(54):
        have = vals[f]
        if have and eff[f] == suit:
            for _ in range(have):
                mine.append(f)
    held = len(mine)
    comp = lead.components[0]
    if not checked:
        skip, listed = too_many_plays(lead, hand, held, trump, rules, limit)
        if skip:
            return None
    if before is None:
        before = trick_winner(lead, first, voids, trump, rules)
    if len(lead.components) == 1 and comp.length == 1 and comp.width <= 2:
        return _unit_options(lead, first, voids, seat, hand, mine, trump, rules, before)

    # To beat anything a play needs the lead's exact shape or a wider one (R6.1, R6.3), so at
    # least as many identical cards as the lead's widest component: a play without them leaves
    # the trick as it stood after three plays, with its own points added.
    widest = _widest(lead)

    out: list[Option] = []
    if held >= n:
        # Made from the ladder when that takes fewer candidates than judging every play. Any
        # bound at or above the count of plays of the suit makes the same plays (the budget only
        # chooses how), and the count is at most C(held, n) and, `too_many_plays` having said no,
        # at most `limit` (listed already when the bound could not tell): counting them
        # (`count_multisets`) cost more than it saved.
        bound = _choose(held, n)
        plays = listed
        if plays is None:
            plays = ladder_plays(lead, hand, trump, rules, bound if bound < limit else limit)
        for play in legal_plays(lead, hand, trump, rules) if plays is None else plays:
            out.append(_resolve(play, lead, trump, rules, before, fixed, widest))
    else:
        ends = _ends_by_cost(vals, suit, trump, n - held)
        if ends is None:
            return []  # cannot answer at all: a broken record, nothing to judge
        seen: set[tuple[Card, ...]] = set()
        for extra in ends:
            play = tuple(sorted(mine + list(extra)))
            if play not in seen:
                seen.add(play)
                out.append(_resolve(play, lead, trump, rules, before, fixed, widest))
        if held == 0 and suit != TRUMP:
            trumps = [(f, vals[f]) for f in range(54) if vals[f] and eff[f] == TRUMP]
            for ruff in _multisets(trumps, n):
                if ruff in seen:
                    continue
                seen.add(ruff)
                out.append(_resolve(ruff, lead, trump, rules, before, fixed, widest))
    if lazy:
        return out
    # A seat void in the led suit holds none of it for every play (R5.2).
    return [resolve(o, held == 0, lead, first, voids, seat, trump, rules, before) for o in out]


_BY_COST: Final[dict[tuple[int | None, int], tuple[Card, ...]]] = {}


def _by_cost(trump: TrumpContext) -> tuple[Card, ...]:
    """The 54 faces by points, side suits before trumps, then rank and face: made once per trump
    suit and level (never changed; at most 5 × 13 entries)."""
    key = (trump.suit, trump.level)
    found = _BY_COST.get(key)
    if found is None:
        eff, pos = trump.eff, trump.pos
        found = tuple(sorted(range(54), key=lambda f: (_POINTS[f], eff[f] == TRUMP, pos[f], f)))
        _BY_COST[key] = found
    return found


def _ends_by_cost(
    counts: list[int], suit: int, trump: TrumpContext, k: int
) -> tuple[list[Card], list[Card]] | None:
    """The k cheapest and the k richest cards held outside effective suit `suit` (what a short
    follower can add), in the order `_by_cost` keeps (by points, side suits before trumps, then
    rank and face): read from both ends of it, so nothing is sorted or listed per seat; None when
    fewer than k such cards are held."""
    order = _by_cost(trump)
    low = _take(order, 0, len(order), 1, counts, trump.eff, suit, k)
    if len(low) < k:
        return None
    high = _take(order, len(order) - 1, -1, -1, counts, trump.eff, suit, k)
    high.reverse()
    return low, high


def _take(
    order: tuple[Card, ...],
    start: int,
    stop: int,
    step: int,
    counts: list[int],
    eff: tuple[int, ...],
    suit: int,
    k: int,
) -> list[Card]:
    """Up to k cards held outside effective suit `suit`, taken face by face along `order` from
    `start` towards `stop` (from the front or from the back; a range of ints, which the compiled
    build loops over natively)."""
    out: list[Card] = []
    for i in range(start, stop, step):
        if len(out) >= k:
            break
        f = order[i]
        have = counts[f]
        if have and eff[f] != suit:
            for _ in range(min(have, k - len(out))):
                out.append(f)
    return out


def _resolve(
    cards: tuple[Card, ...],
    lead: Reading,
    trump: TrumpContext,
    rules: RuleSet,
    before: TrickVerdict,
    fixed: bool,
    widest: int,
) -> Option:
    """What the fourth seat's play `cards` makes of the trick (`options`) when it cannot beat the
    winner after three plays (`before`); a play that may beat is left `UNRESOLVED` (`resolve`)."""
    if not fixed:
        fixed = not play_may_beat(cards, lead, before, widest, trump, rules)
    winner = before.winner if fixed else UNRESOLVED
    return Option(cards, winner, before.points + _points(cards))


def resolve(
    o: Option,
    void: bool,
    lead: Reading,
    first: Sequence[tuple[int, tuple[Card, ...]]],
    voids: Sequence[bool],
    seat: int,
    trump: TrumpContext,
    rules: RuleSet,
    before: TrickVerdict,
) -> Option:
    """An option of `options(..., lazy=True)` with its winner found (R6: the fourth play
    compared with the winner after three, `before`); `void`: the seat held none of the led
    suit."""
    if o.winner != UNRESOLVED:
        return o
    verdict = trick_winner(lead, [*first, (seat, o.cards)], [*voids, void], trump, rules, before)
    return Option(o.cards, verdict.winner, verdict.points)


def _unit_options(
    lead: Reading,
    first: Sequence[tuple[int, tuple[Card, ...]]],
    voids: Sequence[bool],
    seat: int,
    hand: Hand,
    mine: list[Card],
    trump: TrumpContext,
    rules: RuleSet,
    before: TrickVerdict,
) -> list[Option]:
    """`options` for a single or pair lead without resolving every play: such a lead is beaten
    only by as many identical cards (R6.1; R6.3 is for tractor leads), in the led suit above the
    winner's top while it wins in the led suit, or all trump from a void follower, above the
    winner's top if that already is a ruff. The caller confirms its choice with `trick_winner`."""
    eff, pos = trump.eff, trump.pos
    led = lead.suit
    width = lead.components[0].width
    win_cards = first[before.winner_index][1]
    ruffed = eff[win_cards[0]] != led
    top = before.winning[0].top
    counts = hand.counts
    base = before.points
    winner = before.winner
    # Each play is added inline, not by a nested function: the compiled build calls a closure
    # through Python.
    out: list[Option] = []
    held = len(mine)
    if held >= width:
        # `mine` rises face by face: its distinct faces without a set and a sort.
        faces: list[Card] = []
        for c in mine:
            if not faces or faces[-1] != c:
                faces.append(c)
        if width == 1:
            for f in faces:
                beats = not ruffed and pos[f] > top
                out.append(Option((f,), seat if beats else winner, base + _POINTS[f]))
            return out
        protect = rules.protect_longer_units
        owed = False
        for f in faces:
            if (counts[f] == 2) if protect else (counts[f] >= 2):
                owed = True
                break
        if owed:
            for f in faces:
                if counts[f] >= 2:
                    beats = not ruffed and pos[f] > top
                    out.append(Option((f, f), seat if beats else winner, base + 2 * _POINTS[f]))
            return out
        # Every two cards of the suit, in `_multisets`' order: no pair is owed, so none is held
        # (or, protecting longer units, only wider ones are), and a play of two faces beats
        # nothing.
        for i in range(len(faces)):
            f = faces[i]
            if counts[f] >= 2:
                beats = not ruffed and pos[f] > top
                out.append(Option((f, f), seat if beats else winner, base + 2 * _POINTS[f]))
            for j in range(i + 1, len(faces)):
                g = faces[j]
                out.append(Option((f, g), winner, base + _POINTS[f] + _POINTS[g]))
        return out
    k = width - held
    ends = _ends_by_cost(_as_list(counts), led, trump, k)
    if ends is None:
        return []
    seen: set[tuple[Card, ...]] = set()
    for extra in ends:
        short = tuple(sorted(mine + list(extra)))
        if short not in seen:
            seen.add(short)
            # Loops, not `set` and `all` over a generator (run through Python when compiled).
            same = True
            for c in short:
                if c != short[0] or eff[c] != TRUMP:
                    same = False
                    break
            beats = held == 0 and led != TRUMP and same and (not ruffed or pos[short[0]] > top)
            out.append(Option(short, seat if beats else winner, base + _points(short)))
    if held == 0 and led != TRUMP:
        for f in range(54):
            if counts[f] >= width and eff[f] == TRUMP:
                ruff = (f,) * width
                if ruff not in seen:
                    seen.add(ruff)
                    beats = not ruffed or pos[f] > top
                    out.append(Option(ruff, seat if beats else winner, base + _points(ruff)))
    return out


def settled(
    lead: Reading,
    before: TrickVerdict | None,
    base: int,
    seat: int,
    counts: Sequence[int],
    classes: list[list[int]],
    own_won: bool,
    points: int,
    trump: TrumpContext,
    rules: RuleSet,
) -> bool:
    """Whether the fourth seat's judgement is surely `last_seat_ok` without listing its options:
    True only when `options` would return some options (given it does not give up: `over_limit`)
    and none of them would be flagged.

    Every option is `lead.size` cards: all of the led suit when the seat holds enough of it, else
    all of it plus other cards. So the points an option adds lie between the fewest and the most
    points that many such cards can carry. The winner is the one after three plays unless the
    option beats it, which needs as many identical cards as the lead's widest component, of the
    led suit while the winner is in it (or, from a void, of trump). When no option can change
    which team wins, a play that already gave the other team the fewest possible points, or its
    own team the most, cannot be bettered; nor can a play that won the trick with the most
    points possible. `before`: the trick after three plays (None will do when the seat's team
    won the trick: then only its points matter), `base` its points; `counts`: the seat's holding;
    `classes[suit]`: how many cards of each effective suit it holds worth 0, 5 and 10 points;
    `own_won`, `points`: whether its team won the trick as played, and the trick's points. The
    caller skips the seats `over_limit` first (the review does), as `options` would."""
    n = lead.size
    suit = lead.suit
    inside = classes[suit]
    held = inside[0] + inside[1] + inside[2]
    short = held < n
    if short:
        # Plain sums, not `outside[i] += ...`: the compiled build adds list items natively only so.
        zero, five, ten = -inside[0], -inside[1], -inside[2]
        for c in classes:
            zero += c[0]
            five += c[1]
            ten += c[2]
        outside = [zero, five, ten]
        k = n - held
        if zero + five + ten < k:
            return False  # cannot answer at all: `options` finds nothing
        fixed = 5 * inside[1] + 10 * inside[2]
        low, high = fixed + _fewest(outside, k), fixed + _most(outside, k)
    else:
        low, high = _fewest(inside, n), _most(inside, n)
    comps = lead.components
    widest = _widest(lead)
    unit = len(comps) == 1 and comps[0].length == 1 and widest <= 2
    if own_won:
        if points < base + high:
            return False
    elif (
        before is None
        or before.winner % 2 == seat % 2
        or points > base + low
        or _may_beat(
            lead,
            before,
            _as_list(counts),
            held,
            widest,
            unit,
            trump,
            rules,
        )
    ):
        return False
    return True


def point_classes(counts: Sequence[int], eff: tuple[int, ...]) -> list[list[int]]:
    """For each effective suit, how many of these cards are worth 0, 5 and 10 points."""
    out = [[0, 0, 0] for _ in range(5)]
    vals = _as_list(counts)
    for f in range(54):
        k = vals[f]
        if k:
            out[eff[f]][POINT_CLASS[f]] += k
    return out


def _fewest(classes: list[int], k: int) -> int:
    """Points of the k cheapest cards, given how many are worth 0, 5 and 10."""
    zero = min(classes[0], k)
    five = min(classes[1], k - zero)
    return 5 * five + 10 * (k - zero - five)


def _most(classes: list[int], k: int) -> int:
    """Points of the k richest cards, given how many are worth 0, 5 and 10."""
    ten = min(classes[2], k)
    five = min(classes[1], k - ten)
    return 10 * ten + 5 * five


def may_beat(
    lead: Reading,
    before: TrickVerdict,
    counts: Sequence[int],
    held: int,
    trump: TrumpContext,
    rules: RuleSet,
) -> bool:
    """Whether some play of the fourth seat might beat the winner after three plays: False only
    when none can (see `settled`). `held`: how many cards of the led suit the seat holds."""
    comps = lead.components
    widest = _widest(lead)
    unit = len(comps) == 1 and comps[0].length == 1 and widest <= 2
    vals = _as_list(counts)
    return _may_beat(lead, before, vals, held, widest, unit, trump, rules)


def _may_beat(
    lead: Reading,
    before: TrickVerdict,
    counts: list[int],
    held: int,
    widest: int,
    unit: bool,
    trump: TrumpContext,
    rules: RuleSet,
) -> bool:
    """Whether some play of the fourth seat might beat the winner after three plays (False only
    when none can: see `settled`)."""
    eff, pos = trump.eff, trump.pos
    suit = lead.suit
    ruffed = before.winner_index > 0 and eff[before.winning[0].faces[0]] != suit
    top = before.winning[0].top
    if held >= lead.size:
        if ruffed:
            return False  # a play of the led suit never beats a ruff
        if len(lead.components) > 1:
            # Whatever `throw_compare` says, a play beating a throw answers some component with
            # a higher one: it holds a face above the lowest top of the winner's split.
            floor = _lowest_top(before)
            if not any(counts[f] and eff[f] == suit and pos[f] > floor for f in range(54)):
                return False
        if len(lead.components) == 1:
            # One unit or tractor: beaten by the same shape ranking higher, so by a play holding
            # `width` copies of a face above the winner's top, or (R6.3, a tractor lead) by a
            # wider shape, so with more than `width` copies of some face.
            comp = lead.components[0]
            wider = comp.length > 1 and rules.stronger_shapes_win
            if comp.length > 1 and not _units_enough(
                _copies_in(counts, suit, eff), lead.size, widest, wider
            ):
                return False
            for f in range(54):
                k = counts[f]
                if k >= widest and eff[f] == suit and (pos[f] > top or (wider and k > widest)):
                    return True
            return False
        return any(counts[f] >= widest and eff[f] == suit for f in range(54))
    if held > 0 or suit == TRUMP:
        return False  # a short play mixes suits: it beats nothing
    comp = lead.components[0]
    if (
        len(lead.components) == 1
        and comp.length > 1
        and not _units_enough(
            _copies_in(counts, TRUMP, eff), lead.size, widest, rules.stronger_shapes_win
        )
    ):
        return False
    for f in range(54):
        if counts[f] >= widest and eff[f] == TRUMP and (not unit or not ruffed or pos[f] > top):
            return True
    return False


def _copies_in(counts: list[int], suit: int, eff: tuple[int, ...]) -> list[int]:
    """The copies held of each face of effective suit `suit` that is held at all."""
    out: list[int] = []
    for f in range(54):
        k = counts[f]
        if k and eff[f] == suit:
            out.append(k)
    return out


def _units_enough(copies: list[int], n: int, width: int, wider: bool) -> bool:
    """Whether faces with these copies can make one tractor of `n` cards whose units are `width`
    wide, or (`wider`: R6.3) wider: a tractor of units w wide takes n / w faces of at least w
    copies each. A play beating a tractor lead is one such tractor (R6.1, R6.3), so without one
    the holding (or the play) beats nothing."""
    w = width
    while True:
        faces = 0
        for k in copies:
            if k >= w:
                faces += 1
        if faces == 0:
            return False
        if faces * w >= n:
            return True
        if not wider:
            return False
        w += 1


def play_may_beat(
    cards: Sequence[Card],
    lead: Reading,
    before: TrickVerdict,
    widest: int,
    trump: TrumpContext,
    rules: RuleSet,
) -> bool:
    """`_may_beat` for a holding of just these cards, read from the cards (a play is the one
    play of its own cards): False when this play surely leaves the winner after three plays as
    it is, so it need not be resolved. `widest`: the width of the lead's widest component."""
    eff, pos = trump.eff, trump.pos
    suit = lead.suit
    comps = lead.components
    n = lead.size
    inside = 0
    for c in cards:
        if eff[c] == suit:
            inside += 1
    ruffed = before.winner_index > 0 and eff[before.winning[0].faces[0]] != suit
    top = before.winning[0].top
    if inside >= n:
        if ruffed:
            return False
        if len(comps) > 1:
            floor = _lowest_top(before)
            if not any(pos[c] > floor for c in cards):
                return False
            return any(cards.count(c) >= widest for c in cards)
        wider = comps[0].length > 1 and rules.stronger_shapes_win
        if comps[0].length > 1 and not _units_enough(_copies_of(cards), n, widest, wider):
            return False
        for c in cards:
            if pos[c] > top or wider:
                k = cards.count(c)
                if k >= widest and (pos[c] > top or k > widest):
                    return True
        return False
    if inside > 0 or suit == TRUMP:
        return False
    unit = len(comps) == 1 and comps[0].length == 1 and widest <= 2
    if (
        len(comps) == 1
        and comps[0].length > 1
        and not _units_enough(_copies_of(cards), n, widest, rules.stronger_shapes_win)
    ):
        return False
    for c in cards:
        if (
            eff[c] == TRUMP
            and (not unit or not ruffed or pos[c] > top)
            and cards.count(c) >= widest
        ):
            return True
    return False


def _copies_of(cards: Sequence[Card]) -> list[int]:
    """The copies of each face among these cards (a play's few cards: counted in place)."""
    out: list[int] = []
    seen: list[Card] = []
    for c in cards:
        if c not in seen:
            seen.append(c)
            out.append(cards.count(c))
    return out


picklable(Option)
