"""Computer analysis of a hand: every decision judged by its effect on the whole hand.

Perfect-information Monte Carlo (docs/analysis.md). At each decision the actor's knowledge
(`analysis_world.knowledge`: their holding, the cards played, the cards known to sit with a seat,
the bottom if they buried it last, the voids play proved) gives the unseen cards; worlds are
dealt consistent with it (`analysis_world.sample_world`); in each world every candidate play is
played out to the end of the hand by the rollout policy (the careful bot without slips, for all
four seats: `sim.table.play_out`), the same worlds and the same draws for every candidate, so
candidates are compared by paired differences. A candidate's value in a world is the attackers'
final total (the bottom and its multiplier and throw penalties included), signed for the actor's
side, with the level change it implies for the actor's team.

A decision's verdict: the expected loss of the play made against the best candidate, with its
standard error over the worlds; flagged when the loss is at least `FLAG_AT` points and beyond two
standard errors, with the review's severities. Sampling stops once the verdict is settled. The
same seed gives the same analysis.

The decisions are the last bury (number 0, before trick 1: `bury_spot`, `bury_candidates`; each
candidate buried from the burier's holding and the hand played from the first lead) and every
lead and follow (numbered from 1).
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from typing import Any, Final, Literal

from ..cards import Card, Hand, card_points, format_cards, parse_cards
from ..combos import read_lead
from ..follow import legal_plays
from ..replay import replay_line
from ..results import HandReplay
from ..rules import RuleSet
from ..scoring import TrickScore
from ..shape import Reading
from ..sim.bots.base import Bot, BuryView, LeadChoice, PlayView, suit_components
from ..sim.bots.careful import Careful
from ..sim.memory import Memory
from ..sim.personas import Persona
from ..sim.table import PlayedOut, Position, play_out
from ..sim.units import units_in_suit
from ..trump import TRUMP, TrumpContext, parse_trump
from .analysis_world import BOTTOM, Inconsistent, Knowledge, knowledge, sample_world
from .review import Severity, severity

ENGINE: Final = "pimc-2"
"""The analysis engine's version: stored results are rebuilt when it changes."""

FLAG_AT: Final = 5.0
"""A decision is flagged only when its expected loss is at least this many points (and beyond
two standard errors)."""

POLICY: Final = Persona("rollout", "careful", 0.0, 0.5)
"""The rollout policy: the careful bot (docs/bots.md) without slips, at every seat."""

Kind = Literal["bury", "lead", "follow"]

BURY_NUMBER: Final = 0
"""The bury's decision number (and `trick`): it comes before trick 1, so the plays keep their
numbers from 1 whether or not a hand's bury is analysed."""


@dataclass(frozen=True, slots=True)
class Settings:
    """How hard to look. `worlds`: most worlds per decision; `min_worlds`: worlds before a
    verdict may be called settled (and the batch size); `cap`: most candidates rolled out past
    the screening (`screen` worlds each); `listed`: most legal follows listed before the bot's
    candidates stand in for them; `seed`: the run's seed."""

    worlds: int = 16
    min_worlds: int = 8
    cap: int = 4
    screen: int = 2
    listed: int = 24
    seed: int = 0


DEFAULT: Final = Settings()


@dataclass(frozen=True, slots=True)
class Alternative:
    """One candidate as the worlds valued it (signed for the actor's side)."""

    cards: tuple[Card, ...]
    value: float
    """Mean of the attackers' final total, signed for the actor's side."""
    levels: float
    """Mean levels the actor's team goes up (negative: the other team goes up)."""
    worlds: int


