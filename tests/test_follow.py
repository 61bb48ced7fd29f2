"""R5 following: count (R5.1), short and void follows (R5.2), the ladder (R5.3) and its options.

The property tests at the end compare the engine with a brute-force oracle written here from the
rule text alone: every assignment of cards to a rung's slots is tried, with no best-fit shortcut.
They run under both `throw_ladder` values. The oracle's ladders: a lead of one component takes its
row of LADDERS.md, written out here; a `one_at_a_time` throw composes those rows by R5.3's text
(`oracle_one_at_a_time`); a `widest_first` throw takes the engine's derivation, which
tests/test_ladders.py checks against every row of LADDERS.md.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from shengji.cards import Card, Hand, format_card, parse_cards
from shengji.combos import PlayError, read_lead
from shengji.follow import (
    check_follow,
    demand,
    follow_is_legal,
    ladder_plays,
    legal_plays,
    play_kind,
    random_legal_play,
)
from shengji.ladder import Rung, format_rung, ladder, ladder_of_shape
from shengji.rules import FOUR_DECK, RBTYING, TWO_DECK, RuleSet
from shengji.shape import Reading
from shengji.trump import NO_LOW, TRUMP, TrumpContext, parse_trump, trump_context

T = parse_trump("S", "2")  # trump ♠, level 2: ♥ runs 3..A on positions 0..11, the A also on -1
PROTECT = replace(FOUR_DECK, protect_longer_units=True)
ONE_AT_A_TIME = replace(FOUR_DECK, throw_ladder="one_at_a_time")


def lead(tokens: str, trump: TrumpContext = T, rules: RuleSet = FOUR_DECK) -> Reading:
    return read_lead(parse_cards(tokens), trump, rules)


def hand(tokens: str) -> Hand:
    return Hand.of(parse_cards(tokens))


def judge(
    lead_: Reading,
    held: str,
    play: str,
    trump: TrumpContext = T,
    rules: RuleSet = FOUR_DECK,
):
    return check_follow(lead_, hand(held), parse_cards(play), trump, rules)


# --- R5.1 -----------------------------------------------------------------------------------


def test_r5_1_wrong_card_count_is_illegal() -> None:
    pair = lead("7H 7H")
    for play in ("9H", "9H 9H 9H"):
        verdict = judge(pair, "9H 9H 9H JH", play)
        assert not verdict.legal
        assert verdict.rule == "R5.1"
        assert "2-card lead" in verdict.reason


def test_r5_1_cards_not_in_hand_are_illegal_and_named() -> None:
    verdict = judge(lead("7H 7H"), "9H JH", "9H 9H")
    assert not verdict.legal
    assert verdict.rule == "R5.1"
    assert verdict.reason.startswith("plays 9♥ not in hand")


# --- R5.2 -----------------------------------------------------------------------------------


def test_r5_2_short_follower_plays_every_led_card_and_adds_anything() -> None:
    tractor = lead("5H 5H 6H 6H")
    held = "7H 9H 3C 4C 5D 3S"
    ok = judge(tractor, held, "7H 9H 3C 3S")
    assert (ok.legal, ok.rule, ok.kind) == (True, "R5.2", "short")
    bad = judge(tractor, held, "7H 3C 4C 5D")
    assert (bad.legal, bad.rule, bad.kind) == (False, "R5.2", "short")
    assert bad.reason == "must play all 2 ♥ held (7♥ 9♥); played 7♥ 3♣ 4♣ 5♦"


def test_r5_2_void_follower_ruffs_or_discards_freely() -> None:
    pair = lead("7H 7H")
    held = "3S 3S 4C 5D"
    ruff = judge(pair, held, "3S 3S")
    assert (ruff.legal, ruff.kind) == (True, "ruff")
    assert ruff.reason == "void in ♥; ruffs"
    mixed = judge(pair, held, "3S 4C")
    assert (mixed.legal, mixed.kind) == (True, "discard")
    off = judge(pair, held, "4C 5D")
    assert (off.legal, off.kind) == (True, "discard")


def test_r5_2_trump_lead_void_follower_discards() -> None:
    verdict = judge(lead("3S 3S"), "4H 5H 6C", "4H 6C")
    assert (verdict.legal, verdict.rule, verdict.kind) == (True, "R5.2", "discard")


def test_r5_2_trump_lead_counts_level_cards_and_jokers_as_the_led_suit() -> None:
    """R2.2: a follower to a trump lead holding one joker and one level card holds two trumps."""
    trump_pair = lead("3S 3S")
    held = "SJ 2H 4C 5C"
    assert judge(trump_pair, held, "SJ 2H").legal
    verdict = judge(trump_pair, held, "SJ 4C")
    assert (verdict.legal, verdict.rule) == (False, "R5.3")
    assert verdict.reason == "must follow trump (2 held); played 4♣ SJ"


# --- R5.3: the suit, then the ladder ----------------------------------------------------------


def test_r5_3_a_follower_with_enough_of_the_suit_plays_only_the_suit() -> None:
    verdict = judge(lead("7H 7H"), "9H JH 3C", "9H 3C")
    assert (verdict.legal, verdict.rule, verdict.kind) == (False, "R5.3", "short")
    assert verdict.reason == "must follow ♥ (2 held); played 9♥ 3♣"


def test_r5_3_single_lead_takes_any_card_of_the_suit() -> None:
    single = lead("7H")
    for play in ("9H", "JH", "AH"):
        verdict = judge(single, "9H JH AH AH 3C", play)
        assert (verdict.legal, verdict.kind) == (True, "follow")


def test_r5_3_reason_names_the_rung_and_quotes_the_holding() -> None:
    verdict = judge(lead("5H 5H 6H 6H"), "7H 7H 8H 8H 9H JH 3C", "7H 7H 9H JH")
    assert not verdict.legal
    assert verdict.rung == ((2, 2),)
    assert verdict.reason == "must play <2-2> from 7♥7♥8♥8♥ held; played 7♥ 7♥ 9♥ J♥"


def test_r5_3_a_triple_gives_a_pair_to_a_pair_lead() -> None:
    pair = lead("5H 5H")
    held = "7H 7H 7H 9H JH"
    assert judge(pair, held, "7H 7H").legal
    verdict = judge(pair, held, "9H JH")
    assert not verdict.legal
    assert verdict.reason == "must play 2 from 7♥7♥ held; played 9♥ J♥"


def test_r5_3_r6_3_a_quad_answers_a_tractor_as_its_two_pairs() -> None:
    """R5.3's R6.3 note: with no tractor held, <2-2> → 2+2 is met by a quad."""
    tractor = lead("5H 5H 6H 6H")
    held = "9H 9H 9H 9H JH QH"
    quad = judge(tractor, held, "9H 9H 9H 9H")
    assert (quad.legal, quad.rung) == (True, ((2,), (2,)))
    loose = judge(tractor, held, "9H 9H JH QH")
    assert (loose.legal, loose.rung) == (False, ((2,), (2,)))
    # With a tractor held the quad no longer meets the first rung the holding can.
    held_tractor = "9H 9H 9H 9H QH QH KH KH"
    verdict = judge(tractor, held_tractor, "9H 9H 9H 9H")
    assert (verdict.legal, verdict.rung) == (False, ((2, 2),))


