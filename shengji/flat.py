"""A replayed hand as flat rows: one tuple per hand, seat, bid, trick, play, finding and decision,
in the column order of the store's tables (ingest/schema.py; tests/test_flat.py holds the two
together). Pure, and compiled with the rest of the core: building these rows in Python was a
sixth of a worker's time per hand, a third of it the loop over the plays (measured).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Final

from .cards import NUM_FACES, Card, Hand, card_points, format_cards, rank_token
from .coach.review import StoredReview
from .combos import PlayError, read_lead
from .results import NO_PERSONA, HandReplay, SeatPersona, TrickRecord
from .rules import RuleSet
from .shape import Component
from .trump import SUIT_NAMES, TrumpContext, parse_trump, rules_trump

Row = tuple[object, ...]

ROLES: Final = ("banker", "attacker", "banker_partner", "attacker")
"""Role by (seat - banker) mod 4."""


class HandRows:
    """The lists a batch's rows are appended to, one per hand table."""

    def __init__(self) -> None:
        self.hands: list[Row] = []
        self.seats: list[Row] = []
        self.bids: list[Row] = []
        self.tricks: list[Row] = []
        self.plays: list[Row] = []
        self.findings: list[Row] = []
        self.decisions: list[Row] = []

    def by_table(self) -> dict[str, list[Row]]:
        return {
            "hands": self.hands,
            "seats": self.seats,
            "bids": self.bids,
            "tricks": self.tricks,
            "plays": self.plays,
            "findings": self.findings,
            "decisions": self.decisions,
        }


# Caches: plays, components and rule sets repeat, so their text is looked up, not written again.
# Each is bounded by clearing. Final: compiled, a Final global is a native static, not a lookup
# in the module's dictionary.
_TEXT: Final[dict[tuple[int, ...], str]] = {}
"""Card-list text by card tuple."""
_REPEAT: Final = tuple(
    [tuple([" ".join([format_cards((f,))] * n) for n in range(9)]) for f in range(NUM_FACES)]
)
_POINT_FACES: Final = tuple([f for f in range(NUM_FACES) if card_points(f)])
_POINT_VALUES: Final = tuple([card_points(f) for f in _POINT_FACES])
_TRUMP_FACES: Final[dict[tuple[int | None, int], list[int]]] = {}
"""The trump faces of each (trump suit, level)."""
_PLAY: Final[dict[tuple[int | None, int] | None, dict[tuple[int, ...], tuple[str, int, str]]]] = {}
"""(text, card count, effective suit) of a play by (trump suit, level), then cards: one dict per
trump, looked up once a hand, so a play's lookup hashes only its cards."""
_COMPONENT: Final[dict[tuple[int, tuple[int, ...]], tuple[str, str]]] = {}
_OPTIONS_TEXT: Final[dict[RuleSet, str]] = {}


def cards_text(cards: tuple[Card, ...]) -> str:
    """Card tokens in face order: canonical text, so `cards = 'AS AS'` finds every such play."""
    text = _TEXT.get(cards)
    if text is None:
        if len(_TEXT) > 200_000:
            _TEXT.clear()
        text = format_cards(sorted(cards))
        _TEXT[cards] = text
    return text


def hand_text(hand: Hand) -> str:
    counts = hand.counts
    return " ".join([_REPEAT[f][counts[f]] for f in range(NUM_FACES) if counts[f]])


def _plays_of(key: tuple[int | None, int] | None) -> dict[tuple[int, ...], tuple[str, int, str]]:
    known = _PLAY.get(key)
    if known is None:
        known = {}
        _PLAY[key] = known
    return known


def _play_text(
    cards: tuple[Card, ...],
    eff: tuple[int, ...] | None,
    known: dict[tuple[int, ...], tuple[str, int, str]],
) -> tuple[str, int, str]:
    suit = "mixed"
    if eff is not None and cards:
        e = eff[cards[0]]
        same = True
        for c in cards:
            if eff[c] != e:
                same = False
                break
        if same:
            suit = SUIT_NAMES[e]
    if len(known) > 3_000:  # at most 66 trumps: ~200,000 plays kept in all
        known.clear()
    hit = (cards_text(cards), len(cards), suit)
    known[cards] = hit
    return hit


