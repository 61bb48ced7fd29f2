"""The rules core's memo tables are bounded: judging many different situations may not grow them
without limit (a long-running referee or dashboard judges other people's games for days)."""

from __future__ import annotations

import functools
import importlib
import pkgutil
import random
from collections.abc import Iterator

import pytest

import shengji
from shengji import follow, ladder
from shengji.cards import Hand
from shengji.combos import PlayError, read_lead
from shengji.memo import MEMO_LIMIT, Budget
from shengji.rules import FOUR_DECK, RBTYING, RuleSet
from shengji.trump import parse_trump


def _core_modules() -> Iterator[object]:
    for info in pkgutil.walk_packages(shengji.__path__, "shengji."):
        if info.name.endswith("__main__"):
            continue  # runs the command line
        yield importlib.import_module(info.name)


# Caches over a finite domain: a trump context per (trump suit or none, level) — 65 at most.
FINITE_DOMAIN = {"shengji.trump.trump_context", "shengji.sim.units._suit_faces"}


def test_no_unbounded_functools_cache_in_the_core() -> None:
    """`functools.cache` (an lru_cache without maxsize) keeps every argument it ever saw."""
    unbounded = set()
    for module in _core_modules():
        for value in vars(module).values():
            cached = isinstance(value, functools._lru_cache_wrapper)
            if cached and value.cache_info().maxsize is None:
                unbounded.add(f"{value.__module__}.{value.__qualname__}")
    assert unbounded <= FINITE_DOMAIN


def test_budget_clears_its_tables_when_spent() -> None:
    table: dict[int, int] = {}
    budget = Budget(3)
    budget.watch(table.clear)
    for i in range(3):
        budget.spend()
        table[i] = i
    assert len(table) == 3 and budget.used() == 3
    budget.spend()
    table[3] = 3
    assert table == {3: 3} and budget.used() == 1
    assert MEMO_LIMIT == 50_000


def _follow_tables() -> int:
    plays = sum(len(lay.plays) for lay in follow._LAYOUTS.values())
    return (
        plays
        + len(follow._PLANS)
        + len(follow._BLOCK_PLANS)
        + len(follow._SPELLED)
        + len(follow._PREPARED)
        + sum(step.size for p in follow._PREPARED.values() for step in p._done)
    )


def _ladder_tables() -> int:
    return len(ladder._LADDERS) + sum(
        len(block.rungs) for lazy in ladder._LADDERS.values() for block in lazy._done
    )


@pytest.fixture
def small_budgets(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    bound = 400
    for budget in (follow._BUDGET, ladder._BUDGET):
        monkeypatch.setattr(budget, "limit", bound)
        budget.reset()
    yield bound
    for budget in (follow._BUDGET, ladder._BUDGET):
        budget.reset()


@pytest.mark.parametrize("rules", [FOUR_DECK, RBTYING], ids=["four-deck", "rbtying"])
def test_memo_tables_stay_within_their_bound_over_many_distinct_follows(
    small_budgets: int, rules: RuleSet
) -> None:
    """Hundreds of different throws and follows (R5.3) with a bound of 400 entries: the tables
    never hold more, and the verdicts are those of a fresh start — under both `throw_ladder`
    values (the rbtying preset's is `one_at_a_time`)."""
    trump = parse_trump("S", "2")
    rng = random.Random(10)
    hearts = [c for c in range(54) if trump.eff[c] == 1]
    peak_follow = peak_ladder = 0
    judged = 0
    while judged < 600:
        pool = [c for c in hearts for _ in range(4)]
        rng.shuffle(pool)
        lead_cards = tuple(sorted(pool[: rng.randint(3, 9)]))
        try:
            reading = read_lead(lead_cards, trump, rules)
        except PlayError:
            continue
        rest = pool[len(lead_cards) :]
        holding = Hand.of(rest[: rng.randint(len(lead_cards), len(lead_cards) + 8)])
        play = tuple(rng.sample(list(holding), len(lead_cards)))
        before = follow.check_follow(reading, holding, play, trump, rules)
        after_play = list(holding.counts)
        for c in play:
            after_play[c] -= 1
        fast = follow.follow_is_legal(reading, after_play, play, trump, rules)
        assert fast == before.legal
        judged += 1
        peak_follow = max(peak_follow, _follow_tables())
        peak_ladder = max(peak_ladder, _ladder_tables())
    assert 0 < peak_follow <= small_budgets
    assert 0 < peak_ladder <= small_budgets
