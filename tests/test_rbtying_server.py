"""The `rbtying` preset copies the rbtying/shengji server (commit 71f8d43) where its code departs
from R4.2, R4.3, R4.4 and R6.2 as written: options `tractor_width`, `throw_block_search`,
`forced_order` and `winning_split` (docs/rules.md, "Where the rbtying server departs from the
rule book").

Each class is checked through the referee and through a replayed hand, with the issue's examples
and cases of our own. Every expected verdict was worked out by hand through the server's code —
the function named beside each case — not read off this engine.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hh_builder import PLAYERS

from bench.rbtying_server import Case, ours
from shengji.cards import Card, Hand, card_rank, format_cards, parse_cards
from shengji.combos import iter_matches, read_lead, suit_layout
from shengji.follow import random_legal_play
from shengji.rbtying import blocks, first_defeating, format_matches, server_order, server_units
from shengji.record import Bury, Deal, HandRecord, Play, Show
from shengji.referee import judge
from shengji.replay import replay_record
from shengji.rules import FOUR_DECK, RBTYING, RuleError, RuleSet, rules_from_spec
from shengji.shape import Component
from shengji.throws import _beating
from shengji.trump import TRUMP, parse_trump, trump_context

TEXTBOOK = {
    "tractor_width": "fewest",
    "throw_block_search": "any_start",
    "forced_order": "size_top",
    "winning_split": "strongest",
}
"""The four options at their rule-book values."""


def ref(kind: str, rules: Any = "rbtying", **fields: Any) -> dict[str, Any]:
    got = judge({"id": 1, "kind": kind, "rules": rules, **fields}).response
    assert "error" not in got, got
    return got


def reading(cards: str, trump: str, level: str, rules: Any = "rbtying") -> list[str]:
    got = ref("format", rules, trump=trump, level=level, cards=cards)
    return [c["cards"] for c in got["components"]]


def without(option: str) -> dict[str, Any]:
    """The rbtying preset with one of the four options back at its rule-book value."""
    return {"preset": "rbtying", option: TEXTBOOK[option]}


def textbook() -> dict[str, Any]:
    return {"preset": "rbtying", **TEXTBOOK}


# --- the options ---------------------------------------------------------------------------------


def test_the_preset_sets_the_four_options_and_the_defaults_keep_the_rule_book() -> None:
    assert (
        RBTYING.tractor_width,
        RBTYING.throw_block_search,
        RBTYING.forced_order,
        RBTYING.winning_split,
    ) == ("running", "from_second_card", "size_lowest_card", "first_match")
    for name, value in TEXTBOOK.items():
        assert getattr(FOUR_DECK, name) == value
        assert rules_from_spec({"preset": "rbtying", name: value}).spec() == {
            "preset": "rbtying",
            name: value,
        }
    assert rules_from_spec("rbtying").spec() == "rbtying"
    with pytest.raises(RuleError, match="winning_split='best' is not one of"):
        rules_from_spec({"winning_split": "best"})


# --- R4.2 `tractor_width`: one running width across the level-card branches -----------------------

# `find_tractors_from_start` (mechanics/src/trick.rs) climbs breadth first from the lowest card
# and lowers ONE width by every face it reaches, on any branch; `find_plays_inner` lists the
# splits (each tractor found, then the unit) and `TrickFormat::from_cards` keeps the last split
# whose greatest (size, is tractor) is greatest.
R4_2_CASES = [
    # The example: A♠(3) climbs to 2♥(2) first, so the ♣ branch is two wide.
    (
        "S",
        "2",
        "AS AS AS 2H 2H 2C 2C 2C",
        ["AS AS 2C 2C", "2H 2H", "2C", "AS"],
        ["AS AS AS 2C 2C 2C", "2H 2H"],
    ),
    # ♦ trump, level 5: A♦(3) reaches 5♠(2) before 5♥(3); of the two ⟨2-2⟩ splits the ♥ one is
    # found last.
    (
        "D",
        "5",
        "AD AD AD 5S 5S 5H 5H 5H",
        ["AD AD 5H 5H", "5S 5S", "5H", "AD"],
        ["AD AD AD 5H 5H 5H", "5S 5S"],
    ),
    # The cap holds on the next rung too: K♠(3) A♠(3), then 2♥(2) lowers the width before 2♣(3).
    (
        "S",
        "2",
        "KS KS KS AS AS AS 2H 2H 2C 2C 2C",
        ["KS KS AS AS 2C 2C", "2H 2H", "2C", "AS", "KS"],
        ["KS KS KS AS AS AS 2C 2C 2C", "2H 2H"],
    ),
    # Capped at two, no split from A♠ beats ⟨2♣2♣2♣-2♠2♠2♠⟩, found in the last branch (A♠'s
    # unit, then 2♥'s unit): the A♠ triple stays whole.
    (
        "S",
        "2",
        "AS AS AS 2H 2H 2C 2C 2C 2S 2S 2S",
        ["2C 2C 2C 2S 2S 2S", "AS AS AS", "2H 2H"],
        ["AS AS AS 2C 2C 2C 2S 2S 2S", "2H 2H"],
    ),
]


@pytest.mark.parametrize(("trump", "level", "cards", "server", "book"), R4_2_CASES)
def test_r4_2_running_width_reads_as_the_server(
    trump: str, level: str, cards: str, server: list[str], book: list[str]
) -> None:
    assert reading(cards, trump, level) == server
    assert reading(cards, trump, level, without("tractor_width")) == book


def test_r4_2_running_width_caps_a_blocking_tractor_too() -> None:
    """The same climb looks for a blocker (`Trick::play_cards`): A♠(3) reaches 2♥(2) before
    2♣(3), so seat 1's ⟨A♠A♠A♠-2♣2♣2♣⟩ is never found three wide and the thrown ⟨Q♠Q♠Q♠-K♠K♠K♠⟩
    stands; by R4.3's text it is beaten."""
    hands = [
        "QS QS QS KS KS KS BJ",
        "AS AS AS 2H 2H 2C 2C 2C 3S",
        "3C 4C 5C 6C 7C 8C 9C",
        "3D 4D 5D 6D 7D 8D 9D",
    ]
    got = ref("trick", trump="S", level="2", hands=hands, plays=hands[:1] + _sevens(hands))
    assert got["throw"] == {"failed": False, "forced": None, "blocker": None}
    assert got["winner"] == 0
    book = ref(
        "trick",
        without("tractor_width"),
        trump="S",
        level="2",
        hands=hands,
        plays=[
            "QS QS QS KS KS KS BJ",
            "AS AS AS 2C 2C 2C",
            "3C 4C 5C 6C 7C 8C",
            "3D 4D 5D 6D 7D 8D",
        ],
    )
    assert book["throw"] == {"failed": True, "forced": "QS QS QS KS KS KS", "blocker": 1}