@dataclass(frozen=True, slots=True)
class Judgement:
    """The analysis of one decision (docs/analysis.md has every field)."""

    hand_id: str
    number: int
    """The decision's place in the hand: the bury 0 (`BURY_NUMBER`), the plays from 1 (every
    play, forced ones included)."""
    trick: int
    """The trick of a play; 0 for the bury (before trick 1)."""
    seat: int
    kind: Kind
    play: tuple[Card, ...]
    judged: bool
    """False for a decision with one distinct candidate (nothing to choose) or none dealt."""
    best: tuple[Card, ...] | None = None
    """The best candidate when it is not the play made."""
    loss: float = 0.0
    """Expected points lost by the play made against the best candidate (>= 0)."""
    loss_se: float = 0.0
    worlds: int = 0
    """The worlds every figure of this decision rests on."""
    flagged: bool = False
    severity: Severity = "ok"
    value: float = 0.0
    """The play made's expected attackers' total, signed for the actor's side."""
    attackers: float = 0.0
    """The play made's expected attackers' total (the evaluation graph's point)."""
    levels: float = 0.0
    best_value: float = 0.0
    best_levels: float = 0.0
    candidates: int = 1
    """Distinct candidates (equivalent plays merged)."""
    legal: int | None = None
    """Distinct legal plays when listed (None: more than `Settings.listed`, or a lead)."""
    screened: int = 0
    """Candidates dropped after the screening worlds (the cap)."""
    pruned: int = 0
    """Candidates dropped later, clearly worse than the best."""
    note: str = ""
    alternatives: tuple[Alternative, ...] = ()


@dataclass(frozen=True, slots=True)
class HandAnalysis:
    hand_id: str
    source: str
    engine: str
    settings: Settings
    decisions: tuple[Judgement, ...]
    complete: bool
    """False when the run was cut short: `decisions` holds those finished."""


# --- the walk: every decision of a replayed hand -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Spot:
    """A decision as the analysis sees it: the position before the play (the actor's holding
    real; the other holdings and the bottom are replaced by each world's), what the actor knows,
    and the candidates. For the bury the actor's holding is the one before burying (the bottom
    taken in) and `position.buried` the bury made: each candidate is buried from it."""

    hand_id: str
    number: int
    trick: int
    seat: int
    kind: Kind
    play: tuple[Card, ...]
    position: Position
    knowledge: Knowledge
    candidates: tuple[tuple[Card, ...], ...]
    legal: int | None
    note: str


def spots(r: HandReplay, settings: Settings = DEFAULT) -> list[Spot]:
    """Every decision of a replayed hand, in order, with the actor's knowledge: the last bury
    (`bury_spot`), then every lead and follow. A hand that cannot be analysed (rejected, trump
    or holdings unknown) yields none; the plays stop at an illegal play."""
    if (
        r.status == "rejected"
        or r.rules is None
        or r.trump is None
        or r.level is None
        or r.banker is None
        or len(r.start) != 4
        or not r.tricks
    ):
        return []
    rules = r.rules
    trump = parse_trump(r.trump, r.level)
    banker = r.banker
    fries = [b for b in r.bids if b.kind == "fry" and b.valid and b.buried]
    burier = fries[-1].seat if fries else banker
    buriers = {banker, *(b.seat for b in fries)}
    exposed = [[0] * 54 for _ in range(4)]
    for b in r.bids:
        if b.valid and b.kind != "fry" and b.seat not in buriers:
            for f in set(b.cards):
                exposed[b.seat][f] = max(exposed[b.seat][f], b.cards.count(f))
    out: list[Spot] = []
    bury = bury_spot(r, trump, burier, exposed)
    if bury is not None:
        out.append(bury)
    holdings = [list(h.counts) for h in r.start]
    played = [0] * 54
    voids = [[False] * 5 for _ in range(4)]
    memory = Memory.start(rules.decks)
    scores: list[TrickScore] = []
    failed: list[int] = []
    total = 0
    attackers = 1 - banker % 2
    number = 0
    bottom = r.bottom_buried
    for t in r.tricks:
        if any(not p.legal for p in t.plays) or len(t.plays) != 4:
            break  # an illegal play: the rest of the hand is not play the policy could follow
        lead = Reading(t.suit, t.components)
        so_far: tuple[tuple[int, tuple[Card, ...]], ...] = ()
        void_flags: tuple[bool, ...] = ()
        n = lead.size
        for i, p in enumerate(t.plays):
            number += 1
            seat = p.seat
            made = p.cards
            if i == 0 and t.throw is not None:
                made = t.throw.attempted
            try:
                k = knowledge(
                    seat, holdings, played, exposed, voids, bottom, seat == burier, rules.decks
                )
            except Inconsistent:
                return out
            hands = tuple(Hand(tuple(h)) for h in holdings)
            position = Position(
                rules,
                trump,
                banker,
                hands,
                tuple(bottom),
                burier,
                memory,
                t.number,
                t.leader,
                tuple(scores),
                tuple(failed),
                total,
                None if i == 0 else lead,
                so_far,
                void_flags,
            )
            hand = hands[seat]
            if i == 0:
                cands, legal, note = lead_candidates(hand, made, trump, rules, position, seat)
                kind: Kind = "lead"
            else:
                cands, legal, note = follow_candidates(
                    lead, hand, made, trump, rules, settings, position, seat
                )
                kind = "follow"
            out.append(
                Spot(r.hand_id, number, t.number, seat, kind, made, position, k, cands, legal, note)
            )
            # The play as it went: the lead as played (the forced component after a failed throw).
            cards = p.cards
            inside = 0
            for c in cards:
                holdings[seat][c] -= 1
                played[c] += 1
                if exposed[seat][c] > 0:
                    exposed[seat][c] -= 1
                if trump.eff[c] == t.suit:
                    inside += 1
            if i > 0 and inside < n:
                voids[seat][t.suit] = True
            memory = memory.after_play(seat, cards, t.suit, trump)
            so_far = (*so_far, (seat, cards))
            void_flags = (*void_flags, i > 0 and inside < n)
        throw = t.throw
        if throw is not None and throw.failed and throw.forced is not None:
            failed.append(t.leader)
            left = list(throw.attempted)
            for c in throw.forced:
                left.remove(c)
            for c in set(left):
                exposed[t.leader][c] = max(exposed[t.leader][c], left.count(c))
        scores.append(TrickScore(t.winner, t.points))
        if t.winner % 2 == attackers:
            total += t.points
    return out


