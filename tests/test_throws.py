"""R4.3 whether a throw stands, R4.4 the forced component of a failed throw."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.cards import Hand, format_card, parse_cards
from shengji.combos import as_component, read_lead, suit_layout
from shengji.rules import FOUR_DECK, RBTYING, TWO_DECK
from shengji.throws import check_throw, lowest_beating
from shengji.trump import parse_trump

SPADES_10 = parse_trump("S", "T")
FIRST_BLOCKER = replace(FOUR_DECK, failed_throw_forced="first_blocker")
LOWEST_FIRST = replace(FOUR_DECK, throw_split="lowest_first")
NO_TRUMP_10 = parse_trump("NT", "T")


def hands(*texts: str) -> list[Hand]:
    return [Hand.of(parse_cards(t)) for t in texts]


def check(lead: str, holdings: list[Hand], leader: int = 0, trump=SPADES_10, rules=FOUR_DECK):
    reading = read_lead(parse_cards(lead), trump, rules)
    return check_throw(reading, leader, holdings, trump, rules)


# Seed 003's examples (two decks): the throw of the current best cards stands.


def test_r4_3_seed_003_three_singles_after_aces_and_kings_are_out() -> None:
    # ♣AA ♣KK ♣Q ♣J ♣10 are out; the leader throws ♣10 ♣J ♣Q; nobody else holds a club above 9.
    trump = parse_trump("H", "2")
    holdings = hands("TC JC QC 3H", "9C 9C 4C AH", "8C 7C 7C 2S", "3C 3C 6C KD")
    result = check("TC JC QC", holdings, trump=trump, rules=TWO_DECK)
    assert not result.failed and result.forced is None and result.rule == "R4.3"


def test_r4_3_seed_003_failing_variant_a_king_is_still_out() -> None:
    # Only one ♣K was played: the seat holding the other beats every single; the ♣10 is forced.
    trump = parse_trump("H", "2")
    holdings = hands("TC JC QC 3H", "9C 9C 4C AH", "KC 7C 7C 2S", "3C 3C 6C KD")
    result = check("TC JC QC", holdings, trump=trump, rules=TWO_DECK)
    assert result.failed and result.blocker == 2 and result.rule == "R4.4"
    assert result.forced is not None and result.forced.cards() == parse_cards("TC")
    assert result.blocking == parse_cards("KC")
    assert "K♣" in result.reason and "10♣" in result.reason


def test_r4_3_seed_003_best_single_with_best_pair() -> None:
    # ♣AA and ♣QQ are out; the leader holds one ♣K and ♣JJ; the other ♣K only ties (R2.5).
    trump = parse_trump("H", "2")
    holdings = hands("KC JC JC", "KC TC 9C", "TC 8C 8C", "5D")
    assert not check("KC JC JC", holdings, trump=trump, rules=TWO_DECK).failed


# R4.3 what beats a component


def test_r4_3_a_higher_single_beats_a_thrown_single() -> None:
    holdings = hands("", "", "KH", "")
    result = check("AH AH QH", holdings)
    assert result.failed and result.blocker == 2
    assert result.forced is not None and result.forced.cards() == parse_cards("QH")


def test_r4_3_a_triple_of_k_beats_a_thrown_pair_of_q() -> None:
    holdings = hands("", "KH KH KH", "", "")
    result = check("QH QH AH", holdings)
    assert result.failed and result.blocker == 1
    assert result.forced is not None and result.forced.cards() == parse_cards("QH QH")
    assert result.blocking == parse_cards("KH KH")


def test_r4_3_single_cards_do_not_beat_a_pair() -> None:
    holdings = hands("", "KH AH", "KH", "")
    result = check("QH QH AH", holdings)
    # ♥K beats nothing: ♥A is the top single, and no one holds a pair above ♥Q.
    assert not result.failed


def test_r4_3_equal_rank_does_not_beat() -> None:
    # Off-suit level cards are equal (R2.3): a held ♦10 does not beat a thrown ♥10.
    holdings = hands("", "TD", "TC", "")
    assert not check("TH BJ", holdings).failed
    holdings = hands("", "TS", "", "")
    assert check("TH BJ", holdings).failed


def test_r4_3_trumping_does_not_count() -> None:
    holdings = hands("", "BJ BJ SJ SJ", "2S 2S", "")
    assert not check("KH AH", holdings).failed


def test_r4_3_the_partner_blocks_too() -> None:
    holdings = hands("", "", "", "AH")
    result = check("KH KH QH", holdings, leader=1)
    assert result.failed and result.blocker == 3


def test_r4_3_tractors_beaten_only_by_tractors_at_least_as_wide_and_long() -> None:
    lead = "5H 5H 6H 6H AH"
    # A higher ⟨2-2⟩ beats it.
    assert check(lead, hands("", "8H 8H 9H 9H", "", "")).failed
    # A held ⟨3-3-3⟩ holds the ⟨2-2⟩ 8899 of its top two faces.
    result = check(lead, hands("", "7H 7H 7H 8H 8H 8H 9H 9H 9H", "", ""))
    assert result.failed and result.blocking is not None
    # Units never beat a thrown tractor, however wide (R6.3 is about tricks, not throws).
    assert not check(lead, hands("", "KH KH KH KH", "", "")).failed
    # Two pairs that are not adjacent are no tractor.
    assert not check(lead, hands("", "8H 8H JH JH", "", "")).failed
    # A lower tractor does not beat it, nor does an equal one.
    assert not check("7H 7H 8H 8H AH", hands("", "5H 5H 6H 6H", "7H 7H 8H 8H", "")).failed


def test_r4_3_shorter_or_narrower_tractors_do_not_beat() -> None:
    assert not check("5H 5H 6H 6H 7H 7H AH", hands("", "JH JH QH QH", "", "")).failed
    assert not check("5H 5H 5H 6H 6H 6H AH", hands("", "JH JH QH QH KH KH", "", "")).failed
    assert check("5H 5H 5H 6H 6H 6H AH", hands("", "JH JH JH QH QH QH", "", "")).failed


def test_r4_3_trump_tractor_through_the_level_cards() -> None:
    # ♠A♠A + off-suit level pair is a trump tractor; ♠10♠10 SJ SJ beats ⟨♠K♠K ♠A♠A⟩.
    holdings = hands("", "TS TS SJ SJ", "", "")
    result = check("KS KS AS AS BJ", holdings)
    assert result.failed and result.blocking == parse_cards("TS TS SJ SJ")
    assert result.forced is not None and result.forced.cards() == parse_cards("KS KS AS AS")
    assert not check("KS KS AS AS BJ", hands("", "TH TH TD TD", "", "")).failed
    assert check("KS KS AS AS BJ", hands("", "AS AS TD TD", "", "")).failed


def test_r4_3_ace_low_tractor_is_low() -> None:
    # AA22 ranks as a 2-high tractor (R3.3): a held 2233 beats it, a held AA22 only ties.
    aa22 = read_lead(parse_cards("AH AH 2H 2H"), SPADES_10, FOUR_DECK).components[0]
    beat = lowest_beating(aa22, Hand.of(parse_cards("2H 2H 3H 3H")), 1, SPADES_10, FOUR_DECK)
    assert beat is not None and beat.cards() == parse_cards("2H 2H 3H 3H")
    assert (
        lowest_beating(aa22, Hand.of(parse_cards("AH AH 2H 2H")), 1, SPADES_10, FOUR_DECK) is None
    )
    # A held ace-low tractor beats a thrown tractor lower than it.
    assert check("AH AH 2H 2H", hands()).rule == "R4.1"
    low = read_lead(parse_cards("AH AH 2H 2H 3H 3H"), SPADES_10, FOUR_DECK).components[0]
    thrown = read_lead(parse_cards("2H 2H 3H 3H"), SPADES_10, FOUR_DECK).components[0]
    assert low.top == thrown.top  # AA2233 and 2233 are both 3-high: equal, no beat
    held = Hand.of(parse_cards("AH AH 2H 2H 3H 3H"))
    assert lowest_beating(thrown, held, 1, SPADES_10, FOUR_DECK) is None
    no_low = replace(FOUR_DECK, ace_low_tractor=False)
    assert lowest_beating(thrown, held, 1, SPADES_10, no_low) is None


# R4.4 the forced component


def test_r4_4_smallest_beatable_component_over_all_blockers() -> None:
    lead = "5H 5H 6H 6H 9H 9H KH"  # ⟨5566⟩ + 99 + K
    holdings = hands("", "JH JH", "AH", "")  # seat 1 beats the pair, seat 2 the single
    result = check(lead, holdings)
    assert result.failed and result.blocker == 2
    assert result.forced is not None and result.forced.cards() == parse_cards("KH")
    assert "smallest" in result.reason


def test_r4_4_first_blocker_option() -> None:
    lead = "5H 5H 6H 6H 9H 9H JH"
    holdings = hands("", "KH KH", "QH", "")
    result = check(lead, holdings, rules=FIRST_BLOCKER)
    # Seat 1 is first in play order and beats both the pair and the single: smallest first.
    assert result.failed and result.blocker == 1
    assert result.forced is not None and result.forced.cards() == parse_cards("JH")
    holdings = hands("", "KH KH", "", "QH")
    result = check(lead, holdings, leader=2, rules=FIRST_BLOCKER)
    # Leader 2: seat 3 plays first and only beats the single.
    assert result.blocker == 3 and result.forced is not None
    assert result.forced.cards() == parse_cards("JH")
    result = check(lead, holdings, leader=0, rules=FIRST_BLOCKER)
    # Leader 0: seat 1 plays first; it beats the pair and the single, the single is smaller.
    assert result.blocker == 1


def test_r4_4_first_blocker_differs_from_smallest() -> None:
    lead = "5H 5H 6H 6H 9H 9H KH"  # ⟨5566⟩ + 99 + K
    holdings = hands("", "JH JH", "AH", "")
    smallest = check(lead, holdings)
    first = check(lead, holdings, rules=FIRST_BLOCKER)
    assert smallest.blocker == 2 and smallest.forced.cards() == parse_cards("KH")
    assert first.blocker == 1 and first.forced.cards() == parse_cards("9H 9H")


def test_r4_4_smallest_prefers_fewest_cards_then_lowest_rank() -> None:
    lead = "3H 7H 9H 9H"  # 99 + 7 + 3, all beatable by seat 3's KK
    result = check(lead, hands("", "", "", "KH KH"))
    assert result.forced is not None and result.forced.cards() == parse_cards("3H")
    assert result.blocker == 3


def test_r4_4_blocker_is_earliest_in_play_order_after_the_leader() -> None:
    holdings = hands("AH", "", "", "AH")
    result = check("KH QH QH", holdings, leader=2)
    assert result.blocker == 3
    result = check("KH QH QH", holdings, leader=3)
    assert result.blocker == 0


def test_r4_4_equal_rank_components_are_forced_in_suit_order() -> None:
    """R4.4: of a thrown ♥10 and ♣10 at level 10 in no-trump, the ♥10 is forced (♠ < ♥ < ♦ < ♣),
    under both `failed_throw_forced` values."""
    for rules in (FOUR_DECK, FIRST_BLOCKER, RBTYING):
        result = check("TH TC", hands("", "SJ", "", ""), trump=NO_TRUMP_10, rules=rules)
        assert result.failed and result.blocker == 1
        assert result.forced is not None and result.forced.cards() == parse_cards("TH")
    # All four suits: the ♠10 is smallest; without it the ♥10, then the ♦10 before the ♣10.
    for lead, forced in (("TD TC TH TS", "TS"), ("TD TC TH", "TH"), ("TC TD", "TD")):
        result = check(lead, hands("", "", "BJ", ""), trump=NO_TRUMP_10)
        assert result.forced is not None and result.forced.cards() == parse_cards(forced), lead


def test_r4_4_equal_rank_off_suit_level_pairs_in_a_trump_throw() -> None:
    """R4.4 with a trump suit: the off-suit level pairs ♦10♦10 and ♥10♥10 rank equal; the ♥ pair
    is forced when a held ♠10♠10 beats both, whatever order the lead lists them in."""
    for lead in ("TD TD TH TH BJ", "TH TH TD TD BJ"):
        result = check(lead, hands("", "", "TS TS", ""))
        assert result.failed and result.blocker == 2
        assert result.forced is not None and result.forced.cards() == parse_cards("TH TH"), lead


def test_r4_2_r4_3_lowest_first_split_decides_whether_a_throw_fails() -> None:
    """R4.2's example (trump ♠, level 9): ♣JJJ QQQ KK reads ⟨JJJ-QQQ⟩ + KK under `widest` and
    ⟨JJ-QQ-KK⟩ + J + Q under `lowest_first`, where a single ♣K beats the single ♣J."""
    spades_9 = parse_trump("S", "9")
    lead = "JC JC JC QC QC QC KC KC"
    holdings = hands("", "KC", "", "")
    assert not check(lead, holdings, trump=spades_9).failed
    result = check(lead, holdings, trump=spades_9, rules=LOWEST_FIRST)
    assert result.failed and result.blocker == 1
    assert result.forced is not None and result.forced.cards() == parse_cards("JC")
    # A held ♣A beats the single ♣Q as well; the ♣J is still the smaller.
    result = check(lead, hands("", "", "AC", ""), trump=spades_9, rules=LOWEST_FIRST)
    assert result.forced is not None and result.forced.cards() == parse_cards("JC")


def test_r4_1_simple_lead_is_no_throw() -> None:
    result = check("5H 5H 6H 6H", hands("", "KH KH AH AH", "", ""))
    assert not result.failed and result.rule == "R4.1"


def test_lowest_beating_returns_the_lowest_combination() -> None:
    reading = read_lead(parse_cards("5H 5H"), SPADES_10, FOUR_DECK)
    hand = Hand.of(parse_cards("3H 3H 8H 8H 8H KH KH"))
    got = lowest_beating(reading.components[0], hand, 1, SPADES_10, FOUR_DECK)
    assert got is not None and got.cards() == parse_cards("8H 8H")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(parse_cards("2H 3H 4H 5H 6H 7H 8H 9H JH QH KH AH")), max_size=12))
def test_r4_3_a_throw_stands_iff_no_component_is_beaten(others: list[int]) -> None:
    lead = "9H 9H JH 5H"
    holdings = [Hand.empty(), Hand.of(others), Hand.empty(), Hand.empty()]
    result = check(lead, holdings)
    pos = SPADES_10.pos
    single_beaten = any(pos[c] > pos[parse_cards("5H")[0]] for c in others)
    pair_beaten = any(
        others.count(c) >= 2 and pos[c] > pos[parse_cards("9H")[0]] for c in set(others)
    )
    assert result.failed == (single_beaten or pair_beaten)
    if result.failed:
        assert result.blocker == 1 and result.forced is not None
        assert result.forced.size == (1 if single_beaten else 2)


def _brute_beats(comp, cards, trump, rules) -> bool:
    """Some sub-multiset of `cards` is a combination of `comp`'s exact shape, ranked higher."""
    for sub in set(combinations(sorted(cards), comp.size)):
        c = as_component(sub, trump, rules)
        if c is not None and c.shape() == comp.shape() and c.top > comp.top:
            return True
    return False