def _sevens(hands: Sequence[str]) -> list[str]:
    """Each follower's first seven cards."""
    return [" ".join(h.split()[:7]) for h in hands[1:]]


# --- R4.3 `throw_block_search`: a blocking tractor only from the thrown tractor's second card up ---

# `Trick::play_cards`: for a thrown tractor it tries `find_tractors_from_start` from every held
# card in `in_suit.range(members[1]..)`, the order of `Trump::compare` (equal strength: ♠ ♥ ♦ ♣).
R4_3_CASES = [
    # The example: 2♦ sorts before 2♣, the thrown tractor's second card.
    (
        "S",
        "2",
        "AS AS 2C 2C 2H 2H 2H",
        "2D 2D 2S 2S 3H 4H 5H",
        "AS AS 2C 2C",
    ),
    # ♥ trump, level 7: 7♦ sorts before 7♣; the single BJ is beaten by nobody.
    (
        "H",
        "7",
        "AH AH 7C 7C BJ",
        "7D 7D 7H 7H 3C",
        "AH AH 7C 7C",
    ),
    # ♣ trump, level 3: 3♠ sorts before 3♦.
    (
        "C",
        "3",
        "AC AC AC 3D 3D 3D BJ",
        "3S 3S 3S 3C 3C 3C 4H",
        "AC AC AC 3D 3D 3D",
    ),
]


