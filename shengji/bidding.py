"""Declaring trump, the banker, the bury and frying the bottom (R8, R9): everything before trick 1.

`settle(record, dealt, bottom)` judges a hand's shows, bury and fries and says how play starts:
trump, banker, each seat's holding, the bottom as finally buried.

A show the table accepted is applied as it was made even when it broke a rule (a weak overturn, a
self-overturn, cards the seat did not hold yet): the rest of the hand was played under the trump
the table used, so judging it under another would bury the real fault under false ones. The show
is flagged. Only a show that names no trump at all (mixed faces, a non-level card) is ignored.
A bury or fry bury of cards the seat did not hold leaves the holdings unknowable: the hand is
rejected there.

Strength of a show (R8.2): (number of cards, kind) with kinds ♦ 1 < ♣ 2 < ♥ 3 < ♠ 4 < SJ 5 < BJ 6.

Choices where the rule book is silent:
- In a match's first hand (banker null) a seat shows its own team's level rank; the standing
  show's seat becomes banker and the hand is played at that team's level.
- Reinforcing (上保险) is a stronger show of the same face by the seat whose show stands; any other
  topping of one's own standing show is a self-overturn (R8.3).
- A four-joker show or fry names its trump with `trump`, NT when absent. `trump` on any other show
  is a fault unless it names what the cards name.
- Two-deck (R9): the first show is one or two level cards, never jokers; every later show and
  every fry is a pair (level cards or identical jokers).
- The order of fries needs no check of its own: asking goes round from the banker's next seat and
  goes on after each fry, so any seat may fry next except the one whose fry stands, which R8.3
  already forbids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .cards import BIG_JOKER, SMALL_JOKER, SUITS, Card, Hand, card_rank, card_suit, pretty_card
from .pickling import picklable
from .record import HandRecord, Show
from .results import BidRecord, Finding, TrumpSource
from .trump import TrumpContext, ladder_options, trump_context

Strength = tuple[int, int]
_SUIT_KIND = (4, 3, 2, 1)
"""R8.2 at equal count: ♠ > ♥ > ♣ > ♦ (index = suit S H C D)."""
_JOKER_KIND = {SMALL_JOKER: 5, BIG_JOKER: 6}


def _pretty(cards: Sequence[Card]) -> str:
    return " ".join(pretty_card(c) for c in cards) or "(none)"


@dataclass(frozen=True, slots=True)
class ShowReading:
    """What a show's cards name: a trump token (`S H C D NT`) and their strength."""

    trump: str
    strength: Strength
    face: Card
    jokers: bool

    def __init__(self, trump: str, strength: Strength, face: Card, jokers: bool) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "strength", strength)
        object.__setattr__(self, "face", face)
        object.__setattr__(self, "jokers", jokers)


def read_show(cards: Sequence[Card], level: int) -> ShowReading | None:
    """k identical level-rank cards name their suit; k identical jokers name no-trump (R8.1).
    None when the cards name nothing."""
    if not cards:
        return None
    face = cards[0]
    if any(c != face for c in cards):
        return None
    if face in _JOKER_KIND:
        return ShowReading("NT", (len(cards), _JOKER_KIND[face]), face, True)
    if card_rank(face) != level:
        return None
    suit = card_suit(face)
    return ShowReading(SUITS[suit], (len(cards), _SUIT_KIND[suit]), face, False)


def bottom_trump(bottom: Sequence[Card], level: int) -> int | None:
    """R8.5: revealing the bottom in order, the first level-rank card's suit is trump; without one,
    the first card's suit; a joker first means no-trump (None)."""
    for card in bottom:
        if card < 52 and card_rank(card) == level:
            return card_suit(card)
    first = bottom[0]
    return None if first >= 52 else card_suit(first)


def _suit_of(token: str) -> int | None:
    return None if token == "NT" else SUITS.index(token)


@dataclass(frozen=True, slots=True)
class Standing:
    seat: int
    reading: ShowReading
    trump: str

    def __init__(self, seat: int, reading: ShowReading, trump: str) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "reading", reading)
        object.__setattr__(self, "trump", trump)