def _key(cards: Sequence[Card], trump: TrumpContext) -> tuple[tuple[int, int, int], ...]:
    """What makes two plays equivalent: the same effective cards (suit, rank, points)."""
    return tuple(sorted((trump.eff[c], trump.pos[c], card_points(c)) for c in cards))


def _merged(
    plays: Sequence[tuple[Card, ...]], made: tuple[Card, ...], trump: TrumpContext
) -> list[tuple[Card, ...]]:
    """Distinct plays, equivalent ones merged: the play made first, then in the given order."""
    seen = {_key(made, trump)}
    out = [tuple(sorted(made))]
    for p in plays:
        key = _key(p, trump)
        if key not in seen:
            seen.add(key)
            out.append(tuple(sorted(p)))
    return out


def lead_candidates(
    hand: Hand,
    made: tuple[Card, ...],
    trump: TrumpContext,
    rules: RuleSet,
    position: Position,
    seat: int,
) -> tuple[tuple[tuple[Card, ...], ...], int | None, str]:
    """The leads considered, per suit held: its highest and lowest single, every face held two
    or more times at the width held (pairs, triples...), every tractor the hand can lead; then
    the careful bot's own lead (which may be a throw it proved safe) and the play made. Singles
    between the highest and the lowest, narrower widths of a face and other throws are not listed
    (every combination of a suit's units is a throw: far too many to roll out)."""
    plays: list[tuple[Card, ...]] = []
    for suit in range(TRUMP + 1):
        units = units_in_suit(hand, trump, suit)
        if not units:
            continue
        by_rank = sorted(units, key=lambda u: trump.pos[u[0]])
        plays.append((by_rank[-1][0],))
        plays.append((by_rank[0][0],))
        for face, copies in by_rank:
            width = min(copies, rules.max_width)
            if width > 1:
                plays.append((face,) * width)
        for comp in suit_components(hand, trump, rules, suit):
            if comp.length > 1:
                plays.append(comp.cards())
    view = _view(position, seat)
    bot = Careful(POLICY).choose_lead(view, random.Random(0))
    plays.insert(0, bot.cards)
    good: list[tuple[Card, ...]] = []
    for p in plays:
        try:
            read_lead(p, trump, rules)
        except ValueError:
            continue
        good.append(p)
    return (
        tuple(_merged(good, made, trump)),
        None,
        "leads: each suit's highest and lowest single, its pairs and wider units, its tractors, "
        "the careful bot's lead",
    )


