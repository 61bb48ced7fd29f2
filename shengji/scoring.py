"""The score of a hand (R7) and the failed-throw penalty (R4.5), with a table that explains it.

Everything is counted from the attackers' side (R7.1): `T` is the attackers' total, and every
function here is pure. The choices the rule book leaves open are made here and documented in
docs/referee.md:

- Penalty sign (R4.5, `throw_penalty_points` = p): a failed throw moves p trick points to the
  other team, so an attacker's failed throw changes T by −p (T may go negative) and a banker-team
  player's failed throw changes T by +p.
- Level change (R7.3, `level_step` = s): T ≤ 0 → banker +3 + ⌊−T/s⌋; 0 < T < s → banker +2;
  s ≤ T < 2s → banker +1; T ≥ 2s → the attackers take over and go up ⌊T/s⌋ − 2.
- A team level never passes A: levels gained beyond it are lost (ladder points still count the
  levels the hand earned, R7.5).
- The bottom multiplier of a bottom the banker team keeps is 0: nothing of it counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from .cards import Card, points_of
from .pickling import picklable
from .rules import RuleSet
from .shape import Reading
from .trump import TRUMP, TrumpContext

Winner = Literal["banker", "attackers"]

ACE = 14
TRUMP_CAPTURE = "trump"
SIDE_CAPTURE = "side suit"


def team_of(seat: int) -> int:
    """R1.1: seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    return seat % 2


def is_attacker(seat: int, banker: int) -> bool:
    return team_of(seat) != team_of(banker)


def trick_points(plays: Iterable[Iterable[Card]]) -> int:
    """R6.4: the point cards of every play of a trick go to its winner."""
    return sum(points_of(cards) for cards in plays)


def throw_penalty(thrower: int, banker: int, rules: RuleSet, failing_cards: int = 0) -> int:
    """R4.5: the change a failed throw makes to the attackers' total.

    The `throw_penalty_points` move to the thrower's opponents: negative for an attacker's
    failed throw, positive for a banker-team thrower's. 0 under the default rules. Under
    `throw_penalty_per_card` (Botzone) they are counted once per card of the throw's components
    that some other seat beats (`failing_cards`).
    """
    points = rules.throw_penalty_points
    if rules.throw_penalty_per_card:
        points *= failing_cards
    return -points if is_attacker(thrower, banker) else points


# --- R7.2 bottom capture ------------------------------------------------------------------------


def largest_component_cards(lead: Reading) -> int:
    """R7.2's k: the cards in the largest component of the last trick's lead."""
    return max(c.size for c in lead.components)


def bottom_multiplier(lead: Reading, won_with_trump: bool, rules: RuleSet) -> int:
    """R7.2: what the bottom's points are multiplied by when the attackers take it.

    `power` 2^k (single ×2, pair ×4, triple ×8, quad ×16, ⟨2-2⟩ ×16), `times` 2·k, `linear` k;
    a capture with a side suit counts ×1 ("副牌扣底不翻倍") unless `side_suit_capture_doubles`.
    """
    if not won_with_trump and not rules.side_suit_capture_doubles:
        return 1
    rule = rules.bottom_multiplier
    if rule in ("lead_cards", "lead_length", "pairs_power"):
        return _engine_bottom_multiplier(lead, rule)
    k = largest_component_cards(lead)
    if rule == "power":
        return int(2**k)
    if rule == "times":
        return 2 * k
    return k