@pytest.mark.parametrize(("trump", "level", "lead", "blocker", "forced"), R4_3_CASES)
def test_r4_3_the_server_misses_a_tractor_starting_below_the_second_card(
    trump: str, level: str, lead: str, blocker: str, forced: str
) -> None:
    size = len(lead.split())
    others = ["3C 4C 5C 6C 7C 8C 9C", "4D 5D 6D 8D 9D TD JD"]
    hands = [lead, blocker, *others]
    plays = [lead, *(" ".join(h.split()[:size]) for h in hands[1:])]
    got = ref("trick", trump=trump, level=level, hands=hands, plays=plays)
    assert got["throw"] == {"failed": False, "forced": None, "blocker": None}
    n = len(forced.split())
    book_plays = [lead, *(" ".join(h.split()[:n]) for h in hands[1:])]
    book = ref(
        "trick", without("throw_block_search"), trump=trump, level=level, hands=hands,
        plays=book_plays,
    )  # fmt: skip
    assert book["throw"] == {"failed": True, "forced": forced, "blocker": 1}


def test_r4_3_a_tractor_from_the_second_card_or_above_still_blocks() -> None:
    """From 2♥ (the second card of ⟨A♠A♠-2♥2♥⟩) the search reaches 2♣ and its ⟨2♣2♣-2♠2♠⟩."""
    hands = ["AS AS 2H 2H BJ", "2C 2C 2S 2S 3H", "3C 4C 5C 6C 7C", "4D 5D 6D 8D 9D"]
    plays = ["AS AS 2H 2H BJ", "2C 2C 2S 2S", "3C 4C 5C 6C", "4D 5D 6D 8D"]
    got = ref("trick", trump="S", level="2", hands=hands, plays=plays)
    assert got["throw"] == {"failed": True, "forced": "AS AS 2H 2H", "blocker": 1}
    assert got["winner"] == 1


# --- R4.4 `forced_order`: (size, lowest card) ------------------------------------------------------

# `Trick::play_cards` forces the first unit of the `TrickFormat` (sorted by size, then first
# card) that the first blocking seat beats.
R4_4_CASES = [
    # The example: A♠ sorts before 2♥; by the top card the quad's ♥ is the lower suit.
    ("S", "2", "AS AS 2D 2D 2H 2H 2H 2H", "AS AS 2D 2D", "2H 2H 2H 2H"),
    # ♥ trump, level 9: A♥ before 9♠; by the top card 9♠ is below 9♣.
    ("H", "9", "AH AH 9C 9C 9S 9S 9S 9S", "AH AH 9C 9C", "9S 9S 9S 9S"),
]


@pytest.mark.parametrize(("trump", "level", "lead", "server", "book"), R4_4_CASES)
def test_r4_4_the_first_blocker_forces_the_lowest_first_card(
    trump: str, level: str, lead: str, server: str, book: str
) -> None:
    hands = [lead, "SJ SJ SJ SJ BJ BJ 3H 4S", "3C 4C 5C 6C 7C 8C TC JC", "3D 4D 5D 6D 7D 8D TD JD"]
    plays = [lead, "SJ SJ BJ BJ", "3C 4C 5C 6C", "3D 4D 5D 6D"]
    got = ref("trick", trump=trump, level=level, hands=hands, plays=plays)
    assert got["throw"] == {"failed": True, "forced": server, "blocker": 1}
    assert got["winner"] == 1
    plays[1] = "SJ SJ SJ SJ"
    other = ref(
        "trick", without("forced_order"), trump=trump, level=level, hands=hands, plays=plays
    )
    assert other["throw"] == {"failed": True, "forced": book, "blocker": 1}


