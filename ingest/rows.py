"""Replays to rows: a batch of HandReplay values becomes one Arrow table per store table.

Rows are built as tuples in the column order of `ingest.schema` and transposed once per batch, the
cheapest way to go from Python objects to Arrow. Every hand row and child row carries `_seq`, the
hand's index in its batch, so the writer can drop a duplicate hand's rows even when the same key
occurs twice in one batch; `_seq` never reaches the database.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from shengji.cards import NUM_FACES, Hand, card_points, format_cards, rank_token
from shengji.combos import PlayError, read_lead
from shengji.replay import REJECTING
from shengji.results import NO_PERSONA, Finding, HandReplay, TrickRecord
from shengji.review import NOTHING_STORED, StoredReview, review_for_store
from shengji.rules import RuleSet
from shengji.shape import Component
from shengji.trump import SUIT_NAMES, TrumpContext, parse_trump

from .schema import (
    BIDS,
    DECISIONS,
    FINDINGS,
    HAND_TABLES,
    HANDS,
    PLAYS,
    REJECTS,
    SEATS,
    TRICKS,
    Table,
)

SEQ = "_seq"
ROLES = ("banker", "attacker", "banker_partner", "attacker")
"""Role by (seat - banker) mod 4."""


_TEXT: dict[tuple[int, ...], str] = {}
"""Card-list text by card tuple. Plays repeat (most are one to four cards), so a cache turns the
costliest step of building rows into a dict lookup; bounded by clearing."""
_REPEAT = tuple(
    tuple(" ".join([format_cards((f,))] * n) for n in range(9)) for f in range(NUM_FACES)
)
_POINT_FACES = tuple(f for f in range(NUM_FACES) if card_points(f))
_POINT_VALUES = tuple((f, card_points(f)) for f in _POINT_FACES)
_TRUMP_FACES: dict[tuple[int | None, int], list[int]] = {}
"""The trump faces of each (trump suit, level)."""


def _cards(cards: tuple[int, ...]) -> str:
    """Card tokens in face order: canonical text, so `cards = 'AS AS'` finds every such play."""
    text = _TEXT.get(cards)
    if text is None:
        if len(_TEXT) > 200_000:
            _TEXT.clear()
        text = _TEXT[cards] = format_cards(sorted(cards))
    return text


def _hand_text(hand: Hand) -> str:
    return " ".join([_REPEAT[f][n] for f, n in enumerate(hand.counts) if n])


TrumpKey = tuple[int | None, int] | None
PlayText = dict[tuple[int, ...], tuple[str, int, str]]
_PLAY: dict[TrumpKey, PlayText] = {}
"""(text, card count, effective suit) of a play by (trump suit, level), then cards: one dict per
trump, looked up once a hand, so a play's lookup hashes only its cards."""


def _plays_of(trump_key: TrumpKey) -> PlayText:
    known = _PLAY.get(trump_key)
    if known is None:
        known = _PLAY[trump_key] = {}
    return known


def _play_text(
    cards: tuple[int, ...], eff: tuple[int, ...] | None, known: PlayText
) -> tuple[str, int, str]:
    suit = "mixed"
    if eff is not None and cards:
        e = eff[cards[0]]
        if all(eff[c] == e for c in cards):
            suit = SUIT_NAMES[e]
    if len(known) > 3_000:  # at most 66 trumps: ~200,000 plays kept in all
        known.clear()
    hit = known[cards] = (_cards(cards), len(cards), suit)
    return hit


_COMPONENT: dict[tuple[int, tuple[int, ...]], tuple[str, str]] = {}


def _component(c: Component) -> tuple[str, str]:
    """(card text, shape name) of a lead component, cached like `_cards` by its width and faces
    (all the text depends on; a key of plain tuples hashes faster than the dataclass)."""
    key = (c.width, c.faces)
    hit = _COMPONENT.get(key)
    if hit is None:
        if len(_COMPONENT) > 100_000:
            _COMPONENT.clear()
        hit = _COMPONENT[key] = (format_cards(sorted(c.cards())), component_shape(c))
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


def line_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def is_keyed(r: HandReplay) -> bool:
    """A hand with both key parts known gets `hands` rows; one without lives in `rejects` only."""
    return bool(r.source) and bool(r.hand_id)


