"""Who wins a trick, and the points it carries (R6).

R6.1: the lead as played (the forced component after a failed throw) wins unless beaten. A later
play can only beat the current winner with the lead's exact shape (`combos.iter_matches`), and
either (a) in the led suit, or (b) — the led suit being a side suit — from a player who held none
of it, all trump. Any eligible trump play outranks any side-suit play, so a play's strength is
first its class (side suit 0, trump over a side-suit lead 1), then its ranks; a play of a lower
class never beats. R6.4: equal strength keeps the earlier play (先出为大). The trick's points are
the points of every card played in it, the lead's included.

R6.2, comparing plays of several components (throws), option `throw_compare`. The current winner
keeps the split it won with (the lead: its reading); component i answers lead component i, and
among lead components of equal shape the highest answers the highest.

- `all` (default): the play beats the winner when some split of it into the lead's shape has
  every component higher than its counterpart. The new winner keeps the strongest such split.
- `highest`: the play beats the winner when some split of it has a component whose top is higher
  than every top of the winner's split (the highest card decides; an ace-low tractor counts with
  its low top, R3.3).
- `longest_unit`: only the lead's greatest component counts — the largest by card count,
  tractors before units, then the widest, the highest of equals (R4.2's key order). The play
  beats the winner when its answer to that component ranks higher; the rest just has to fit the
  shape. Singles thus never decide a throw that holds a pair or more.

R6.3, option `stronger_shapes_win` (default on): for a lead that is one tractor, a play of the
same number of cards that is one unit or one tractor of wider units outranks the lead's shape
whatever its ranks: a quad beats ⟨2-2⟩, ⟨3-3⟩ beats ⟨2-2-2⟩ (666777 > QQKKAA), ⟨4-4⟩ beats
⟨2-2-2-2⟩ (44445555 > JJQQKKAA), ⟨4-4-4⟩ beats ⟨3-3-3-3⟩. It must still be in the led suit, or all
trump from a player void in a side-suit lead. The strength of such a play is (class, width, top):
trump over side suit first — R6.1(b) makes any trump play outrank a side-suit play, and ranking
width first would let the verdict depend on who played first — then the wider shape, then the
higher top. With the option off these plays simply do not match. Throws are never beaten this
way: R6.3 speaks of a tractor lead.

Seed 002's 拖拉机 examples, level 3 with ♦ trump, read under RULES.md (tests/test_trick.py):
quad > joker tractor > ♦3♦3 SJ SJ > ♠3♠3 ♦3♦3 > ♦A♦A ♠3♠3 > ♦K♦K ♦A♦A; and level 10's
666777 > QQKKAA, 666677778888 > JJJQQQKKKAAA, 44445555 > JJQQKKAA. Skipped, because RULES.md
says otherwise: "方块2233 > 黑桃2233 > 红桃2233 > 梅花2233" — ♦2 and ♦3 are not adjacent at
level 3 (the level rank leaves the suit, R3.2), and the off-suit level cards are equal, not ranked
by suit (R2.3), so two off-suit level pairs never form a tractor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .cards import Card, card_points, card_rank, card_suit, pretty_card
from .combos import (
    ComponentCache,
    ShapePlan,
    cached_component,
    component_cache,
    iter_matches,
    shape_plan,
)
from .pickling import picklable
from .rbtying import first_defeating
from .rules import RuleSet
from .shape import UNIT_KINDS, Component, Reading
from .trump import TRUMP, TrumpContext

__all__ = ["TrickVerdict", "describe_play", "resolve_trick", "trick_winner"]


@dataclass(frozen=True, slots=True)
class TrickVerdict:
    """The winner of a trick (seat and index in play order), its points, and why (R6)."""

    winner: int
    winner_index: int
    points: int
    rule: str
    reason: str
    winning: tuple[Component, ...] = ()
    """The winning play read into the lead's shape (for the lead: its reading)."""

    def __init__(
        self,
        winner: int,
        winner_index: int,
        points: int,
        rule: str,
        reason: str,
        winning: tuple[Component, ...] = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "winner_index", winner_index)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "winning", winning)


_PRETTY: Final = tuple(pretty_card(c) for c in range(54))


_DESCRIBED: Final[dict[int, dict[tuple[Card, ...], str]]] = {}
"""Descriptions already spelled, by width, then faces."""