def test_r4_4_two_tractors_from_one_card_keep_the_order_the_server_found_them_in() -> None:
    """⟨A♠A♠-2♥2♥⟩ and ⟨A♠A♠-2♣2♣⟩ are alike in size and first card: the server's split lists
    them as found (`find_plays_inner`: the ♣ tractor's branch is the last with a ⟨2-2⟩, and it
    holds the ♥ tractor before it), so a blocker beating both forces the ♥ one."""
    trump = parse_trump("S", "2")
    lead = read_lead(parse_cards("AS AS AS AS 2H 2H 2C 2C"), trump, RBTYING)
    units = server_units(lead.cards(), trump)
    assert [format_cards(u.cards()) for u in units] == ["AS AS 2H 2H", "AS AS 2C 2C"]
    order = server_order(lead, trump, RBTYING)
    assert [format_cards(lead.components[i].cards()) for i in order] == [
        "AS AS 2H 2H",
        "AS AS 2C 2C",
    ]


# --- R6.2 `winning_split`: the first reading the server's matcher finds ---------------------------

# `Trick::compute_winner` keeps, for a play that beats, the first match of
# `find_format_matches` (format_match.rs) that `_defeats` the winner: its queue places the
# shapes in order (singles, pairs, tractors …), each from the highest cards down.
R6_2_CASES = [
    # The example: seat 1 is read 6♥ 6♥ ⟨4♥4♥-5♥5♥⟩; 5♥ 5♥ ⟨8♥8♥-9♥9♥⟩ does not beat it.
    ("H", "9S TS QS QS KS KS", "4H 4H 5H 5H 6H 6H", "5H 5H 8H 8H 9H 9H", 1, 2),
    # The other way round: against 6♥ 6♥ ⟨4♥4♥-5♥5♥⟩, 8♥ 8♥ ⟨5♥5♥-6♥6♥⟩ beats; against the
    # strongest reading ⟨5♥5♥-6♥6♥⟩ 4♥ 4♥ nothing of seat 2's does.
    ("H", "9S TS QS QS KS KS", "4H 4H 5H 5H 6H 6H", "5H 5H 6H 6H 8H 8H", 2, 1),
    # Pairs: seat 1 is read 7♠7♠ ⟨5♠5♠-6♠6♠⟩, which 6♠6♠ ⟨8♠8♠-9♠9♠⟩ does not beat.
    ("S", "9D 9D JD JD QD QD", "5S 5S 6S 6S 7S 7S", "6S 6S 8S 8S 9S 9S", 1, 2),
]


@pytest.mark.parametrize(("trump", "lead", "first", "second", "server", "book"), R6_2_CASES)
def test_r6_2_a_ruff_keeps_the_first_reading_the_server_finds(
    trump: str, lead: str, first: str, second: str, server: int, book: int
) -> None:
    led = lead.split()[0][-1]
    low = " ".join(f"{r}{led}" for r in "345678"[: len(lead.split())])
    hands = [lead, first, second, low]
    got = ref("trick", trump=trump, level="2", hands=hands, plays=hands)
    assert got["throw"] == {"failed": False, "forced": None, "blocker": None}
    assert (got["winner"], got["illegal"]) == (server, [])
    other = ref("trick", without("winning_split"), trump=trump, level="2", hands=hands, plays=hands)
    assert other["winner"] == book