def _engine_bottom_multiplier(lead: Reading, rule: str) -> int:
    """The other engines' multipliers (docs/rules.md, "Engine presets"), from the whole lead.

    `lead_cards` (jerryyyu): 2 × the cards led. `lead_length` (Botzone): the cards led when the
    lead is one unit or tractor; for a throw 2 × its largest component when that holds 4 cards
    or more, 4 when it is a pair, 2 when every component is a single. `pairs_power` (ejfn):
    2^(pairs in the lead + 1), a tractor counting each of its pairs.
    """
    comps = lead.components
    cards = sum([c.size for c in comps])
    if rule == "lead_cards":
        return 2 * cards
    if rule == "lead_length":
        if len(comps) == 1:
            return cards
        k = largest_component_cards(lead)
        return 2 * k if k >= 4 else (4 if k == 2 else 2)
    pairs = sum([(c.width // 2) * len(c.faces) for c in comps])
    return int(2 ** (pairs + 1))


def is_all_trump(cards: Iterable[Card], trump: TrumpContext) -> bool:
    """A capture counts as won with trump when the winning play is all trump (R7.2)."""
    cards = tuple(cards)
    return bool(cards) and all(trump.eff[c] == TRUMP for c in cards)


@dataclass(frozen=True, slots=True)
class BottomScore:
    """R7.2 for one hand: the bottom's own points and what they add to the attackers."""

    bottom_points: int
    captured: bool
    """The attackers won the last trick."""
    won_with_trump: bool
    multiplier: int
    """0 when the banker team keeps the bottom: none of it counts."""
    points: int
    """Added to the attackers' total."""

    def __init__(
        self, bottom_points: int, captured: bool, won_with_trump: bool, multiplier: int, points: int
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "bottom_points", bottom_points)
        object.__setattr__(self, "captured", captured)
        object.__setattr__(self, "won_with_trump", won_with_trump)
        object.__setattr__(self, "multiplier", multiplier)
        object.__setattr__(self, "points", points)


def bottom_score(
    lead: Reading,
    winning_play: Sequence[Card],
    bottom: Sequence[Card],
    attackers_won: bool,
    trump: TrumpContext,
    rules: RuleSet,
) -> BottomScore:
    """R7.2: the bottom as the last trick left it (`lead` as played, the trick's winning play)."""
    base = points_of(bottom)
    with_trump = is_all_trump(winning_play, trump)
    if not attackers_won:
        return BottomScore(base, False, with_trump, 0, 0)
    multiplier = bottom_multiplier(lead, with_trump, rules)
    return BottomScore(base, True, with_trump, multiplier, base * multiplier)


# --- R7.3 level change, R7.4 next banker, R7.5 ladder points --------------------------------------


@dataclass(frozen=True, slots=True)
class LevelOutcome:
    """R7.3: which team won the hand and how many levels it goes up.

    `takes_over` is true exactly when the attackers won: they become the banker team, with
    `levels` ≥ 0 (0 = they only take over, 下庄).
    """

    winner: Winner
    levels: int
    takes_over: bool

    def winning_team(self, banker: int) -> int:
        """The team (0 = seats 0+2, 1 = seats 1+3) that goes up."""
        banker_team = team_of(banker)
        return banker_team if self.winner == "banker" else 1 - banker_team

    def describe(self) -> str:
        if self.winner == "banker":
            return f"banker team holds, +{self.levels}"
        if self.levels == 0:
            return "attackers take over, no level"
        return f"attackers take over, +{self.levels}"

    def __init__(self, winner: Winner, levels: int, takes_over: bool) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "takes_over", takes_over)


def level_change(attackers_points: int, rules: RuleSet) -> LevelOutcome:
    """R7.3 with step s = `level_step` (80 four-deck, 40 two-deck), for any total T.

    Four-deck: 0 → banker +3; 5–75 → +2; 80–155 → +1; 160–235 → attackers take over; 240–315 →
    attackers +1; 320–395 → +2; …; −5…−75 → banker +3; −80…−155 → +4; and so on each step.
    """
    t, s = attackers_points, rules.level_step
    cap = rules.max_level_gain
    winner: Winner = "banker"
    if t >= 2 * s:
        # Without the dead zone (Botzone) taking over at 2s already earns a level.
        winner = "attackers"
        levels = t // s - (2 if rules.attackers_deadzone else 1)
    elif t <= 0:
        # A shut-out already earns the most the table names; each whole step of penalties
        # below zero earns one more, mirroring how each step above 2s earns the attackers one.
        levels = 3 + (-t) // s
    else:
        levels = 2 if t < s else 1
    if cap:
        levels = min(levels, cap)
    return LevelOutcome(winner, levels, winner == "attackers")


def advance_level(level: int, levels: int) -> int:
    """A team level (rank 2..14) after going up `levels`; it stops at A."""
    return min(ACE, level + levels)


def apply_level_change(
    levels: tuple[int, int], banker: int, outcome: LevelOutcome
) -> tuple[int, int]:
    """Both teams' levels after the hand (R7.3), the winner's capped at A."""
    team = outcome.winning_team(banker)
    new = list(levels)
    new[team] = advance_level(new[team], outcome.levels)
    return (new[0], new[1])


def next_banker(banker: int, banker_won: bool) -> int:
    """R7.4: the banker's partner deals next if the banker team held (对家坐庄), else the seat
    after the old banker (下家)."""
    return (banker + 2) % 4 if banker_won else (banker + 1) % 4


LADDER_POINTS_PER_LEVEL = 3


def ladder_points(
    banker: int, outcome: LevelOutcome, failed_throws: Iterable[int] = ()
) -> tuple[int, int, int, int]:
    """R7.5 per seat: the winning team's players get 3 per level the hand earned, a bare take-over
    scores 0 for both teams, and each failed throw costs its thrower alone 1 (`failed_throws`
    lists the thrower's seat once per failed throw)."""
    team = outcome.winning_team(banker)
    gain = LADDER_POINTS_PER_LEVEL * outcome.levels
    points = [gain if team_of(seat) == team else 0 for seat in range(4)]
    for seat in failed_throws:
        points[seat] -= 1
    return (points[0], points[1], points[2], points[3])


# --- the explaining table -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One line of a hand's score: the rule that applies, what happened, the points it moved
    (None for lines that move no points: the level change, the next banker, ladder points)."""

    rule: str
    what: str
    points: int | None = None

    def __init__(self, rule: str, what: str, points: int | None = None) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "what", what)
        object.__setattr__(self, "points", points)


@dataclass(frozen=True, slots=True)
class TrickScore:
    """What scoring needs of a trick: its winner and the points it held."""

    winner: int
    points: int

    def __init__(self, winner: int, points: int) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "points", points)


@dataclass(frozen=True, slots=True)
class ScoreTable:
    """A hand's scoring, row by row, and its results."""

    rows: tuple[ScoreRow, ...]
    attackers_points: int
    bottom: BottomScore | None
    outcome: LevelOutcome
    next_banker: int
    ladder_points: tuple[int, int, int, int]

    def render(self) -> str:
        """A plain-text table for people: rule, what, points."""
        width = max(len(r.what) for r in self.rows)
        lines = []
        for row in self.rows:
            pts = "" if row.points is None else f"{row.points:+d}"
            lines.append(f"{row.rule:<5} {row.what:<{width}} {pts:>6}".rstrip())
        return "\n".join(lines)

    def __init__(
        self,
        rows: tuple[ScoreRow, ...],
        attackers_points: int,
        bottom: BottomScore | None,
        outcome: LevelOutcome,
        next_banker: int,
        ladder_points: tuple[int, int, int, int],
    ) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "attackers_points", attackers_points)
        object.__setattr__(self, "bottom", bottom)
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "next_banker", next_banker)
        object.__setattr__(self, "ladder_points", ladder_points)


