"""One hand at the table: deal with shows, bury, fries, every trick, the score — as a record.

The table is the server: it deals one card at a time and offers each seat the shows it may make,
takes the bottom to the banker, goes round for fries, asks each seat for its play in turn, decides
throws with `throws.check_throw` (and reports the forced component, as a server would), resolves
tricks with `trick.trick_winner` (R6 as `resolve_trick`, without the reason) and scores with
`scoring.score_hand`. What it writes is a `tractor-hh/1` record whose `claimed` outcomes are
what the server computed. `play_out` continues a hand from a position mid-hand (the analysis's
rollouts) with the same loop.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..bidding import bottom_trump, read_show
from ..cards import Hand, format_cards
from ..combos import read_lead
from ..pickling import picklable
from ..record import Bury, Claimed, Deal, Fry, HandRecord, Play, Show, shuffled_shoe
from ..rules import RuleSet
from ..scoring import LevelOutcome, ScoreTable, TrickScore, score_hand
from ..shape import Reading
from ..throws import check_throw
from ..trick import trick_winner
from ..trump import TrumpContext, trump_context
from .bots import Bot
from .bots.base import BuryView, Cards, LeadChoice, PlayView, ShowView
from .errors import BotError
from .memory import Memory
from .personas import Persona
from .shows import show_options
from .units import suit_count

SUITS = "SHCD"


@dataclass(frozen=True, slots=True)
class HandSetup:
    """Who plays, at which levels, under which rules, and (after a match's first hand) the banker."""

    hand_id: str
    source: str
    match_id: str
    hand_no: int
    played_at: str
    rules: RuleSet
    personas: tuple[Persona, Persona, Persona, Persona]
    levels: tuple[int, int]
    banker: int | None

    def __init__(
        self,
        hand_id: str,
        source: str,
        match_id: str,
        hand_no: int,
        played_at: str,
        rules: RuleSet,
        personas: tuple[Persona, Persona, Persona, Persona],
        levels: tuple[int, int],
        banker: int | None,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "hand_id", hand_id)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "match_id", match_id)
        object.__setattr__(self, "hand_no", hand_no)
        object.__setattr__(self, "played_at", played_at)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "personas", personas)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "banker", banker)


@dataclass(frozen=True, slots=True)
class HandPlayed:
    record: HandRecord
    banker: int | None
    """Who was banker (None for a redeal)."""
    score: ScoreTable | None
    seconds: int
    """How long the hand took at the table, for the next hand's `played_at`."""
    trump: TrumpContext | None = None
    start: tuple[Hand, ...] = ()
    """Each seat's holding when the first trick was led (after the bury and the fries)."""

    @property
    def outcome(self) -> LevelOutcome | None:
        return None if self.score is None else self.score.outcome

    def __init__(
        self,
        record: HandRecord,
        banker: int | None,
        score: ScoreTable | None,
        seconds: int,
        trump: TrumpContext | None = None,
        start: tuple[Hand, ...] = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "record", record)
        object.__setattr__(self, "banker", banker)
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "seconds", seconds)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "start", start)


@dataclass(frozen=True, slots=True)
class _Standing:
    seat: int
    cards: Cards
    trump: str

    def __init__(
        self,
        seat: int,
        cards: Cards,
        trump: str,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "trump", trump)


def _suit_index(token: str) -> int | None:
    return None if token == "NT" else SUITS.index(token)


def _named(bot: Bot, view: ShowView, cards: Cards) -> str | None:
    """A four-joker show may name any suit; without a name it is no-trump (R8.7, R8.1)."""
    if len(cards) == 4 and cards[0] >= 52:
        return bot.name_trump(view, cards)
    return None


def _trump_of(cards: Cards, named: str | None, level: int) -> str:
    if named is not None:
        return named
    reading = read_show(cards, level)
    assert reading is not None
    return reading.trump


def personas_field(personas: Sequence[Persona]) -> list[dict[str, object]]:
    """The `_personas` source field: each seat's bot style and skill mix."""
    return [{"style": p.style, "blunder": p.blunder, "aggression": p.aggression} for p in personas]


