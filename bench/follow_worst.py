"""The worst case of one follow check (R5.3): long leads against large holdings.

A follow check must find the first rung of the lead's ladder the holding satisfies; the ladder of
a long throw has hundreds of thousands of rungs. This section times `check_follow` cold (every
memo of the rules core forgotten before each call, so nothing learnt from an earlier call helps)
on:

- the situation that took 1–2 s when the ladder was listed to be walked (trump ♣, level 6, a
  25-card lead, the follower's whole 25-card holding as the play), against that walk measured in
  the same run;
- a seeded search for the slowest situation: random leads of 12–36 cards of one effective suit
  (mostly trump, chunky: many triples and quads) and holdings of up to 60 cards from the same
  four-deck shoe, with and without `protect_longer_units`, then a hill climb from the slowest ones
  (moving one card between the lead, the holding and the rest of the shoe at a time);
- the same search under every combination of the options a follow check reads (`COMBOS`:
  `throw_ladder`, `protect_longer_units`, `ace_low_tractor`), each with its own slowest situation:
  a worst case measured under the defaults only says nothing of the others.
"""

from __future__ import annotations

import itertools
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import get_args

from shengji import follow, ladder
from shengji.cards import Card, Hand, format_cards, parse_cards
from shengji.combos import PlayError, clear_caches, read_lead
from shengji.follow import check_follow
from shengji.rules import FOUR_DECK, RuleSet, ThrowLadder
from shengji.shape import Reading
from shengji.trump import TRUMP, TrumpContext, parse_trump, trump_context

SEED = 2026_12
CASES = 1500
CLIMB_STARTS = 5
CLIMB_STEPS = 60
REPEATS = 5
MAX_HOLDING = 60

COMBO_CASES = 400
COMBO_CLIMB_STARTS = 3
COMBO_CLIMB_STEPS = 40
COMBOS: tuple[RuleSet, ...] = tuple(
    replace(
        FOUR_DECK, throw_ladder=ladder_option, protect_longer_units=protect, ace_low_tractor=low
    )
    for ladder_option, protect, low in itertools.product(
        get_args(ThrowLadder), (False, True), (True, False)
    )
)
"""Every combination of the options `check_follow` reads (shengji/follow.py, ladder.py)."""

ISSUE_TRUMP = ("C", "6")
ISSUE_LEAD = "5C KC KC AC 4C AC 6S 6S 6S 5C 5C 4C 5C 7C 7C 7C 7C 8C 8C 8C 8C 9C 9C 9C 9C"
ISSUE_HAND = "JC JC JC JC 6C 6C 2C 2C 2C 2C SJ SJ 4C 4C 6S QC QC QC TC 3C 6H 6H 6D 6D 6D"


@dataclass(frozen=True, slots=True)
class Case:
    trump: TrumpContext
    rules: RuleSet
    lead_cards: tuple[Card, ...]
    lead: Reading
    hand: Hand
    play: tuple[Card, ...]

    def describe(self) -> str:
        suit = "NT" if self.trump.suit is None else "SHCD"[self.trump.suit]
        level = "23456789TJQKA"[self.trump.level - 2]
        return (
            f"trump {suit}, level {level}, {options(self.rules)}; "
            f"lead `{format_cards(self.lead_cards)}`; "
            f"hand `{format_cards(sorted(self.hand))}`; play `{format_cards(self.play)}`"
        )


def options(rules: RuleSet) -> str:
    """The options a follow check reads, as `option=value` words."""
    return (
        f"`throw_ladder={rules.throw_ladder}`, "
        f"`protect_longer_units={str(rules.protect_longer_units).lower()}`, "
        f"`ace_low_tractor={str(rules.ace_low_tractor).lower()}`"
    )


def forget() -> None:
    """Every memo of the rules core, so a call pays for all it needs."""
    clear_caches()
    follow._BUDGET.reset()
    ladder._BUDGET.reset()


def cold_ms(call: Callable[[], object], repeats: int = REPEATS) -> float:
    """Median over `repeats` cold calls, in milliseconds."""
    times = []
    for _ in range(repeats):
        forget()
        start = time.process_time()
        call()
        times.append((time.process_time() - start) * 1e3)
    return statistics.median(times)


def judge(case: Case) -> Callable[[], object]:
    return lambda: check_follow(case.lead, case.hand, case.play, case.trump, case.rules)