def component_text(c: Component) -> tuple[str, str]:
    """(card text, shape name) of a lead component, cached by its width and faces (all the text
    depends on; a key of plain tuples hashes faster than the value type)."""
    key = (c.width, c.faces)
    hit = _COMPONENT.get(key)
    if hit is None:
        if len(_COMPONENT) > 100_000:
            _COMPONENT.clear()
        hit = (format_cards(sorted(c.cards())), component_shape(c))
        _COMPONENT[key] = hit
    return hit


def component_shape(c: Component) -> str:
    if c.is_tractor:
        return f"tractor<{'-'.join([str(c.width)] * c.length)}>"
    return c.kind


def lead_shape(trick: TrickRecord) -> str:
    if len(trick.components) == 1:
        return component_shape(trick.components[0])
    return "throw"


def played_at(text: str | None) -> datetime | None:
    """RFC 3339 UTC text to a naive UTC datetime (the store's TIMESTAMP has no zone)."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def clean_text(text: str) -> str:
    """Text safe for a VARCHAR: bytes that were not UTF-8 (kept by the reader as lone surrogates)
    are written as `\\xNN` escapes, so a rejected line is stored as close to the file as can be."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text


def options_json(rules: RuleSet) -> str:
    """`hands.rules_options`: the options that differ from the preset, as JSON. Remembered per
    rule set: a corpus uses a few, and listing a rule set's options and writing them took 22 µs
    a hand (2 µs remembered)."""
    text = _OPTIONS_TEXT.get(rules)
    if text is None:
        if len(_OPTIONS_TEXT) > 1_000:
            _OPTIONS_TEXT.clear()
        text = json.dumps(rules.options(), sort_keys=True, separators=(",", ":"))
        _OPTIONS_TEXT[rules] = text
    return text


def trump_context(r: HandReplay) -> TrumpContext | None:
    if r.trump is None or r.level is None:
        return None
    try:
        return (
            parse_trump(r.trump, r.level)
            if r.rules is None
            else rules_trump(r.trump, r.level, r.rules)
        )
    except ValueError:
        return None


def _trump_faces(ctx: TrumpContext) -> list[int]:
    key = (ctx.suit, ctx.level)
    faces = _TRUMP_FACES.get(key)
    if faces is None:
        faces = [f for f in range(NUM_FACES) if ctx.eff[f] == 4]
        _TRUMP_FACES[key] = faces
    return faces


def _trumps(hand: Hand | None, trump_faces: list[int] | None) -> int | None:
    if hand is None or trump_faces is None:
        return None
    counts = hand.counts
    n = 0
    for f in trump_faces:
        n += counts[f]
    return n


def _points(counts: tuple[int, ...]) -> tuple[int, int]:
    """(point cards, their points) of a holding."""
    cards = points = 0
    for i in range(len(_POINT_FACES)):
        n = counts[_POINT_FACES[i]]
        cards += n
        points += n * _POINT_VALUES[i]
    return cards, points


def seat_bits(tricks: tuple[TrickRecord, ...]) -> tuple[int, int, int, int]:
    """`hands.throw_seats`, `failed_throw_seats`, `stood_throw_seats` and `ruff_seats`: which
    seats led a throw (that failed, that stood) or won a trick by a ruff, one bit per seat, so
    the hand finder narrows by them on `hands` without reading `tricks`."""
    threw = failed = stood = ruffed = 0
    for t in tricks:
        throw = t.throw
        if throw is not None:
            bit = 1 << t.leader
            threw |= bit
            if throw.failed:
                failed |= bit
            else:
                stood |= bit
        winner = t.winner
        for p in t.plays:
            if p.seat == winner and p.kind == "ruff":
                ruffed |= 1 << winner
    return threw, failed, stood, ruffed


def throw_reading(
    attempted: tuple[Card, ...], ctx: TrumpContext | None, rules: RuleSet | None
) -> tuple[int | None, str | None]:
    """R4.2: the attempted throw's component count and shape, read again from its cards (the
    trick row of a failed throw shows only the forced component); None when it cannot be read."""
    if ctx is None or rules is None:
        return (None, None)
    try:
        reading = read_lead(attempted, ctx, rules)
    except PlayError:
        return (None, None)
    comps = reading.components
    return (len(comps), "+".join([component_text(c)[1] for c in comps]))