def test_r5_3_any_cards_may_meet_the_rung() -> None:
    """A pair lead met by the lower pair while a higher one is held: shape, not rank, is owed."""
    assert judge(lead("KH KH"), "3H 3H AH AH", "3H 3H").legal


# --- protect_longer_units -------------------------------------------------------------------


def test_r5_3_protect_longer_units_spares_a_triple_from_a_pair_lead() -> None:
    pair = lead("5H 5H")
    held = "7H 7H 7H 9H JH"
    assert not judge(pair, held, "9H JH").legal
    spared = judge(pair, held, "9H JH", rules=PROTECT)
    assert (spared.legal, spared.rung) == (True, ((1,), (1,)))
    # The play may still break the triple.
    assert judge(pair, held, "7H 7H", rules=PROTECT).legal
    assert judge(pair, held, "7H 9H", rules=PROTECT).legal


def test_r5_3_protect_longer_units_demands_only_units_held_exactly() -> None:
    triple = lead("5H 5H 5H")
    held = "7H 7H 7H 7H 9H 9H JH"
    assert not judge(triple, held, "7H 7H JH").legal  # 3 is owed from the quad
    verdict = judge(triple, held, "7H 9H JH", rules=PROTECT)
    assert not verdict.legal
    assert verdict.reason == "must play 2+1 from 9♥9♥J♥ held; played 7♥ 9♥ J♥"
    assert judge(triple, held, "7H 7H JH", rules=PROTECT).legal


def test_r5_3_protect_longer_units_with_nothing_owed_allows_any_cards_of_the_suit() -> None:
    tractor = lead("5H 5H 6H 6H")
    held = "7H 7H 7H 7H 8H 8H 8H 8H 3C"
    assert not judge(tractor, held, "7H 7H 7H 8H").legal
    assert demand(tractor, hand(held), T, PROTECT) is None
    verdict = judge(tractor, held, "7H 7H 7H 8H", rules=PROTECT)
    assert verdict.legal
    assert not judge(tractor, held, "7H 7H 7H 3C", rules=PROTECT).legal


# --- trump leads, level cards, jokers, ace low, two decks -----------------------------------


def test_r5_3_trump_tractor_through_the_level_cards() -> None:
    """R3.2 in trumps: ♠A → off-suit level → ♠ level → SJ → BJ; off-suit level pairs are equal."""
    tractor = lead("AS AS 2H 2H")
    assert tractor.shape() == ((2, 2),)
    verdict = judge(tractor, "2D 2D 2C 2C 2S 2S 4C", "2D 2D 2C 2C")
    assert (verdict.legal, verdict.rung) == (False, ((2, 2),))
    assert verdict.reason.startswith("must play <2-2> from ")
    assert judge(tractor, "2D 2D 2C 2C 2S 2S 4C", "2C 2C 2S 2S").legal
    # Two off-suit level pairs alone are not consecutive: 2+2 is owed and met.
    equal = judge(tractor, "2D 2D 2C 2C KS 3H", "2D 2D 2C 2C")
    assert (equal.legal, equal.rung) == (True, ((2,), (2,)))
    assert judge(tractor, "2S 2S SJ SJ 3S", "2S 2S SJ SJ").rung == ((2, 2),)
    jokers = judge(tractor, "SJ SJ BJ BJ 3S 4S", "SJ SJ 3S 4S")
    assert (jokers.legal, jokers.rung) == (False, ((2, 2),))


def test_r5_3_no_trump_level_pair_sits_below_the_small_joker() -> None:
    nt = trump_context(None, 2)
    jokers = lead("SJ SJ BJ BJ", nt)
    verdict = judge(jokers, "2H 2H SJ SJ 2C", "2H 2H SJ 2C", nt)
    assert (verdict.legal, verdict.rung) == (False, ((2, 2),))