class _Hand:
    """The mutable walk of one hand; `play_hand` is its pure face (same inputs, same record)."""

    def __init__(self, setup: HandSetup, bots: Sequence[Bot], rng: random.Random) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.bots = bots
        self.rng = rng
        self.seconds = 0

    def level_for(self, seat: int) -> int:
        """The level a seat's show is judged at: the banker team's, or in a first hand its own."""
        setup = self.setup
        return setup.levels[(seat if setup.banker is None else setup.banker) % 2]

    # -- the deal and the shows (R1.3, R8.1–R8.3) -----------------------------------------------

    def deal(self, first: int, shoe: Cards) -> tuple[list[list[int]], list[Show], _Standing | None]:
        rules, rng = self.rules, self.rng
        dealing = rules.deck_size - rules.bottom_size
        counts = [[0] * 54 for _ in range(4)]
        shows: list[Show] = []
        standing: _Standing | None = None
        cached: list[tuple[object, list[Cards]]] = [(None, [])] * 4

        def offer(seat: int, dealt: int) -> bool:
            nonlocal standing
            held = counts[seat]
            level = self.level_for(seat)
            faces = (*(held[s * 13 + level - 2] for s in range(4)), held[52], held[53])
            if not any(faces[:4]) and max(faces[4:]) < 2:
                return False
            stand = None if standing is None else (standing.seat, standing.cards)
            # The options change only with the seat's level cards and jokers or the standing show.
            key = (faces, stand)
            if cached[seat][0] != key:
                cached[seat] = (key, show_options(held, level, stand, seat, rules))
            options = cached[seat][1]
            if not options:
                return False
            view = ShowView(
                seat, Hand(tuple(held)), dealt, dealing, level, self.setup.banker, stand
            )
            choice = self.bots[seat].choose_show(view, options, rng)
            if choice is None:
                return False
            if choice not in options:
                raise BotError(f"seat {seat} chose a show it may not make: {format_cards(choice)}")
            named = _named(self.bots[seat], view, choice)
            shows.append(Show(seat, choice, dealt, named))
            standing = _Standing(seat, choice, _trump_of(choice, named, level))
            return True

        for i in range(dealing):
            seat = (first + i) % 4
            counts[seat][shoe[i]] += 1
            offer(seat, i + 1)
        # A last chance once every card is dealt, round the table until nobody shows.
        quiet, seat = 0, first
        while quiet < 4:
            quiet = 0 if offer(seat, dealing) else quiet + 1
            seat = (seat + 1) % 4
        self.seconds += rng.randint(120, 200) + 6 * len(shows)
        return counts, shows, standing

    # -- the bury and the fries (R8.6, R8.7) -----------------------------------------------------

    def bury(self, seat: int, hand: Hand, trump: TrumpContext) -> tuple[Hand, Cards]:
        cards = self.bots[seat].choose_bury(BuryView(seat, hand, trump, self.rules), self.rng)
        if len(cards) != self.rules.bottom_size or not hand.contains(cards):
            raise BotError(f"seat {seat} buried {format_cards(cards)} from {hand}")
        self.seconds += self.rng.randint(20, 60)
        return hand.remove(cards), cards

    def fries(
        self,
        banker: int,
        level: int,
        holdings: list[Hand],
        standing: _Standing,
        buried: Cards,
    ) -> tuple[list[Fry], _Standing, Cards, int]:
        """Going round from the banker's next seat until a full round passes (R8.7). Returns the
        fries, the standing show, the bottom as last buried and who buried it."""
        rules, rng = self.rules, self.rng
        fries: list[Fry] = []
        seat, quiet, bury_seat = (banker + 1) % 4, 0, banker
        while quiet < 4:
            stand = (standing.seat, standing.cards)
            options = show_options(
                holdings[seat].counts, level, stand, seat, rules, reinforce=False
            )
            view = ShowView(
                seat, holdings[seat], rules.deck_size, rules.deck_size, level, banker, stand, True
            )
            choice = self.bots[seat].choose_show(view, options, rng) if options else None
            if choice is None:
                quiet += 1
            else:
                if choice not in options:
                    raise BotError(f"seat {seat} fried with a show it may not make: {choice}")
                named = _named(self.bots[seat], view, choice)
                standing = _Standing(seat, choice, _trump_of(choice, named, level))
                trump = trump_context(_suit_index(standing.trump), level)
                holdings[seat], buried = self.bury(seat, holdings[seat].add(buried), trump)
                fries.append(Fry(seat, choice, buried, named))
                bury_seat, quiet = seat, 0
            seat = (seat + 1) % 4
        return fries, standing, buried, bury_seat

    # -- the tricks (R4–R6) -----------------------------------------------------------------------

    def tricks(
        self, banker: int, trump: TrumpContext, holdings: list[Hand], buried: Cards, bury_seat: int
    ) -> tuple[list[Play], list[TrickScore], Reading, Cards, list[int]]:
        play = _Tricks(self.rules, self.bots, self.rng, banker, trump, holdings, buried, bury_seat)
        play.clock = self
        return play.run()


