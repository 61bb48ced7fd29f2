"""The replay engine: one `tractor-hh/1` hand in, one `HandReplay` out (docs/findings.md).

`replay_line` never raises for a data fault: a line that cannot be read becomes a rejected replay
(its `hand_id` taken from the JSON when it can be), and every rule fault becomes a `Finding`. A
hand is `ok` (no finding), `flagged` (replayed to the end with findings: an illegal play the table
accepted is replayed as played) or `rejected` (the replay could not go on; the tricks before the
fault are kept). A program error is not a data fault: with `strict` (tests) it raises with the hand
id attached; in a batch (`strict=False`) it becomes an `internal` finding and the batch goes on.

The walk: the deal gives each seat its cards and the bottom; `bidding.settle` applies the shows,
the bury and the fries; then the plays are grouped into tricks of four — the banker leads the
first, each trick's winner the next (R6.4). Holdings are count lists changed in place, so the
per-play path does no parsing and builds no `Hand` unless a rule needs one.

Throw claims (R4.4). The replay decides every throw itself (`throws.check_throw`) and compares
the log's `forced` claim:
- a claim that is not one component of the attempted cards is a finding and is ignored;
- a claim on a throw that stands, or naming another component than the replay forces, is a
  `throw_claim_mismatch`; the table made the leader play the claimed component, so the trick is
  replayed that way (and counts as a failed throw for R4.5/R7.5);
- no claim on a throw that fails is no finding (the claim is optional); the forced component is
  played, unless the next play holds as many cards as the whole throw: then the table let the
  throw stand, which is a `throw_claim_mismatch`, and the throw is replayed as standing.
A stated `split` that is not a split of the lead into units and tractors is a `bad_split`; the
lead is then read by R4.2.

Hands that stop early: `abandoned` replays the plays there are and scores nothing (no bottom,
level change, next banker or ladder points; `attackers_points` stays None — each trick's running
total is still there). A `complete` hand whose plays run out before every card is played is an
`incomplete_hand` (flagged) and is scored nothing either. The plays of a trick cut short are
checked but make no TrickRecord.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Final

from .bidding import Bidding, settle
from .botzone2023 import JUDGE_FAILS
from .cards import Card, Hand, full_deck, pretty_card
from .combos import (
    PlayError,
    as_component,
    cached_component,
    component_cache,
    effective_suit,
    read_lead,
    reading_cache,
)
from .follow import FollowVerdict, check_follow, follow_is_legal, play_kind
from .hhfile import MAX_LINE_BYTES, Line, too_long_reason
from .record import (
    HandRecord,
    Play,
    RecordError,
    format_hand,
    hand_from_json,
    load_json,
    split_deal,
)
from .results import (
    BottomResult,
    Finding,
    HandReplay,
    LevelChange,
    PlayKind,
    PlayRecord,
    Status,
    ThrowOutcome,
    TrickRecord,
    read_personas,
)
from .rules import RuleSet
from .scoring import (
    bottom_score,
    is_attacker,
    ladder_points,
    level_change,
    next_banker,
    throw_penalty,
)
from .shape import Component, Reading
from .throws import check_throw
from .trick import botzone_judge_fault, resolve_trick
from .trump import TRUMP, TrumpContext

REJECTING: Final = frozenset(
    (
        "bad_json",
        "bad_record",
        "deck_mismatch",
        "no_show",
        "out_of_turn",
        "not_in_hand",
        "wrong_count",
        "mixed_lead",
        "internal",
    )
)
"""Codes after which the replay cannot go on. `bad_bury` rejects only when the holdings become
unknowable (cards not held, not 8 cards); bidding decides that and says so."""

_SUIT_WORD: Final = ("♠", "♥", "♣", "♦", "trump")


def _pretty(cards: Iterable[Card]) -> str:
    return " ".join(pretty_card(c) for c in cards) or "(none)"


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def shape_name(reading: Reading) -> str:
    """`single`, `pair`, `triple`, `quad`, `tractor<2-2>` or `throw` (BottomResult.lead_shape)."""
    if reading.is_throw:
        return "throw"
    comp = reading.components[0]
    if comp.is_tractor:
        return "tractor<" + "-".join([str(comp.width)] * comp.length) + ">"
    return comp.kind


def quick_follow(held: int, inside: int, size: int) -> bool | None:
    """R5 from counts alone, for a follower who held `held` cards of the led suit and played
    `inside` of them in a play of the lead's `size`: True/False, or None when only the lead's
    ladder (`follow.check_follow`) can tell. R5.2: short of the suit, play all of it; R5.3: with
    enough, play only the suit, and for a single lead any card of it will do."""
    if held < size:
        return inside == held
    if inside < size:
        return False
    return True if size == 1 else None


def same_shape(lead: Reading, cards: Sequence[Card], trump: TrumpContext, rules: RuleSet) -> bool:
    """A play of the led suit with exactly the shape of a one-component lead meets the first rung
    of its ladder (R5.3), so it is legal whatever else was held; False means "not known"."""
    if len(lead.components) != 1:
        return False
    comp = as_component(cards, trump, rules)
    return comp is not None and comp.shape() == lead.components[0].shape()


# --- entry points ------------------------------------------------------------------------------


def replay_line(
    text: str, *, line: int | None = None, file: str | None = None, strict: bool = True
) -> HandReplay:
    """Replay one line of a hand-history file. Data faults never raise (see the module doc)."""
    try:
        obj = load_json(text)
    except RecordError as e:
        return _unreadable(text, "bad_json", str(e), line, "", "")
    try:
        record = hand_from_json(obj, text)
    except RecordError as e:
        hand_id = obj.get("hand_id")
        source = obj.get("source")
        return _unreadable(
            text,
            "bad_record",
            str(e),
            line,
            _key_part(hand_id),
            _key_part(source),
        )
    return replay_record(record, line=line, file=file, strict=strict)


def replay_file_line(
    line: Line, *, file: str | None = None, strict: bool = True, limit: int = MAX_LINE_BYTES
) -> HandReplay:
    """Replay a line as `hhfile.read_lines` gives it: one over the length limit is rejected as
    `line_too_long`, its beginning kept as the text."""
    if line.too_long:
        reason = too_long_reason(line.size, limit)
        return _unreadable(line.text, "line_too_long", reason, line.number, "", "")
    return replay_line(line.text, line=line.number, file=file, strict=strict)


def replay_lines(
    lines: Iterable[tuple[int, str]], *, file: str | None = None, strict: bool = False
) -> Iterator[HandReplay]:
    """Replay (line number, text) pairs, e.g. `hhfile.iter_lines(path)`; a batch by default."""
    for number, text in lines:
        yield replay_line(text, line=number, file=file, strict=strict)


def replay_record(
    record: HandRecord, *, line: int | None = None, file: str | None = None, strict: bool = True
) -> HandReplay:
    """Replay a parsed hand (see the module doc)."""
    try:
        return _Replay(record, line).run()
    except Exception as e:
        where = f"{file or '<input>'}:{line}" if line is not None else (file or "<input>")
        if strict:
            e.add_note(f"while replaying hand {record.hand_id!r} of {record.source!r} ({where})")
            raise
        finding = Finding("internal", f"internal error: {type(e).__name__}: {e}", None, None, line)
        return HandReplay(
            record.hand_id,
            record.source,
            "rejected",
            (finding,),
            line,
            match_id=record.match_id,
            hand_no=record.hand_no,
            played_at=record.played_at,
            rules=record.rules,
            players=record.players,
            levels=record.levels,
            end=record.end,
            content_hash=_safe_hash(record),
        )


def _key_part(value: object) -> str:
    """A rejected line's `hand_id` or `source` as far as it can be kept: a string of Unicode text
    (a lone surrogate cannot be stored or shown), else ""."""
    if not isinstance(value, str):
        return ""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return ""
    return value


def _safe_hash(record: HandRecord) -> str:
    try:
        return content_hash(format_hand(record))
    except Exception:
        return ""


def _unreadable(
    text: str, code: str, reason: str, line: int | None, hand_id: str, source: str
) -> HandReplay:
    finding = Finding(code, reason, None, None, line)
    return HandReplay(
        hand_id, source, "rejected", (finding,), line, content_hash=content_hash(text.strip())
    )


# --- the walk ----------------------------------------------------------------------------------


class _Lead:
    """What the leader actually played, and the throw outcome (read-only by convention: a plain
    class, cheaper to make than a frozen dataclass, one per trick)."""

    __slots__ = ("failed", "failing", "played", "reading", "throw")

    def __init__(
        self,
        played: tuple[Card, ...],
        reading: Reading,
        throw: ThrowOutcome | None,
        failed: bool,
        failing: int = 0,
    ) -> None:
        self.played = played
        self.reading = reading
        self.throw = throw
        self.failed = failed
        self.failing = failing
        """The cards of the throw's beaten components (`throw_penalty_per_card`)."""