def test_r3_3_ace_low_tractor_is_owed_only_under_the_option() -> None:
    tractor = lead("5H 5H 6H 6H")
    held = "AH AH 3H 3H 9H JH"
    verdict = judge(tractor, held, "AH AH 9H JH")
    assert (verdict.legal, verdict.rung) == (False, ((2, 2),))
    no_low = replace(FOUR_DECK, ace_low_tractor=False)
    loose = judge(tractor, held, "AH AH 9H JH", rules=no_low)
    assert (loose.legal, loose.rung) == (False, ((2,), (2,)))
    assert judge(tractor, held, "AH AH 3H 3H", rules=no_low).legal


def test_r9_two_deck_preset_follows_pairs_and_tractors() -> None:
    tractor = lead("5H 5H 6H 6H", rules=TWO_DECK)
    held = "AH AH 3H 3H 9H 9H TH TH"
    verdict = judge(tractor, held, "AH AH 3H 3H", rules=TWO_DECK)  # no ace-low in two decks
    assert (verdict.legal, verdict.rung) == (False, ((2, 2),))
    assert verdict.reason.startswith("must play <2-2> from 9♥9♥10♥10♥ held")
    assert judge(tractor, held, "9H 9H TH TH", rules=TWO_DECK).legal
    assert [format_rung(r) for r in ladder(tractor, TWO_DECK)] == [
        "<2-2>",
        "2+2",
        "2+1+1",
        "1+1+1+1",
    ]


def test_r5_2_play_kind_names_how_a_play_answers() -> None:
    suit = 1  # ♥
    assert play_kind(parse_cards("7H 9H"), suit, T) == "follow"
    assert play_kind(parse_cards("7H 3C"), suit, T) == "short"
    assert play_kind(parse_cards("3S SJ"), suit, T) == "ruff"
    assert play_kind(parse_cards("3S 3C"), suit, T) == "discard"
    assert play_kind(parse_cards("3H 3C"), TRUMP, T) == "discard"


# --- every rung of the LADDERS.md rows is demanded by a holding that meets it and no rung above --

ROWS = {
    "pair": "5H 5H",
    "triple": "5H 5H 5H",
    "quad": "5H 5H 5H 5H",
    "<2-2>": "5H 5H 6H 6H",
    "<2-2-2>": "5H 5H 6H 6H 7H 7H",
    "<3-3>": "5H 5H 5H 6H 6H 6H",
    "<4-4>": "5H 5H 5H 5H 6H 6H 6H 6H",
    "throw 1+<2-2>": "AH KH KH AH AH",
}
HEARTS = [c for c in range(54) if T.eff[c] == 1 and T.low_pos[c] == NO_LOW]  # 3♥..K♥, no A


def realize(rung: Rung) -> tuple[list[Card], int]:
    """A holding that meets `rung` and nothing stricter: runs and lone units one gap apart (so
    nothing chains further), singles on free faces. Returns the cards and the next free index."""
    by_pos = sorted(HEARTS, key=lambda c: T.pos[c])
    cards: list[Card] = []
    used: set[int] = set()
    i = 0
    for req in rung:
        if req == (1,):
            continue
        for j, w in enumerate(req):
            cards += [by_pos[i + j]] * w
            used.add(i + j)
        i += len(req) + 1
    free = [k for k in range(len(by_pos)) if k not in used]
    singles = sum(1 for req in rung if req == (1,))
    cards += [by_pos[k] for k in free[:singles]]
    return cards, free[singles:]


CASES = [
    (row, k, rung)
    for row, tokens in ROWS.items()
    for k, rung in enumerate(ladder(lead(tokens), FOUR_DECK))
]


@pytest.mark.parametrize(
    ("row", "k", "rung"), CASES, ids=[f"{r}:{k}:{format_rung(g)}" for r, k, g in CASES]
)
def test_r5_3_each_rung_is_demanded_when_it_is_the_first_the_holding_meets(
    row: str, k: int, rung: Rung
) -> None:
    the_lead = lead(ROWS[row])
    n = the_lead.size
    cards, free = realize(rung)
    by_pos = sorted(HEARTS, key=lambda c: T.pos[c])
    faces = sorted(set(cards))
    fillers = [by_pos[j] for j in free[: max(0, n - len(faces))]]
    assert len(faces) + len(fillers) >= n
    holding = Hand.of([*cards, *fillers, *parse_cards("3C 4D")])
    owed = demand(the_lead, holding, T, FOUR_DECK)
    assert owed is not None
    assert (owed.index, owed.rung) == (k, rung)
    assert check_follow(the_lead, holding, owed.witness, T, FOUR_DECK).legal
    if k < len(ladder(the_lead, FOUR_DECK)) - 1:
        # n distinct faces meet only the last rung, all singles.
        scattered = (faces + fillers)[:n]
        verdict = check_follow(the_lead, holding, scattered, T, FOUR_DECK)
        assert not verdict.legal
        assert verdict.rung == rung
        assert verdict.reason.startswith(f"must play {format_rung(rung)} from ")


# --- legal plays ----------------------------------------------------------------------------


def test_r5_3_legal_plays_of_a_tractor_lead() -> None:
    tractor = lead("5H 5H 6H 6H")
    plays = set(legal_plays(tractor, hand("7H 7H 8H 8H 9H 9H 3C"), T, FOUR_DECK))
    assert plays == {tuple(sorted(parse_cards(p))) for p in ("7H 7H 8H 8H", "8H 8H 9H 9H")}