def follow_candidates(
    lead: Reading,
    hand: Hand,
    made: tuple[Card, ...],
    trump: TrumpContext,
    rules: RuleSet,
    settings: Settings,
    position: Position,
    seat: int,
) -> tuple[tuple[tuple[Card, ...], ...], int | None, str]:
    """Every legal follow (R5), equivalent plays merged, when there are at most `settings.listed`;
    else the careful bot's candidates (docs/bots.md: exact shapes high, low, just beating, rich;
    the demanded rung filled cheaply, richly or high; ruffs; cheap and rich discards) and the
    play made, which is reported."""
    listed = list(islice(legal_plays(lead, hand, trump, rules), settings.listed + 1))
    if len(listed) <= settings.listed:
        return tuple(_merged(listed, made, trump)), len(listed), ""
    view = _view(position, seat)
    bot = Careful(POLICY)
    options = bot.follow_options(view, random.Random(0))
    plays = [o.cards for o in options]
    return (
        tuple(_merged(plays, made, trump)),
        None,
        f"more than {settings.listed} legal plays: the careful bot's candidates stand in",
    )


# --- the bury ------------------------------------------------------------------------------------


def bury_spot(
    r: HandReplay, trump: TrumpContext, burier: int, exposed: Sequence[Sequence[int]]
) -> Spot | None:
    """The last bury of a hand (the banker's, or the last valid fry's re-bury: the bury whose
    cards are the bottom at trick 1), or None when the record cannot give it. The burier's
    holding before burying is its holding at trick 1 with the bottom it buried; it knows its
    own cards, the bottom and the shown cards of the seats that never buried (`exposed`), and
    nothing is played yet, so the unseen cards are the other three holdings. An earlier bury
    taken up by a fry is not judged: its cards went to the fryer's hand, a change the rollouts
    from trick 1 cannot price."""
    rules = r.rules
    banker = r.banker
    assert rules is not None and banker is not None
    made = tuple(sorted(r.bottom_buried))
    if len(made) != rules.bottom_size or not r.tricks:
        return None
    before = r.start[burier].add(made)
    holdings = [list(h.counts) for h in r.start]
    voids = [[False] * 5 for _ in range(4)]
    try:
        k = knowledge(burier, holdings, [0] * 54, exposed, voids, made, True, rules.decks)
    except Inconsistent:
        return None
    hands = list(r.start)
    hands[burier] = before
    position = Position(
        rules,
        trump,
        banker,
        tuple(hands),
        made,
        burier,
        Memory.start(rules.decks),
        1,
        r.tricks[0].leader,
    )
    cands, note = bury_candidates(before, made, trump, rules, burier % 2 == banker % 2)
    return Spot(
        r.hand_id,
        BURY_NUMBER,
        BURY_NUMBER,
        burier,
        "bury",
        made,
        position,
        k,
        cands,
        None,
        note,
    )


def _bury_key(counts: Sequence[int], trump: TrumpContext) -> Callable[[Card], tuple[int, ...]]:
    """The cheapest cards to bury first: side suits before trumps, fewest points, singles
    before pairs (a pair is also a tractor's rung), then lowest by rank."""

    def key(card: Card) -> tuple[int, ...]:
        return (
            1 if trump.eff[card] == TRUMP else 0,
            card_points(card),
            1 if counts[card] >= 2 else 0,
            trump.pos[card],
            card,
        )

    return key