@dataclass(frozen=True, slots=True)
class Position:
    """A hand in the middle of play, as `play_out` continues it: every seat's holding now, the
    bottom and who buried it, the public memory, the tricks done (`scores`, the failed throws'
    seats, the attackers' trick points so far) and the trick under way: its number, its leader
    and, once led, the lead as played (`lead`, after a failed throw the forced component) and
    the plays so far with whether each seat held none of the led suit (`voids`). With no lead
    the leader is to lead trick `number`."""

    rules: RuleSet
    trump: TrumpContext
    banker: int
    holdings: tuple[Hand, ...]
    buried: Cards
    bury_seat: int
    memory: Memory
    number: int
    leader: int
    scores: tuple[TrickScore, ...] = ()
    failed: tuple[int, ...] = ()
    total: int = 0
    lead: Reading | None = None
    plays: tuple[tuple[int, Cards], ...] = ()
    voids: tuple[bool, ...] = ()

    def __init__(
        self,
        rules: RuleSet,
        trump: TrumpContext,
        banker: int,
        holdings: tuple[Hand, ...],
        buried: Cards,
        bury_seat: int,
        memory: Memory,
        number: int,
        leader: int,
        scores: tuple[TrickScore, ...] = (),
        failed: tuple[int, ...] = (),
        total: int = 0,
        lead: Reading | None = None,
        plays: tuple[tuple[int, Cards], ...] = (),
        voids: tuple[bool, ...] = (),
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "banker", banker)
        object.__setattr__(self, "holdings", holdings)
        object.__setattr__(self, "buried", buried)
        object.__setattr__(self, "bury_seat", bury_seat)
        object.__setattr__(self, "memory", memory)
        object.__setattr__(self, "number", number)
        object.__setattr__(self, "leader", leader)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "failed", failed)
        object.__setattr__(self, "total", total)
        object.__setattr__(self, "lead", lead)
        object.__setattr__(self, "plays", plays)
        object.__setattr__(self, "voids", voids)


@dataclass(frozen=True, slots=True)
class PlayedOut:
    """The rest of a hand played from a `Position`: every trick's score and the hand's score."""

    scores: tuple[TrickScore, ...]
    score: ScoreTable

    def __init__(
        self,
        scores: tuple[TrickScore, ...],
        score: ScoreTable,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "score", score)


