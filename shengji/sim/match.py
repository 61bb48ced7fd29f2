"""Matches: runs of hands among the same four players, with levels and the banker carried over.

Both teams start at level 2 with no banker: the first hand's shows decide it (R8.4), and a first
hand nobody shows in is logged as a `redeal` and dealt again (R8.5). After each hand the winning
team goes up (R7.3, capped at A by `scoring.apply_level_change`) and the banker rotates (R7.4).

The end of a match (the rule book is silent; chosen here and in docs/bots.md): a match ends after
the hand in which a team *passes* A — it goes up while already at A, or gains more levels than
the ladder has left (a team at K winning +2) — or after `max_hands` logged hands, redeals
included. Reaching A exactly does not end it: the team must still win a hand at A.

Every match draws from its own `random.Random`, seeded from the run's seed and the match's index,
so a match is the same whatever else runs and matches can be played in parallel.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..rules import RuleSet
from ..scoring import ACE, apply_level_change
from .bots import make_bot
from .personas import ROSTER, Persona, draw_table
from .table import HandPlayed, HandSetup, play_hand

EPOCH = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
"""The first evening of a simulated run; match i starts on evening i."""


@dataclass(frozen=True, slots=True)
class MatchSpec:
    index: int
    """0-based position of the match in the run."""
    seed: int
    max_hands: int
    rules: RuleSet
    players: tuple[Persona, ...] | None = None
    """Exactly four: they sit in this order every match. More: a pool that four are drawn from
    per match, as from the whole roster when None."""
    source: str = "shengji-sim"

    @property
    def match_id(self) -> str:
        return f"s{self.seed}-m{self.index + 1:03d}"


def match_rng(seed: int, index: int) -> random.Random:
    """The generator of one match: a string seed is hashed with SHA-512, stable across runs."""
    return random.Random(f"shengji-sim:{seed}:{index}")


def rfc3339(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def passes_ace(level: int, gained: int) -> bool:
    """The match-ending rule: a team goes past A (see the module docstring)."""
    return gained > 0 and level + gained > ACE


def play_match(spec: MatchSpec) -> Iterator[HandPlayed]:
    """The hands of one match, in order."""
    rng = match_rng(spec.seed, spec.index)
    personas = seat_players(spec.players, rng)
    bots = [make_bot(p) for p in personas]
    when = EPOCH + timedelta(days=spec.index, minutes=rng.randint(0, 150))
    levels = (2, 2)
    banker: int | None = None
    for hand_no in range(1, spec.max_hands + 1):
        setup = HandSetup(
            hand_id=f"{spec.match_id}-h{hand_no:03d}",
            source=spec.source,
            match_id=spec.match_id,
            hand_no=hand_no,
            played_at=rfc3339(when),
            rules=spec.rules,
            personas=personas,
            levels=levels,
            banker=banker,
        )
        played = play_hand(setup, bots, rng)
        yield played
        when += timedelta(seconds=played.seconds + rng.randint(15, 120))
        if played.score is None or played.banker is None:
            continue  # a redeal: the banker is still open
        outcome = played.score.outcome
        team = outcome.winning_team(played.banker)
        over = passes_ace(levels[team], outcome.levels)
        levels = apply_level_change(levels, played.banker, outcome)
        banker = played.score.next_banker
        if over:
            return


def seat_players(
    players: Sequence[Persona] | None, rng: random.Random
) -> tuple[Persona, Persona, Persona, Persona]:
    if players is None:
        return draw_table(rng, ROSTER)
    if len(players) == 4:
        return (players[0], players[1], players[2], players[3])
    return draw_table(rng, players)


def match_specs(
    matches: int,
    hands: int,
    seed: int,
    rules: RuleSet,
    players: Sequence[Persona] | None = None,
    source: str = "shengji-sim",
) -> list[MatchSpec]:
    if players is not None and (len(players) < 4 or len({p.name for p in players}) < len(players)):
        raise ValueError("--players needs at least four different players")
    pool = None if players is None else tuple(players)
    return [MatchSpec(i, seed, hands, rules, pool, source) for i in range(matches)]