@dataclass(frozen=True, slots=True)
class Bidding:
    """How play starts. `rejected` (with the finding that says why) when it cannot."""

    trump: TrumpContext | None
    level: int | None
    banker: int | None
    trump_source: TrumpSource | None
    bids: tuple[BidRecord, ...]
    findings: tuple[Finding, ...]
    rejected: bool
    redeal: bool
    banker_before_bury: Hand | None
    start: tuple[Hand, ...]
    """Each seat's holding when play starts (after the bury and every fry)."""
    bottom_buried: tuple[Card, ...]

    def __init__(
        self,
        trump: TrumpContext | None,
        level: int | None,
        banker: int | None,
        trump_source: TrumpSource | None,
        bids: tuple[BidRecord, ...],
        findings: tuple[Finding, ...],
        rejected: bool,
        redeal: bool,
        banker_before_bury: Hand | None,
        start: tuple[Hand, ...],
        bottom_buried: tuple[Card, ...],
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "banker", banker)
        object.__setattr__(self, "trump_source", trump_source)
        object.__setattr__(self, "bids", bids)
        object.__setattr__(self, "findings", findings)
        object.__setattr__(self, "rejected", rejected)
        object.__setattr__(self, "redeal", redeal)
        object.__setattr__(self, "banker_before_bury", banker_before_bury)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "bottom_buried", bottom_buried)