def test_r6_2_the_first_match_follows_the_servers_queue() -> None:
    """The order of `find_format_matches` itself: for the format (single, single, ⟨2-2⟩) and
    4♥ 4♥ 5♥ 5♥ 6♥ 6♥ (♥ trump) the singles take the highest cards first, and a state is
    finished only after every state of fewer placed shapes (a breadth-first queue)."""
    trump = parse_trump("H", "2")
    cards = parse_cards("4H 4H 5H 5H 6H 6H")
    got = [
        " | ".join(" ".join(f"{format_cards((c,))}×{n}" for c, n in m) for m in found)
        for found in format_matches([(1,), (1,), (2, 2)], cards, trump)
    ]
    assert got == [
        "6H×1 | 6H×1 | 4H×2 5H×2",
        "4H×1 | 4H×1 | 5H×2 6H×2",
    ]


@pytest.mark.parametrize(
    ("policy", "beats"), [("all", False), ("highest", True), ("longest_unit", True)]
)
def test_r6_2_the_servers_throw_policies_judge_the_kept_reading(policy: str, beats: bool) -> None:
    """`Trick::_defeats` under each `ThrowEvaluationPolicy` against seat 1's kept 6♥ 6♥
    ⟨4♥4♥-5♥5♥⟩: 5♥ 5♥ ⟨8♥8♥-9♥9♥⟩ has a lower single (`All` fails) but the higher top card
    (`Highest`) and the higher tractor, singles skipped (`TrickUnitLength`)."""
    rules = rules_from_spec({"preset": "rbtying", "throw_compare": policy})
    trump = parse_trump("H", "2")
    lead = read_lead(parse_cards("9S TS QS QS KS KS"), trump, rules)
    kept = first_defeating(parse_cards("4H 4H 5H 5H 6H 6H"), lead, lead.components, trump, rules)
    assert kept is not None
    assert [format_cards(c.cards()) for c in kept] == ["4H 4H 5H 5H", "6H", "6H"]
    got = first_defeating(parse_cards("5H 5H 8H 8H 9H 9H"), lead, kept, trump, rules)
    assert (got is not None) == beats


# --- the ports agree with the rule book's engine wherever the server does not depart ------------


def _random_lead(rng: random.Random) -> tuple[Any, tuple[Card, ...]]:
    suit = rng.choice([0, 1, 2, 3, None])
    trump = trump_context(suit, rng.choice([2, 3, 5, 9, 13, 14]))
    faces = sorted(
        (c for c in range(54) if trump.eff[c] == rng.choice([TRUMP, TRUMP, 0, 1, 2, 3])),
        key=trump.pos.__getitem__,
    )
    window = faces[-rng.randint(3, 8) :]
    cards = tuple(sorted(f for f in window for _ in range(rng.choice([0, 1, 2, 2, 3, 4]))))
    return trump, cards


@pytest.mark.parametrize("seed", range(4))
def test_the_split_port_without_the_running_width_is_r4_2_lowest_first(seed: int) -> None:
    """With one width per branch, the server's split (`server_units`) is exactly R4.2
    `lowest_first` as this engine reads it (worked out independently, tests/test_combos.py)."""
    rng = random.Random(seed)
    rules = replace(RBTYING, tractor_width="fewest")
    for _ in range(300):
        trump, cards = _random_lead(rng)
        if not cards or len({trump.eff[c] for c in cards}) > 1:
            continue
        ours = read_lead(cards, trump, rules).components
        theirs = server_units(cards, trump, running=False)
        assert sorted((c.width, c.faces) for c in ours) == sorted(
            (u.width, u.faces) for u in theirs
        ), format_cards(cards)


