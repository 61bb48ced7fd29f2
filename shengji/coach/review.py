"""The coaching review: every decision of a replayed hand that can be judged, and its cost.

Each decision is judged from the acting player's knowledge at that moment (docs/review.md): their
own holding, every card played so far, the bottom if they buried it last, the cards other seats
exposed, the voids their plays proved. Hidden cards never make a decision a mistake; they only
say what happened (`Decision.outcome`).

- throws (R4.3): `throw_safe`, `throw_possible`, `throw_risky`, `throw_certain_fail`,
  `throw_skipped` — the failure probability from `review_throw`;
- the fourth seat (R5, R6): `fed_points`, `missed_points`, `lost_trick`, `last_seat_ok`,
  `last_seat_skipped`, and the note `ruffed_partner` — from `review_last`;
- the bury (R8.6, R8.7): `bury_points`, `bury_ok`.

Severity is by cost in points: `inaccuracy` below 10, `mistake` from 10, `blunder` from 30;
`ok` for a decision judged sound, `note` for what is reported without blame.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ..cards import Card, Hand, card_points, points_of, pretty_card
from ..combos import PlayError, cached_component, component_cache, read_lead
from ..pickling import picklable
from ..results import HandReplay, TrickRecord
from ..rules import RuleSet
from ..shape import Reading
from ..trick import TrickVerdict, trick_winner
from ..trump import TRUMP, TrumpContext, rules_trump
from .analysis_world import Inconsistent, knowledge
from .review_last import (
    LEGAL_LIMIT,
    POINT_CLASS,
    UNRESOLVED,
    Option,
    listed_plays,
    may_beat,
    options,
    over_limit,
    resolve,
    settled,
)
from .review_throw import FailOdds, Unseen, fail_odds, unbeatable

Severity = Literal["ok", "note", "inaccuracy", "mistake", "blunder"]
SEVERITIES: tuple[Severity, ...] = ("ok", "note", "inaccuracy", "mistake", "blunder")
MISTAKE_AT: Final = 10.0
"""Cost in points from which a flagged decision is a `mistake` (below: an `inaccuracy`)."""
BLUNDER_AT: Final = 30.0
"""Cost in points from which a flagged decision is a `blunder`."""

KIND: Final[dict[str, str]] = {
    "throw_safe": "throw",
    "throw_possible": "throw",
    "throw_risky": "throw",
    "throw_certain_fail": "throw",
    "throw_skipped": "throw",
    "fed_points": "last_seat",
    "missed_points": "last_seat",
    "lost_trick": "last_seat",
    "last_seat_ok": "last_seat",
    "last_seat_skipped": "last_seat",
    "ruffed_partner": "note",
    "bury_points": "bury",
    "bury_ok": "bury",
}
"""Every code and the kind of decision it judges."""

NOT_JUDGED: Final = frozenset({"throw_skipped", "last_seat_skipped"})
"""Codes of decisions the review looked at but could not judge (more legal plays than it lists,
counts that do not add up): like a note, they count in no rate, neither as judged nor as mistakes
(counting them as judged and sound would dilute every mistake rate)."""

SOUND: Final = "last_seat_ok"
"""The code of a fourth seat judged sound: no legal play does better."""

SKIPPED: Final = "last_seat_skipped"
"""The code of a fourth seat with more distinct legal plays than the review lists: not judged."""

JUDGEMENTS: tuple[str, ...] = ("bury", "throw", "last_seat")
"""The review's judgements, each a part of its walk: `review_hand(..., judge=...)` runs some."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision. `trick` is None for a bury; `play` is what was done, `better` the
    play the judgement recommends (None when there is none); `cost` is in points (an expected
    value for throws); `p_fail`/`p_error` give a throw's failure probability and its standard
    error (0.0 when exact); `outcome` says what actually happened where hidden cards decided."""

    code: str
    hand_id: str
    trick: int | None
    seat: int
    severity: Severity
    cost: float
    play: tuple[Card, ...]
    better: tuple[Card, ...] | None
    reason: str
    p_fail: float | None = None
    p_error: float | None = None
    outcome: str | None = None

    def __init__(
        self,
        code: str,
        hand_id: str,
        trick: int | None,
        seat: int,
        severity: Severity,
        cost: float,
        play: tuple[Card, ...],
        better: tuple[Card, ...] | None,
        reason: str,
        p_fail: float | None = None,
        p_error: float | None = None,
        outcome: str | None = None,
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "hand_id", hand_id)
        object.__setattr__(self, "trick", trick)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "severity", severity)
        object.__setattr__(self, "cost", cost)
        object.__setattr__(self, "play", play)
        object.__setattr__(self, "better", better)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "p_fail", p_fail)
        object.__setattr__(self, "p_error", p_error)
        object.__setattr__(self, "outcome", outcome)

    @property
    def kind(self) -> str:
        return KIND[self.code]

    @property
    def judged(self) -> bool:
        """Whether the review gave this decision a verdict: not a note, not `NOT_JUDGED`."""
        return KIND[self.code] != "note" and self.code not in NOT_JUDGED

    @property
    def is_mistake(self) -> bool:
        return self.severity in ("inaccuracy", "mistake", "blunder")


def severity(cost: float, flagged: bool) -> Severity:
    """`ok` when not flagged; else by cost (a flagged decision is at least an inaccuracy)."""
    if not flagged:
        return "ok"
    if cost >= BLUNDER_AT:
        return "blunder"
    if cost >= MISTAKE_AT:
        return "mistake"
    return "inaccuracy"


def shown_cost(cost: float, digits: int = 1) -> str:
    """A cost as people read it: `digits` decimals, more when rounding would carry it across a
    severity boundary (9.998 is an inaccuracy: "9.998", not "10.0"), so the figure shown is the
    one that decides."""
    for d in range(digits, 17):
        text = f"{cost:.{d}f}"
        if _band(float(text)) == _band(cost):
            return text
    return repr(cost)


def _band(cost: float) -> int:
    return 2 if cost >= BLUNDER_AT else 1 if cost >= MISTAKE_AT else 0


_SHOWN: Final = tuple(pretty_card(c) for c in range(54))
"""Each face as people read it."""


def _sub(a: Sequence[int], b: Sequence[int]) -> list[int]:
    # Indexes, not zip(strict=True): the compiled build calls that zip through Python.
    return [a[i] - b[i] for i in range(len(b))]


def _raise_to(known: list[int], shown: list[int]) -> None:
    """Raise each face's count in `known` to at least its count in `shown`, in place: a loop, as
    the compiled build calls `max` over `zip` through Python for every face."""
    for f in range(54):
        k = shown[f]
        if k > known[f]:
            known[f] = k


def _counts(cards: Sequence[Card]) -> list[int]:
    out = [0] * 54
    for c in cards:
        out[c] = out[c] + 1
    return out


_RANKS: Final[dict[tuple[int | None, int], tuple[list[Card], list[int]]]] = {}


def _ranks(trump: TrumpContext) -> tuple[list[Card], list[int]]:
    """The faces in display order (`TrumpContext.sort_key`) and each face's place in it, made
    once per trump suit and level (never changed; at most 5 × 13 entries)."""
    key = (trump.suit, trump.level)
    found = _RANKS.get(key)
    if found is None:
        by_rank = sorted(range(54), key=trump.sort_key)
        rank = [0] * 54
        for i, f in enumerate(by_rank):
            rank[f] = i
        found = _RANKS[key] = (by_rank, rank)
    return found


_CHEAPEST: Final[dict[tuple[int | None, int], list[Card]]] = {}


def _cheapest_first(trump: TrumpContext) -> list[Card]:
    """The faces cheapest to bury first: fewest points, side suits before trump, then lowest;
    made once per trump suit and level (never changed)."""
    key = (trump.suit, trump.level)
    found = _CHEAPEST.get(key)
    if found is None:
        eff, pos = trump.eff, trump.pos
        found = _CHEAPEST[key] = sorted(
            range(54), key=lambda c: (card_points(c), eff[c] == TRUMP, pos[c], c)
        )
    return found


def _cheapest(options: list[Option], points: int, trump: TrumpContext) -> Option:
    """Of the options worth `points` (there is one), the one spending the fewest trumps, then
    the lowest cards by rank, then by face: the first least (trumps, rank sum, cards) in list
    order, a loop rather than `min` with a key function, which the compiled build calls through
    Python."""
    eff, pos = trump.eff, trump.pos
    best: Option | None = None
    best_key: tuple[int, int, tuple[Card, ...]] = (0, 0, ())
    for o in options:
        if o.points != points:
            continue
        trumps = 0
        ranks = 0
        for c in o.cards:
            if eff[c] == TRUMP:
                trumps += 1
            ranks += pos[c]
        key = (trumps, ranks, o.cards)
        if best is None or key < best_key:
            best, best_key = o, key
    assert best is not None, f"no option worth {points}"
    return best


# --- the walk ------------------------------------------------------------------------------------


def review_hand(
    replay: HandReplay,
    *,
    limit: int = LEGAL_LIMIT,
    exhaustive: bool = False,
    judge: Collection[str] = JUDGEMENTS,
    sound_reasons: bool = True,
) -> tuple[Decision, ...]:
    """Every judged decision of a replayed hand, in order: buries, then trick by trick. A rejected
    hand, or one whose trump or holdings are unknown, yields nothing. `exhaustive` turns off the
    shortcuts (`review_last.settled`, which proves a fourth seat sound without listing its
    options, and the throw sampler's): the slow path the tests hold the fast one to. `judge`:
    the judgements of `JUDGEMENTS` to make (the note `ruffed_partner` comes with `last_seat`);
    the others are skipped (the benchmark times each part alone). `sound_reasons=False` leaves
    the reason of each fourth seat judged sound (`last_seat_ok`) empty: the store only counts
    them (docs/schema.md), and spelling the cards of about two thirds of all decisions is
    wasted there."""
    for name in judge:
        if name not in JUDGEMENTS:
            unknown = set(judge) - set(JUDGEMENTS)
            raise ValueError(f"no such judgement: {', '.join(sorted(unknown))}")
    known = _judged(replay)
    if known is None:
        return ()
    trump, rules = known
    return tuple(_Review(replay, trump, rules, limit, exhaustive, judge, sound_reasons).run())


def _judged(r: HandReplay) -> tuple[TrumpContext, RuleSet] | None:
    """The trump and rules the review judges the hand by; None for a hand it does not judge:
    rejected, or with its rules, trump, level, banker or four holdings unknown."""
    if (
        r.status == "rejected"
        or r.rules is None
        or r.trump is None
        or r.level is None
        or r.banker is None
        or len(r.start) != 4
    ):
        return None
    return rules_trump(r.trump, r.level, r.rules), r.rules


@dataclass(frozen=True, slots=True)
class StoredReview:
    """A hand's review as the store keeps it (docs/schema.md): every decision but the fourth
    seats judged sound or skipped (`decisions`, with `numbers`, each one's place in
    `review_hand`'s order from 1), the tricks whose fourth seat was judged sound (`sound`) and
    those whose fourth seat was not judged, having too many legal plays (`skipped`): these two
    are only counted, each always its trick's last decision."""

    decisions: tuple[Decision, ...]
    numbers: tuple[int, ...]
    sound: tuple[int, ...]
    skipped: tuple[int, ...]

    def __init__(
        self,
        decisions: tuple[Decision, ...],
        numbers: tuple[int, ...],
        sound: tuple[int, ...],
        skipped: tuple[int, ...],
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "decisions", decisions)
        object.__setattr__(self, "numbers", numbers)
        object.__setattr__(self, "sound", sound)
        object.__setattr__(self, "skipped", skipped)


picklable(StoredReview)

NOTHING_STORED: Final = StoredReview((), (), (), ())


def skipped_reason(limit: int = LEGAL_LIMIT) -> str:
    """The reason of a fourth seat not judged (`SKIPPED`), which the store rebuilds."""
    return f"more than {limit} distinct legal plays: not judged"


def review_for_store(replay: HandReplay, *, limit: int = LEGAL_LIMIT) -> StoredReview:
    """`review_hand` as the store needs it: the same decisions, numbered in the same order, but
    a fourth seat judged sound (two thirds of all decisions) or skipped (a fifth of the rest)
    is only counted by its trick: no `Decision` is made for it."""
    known = _judged(replay)
    if known is None:
        return NOTHING_STORED
    trump, rules = known
    review = _Review(replay, trump, rules, limit, False, JUDGEMENTS, count_sound=True)
    out = review.run()
    return StoredReview(
        tuple(out), tuple(review.numbers), tuple(review.sound), tuple(review.skipped)
    )


class _Review:
    def __init__(
        self,
        r: HandReplay,
        trump: TrumpContext,
        rules: RuleSet,
        limit: int,
        exhaustive: bool,
        judge: Collection[str],
        sound_reasons: bool = True,
        count_sound: bool = False,
    ) -> None:
        self.r = r
        self.sound_reasons = sound_reasons
        # `count_sound`: a fourth seat judged sound or skipped is only counted
        # (`review_for_store`), its trick kept in `sound` or `skipped`, and each decision made
        # gets its place in the order in `numbers`.
        self.count_sound = count_sound
        self.sound: list[int] = []
        self.skipped: list[int] = []
        self.numbers: list[int] = []
        self.exhaustive = exhaustive
        self.buries = "bury" in judge
        self.throws = "throw" in judge
        self.last_seats = "last_seat" in judge
        self.trump = trump
        self.rules = rules
        self.limit = limit
        self.known = component_cache(trump, rules)
        banker = r.banker
        assert banker is not None
        self.banker = banker
        fries = [b for b in r.bids if b.kind == "fry" and b.valid and b.buried]
        self.fries = fries
        self.last_burier = fries[-1].seat if fries else banker
        buriers = {banker, *(b.seat for b in fries)}
        # Shown cards stay with a seat that never buried (a burier may have buried them).
        self.exposed = [[0] * 54 for _ in range(4)]
        for b in r.bids:
            if b.valid and b.kind != "fry" and b.seat not in buriers:
                _raise_to(self.exposed[b.seat], _counts(b.cards))
        self.out: list[Decision] = []
        self.by_rank, self.rank = _ranks(trump)

    def _show(self, cards: Sequence[Card]) -> str:
        """Cards for people, in display order: sorted by rank as plain ints, which the compiled
        build does without calling a key function per card."""
        rank, by_rank = self.rank, self.by_rank
        order = sorted([rank[c] for c in cards])
        return " ".join([_SHOWN[by_rank[i]] for i in order]) or "(none)"

    def run(self) -> list[Decision]:
        if self.buries:
            self._buries()
        r, trump = self.r, self.trump
        holdings = [list(h.counts) for h in r.start]
        eff = trump.eff
        # A local name: a module global the compiled build looks up in a dict at every use.
        point_class = POINT_CLASS
        # Cards of each effective suit each seat still holds, kept as the tricks go, and by the
        # points they are worth (`review_last.point_classes`, made here in the same pass).
        by_suit = [[0] * 5 for _ in range(4)]
        classes = [[[0, 0, 0] for _ in range(5)] for _ in range(4)]
        for seat, h in enumerate(holdings):
            suits = by_suit[seat]
            worth = classes[seat]
            for f in range(54):
                k = h[f]
                if k:
                    suit = eff[f]
                    # `x[i] = x[i] + k`, not `x[i] += k`: the compiled build adds list items
                    # natively only so (the augmented form goes through Python's number protocol).
                    suits[suit] = suits[suit] + k
                    cell = worth[suit]
                    cell[point_class[f]] = cell[point_class[f]] + k
        played = [0] * 54
        voids = [[False] * 5 for _ in range(4)]
        for t in r.tricks:
            if t.throw is not None and self.throws:
                self._throw(t, holdings, played, voids)
            if len(t.plays) == 4 and self.last_seats:
                self._last_seat(t, holdings, by_suit, classes[t.plays[3].seat])
            led = t.suit
            n = 0  # cards led
            for comp in t.components:
                n += comp.width * len(comp.faces)
            for i, p in enumerate(t.plays):
                hand = holdings[p.seat]
                held = by_suit[p.seat]
                worth = classes[p.seat]
                known = self.exposed[p.seat]
                inside = 0
                for c in p.cards:
                    suit = eff[c]
                    hand[c] = hand[c] - 1
                    held[suit] = held[suit] - 1
                    cell = worth[suit]
                    cell[point_class[c]] = cell[point_class[c]] - 1
                    played[c] = played[c] + 1
                    if known[c] > 0:
                        known[c] = known[c] - 1
                    if suit == led:
                        inside += 1
                if i > 0 and p.legal and inside < n:
                    voids[p.seat][led] = True
            throw = t.throw
            if throw is not None and throw.failed and throw.forced is not None:
                left = _sub(_counts(throw.attempted), _counts(throw.forced))
                _raise_to(self.exposed[t.leader], left)
        return self.out

    # -- throws

    def _throw(
        self,
        t: TrickRecord,
        holdings: list[list[int]],
        played: list[int],
        voids: list[list[bool]],
    ) -> None:
        throw = t.throw
        assert throw is not None
        r, trump, rules = self.r, self.trump, self.rules
        seat = t.leader
        attempted = throw.attempted
        shown = self._show(attempted)
        try:
            reading = read_lead(attempted, trump, rules)
            # The thrower's knowledge, the model the analysis shares (`analysis_world`).
            known = knowledge(
                seat,
                holdings,
                played,
                self.exposed,
                voids,
                r.bottom_buried,
                seat == self.last_burier,
                rules.decks,
            )
            others = [(seat + k) % 4 for k in (1, 2, 3)]
            # Most throws no unseen card could beat: known from the counts, `fail_odds`'s own
            # verdict without building its input (the exhaustive review asks it every time).
            if not self.exhaustive and unbeatable(
                reading,
                list(known.pool),
                [self.exposed[d] for d in others],
                [voids[d][reading.suit] for d in others],
                trump,
            ):
                odds = FailOdds(0.0, 0.0, True, 0, ())
            else:
                suit = reading.suit
                unseen = Unseen(
                    known.pool,
                    known.dests,
                    known.room,
                    known.pinned,
                    tuple([v[suit] for v in known.void]),
                )
                seed = zlib.crc32(f"{r.hand_id}:{t.number}".encode())
                odds = fail_odds(reading, unseen, trump, rules, seed, plain=self.exhaustive)
        except (PlayError, Inconsistent) as e:
            self._add(
                "throw_skipped",
                t.number,
                seat,
                0.0,
                False,
                attempted,
                None,
                f"throw {shown} not judged: {e}",
            )
            return
        self._judge_throw(t, reading, odds, shown)

    def _judge_throw(self, t: TrickRecord, reading: Reading, odds: FailOdds, shown: str) -> None:
        throw = t.throw
        assert throw is not None
        rules = self.rules
        seat = t.leader
        attempted = throw.attempted
        comps = reading.components
        p = odds.p
        if throw.failed:
            blocker = f"seat {throw.blocker}" if throw.blocker is not None else "another seat"
            held = self._show(throw.blocking_component or ())
            happened = f"it failed: {blocker} held {held}"
        else:
            happened = "it stood"
        if p == 0.0 and odds.exact:
            self._add(
                "throw_safe",
                t.number,
                seat,
                0.0,
                False,
                attempted,
                None,
                f"throw {shown}: no unseen card can beat a component; {happened}",
                p,
                odds.error,
                "failed" if throw.failed else "stood",
            )
            return
        how = "exact" if odds.exact else f"estimated ± {odds.error:.3f} from {odds.samples} deals"
        stake = points_of(attempted)
        safe_cards = [
            c for i, comp in enumerate(comps) if i not in odds.beatable for c in comp.cards()
        ]
        if safe_cards:
            better: tuple[Card, ...] | None = tuple(sorted(safe_cards))
        else:
            best = max(comps, key=lambda c: (c.size, c.top))
            better = tuple(best.cards())
        if better is not None and sorted(better) == sorted(attempted):
            better = None
        forced = min((comps[i] for i in odds.beatable), key=lambda c: (c.size, c.top))
        lost = points_of(forced.cards()) + rules.throw_penalty_points
        gain = (1 - p) * stake
        cost = p * lost
        outcome = "failed" if throw.failed else "stood"
        penalty = f" + {rules.throw_penalty_points} penalty" if rules.throw_penalty_points else ""
        alt = f"; lead {self._show(better)} instead" if better else ""
        if p == 1.0 and odds.exact:
            self._add(
                "throw_certain_fail",
                t.number,
                seat,
                float(lost),
                True,
                attempted,
                better,
                f"throw {shown} must fail: a seat surely beats {forced.describe()} "
                f"({lost} points{penalty} and the lead lost, 1 ladder point); {happened}{alt}",
                p,
                odds.error,
                outcome,
            )
            return
        odds_text = f"fails with p = {p:.3f} ({how})"
        if cost > gain:
            verdict = ", avoidable" if throw.failed else ""
            self._add(
                "throw_risky",
                t.number,
                seat,
                cost - gain,
                True,
                attempted,
                better,
                f"throw {shown} {odds_text}: expected loss {cost:.1f} (forced "
                f"{forced.describe()}{penalty}) > expected gain {gain:.1f} of "
                f"{stake} points; {happened}{verdict}{alt}",
                p,
                odds.error,
                outcome,
            )
            return
        tail = ", on cards the thrower could not see: not a mistake" if throw.failed else ""
        self._add(
            "throw_possible",
            t.number,
            seat,
            0.0,
            False,
            attempted,
            None,
            f"throw {shown} {odds_text}: expected loss {cost:.1f} <= expected gain "
            f"{gain:.1f}; {happened}{tail}",
            p,
            odds.error,
            outcome,
        )

    # -- the fourth seat

    def _last_seat(
        self,
        t: TrickRecord,
        holdings: list[list[int]],
        by_suit: list[list[int]],
        classes: list[list[int]],
    ) -> None:
        trump, rules = self.trump, self.rules
        lead = Reading(t.suit, t.components)
        plays = t.plays
        eff = trump.eff
        voids = [by_suit[p.seat][t.suit] == 0 for p in plays]
        first = [(p.seat, p.cards) for p in plays[:3]]
        last = plays[3]
        seat = last.seat
        partner = (seat + 2) % 4
        own_won = t.winner % 2 == seat % 2
        # Too many plays to judge: known from the holding, before anything is resolved. The
        # multisets of the suit bound the plays from above; past the limit the legal plays are
        # listed (R5.3 may allow far fewer), so a seat is skipped only when it truly has more.
        held = by_suit[seat][t.suit]
        listed: list[tuple[Card, ...]] | None = None
        skip = over_limit(lead, holdings[seat], held, trump, self.limit)
        if skip:
            listed = listed_plays(lead, Hand(tuple(holdings[seat])), held, trump, rules, self.limit)
            skip = listed is None
        # When the seat's team won, proving the play sound needs only the points after three
        # plays: the trick is resolved only if it comes to more.
        before = (
            self._after_three(t, lead, first, voids)
            if self.exhaustive or (not own_won and not skip) or last.kind == "ruff"
            else None
        )
        if before is not None and last.kind == "ruff" and before.winner == partner:
            spent = sum(1 for c in last.cards if eff[c] == TRUMP)
            self._add(
                "ruffed_partner",
                t.number,
                seat,
                0.0,
                False,
                last.cards,
                None,
                f"ruffed partner seat {partner}'s winning {self._show(plays[before.winner_index].cards)} "
                f"with {self._show(last.cards)} ({spent} trumps spent)",
                severity_="note",
            )
        if skip:
            self._skip(t.number, seat, last.cards)
            return
        base = before.points if before is not None else sum(points_of(c) for _, c in first)
        if not self.exhaustive and settled(
            lead,
            before,
            base,
            seat,
            holdings[seat],
            classes,
            own_won,
            t.points,
            trump,
            rules,
        ):
            self._ok_last(t.number, seat, last.cards)
            return
        if before is None:
            # Not needed to prove the play sound, needed now: read from the record as above.
            before = self._after_three(t, lead, first, voids)
        hand = Hand(tuple(holdings[seat]))
        comp = lead.components[0]
        unit = len(lead.components) == 1 and comp.length == 1 and comp.width <= 2
        fixed = not (self.exhaustive or unit) and not may_beat(
            lead, before, holdings[seat], by_suit[seat][t.suit], trump, rules
        )
        lazy = not self.exhaustive
        found = options(
            lead,
            first,
            voids[:3],
            seat,
            hand,
            trump,
            rules,
            self.limit,
            before,
            fixed,
            True,
            lazy,
            listed,
        )
        play = last.cards
        if found is None:
            self._skip(t.number, seat, play)
            return
        if not found:
            return
        own = seat % 2
        actual_pts, actual_own = t.points, t.winner % 2 == own
        # Only the attackers' points score (R7): a play is priced by how it changes their total,
        # signed for the seat's side. Points the banker's side takes or misses change nothing.
        attacker = own != self.banker % 2
        if lazy:
            self._needed(
                found, own, actual_pts if actual_own else -1, lead, first, voids, seat, before
            )
        # One pass, not `max`/`min` over generators (the compiled build runs those through
        # Python): the options the own team wins, the most they make, the fewest of all.
        wins: list[Option] = []
        most = -1
        fewest = -1
        for o in found:
            if o.winner != UNRESOLVED and o.winner % 2 == own:
                wins.append(o)
                if o.points > most:
                    most = o.points
            if fewest < 0 or o.points < fewest:
                fewest = o.points
        if not actual_own:
            # Won for the seat's team, the trick's points move to the attackers (the attacker's
            # `most`) or away from them (the banker side's `actual_pts`).
            if wins and (most if attacker else actual_pts) > 0:
                best = self._confirm(
                    t.number,
                    lead,
                    first,
                    voids,
                    _cheapest(wins, most, trump),
                    seat,
                    before,
                )
                cost = float(best.points if attacker else actual_pts)
                side = "to the attackers" if attacker else "kept from the attackers"
                self._add(
                    "lost_trick",
                    t.number,
                    seat,
                    cost,
                    True,
                    play,
                    best.cards,
                    f"played {self._show(play)}; {self._show(best.cards)} wins the trick for own "
                    f"team ({best.points} points) instead of giving seat {t.winner} "
                    f"{actual_pts}: {cost:.0f} points {side}",
                )
                return
            if not wins and not attacker and fewest < actual_pts:
                low = self._confirm(
                    t.number, lead, first, voids, _cheapest(found, fewest, trump), seat, before
                )
                self._add(
                    "fed_points",
                    t.number,
                    seat,
                    float(actual_pts - low.points),
                    True,
                    play,
                    low.cards,
                    f"played {self._show(play)} into seat {t.winner}'s trick ({actual_pts} points); "
                    f"{self._show(low.cards)} gives {low.points}",
                )
                return
        elif attacker and wins and most > actual_pts:
            high = self._confirm(
                t.number, lead, first, voids, _cheapest(wins, most, trump), seat, before
            )
            self._add(
                "missed_points",
                t.number,
                seat,
                float(high.points - actual_pts),
                True,
                play,
                high.cards,
                f"played {self._show(play)} to own team's trick ({actual_pts} points); "
                f"{self._show(high.cards)} still wins it with {high.points}",
            )
            return
        self._ok_last(t.number, seat, play)

    def _needed(
        self,
        found: list[Option],
        own: int,
        floor: int,
        lead: Reading,
        first: list[tuple[int, tuple[Card, ...]]],
        voids: list[bool],
        seat: int,
        before: TrickVerdict,
    ) -> None:
        """Find, in place in `found`, the winner of every option the judgement needs (the others
        stay `UNRESOLVED`, never counted as won): the judgement uses only the most points an option
        of the own team's makes, and only when it makes more than `floor` (the points the seat's
        team took, when it won the trick; else -1). So the options are resolved from the most
        points down, while they make more than `floor` and no fewer than an option found won
        (one making as many may be the cheaper play)."""
        pending = [(-o.points, i) for i, o in enumerate(found) if o.winner == UNRESOLVED]
        if not pending:
            return
        top = -1
        for o in found:
            if o.winner != UNRESOLVED and o.winner % 2 == own and o.points > top:
                top = o.points
        void = voids[3]
        trump, rules = self.trump, self.rules
        for minus, i in sorted(pending):
            points = -minus
            if points <= floor or points < top:
                break
            o = resolve(found[i], void, lead, first, voids[:3], seat, trump, rules, before)
            found[i] = o
            if o.winner % 2 == own and points > top:
                top = points

    def _confirm(
        self,
        trick: int,
        lead: Reading,
        first: list[tuple[int, tuple[Card, ...]]],
        voids: list[bool],
        o: Option,
        seat: int,
        before: TrickVerdict,
    ) -> Option:
        """The engine's own verdict on a recommended play (R6: `trick_winner` comparing it with
        the winner after three plays, `before`), which must agree. A method, not a closure: the
        compiled build calls a closure through Python."""
        verdict = trick_winner(
            lead, [*first, (seat, o.cards)], voids, self.trump, self.rules, before
        )
        assert (verdict.winner, verdict.points) == (o.winner, o.points), (
            f"hand {self.r.hand_id} trick {trick}: {o} but the trick gives "
            f"seat {verdict.winner} {verdict.points}"
        )
        return o

    def _after_three(
        self,
        t: TrickRecord,
        lead: Reading,
        first: list[tuple[int, tuple[Card, ...]]],
        voids: list[bool],
    ) -> TrickVerdict:
        """The trick resolved after its first three plays. When the fourth play did not win,
        R6 compares each play with the winner so far, so the winner after three plays is the
        trick's (the replay's) with the same winning split: read from the record for the lead
        standing or one unit or tractor winning (its reason, unused here, is not spelled)."""
        trump, rules = self.trump, self.rules
        index = -1
        for i in range(len(first)):
            if first[i][0] == t.winner:
                index = i
                break
        if not self.exhaustive and index >= 0:
            points = t.points - points_of(t.plays[3].cards)
            if index == 0:
                return TrickVerdict(t.winner, 0, points, "", "", lead.components)
            if len(lead.components) == 1:
                comp = cached_component(first[index][1], trump, rules, self.known)
                if comp is not None:
                    return TrickVerdict(t.winner, index, points, "", "", (comp,))
        return trick_winner(lead, first, voids[:3], trump, rules)

    def _skip(self, trick: int, seat: int, play: tuple[Card, ...]) -> None:
        if self.count_sound:
            self.skipped.append(trick)
            return
        self._add(
            SKIPPED,
            trick,
            seat,
            0.0,
            False,
            play,
            None,
            skipped_reason(self.limit),
        )

    def _ok_last(self, trick: int, seat: int, play: tuple[Card, ...]) -> None:
        if self.count_sound:
            self.sound.append(trick)
            return
        reason = (
            f"played {self._show(play)}: no legal play does better" if self.sound_reasons else ""
        )
        self._add(SOUND, trick, seat, 0.0, False, play, None, reason)

    # -- the bury

    def _buries(self) -> None:
        r = self.r
        banker = self.banker
        before = r.banker_before_bury
        if before is None or len(r.dealt) != 4:
            return
        fries = self.fries
        first = self._first_bury(before.counts)
        if first is not None:
            self._bury(banker, before.counts, first, final=not fries)
        if not fries:
            return
        current = {s: list(r.dealt[s].counts) for s in range(4)}
        if first is not None:
            current[banker] = _sub(list(before.counts), _counts(first))
            bottom = _counts(first)
        elif fries[0].seat == banker:
            # The banker fried first, taking back its own bury: at that fry it held the dealt
            # cards and the bottom again, whatever it had buried.
            current[banker] = list(before.counts)
            bottom = [0] * 54
        else:
            return
        for i, fry in enumerate(fries):
            hand = [a + b for a, b in zip(current[fry.seat], bottom, strict=True)]
            after = _sub(hand, _counts(fry.buried))
            if min(after) < 0:
                return
            current[fry.seat] = after
            if (fry.seat - banker) % 2 == 0:
                self._bury(fry.seat, hand, fry.buried, final=i == len(fries) - 1)
            bottom = _counts(fry.buried)

    def _first_bury(self, had: tuple[int, ...]) -> tuple[Card, ...] | None:
        """The banker's first bury, from the holdings: what it held with the bottom less what it
        led with; with fries, what the first fryer took up (its holding at the first trick less
        what it was dealt, plus what it buried, less what its later fries changed). None when the
        record cannot tell: the banker fried first and took its own bury back."""
        r = self.r
        banker = self.banker
        fries = self.fries
        if not any(b.seat == banker for b in fries):
            kept = r.start[banker].counts
            buried = [had[c] - kept[c] for c in range(54)]
        elif fries[0].seat != banker:
            s0 = fries[0].seat
            buried = _sub(list(r.start[s0].counts), r.dealt[s0].counts)
            took = _counts(fries[0].buried)
            for j in range(1, len(fries)):
                if fries[j].seat == s0:
                    # A later fry by the same seat took that bottom up and buried another.
                    took = _sub(took, _sub(_counts(fries[j - 1].buried), _counts(fries[j].buried)))
            buried = [buried[c] + took[c] for c in range(54)]
        else:
            return None
        # Loops over the counts: the compiled build indexes those natively (`min` and `sum`
        # over a generic Sequence go through Python).
        total = 0
        cards: list[Card] = []
        for c in range(54):
            k = buried[c]
            if k < 0:
                return None
            total += k
            for _ in range(k):
                cards.append(c)
        if total != len(r.bottom_buried):
            return None
        return tuple(cards)

    def _bury(self, seat: int, hand: Sequence[int], buried: tuple[Card, ...], final: bool) -> None:
        r, trump = self.r, self.trump
        order = _cheapest_first(trump)
        # The points of the len(buried) cheapest cards, taken face by face down `order`.
        fewest = 0
        left = len(buried)
        for c in order:
            if not left:
                break
            take = min(hand[c], left)
            fewest += take * card_points(c)
            left -= take
        points = points_of(buried)
        excess = points - fewest
        shown = self._show(buried)
        if excess <= 0:
            self._add(
                "bury_ok",
                None,
                seat,
                0.0,
                False,
                buried,
                None,
                f"buried {shown}: {points} points, the fewest 8 cards of that hand could hold",
            )
            return
        kept = [c for c in buried if card_points(c) == 0]
        rest = _sub(list(hand), _counts(kept))
        pool = [c for c in order for _ in range(rest[c])]
        better = tuple(sorted(kept + pool[: len(buried) - len(kept)]))
        bottom = r.bottom
        if final and bottom is not None and bottom.captured:
            cost = float(excess * bottom.multiplier)
            fate = f"the attackers captured it × {bottom.multiplier}: {cost:.0f} points"
            outcome = "captured"
        else:
            cost = 0.0
            fate = "not captured" if final else "taken up by a later fry"
            outcome = "kept"
        self._add(
            "bury_points",
            None,
            seat,
            cost,
            cost > 0,
            buried,
            better,
            f"buried {shown} ({points} points, {excess} more than the fewest 8 cards of "
            f"that hand could hold, e.g. {self._show(better)}); {fate}",
            outcome=outcome,
        )

    def _add(
        self,
        code: str,
        trick: int | None,
        seat: int,
        cost: float,
        flagged: bool,
        play: tuple[Card, ...],
        better: tuple[Card, ...] | None,
        reason: str,
        p_fail: float | None = None,
        p_error: float | None = None,
        outcome: str | None = None,
        *,
        severity_: Severity | None = None,
    ) -> None:
        level = severity_ if severity_ is not None else severity(cost, flagged)
        if self.count_sound:
            self.numbers.append(len(self.out) + len(self.sound) + len(self.skipped) + 1)
        # The exact cost, which decided the severity: rounded, 9.998 would read as a mistake's
        # 10.0 on an inaccuracy (`shown_cost` spells it so that it never does).
        self.out.append(
            Decision(
                code,
                self.r.hand_id,
                trick,
                seat,
                level,
                cost,
                tuple(play),
                better,
                reason,
                p_fail,
                p_error,
                outcome,
            )
        )


picklable(Decision)