class _Judge:
    """Collects findings while the shows, the bury and the fries are walked."""

    def __init__(self, record: HandRecord, line: int | None) -> None:
        self.record = record
        self.line = line
        self.findings: list[Finding] = []
        self.rules = record.rules
        self.two_deck = record.rules.decks == 2

    def flag(self, code: str, reason: str, seat: int | None = None) -> None:
        self.findings.append(Finding(code, reason, None, seat, self.line))

    def judge_show(
        self,
        what: str,
        seat: int,
        cards: Sequence[Card],
        named: str | None,
        level: int,
        standing: Standing | None,
    ) -> tuple[ShowReading | None, str, bool]:
        """Judge one show against the standing one. Returns (reading or None when it names
        nothing, the trump it sets, whether it broke no rule)."""
        if self.rules.show_order != "count_then_kind":
            return self.judge_engine_show(what, seat, cards, named, level, standing)
        reading = read_show(cards, level)
        if reading is None:
            self.flag(
                "bad_show",
                f"{what} by seat {seat} of {_pretty(cards)} names no trump: a show is identical "
                f"level-rank cards ({level_name(level)}) or identical jokers (R8.1)",
                seat,
            )
            return None, "", False
        ok = True
        trump = reading.trump
        four_jokers = reading.jokers and reading.strength[0] == 4
        if named is not None and named != trump:
            if four_jokers:
                trump = named
            else:
                self.flag(
                    "bad_show",
                    f"{what} by seat {seat} of {_pretty(cards)} names trump {named}, but only "
                    f"four jokers may name one; the cards name {trump} (R8.1)",
                    seat,
                )
                ok = False
        count = reading.strength[0]
        if standing is None:
            joker_pair = self.rules.joker_pair_first_show and count >= 2
            if reading.jokers and (self.two_deck or count < 4) and not joker_pair:
                need = (
                    "jokers cannot make the first show (R9)"
                    if self.two_deck
                    else ("a first show with jokers needs four (R8.1)")
                )
                self.flag("bad_show", f"{what} by seat {seat} of {_pretty(cards)}: {need}", seat)
                ok = False
        else:
            if self.two_deck and count != 2:
                self.flag(
                    "bad_show",
                    f"{what} by seat {seat} of {_pretty(cards)}: in two-deck an overturn is a "
                    "pair (R9)",
                    seat,
                )
                ok = False
            own = standing.seat == seat
            reinforce = own and reading.face == standing.reading.face
            if own and not reinforce:
                self.flag(
                    "self_overturn",
                    f"{what} by seat {seat} of {_pretty(cards)} tops its own standing show of "
                    f"{_pretty([standing.reading.face] * standing.reading.strength[0])} (R8.3)",
                    seat,
                )
                ok = False
            elif reading.strength <= standing.reading.strength:
                self.flag(
                    "weak_show",
                    f"{what} by seat {seat} of {_pretty(cards)} is not stronger than the standing "
                    f"{_pretty([standing.reading.face] * standing.reading.strength[0])} of seat "
                    f"{standing.seat} (R8.2)",
                    seat,
                )
                ok = False
        if reading.jokers and count == 1:
            self.flag("bad_show", f"{what} by seat {seat} of a single joker (R8.1)", seat)
            ok = False
        return reading, trump, ok

    def judge_engine_show(
        self,
        what: str,
        seat: int,
        cards: Sequence[Card],
        named: str | None,
        level: int,
        standing: Standing | None,
    ) -> tuple[ShowReading | None, str, bool]:
        """`judge_show` under `show_order` `tiers` or `call_snatch` (docs/rules.md, "Engine
        presets"): a show is one level card or a pair of identical level cards or jokers, and
        its strength its tier: single 1 < level pair (any suit) 2 < SJ pair 3 < BJ pair 4."""
        reading = read_show(cards, level)
        count = len(cards)
        if reading is None or count > 2 or (reading.jokers and count == 1):
            self.flag(
                "bad_show",
                f"{what} by seat {seat} of {_pretty(cards)}: a show is one level card "
                f"({level_name(level)}) or a pair of identical level cards or jokers",
                seat,
            )
            return None, "", False
        tier = {SMALL_JOKER: 3, BIG_JOKER: 4}.get(reading.face, count)
        reading = ShowReading(reading.trump, (tier, 0), reading.face, reading.jokers)
        ok = True
        if named is not None and named != reading.trump:
            self.flag(
                "bad_show",
                f"{what} by seat {seat} of {_pretty(cards)} names trump {named}, but the cards "
                f"name {reading.trump}",
                seat,
            )
            ok = False
        standing_cards = ""
        if standing is not None:
            shown = 1 if standing.reading.strength[0] == 1 else 2
            standing_cards = _pretty([standing.reading.face] * shown)
        if self.rules.show_order == "call_snatch":
            if standing is None and count != 1:
                self.flag(
                    "bad_show",
                    f"{what} by seat {seat} of {_pretty(cards)}: the first show is a call with one "
                    "level card",
                    seat,
                )
                ok = False
            elif standing is not None and (count != 2 or standing.reading.strength[0] != 1):
                why = "a snatch is a pair" if count != 2 else "the hand's one snatch is made"
                self.flag("bad_show", f"{what} by seat {seat} of {_pretty(cards)}: {why}", seat)
                ok = False
            return reading, reading.trump, ok
        if standing is None:
            if reading.jokers and not self.rules.joker_pair_first_show:
                self.flag(
                    "bad_show",
                    f"{what} by seat {seat} of {_pretty(cards)}: jokers cannot make the first show",
                    seat,
                )
                ok = False
            return reading, reading.trump, ok
        own = standing.seat == seat
        if own and not self.rules.self_overturn and reading.face != standing.reading.face:
            self.flag(
                "self_overturn",
                f"{what} by seat {seat} of {_pretty(cards)} tops its own standing show of "
                f"{standing_cards}; only the same suit may be strengthened",
                seat,
            )
            ok = False
        elif reading.strength <= standing.reading.strength:
            self.flag(
                "weak_show",
                f"{what} by seat {seat} of {_pretty(cards)} is not stronger than the standing "
                f"{standing_cards} of seat {standing.seat} (single < level pair < SJ pair < BJ "
                "pair)",
                seat,
            )
            ok = False
        return reading, reading.trump, ok


def level_name(level: int) -> str:
    return "10" if level == 10 else "23456789TJQKA"[level - 2]


def _held_after(record: HandRecord, seat: int, dealt: int) -> Hand:
    deal = record.deal
    return Hand.of(deal.cards[(seat - deal.first) % 4 : dealt : 4])