def add_hand(
    out: HandRows,
    r: HandReplay,
    review: StoredReview,
    *,
    file: str,
    line: int,
    digest: str,
    run_id: int,
    seq: int,
) -> None:
    """Append the rows of one keyed hand (`r.source` and `r.hand_id` set): `digest` is the
    sha256 of its line as read, `seq` its index in the batch (every row's last value)."""
    ctx = trump_context(r)
    rules = r.rules
    players = (*r.players, None, None, None, None)[:4]
    bottom = r.bottom
    change = r.level_change
    banker = r.banker
    tricks = r.tricks
    sound = set(review.sound)
    skipped = set(review.skipped)
    attackers = r.attackers_points
    trick_points: int | None
    if attackers is not None and bottom is not None:
        trick_points = attackers - bottom.points
    else:
        trick_points = tricks[-1].attackers_total if tricks else None
    levels = r.levels
    out.hands.append(
        (
            r.source,
            r.hand_id,
            file,
            r.line if r.line is not None else line,
            r.match_id,
            r.hand_no,
            played_at(r.played_at),
            rules.preset if rules is not None else None,
            options_json(rules) if rules is not None else None,
            rules.decks if rules is not None else None,
            rules.ace_low_tractor if rules is not None else None,
            rules.failed_throw_forced if rules is not None else None,
            rules.throw_penalty_points if rules is not None else None,
            rules.bottom_multiplier if rules is not None else None,
            rules.level_step if rules is not None else None,
            *players,
            banker,
            None if banker is None else banker % 2,
            None if r.level is None else rank_token(r.level),
            None if levels is None else rank_token(levels[0]),
            None if levels is None else rank_token(levels[1]),
            r.trump,
            r.trump_source,
            r.end,
            r.status,
            len(r.findings),
            len(tricks),
            *seat_bits(tricks),
            attackers,
            trick_points,
            bottom.bottom_points if bottom is not None else None,
            bottom.captured if bottom is not None else None,
            bottom.winner if bottom is not None else None,
            bottom.lead_shape if bottom is not None else None,
            bottom.multiplier if bottom is not None else None,
            bottom.points if bottom is not None else None,
            change.team if change is not None else None,
            change.levels if change is not None else None,
            change.banker_won if change is not None else None,
            r.next_banker,
            r.content_hash or digest,
            digest,
            run_id,
            seq,
        )
    )
    _seats(out.seats, r, ctx, sound, skipped, seq)
    bids = out.bids
    for i, b in enumerate(r.bids, 1):
        bids.append(
            (
                r.source,
                r.hand_id,
                i,
                b.seat,
                b.kind,
                cards_text(b.cards),
                len(b.cards),
                b.dealt,
                b.trump,
                b.valid,
                cards_text(b.buried) if b.buried else None,
                seq,
            )
        )
    _tricks(out, r, ctx, sound, skipped, seq)
    findings = out.findings
    for i, f in enumerate(r.findings, 1):
        findings.append(
            (
                r.source,
                r.hand_id,
                i,
                f.code,
                f.trick,
                f.seat,
                clean_text(f.reason),
                f.line if f.line else r.line,
                seq,
            )
        )
    _decisions(out.decisions, review, r.source, r.hand_id, seq)


def _decisions(out: list[Row], review: StoredReview, source: str, hand_id: str, seq: int) -> None:
    """A row per decision except the fourth seats judged sound or skipped, which are only
    ever counted: `seats.last_seat_ok`, `seats.last_seat_skipped` and the tricks' columns of
    those names hold them (docs/schema.md)."""
    numbers = review.numbers
    decisions = review.decisions
    if len(numbers) != len(decisions):
        raise ValueError("a review's numbers and decisions differ in length")
    for k in range(len(decisions)):
        d = decisions[k]
        better = d.better
        out.append(
            (
                source,
                hand_id,
                numbers[k],
                d.trick,
                d.seat,
                d.kind,
                d.code,
                d.severity,
                d.is_mistake,
                float(d.cost),
                cards_text(d.play),
                None if better is None else cards_text(better),
                d.p_fail,
                d.p_error,
                d.outcome,
                clean_text(d.reason),
                seq,
            )
        )