def issue_case() -> Case:
    trump = parse_trump(*ISSUE_TRUMP)
    cards = parse_cards(ISSUE_LEAD)
    hand = parse_cards(ISSUE_HAND)
    return Case(trump, FOUR_DECK, cards, read_lead(cards, trump, FOUR_DECK), Hand.of(hand), hand)


def _make(
    trump: TrumpContext,
    rules: RuleSet,
    lead_cards: list[Card],
    hand: list[Card],
    rng: random.Random,
) -> Case | None:
    if not lead_cards or len(hand) < len(lead_cards) or len(hand) > MAX_HOLDING:
        return None
    try:
        lead = read_lead(tuple(sorted(lead_cards)), trump, rules)
    except PlayError:
        return None
    mine = [c for c in hand if trump.eff[c] == lead.suit]
    if len(mine) < len(lead_cards):
        return None
    play = tuple(sorted(rng.sample(mine, len(lead_cards))))
    return Case(trump, rules, tuple(sorted(lead_cards)), lead, Hand.of(hand), play)


def random_case(rng: random.Random, rules: RuleSet | None = None) -> Case | None:
    """A random long lead and large holding; under `rules`, else the defaults with
    `protect_longer_units` in three of ten."""
    trump = trump_context(rng.choice([0, 1, 2, 3, None]), rng.randint(2, 14))
    if rules is None:
        rules = replace(FOUR_DECK, protect_longer_units=rng.random() < 0.3)
    suit = TRUMP if rng.random() < 0.75 else rng.randrange(4)
    faces = [c for c in range(54) if trump.eff[c] == suit]
    left = dict.fromkeys(faces, 4)
    lead: list[Card] = []
    size = rng.randint(12, 36)
    for face in rng.sample(faces, len(faces)):
        if len(lead) >= size:
            break
        k = rng.choice([1, 2, 2, 3, 3, 4, 4, 4])
        lead += [face] * k
        left[face] -= k
    if len(lead) < 12:
        return None  # a small suit (no-trump's trumps): no long lead there
    hand: list[Card] = []
    for face in rng.sample(faces, len(faces)):
        hand += [face] * min(left[face], rng.choice([0, 1, 2, 2, 3, 3, 4, 4, 4]))
    others = [c for c in range(54) if trump.eff[c] != suit for _ in range(4)]
    hand += rng.sample(others, rng.randint(0, 8))
    rng.shuffle(hand)
    return _make(trump, rules, lead, hand[:MAX_HOLDING], rng)


def _mutate(case: Case, rng: random.Random) -> Case | None:
    """Move one card: between the lead, the holding and the rest of the shoe."""
    lead, hand = list(case.lead_cards), list(case.hand)
    faces = [c for c in range(54) if case.trump.eff[c] == case.lead.suit]
    face = rng.choice(faces)
    held = lead.count(face) + hand.count(face)
    move = rng.randrange(4)
    if move == 0 and face in lead:
        lead.remove(face)
    elif move == 1 and held < 4:
        lead.append(face)
    elif move == 2 and face in hand:
        hand.remove(face)
    elif held < 4:
        hand.append(face)
    return _make(case.trump, case.rules, lead, hand, rng)


def search(
    seed: int = SEED,
    cases: int = CASES,
    rules: RuleSet | None = None,
    starts: int = CLIMB_STARTS,
    steps: int = CLIMB_STEPS,
) -> tuple[list[float], Case, float]:
    """Times of the random cases (one cold call each, under `rules` as `random_case` takes it),
    and the slowest case found — among the slowest random ones and the climbs from them, each
    timed again as a median — with its median cold time."""
    rng = random.Random(seed)
    timed: list[tuple[float, Case]] = []
    while len(timed) < cases:
        case = random_case(rng, rules)
        if case is not None:
            timed.append((cold_ms(judge(case), repeats=1), case))
    times = [t for t, _ in timed]
    timed.sort(key=lambda tc: tc[0], reverse=True)
    # One cold call is a noisy measure: the slowest are timed again before anything is kept.
    again = sorted(
        ((cold_ms(judge(case)), case) for _, case in timed[: 4 * starts]),
        key=lambda tc: tc[0],
        reverse=True,
    )
    worst_ms, worst = again[0]
    for _, start in again[:starts]:
        best, best_ms = start, cold_ms(judge(start), repeats=3)
        for _ in range(steps):
            step = _mutate(best, rng)
            if step is None:
                continue
            ms = cold_ms(judge(step), repeats=3)
            if ms > best_ms:
                best, best_ms = step, ms
        best_ms = cold_ms(judge(best))
        if best_ms > worst_ms:
            worst, worst_ms = best, best_ms
    return times, worst, worst_ms