@st.composite
def throw_cases(draw):
    trump = parse_trump(draw(st.sampled_from(["S", "H", "NT"])), draw(st.sampled_from("2579TA")))
    rules = draw(st.sampled_from([FOUR_DECK, TWO_DECK, FIRST_BLOCKER, LOWEST_FIRST, RBTYING]))
    suit = draw(st.sampled_from([s for s in range(5) if suit_layout(trump, s).faces]))
    faces = suit_layout(trump, suit).faces

    def holding(n: int) -> tuple[int, ...]:
        out: list[int] = []
        for f in draw(st.lists(st.sampled_from(faces), max_size=n)):
            if out.count(f) < rules.max_width:
                out.append(f)
        return tuple(out)

    lead = holding(8) or (faces[0],)
    others = [holding(7) for _ in range(3)]
    leader = draw(st.integers(0, 3))
    seats = [others.pop() if s != leader else lead for s in range(4)]
    return trump, rules, leader, lead, seats


@settings(max_examples=120, deadline=None)
@given(throw_cases())
def test_r4_3_r4_4_against_brute_force(case) -> None:
    trump, rules, leader, lead, seats = case
    reading = read_lead(lead, trump, rules)
    result = check_throw(reading, leader, [Hand.of(s) for s in seats], trump, rules)
    if not reading.is_throw:
        assert not result.failed
        return
    order = [(leader + k) % 4 for k in (1, 2, 3)]
    beats = {
        (i, seat)
        for i, comp in enumerate(reading.components)
        for seat in order
        if _brute_beats(comp, seats[seat], trump, rules)
    }
    assert result.failed == bool(beats)
    if not beats:
        return

    def suit_rank(comp) -> int:
        """R4.4: equal-rank faces count smaller in the order ♠ < ♥ < ♦ < ♣."""
        return "SHDC".find(format_card(comp.faces[-1])[-1])

    def smallest(indices):
        comps = reading.components
        return min(indices, key=lambda i: (comps[i].size, comps[i].top, suit_rank(comps[i]), -i))

    if rules.failed_throw_forced == "smallest":
        forced = smallest({i for i, _ in beats})
        blocker = next(s for s in order if (forced, s) in beats)
    else:
        blocker = next(s for s in order if any(b == s for _, b in beats))
        forced = smallest({i for i, s in beats if s == blocker})
    assert result.blocker == blocker
    assert result.forced is not None and result.forced.components == (reading.components[forced],)
    assert result.blocking is not None
    assert Hand.of(seats[blocker]).contains(result.blocking)
    held = as_component(result.blocking, trump, rules)
    assert held is not None and held.shape() == reading.components[forced].shape()
    assert held.top > reading.components[forced].top