def _seats(
    out: list[Row],
    r: HandReplay,
    ctx: TrumpContext | None,
    sound: set[int],
    skipped: set[int],
    seq: int,
) -> None:
    if len(r.players) != 4:
        return
    won = [0, 0, 0, 0]
    points_won = [0, 0, 0, 0]
    led = [0, 0, 0, 0]
    throws = [0, 0, 0, 0]
    failed = [0, 0, 0, 0]
    ruffs = [0, 0, 0, 0]
    sound_at = [0, 0, 0, 0]
    skipped_at = [0, 0, 0, 0]
    for t in r.tricks:
        if t.number in sound:
            sound_at[t.plays[3].seat] += 1
        elif t.number in skipped:
            skipped_at[t.plays[3].seat] += 1
        won[t.winner] += 1
        points_won[t.winner] += t.points
        led[t.leader] += 1
        throw = t.throw
        if throw is not None:
            throws[t.leader] += 1
            if throw.failed:
                failed[t.leader] += 1
        for p in t.plays:
            if p.kind == "ruff":
                ruffs[p.seat] += 1
    by_seat = [0, 0, 0, 0]
    for f in r.findings:
        s = f.seat
        if s is not None and 0 <= s < 4:
            by_seat[s] += 1
    banker = r.banker
    trump_faces = None if ctx is None else _trump_faces(ctx)
    personas: tuple[SeatPersona, ...] = (
        r.personas if len(r.personas) == 4 else (NO_PERSONA, NO_PERSONA, NO_PERSONA, NO_PERSONA)
    )
    has_start = len(r.start) == 4
    ladder = r.ladder_points
    for seat in range(4):
        start = r.start[seat] if has_start else None
        before = r.banker_before_bury if seat == banker else None
        persona = personas[seat]
        points: tuple[int, int] | None = None if start is None else _points(start.counts)
        out.append(
            (
                r.source,
                r.hand_id,
                seat,
                r.players[seat],
                persona.style,
                persona.persona,
                seat % 2,
                None if banker is None else ROLES[(seat - banker) % 4],
                None if start is None else hand_text(start),
                None if start is None else sum(start.counts),
                _trumps(start, trump_faces),
                None if before is None else hand_text(before),
                None if before is None else _trumps(before, trump_faces),
                None if points is None else points[0],
                None if points is None else points[1],
                points_won[seat],
                won[seat],
                led[seat],
                throws[seat],
                failed[seat],
                ruffs[seat],
                None if ladder is None else ladder[seat],
                by_seat[seat],
                sound_at[seat],
                skipped_at[seat],
                seq,
            )
        )


def _tricks(
    out: HandRows,
    r: HandReplay,
    ctx: TrumpContext | None,
    sound: set[int],
    skipped: set[int],
    seq: int,
) -> None:
    tricks = out.tricks
    plays = out.plays
    eff = ctx.eff if ctx is not None else None
    known = _plays_of(None if ctx is None else (ctx.suit, ctx.level))
    source = r.source
    hand_id = r.hand_id
    for t in r.tricks:
        throw = t.throw
        number = t.number
        winner = t.winner
        winner_kind: str | None = None
        for pos, p in enumerate(t.plays, 1):
            cards = p.cards
            if p.seat == winner:
                winner_kind = p.kind
            hit = known.get(cards)
            if hit is None:
                hit = _play_text(cards, eff, known)
            plays.append(
                (
                    source,
                    hand_id,
                    number,
                    pos,
                    p.seat,
                    hit[0],
                    hit[1],
                    hit[2],
                    p.kind,
                    p.legal,
                    p.index,
                    seq,
                )
            )
        comps = t.components
        if len(comps) == 1:
            text, shape = component_text(comps[0])
        else:
            text = " | ".join([component_text(c)[0] for c in comps])
            shape = "throw"
        reading: tuple[int | None, str | None] = (None, None)
        if throw is not None:
            reading = throw_reading(throw.attempted, ctx, r.rules)
        tricks.append(
            (
                source,
                hand_id,
                number,
                t.leader,
                t.leader % 2,
                SUIT_NAMES[t.suit],
                shape,
                len(comps),
                text,
                len(t.plays[0].cards) if t.plays else 0,
                throw is not None,
                None if throw is None else throw.failed,
                None if throw is None else cards_text(throw.attempted),
                reading[0],
                reading[1],
                None if throw is None or throw.forced is None else cards_text(throw.forced),
                None if throw is None else throw.blocker,
                None
                if throw is None or throw.blocking_component is None
                else cards_text(throw.blocking_component),
                winner,
                winner % 2,
                t.points,
                winner_kind == "ruff",
                t.attackers_total,
                t.reason,
                number in sound,
                number in skipped,
                seq,
            )
        )