def bury_candidates(
    before: Hand,
    made: tuple[Card, ...],
    trump: TrumpContext,
    rules: RuleSet,
    banker_side: bool = True,
) -> tuple[tuple[tuple[Card, ...], ...], str]:
    """The buries considered (8 cards of 33 or more are astronomically many ways): the bury
    made; the careful bot's bury (side cards without points, singles, short suits, low first:
    docs/bots.md); the cheapest by points (`_bury_key`: side suits, fewest points, singles, low
    first, whatever the suit lengths); and the shortest side suit the bury can hold whole,
    buried whole so the burier is void in it (ties: the one with fewer points, then the lower
    suit), filled up cheapest first; for an attacker's re-bury after a fry (`banker_side`
    false) also the richest. Equal buries (the same effective cards) are merged."""
    count = len(made)
    hand = list(before)
    bot = Careful(POLICY).choose_bury(BuryView(0, before, trump, rules, count), random.Random(0))
    key = _bury_key(before.counts, trump)
    cheapest = tuple(sorted(hand, key=key)[:count])
    plays = [bot, cheapest]
    suits: list[tuple[int, int, int, list[Card]]] = []
    for suit in range(TRUMP):
        cards = [c for c in hand if trump.eff[c] == suit]
        if 0 < len(cards) <= count:
            suits.append((len(cards), sum(card_points(c) for c in cards), suit, cards))
    if suits:
        _, _, _, whole = min(suits)
        rest = sorted((c for c in hand if trump.eff[c] != trump.eff[whole[0]]), key=key)
        plays.append((*whole, *rest[: count - len(whole)]))
    note = "buries: the careful bot's, the cheapest by points, one voiding the shortest side suit"
    if not banker_side:
        # An attacker who fried and re-buried gains when its side captures the bottom: the
        # richest bury is a sensible choice too (side suits first, most points, singles, low).
        def rich(card: Card) -> tuple[int, ...]:
            k = key(card)
            return (k[0], -k[1], *k[2:])

        plays.append(tuple(sorted(hand, key=rich)[:count]))
        note += ", the richest (an attacker's re-bury)"
    return tuple(_merged(plays, made, trump)), note


def _view(position: Position, seat: int) -> PlayView:
    """The seat's turn as the bots see it (for the candidates the careful bot would weigh)."""
    buried = position.buried if seat == position.bury_seat else ()
    return PlayView(
        seat,
        position.holdings[seat],
        position.trump,
        position.rules,
        position.banker,
        position.number,
        position.memory,
        buried,
        position.total,
        position.lead,
        position.plays,
        position.voids,
    )


# --- rolling out ---------------------------------------------------------------------------------


def _seed(*parts: object) -> int:
    return zlib.crc32(":".join(str(p) for p in parts).encode())


def world_position(spot: Spot, world: list[list[int]]) -> Position:
    """The spot's position with the other holdings and (if unknown) the bottom from `world`."""
    k = spot.knowledge
    pos = spot.position
    holdings = list(pos.holdings)
    buried = pos.buried
    for i, d in enumerate(k.dests):
        counts = world[i]
        if d == BOTTOM:
            buried = tuple(f for f in range(54) for _ in range(counts[f]))
        else:
            holdings[d] = Hand(tuple(counts))
    return replace(pos, holdings=tuple(holdings), buried=buried)


_BOTS: Final[list[Bot]] = [Careful(POLICY) for _ in range(4)]


def rollout(
    position: Position, seat: int, kind: Kind, cards: tuple[Card, ...], seed: int
) -> PlayedOut:
    """The rest of the hand after `seat` plays `cards` (for the bury: buries them from its
    holding, and the hand is played from trick 1), by the rollout policy."""
    rng = random.Random(seed)
    if kind == "bury":
        holdings = list(position.holdings)
        holdings[seat] = holdings[seat].remove(cards)
        buried = replace(position, holdings=tuple(holdings), buried=cards)
        return play_out(buried, _BOTS, rng)
    if kind == "lead":
        return play_out(position, _BOTS, rng, lead=LeadChoice(cards))
    return play_out(position, _BOTS, rng, answer=cards)


def _value(out: PlayedOut, seat: int, banker: int) -> tuple[float, float]:
    """The attackers' final total signed for `seat`'s side, and the levels its team goes up."""
    attacker = seat % 2 != banker % 2
    points = out.score.attackers_points
    outcome = out.score.outcome
    up = outcome.levels if outcome.winning_team(banker) == seat % 2 else -outcome.levels
    return (float(points) if attacker else -float(points)), float(up)