def settle(
    record: HandRecord,
    dealt: Sequence[Hand],
    bottom: Sequence[Card],
    *,
    line: int | None = None,
) -> Bidding:
    """Judge the shows (R8.1–R8.4), the no-show reveal or redeal (R8.5), the bury (R8.6) and every
    fry (R8.7) of a hand whose deal gave `dealt` (per seat) and `bottom`."""
    judge = _Judge(record, line)
    levels = record.levels
    dealing = record.rules.deck_size - record.rules.bottom_size
    standing: Standing | None = None
    source: TrumpSource | None = None
    bids: list[BidRecord] = []
    last_dealt = 0

    for show in record.bids:
        level = levels[(show.seat if record.banker is None else record.banker) % 2]
        reading, named, ok = judge.judge_show(
            "show", show.seat, show.cards, show.trump, level, standing
        )
        ok = _check_dealt(judge, show, dealing, last_dealt) and ok
        last_dealt = max(last_dealt, show.dealt)
        lacking = _held_after(record, show.seat, min(show.dealt, dealing)).missing(show.cards)
        if lacking:
            judge.flag(
                "show_not_held",
                f"seat {show.seat} showed {_pretty(show.cards)} after {show.dealt} cards were "
                f"dealt but did not hold {_pretty(lacking)} yet",
                show.seat,
            )
            ok = False
        if reading is None:
            bids.append(BidRecord(show.seat, show.cards, "show", show.dealt, "", False))
            continue
        kind: Literal["show", "overturn"]
        if standing is None:
            kind = "show"
            source = "show"
        elif standing.seat == show.seat and standing.reading.face == reading.face:
            kind = "show"
        else:
            kind = "overturn"
            source = "overturn"
        bids.append(BidRecord(show.seat, show.cards, kind, show.dealt, named, ok))
        standing = Standing(show.seat, reading, named)

    if record.end == "redeal":
        return _redeal(judge, record, bids, standing, dealt)

    rules = record.rules
    if record.banker is None:
        if standing is None:
            if rules.no_show_trump == "bottom":
                reason = (
                    "nobody showed in the first hand of a match: the deal is void and must be "
                    'logged as end "redeal" (R8.5)'
                )
            else:
                reason = (
                    "nobody showed in the first hand of a match and the log names no banker: "
                    f"under the {rules.preset} rules the engine chose one, so the log must say "
                    "which"
                )
            judge.flag("no_show", reason)
            return _stop(judge, None, None, None, None, bids, dealt)
        banker = standing.seat
    else:
        banker = record.banker
    level = levels[banker % 2]

    if standing is None:
        source = "bottom"
        found = _no_show_trump(record, bottom, level)
        if found is None:
            judge.flag(
                "no_show",
                "nobody showed and the engine chose trump at random, but the log does not say "
                "which (claimed.trump)",
            )
            return _stop(judge, None, None, None, None, bids, dealt)
        trump_token = found
    else:
        trump_token = standing.trump
    trump = trump_context(_suit_of(trump_token), level, *ladder_options(rules))

    holdings = [list(h.counts) for h in dealt]
    before = list(holdings[banker])
    for c in bottom:
        before[c] += 1
    banker_before_bury = Hand(tuple(before))
    if record.bury is None:
        if record.end == "abandoned" and not record.plays and not record.fries:
            return Bidding(
                trump, level, banker, source, tuple(bids), tuple(judge.findings), False, False,
                banker_before_bury, tuple(dealt), tuple(bottom),
            )  # fmt: skip
        judge.flag("bad_bury", f"banker seat {banker} took the bottom but no bury is logged (R8.6)")
        return _stop(judge, trump, level, banker, source, bids, dealt, banker_before_bury)
    bury = record.bury
    if bury.seat != banker:
        judge.flag(
            "bad_bury",
            f"seat {bury.seat} buried, but seat {banker} is the banker (R8.6)",
            bury.seat,
        )
    holdings[banker] = before
    if not _bury_into(judge, holdings[banker], bury.cards, banker, "buried"):
        return _stop(judge, trump, level, banker, source, bids, dealt, banker_before_bury)
    buried: tuple[Card, ...] = bury.cards

    for fry in record.fries:
        reading, fry_trump, ok = judge.judge_show(
            "fry", fry.seat, fry.cards, fry.trump, level, standing
        )
        if source == "bottom":
            judge.flag(
                "bad_fry",
                f"seat {fry.seat} fried with {_pretty(fry.cards)}, but trump came from revealing "
                "the bottom, where frying is not allowed (R8.7)",
                fry.seat,
            )
            ok = False
        hand = holdings[fry.seat]
        lacking = Hand(tuple(hand)).missing(fry.cards)
        if lacking:
            judge.flag(
                "show_not_held",
                f"seat {fry.seat} fried with {_pretty(fry.cards)} but does not hold "
                f"{_pretty(lacking)}",
                fry.seat,
            )
            ok = False
        bids.append(BidRecord(fry.seat, fry.cards, "fry", None, fry_trump, ok, fry.bury))
        if reading is not None:
            standing = Standing(fry.seat, reading, fry_trump)
            source = "fry"
            trump = trump_context(_suit_of(fry_trump), level, *ladder_options(rules))
        for c in buried:
            hand[c] += 1
        if not _bury_into(judge, hand, fry.bury, fry.seat, "buried after frying"):
            return _stop(judge, trump, level, banker, source, bids, dealt, banker_before_bury)
        buried = fry.bury

    return Bidding(
        trump, level, banker, source, tuple(bids), tuple(judge.findings), False, False,
        banker_before_bury, tuple(Hand(tuple(h)) for h in holdings), buried,
    )  # fmt: skip