@dataclass
class Batch:
    """What one worker hands to the writer: Arrow tables by store table, and what it counted."""

    file: str
    tables: dict[str, pa.Table]
    lines: int
    status: Counter[str] = field(default_factory=Counter)
    findings: Counter[str] = field(default_factory=Counter)


class BatchBuilder:
    def __init__(self, file: str, run_id: int) -> None:
        self.file = file
        self.run_id = run_id
        self.seq = 0
        self.rows: dict[str, list[tuple[Any, ...]]] = {
            t.name: [] for t in (HANDS, SEATS, BIDS, TRICKS, PLAYS, FINDINGS, DECISIONS, REJECTS)
        }
        self.lines = 0
        self.status: Counter[str] = Counter()
        self.findings: Counter[str] = Counter()
        self.review_errors = 0
        self._raw: dict[int, str] = {}
        """Each keyed hand's line by line number, for a reject if its rows cannot be stored."""

    def add(self, r: HandReplay, raw: str, line: int) -> None:
        """One line's replay. Rows that cannot be built from it (a program gap: a value the parser
        let through that the code or the store cannot take) make the line an `internal` reject
        instead: one line's rows are added whole or not at all."""
        marks = {name: len(rows) for name, rows in self.rows.items()}
        try:
            self._add(r, raw, line)
        except Exception as e:
            for name, rows in self.rows.items():
                del rows[marks[name] :]
            self.internal(line, raw, f"could not make rows of the replay: {type(e).__name__}: {e}")
            return
        self.lines += 1
        self.status[r.status] += 1
        for f in r.findings:
            self.findings[f.code] += 1
        if is_keyed(r):
            self.seq += 1

    def internal(self, line: int, raw: str, reason: str) -> None:
        """The line becomes a reject with code `internal`: a program error, kept with the line."""
        self.lines += 1
        self.status["rejected"] += 1
        self.findings["internal"] += 1
        self.rows["rejects"].append(
            (
                self.file,
                line,
                None,
                None,
                "internal",
                clean_text(reason),
                clean_text(raw),
                self.run_id,
            )
        )

    def _add(self, r: HandReplay, raw: str, line: int) -> None:
        if r.status == "rejected":
            why = rejecting_finding(r)
            self.rows["rejects"].append(
                (
                    self.file,
                    line,
                    clean_text(r.source) or None,
                    clean_text(r.hand_id) or None,
                    why.code if why else "rejected",
                    clean_text(why.reason) if why else "could not be replayed",
                    clean_text(raw),
                    self.run_id,
                )
            )
        if is_keyed(r):
            self._hand(r, raw, line)
            _check_row(HANDS, self.rows["hands"][-1])
            self._raw[line] = raw

    def file_error(self, line: int, reason: str) -> None:
        """A file that could not be read on from `line`: one `rejects` row, not a hand."""
        self.rows["rejects"].append(
            (self.file, line, None, None, "file_error", clean_text(reason), "", self.run_id)
        )

    def _hand(self, r: HandReplay, raw: str, line: int) -> None:
        seq = self.seq
        key = (r.source, r.hand_id)
        ctx = _context(r)
        rules = r.rules
        players = (*r.players, None, None, None, None)[:4]
        bottom = r.bottom
        change = r.level_change
        banker = r.banker
        tricks = r.tricks
        digest = line_hash(raw)
        review = self._review(r)
        sound: set[int | None] = set(review.sound)
        skipped: set[int | None] = set(review.skipped)
        if r.attackers_points is not None and bottom is not None:
            trick_points: int | None = r.attackers_points - bottom.points
        else:
            trick_points = tricks[-1].attackers_total if tricks else None
        self.rows["hands"].append(
            (
                *key,
                self.file,
                r.line if r.line is not None else line,
                r.match_id,
                r.hand_no,
                played_at(r.played_at),
                rules.preset if rules else None,
                _options_json(rules) if rules else None,
                rules.decks if rules else None,
                rules.ace_low_tractor if rules else None,
                rules.failed_throw_forced if rules else None,
                rules.throw_penalty_points if rules else None,
                rules.bottom_multiplier if rules else None,
                rules.level_step if rules else None,
                *players,
                banker,
                None if banker is None else banker % 2,
                None if r.level is None else rank_token(r.level),
                None if r.levels is None else rank_token(r.levels[0]),
                None if r.levels is None else rank_token(r.levels[1]),
                r.trump,
                r.trump_source,
                r.end,
                r.status,
                len(r.findings),
                len(tricks),
                *_seat_bits(tricks),
                r.attackers_points,
                trick_points,
                bottom.bottom_points if bottom else None,
                bottom.captured if bottom else None,
                bottom.winner if bottom else None,
                bottom.lead_shape if bottom else None,
                bottom.multiplier if bottom else None,
                bottom.points if bottom else None,
                change.team if change else None,
                change.levels if change else None,
                change.banker_won if change else None,
                r.next_banker,
                r.content_hash or digest,
                digest,
                self.run_id,
                seq,
            )
        )
        self._seats(r, key, seq, ctx, sound, skipped)
        bids = self.rows["bids"]
        for i, b in enumerate(r.bids, 1):
            bids.append(
                (
                    *key,
                    i,
                    b.seat,
                    b.kind,
                    _cards(b.cards),
                    len(b.cards),
                    b.dealt,
                    b.trump,
                    b.valid,
                    _cards(b.buried) if b.buried else None,
                    seq,
                )
            )
        self._tricks(r, key, seq, ctx, sound, skipped)
        findings = self.rows["findings"]
        for i, f in enumerate(r.findings, 1):
            findings.append(
                (
                    *key,
                    i,
                    f.code,
                    f.trick,
                    f.seat,
                    clean_text(f.reason),
                    f.line if f.line else r.line,
                    seq,
                )
            )
        self._decisions(review, key, seq)

    def _review(self, r: HandReplay) -> StoredReview:
        """The coaching review's judged decisions (docs/review.md). The review is pure and judges
        only what the replay accepted; should it fail on a hand, that hand has no decisions
        rather than the batch failing (`review_errors` counts them)."""
        try:
            return review_for_store(r)
        except Exception:  # a review bug must not take the batch down
            self.review_errors += 1
            return NOTHING_STORED

    def _decisions(self, review: StoredReview, key: tuple[str, str], seq: int) -> None:
        """A row per decision except the fourth seats judged sound or skipped, which are only
        ever counted: `seats.last_seat_ok`, `seats.last_seat_skipped` and the tricks' columns of
        those names hold them (docs/schema.md)."""
        rows = self.rows["decisions"]
        for i, d in zip(review.numbers, review.decisions, strict=True):
            rows.append(
                (
                    *key,
                    i,
                    d.trick,
                    d.seat,
                    d.kind,
                    d.code,
                    d.severity,
                    d.is_mistake,
                    float(d.cost),
                    _cards(d.play),
                    None if d.better is None else _cards(d.better),
                    d.p_fail,
                    d.p_error,
                    d.outcome,
                    clean_text(d.reason),
                    seq,
                )
            )

    def _seats(
        self,
        r: HandReplay,
        key: tuple[str, str],
        seq: int,
        ctx: TrumpContext | None,
        sound: set[int | None],
        skipped: set[int | None],
    ) -> None:
        if len(r.players) != 4:
            return
        won = [0] * 4
        points_won = [0] * 4
        led = [0] * 4
        throws = [0] * 4
        failed = [0] * 4
        ruffs = [0] * 4
        sound_at = [0] * 4
        skipped_at = [0] * 4
        for t in r.tricks:
            if t.number in sound:
                sound_at[t.plays[3].seat] += 1
            elif t.number in skipped:
                skipped_at[t.plays[3].seat] += 1
            won[t.winner] += 1
            points_won[t.winner] += t.points
            led[t.leader] += 1
            if t.throw is not None:
                throws[t.leader] += 1
                failed[t.leader] += t.throw.failed
            for p in t.plays:
                if p.kind == "ruff":
                    ruffs[p.seat] += 1
        by_seat = Counter(f.seat for f in r.findings if f.seat is not None)
        banker = r.banker
        seats = self.rows["seats"]
        trump_faces = None if ctx is None else _trump_faces(ctx)
        personas = r.personas if len(r.personas) == 4 else (NO_PERSONA,) * 4
        for seat in range(4):
            start = r.start[seat] if len(r.start) == 4 else None
            before = r.banker_before_bury if seat == banker else None
            persona = personas[seat]
            counts = None if start is None else start.counts
            seats.append(
                (
                    *key,
                    seat,
                    r.players[seat],
                    persona.style,
                    persona.persona,
                    seat % 2,
                    None if banker is None else ROLES[(seat - banker) % 4],
                    None if start is None else _hand_text(start),
                    None if start is None else sum(start.counts),
                    _trumps(start, trump_faces),
                    None if before is None else _hand_text(before),
                    None if before is None else _trumps(before, trump_faces),
                    None if counts is None else sum([counts[f] for f in _POINT_FACES]),
                    None if counts is None else sum([counts[f] * v for f, v in _POINT_VALUES]),
                    points_won[seat],
                    won[seat],
                    led[seat],
                    throws[seat],
                    failed[seat],
                    ruffs[seat],
                    None if r.ladder_points is None else r.ladder_points[seat],
                    by_seat[seat],
                    sound_at[seat],
                    skipped_at[seat],
                    seq,
                )
            )

    def _tricks(
        self,
        r: HandReplay,
        key: tuple[str, str],
        seq: int,
        ctx: TrumpContext | None,
        sound: set[int | None],
        skipped: set[int | None],
    ) -> None:
        tricks = self.rows["tricks"]
        plays = self.rows["plays"]
        append = plays.append
        eff = ctx.eff if ctx is not None else None
        known = _plays_of(None if ctx is None else (ctx.suit, ctx.level))
        source, hand_id = key
        for t in r.tricks:
            throw = t.throw
            number = t.number
            winner = t.winner
            winner_kind = None
            for pos, p in enumerate(t.plays, 1):
                cards = p.cards
                if p.seat == winner:
                    winner_kind = p.kind
                hit = known.get(cards)
                if hit is None:
                    hit = _play_text(cards, eff, known)
                text, n, suit = hit
                append(
                    (
                        source,
                        hand_id,
                        number,
                        pos,
                        p.seat,
                        text,
                        n,
                        suit,
                        p.kind,
                        p.legal,
                        p.index,
                        seq,
                    )
                )
            comps = t.components
            if len(comps) == 1:
                text, shape = _component(comps[0])
            else:
                text, shape = " | ".join([_component(c)[0] for c in comps]), "throw"
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
                    None if throw is None else _cards(throw.attempted),
                    *((None, None) if throw is None else _throw_reading(throw.attempted, ctx, r)),
                    None if throw is None or throw.forced is None else _cards(throw.forced),
                    None if throw is None else throw.blocker,
                    None
                    if throw is None or throw.blocking_component is None
                    else _cards(throw.blocking_component),
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

    def finish(self) -> Batch:
        try:
            tables = self._tables()
        except _ARROW_ERRORS:
            self._drop_unconvertible()
            tables = self._tables()
        return Batch(self.file, tables, self.lines, self.status, self.findings)

    def _tables(self) -> dict[str, pa.Table]:
        return {
            t.name: to_arrow(t, self.rows[t.name], with_seq=t is not REJECTS)
            for t in (HANDS, SEATS, BIDS, TRICKS, PLAYS, FINDINGS, DECISIONS, REJECTS)
        }

    def _drop_unconvertible(self) -> None:
        """Arrow refused the batch: find the hands whose rows it refuses, one at a time (only on this
        rare path), and make each of them an `internal` reject."""
        bad: dict[int, str] = {}
        for t in HAND_TABLES:
            by_seq: dict[int, list[tuple[Any, ...]]] = {}
            for row in self.rows[t.name]:
                by_seq.setdefault(row[-1], []).append(row)
            for seq, rows in by_seq.items():
                if seq in bad:
                    continue
                try:
                    to_arrow(t, rows, with_seq=True)
                except _ARROW_ERRORS as e:
                    bad[seq] = f"{t.name}: {type(e).__name__}: {e}"
        hands = {row[-1]: row for row in self.rows["hands"]}
        lines = {hands[seq][_LINE]: reason for seq, reason in bad.items()}
        # `_seq` stays each hand's index in the hands table (the writer relies on it).
        renumber = {old: new for new, old in enumerate(k for k in sorted(hands) if k not in bad)}
        for name, rows in self.rows.items():
            if name == "rejects":
                rows[:] = [r for r in rows if r[1] not in lines]
            else:
                rows[:] = [(*r[:-1], renumber[r[-1]]) for r in rows if r[-1] not in bad]
        self.seq = len(renumber)
        for seq in bad:
            row = hands[seq]
            self.lines -= 1
            self.status[row[_STATUS]] -= 1
            self.internal(row[_LINE], self._raw.get(row[_LINE], ""), f"could not store: {bad[seq]}")
        self.status += Counter()  # drop zero counts