@pytest.mark.parametrize("seed", range(3))
def test_the_matcher_port_finds_exactly_the_engines_splits(seed: int) -> None:
    """`find_format_matches` as ported lists the same splits of a ruff into a throw's shape as
    `combos.iter_matches`, each once: only their order differs."""
    rng = random.Random(seed)
    checked = 0
    while checked < 150:
        suit = rng.randrange(4)
        trump = trump_context(suit, rng.choice([2, 3, 9, 13, 14]))
        led = rng.choice([s for s in range(4) if s != suit])
        layout = suit_layout(trump, led)
        cards = tuple(f for f in layout.faces for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 2, 3])))
        if not 3 <= len(cards) <= 10:
            continue
        lead = read_lead(cards, trump, RBTYING)
        if not lead.is_throw:
            continue
        top = suit_layout(trump, TRUMP).faces[-8:]
        play: list[Card] = []
        while len(play) < len(cards):
            face = rng.choice(top)
            if play.count(face) < 4:
                play.append(face)
        comps = lead.components
        shapes = [
            tuple([comps[i].width] * comps[i].length) for i in server_order(lead, trump, RBTYING)
        ]
        theirs = [
            sorted((m[0][1], tuple(c for c, _ in m)) for m in found)
            for found in format_matches(shapes, play, trump)
        ]
        ours = [
            sorted((c.width, c.faces) for c in split)
            for split in iter_matches(play, lead, trump, RBTYING)
        ]
        assert len(theirs) == len({tuple(t) for t in theirs})
        assert sorted(theirs) == sorted(ours)
        checked += 1


@pytest.mark.parametrize("seed", range(3))
def test_the_blocker_search_never_blocks_where_r4_3_does_not(seed: int) -> None:
    """The server's blocker search only misses tractors (R4.3 `throw_block_search`): it finds
    none that R4.3's text would not find too."""
    rng = random.Random(seed)
    for _ in range(800):
        trump = trump_context(rng.randrange(4), rng.choice([2, 3, 9, 14]))
        layout = suit_layout(trump, TRUMP)
        width, length = rng.randint(2, 3), rng.randint(2, 3)
        p0 = rng.randint(len(layout.at) - length - 4, len(layout.at) - length)
        faces = tuple(rng.choice(layout.at[p]) for p in range(p0, p0 + length))
        thrown = Component(width, faces, p0 + length - 1)
        counts = [0] * 54
        for f in layout.faces:
            if trump.pos[f] >= p0 - 1:
                counts[f] = rng.choice([0, 0, 1, 2, 2, 3, 4])
        if blocks(thrown, counts, TRUMP, trump, RBTYING):
            assert _beating(thrown, counts, layout, RBTYING) is not None


# --- through a replayed hand -----------------------------------------------------------------------