def play_out(
    position: Position,
    bots: Sequence[Bot],
    rng: random.Random,
    lead: LeadChoice | None = None,
    answer: Cards | None = None,
) -> PlayedOut:
    """Play a hand to its end from `position` with `bots`, as the table would (the same engine
    calls, every play legal): the entry point mid-hand that the analysis rolls out from. `lead`:
    the leader's choice for the trick to lead (else its bot chooses); `answer`: the play of the
    next seat to answer the trick under way (else its bot chooses)."""
    holdings = list(position.holdings)
    play = _Tricks(
        position.rules,
        bots,
        rng,
        position.banker,
        position.trump,
        holdings,
        position.buried,
        position.bury_seat,
    )
    play.memory = position.memory
    play.leader = position.leader
    play.number = position.number - (1 if position.lead is None else 0)
    play.scores = list(position.scores)
    play.failed = list(position.failed)
    play.total = position.total
    play.opening = lead
    play.answer = answer
    if position.lead is not None:
        play.resume = (position.lead, position.plays, position.voids)
    _, scores, last_lead, last_win, failed = play.run()
    score = score_hand(
        position.banker,
        scores,
        last_lead,
        last_win,
        position.buried,
        position.trump,
        position.rules,
        failed,
    )
    return PlayedOut(tuple(scores), score)


class _Tricks:
    """The tricks of a hand from wherever they stand: from the first lead (`_Hand.tricks`) or
    from a position mid-hand (`play_out`); the same engine calls and the same draws in order."""

    def __init__(
        self,
        rules: RuleSet,
        bots: Sequence[Bot],
        rng: random.Random,
        banker: int,
        trump: TrumpContext,
        holdings: list[Hand],
        buried: Cards,
        bury_seat: int,
    ) -> None:
        self.rules = rules
        self.bots = bots
        self.rng = rng
        self.banker = banker
        self.trump = trump
        self.holdings = holdings
        self.seen = (bury_seat, buried)
        self.memory = Memory.start(rules.decks)
        self.leader = banker
        self.number = 0
        self.scores: list[TrickScore] = []
        self.failed: list[int] = []
        self.total = 0
        self.clock: _Hand | None = None
        self.opening: LeadChoice | None = None
        self.answer: Cards | None = None
        self.resume: tuple[Reading, tuple[tuple[int, Cards], ...], tuple[bool, ...]] | None = None

    def view(
        self,
        seat: int,
        lead: Reading | None = None,
        plays: tuple[tuple[int, Cards], ...] = (),
        voids: tuple[bool, ...] = (),
    ) -> PlayView:
        """A seat's turn; only the seat that buried the bottom knows its cards."""
        seen = self.seen
        buried = seen[1] if seat == seen[0] else ()
        return PlayView(
            seat,
            self.holdings[seat],
            self.trump,
            self.rules,
            self.banker,
            self.number,
            self.memory,
            buried,
            self.total,
            lead,
            plays,
            voids,
        )

    def run(self) -> tuple[list[Play], list[TrickScore], Reading, Cards, list[int]]:
        rules, rng, bots, trump, holdings = (
            self.rules,
            self.rng,
            self.bots,
            self.trump,
            self.holdings,
        )
        plays: list[Play] = []
        scores = self.scores
        failed = self.failed
        attackers = 1 - self.banker % 2
        last_lead: Reading | None = None
        last_win: Cards = ()
        while self.resume is not None or len(holdings[self.leader]):
            leader = self.leader
            if self.resume is not None:
                lead, so_far, voids = self.resume
                self.resume = None
                is_throw = False
            else:
                self.number += 1
                choice = self.opening
                self.opening = None
                if choice is None:
                    choice = bots[leader].lead(self.view(leader), rng)
                try:
                    reading = read_lead(choice.cards, trump, rules, choice.split)
                except ValueError as e:
                    raise BotError(f"seat {leader} led {format_cards(choice.cards)}: {e}") from e
                if not holdings[leader].contains(choice.cards):
                    raise BotError(
                        f"seat {leader} led {format_cards(choice.cards)} it does not hold"
                    )
                lead = reading
                forced: Cards | None = None
                is_throw = reading.is_throw
                if reading.is_throw:
                    check = check_throw(reading, leader, holdings, trump, rules)
                    if check.failed:
                        assert check.forced is not None
                        lead = check.forced
                        forced = lead.cards()
                        failed.append(leader)
                played = lead.cards()
                plays.append(Play(leader, choice.cards, forced, choice.split))
                holdings[leader] = holdings[leader].remove(played)
                self.memory = self.memory.after_play(leader, played, lead.suit, trump)
                so_far = ((leader, played),)
                voids = (False,)
            for k in range(len(so_far), 4):
                seat = (leader + k) % 4
                void = suit_count(holdings[seat], trump, lead.suit) == 0
                cards = self.answer
                self.answer = None
                if cards is None:
                    cards = bots[seat].follow(self.view(seat, lead, so_far, voids), rng)
                if not holdings[seat].contains(cards) or len(cards) != lead.size:
                    raise BotError(f"seat {seat} answered {format_cards(cards)}")
                plays.append(Play(seat, cards))
                holdings[seat] = holdings[seat].remove(cards)
                self.memory = self.memory.after_play(seat, cards, lead.suit, trump)
                so_far = (*so_far, (seat, cards))
                voids = (*voids, void)
            verdict = trick_winner(lead, so_far, voids, trump, rules)
            scores.append(TrickScore(verdict.winner, verdict.points))
            if verdict.winner % 2 == attackers:
                self.total += verdict.points
            last_lead, last_win = lead, so_far[verdict.winner_index][1]
            self.leader = verdict.winner
            if self.clock is not None:
                self.clock.seconds += rng.randint(8, 16) + 4 * lead.size + (12 if is_throw else 0)
        assert last_lead is not None
        return plays, scores, last_lead, last_win, failed