def rejecting_finding(r: HandReplay) -> Finding | None:
    """The finding that made the hand rejected: the first with a rejecting code, else the last
    (a replay stops at the fault that rejects it, so that one comes last)."""
    for f in r.findings:
        if f.code in REJECTING:
            return f
    return r.findings[-1] if r.findings else None


_ARROW_ERRORS = (pa.ArrowException, OverflowError, UnicodeError, ValueError, TypeError)
_LINE = HANDS.column_names.index("line")
_STATUS = HANDS.column_names.index("status")
_INT_RANGE = {"INTEGER": (-(2**31), 2**31 - 1), "BIGINT": (-(2**63), 2**63 - 1)}


def _check_row(table: Table, row: tuple[Any, ...]) -> None:
    """Raise ValueError naming the column when a value does not fit its column: one bad hand must
    not make its whole batch unconvertible (Arrow would refuse the batch, not the row)."""
    for column, value in zip(table.columns, row, strict=False):
        if type(value) is int:
            bounds = _INT_RANGE.get(column.sql)
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                raise ValueError(f"{table.name}.{column.name} = {value} does not fit {column.sql}")
        elif type(value) is str and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(f"{table.name}.{column.name} is not Unicode text") from None


def to_arrow(table: Table, rows: list[tuple[Any, ...]], *, with_seq: bool) -> pa.Table:
    schema = table.arrow_schema
    if with_seq:
        schema = schema.append(pa.field(SEQ, pa.int32(), nullable=False))
    if not rows:
        # not schema.empty_table(): that imports pandas, 54 MB and half a second in each worker
        return pa.Table.from_batches([], schema=schema)
    if len(rows[0]) != len(schema):
        raise ValueError(f"{table.name}: rows have {len(rows[0])} values, schema {len(schema)}")
    # Tuples as one struct array, converted in C++: 5x faster than transposing them in Python
    # and building each column (measured on `plays`, ~180 rows a hand).
    return pa.Table.from_struct_array(pa.array(rows, type=pa.struct(list(schema))))