@dataclass(slots=True)
class _Tally:
    cards: tuple[Card, ...]
    values: list[float] = field(default_factory=list)
    levels: list[float] = field(default_factory=list)


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean of a − b over the worlds both saw, and its standard error."""
    n = min(len(a), len(b))
    if n == 0:
        return 0.0, 0.0
    d = [a[i] - b[i] for i in range(n)]
    m = sum(d) / n
    if n < 2:
        return m, 0.0
    var = sum((x - m) ** 2 for x in d) / (n - 1)
    return m, math.sqrt(var / n)


def judge(spot: Spot, settings: Settings = DEFAULT) -> Judgement:
    """The verdict on one decision (module doc). Deterministic for `settings.seed`."""
    base = Judgement(
        spot.hand_id,
        spot.number,
        spot.trick,
        spot.seat,
        spot.kind,
        spot.play,
        False,
        candidates=len(spot.candidates),
        legal=spot.legal,
        note=spot.note,
    )
    if len(spot.candidates) < 2:
        return replace(base, note="one distinct play: nothing to choose")
    trump = spot.position.trump
    banker = spot.position.banker
    tallies = [_Tally(c) for c in spot.candidates]
    live = list(range(len(tallies)))  # the play made is index 0
    seed = _seed(settings.seed, spot.hand_id, spot.number)
    rng = random.Random(seed)
    screened = 0
    pruned = 0
    worlds = 0
    too_many = len(live) > settings.cap

    def run(count: int) -> int:
        done = 0
        for _ in range(count):
            world_seed = rng.getrandbits(32)
            try:
                world = sample_world(spot.knowledge, trump, random.Random(world_seed))
            except Inconsistent:
                return done
            position = world_position(spot, world)
            for i in live:
                out = rollout(position, spot.seat, spot.kind, tallies[i].cards, world_seed)
                v, up = _value(out, spot.seat, banker)
                tallies[i].values.append(v)
                tallies[i].levels.append(up)
            done += 1
        return done

    if too_many:
        worlds += run(settings.screen)
        order = sorted(live[1:], key=lambda i: -_mean(tallies[i].values))
        keep = [0, *order[: settings.cap - 1]]
        screened = len(live) - len(keep)
        live = sorted(keep)
    while worlds < settings.worlds:
        step = min(settings.min_worlds, settings.worlds - worlds)
        got = run(step)
        worlds += got
        if got < step:
            break
        if worlds < settings.min_worlds:
            continue
        best = max(live, key=lambda i: (_mean(tallies[i].values), -i))
        loss, se = _paired(tallies[best].values, tallies[0].values)
        # Candidates clearly worse than the best (and than the play made) leave the rollouts.
        for i in list(live):
            if i in (0, best):
                continue
            gap, gap_se = _paired(tallies[best].values, tallies[i].values)
            if gap >= FLAG_AT and gap > 3 * gap_se:
                live.remove(i)
                pruned += 1
        if loss + 2 * se < FLAG_AT or (loss >= FLAG_AT and loss - 2 * se >= FLAG_AT):
            break
    if worlds == 0:
        return replace(base, note="no world consistent with the knowledge could be dealt")
    n = len(tallies[0].values)
    best = max(live, key=lambda i: (_mean(tallies[i].values[:n]), -i))
    loss, se = _paired(tallies[best].values, tallies[0].values)
    flagged = loss >= FLAG_AT and loss > 2 * se
    made = tallies[0]
    top = tallies[best]
    attacker = spot.seat % 2 != banker % 2
    value = _mean(made.values)
    alternatives = tuple(
        Alternative(t.cards, _mean(t.values), _mean(t.levels), len(t.values))
        for t in sorted(
            (tallies[i] for i in range(len(tallies)) if tallies[i].values),
            key=lambda t: -_mean(t.values),
        )
    )
    return replace(
        base,
        judged=True,
        best=None if best == 0 else top.cards,
        loss=max(loss, 0.0),
        loss_se=se,
        worlds=n,
        flagged=flagged,
        severity=severity(loss, flagged),
        value=value,
        attackers=value if attacker else -value,
        levels=_mean(made.levels),
        best_value=_mean(top.values),
        best_levels=_mean(top.levels),
        screened=screened,
        pruned=pruned,
        alternatives=alternatives,
    )


def analyse_hand(
    r: HandReplay,
    settings: Settings = DEFAULT,
    *,
    seat: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> HandAnalysis:
    """Every decision of a hand (of `seat` only, if given), in order, in this process. A
    KeyboardInterrupt ends it early with what is done (`complete` False)."""
    todo = [s for s in spots(r, settings) if seat is None or s.seat == seat]
    done: list[Judgement] = []
    complete = True
    try:
        for i, s in enumerate(todo):
            done.append(judge(s, settings))
            if progress is not None:
                progress(i + 1, len(todo))
    except KeyboardInterrupt:
        complete = False
    return HandAnalysis(r.hand_id, r.source, ENGINE, settings, tuple(done), complete)


# --- the JSON form -------------------------------------------------------------------------------


def judgement_json(j: Judgement) -> dict[str, Any]:
    """A decision as JSON (docs/analysis.md): cards as text, every figure with its worlds."""
    return {
        "hand_id": j.hand_id,
        "number": j.number,
        "trick": j.trick,
        "seat": j.seat,
        "kind": j.kind,
        "play": format_cards(j.play),
        "judged": j.judged,
        "best": None if j.best is None else format_cards(j.best),
        "loss": j.loss,
        "loss_se": j.loss_se,
        "worlds": j.worlds,
        "flagged": j.flagged,
        "severity": j.severity,
        "value": j.value,
        "attackers": j.attackers,
        "levels": j.levels,
        "best_value": j.best_value,
        "best_levels": j.best_levels,
        "candidates": j.candidates,
        "legal": j.legal,
        "screened": j.screened,
        "pruned": j.pruned,
        "note": j.note,
        "alternatives": [
            {
                "play": format_cards(a.cards),
                "value": a.value,
                "levels": a.levels,
                "worlds": a.worlds,
            }
            for a in j.alternatives
        ],
    }


def judgement_from_json(d: dict[str, Any]) -> Judgement:
    """`judgement_json` read back (a store or a page reading stored results)."""

    def cards(text: str | None) -> tuple[Card, ...] | None:
        return None if text is None else tuple(parse_cards(text)) if text else ()

    play = cards(d["play"])
    assert play is not None
    return Judgement(
        d["hand_id"],
        d["number"],
        d["trick"],
        d["seat"],
        d["kind"],
        play,
        d["judged"],
        cards(d["best"]),
        d["loss"],
        d["loss_se"],
        d["worlds"],
        d["flagged"],
        d["severity"],
        d["value"],
        d["attackers"],
        d["levels"],
        d["best_value"],
        d["best_levels"],
        d["candidates"],
        d["legal"],
        d["screened"],
        d["pruned"],
        d["note"],
        tuple(
            Alternative(cards(a["play"]) or (), a["value"], a["levels"], a["worlds"])
            for a in d["alternatives"]
        ),
    )


def analysis_json(a: HandAnalysis) -> dict[str, Any]:
    s = a.settings
    return {
        "hand_id": a.hand_id,
        "source": a.source,
        "engine": a.engine,
        "settings": {
            "worlds": s.worlds,
            "min_worlds": s.min_worlds,
            "cap": s.cap,
            "screen": s.screen,
            "listed": s.listed,
            "seed": s.seed,
        },
        "complete": a.complete,
        "decisions": [judgement_json(j) for j in a.decisions],
    }


def analysis_from_json(d: dict[str, Any]) -> HandAnalysis:
    return HandAnalysis(
        d["hand_id"],
        d["source"],
        d["engine"],
        Settings(**d["settings"]),
        tuple(judgement_from_json(j) for j in d["decisions"]),
        d["complete"],
    )


def analyse_line(text: str, settings: Settings = DEFAULT) -> HandAnalysis:
    """A hand-history line analysed (for tests and one-off use)."""
    return analyse_hand(replay_line(text), settings)