def test_r5_2_void_discards_stream_without_listing_them_all() -> None:
    """52 cards of other suits against an 8-card lead: C(52+, 8) plays, taken lazily."""
    big = lead("5H 5H 5H 5H 6H 6H 6H 6H")
    deck = [c for c in range(54) if T.eff[c] != 1 for _ in range(2)][:52]
    plays = legal_plays(big, Hand.of(deck), T, FOUR_DECK)
    first = [next(plays) for _ in range(1000)]
    assert len(set(first)) == 1000
    assert all(len(p) == 8 and list(p) == sorted(p) for p in first)


def test_r5_2_random_legal_play_of_a_short_follower_keeps_every_led_card() -> None:
    rng = random.Random(7)
    tractor = lead("5H 5H 6H 6H")
    holding = hand("7H 9H 3C 4C 5D 3S 3S")
    for _ in range(20):
        play = random_legal_play(tractor, holding, T, FOUR_DECK, rng)
        assert {parse_cards("7H")[0], parse_cards("9H")[0]} <= set(play)
        assert check_follow(tractor, holding, play, T, FOUR_DECK).legal


def test_r5_1_random_legal_play_refuses_a_hand_too_small() -> None:
    with pytest.raises(ValueError, match="cannot answer"):
        random_legal_play(lead("5H 5H"), hand("7H"), T, FOUR_DECK, random.Random(1))


# --- R5.3 throw_ladder = one_at_a_time ----------------------------------------------------------

CLUBS_6 = parse_trump("C", "6")


@pytest.mark.parametrize("rules", [ONE_AT_A_TIME, RBTYING])
def test_r5_3_one_at_a_time_first_rung_the_holding_meets_is_2_2_2_1_1(rules: RuleSet) -> None:
    """Trump ♣, level 6, lead ♠J♠J ♠Q♠Q ♠A♠A♠A♠A; the follower's spades ♠2 ♠4♠4 ♠7♠7♠7 ♠8♠8
    ♠K. Under `one_at_a_time` (and the rbtying preset) the first rung this holding satisfies is
    2+2+2+1+1 (3+2+2+1 is never a rung), so ♠2 ♠4♠4 ♠7♠7 ♠8♠8 ♠K is legal; under `widest_first`
    the engine demands 3+2+2+1 and that play is illegal."""
    the_lead = lead("JS JS QS QS AS AS AS AS", CLUBS_6, rules)
    assert [c.tokens() for c in the_lead.components] == ["JS JS QS QS", "AS AS AS AS"]
    held = "2S 4S 4S 7S 7S 7S 8S 8S KS 3H 9D"
    play = "2S 4S 4S 7S 7S 8S 8S KS"
    verdict = judge(the_lead, held, play, CLUBS_6, rules)
    assert verdict.legal and format_rung(verdict.rung) == "2+2+2+1+1", verdict
    owed = demand(the_lead, hand(held), CLUBS_6, rules)
    assert owed is not None and format_rung(owed.rung) == "2+2+2+1+1"
    # Keeping the triple is legal too; dropping a pair is not.
    assert judge(the_lead, held, "4S 4S 7S 7S 7S 8S 8S KS", CLUBS_6, rules).legal
    bad = judge(the_lead, held, "2S 4S 4S 7S 7S 7S 8S KS", CLUBS_6, rules)
    assert not bad.legal and "must play 2+2+2+1+1" in bad.reason, bad.reason
    widest = judge(the_lead, held, play, CLUBS_6, FOUR_DECK)
    assert not widest.legal and format_rung(widest.rung) == "3+2+2+1", widest
    assert "must play 3+2+2+1" in widest.reason


def test_r5_3_one_at_a_time_tie_goes_to_the_component_moved_last() -> None:
    """Lead ♥333 + ♥8888 (trump ♠, level 2): after 3+2+2 the triple and the quad both have two
    rungs left and the quad, moved last, moves again (3+2+1+1, then 2+2+1+1+1). A holding of
    three pairs and no triple owes 2+2+1+1+1, not three pairs."""
    the_lead = lead("3H 3H 3H 8H 8H 8H 8H", T, ONE_AT_A_TIME)
    held = "4H 4H 6H 6H 9H 9H JH KH"
    play = "4H 4H 6H 6H JH KH 9H"
    verdict = judge(the_lead, held, play, T, ONE_AT_A_TIME)
    assert verdict.legal and format_rung(verdict.rung) == "2+2+1+1+1", verdict
    assert judge(the_lead, held, "4H 4H 6H 9H 9H JH KH", T, ONE_AT_A_TIME).legal
    widest = judge(the_lead, held, play, T, FOUR_DECK)
    assert not widest.legal and format_rung(widest.rung) == "2+2+2+1", widest


# --- property tests against a brute-force oracle ----------------------------------------------


def _spots(trump: TrumpContext, suit: int, ace_low: bool) -> dict[int, list[Card]]:
    spots: dict[int, list[Card]] = {}
    for c in range(54):
        if trump.eff[c] == suit:
            spots.setdefault(trump.pos[c], []).append(c)
            if ace_low and trump.low_pos[c] != NO_LOW:
                spots.setdefault(trump.low_pos[c], []).append(c)
    return spots


