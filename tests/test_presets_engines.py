"""The presets of other engines (`jerryyyu`, `botzone`, `ejfn`) and each option they set, with the
examples of those engines' rules (docs/rules.md, "Engine presets")."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hh_builder import Shoe, bidding_hand, played_hand

from shengji.bidding import Bidding, settle
from shengji.cards import Hand, parse_cards
from shengji.combos import read_lead
from shengji.follow import check_follow, follow_is_legal
from shengji.record import Claimed, HandRecord, Show, split_deal
from shengji.referee import judge
from shengji.replay import replay_record
from shengji.rules import RuleError, RuleSet, preset, rules_from_spec
from shengji.scoring import bottom_multiplier, level_change, throw_penalty
from shengji.throws import check_throw
from shengji.trick import botzone_judge_fault
from shengji.trump import TRUMP, parse_trump

JERRYYYU = preset("jerryyyu")
BOTZONE = preset("botzone")
EJFN = preset("ejfn")
ENGINES = (JERRYYYU, BOTZONE, EJFN)


def _settle(record: HandRecord) -> Bidding:
    dealt, bottom = split_deal(record.deal, record.rules)
    return settle(record, dealt, bottom, line=1)


def _codes(result: Bidding) -> list[str]:
    return [f.code for f in result.findings]


def _show(seat: int, cards: str, dealt: int = 100) -> Show:
    return Show(seat, parse_cards(cards), dealt)


def _hands(*held: str) -> list[Hand]:
    return [Hand.of(parse_cards(h)) for h in held]


# --- the presets themselves ------------------------------------------------------------------------


def test_every_engine_preset_is_a_two_deck_game_named_by_its_spec() -> None:
    for rules in ENGINES:
        assert rules.decks == 2 and rules.hand_size == 25 and rules.total_points == 200
        assert rules.level_step == 40 and not rules.ace_low_tractor
        assert rules.spec() == rules.preset
        assert rules_from_spec(rules.preset) is rules
        # Every engine multiplies the bottom whatever suit takes the last trick.
        assert rules.side_suit_capture_doubles


def test_the_new_options_are_checked() -> None:
    assert rules_from_spec({"preset": "two-deck", "show_order": "tiers"}).show_order == "tiers"
    for bad in (
        {"show_order": "loudest"},
        {"no_show_trump": "random"},
        {"level_tractors": "no"},
        {"max_level_gain": -1},
        {"max_level_gain": True},
        {"bottom_multiplier": "botzone"},
        {"throw_compare": "first"},
    ):
        with pytest.raises(RuleError):
            rules_from_spec({"preset": "botzone", **bad})


def test_the_textbook_presets_keep_the_rule_book() -> None:
    """Every new option's default is the rule book's behaviour."""
    for name in ("four-deck", "two-deck", "rbtying"):
        rules = preset(name)
        assert rules.show_order == "count_then_kind" and not rules.self_overturn
        assert not rules.joker_pair_first_show and rules.no_show_trump == "bottom"
        assert rules.level_tractors and not rules.throw_penalty_per_card
        assert rules.attackers_deadzone and rules.max_level_gain == 0


# --- shows (R8) --------------------------------------------------------------------------------------


def test_tiers_a_level_pair_of_another_suit_does_not_overturn_a_level_pair() -> None:
    """jerryyyu and ejfn: single 1 < level pair 2 (any suit) < SJ pair 3 < BJ pair 4, strictly
    stronger; SMA1 round 1: seat 2 shows 2♦ and then 2♦ 2♦."""
    shoe = Shoe(1, JERRYYYU).give(2, "2D 2D").give(1, "2S 2S").give(3, "SJ SJ")
    deal = shoe.deal()
    ok = [_show(2, "2D"), _show(2, "2D 2D")]
    result = _settle(bidding_hand(deal, banker=None, bids=ok, bury_seat=2, rules=JERRYYYU))
    assert _codes(result) == [] and result.banker == 2
    assert result.trump is not None and result.trump.suit == 3
    equal = [*ok, _show(1, "2S 2S")]
    result = _settle(bidding_hand(deal, banker=2, bids=equal, rules=JERRYYYU))
    assert _codes(result) == ["weak_show"]
    jokers = [*ok, _show(3, "SJ SJ")]
    result = _settle(bidding_hand(deal, banker=None, bids=jokers, bury_seat=3, rules=JERRYYYU))
    assert _codes(result) == [] and result.banker == 3
    assert result.trump is not None and result.trump.suit is None
    # The rule book's order would let the later ♠ pair overturn the ♦ pair.
    two_deck = replace(JERRYYYU, show_order="count_then_kind")
    result = _settle(bidding_hand(deal, banker=2, bids=equal, rules=two_deck))
    assert "weak_show" not in _codes(result)


def test_self_overturn_jerryyyu_allows_it_ejfn_only_strengthens_the_same_suit() -> None:
    """jerryyyu: anyone may make a stronger declaration, the declarer included, in any suit;
    ejfn: the same player may only strengthen in the same suit."""
    shoe = Shoe(2, JERRYYYU).give(0, "2H 2S 2S")
    bids = [_show(0, "2H"), _show(0, "2S 2S")]
    result = _settle(bidding_hand(shoe.deal(), banker=0, bids=bids, rules=JERRYYYU))
    assert _codes(result) == [] and result.trump is not None and result.trump.suit == 0
    result = _settle(bidding_hand(shoe.deal(), banker=0, bids=bids, rules=EJFN))
    assert _codes(result) == ["self_overturn"]


def test_a_joker_pair_may_be_the_first_show() -> None:
    shoe = Shoe(3, EJFN).give(1, "BJ BJ")
    bids = [_show(1, "BJ BJ")]
    for rules in (JERRYYYU, EJFN):
        record = bidding_hand(shoe.deal(), banker=None, bids=bids, bury_seat=1, rules=rules)
        result = _settle(record)
        assert _codes(result) == [] and result.banker == 1
        assert result.trump is not None and result.trump.suit is None
    two_deck = replace(EJFN, joker_pair_first_show=False)
    result = _settle(bidding_hand(shoe.deal(), banker=None, bids=bids, bury_seat=1, rules=two_deck))
    assert _codes(result) == ["bad_show"]


def test_botzone_one_call_and_one_snatch_the_caller_may_snatch() -> None:
    """Botzone: a single level card calls (only if nobody has), exactly one snatch follows, a
    pair of one level card of any suit or of jokers (no trump), by anyone, the caller included;
    in a first round the caller or snatcher becomes banker."""
    shoe = Shoe(4, BOTZONE).give(0, "2H 2S 2S").give(1, "2C 2C SJ SJ")
    deal = shoe.deal()
    snatch = [_show(0, "2H"), _show(0, "2S 2S")]
    result = _settle(bidding_hand(deal, banker=None, bids=snatch, bury_seat=0, rules=BOTZONE))
    assert _codes(result) == [] and result.banker == 0
    assert result.trump is not None and result.trump.suit == 0
    joker = [_show(0, "2H"), _show(1, "SJ SJ")]
    result = _settle(bidding_hand(deal, banker=None, bids=joker, bury_seat=1, rules=BOTZONE))
    assert _codes(result) == [] and result.banker == 1
    assert result.trump is not None and result.trump.suit is None
    twice = [*snatch, _show(1, "2C 2C")]
    result = _settle(bidding_hand(deal, banker=0, bids=twice, rules=BOTZONE))
    assert _codes(result) == ["bad_show"] and "one snatch" in result.findings[0].reason
    pair_first = [_show(1, "2C 2C")]
    result = _settle(bidding_hand(deal, banker=0, bids=pair_first, rules=BOTZONE))
    assert _codes(result) == ["bad_show"] and "call" in result.findings[0].reason


def _no_show(rules: RuleSet, bottom: str, claimed: Claimed | None = None) -> Bidding:
    shoe = Shoe(5, rules).bottom(bottom)
    record = bidding_hand(shoe.deal(), banker=1, rules=rules, claimed=claimed)
    return _settle(record)


def test_nobody_shows_each_engine_its_own_trump() -> None:
    """jerryyyu: the suit of the first non-joker card of the kitty (a level card first does not
    count first, as it does in R8.5); ejfn: no trump; Botzone: a random suit, taken from the log."""
    bottom = "BJ 5H 2S 3C 4C 6C 7C 8C"
    result = _no_show(preset("two-deck"), bottom)
    assert result.trump is not None and result.trump.suit == 0  # R8.5: the level card's ♠
    result = _no_show(JERRYYYU, bottom)
    assert result.trump is not None and result.trump.suit == 1 and result.trump_source == "bottom"
    result = _no_show(EJFN, bottom)
    assert result.trump is not None and result.trump.suit is None
    result = _no_show(BOTZONE, bottom, Claimed(trump="C"))
    assert _codes(result) == [] and result.trump is not None and result.trump.suit == 2
    result = _no_show(BOTZONE, bottom)
    assert result.rejected and _codes(result) == ["no_show"]
    assert "claimed.trump" in result.findings[0].reason


def test_nobody_shows_in_a_first_hand_the_log_must_name_the_banker() -> None:
    shoe = Shoe(6, JERRYYYU)
    result = _settle(bidding_hand(shoe.deal(), banker=None, rules=JERRYYYU))
    assert result.rejected and _codes(result) == ["no_show"]
    assert "jerryyyu" in result.findings[0].reason
    result = _settle(bidding_hand(shoe.deal(), banker=0, rules=JERRYYYU))
    assert _codes(result) == [] and result.banker == 0


# --- Botzone's tractors (R3.2) -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "trump", "level", "botzone", "two_deck"),
    [
        ("AH AH 2S 2S", "H", "2", 2, 1),  # trump A + off-suit level pair
        ("2S 2S 2H 2H", "H", "2", 2, 1),  # off-suit level + trump-suit level
        ("2H 2H SJ SJ", "H", "2", 2, 1),  # trump-suit level + small joker
        ("SJ SJ BJ BJ", "H", "2", 1, 1),  # the one joker tractor
        ("2S 2S SJ SJ", "NT", "2", 2, 1),  # no-trump: level pair + small joker
        ("QH QH KH KH", "H", "2", 1, 1),  # plain trumps
        ("6S 6S 8S 8S", "H", "7", 1, 1),  # the level rank's gap is bridged
    ],
)
def test_botzone_tractors_have_no_level_cards_or_jokers_but_sj_sj_bj_bj(
    cards: str, trump: str, level: str, botzone: int, two_deck: int
) -> None:
    got = read_lead(parse_cards(cards), parse_trump(trump, level, False), BOTZONE)
    assert len(got.components) == botzone
    rb = read_lead(parse_cards(cards), parse_trump(trump, level), preset("two-deck"))
    assert len(rb.components) == two_deck


def test_botzone_ladder_keeps_the_order_of_trumps() -> None:
    gapped, plain = parse_trump("H", "2", False), parse_trump("H", "2")
    faces = sorted(range(54), key=plain.sort_key)
    assert sorted(range(54), key=gapped.sort_key) == faces
    assert all(gapped.eff[c] == plain.eff[c] for c in range(54))
    assert gapped.key != plain.key and gapped.eff[52] == TRUMP


# --- failed throws (R4.4, R4.5) ---------------------------------------------------------------------


def test_botzone_failed_throw_one_card_of_the_lowest_beatable_component_10_a_card() -> None:
    """Botzone: ♠Q♠Q ♠K thrown, seat 1 holds ♠A♠A (beats both): 3 beatable cards, penalty 30;
    the leader plays one card, the first of the lowest beatable component (♠Q♠Q by its top).
    jerryyyu forces the lowest beatable component by (pairs, top): the single ♠K."""
    trump = parse_trump("H", "2", False)
    lead = read_lead(parse_cards("QS QS KS"), trump, BOTZONE)
    hands = _hands("QS QS KS 3H", "AS AS 4H", "5D", "6D")
    got = check_throw(lead, 0, hands, trump, BOTZONE)
    assert got.failed and got.forced is not None and got.forced.cards() == parse_cards("QS")
    assert got.failing_cards == 3 and got.blocker == 1
    jerry = check_throw(lead, 0, hands, parse_trump("H", "2"), JERRYYYU)
    assert jerry.forced is not None and jerry.forced.cards() == parse_cards("KS")
    assert throw_penalty(0, 1, BOTZONE, got.failing_cards) == -30  # an attacker threw
    assert throw_penalty(0, 0, BOTZONE, got.failing_cards) == 30  # the banker threw
    assert throw_penalty(0, 1, JERRYYYU, jerry.failing_cards) == 0
    # A tractor component forces its lowest card.
    lead = read_lead(parse_cards("5S 5S 6S 6S AS"), trump, BOTZONE)
    hands = _hands("5S 5S 6S 6S AS", "9S 9S TS TS", "5D", "6D")
    got = check_throw(lead, 0, hands, trump, BOTZONE)
    assert got.forced is not None and got.forced.cards() == parse_cards("5S")
    assert got.failing_cards == 4


def test_botzone_off_suit_level_cards_of_equal_rank_in_the_judges_suit_order() -> None:
    """The judge's trump list puts the off-suit level cards in the order ♠ ♥ ♣ ♦: of a beatable
    ♣2 and ♦2 (♥ trump), the ♣2 is forced."""
    trump = parse_trump("H", "2", False)
    lead = read_lead(parse_cards("2D 2C"), trump, BOTZONE)
    hands = _hands("2D 2C", "2H", "5D", "6D")
    got = check_throw(lead, 0, hands, trump, BOTZONE)
    assert got.forced is not None and got.forced.cards() == parse_cards("2C")


# --- the bottom (R7.2) and the level tables (R7.3) ------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "jerryyyu", "botzone", "ejfn"),
    [
        ("AS", 2, 1, 2),
        ("AS AS", 4, 2, 4),
        ("KS KS AS AS", 8, 4, 8),
        ("AS AS KS", 6, 4, 4),  # jerryyyu's own example: pair + single ×6
        ("AS QS", 4, 2, 2),
        ("JS JS QS QS AS", 10, 8, 8),
    ],
)
def test_bottom_multipliers(cards: str, jerryyyu: int, botzone: int, ejfn: int) -> None:
    """jerryyyu 2 × the cards led; Botzone the lead's length, for a throw 2 × a largest component
    of 4 cards or more, 4 for a pair, else 2; ejfn 2^(pairs + 1). Whatever suit wins."""
    for rules, want in ((JERRYYYU, jerryyyu), (BOTZONE, botzone), (EJFN, ejfn)):
        trump = parse_trump("H", "2", rules.level_tractors)
        lead = read_lead(parse_cards(cards), trump, rules)
        assert bottom_multiplier(lead, False, rules) == want, rules.preset


@pytest.mark.parametrize(
    ("total", "botzone", "two_deck"),
    [
        (-50, ("banker", 3), ("banker", 4)),
        (0, ("banker", 3), ("banker", 3)),
        (35, ("banker", 2), ("banker", 2)),
        (75, ("banker", 1), ("banker", 1)),
        (80, ("attackers", 1), ("attackers", 0)),
        (115, ("attackers", 1), ("attackers", 0)),
        (120, ("attackers", 2), ("attackers", 1)),
        (160, ("attackers", 3), ("attackers", 2)),
        (240, ("attackers", 3), ("attackers", 4)),
    ],
)
def test_level_tables(total: int, botzone: tuple[str, int], two_deck: tuple[str, int]) -> None:
    """Botzone: no 80–119 dead zone and at most 3 levels either way; jerryyyu and ejfn keep the
    two-deck table."""
    got = level_change(total, BOTZONE)
    assert (got.winner, got.levels) == botzone
    for rules in (JERRYYYU, EJFN, preset("two-deck")):
        got = level_change(total, rules)
        assert (got.winner, got.levels) == two_deck


# --- Botzone's trick comparison of a throw (R6.2) -----------------------------------------------------


def _plays(*plays: tuple[int, str]) -> list[tuple[int, tuple[int, ...]]]:
    return [(seat, parse_cards(cards)) for seat, cards in plays]


def test_botzone_judge_fails_comparing_two_trump_plays_of_a_throw_without_a_tractor() -> None:
    """s6008, its last trick: ♥ trump, level 2, seat 2 throws J♥ 2♥ 10♥ (stands), seat 3 plays
    5♦ 5♦ 5♣, seat 0 the trumps 8♥ 4♥ 9♥: the judge's checkWinner raises comparing them with the
    winning trump lead, the match ends with an error charged to seat 1, the trick's last player."""
    trump = parse_trump("H", "2", False)
    lead = read_lead(parse_cards("JH 2H TH"), trump, BOTZONE)
    plays = _plays((2, "JH 2H TH"), (3, "5D 5D 5C"), (0, "8H 4H 9H"), (1, "4S 5S 7S"))
    assert botzone_judge_fault(lead, plays, [False, True, False, True], trump, BOTZONE) == 2
    # A ruff of a side-suit throw is compared: the first ruff wins, no fault...
    lead = read_lead(parse_cards("AS KS"), trump, BOTZONE)
    ruffed = _plays((2, "AS KS"), (3, "3H 4H"), (0, "5D 6D"), (1, "7D 8D"))
    assert botzone_judge_fault(lead, ruffed, [False, True, True, True], trump, BOTZONE) is None
    # ...but a second ruff is not.
    twice = _plays((2, "AS KS"), (3, "3H 4H"), (0, "5H 6H"), (1, "7D 8D"))
    assert botzone_judge_fault(lead, twice, [False, True, True, True], trump, BOTZONE) == 2
    # A winner whose highest card is an off-suit level card is compared by the judge itself.
    level = _plays((2, "AS KS"), (3, "3H 2D"), (0, "5H 6H"), (1, "7D 8D"))
    assert botzone_judge_fault(lead, level, [False, True, True, True], trump, BOTZONE) is None
    # A throw holding a tractor is compared by its largest component: no fault.
    lead = read_lead(parse_cards("QS QS KS KS 3S"), trump, BOTZONE)
    tractor = _plays(
        (2, "QS QS KS KS 3S"), (3, "3H 3H 4H 4H 9H"), (0, "5H 5H 6H 6H 7H"), (1, "7D 8D 9D TD JD")
    )
    voids = [False, True, True, True]
    assert botzone_judge_fault(lead, tractor, voids, trump, BOTZONE) is None