def _hand(
    trump: str,
    level: str,
    held: Sequence[str],
    allowed: Sequence[Callable[[Card], bool]],
    lead: str,
    forced: str | None,
    follows: Sequence[str | None],
) -> HandRecord:
    """A hand at `level` under `rbtying` whose first trick is the case: seat 0 shows the trump
    with its first card (the trump suit's level card) and leads `lead`; each seat holds
    `held[seat]` and 52 cards in all, the rest dealt from the shoe to the seats whose `allowed`
    takes them (the fewest takers first) and the bottom, which the banker buries again. The hand
    stops after the first trick (`abandoned`); a follow of None is a legal one chosen at random."""
    ctx = parse_trump(trump, level)
    level_card = "SHCD".index(trump) * 13 + ctx.level - 2
    seats = [list(parse_cards(h)) for h in held]
    seats[0].insert(0, level_card)
    shoe = [c for c in range(54) for _ in range(4)]
    for cards in seats:
        for c in cards:
            shoe.remove(c)
    shoe.sort(key=lambda c: (sum(1 for ok in allowed if ok(c)), c))
    bottom: list[Card] = []
    for c in shoe:
        seat = next((s for s in (1, 2, 3, 0) if len(seats[s]) < 52 and allowed[s](c)), None)
        if seat is None:
            assert len(bottom) < 8, f"no place for {format_cards((c,))}"
            bottom.append(c)
        else:
            seats[seat].append(c)
    assert all(len(s) == 52 for s in seats) and len(bottom) == 8
    deal = Deal(0, tuple(seats[i % 4][i // 4] for i in range(208)) + tuple(bottom))
    attempted = parse_cards(lead)
    played = parse_cards(forced) if forced else attempted
    reading = read_lead(played, ctx, RBTYING)
    rng = random.Random(7)
    plays = [Play(0, attempted, parse_cards(forced) if forced else None)]
    for seat in (1, 2, 3):
        follow = follows[seat - 1]
        hand = Hand.of(seats[seat])
        if follow:
            answer = tuple(parse_cards(follow))
        else:
            answer = random_legal_play(reading, hand, ctx, RBTYING, rng)
        plays.append(Play(seat, answer))
    return HandRecord(
        hand_id=f"rbtying-{lead}",
        source="tests",
        players=PLAYERS,
        levels=(ctx.level, ctx.level),
        deal=deal,
        rules=RBTYING,
        banker=0,
        bids=(Show(0, (level_card,), 1),),
        bury=Bury(0, tuple(bottom)),
        plays=tuple(plays),
        end="abandoned",
    )


def _anyone(card: Card) -> bool:
    return True


def _low_trumps_or_side(trump: str, level: str) -> Callable[[Card], bool]:
    """Side-suit cards, and trumps of the trump suit below its A (no level card, no joker): such
    a holding never beats a thrown component of the A, the level cards or the jokers."""
    ctx = parse_trump(trump, level)
    suit = "SHCD".index(trump)

    def allowed(card: Card) -> bool:
        if ctx.eff[card] != TRUMP:
            return True
        return card < 52 and card // 13 == suit and card_rank(card) not in (ctx.level, 14)

    return allowed


def _replay_first_trick(record: HandRecord) -> Any:
    replay = replay_record(record)
    assert replay.findings == () and replay.status == "ok", replay.findings
    return replay.tricks[0]


def _component_cards(record: HandRecord, rules: RuleSet, trump: str, level: str) -> list[str]:
    reading = read_lead(record.plays[0].cards, parse_trump(trump, level), rules)
    return [format_cards(c.cards()) for c in reading.components]


@pytest.mark.parametrize(
    ("trump", "level", "lead", "book"),
    [
        ("S", "2", "AS AS AS 2H 2H 2C 2C 2C", ["AS AS AS 2C 2C 2C", "2H 2H"]),
        ("D", "5", "AD AD AD 5S 5S 5H 5H 5H", ["AD AD AD 5H 5H 5H", "5S 5S"]),
    ],
)
def test_replayed_r4_2_a_single_joker_beats_the_servers_loose_single_ace(
    trump: str, level: str, lead: str, book: list[str]
) -> None:
    """Read as the server reads it, the lead leaves a single A and a single level card, which
    seat 1's one SJ beats: the throw fails and the A (size 1, the lower first card) is forced.
    Read by R4.2's text (`book`), the lone SJ beats nothing."""
    safe = _low_trumps_or_side(trump, level)
    ace = f"A{trump}"
    record = _hand(
        trump, level, [lead, "SJ", "", ""], [_anyone, safe, safe, safe], lead, ace,
        ["SJ", None, None],
    )  # fmt: skip
    trick = _replay_first_trick(record)
    assert trick.throw.failed and format_cards(trick.throw.forced) == ace
    assert trick.throw.blocker == 1 and trick.winner == 1
    assert _component_cards(record, replace(RBTYING, tractor_width="fewest"), trump, level) == book


@pytest.mark.parametrize(
    ("trump", "level", "lead", "blocker"),
    [
        ("S", "2", "AS AS 2C 2C 2H 2H 2H", "2D 2D 2S 2S"),
        ("H", "7", "AH AH 7C 7C BJ", "7D 7D 7H 7H"),
    ],
)
def test_replayed_r4_3_the_throw_the_server_lets_stand(
    trump: str, level: str, lead: str, blocker: str
) -> None:
    safe = _low_trumps_or_side(trump, level)
    record = _hand(
        trump, level, [lead, blocker, "", ""], [_anyone, safe, safe, safe], lead, None,
        [None, None, None],
    )  # fmt: skip
    trick = _replay_first_trick(record)
    assert not trick.throw.failed and trick.winner == 0
    # By R4.3's text seat 1's tractor beats the thrown one: the table's verdict is then a
    # departure, flagged.
    book = replay_record(replace(record, rules=replace(RBTYING, throw_block_search="any_start")))
    assert [f.code for f in book.findings] == ["throw_claim_mismatch"]


@pytest.mark.parametrize(
    ("trump", "level", "lead", "forced"),
    [
        ("S", "2", "AS AS 2D 2D 2H 2H 2H 2H", "AS AS 2D 2D"),
        ("H", "9", "AH AH 9C 9C 9S 9S 9S 9S", "AH AH 9C 9C"),
    ],
)
def test_replayed_r4_4_the_forced_tractor(trump: str, level: str, lead: str, forced: str) -> None:
    safe = _low_trumps_or_side(trump, level)
    record = _hand(
        trump, level, [lead, "SJ SJ SJ SJ BJ BJ", "", ""], [_anyone, safe, safe, safe], lead,
        forced, ["SJ SJ BJ BJ", None, None],
    )  # fmt: skip
    trick = _replay_first_trick(record)
    assert trick.throw.failed and trick.throw.blocker == 1
    assert format_cards(trick.throw.forced) == forced and trick.winner == 1
    # Forcing by top card (the quad's suit is the lower), the table's forced claim is flagged.
    book = replay_record(replace(record, rules=replace(RBTYING, forced_order="size_top")))
    assert "throw_claim_mismatch" in [f.code for f in book.findings]


@pytest.mark.parametrize(
    ("trump", "lead", "first", "second"),
    [
        ("H", "9S TS QS QS KS KS", "4H 4H 5H 5H 6H 6H", "5H 5H 8H 8H 9H 9H"),
        ("S", "9D 9D JD JD QD QD", "5S 5S 6S 6S 7S 7S", "6S 6S 8S 8S 9S 9S"),
    ],
)
def test_replayed_r6_2_the_first_ruff_keeps_its_first_reading(
    trump: str, lead: str, first: str, second: str
) -> None:
    ctx = parse_trump(trump, "2")
    led = ctx.eff[parse_cards(lead)[0]]

    def void(card: Card) -> bool:
        return ctx.eff[card] != led

    def low_or_other(card: Card) -> bool:
        return ctx.eff[card] != TRUMP and (ctx.eff[card] != led or card_rank(card) < 9)

    record = _hand(
        trump, "2", [lead, first, second, ""], [_anyone, void, void, low_or_other], lead, None,
        [first, second, None],
    )  # fmt: skip
    trick = _replay_first_trick(record)
    assert not trick.throw.failed and trick.winner == 1
    strongest = replay_record(replace(record, rules=replace(RBTYING, winning_split="strongest")))
    assert strongest.tricks[0].winner == 2


# --- cases judged by the server's own code ---------------------------------------------------------

SERVER_CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "rbtying_server_cases.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
]
"""Hard cases judged by the server's rules code (commit 71f8d43) built and run by
`python -m bench.rbtying_server --golden`: every case that one of the four options at its
rule-book value gets wrong (`classes`), and a sample of the others."""


@pytest.mark.parametrize(
    "case", SERVER_CASES, ids=[f"{i}-{c['family']}" for i, c in enumerate(SERVER_CASES)]
)
def test_the_referee_agrees_with_the_servers_verdicts(case: dict[str, Any]) -> None:
    judged = Case(case["family"], case["request"])
    assert ours(judged) == case["server"]
    for name in case["classes"]:
        assert ours(judged, without(name)) != case["server"], name


def test_the_server_cases_cover_every_class() -> None:
    covered = Counter(name for case in SERVER_CASES for name in case["classes"])
    assert set(covered) == set(TEXTBOOK) and min(covered.values()) >= 5, covered