def oracle_meets(
    rung: Rung,
    counts: dict[Card, int],
    spots: dict[int, list[Card]],
    trump: TrumpContext,
    protect: dict[Card, int] | None,
) -> bool:
    """Try every assignment of every requirement (singles included) to positions and faces."""
    left = dict(counts)
    reqs = list(rung)

    def usable(face: Card, w: int) -> bool:
        have = left.get(face, 0)
        if protect is not None:
            return have == w == protect.get(face, 0)
        return have >= w

    def place(i: int) -> bool:
        if i == len(reqs):
            return True
        req = reqs[i]
        for start in sorted(spots):
            if any(start + j not in spots for j in range(len(req))):
                continue
            for faces in itertools.product(*(spots[start + j] for j in range(len(req)))):
                if len(req) > 1 and start == -1 and trump.pos[faces[0]] <= start + len(req) - 1:
                    continue  # a run from the low A may not reach the A again (R3.3)
                taken = []
                ok = True
                for face, w in zip(faces, req, strict=True):
                    if not usable(face, w):
                        ok = False
                        break
                    left[face] -= w
                    taken.append((face, w))
                if ok and place(i + 1):
                    for face, w in taken:
                        left[face] += w
                    return True
                for face, w in taken:
                    left[face] += w
        return False

    return place(0)


# LADDERS.md's rows (R5.3), verbatim, for the leads of one component the property tests draw.
OWN_LADDERS = {
    (1, 1): "1",
    (2, 1): "2 → 1+1",
    (3, 1): "3 → 2+1 → 1+1+1",
    (4, 1): "4 → 3+1 → <2-2> → 2+2 → 2+1+1 → 1+1+1+1",
    (2, 2): "<2-2> → 2+2 → 2+1+1 → 1+1+1+1",
    (2, 3): "<2-2-2> → <2-2>+2 → 2+2+2 → <2-2>+1+1 → 2+2+1+1 → 2+1+1+1+1 → 1×6",
    (3, 2): "<3-3> → 3+3 → <3-2>+1 → <2-3>+1 → 3+2+1 → 3+1+1+1 → <2-2-2> → <2-2>+2 → 2+2+2 → "
    "<2-2>+1+1 → 2+2+1+1 → 2+1+1+1+1 → 1×6",
    (4, 2): "<4-4> → 4+4 → <4-3>+1 → <3-4>+1 → 4+3+1 → <4-2-2> → <2-4-2> → <2-2-4> → <4-2>+2 → "
    "<2-4>+2 → 4+<2-2> → 4+2+2 → <4-2>+1+1 → <2-4>+1+1 → 4+2+1+1 → 4+1+1+1+1 → <3-3-2> → "
    "<3-2-3> → <2-3-3> → <3-3>+2 → <3-2>+3 → 3+<2-3> → 3+3+2 → <3-3>+1+1 → 3+3+1+1 → "
    "<3-2-2>+1 → <2-3-2>+1 → <2-2-3>+1 → <3-2>+2+1 → <2-3>+2+1 → 3+<2-2>+1 → 3+2+2+1 → "
    "<3-2>+1+1+1 → <2-3>+1+1+1 → 3+2+1+1+1 → 3+1×5 → <2-2-2-2> → <2-2-2>+2 → "
    "<2-2>+<2-2> → <2-2>+2+2 → 2+2+2+2 → <2-2-2>+1+1 → <2-2>+2+1+1 → 2+2+2+1+1 → "
    "<2-2>+1×4 → 2+2+1×4 → 2+1×6 → 1×8",
}


def _rung_text(text: str) -> list[tuple[int, ...]]:
    reqs: list[tuple[int, ...]] = []
    for part in text.split("+"):
        if part.startswith("<"):
            reqs.append(tuple(int(w) for w in part[1:-1].split("-")))
        elif "×" in part:
            width, k = part.split("×")
            reqs += [(int(width),)] * int(k)
        else:
            reqs.append((int(part),))
    return reqs


def oracle_one_at_a_time(the_lead: Reading, trump: TrumpContext) -> list[list[tuple[int, ...]]]:
    """R5.3 `one_at_a_time`, from its text: rung 0 is the components; each next rung moves one
    component one rung down its own ladder — most rungs left, then the most recently moved, then
    (never moved) the first in component order: fewer cards, then the lower first card."""

    def first_card(comp) -> tuple[int, int]:
        low = comp.top - len(comp.faces) + 1  # an ace-low run starts below the 2
        return (low, "SHDC".find(format_card(comp.faces[0])[-1]))

    comps = sorted(the_lead.components, key=lambda c: (c.size, first_card(c)))
    own = [[_rung_text(r) for r in OWN_LADDERS[c.shape()].split(" → ")] for c in comps]
    step = [0] * len(comps)
    last_moved = [0] * len(comps)  # 0: never
    rungs = []
    for moves in itertools.count(1):
        rungs.append([req for k in range(len(comps)) for req in own[k][step[k]]])
        left = [len(own[k]) - 1 - step[k] for k in range(len(comps))]
        most = max(left)
        if most == 0:
            return rungs
        tied = [k for k in range(len(comps)) if left[k] == most]
        moved = [k for k in tied if last_moved[k]]
        k = max(moved, key=lambda k: last_moved[k]) if moved else tied[0]
        step[k] += 1
        last_moved[k] = moves
    raise AssertionError("unreachable")


def oracle_ladder(the_lead: Reading, trump: TrumpContext, rules: RuleSet) -> list:
    if len(the_lead.components) == 1:
        return [_rung_text(r) for r in OWN_LADDERS[the_lead.components[0].shape()].split(" → ")]
    if rules.throw_ladder == "one_at_a_time":
        return oracle_one_at_a_time(the_lead, trump)
    return list(ladder(the_lead, rules))