# --- whole hands, and the referee --------------------------------------------------------------------


@pytest.mark.parametrize("rules", ENGINES, ids=lambda r: r.preset)
@pytest.mark.parametrize("seed", range(6))
def test_hands_played_by_an_engines_rules_replay_under_its_preset(
    rules: RuleSet, seed: int
) -> None:
    """A hand played legally under an engine's options replays clean under its preset: the only
    finding allowed is Botzone's own failure (`engine_fault`), after which nothing is scored."""
    record = played_hand(seed, rules=rules, throw_rate=0.5, first_hand=seed % 2 == 0)
    got = replay_record(record)
    codes = {f.code for f in got.findings}
    if codes == {"engine_fault"}:
        assert rules is BOTZONE and got.attackers_points is None
        return
    assert got.status == "ok", [f.reason for f in got.findings]
    assert got.attackers_points is not None
    assert sum(len(p.cards) for t in got.tricks for p in t.plays) == 100


def test_botzone_penalty_and_level_change_reach_the_replay() -> None:
    """A Botzone hand with a failed throw: the total carries −10 per beatable card of an
    attacker's throw (or +10 of the banker team's), on top of the tricks and the bottom."""
    for seed in range(40):
        record = played_hand(seed, rules=BOTZONE, throw_rate=0.9)
        got = replay_record(record)
        if got.status != "ok" or not sum(got.failed_throws):
            continue
        plain = replay_record(replace(record, rules=replace(BOTZONE, throw_penalty_points=0)))
        assert plain.attackers_points is not None and got.attackers_points is not None
        assert got.attackers_points != plain.attackers_points
        assert (got.attackers_points - plain.attackers_points) % 10 == 0
        return
    pytest.fail("no seed gave a Botzone hand with a failed throw")