def _seat_list(seats: Iterable[int]) -> str:
    return ", ".join(str(s) for s in sorted(set(seats)))


def score_hand(
    banker: int,
    tricks: Sequence[TrickScore],
    last_lead: Reading | None,
    last_winning_play: Sequence[Card],
    bottom: Sequence[Card],
    trump: TrumpContext,
    rules: RuleSet,
    failed_throws: Sequence[int] = (),
    failing_cards: Sequence[int] = (),
) -> ScoreTable:
    """Score a played hand (R7, R4.5) and explain every step as a row.

    `tricks` in order; `last_lead` is the last trick's lead as played (None when no trick was
    played, e.g. an abandoned hand: then the bottom is not captured); `failed_throws` lists the
    thrower's seat once per failed throw; `failing_cards`, in the same order, the cards of each
    such throw's beaten components (read under `throw_penalty_per_card`).
    """
    attackers = (banker + 1) % 2
    rows: list[ScoreRow] = []
    seats = _seat_list([attackers, attackers + 2])
    rows.append(ScoreRow("R7.1", f"{trump.describe()}; banker seat {banker}, attackers {seats}"))
    total = 0
    for number, trick in enumerate(tricks, start=1):
        if is_attacker(trick.winner, banker) and trick.points:
            total += trick.points
            rows.append(
                ScoreRow("R7.1", f"trick {number} won by seat {trick.winner}", trick.points)
            )
    for i, seat in enumerate(failed_throws):
        delta = throw_penalty(
            seat, banker, rules, failing_cards[i] if i < len(failing_cards) else 0
        )
        side = "attacker" if is_attacker(seat, banker) else "banker team"
        rows.append(ScoreRow("R4.5", f"failed throw by seat {seat} ({side})", delta))
        total += delta
    captured: BottomScore | None = None
    if tricks and last_lead is not None:
        attackers_won = is_attacker(tricks[-1].winner, banker)
        captured = bottom_score(last_lead, last_winning_play, bottom, attackers_won, trump, rules)
        if captured.captured:
            how = TRUMP_CAPTURE if captured.won_with_trump else SIDE_CAPTURE
            k = largest_component_cards(last_lead)
            what = (
                f"bottom {captured.bottom_points} × {captured.multiplier} "
                f"(taken by seat {tricks[-1].winner} with {how}, lead's largest component {k})"
            )
            rows.append(ScoreRow("R7.2", what, captured.points))
            total += captured.points
        else:
            rows.append(
                ScoreRow("R7.2", f"bottom {captured.bottom_points} kept by the banker team", 0)
            )
    outcome = level_change(total, rules)
    rows.append(ScoreRow("R7.1", "attackers' total", total))
    rows.append(ScoreRow("R7.3", outcome.describe()))
    new_banker = next_banker(banker, outcome.winner == "banker")
    rows.append(ScoreRow("R7.4", f"next banker seat {new_banker}"))
    ladder = ladder_points(banker, outcome, failed_throws)
    rows.append(ScoreRow("R7.5", "ladder points by seat " + " ".join(f"{p:+d}" for p in ladder)))
    return ScoreTable(tuple(rows), total, captured, outcome, new_banker, ladder)


picklable(BottomScore, LevelOutcome, ScoreRow, TrickScore, ScoreTable)