def oracle_legal(
    the_lead: Reading,
    holding: Hand,
    play: Sequence[Card],
    trump: TrumpContext,
    rules: RuleSet,
) -> bool:
    suit, n = the_lead.suit, the_lead.size
    mine = {c: holding.count(c) for c in range(54) if trump.eff[c] == suit and holding.count(c)}
    held = sum(mine.values())
    inside = [c for c in play if trump.eff[c] == suit]
    if held < n:
        return len(inside) == held
    if len(inside) < n:
        return False
    spots = _spots(trump, suit, rules.ace_low_tractor)
    played: dict[Card, int] = {}
    for c in play:
        played[c] = played.get(c, 0) + 1
    protect = mine if rules.protect_longer_units else None
    for rung in oracle_ladder(the_lead, trump, rules):
        if oracle_meets(rung, played, spots, trump, None):
            return True
        if oracle_meets(rung, mine, spots, trump, protect):
            return False
    return True


def oracle_demand(
    the_lead: Reading, holding: Hand, trump: TrumpContext, rules: RuleSet
) -> int | None:
    suit = the_lead.suit
    mine = {c: holding.count(c) for c in range(54) if trump.eff[c] == suit and holding.count(c)}
    spots = _spots(trump, suit, rules.ace_low_tractor)
    protect = mine if rules.protect_longer_units else None
    for i, rung in enumerate(oracle_ladder(the_lead, trump, rules)):
        if oracle_meets(rung, mine, spots, trump, protect):
            return i
    return None


RULESETS = [
    FOUR_DECK,
    TWO_DECK,
    PROTECT,
    replace(FOUR_DECK, ace_low_tractor=False),
    replace(TWO_DECK, protect_longer_units=True),
    replace(FOUR_DECK, throw_split="lowest_first"),
]
LADDER_OPTIONS = ("widest_first", "one_at_a_time")


@st.composite
def situations(
    draw: st.DrawFn, throw_ladder: str = "widest_first"
) -> tuple[Reading, Hand, TrumpContext, RuleSet]:
    """A lead from a window of one suit, and a holding of at most 10 cards dense around it."""
    rules = replace(draw(st.sampled_from(RULESETS)), throw_ladder=throw_ladder)
    trump = trump_context(
        draw(st.sampled_from([None, 0, 1, 2, 3])), draw(st.sampled_from([2, 7, 14]))
    )
    suit = draw(st.sampled_from([0, 1, 2, 3, TRUMP]))
    faces = sorted((c for c in range(54) if trump.eff[c] == suit), key=trump.sort_key)
    assume(len(faces) >= 3)
    start = draw(st.integers(0, len(faces) - 3))
    window = faces[start : start + draw(st.integers(3, 6))]
    if draw(st.booleans()):
        window = sorted(set(window) | {faces[0], faces[-1]}, key=trump.sort_key)  # the A, low end
    lead_counts = draw(
        st.lists(st.integers(0, rules.decks), min_size=len(window), max_size=len(window))
    )
    lead_cards = [f for f, k in zip(window, lead_counts, strict=True) for _ in range(k)]
    # `one_at_a_time` throws part from `widest_first` ones first at 7 or 8 cards (e.g. 3+4),
    # where the most recently moved component breaks a tie.
    most = 8 if rules.throw_ladder == "one_at_a_time" else 6
    assume(1 <= len(lead_cards) <= most)
    the_lead = read_lead(lead_cards, trump, rules)
    assume(all(c.shape() in OWN_LADDERS for c in the_lead.components))
    others = [c for c in range(54) if trump.eff[c] != suit]
    extras = draw(st.lists(st.sampled_from(others), max_size=3, unique=True))
    pool = window + extras
    counts = draw(st.lists(st.integers(0, rules.decks), min_size=len(pool), max_size=len(pool)))
    cards = [f for f, k in zip(pool, counts, strict=True) for _ in range(k)]
    assume(the_lead.size <= len(cards) <= 10)
    return the_lead, Hand.of(cards), trump, rules


def _all_plays(holding: Hand, n: int) -> set[tuple[Card, ...]]:
    faces = [(f, holding.count(f)) for f in range(54) if holding.count(f)]
    out = set()
    for take in itertools.product(*(range(k + 1) for _, k in faces)):
        if sum(take) == n:
            out.add(tuple(f for (f, _), t in zip(faces, take, strict=True) for _ in range(t)))
    return out


PROPS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


@pytest.mark.parametrize("throw_ladder", LADDER_OPTIONS)
@PROPS
@given(data=st.data())
def test_r5_legal_plays_are_exactly_the_legal_sub_multisets(
    throw_ladder: str, data: st.DataObject
) -> None:
    """R5.2/R5.3: check_follow agrees with the brute-force oracle on every play of the holding,
    the replay's reason-free `follow_is_legal` agrees with check_follow, and legal_plays lists
    exactly the legal ones, each once — under both `throw_ladder` values."""
    the_lead, holding, trump, rules = data.draw(situations(throw_ladder))
    listed = list(legal_plays(the_lead, holding, trump, rules))
    assert len(listed) == len(set(listed))
    legal = set()
    for play in _all_plays(holding, the_lead.size):
        verdict = check_follow(the_lead, holding, play, trump, rules)
        assert verdict.legal == oracle_legal(the_lead, holding, play, trump, rules), (
            play,
            verdict,
        )
        after = holding.remove(play).counts
        assert follow_is_legal(the_lead, after, play, trump, rules) == verdict.legal, play
        if verdict.legal:
            legal.add(play)
    assert set(listed) == legal
    assert legal, "some play is always legal"