def test_the_referee_knows_the_engine_options() -> None:
    """The referee reads Botzone's tractors and reports its judge's failure on a throw trick."""
    got = judge({"kind": "format", "rules": "botzone", "trump": "H", "level": "2",
                 "cards": "AH AH 2S 2S"})  # fmt: skip
    assert len(got.response["components"]) == 2
    got = judge({"kind": "format", "rules": "two-deck", "trump": "H", "level": "2",
                 "cards": "AH AH 2S 2S"})  # fmt: skip
    assert len(got.response["components"]) == 1
    request = {
        "kind": "trick",
        "rules": "botzone",
        "trump": "H",
        "level": "2",
        "hands": ["JH 2H TH", "5D 5D 5C", "8H 4H 9H", "4S 5S 7S"],
        "plays": ["JH 2H TH", "5D 5D 5C", "8H 4H 9H", "4S 5S 7S"],
    }
    got = judge(request)
    assert "Botzone judge fails" in got.response["reason"]
    got = judge({**request, "rules": "jerryyyu"})
    assert "Botzone" not in got.response["reason"]


# --- following (R5.3, option follow_rule) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("lead", "held", "play", "ladder", "jerryyyu", "botzone"),
    [
        # A throw of a pair and a single: jerryyyu owes the pair held; Botzone's judge checks
        # only the suit of a throw without a tractor.
        ("AS AS KS", "3S 3S 5S 6S 4D", "3S 5S 6S", False, False, True),
        ("AS AS KS", "3S 3S 5S 6S 4D", "3S 3S 5S", True, True, True),
        # ⟨2-2-2⟩ led, ⟨2-2⟩ + two pairs held: the ladder owes ⟨2-2⟩ + 2, jerryyyu and Botzone
        # only three pairs.
        ("9S 9S TS TS JS JS", "3S 3S 4S 4S 7S 7S QS QS", "3S 3S 7S 7S QS QS", False, True, True),
        ("9S 9S TS TS JS JS", "3S 3S 4S 4S 7S 7S QS QS", "3S 3S 4S 7S QS QS", False, False, False),
        # ⟨2-2⟩ led and held: every rule owes it.
        ("9S 9S TS TS", "3S 3S 4S 4S 6S", "3S 3S 4S 6S", False, False, False),
        ("9S 9S TS TS", "3S 3S 4S 4S 6S", "3S 3S 4S 4S", True, True, True),
        # A pair led, a pair held.
        ("9S 9S", "3S 3S 4S", "3S 4S", False, False, False),
    ],
)
def test_follow_rules(
    lead: str, held: str, play: str, ladder: bool, jerryyyu: bool, botzone: bool
) -> None:
    """`follow_rule`: jerryyyu's `validate_follow` (pairs up to the pairs led, a tractor for a
    one-tractor lead when held) and the Botzone judge's `checkLegalMove`."""
    for rules, want in ((preset("two-deck"), ladder), (JERRYYYU, jerryyyu), (BOTZONE, botzone)):
        trump = parse_trump("H", "2", rules.level_tractors)
        reading = read_lead(parse_cards(lead), trump, rules)
        hand = Hand.of(parse_cards(held))
        got = check_follow(reading, hand, parse_cards(play), trump, rules)
        assert got.legal == want, (rules.preset, got.reason)
        after = list(hand.counts)
        for c in parse_cards(play):
            after[c] -= 1
        assert follow_is_legal(reading, after, parse_cards(play), trump, rules) == want
        if not want:
            assert got.rung is not None


def test_jerryyyu_forces_the_equal_rank_component_of_the_lowest_card_code() -> None:
    """RSK1 round 1, trick 19 (level 2, ♠ trump): seat 1 throws 2♣ 2♦, seat 2 holds 2♠ above both;
    jerryyyu forces 2♣ (its card codes sorted: C2 < D2), the rule book 2♦ (♠ < ♥ < ♦ < ♣)."""
    trump = parse_trump("S", "2")
    lead = read_lead(parse_cards("2C 2D"), trump, JERRYYYU)
    hands = _hands("3D", "2C 2D", "2S", "4D")
    got = check_throw(lead, 1, hands, trump, JERRYYYU)
    assert got.forced is not None and got.forced.cards() == parse_cards("2C")
    book = check_throw(lead, 1, hands, trump, preset("two-deck"))
    assert book.forced is not None and book.forced.cards() == parse_cards("2D")