def _no_show_trump(record: HandRecord, bottom: Sequence[Card], level: int) -> str | None:
    """The trump token when nobody showed, by option `no_show_trump`; None when the rule takes
    it from the log and the log lacks it."""
    rule = record.rules.no_show_trump
    if rule == "bottom":
        suit = bottom_trump(bottom, level)
    elif rule == "first_plain_bottom_card":
        # jerryyyu: the first card of the bottom that is not a joker, level card or not.
        suit = next((card_suit(c) for c in bottom if c < 52), None)
    elif rule == "none":
        suit = None
    else:
        # Botzone: a random suit the judge drew; only the log knows it.
        return None if record.claimed is None else record.claimed.trump
    return "NT" if suit is None else SUITS[suit]


def _check_dealt(judge: _Judge, show: Show, dealing: int, last: int) -> bool:
    if show.dealt > dealing:
        judge.flag(
            "bad_show",
            f"seat {show.seat} showed after {show.dealt} cards, but only {dealing} are dealt",
            show.seat,
        )
        return False
    if show.dealt < last:
        judge.flag(
            "bad_show",
            f"seat {show.seat} showed after {show.dealt} cards, before the previous show "
            f"(after {last})",
            show.seat,
        )
        return False
    return True


def _bury_into(judge: _Judge, hand: list[int], cards: Sequence[Card], seat: int, verb: str) -> bool:
    """Remove a bury of 8 from a holding (count list, changed in place); False when it cannot."""
    if len(cards) != 8:
        judge.flag(
            "bad_bury", f"seat {seat} {verb} {len(cards)} cards, not 8: {_pretty(cards)}", seat
        )
        return False
    lacking = Hand(tuple(hand)).missing(cards)
    if lacking:
        judge.flag(
            "bad_bury",
            f"seat {seat} {verb} {_pretty(cards)} but does not hold {_pretty(lacking)}",
            seat,
        )
        return False
    for c in cards:
        hand[c] -= 1
    return True


def _stop(
    judge: _Judge,
    trump: TrumpContext | None,
    level: int | None,
    banker: int | None,
    source: TrumpSource | None,
    bids: list[BidRecord],
    dealt: Sequence[Hand],
    banker_before_bury: Hand | None = None,
) -> Bidding:
    return Bidding(
        trump, level, banker, source, tuple(bids), tuple(judge.findings), True, False,
        banker_before_bury, (), (),
    )  # fmt: skip


def _redeal(
    judge: _Judge,
    record: HandRecord,
    bids: list[BidRecord],
    standing: Standing | None,
    dealt: Sequence[Hand],
) -> Bidding:
    """R8.5: a void deal is valid only in a first hand where nobody showed, and nothing follows it."""
    problems = []
    if record.banker is not None:
        problems.append(f"the banker (seat {record.banker}) was already known")
    if standing is not None:
        problems.append(f"seat {standing.seat} showed")
    if record.bury is not None or record.fries or record.plays:
        problems.append("the hand logs a bury, fries or plays")
    if problems:
        judge.flag(
            "bad_redeal",
            "a redeal is only for a first hand where nobody showed (R8.5), but "
            + " and ".join(problems),
        )
    return Bidding(
        None, None, None, None, tuple(bids), tuple(judge.findings), False, True, None, tuple(dealt),
        (),
    )  # fmt: skip


picklable(ShowReading, Standing, Bidding)