@pytest.mark.parametrize("throw_ladder", LADDER_OPTIONS)
@PROPS
@given(data=st.data())
def test_r5_3_ladder_plays_are_exactly_the_legal_plays(
    throw_ladder: str, data: st.DataObject
) -> None:
    """The plays made from the ladder (the demanded rung and those before it, their units placed
    on the holding plus any other cards of the suit) are exactly the legal plays, each once,
    whenever R5.3 applies; and so are those judged one by one when the budget is too small to
    make them."""
    the_lead, holding, trump, rules = data.draw(situations(throw_ladder))
    made = ladder_plays(the_lead, holding, trump, rules, 10**6)
    held = sum(holding.count(c) for c in range(54) if trump.eff[c] == the_lead.suit)
    if held < the_lead.size:
        assert made is None
        return
    assert made is not None
    assert len(made) == len(set(made))
    legal = {
        play
        for play in _all_plays(holding, the_lead.size)
        if oracle_legal(the_lead, holding, play, trump, rules)
    }
    assert set(made) == legal
    assert set(made) == set(legal_plays(the_lead, holding, trump, rules))
    judged = ladder_plays(the_lead, holding, trump, rules, len(made) - 1)
    assert judged is not None
    assert sorted(judged) == sorted(made)


@pytest.mark.parametrize("throw_ladder", LADDER_OPTIONS)
@PROPS
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_r5_random_legal_play_is_always_legal(
    throw_ladder: str, data: st.DataObject, seed: int
) -> None:
    the_lead, holding, trump, rules = data.draw(situations(throw_ladder))
    rng = random.Random(seed)
    for _ in range(5):
        play = random_legal_play(the_lead, holding, trump, rules, rng)
        assert holding.contains(play)
        verdict = check_follow(the_lead, holding, play, trump, rules)
        assert verdict.legal, (play, verdict)


@pytest.mark.parametrize("throw_ladder", LADDER_OPTIONS)
@PROPS
@given(data=st.data())
def test_r5_3_demand_has_a_witness_from_the_hand_that_passes(
    throw_ladder: str, data: st.DataObject
) -> None:
    """The demanded rung is the oracle's first rung the holding meets, and never asks for cards
    the hand lacks: its witness is drawn from the hand and is a legal play."""
    the_lead, holding, trump, rules = data.draw(situations(throw_ladder))
    held = sum(holding.count(c) for c in range(54) if trump.eff[c] == the_lead.suit)
    owed = demand(the_lead, holding, trump, rules)
    if held < the_lead.size:
        assert owed is None
        return
    expected = oracle_demand(the_lead, holding, trump, rules)
    assert (owed.index if owed else None) == expected
    if owed is not None:
        assert owed.rung == ladder(the_lead, rules)[owed.index]
        assert sorted(owed.rung) == sorted(oracle_ladder(the_lead, trump, rules)[owed.index])
        assert len(owed.witness) == the_lead.size
        assert holding.contains(owed.witness)
        assert check_follow(the_lead, holding, owed.witness, trump, rules).legal


@pytest.mark.parametrize("throw_ladder", LADDER_OPTIONS)
@settings(PROPS, max_examples=60)
@given(data=st.data(), shift=st.integers(-3, 3))
def test_r5_3_a_play_of_the_leads_own_shape_in_the_suit_is_legal(
    throw_ladder: str, data: st.DataObject, shift: int
) -> None:
    """The lead's shape, moved up or down the suit, always answers it legally."""
    the_lead, holding, trump, rules = data.draw(situations(throw_ladder))
    spots = _spots(trump, the_lead.suit, False)
    moved = []
    for card in the_lead.cards():
        target = spots.get(trump.pos[card] + shift)
        assume(target is not None)
        moved.append(target[0])
    owner = holding.add(moved)
    assume(max(owner.counts) <= rules.decks)
    try:
        assume(read_lead(moved, trump, rules).shape() == the_lead.shape())
    except PlayError:
        assume(False)
    verdict = check_follow(the_lead, owner, moved, trump, rules)
    assert verdict.legal, verdict
    assert verdict.rung == ladder(the_lead, rules)[0]


def test_r5_3_ladder_of_a_read_lead_is_the_ladder_of_its_shape() -> None:
    the_lead = lead("AH KH KH AH AH")
    assert ladder(the_lead, FOUR_DECK) == ladder_of_shape(((1, 1), (2, 2)))


# --- long leads under every option combination, against the oracle --------------------------------