def search_combos(
    seed: int = SEED,
    cases: int = COMBO_CASES,
    starts: int = COMBO_CLIMB_STARTS,
    steps: int = COMBO_CLIMB_STEPS,
) -> list[tuple[RuleSet, list[float], Case, float]]:
    """`search` under each of `COMBOS`, from the same seed (the same random shoes)."""
    out = []
    for rules in COMBOS:
        times, worst, ms = search(seed, cases, rules, starts, steps)
        out.append((rules, sorted(times), worst, ms))
    return out


def main() -> str:
    issue = issue_case()
    verdict = judge(issue)()
    now = cold_ms(judge(issue))
    lay = follow._layout(issue.trump, issue.lead.suit, issue.rules.ace_low_tractor)
    hold = lay.values(issue.hand.counts)

    def walked() -> object:
        return follow._walk_ladder(
            issue.lead, issue.rules, lay, list(hold), None, lay.tally(issue.play)
        )

    before = cold_ms(walked, repeats=3)
    times, worst, worst_ms = search()
    times.sort()
    p99 = times[int(len(times) * 0.99)]
    lines = [
        "## Worst case of one follow check (R5.3)",
        "",
        "`check_follow` on long leads and large holdings, each call cold (every memo of the core",
        "forgotten first). Figures in milliseconds of CPU time (`time.process_time`: one thread, so",
        f"wall time on an idle machine; steadier on a busy one), medians of {REPEATS} calls.",
        "",
        "| situation | ms per call |",
        "|---|---:|",
        f"| the 25-card lead of issue 10 against the whole 25-card holding ({verdict.rule} "
        f"{'legal' if verdict.legal else 'illegal'}, satisfies {ladder.format_rung(verdict.rung or ())}) "
        f"| {now:.2f} |",
        f"| the same, by listing the ladder and walking it rung by rung (the former way) | "
        f"{before:.0f} |",
        f"| {len(times)} random situations (seed {SEED}): median | {statistics.median(times):.2f} |",
        f"| the same: 99th percentile | {p99:.2f} |",
        f"| the same: slowest single call | {times[-1]:.2f} |",
        f"| slowest found: the {4 * CLIMB_STARTS} slowest timed again, and a hill climb from the "
        f"{CLIMB_STARTS} slowest of those ({CLIMB_STEPS} one-card moves each) | {worst_ms:.2f} |",
        "",
        "Random situations: a lead of 12–36 cards of one effective suit (trump in three of four),",
        "many triples and quads, and a holding of up to 60 cards from the rest of a four-deck shoe;",
        "the play is a random choice of the holding's cards of the suit; `protect_longer_units` in",
        "three of ten. The slowest situation found:",
        "",
        f"{worst.describe()}.",
        "",
        *combo_lines(search_combos()),
    ]
    return "\n".join(lines) + "\n"


def core() -> str:
    """Which core this process runs (as bench/replay.py says it)."""
    from bench.replay import core as which

    return which()


def combo_lines(found: list[tuple[RuleSet, list[float], Case, float]]) -> list[str]:
    """The section's table of the search under every option combination."""
    lines = [
        "### Every option combination",
        "",
        f"The same search under each combination of the options a follow check reads, from the "
        f"same seed: {COMBO_CASES} random situations each, the {4 * COMBO_CLIMB_STARTS} slowest "
        f"timed again and a hill climb from the {COMBO_CLIMB_STARTS} slowest of those "
        f"({COMBO_CLIMB_STEPS} one-card moves each). Milliseconds of CPU time per cold call, "
        f"on the {core()} core.",
        "",
        "| throw_ladder | protect_longer_units | ace_low_tractor | median | 99th percentile "
        "| slowest single call | slowest found |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for rules, times, _, ms in found:
        p99 = times[int(len(times) * 0.99)]
        lines.append(
            f"| {rules.throw_ladder} | {str(rules.protect_longer_units).lower()} | "
            f"{str(rules.ace_low_tractor).lower()} | {statistics.median(times):.2f} | {p99:.2f} | "
            f"{times[-1]:.2f} | {ms:.2f} |"
        )
    rules, _, worst, ms = max(found, key=lambda f: f[3])
    lines += [
        "",
        f"The slowest of all ({ms:.2f} ms): {worst.describe()}.",
    ]
    return lines