def _seat_bits(tricks: Sequence[TrickRecord]) -> tuple[int, int, int, int]:
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


_OPTIONS_TEXT: dict[RuleSet, str] = {}


def _options_json(rules: RuleSet) -> str:
    """`hands.rules_options`: the options that differ from the preset, as JSON. Remembered per
    rule set: a corpus uses a few, and listing a rule set's options and writing them took 22 µs
    a hand (2 µs remembered)."""
    text = _OPTIONS_TEXT.get(rules)
    if text is None:
        if len(_OPTIONS_TEXT) > 1_000:
            _OPTIONS_TEXT.clear()
        text = _OPTIONS_TEXT[rules] = json.dumps(
            rules.options(), sort_keys=True, separators=(",", ":")
        )
    return text


def _throw_reading(
    attempted: tuple[int, ...], ctx: TrumpContext | None, r: HandReplay
) -> tuple[int | None, str | None]:
    """R4.2: the attempted throw's component count and shape, read again from its cards (the
    trick row of a failed throw shows only the forced component); None when it cannot be read."""
    if ctx is None or r.rules is None:
        return (None, None)
    try:
        reading = read_lead(attempted, ctx, r.rules)
    except PlayError:
        return (None, None)
    comps = reading.components
    return (len(comps), "+".join(_component(c)[1] for c in comps))


def _context(r: HandReplay) -> TrumpContext | None:
    if r.trump is None or r.level is None:
        return None
    try:
        return parse_trump(r.trump, r.level)
    except ValueError:
        return None


def _trump_faces(ctx: TrumpContext) -> list[int]:
    key = (ctx.suit, ctx.level)
    faces = _TRUMP_FACES.get(key)
    if faces is None:
        faces = _TRUMP_FACES[key] = [f for f in range(NUM_FACES) if ctx.eff[f] == 4]
    return faces


def _trumps(hand: Hand | None, trump_faces: list[int] | None) -> int | None:
    if hand is None or trump_faces is None:
        return None
    counts = hand.counts
    return sum(counts[f] for f in trump_faces)