# The slowest situations the worst-case bench found under `one_at_a_time` and
# `protect_longer_units` (bench/follow_worst.py): long throws with a large quad tractor.
LONG_SITUATIONS = [
    (
        ("H", "5"),
        "2H 2H 2H 2H 4H 4H 9H TH TH TH TH JH JH JH JH QH QH QH QH KH KH KH KH 5C BJ BJ",
        "5S 5S 5S 3H 3H 3H 3H 4H 6H 6H 6H 7H 7H 7H 7H 8H 9H 9H 9H AH AH AH AH 5C 5C 5C 5D SJ SJ SJ "
        "SJ BJ BJ",
        "5S 3H 3H 4H 6H 6H 6H 7H 7H 7H 8H 9H 9H 9H AH AH AH 5C 5C 5C 5D SJ SJ SJ BJ BJ",
    ),
    (
        ("S", "K"),
        "2S 2S 3S 3S 7S 7S 7S 9S 9S 9S TS TS TS JS JS JS QS QS QS AS AS AS AS KH KH KH KH SJ SJ",
        "2S 3S 3S 4S 5S 5S 5S 6S 6S 6S 6S 7S 8S 8S 8S 8S 9S TS JS QS KS KC KC KC KC 8D SJ SJ BJ BJ "
        "BJ",
        "2S 3S 4S 5S 5S 5S 6S 6S 6S 6S 7S 8S 8S 8S 8S 9S TS JS QS KS KC KC KC KC SJ SJ BJ BJ BJ",
    ),
]
OPTION_COMBOS = [
    replace(FOUR_DECK, throw_ladder=t, protect_longer_units=p, ace_low_tractor=a)
    for t in LADDER_OPTIONS
    for p in (False, True)
    for a in (True, False)
]


def oracle_long_ladder(the_lead: Reading, rules: RuleSet) -> list[list[tuple[int, ...]]]:
    """`oracle_ladder` for long leads: a one_at_a_time throw composed by R5.3's text from its
    components' own ladders (the derivation's, which tests/test_ladders.py checks against
    LADDERS.md), a widest_first one the derivation's."""
    if rules.throw_ladder == "widest_first" or len(the_lead.components) == 1:
        return [list(r) for r in ladder(the_lead, rules)]
    comps = sorted(
        the_lead.components,
        key=lambda c: (c.size, c.top - len(c.faces) + 1, "SHDC".find(format_card(c.faces[0])[-1])),
    )
    own = [[list(r) for r in ladder_of_shape((c.shape(),))] for c in comps]
    step = [0] * len(comps)
    last_moved = [0] * len(comps)
    rungs = []
    for moves in itertools.count(1):
        rungs.append([req for k in range(len(comps)) for req in own[k][step[k]]])
        left = [len(own[k]) - 1 - step[k] for k in range(len(comps))]
        most = max(left)
        if most == 0:
            return rungs
        tied = [k for k in range(len(comps)) if left[k] == most]
        moved = [k for k in tied if last_moved[k]]
        k = max(moved, key=lambda k: last_moved[k]) if moved else tied[0]
        step[k] += 1
        last_moved[k] = moves
    raise AssertionError("unreachable")


def oracle_long_meets(
    rung: list[tuple[int, ...]],
    counts: dict[Card, int],
    spots: dict[int, list[Card]],
    trump: TrumpContext,
    protect: dict[Card, int] | None,
) -> bool:
    """`oracle_meets` with the singles counted instead of placed: whatever the wider units take,
    the cards left number the same; under protection a single takes a face held once, which no
    wider unit takes."""
    wide = tuple(r for r in rung if r != (1,))
    singles = len(rung) - len(wide)
    if protect is None:
        left = sum(counts.values()) - sum(sum(r) for r in wide)
    else:
        left = sum(1 for f, c in counts.items() if c == 1 and protect.get(f) == 1)
    return left >= singles and oracle_meets(wide, counts, spots, trump, protect)


def oracle_long_legal(
    the_lead: Reading, holding: Hand, play: Sequence[Card], trump: TrumpContext, rules: RuleSet
) -> bool:
    suit = the_lead.suit
    mine = {c: holding.count(c) for c in range(54) if trump.eff[c] == suit and holding.count(c)}
    if sum(mine.values()) < the_lead.size or any(trump.eff[c] != suit for c in play):
        raise AssertionError("the situations follow R5.3 with cards of the suit")
    spots = _spots(trump, suit, rules.ace_low_tractor)
    played: dict[Card, int] = {}
    for c in play:
        played[c] = played.get(c, 0) + 1
    protect = mine if rules.protect_longer_units else None
    for rung in oracle_long_ladder(the_lead, rules):
        if oracle_long_meets(rung, played, spots, trump, None):
            return True
        if oracle_long_meets(rung, mine, spots, trump, protect):
            return False
    return True


def _combo_id(r: RuleSet) -> str:
    return f"{r.throw_ladder}-protect{int(r.protect_longer_units)}-acelow{int(r.ace_low_tractor)}"


@pytest.mark.parametrize("rules", OPTION_COMBOS, ids=_combo_id)
@pytest.mark.parametrize("situation", range(len(LONG_SITUATIONS)))
def test_r5_3_long_throws_agree_with_the_oracle_under_every_option_combination(
    situation: int, rules: RuleSet
) -> None:
    """The slow situations the bench found, under every combination of the options a follow
    check reads: the verdict on the bench's play and on a seeded random play of the suit is the
    oracle's. (The oracle's brute force is slow on long rungs: two plays each.)"""
    (suit, level), lead_text, held_text, play_text = LONG_SITUATIONS[situation]
    trump = parse_trump(suit, level)
    the_lead = read_lead(parse_cards(lead_text), trump, rules)
    holding = hand(held_text)
    mine = [c for c in holding if trump.eff[c] == the_lead.suit]
    rng = random.Random(situation)
    plays = [tuple(parse_cards(play_text)), tuple(rng.sample(mine, the_lead.size))]
    for play in plays:
        verdict = check_follow(the_lead, holding, play, trump, rules)
        assert verdict.legal == oracle_long_legal(the_lead, holding, play, trump, rules), (
            format_rung(verdict.rung or ()),
            verdict.reason,
        )
