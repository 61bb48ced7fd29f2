"""Injected faults: corrupt a known share of simulated hands and say what the audit must find.

Each fault is built so that it causes exactly one finding (docs/findings.md codes, as
`shengji.replay` reports them) and nothing downstream of it: a fault that would change who wins a
later trick, or the score, would also make later plays out of turn or the claims wrong, and the
truth file could not say which finding is the fault. Faults that reject the hand (a card not
held, a play out of turn, an unreadable line) stop the replay there, so nothing follows them. An
illegal follow is made by swapping a card between two of one seat's plays; the swap is kept only
when `rewalk` — the table's own walk of the tricks with the engine's rules (`check_follow`,
`check_throw`, `resolve_trick`, `score_hand`) — shows that the one play is illegal, every winner
is unchanged and the score is the one claimed.

The truth file has one JSON line per fault: `hand_id`, `line` (of the output file, from 1),
`trick` and `seat` (null when the finding has none) and `code`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..cards import Card, Hand
from ..combos import as_component, read_lead
from ..follow import check_follow
from ..record import Claimed, HandRecord, Play, Show, format_hand
from ..rules import RuleSet
from ..scoring import ScoreTable, TrickScore, score_hand
from ..shape import Reading
from ..throws import check_throw
from ..trick import resolve_trick
from ..trump import TrumpContext
from .run import SimHand
from .table import HandPlayed

SUITS = ("S", "H", "C", "D", "NT")


@dataclass(frozen=True, slots=True)
class Fault:
    """One injected fault: the finding the audit must report."""

    code: str
    trick: int | None = None
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Walk:
    """The tricks of a hand walked again: illegal follows found, winners, the score."""

    illegal: tuple[tuple[int, int, str], ...]
    winners: tuple[int, ...]
    score: ScoreTable


def truth_path(output: Path) -> Path:
    """FILE.jsonl[.gz] -> FILE.truth.jsonl, next to it."""
    name = output.name
    stem = name[: -len(".jsonl.gz")] if name.endswith(".jsonl.gz") else name[: -len(".jsonl")]
    return output.with_name(stem + ".truth.jsonl")


def played_cards(play: Play) -> tuple[Card, ...]:
    """What a play took out of the hand: the forced component of a failed throw, else all."""
    return play.forced if play.forced is not None else play.cards


def holding_before(played: HandPlayed, index: int, plays: Sequence[Play] | None = None) -> Hand:
    """The holding of the seat of play `index` just before it."""
    plays = played.record.plays if plays is None else plays
    seat = plays[index].seat
    hand = played.start[seat]
    for p in plays[:index]:
        if p.seat == seat:
            hand = hand.remove(played_cards(p))
    return hand


def rewalk(
    plays: Sequence[Play],
    start: Sequence[Hand],
    trump: TrumpContext,
    banker: int,
    buried: Sequence[Card],
    rules: RuleSet,
) -> Walk | None:
    """The tricks walked with the engine's rules, as the table plays them. None when the plays
    cannot be walked at all (a card not held, a play out of turn, a lead that is no lead)."""
    holdings = list(start)
    illegal: list[tuple[int, int, str]] = []
    scores: list[TrickScore] = []
    winners: list[int] = []
    failed: list[int] = []
    leader = banker
    last: tuple[Reading, tuple[Card, ...]] | None = None
    if len(plays) % 4:
        return None
    for t in range(len(plays) // 4):
        group = plays[4 * t : 4 * t + 4]
        head = group[0]
        if head.seat != leader or not holdings[leader].contains(head.cards):
            return None
        try:
            lead = read_lead(head.cards, trump, rules, head.split)
        except ValueError:
            return None
        if lead.is_throw:
            check = check_throw(lead, leader, holdings, trump, rules)
            if check.failed:
                assert check.forced is not None
                lead = check.forced
                failed.append(leader)
        if head.forced is not None and sorted(head.forced) != sorted(lead.cards()):
            return None
        trick: list[tuple[int, tuple[Card, ...]]] = [(leader, lead.cards())]
        voids = [False]
        holdings[leader] = holdings[leader].remove(lead.cards())
        for k, play in enumerate(group[1:], start=1):
            seat = (leader + k) % 4
            hand = holdings[seat]
            if play.seat != seat or len(play.cards) != lead.size or not hand.contains(play.cards):
                return None
            verdict = check_follow(lead, hand, play.cards, trump, rules)
            if not verdict.legal:
                code = "must_follow_shape" if verdict.rung is not None else "must_follow_suit"
                illegal.append((t + 1, seat, code))
            voids.append(not any(hand.counts[f] for f in range(54) if trump.eff[f] == lead.suit))
            trick.append((seat, play.cards))
            holdings[seat] = hand.remove(play.cards)
        won = resolve_trick(lead, trick, voids, trump, rules)
        scores.append(TrickScore(won.winner, won.points))
        winners.append(won.winner)
        last = (lead, trick[won.winner_index][1])
        leader = won.winner
    if last is None or any(len(h) for h in holdings):
        return None
    score = score_hand(banker, scores, last[0], last[1], buried, trump, rules, failed)
    return Walk(tuple(illegal), tuple(winners), score)


# --- the fault kinds ------------------------------------------------------------------------------
# Each takes the hand and a generator and returns the corrupted record (or text) and its fault, or
# None when the hand offers no place for it.

Made = tuple[HandRecord | str, Fault]


def _truncated(played: HandPlayed, line: str, rng: random.Random) -> Made | None:
    cut = rng.randint(len(line) // 10, len(line) * 9 // 10)
    return line[:cut], Fault("bad_json")


def _claim(played: HandPlayed, line: str, rng: random.Random) -> Made | None:
    record = played.record
    claimed = record.claimed
    if claimed is None or claimed.attackers_points is None or claimed.level_change is None:
        return None
    which = rng.choice(("attackers_points", "level_change", "next_banker", "trump"))
    new: Claimed
    if which == "attackers_points":
        delta = 5 * rng.randint(1, 6)
        points = claimed.attackers_points
        new = replace(claimed, attackers_points=points + delta if points < 40 else points - delta)
    elif which == "level_change":
        team, levels = claimed.level_change
        new = replace(claimed, level_change=(team, levels + rng.randint(1, 2)))
    elif which == "next_banker":
        assert claimed.next_banker is not None
        new = replace(claimed, next_banker=(claimed.next_banker + rng.randint(1, 3)) % 4)
    else:
        others = [t for t in SUITS if t != claimed.trump]
        new = replace(claimed, trump=rng.choice(others))
    return replace(record, claimed=new), Fault("claim_mismatch")


def _bad_show(played: HandPlayed, line: str, rng: random.Random) -> Made | None:
    """A show of a card that names no trump (not of the level rank), which the table ignored."""
    record = played.record
    rules = record.rules
    dealing = rules.deck_size - rules.bottom_size
    seat = rng.randrange(4)
    dealt = rng.randint(20, dealing)
    first = record.deal.first
    held = record.deal.cards[(seat - first) % 4 : dealt : 4]
    level = record.levels[(seat if record.banker is None else record.banker) % 2]
    plain = [c for c in held if c < 52 and c % 13 + 2 != level]
    if not plain:
        return None
    show = Show(seat, (rng.choice(plain),), dealt)
    bids = list(record.bids)
    at = sum(1 for b in bids if b.dealt <= dealt)
    bids.insert(at, show)
    return replace(record, bids=tuple(bids)), Fault("bad_show", None, seat)


def _bad_bury(played: HandPlayed, line: str, rng: random.Random) -> Made | None:
    record = played.record
    if record.bury is None or played.banker is None:
        return None
    seat = (played.banker + rng.randint(1, 3)) % 4
    return replace(record, bury=replace(record.bury, seat=seat)), Fault("bad_bury", None, seat)


def _out_of_turn(played: HandPlayed, line: str, rng: random.Random) -> Made | None:
    record = played.record
    plays = list(record.plays)
    index = rng.randrange(len(plays))
    if index % 4 == 0:
        index += rng.randint(1, 3)
    wrong = (plays[index].seat + rng.randint(1, 3)) % 4
    plays[index] = replace(plays[index], seat=wrong)
    return replace(record, plays=tuple(plays)), Fault("out_of_turn", index // 4 + 1, wrong)


def _not_in_hand(played: HandPlayed, line: str, rng: random.Random) -> Made | None:
    record = played.record
    plays = list(record.plays)
    index = rng.randrange(len(plays))
    if index % 4 == 0:
        index += rng.randint(1, 3)
    play = plays[index]
    hand = holding_before(played, index)
    absent = [f for f in range(54) if hand.counts[f] == 0]
    cards = list(play.cards)
    cards[rng.randrange(len(cards))] = rng.choice(absent)
    plays[index] = replace(play, cards=tuple(cards))
    fault = Fault("not_in_hand", index // 4 + 1, play.seat)
    return replace(record, plays=tuple(plays)), fault


def _throw_claim(played: HandPlayed, line: str, rng: random.Random) -> Made | None:
    """A `forced` claim that is not one component of the lead: the audit flags it and ignores
    it, so the trick replays as played."""
    record = played.record
    trump = played.trump
    assert trump is not None
    rules = record.rules
    leads = [i for i in range(0, len(record.plays), 4) if len(record.plays[i].cards) >= 2]
    if not leads:
        return None
    index = rng.choice(leads)
    play = record.plays[index]
    reading = read_lead(play.cards, trump, rules, play.split)
    # A throw's whole cards, or part of a simple lead: never the one component the table forced.
    claim = play.cards if reading.is_throw else play.cards[:-1]
    if reading.is_throw and as_component(claim, trump, rules) is not None:
        return None  # a stated split made one component read as a throw: no safe claim here
    plays = list(record.plays)
    plays[index] = replace(play, forced=tuple(claim))
    fault = Fault("throw_claim_mismatch", index // 4 + 1, play.seat)
    return replace(record, plays=tuple(plays)), fault


def _illegal_follow(played: HandPlayed, line: str, rng: random.Random) -> Made | None:
    """Swap one card between two plays of one seat so that the earlier play breaks R5 and
    nothing else changes (checked by `rewalk`)."""
    record = played.record
    trump = played.trump
    rules = record.rules
    if trump is None or played.banker is None or record.claimed is None:
        return None
    plays = record.plays
    buried = record.fries[-1].bury if record.fries else record.bury.cards if record.bury else ()
    follows = [i for i in range(len(plays)) if i % 4]
    rng.shuffle(follows)
    for i in follows[:12]:
        seat = plays[i].seat
        later = [j for j in range(i + 4 - i % 4, len(plays)) if plays[j].seat == seat]
        rng.shuffle(later)
        for j in later[:6]:
            x = rng.choice(plays[i].cards)
            y_choices = [c for c in plays[j].cards if c != x]
            if not y_choices:
                continue
            y = rng.choice(y_choices)
            forced_j = plays[j].forced
            if forced_j is not None and y not in forced_j:
                continue
            first = list(plays[i].cards)
            first[first.index(x)] = y
            second = list(plays[j].cards)
            second[second.index(y)] = x
            changed = list(plays)
            changed[i] = replace(plays[i], cards=tuple(first))
            changed[j] = replace(plays[j], cards=tuple(second))
            if forced_j is not None:
                forced = list(forced_j)
                forced[forced.index(y)] = x
                changed[j] = replace(changed[j], forced=tuple(forced))
            walk = rewalk(changed, played.start, trump, played.banker, buried, rules)
            if walk is None or len(walk.illegal) != 1 or walk.illegal[0][:2] != (i // 4 + 1, seat):
                continue
            if not _same_outcome(walk.score, record.claimed, played):
                continue
            t, s, code = walk.illegal[0]
            return replace(record, plays=tuple(changed)), Fault(code, t, s)
    return None


def _same_outcome(score: ScoreTable, claimed: Claimed, played: HandPlayed) -> bool:
    assert played.banker is not None and score.bottom is not None
    outcome = score.outcome
    return (
        claimed.attackers_points == score.attackers_points
        and claimed.bottom_multiplier == score.bottom.multiplier
        and claimed.level_change == (outcome.winning_team(played.banker), outcome.levels)
        and claimed.next_banker == score.next_banker
    )


KINDS: dict[str, Callable[[HandPlayed, str, random.Random], Made | None]] = {
    "illegal_follow": _illegal_follow,
    "not_in_hand": _not_in_hand,
    "throw_claim": _throw_claim,
    "claim": _claim,
    "truncated": _truncated,
    "bad_show": _bad_show,
    "bad_bury": _bad_bury,
    "out_of_turn": _out_of_turn,
}
"""Every kind of fault, by name (docs/bots.md lists the finding each one must produce)."""

WEIGHTS = {"illegal_follow": 4, "not_in_hand": 2, "throw_claim": 2, "claim": 2}
"""How often each kind is tried first: illegal follows are the fault that matters most."""


def corrupt(played: HandPlayed, line: str, rng: random.Random) -> Made | None:
    """One fault for a hand, its kind drawn by weight (the next kind if the hand offers no place
    for it); None for a redeal, which has nothing to corrupt but its JSON."""
    if played.record.end == "redeal" or played.trump is None:
        return None
    names = list(KINDS)
    weights = [WEIGHTS.get(n, 1) for n in names]
    first = rng.choices(names, weights)[0]
    order = [first] + [n for n in names if n != first]
    for name in order:
        made = KINDS[name](played, line, rng)
        if made is not None:
            return made
    return None


def inject_faults(
    hands: Sequence[SimHand], rate: float, seed: int
) -> tuple[list[str], list[dict[str, Any]]]:
    """The run's lines with about `rate` of the hands corrupted, and the truth rows. The faults
    draw from their own generator, so the hands played are the same with or without them."""
    rng = random.Random(f"shengji-sim-faults:{seed}")
    lines: list[str] = []
    truth: list[dict[str, Any]] = []
    for number, hand in enumerate(hands, start=1):
        line = hand.line
        if rng.random() < rate:
            made = corrupt(hand.played, line, rng)
            if made is not None:
                corrupted, fault = made
                line = corrupted if isinstance(corrupted, str) else format_hand(corrupted)
                truth.append(
                    {
                        "hand_id": hand.played.record.hand_id,
                        "line": number,
                        "trick": fault.trick,
                        "seat": fault.seat,
                        "code": fault.code,
                    }
                )
        lines.append(line)
    return lines, truth


def read_truth(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