def _describe(comp: Component) -> str:
    """`Component.describe`, spelled out here because every trick's reason needs it, and
    remembered: a replay describes the same few hundred components over and over."""
    width, faces = comp.width, comp.faces
    known = _DESCRIBED.get(width)
    if known is None:
        known = _DESCRIBED[width] = {}
    text = known.get(faces)
    if text is None:
        cards = " ".join([_PRETTY[f] for f in faces for _ in range(width)])
        if len(faces) > 1:
            text = f"tractor⟨{'-'.join([str(width)] * len(faces))}⟩ {cards}"
        else:
            text = f"{UNIT_KINDS[width]} {cards}"
        if len(known) >= 10_000:
            known.clear()
        known[faces] = text
    return text


def describe_play(comps: Sequence[Component]) -> str:
    """A play read into components, for reasons: `pair 7♥ 7♥ + single A♥`."""
    if len(comps) == 1:
        return _describe(comps[0])
    return " + ".join([_describe(c) for c in comps])


_POINTS: Final = tuple(card_points(c) for c in range(54))


def _class(cards: Sequence[Card], led: int, void: bool, trump: TrumpContext) -> int:
    """0 = in the led suit, 1 = all trump from a player void in a side-suit lead, -1 = neither."""
    eff = trump.eff
    suit = eff[cards[0]]
    for c in cards:
        if eff[c] != suit:
            return -1
    if suit == led:
        return 0
    if suit == TRUMP and void:
        return 1
    return -1


def _throw_beats(
    cards: Sequence[Card],
    lead: Reading,
    plan: ShapePlan,
    winner: tuple[Component, ...],
    trump: TrumpContext,
    rules: RuleSet,
) -> tuple[Component, ...] | None:
    """The split with which a same-class play beats the winner's under R6.2, or None."""
    policy = rules.throw_compare
    if policy == "all":
        floors = [c.top for c in winner]
        return next(iter_matches(cards, lead, trump, rules, floors, plan=plan), None)
    if policy == "longest_unit" or (policy == "botzone" and lead_tractor_size(lead) >= 4):
        # Botzone: only a lead holding a tractor compares two trump plays, by the answers to
        # its largest component; without one its judge fails (`botzone_judge_fault`).
        first = plan.order[0]
        floors = [-2] * len(winner)
        floors[first] = winner[first].top
        return next(iter_matches(cards, lead, trump, rules, floors, plan=plan), None)
    if policy == "botzone":
        return None
    best = max(c.top for c in winner)
    for split in iter_matches(cards, lead, trump, rules, plan=plan):
        if max(c.top for c in split) > best:
            return split
    return None


def lead_tractor_size(lead: Reading) -> int:
    """The cards of the lead's largest component."""
    return max([c.size for c in lead.components])


def botzone_judge_fault(
    lead: Reading,
    plays: Sequence[tuple[int, tuple[Card, ...]]],
    voids: Sequence[bool],
    trump: TrumpContext,
    rules: RuleSet,
) -> int | None:
    """Where the Botzone judge (2024, `checkWinner`) fails on a throw trick: the index of the
    play it cannot compare, or None.

    For a throw with no tractor the judge compares a trump play of the throw's shape with a
    winning trump play through `Major.index` of a number, which raises: the match ends there
    with "Unknown Error" charged to the trick's last player. It does not fail when the winner's
    highest card (of the lead's largest width) is an off-suit level card, or in no-trump a level
    card: those it compares by hand."""
    if len(lead.components) == 1 or lead_tractor_size(lead) >= 4:
        return None
    plan = shape_plan(lead)
    step = max([c.width for c in lead.components])
    eff, pos = trump.eff, trump.pos
    win_trump = lead.suit == TRUMP
    win_cards = plays[0][1]
    for index in range(1, len(plays)):
        cards = plays[index][1]
        if len(cards) != len(win_cards) or any(eff[c] != TRUMP for c in cards):
            continue
        if next(iter_matches(cards, lead, trump, rules, plan=plan), None) is None:
            continue
        if not win_trump:
            win_trump, win_cards = True, cards
            continue
        top = max([c for c in win_cards if win_cards.count(c) >= step], key=lambda c: pos[c])
        level_card = top < 52 and card_rank(top) == trump.level
        if not level_card or card_suit(top) == trump.suit:
            return index
        # The judge's own comparison of a level-card winner: only the trump-suit level card
        # or a joker beats it; such a play becomes the winner.
        best = max([c for c in cards if cards.count(c) >= step], key=lambda c: pos[c])
        if best >= 52 or (card_rank(best) == trump.level and card_suit(best) == trump.suit):
            win_cards = cards
    return None


_Beaten = tuple[int, tuple[Component, ...], bool]
"""The last change of winner: (index of the play beaten, its split, whether by a ruff)."""

_Tie = tuple[int, tuple[Component, ...]]
"""A later play only tying the winner: (its index, its split)."""