class _Stop(Exception):
    """The replay cannot go on (a rejecting finding has been recorded)."""


class _Replay:
    def __init__(self, record: HandRecord, line: int | None) -> None:
        self.record = record
        self.line = line
        self.rules = record.rules
        self.findings: list[Finding] = []
        self.tricks: list[TrickRecord] = []
        # What the replay has established so far; unset fields stay at HandReplay's defaults.
        self.bid: Bidding | None = None
        self.dealt: tuple[Hand, ...] = ()
        self.bottom_dealt: tuple[Card, ...] = ()
        self.started = False
        self.failed: list[int] = []
        self.attackers_points: int | None = None
        self.bottom: BottomResult | None = None
        self.level_change: LevelChange | None = None
        self.next_banker: int | None = None
        self.ladder_points: tuple[int, int, int, int] | None = None

    # -- findings

    def flag(
        self, code: str, reason: str, trick: int | None = None, seat: int | None = None
    ) -> None:
        self.findings.append(Finding(code, reason, trick, seat, self.line))

    def stop(
        self, code: str, reason: str, trick: int | None = None, seat: int | None = None
    ) -> _Stop:
        self.flag(code, reason, trick, seat)
        return _Stop(code)

    # -- the hand

    def run(self) -> HandReplay:
        record = self.record
        rules = self.rules
        if sorted(record.deal.cards) != _FULL[rules.decks]:
            self.flag("deck_mismatch", _deck_reason(Hand.of(record.deal.cards), rules.decks))
            return self._result()
        dealt, bottom = split_deal(record.deal, rules)
        self.dealt, self.bottom_dealt = dealt, bottom
        bid = self.bid = settle(record, dealt, bottom, line=self.line)
        self.findings.extend(bid.findings)
        if bid.redeal or bid.rejected:
            return self._result(rejected=bid.rejected)
        assert bid.trump is not None and bid.banker is not None
        self.started = True
        rejected = False
        try:
            complete = self._play(bid, bid.trump, bid.banker)
        except _Stop:
            rejected = True
            complete = False
        if complete:
            self._score(bid, bid.trump, bid.banker)
        self._check_claims(bid.trump)
        return self._result(rejected=rejected)

    def _result(self, *, rejected: bool = False) -> HandReplay:
        record = self.record
        status: Status
        if rejected or any(f.code in REJECTING for f in self.findings):
            status = "rejected"
        elif self.findings:
            status = "flagged"
        else:
            status = "ok"
        bid = self.bid
        trump = None if bid is None else bid.trump
        counts = [0, 0, 0, 0]
        for seat in self.failed:
            counts[seat] += 1
        return HandReplay(
            record.hand_id,
            record.source,
            status,
            tuple(self.findings),
            self.line,
            match_id=record.match_id,
            hand_no=record.hand_no,
            played_at=record.played_at,
            rules=record.rules,
            players=record.players,
            levels=record.levels,
            level=None if bid is None else bid.level,
            banker=None if bid is None else bid.banker,
            trump=None if trump is None else trump.suit_token(),
            trump_source=None if bid is None else bid.trump_source,
            end=record.end,
            bids=() if bid is None else bid.bids,
            dealt=self.dealt,
            banker_before_bury=None if bid is None else bid.banker_before_bury,
            start=bid.start if bid is not None and self.started else (),
            bottom_dealt=self.bottom_dealt,
            bottom_buried=bid.bottom_buried if bid is not None and self.started else (),
            tricks=tuple(self.tricks),
            attackers_points=self.attackers_points,
            bottom=self.bottom,
            level_change=self.level_change,
            next_banker=self.next_banker,
            ladder_points=self.ladder_points,
            failed_throws=(counts[0], counts[1], counts[2], counts[3]),
            content_hash=content_hash(format_hand(record)),
            personas=read_personas(record.extra),
        )

    # -- the plays

    def _play(self, bid: Bidding, trump: TrumpContext, banker: int) -> bool:
        """Walk every play; True when the hand was played to its last card."""
        record, rules, line = self.record, self.rules, self.line
        plays = record.plays
        holdings = [list(h.counts) for h in bid.start]
        eff = trump.eff
        known = component_cache(trump, rules)
        readings = reading_cache(trump, rules)
        # Cards each seat holds per effective suit, kept in step with `holdings`.
        faces = _suit_faces(trump)
        per_suit = [[sum([hand[f] for f in fs]) for fs in faces] for hand in holdings]
        attackers = 1 - banker % 2
        total = 0
        leader = banker
        i = 0
        n_plays = len(plays)
        tricks = self.tricks
        findings = self.findings
        while i < n_plays:
            number = len(tricks) + 1
            before = len(findings)
            lead = self._lead(number, i, leader, holdings, trump, readings)
            lead_ok = len(findings) == before
            played = lead.played
            hand, left = holdings[leader], per_suit[leader]
            for c in played:
                hand[c] -= 1
                left[eff[c]] -= 1
            size = len(played)
            reading = lead.reading
            suit = reading.suit
            # A play of the led suit with exactly the shape of a one-component lead meets the
            # first rung of its ladder (R5.3): legal whatever else was held (`same_shape`).
            shape: tuple[int, int] | None = None
            if len(reading.components) == 1:
                first = reading.components[0]
                shape = (first.width, len(first.faces))
            trick_plays: list[tuple[int, tuple[Card, ...]]] = [(leader, played)]
            voids = [False]
            records = [PlayRecord(leader, played, "lead", lead_ok, line, i)]
            if lead.failed:
                self.failed.append(leader)
                total += throw_penalty(leader, banker, rules, lead.failing)
            for k in range(1, 4):
                j = i + k
                if j >= n_plays:
                    break
                seat = (leader + k) % 4
                play = plays[j]
                cards = play.cards
                if play.seat != seat:
                    raise self.stop(
                        "out_of_turn",
                        f"seat {play.seat} plays {_pretty(cards)}, but it is seat {seat}'s turn "
                        f"after seat {leader}'s lead of {_pretty(played)}",
                        number,
                        play.seat,
                    )
                if len(cards) != size:
                    raise self.stop(
                        "wrong_count",
                        f"seat {seat} plays {len(cards)} cards ({_pretty(cards)}) to seat "
                        f"{leader}'s {size}-card lead {_pretty(played)} (R5.1)",
                        number,
                        seat,
                    )
                hand, left = holdings[seat], per_suit[seat]
                held = left[suit]
                if size == 1:
                    c = cards[0]
                    hand[c] -= 1
                    if hand[c] < 0:
                        raise self._not_held(hand, cards, number, seat)
                    s = eff[c]
                    left[s] -= 1
                    inside = 1 if s == suit else 0
                    # R5.2/R5.3 for one card: of the led suit if any is held.
                    legal = inside == 1 or held == 0
                    if not legal:
                        self._illegal_follow(lead, hand, cards, trump, number, seat, leader)
                    trick_plays.append((seat, cards))
                    voids.append(held == 0)
                    kind: PlayKind = "follow" if inside else play_kind(cards, suit, trump)
                    records.append(PlayRecord(seat, cards, kind, legal, line, j))
                    continue
                self._take(hand, cards, number, seat)
                inside = 0
                for c in cards:
                    s = eff[c]
                    left[s] -= 1
                    if s == suit:
                        inside += 1
                # R5 from counts alone where they decide (`quick_follow`), then the lead's shape,
                # then the ladder; the 2023 Botzone judge's own check is none of these.
                if rules.follow_rule == "botzone2023":
                    legal = follow_is_legal(reading, hand, cards, trump, rules)
                elif held < size:
                    legal = inside == held
                elif inside < size:
                    legal = False
                else:
                    legal = False
                    if shape is not None:
                        comp = known.get(cards)
                        if comp is None:
                            comp = cached_component(cards, trump, rules, known)
                        legal = (
                            comp is not None
                            and comp.width == shape[0]
                            and len(comp.faces) == shape[1]
                        )
                    if not legal:
                        legal = follow_is_legal(reading, hand, cards, trump, rules)
                if not legal and self._illegal_follow(
                    lead, hand, cards, trump, number, seat, leader
                ):
                    # The judge failed on this play: the game ended, what follows is not play.
                    return False
                trick_plays.append((seat, cards))
                voids.append(held == 0)
                kind = "follow" if inside == size else play_kind(cards, suit, trump)
                records.append(PlayRecord(seat, cards, kind, legal, line, j))
            if len(trick_plays) < 4:
                break
            if rules.throw_compare == "botzone" and lead.throw is not None:
                fault = botzone_judge_fault(reading, trick_plays, voids, trump, rules)
                if fault is not None:
                    # The game ended at this trick: what follows in the log is not play.
                    self._engine_fault(number, trick_plays, fault)
                    return False
            verdict = resolve_trick(reading, trick_plays, voids, trump, rules)
            if verdict.winner % 2 == attackers:
                total += verdict.points
            tricks.append(
                TrickRecord(
                    number,
                    leader,
                    suit,
                    reading.components,
                    lead.throw,
                    tuple(records),
                    verdict.winner,
                    verdict.points,
                    total,
                    verdict.reason,
                )
            )
            leader = verdict.winner
            i += 4
        still = sum([sum(h) for h in holdings])
        if record.end == "abandoned":
            return False
        if still or i < n_plays:
            played_count = sum(len(t.plays) for t in tricks)
            self.flag(
                "incomplete_hand",
                f"the hand is logged complete, but its {n_plays} plays stop after {played_count} "
                f"plays in {len(tricks)} whole tricks with {still} cards still held",
            )
            return False
        return True

    def _engine_fault(
        self, number: int, plays: Sequence[tuple[int, tuple[Card, ...]]], fault: int
    ) -> None:
        """The Botzone judge failed on this trick (`trick.botzone_judge_fault`): the game ended
        there, so the trick has no winner and the hand no score; nothing is made up for them."""
        seat, cards = plays[fault]
        self.flag(
            "engine_fault",
            f"the Botzone judge cannot compare seat {seat}'s trump play {_pretty(cards)} with "
            f"the trump play winning seat {plays[0][0]}'s throw {_pretty(plays[0][1])} (a throw "
            "without a tractor: its checkWinner fails with an error charged to the trick's last "
            "player, and the match ends); the trick has no winner and the hand is not scored",
            number,
            plays[-1][0],
        )

    def _not_held(self, hand: list[int], cards: Sequence[Card], number: int, seat: int) -> _Stop:
        """`not_in_hand` for a play already taken out of `hand` (a count list) that it lacks:
        the holding is restored first."""
        lacking = [c for c in range(54) for _ in range(-hand[c])]
        for c in cards:
            hand[c] += 1
        have = "holds no cards" if not any(hand) else f"does not hold {_pretty(lacking)}"
        return self.stop(
            "not_in_hand", f"seat {seat} plays {_pretty(cards)} but {have}", number, seat
        )

    def _take(self, hand: list[int], cards: Sequence[Card], number: int, seat: int) -> None:
        """Remove a play from a holding (count list); `not_in_hand` when it lacks a card."""
        short = False
        for c in cards:
            hand[c] -= 1
            if hand[c] < 0:
                short = True
        if short:
            raise self._not_held(hand, cards, number, seat)

    def _follow(
        self, lead: _Lead, after: list[int], cards: tuple[Card, ...], trump: TrumpContext
    ) -> FollowVerdict:
        """R5 by `follow.check_follow`, given the holding after the play."""
        before = list(after)
        for c in cards:
            before[c] += 1
        return check_follow(lead.reading, Hand(tuple(before)), cards, trump, self.rules)

    def _illegal_follow(
        self,
        lead: _Lead,
        hand: list[int],
        cards: tuple[Card, ...],
        trump: TrumpContext,
        number: int,
        seat: int,
        leader: int,
    ) -> bool:
        """Flag an illegal follow; True when it is a play the engine's own check fails on (the
        2023 Botzone judge's), which ended the game: `engine_fault`, and nothing is scored."""
        verdict = self._follow(lead, hand, cards, trump)
        assert not verdict.legal, f"check_follow finds {_pretty(cards)} legal: {verdict.reason}"
        code = "must_follow_shape" if verdict.rung is not None else "must_follow_suit"
        fails = JUDGE_FAILS in verdict.reason
        if fails:
            code = "engine_fault"
        self.flag(
            code,
            f"seat {seat} to seat {leader}'s lead {_pretty(lead.played)}: {verdict.reason} "
            f"({verdict.rule})",
            number,
            seat,
        )
        return fails

    def _lead(
        self,
        number: int,
        i: int,
        leader: int,
        holdings: list[list[int]],
        trump: TrumpContext,
        readings: dict[tuple[Card, ...], Reading],
    ) -> _Lead:
        play = self.record.plays[i]
        cards = play.cards
        rules = self.rules
        if play.seat != leader:
            raise self.stop(
                "out_of_turn",
                f"seat {play.seat} leads {_pretty(cards)}, but seat {leader} leads trick {number}",
                number,
                play.seat,
            )
        if not cards:
            raise self.stop("wrong_count", f"seat {leader} leads no cards", number, leader)
        hand = holdings[leader]
        if len(cards) == 1:
            if hand[cards[0]] <= 0:
                self._take(hand, cards, number, leader)  # not_in_hand
        else:
            self._take(hand, cards, number, leader)
            for c in cards:  # the throw check below needs the holding as it was
                hand[c] += 1
        suit = effective_suit(cards, trump)
        if suit is None:
            raise self.stop(
                "mixed_lead",
                f"seat {leader} leads {_pretty(cards)}, which mixes effective suits (R4.1)",
                number,
                leader,
            )
        reading: Reading | None = None
        if play.split is not None:
            try:
                reading = read_lead(cards, trump, rules, play.split)
            except PlayError as e:
                parts = " | ".join(_pretty(p) for p in play.split)
                self.flag("bad_split", f"seat {leader} states split {parts}: {e}", number, leader)
        if reading is None:
            reading = readings.get(cards)
            if reading is None:
                reading = read_lead(cards, trump, rules)
        if len(reading.components) == 1:
            if play.forced is not None and sorted(play.forced) != sorted(cards):
                self.flag(
                    "throw_claim_mismatch",
                    f"seat {leader} leads {_pretty(cards)}, one component and no throw, but the "
                    f"log claims {_pretty(play.forced)} was forced",
                    number,
                    leader,
                )
            return _Lead(cards, reading, None, False)
        return self._throw(number, i, play, reading, holdings, trump)

    def _throw(
        self,
        number: int,
        i: int,
        play: Play,
        reading: Reading,
        holdings: list[list[int]],
        trump: TrumpContext,
    ) -> _Lead:
        rules = self.rules
        leader, cards = play.seat, play.cards
        hands = [Hand(tuple(h)) for h in holdings]
        check = check_throw(reading, leader, hands, trump, rules)
        forced = check.forced.cards() if check.forced is not None else None
        blocking = check.blocking
        claim = play.forced
        claim_comp: Component | None = None
        if claim is not None:
            if Hand.of(cards).contains(claim):
                claim_comp = as_component(claim, trump, rules)
            if claim_comp is None:
                self.flag(
                    "throw_claim_mismatch",
                    f"seat {leader} throws {_pretty(cards)}; the claimed forced "
                    f"{_pretty(claim)} is not one component of it (R4.4)",
                    number,
                    leader,
                )
        if claim_comp is not None:
            claimed = claim_comp.cards()
            if check.forced is not None and sorted(claimed) == sorted(check.forced.cards()):
                return self._failed(
                    cards, check.forced, check.blocker, blocking, check.failing_cards
                )
            if forced is None:
                why = "but the throw stands: no other seat can beat a component (R4.3)"
            else:
                why = f"but the replay forces {_pretty(forced)}: {check.reason}"
            self.flag(
                "throw_claim_mismatch",
                f"seat {leader} throws {_pretty(cards)}; the log claims {_pretty(claimed)} was "
                f"forced, {why}; replayed as the table played it",
                number,
                leader,
            )
            return self._failed(
                cards,
                Reading(reading.suit, (claim_comp,)),
                check.blocker,
                blocking,
                check.failing_cards,
            )
        if check.forced is None:
            return _Lead(cards, reading, ThrowOutcome(False, cards, None, None, None), False)
        plays = self.record.plays
        nxt = plays[i + 1] if i + 1 < len(plays) else None
        if (
            nxt is not None
            and nxt.seat == (leader + 1) % 4
            and len(nxt.cards) == len(cards)
            and len(forced or ()) != len(cards)
        ):
            self.flag(
                "throw_claim_mismatch",
                f"seat {leader} throws {_pretty(cards)}, which fails: {check.reason}; but the "
                f"table let it stand (seat {nxt.seat} answers with {len(nxt.cards)} cards); "
                "replayed as the table played it",
                number,
                leader,
            )
            return _Lead(cards, reading, ThrowOutcome(False, cards, None, None, None), False)
        return self._failed(cards, check.forced, check.blocker, blocking, check.failing_cards)

    @staticmethod
    def _failed(
        attempted: tuple[Card, ...],
        forced: Reading,
        blocker: int | None,
        blocking: tuple[Card, ...] | None,
        failing: int = 0,
    ) -> _Lead:
        played = forced.cards()
        outcome = ThrowOutcome(True, attempted, played, blocker, blocking)
        return _Lead(played, forced, outcome, True, failing)

    # -- the end of the hand

    def _score(self, bid: Bidding, trump: TrumpContext, banker: int) -> None:
        tricks = self.tricks
        if not tricks:
            return
        last = tricks[-1]
        lead = Reading(last.suit, last.components)
        winning = next(p.cards for p in last.plays if p.seat == last.winner)
        # What `scoring.score_hand` gives, without its explaining rows: the running total
        # already holds every trick the attackers won and every throw penalty (R4.5, R7.1).
        rules = self.rules
        captured = is_attacker(last.winner, banker)
        bottom = bottom_score(lead, winning, bid.bottom_buried, captured, trump, rules)
        total = last.attackers_total + bottom.points
        outcome = level_change(total, rules)
        self.attackers_points = total
        self.bottom = BottomResult(
            bottom.bottom_points,
            bottom.captured,
            last.winner,
            shape_name(lead),
            bottom.multiplier,
            bottom.points,
        )
        self.level_change = LevelChange(
            outcome.winning_team(banker), outcome.levels, outcome.winner == "banker"
        )
        self.next_banker = next_banker(banker, outcome.winner == "banker")
        self.ladder_points = ladder_points(banker, outcome, self.failed)

    def _check_claims(self, trump: TrumpContext) -> None:
        claimed = self.record.claimed
        if claimed is None:
            return
        if claimed.trump is not None and claimed.trump != trump.suit_token():
            self._mismatch("trump", claimed.trump, trump.suit_token())
        bid = self.bid
        if claimed.banker is not None and bid is not None and claimed.banker != bid.banker:
            self._mismatch("banker", claimed.banker, bid.banker)
        self._check_trick_claims()
        if self.attackers_points is None or self.bottom is None or self.level_change is None:
            return  # nothing was scored: the outcome claims have nothing to be compared with
        points = self.attackers_points
        if claimed.attackers_points is not None and claimed.attackers_points != points:
            self._mismatch("attackers_points", claimed.attackers_points, points)
        multiplier = self.bottom.multiplier
        if claimed.bottom_multiplier is not None and claimed.bottom_multiplier != multiplier:
            self._mismatch("bottom_multiplier", claimed.bottom_multiplier, multiplier)
        change = self.level_change
        if claimed.level_change is not None and claimed.level_change != (
            change.team,
            change.levels,
        ):
            team, levels = claimed.level_change
            self._mismatch(
                "level_change", f"team {team} +{levels}", f"team {change.team} +{change.levels}"
            )
        if claimed.next_banker is not None and claimed.next_banker != self.next_banker:
            self._mismatch("next_banker", claimed.next_banker, self.next_banker)

    def _check_trick_claims(self) -> None:
        """Each trick the log claims against the replay's trick of that number: leader, winner
        and points. A claimed trick the replay did not reach is not compared (the replay stopped
        or the hand was cut short, and says so itself)."""
        assert self.record.claimed is not None
        for number, (claim, trick) in enumerate(
            zip(self.record.claimed.tricks, self.tricks, strict=False), start=1
        ):
            if claim.leader != trick.leader:
                self._mismatch("leader", f"seat {claim.leader}", f"seat {trick.leader}", number)
            if claim.winner != trick.winner:
                self._mismatch("winner", f"seat {claim.winner}", f"seat {trick.winner}", number)
            if claim.points is not None and claim.points != trick.points:
                self._mismatch("points", claim.points, trick.points, number)

    def _mismatch(
        self, field: str, claimed: object, replayed: object, trick: int | None = None
    ) -> None:
        self.flag(
            "claim_mismatch",
            f"claimed {field} {claimed}, but the replay gives {replayed}"
            + ("" if trick is None else f" (trick {trick})"),
            trick,
        )


_FULL: Final = {d: list(full_deck(d)) for d in (2, 4)}
"""Every face `d` times, in face order: a shoe sorted."""


def _deck_reason(deck: Hand, decks: int) -> str:
    extra = [(c, n - decks) for c, n in enumerate(deck.counts) if n > decks]
    short = [(c, decks - n) for c, n in enumerate(deck.counts) if n < decks]
    parts = []
    if extra:
        parts.append("too many " + ", ".join(f"{pretty_card(c)} (+{k})" for c, k in extra))
    if short:
        parts.append("too few " + ", ".join(f"{pretty_card(c)} (-{k})" for c, k in short))
    return f"the shoe is not {decks} full decks: " + "; ".join(parts)


_FACES: Final[dict[tuple[int | None, int], tuple[tuple[Card, ...], ...]]] = {}


def _suit_faces(trump: TrumpContext) -> tuple[tuple[Card, ...], ...]:
    """The faces of each effective suit 0..3 and TRUMP."""
    key = (trump.suit, trump.level)
    found = _FACES.get(key)
    if found is None:
        found = _FACES[key] = tuple(
            tuple(c for c in range(54) if trump.eff[c] == s) for s in range(TRUMP + 1)
        )
    return found