def _extra(setup: HandSetup) -> tuple[tuple[str, object], ...]:
    return (("_personas", personas_field(setup.personas)),)


def play_hand(setup: HandSetup, bots: Sequence[Bot], rng: random.Random) -> HandPlayed:
    """Deal and play one hand; the record is what a table server would log."""
    rules = setup.rules
    table = _Hand(setup, bots, rng)
    first = setup.banker if setup.banker is not None else rng.randrange(4)
    shoe = shuffled_shoe(rng, rules)
    counts, shows, standing = table.deal(first, shoe)
    players = tuple(p.name for p in setup.personas)
    base = HandRecord(
        hand_id=setup.hand_id,
        source=setup.source,
        players=(players[0], players[1], players[2], players[3]),
        levels=setup.levels,
        deal=Deal(first, shoe),
        rules=rules,
        banker=setup.banker,
        match_id=setup.match_id,
        hand_no=setup.hand_no,
        played_at=setup.played_at,
        bids=tuple(shows),
        extra=_extra(setup),
    )
    if standing is None and setup.banker is None:
        return HandPlayed(replace(base, end="redeal"), None, None, table.seconds)
    if setup.banker is not None:
        banker = setup.banker
    else:
        assert standing is not None
        banker = standing.seat
    level = setup.levels[banker % 2]
    dealing = rules.deck_size - rules.bottom_size
    bottom = shoe[dealing:]
    if standing is None:
        trump = trump_context(bottom_trump(bottom, level), level)
    else:
        trump = trump_context(_suit_index(standing.trump), level)
    holdings = [Hand(tuple(c)) for c in counts]
    holdings[banker], buried = table.bury(banker, holdings[banker].add(bottom), trump)
    bury = Bury(banker, buried)
    fries: list[Fry] = []
    bury_seat = banker
    if standing is not None:
        fries, standing, buried, bury_seat = table.fries(banker, level, holdings, standing, buried)
        trump = trump_context(_suit_index(standing.trump), level)
    start = tuple(holdings)
    plays, scores, last_lead, last_win, failed = table.tricks(
        banker, trump, holdings, buried, bury_seat
    )
    score = score_hand(banker, scores, last_lead, last_win, buried, trump, rules, failed)
    outcome = score.outcome
    assert score.bottom is not None
    claimed = Claimed(
        trump=trump.suit_token(),
        attackers_points=score.attackers_points,
        bottom_multiplier=score.bottom.multiplier,
        level_change=(outcome.winning_team(banker), outcome.levels),
        next_banker=score.next_banker,
    )
    record = replace(base, bury=bury, fries=tuple(fries), plays=tuple(plays), claimed=claimed)
    return HandPlayed(record, banker, score, table.seconds, trump, start)


picklable(HandSetup, HandPlayed, _Standing, Position, PlayedOut)