_Contest = tuple[int, int, tuple[Component, ...], str, _Beaten | None, _Tie | None]
"""What `_contest` finds: (points, winner's index, its split, rule, last change, tie)."""


def resolve_trick(
    lead: Reading,
    plays: Sequence[tuple[int, tuple[Card, ...]]],
    voids: Sequence[bool],
    trump: TrumpContext,
    rules: RuleSet,
) -> TrickVerdict:
    """The winner of a trick (R6). `plays` are (seat, cards) in play order, the lead as played
    first; `voids[i]`: the i-th player held none of the led effective suit before playing."""
    points, win_index, win_split, rule, beaten, tie = _contest(lead, plays, voids, trump, rules)
    seat = plays[win_index][0]
    if beaten is None:
        reason = f"seat {seat}'s lead {describe_play(win_split)} stands: no later play beats it"
    else:
        # Unpacked here, not `*beaten`: compiled, a starred call goes through Python's calling.
        beaten_index, beaten_split, ruff = beaten
        reason = _how(plays, win_index, beaten_index, beaten_split, ruff, win_split)
        if rule == "R6.2":
            reason += f" (R6.2 throw_compare={rules.throw_compare})"
    if tie is not None:
        rule = "R6.4"
        reason += (
            f"; seat {plays[tie[0]][0]}'s {describe_play(tie[1])} only ties it, the earlier"
            " play wins"
        )
    return TrickVerdict(seat, win_index, points, rule, f"{reason}; {points} points", win_split)


def trick_winner(
    lead: Reading,
    plays: Sequence[tuple[int, tuple[Card, ...]]],
    voids: Sequence[bool],
    trump: TrumpContext,
    rules: RuleSet,
    before: TrickVerdict | None = None,
) -> TrickVerdict:
    """`resolve_trick` without its reason (an empty string): the same winner, split, points and
    rule, for callers that resolve many candidate tricks and read none of the reasons (the
    coaching review's fourth seat). `before`, when given, is the verdict on every play but the
    last (`trick_winner` or `resolve_trick` of them, or the same winner index and split): since
    R6 compares each play with the winner so far only, the last play alone is compared with it,
    and the rule is `before`'s unless the last play beats or ties its winner."""
    points, win_index, win_split, rule, _, tie = _contest(lead, plays, voids, trump, rules, before)
    if tie is not None:
        rule = "R6.4"
    return TrickVerdict(plays[win_index][0], win_index, points, rule, "", win_split)


def _contest(
    lead: Reading,
    plays: Sequence[tuple[int, tuple[Card, ...]]],
    voids: Sequence[bool],
    trump: TrumpContext,
    rules: RuleSet,
    before: TrickVerdict | None = None,
) -> _Contest:
    """R6 itself, for `resolve_trick` and `trick_winner`: the trick's points, the winner's index
    and split, the rule of the last change of winner (R6.4 when a tie follows it is the callers'
    to say: the reason names the rule beaten by), and what the reason tells (that change, a
    tie). `before`: the verdict on every play but the last (`trick_winner`)."""
    if not plays:
        raise ValueError("a trick needs at least the lead")
    if len(voids) != len(plays):
        raise ValueError(f"{len(voids)} void flags for {len(plays)} plays")
    led = lead.suit
    pts = _POINTS
    points = 0
    for _, cards in plays:
        for c in cards:
            points += pts[c]
    comps = lead.components
    simple = len(comps) == 1
    lead_comp = comps[0]
    size = lead_comp.width * len(lead_comp.faces) if simple else lead.size

    win_index = 0
    win_class = 0
    win_split: tuple[Component, ...] = comps
    rule = "R6.1"
    eff = trump.eff
    start = 1
    if before is not None:
        # Each play is compared with the winner so far only: the plays before the last need
        # not be compared again. The winner's class follows from its split's suit.
        win_index, win_split, rule = before.winner_index, before.winning, before.rule
        win_class = 0 if eff[win_split[0].faces[0]] == led else 1
        start = len(plays) - 1
    # Reasons are built once, at the end: (index beaten, its split, by a ruff) of the last change.
    beaten: _Beaten | None = None
    tie: _Tie | None = None

    if simple:
        lead_width = lead_comp.width
        lead_length = len(lead_comp.faces)
        stronger = lead_length > 1 and rules.stronger_shapes_win
        known = component_cache(trump, rules)
        pos = trump.pos
        # The best play so far ranks (class, width, top) — see the module doc.
        best_width, best_top = win_split[0].width, win_split[0].top
        for index in range(start, len(plays)):
            cards = plays[index][1]
            if len(cards) != size:
                continue
            suit = eff[cards[0]]
            if suit == led:
                cls = 0
            elif suit == TRUMP and voids[index]:
                cls = 1
            else:
                continue
            if cls < win_class:
                continue
            piece: Component | None = None
            if size == 1:
                width, top = 1, pos[cards[0]]
            else:
                if type(cards) is not tuple:
                    cards = tuple(cards)
                piece = known.get(cards)
                if piece is None:
                    piece = cached_component(cards, trump, rules, known)
                    if piece is None:
                        continue  # mixed suits, or no one unit or tractor
                width, top = piece.width, piece.top
                if width == lead_width and len(piece.faces) == lead_length:
                    pass
                elif not (stronger and width > lead_width):  # one piece of the same size
                    continue
            if cls > win_class or width > best_width or (width == best_width and top > best_top):
                # A higher class, else a wider shape (R6.3), else a higher top, beats.
                comp = piece if piece is not None else _single(cards, trump, rules, known)
                beaten = (win_index, win_split, cls > win_class)
                rule = "R6.3" if width > lead_width else "R6.1"
                win_index, win_class, win_split = index, cls, (comp,)
                best_width, best_top = width, top
                tie = None
            elif cls == win_class and width == best_width and top == best_top:
                comp = piece if piece is not None else _single(cards, trump, rules, known)
                tie = (index, (comp,))
    else:
        plan = shape_plan(lead)
        # R6.2 `winning_split` `first_match`: a play that beats keeps the reading the rbtying
        # server finds first, not the strongest (`rbtying.first_defeating`).
        first_match = rules.winning_split == "first_match"
        win_ranks: list[int] | None = None
        for index in range(start, len(plays)):
            cards = plays[index][1]
            if len(cards) != size:
                continue
            cls = _class(cards, led, voids[index], trump)
            if cls < win_class:
                continue
            if cls > win_class:
                if first_match:
                    split = first_defeating(cards, lead, win_split, trump, rules)
                else:
                    split = next(iter_matches(cards, lead, trump, rules, plan=plan), None)
                if split is None:
                    continue
                rule = "R6.1"
            else:
                if first_match:
                    found = first_defeating(cards, lead, win_split, trump, rules)
                else:
                    found = _throw_beats(cards, lead, plan, win_split, trump, rules)
                if found is None:
                    # A tie needs the very same ranks; only then is it worth reading the play.
                    if win_ranks is None:
                        win_ranks = _ranks(_cards_of(win_split), trump)
                    if _ranks(cards, trump) == win_ranks:
                        strongest = next(iter_matches(cards, lead, trump, rules, plan=plan), None)
                        if strongest is not None and _same_tops(strongest, win_split):
                            tie = (index, strongest)
                    continue
                split = found
                rule = "R6.2"
            beaten = (win_index, win_split, cls > win_class)
            win_index, win_class, win_split = index, cls, split
            win_ranks = None
            tie = None

    return points, win_index, win_split, rule, beaten, tie


def _single(
    cards: Sequence[Card], trump: TrumpContext, rules: RuleSet, known: ComponentCache
) -> Component:
    key = cards if type(cards) is tuple else tuple(cards)
    comp = known.get(key)
    if comp is None:
        comp = cached_component(key, trump, rules, known)
    assert comp is not None, "one card is always a unit"
    return comp


def _cards_of(split: Sequence[Component]) -> list[Card]:
    return [c for comp in split for c in comp.cards()]


def _ranks(cards: Sequence[Card], trump: TrumpContext) -> list[int]:
    pos = trump.pos
    return sorted(pos[c] for c in cards)


def _same_tops(a: Sequence[Component], b: Sequence[Component]) -> bool:
    return all(x.top == y.top for x, y in zip(a, b, strict=True))


def _how(
    plays: Sequence[tuple[int, tuple[Card, ...]]],
    index: int,
    beaten: int,
    beaten_split: Sequence[Component],
    ruff: bool,
    split: Sequence[Component],
) -> str:
    seat, other = plays[index][0], plays[beaten][0]
    verb = "ruffs" if ruff else "beats"
    mine = describe_play(split)
    theirs = describe_play(beaten_split)
    if len(split) == 1 and len(beaten_split) == 1 and split[0].width > beaten_split[0].width:
        return f"seat {seat}'s {mine} {verb} seat {other}'s {theirs}: a stronger shape (R6.3)"
    trump = "trump " if ruff else ""
    return f"seat {seat}'s {trump}{mine} {verb} seat {other}'s {theirs}"


picklable(TrickVerdict)
