"""The replay engine: golden hands, a hand written by hand, properties of random legal hands, and
fuzzed lines that must never raise (docs/findings.md, R4–R8)."""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import json
import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hh_builder import played_hand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import shengji
import shengji.replay as replay_module
from shengji.bidding import bottom_trump
from shengji.cards import Card, Hand, format_cards, parse_card, parse_cards, points_of, pretty_card
from shengji.combos import read_lead
from shengji.follow import check_follow
from shengji.record import format_hand, hand_to_json, parse_hand
from shengji.render import replay_json
from shengji.replay import content_hash, quick_follow, replay_line, replay_record, same_shape
from shengji.results import HandReplay
from shengji.rules import FOUR_DECK, RBTYING, TWO_DECK, RuleSet
from shengji.trump import TRUMP, parse_trump

HANDS = Path(__file__).resolve().parent / "data" / "hands"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "findings.md"


def _scenarios(name: str = "scenarios") -> list[tuple[int, str, dict[str, Any]]]:
    lines = (HANDS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    expected = (HANDS / f"{name}.expected.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(expected)
    return [
        (n, text, json.loads(exp))
        for n, (text, exp) in enumerate(zip(lines, expected, strict=True), 1)
    ]


SCENARIOS = _scenarios()
ENGINE_SCENARIOS = _scenarios("engines")
"""Golden hands of the findings only an engine preset makes (tests/make_engine_hands.py)."""


def _case(name: str) -> tuple[HandReplay, dict[str, Any]]:
    for number, text, _ in SCENARIOS + ENGINE_SCENARIOS:
        if f'"_case":"{name}"' in text:
            return replay_line(text, line=number), json.loads(text)
    raise KeyError(name)


# --- golden hands --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "text", "expected"), SCENARIOS, ids=[str(n) for n, *_ in SCENARIOS]
)
def test_golden_hands_replay_exactly_as_recorded(
    number: int, text: str, expected: dict[str, Any]
) -> None:
    assert replay_json(replay_line(text, line=number)) == expected


@pytest.mark.parametrize(
    ("number", "text", "expected"), ENGINE_SCENARIOS, ids=[str(n) for n, *_ in ENGINE_SCENARIOS]
)
def test_engine_golden_hands_replay_exactly_as_recorded(
    number: int, text: str, expected: dict[str, Any]
) -> None:
    assert replay_json(replay_line(text, line=number)) == expected


def _documented_codes() -> dict[str, str]:
    """code -> status column of docs/findings.md's table."""
    rows = re.findall(r"^\| `(\w+)` \|.*\| ([^|]+) \|$", DOCS.read_text(encoding="utf-8"), re.M)
    return {code: status.strip() for code, status in rows}


def test_every_documented_code_is_shown_by_a_golden_hand_and_no_other_code_exists() -> None:
    documented = _documented_codes()
    seen = {f["code"] for _, _, exp in SCENARIOS + ENGINE_SCENARIOS for f in exp["findings"]}
    assert seen | {"internal"} == set(documented)
    assert set(replay_module.REJECTING) <= set(documented)


@pytest.mark.parametrize(
    "code",
    [c for c in _documented_codes() if c not in ("internal", "bad_json")],
)
def test_each_fault_case_finds_its_code_with_the_documented_status(code: str) -> None:
    replay, _ = _case(code)
    assert [f.code for f in replay.findings] == [code]
    status = _documented_codes()[code]
    if code == "bad_bury":
        assert replay.status == "flagged"  # the seat was wrong; the cards were the banker's
    else:
        assert replay.status == status
        assert (code in replay_module.REJECTING) == (status == "rejected")


def test_the_cut_line_is_bad_json_with_no_hand_id() -> None:
    number, text, _ = SCENARIOS[-1]
    replay = replay_line(text, line=number)
    assert replay.status == "rejected" and replay.hand_id == ""
    assert replay.findings[0].code == "bad_json" and replay.findings[0].line == number


def test_a_bad_record_keeps_its_hand_id_and_names_the_field() -> None:
    replay, _ = _case("bad_record")
    assert replay.hand_id == "g-bad_record" and "colour" in replay.findings[0].reason


def test_rejected_hands_keep_the_tricks_before_the_fault() -> None:
    for code in ("out_of_turn", "not_in_hand", "wrong_count", "mixed_lead"):
        replay, _ = _case(code)
        finding = replay.findings[0]
        assert finding.trick == len(replay.tricks) + 1, code
        assert finding.seat is not None and finding.line is not None
        assert replay.attackers_points is None and replay.level_change is None


def test_r4_4_a_failed_throw_plays_the_forced_component() -> None:
    for name in ("failed_throw", "failed_throw_unclaimed"):
        replay, raw = _case(name)
        assert replay.status == "ok"
        failed = [t for t in replay.tricks if t.throw is not None and t.throw.failed]
        assert failed and sum(replay.failed_throws) == len(failed)
        for t in failed:
            assert t.throw is not None and t.throw.forced is not None
            assert t.plays[0].cards == t.throw.forced
            assert Hand.of(t.throw.attempted).contains(t.throw.forced)
            assert t.throw.blocker is not None and t.throw.blocker != t.leader
            assert all(len(p.cards) == len(t.throw.forced) for p in t.plays)
            lead = raw["plays"][t.plays[0].index]
            assert ("forced" in lead) == (name == "failed_throw")
        assert replay.ladder_points is not None
        winners = {s for s in range(4) if replay.level_change and s % 2 == replay.level_change.team}
        for seat in range(4):
            gain = 3 * replay.level_change.levels if seat in winners else 0  # type: ignore[union-attr]
            assert replay.ladder_points[seat] == gain - replay.failed_throws[seat]  # R7.5


def test_r7_2_a_bottom_captured_with_a_pair_counts_four_times() -> None:
    replay, _ = _case("bottom_pair")
    bottom = replay.bottom
    assert bottom is not None and bottom.captured and bottom.lead_shape == "pair"
    assert bottom.multiplier == 4 and bottom.points == 4 * bottom.bottom_points
    assert bottom.bottom_points == points_of(replay.bottom_buried)
    last = replay.tricks[-1]
    assert last.winner % 2 != replay.banker % 2  # type: ignore[operator]
    assert replay.attackers_points == last.attackers_total + bottom.points


def test_r8_7_a_fried_bottom() -> None:
    replay, raw = _case("fried")
    assert replay.status == "ok" and replay.trump_source == "fry"
    fry = raw["fries"][0]
    assert replay.bids[-1].kind == "fry" and replay.bids[-1].seat == fry["seat"]
    assert replay.bottom_buried == parse_cards(fry["bury"])
    assert replay.banker == raw["banker"]
    assert replay.trump == fry["cards"].split()[0][1]


def test_r8_5_trump_from_the_revealed_bottom() -> None:
    replay, _ = _case("bottom_reveal")
    assert replay.status == "ok" and replay.trump_source == "bottom" and replay.bids == ()
    suit = bottom_trump(replay.bottom_dealt, replay.level)  # type: ignore[arg-type]
    assert replay.trump == ("NT" if suit is None else "SHCD"[suit])


def test_r8_4_first_hand_banker_is_the_shower() -> None:
    replay, raw = _case("first_hand")
    assert raw["banker"] is None and replay.banker == raw["bids"][0]["seat"]
    assert replay.status == "ok" and replay.tricks[0].leader == replay.banker


def test_an_abandoned_hand_replays_what_is_there_and_scores_nothing() -> None:
    replay, raw = _case("abandoned")
    assert replay.status == "ok" and replay.end == "abandoned"
    assert len(replay.tricks) == len(raw["plays"]) // 4
    assert replay.attackers_points is None and replay.bottom is None
    assert replay.level_change is None and replay.next_banker is None
    assert replay.ladder_points is None


def test_a_redeal_has_no_trump_no_banker_no_tricks() -> None:
    replay, _ = _case("redeal")
    assert replay.status == "ok" and replay.end == "redeal"
    assert replay.trump is None and replay.banker is None and replay.tricks == ()


def test_claims_that_agree_raise_nothing_and_one_that_differs_is_named() -> None:
    replay, raw = _case("clean")
    assert replay.status == "ok" and set(raw["claimed"]) == {
        "trump",
        "attackers_points",
        "bottom_multiplier",
        "level_change",
        "next_banker",
    }
    replay, raw = _case("claim_mismatch")
    (finding,) = replay.findings
    claimed = raw["claimed"]["attackers_points"]
    assert finding.reason == (
        f"claimed attackers_points {claimed}, but the replay gives {replay.attackers_points}"
    )


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("trump", "NT", "claimed trump NT"),
        ("bottom_multiplier", 64, "claimed bottom_multiplier 64"),
        ("level_change", {"team": 0, "levels": 9}, "claimed level_change team 0 +9"),
        ("next_banker", None, "claimed next_banker"),
    ],
)
def test_every_claimed_field_is_compared(field: str, value: Any, shown: str) -> None:
    replay, raw = _case("clean")
    if field == "next_banker":
        value = (replay.next_banker + 1) % 4  # type: ignore[operator]
    raw["claimed"][field] = value
    again = replay_line(json.dumps(raw))
    assert [f.code for f in again.findings] == ["claim_mismatch"]
    assert again.findings[0].reason.startswith(shown)


def test_the_content_hash_is_of_the_canonical_line() -> None:
    _, raw = _case("clean")
    spaced = json.dumps(raw, indent=1)  # another spelling of the same hand
    a, b = replay_line(json.dumps(raw)), replay_line(spaced)
    assert a.content_hash == b.content_hash == content_hash(format_hand(parse_hand(spaced)))
    raw["plays"][0]["cards"], raw["plays"][1]["cards"] = (
        raw["plays"][1]["cards"],
        raw["plays"][0]["cards"],
    )
    assert replay_line(json.dumps(raw)).content_hash != a.content_hash


# --- properties of random legal hands --------------------------------------------------------------


def _check_legal_hand(replay: HandReplay, rules: RuleSet) -> None:
    assert replay.status == "ok", replay.findings
    assert replay.findings == ()
    tricks = replay.tricks
    assert sum(len(p.cards) for t in tricks for p in t.plays) == rules.deck_size - 8
    banker_team = replay.banker % 2  # type: ignore[operator]
    attackers = sum(t.points for t in tricks if t.winner % 2 != banker_team)
    bankers = sum(t.points for t in tricks if t.winner % 2 == banker_team)
    bottom = replay.bottom
    assert bottom is not None
    assert attackers + bankers + bottom.bottom_points == rules.total_points
    assert replay.attackers_points == attackers + bottom.points  # no penalty points by default
    for t in tricks:
        assert t.points == sum(points_of(p.cards) for p in t.plays)
        assert [p.seat for p in t.plays] == [(t.leader + k) % 4 for k in range(4)]
    for a, b in itertools.pairwise(tricks):
        assert b.leader == a.winner
    assert replay.start and sum(len(h) for h in replay.start) == rules.deck_size - 8


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from([FOUR_DECK, TWO_DECK, RBTYING]), st.booleans())
def test_random_legal_hands_replay_without_findings(seed: int, rules: RuleSet, fry: bool) -> None:
    try:
        record = played_hand(seed, rules=rules, fry=fry, throw_rate=0.2)
    except AssertionError:
        record = played_hand(seed, rules=rules, throw_rate=0.2)  # no seat could fry
    replay = replay_line(format_hand(record), line=1)
    _check_legal_hand(replay, rules)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
def test_r4_5_throw_penalty_points_move_to_the_other_team(seed: int) -> None:
    rules = replace(FOUR_DECK, throw_penalty_points=10)
    record = played_hand(seed, rules=rules, throw_rate=0.5)
    replay = replay_record(record)
    assert replay.status == "ok"
    banker_team = replay.banker % 2  # type: ignore[operator]
    trick_points = sum(t.points for t in replay.tricks if t.winner % 2 != banker_team)
    penalty = sum(
        (-10 if t.leader % 2 != banker_team else 10)
        for t in replay.tricks
        if t.throw is not None and t.throw.failed
    )
    assert replay.bottom is not None
    assert replay.attackers_points == trick_points + penalty + replay.bottom.points


# --- R5 fast path ---------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**9))
def test_the_follow_shortcuts_agree_with_check_follow(seed: int) -> None:
    """`quick_follow` (counts alone) and `same_shape` (the lead's exact shape) never disagree
    with `follow.check_follow`, the rule itself."""
    rng = random.Random(seed)
    rules = rng.choice([FOUR_DECK, replace(FOUR_DECK, protect_longer_units=True)])
    trump = parse_trump(rng.choice(["S", "H", "C", "D", "NT"]), rng.choice("23456789TJQKA"))
    deck = [c for c in range(54) for _ in range(4)]
    rng.shuffle(deck)
    hand_cards = sorted(deck[: rng.randint(4, 40)])
    suit = rng.choice(sorted({trump.eff[c] for c in range(54)}))
    suit_cards = sorted(c for c in range(54) if trump.eff[c] == suit)
    face = rng.choice(suit_cards)
    lead_cards = (face,) * rng.choice((1, 2, 2, 3, 4))
    lead = read_lead(lead_cards, trump, rules)
    mine = [c for c in hand_cards if trump.eff[c] == suit]
    units = [c for c in set(mine) if mine.count(c) >= lead.size]
    if units and rng.random() < 0.5:
        play = (rng.choice(units),) * lead.size
    elif len(hand_cards) >= lead.size:
        play = tuple(rng.sample(hand_cards, lead.size))
    else:
        return
    hand = Hand.of(hand_cards)
    held = sum(hand.counts[c] for c in range(54) if trump.eff[c] == lead.suit)
    inside = sum(1 for c in play if trump.eff[c] == lead.suit)
    verdict = check_follow(lead, hand, play, trump, rules)
    quick = quick_follow(held, inside, lead.size)
    if quick is not None:
        assert quick == verdict.legal, (verdict.reason, held, inside)
    else:
        assert lead.size > 1 and held >= lead.size and inside == lead.size
        if same_shape(lead, play, trump, rules):
            assert verdict.legal, verdict.reason


# --- a hand written by hand -----------------------------------------------------------------------

# Two decks, level 2, banker seat 0, ♥ trump. Every seat holds six cards of each side suit and
# seven trumps; the banker buries the bottom it takes (eight trumps), so every seat can always
# follow. Leads: the lowest card of the first suit held in the order ♠ ♣ ♦ trump; follows: the
# highest card of the led suit. Winners and points are worked out here, independently of the
# engine, from RULES.md's card order.

_LEVEL = 2


def _strength(card: Card) -> int:
    if card == 53:
        return 100
    if card == 52:
        return 99
    rank, suit = card % 13 + 2, card // 13
    if rank == _LEVEL:
        return 98 if suit == 1 else 97  # ♥2 above the other level cards, which are equal
    return rank


def _eff(card: Card) -> int:
    if card >= 52 or card % 13 + 2 == _LEVEL or card // 13 == 1:
        return TRUMP
    return card // 13


def _hand_written() -> tuple[str, dict[str, Any]]:
    """The hand as FORMAT.md describes it, with its outcome computed by hand."""
    seats: list[list[Card]] = [[], [], [], []]
    for suit in (0, 2, 3):
        cards = sorted(c for c in range(52) if c // 13 == suit and c % 13 + 2 != _LEVEL) * 2
        cards.sort()
        for i, c in enumerate(cards):
            seats[(i + suit) % 4].append(c)
    trumps = sorted([c for c in range(54) if _eff(c) == TRUMP] * 2, key=lambda c: (_strength(c), c))
    bottom = [c for i, c in enumerate(trumps) if i in (3, 7, 12, 16, 21, 25, 30, 34)]
    rest = [c for i, c in enumerate(trumps) if i not in (3, 7, 12, 16, 21, 25, 30, 34)]
    for i, c in enumerate(rest):
        seats[i % 4].append(c)
    shoe: list[Card] = []
    for k in range(25):
        shoe.extend(seats[s][k] for s in range(4))  # first = 0: card i goes to seat i mod 4
    shoe.extend(bottom)
    heart_two = parse_card("2H")
    shower = next(s for s in range(4) if heart_two in seats[s])
    dealt = 4 * seats[shower].index(heart_two) + shower + 1

    holdings = [list(s) for s in seats]
    plays: list[dict[str, Any]] = []
    leader, attackers_points, last = 0, 0, None
    for _ in range(25):
        mine = holdings[leader]
        suit = next(s for s in (0, 2, 3, TRUMP) if any(_eff(c) == s for c in mine))
        lead = min((c for c in mine if _eff(c) == suit), key=lambda c: (_strength(c), c))
        trick = [(leader, lead)]
        for k in range(1, 4):
            seat = (leader + k) % 4
            card = max((c for c in holdings[seat] if _eff(c) == suit), key=_strength)
            trick.append((seat, card))
        best = trick[0]
        for seat, card in trick[1:]:
            if _strength(card) > _strength(best[1]):  # equal strength: the earlier play wins
                best = (seat, card)
        for seat, card in trick:
            holdings[seat].remove(card)
            token = format_cards([card])
            plays.append(
                {"seat": seat, "cards": token.replace("T", "10") if token[0] == "T" else token}
            )
        points = points_of(c for _, c in trick)
        if best[0] % 2 == 1:
            attackers_points += points
        leader, last = best[0], best
    assert last is not None
    captured = last[0] % 2 == 1
    if captured:
        attackers_points += 2 * points_of(bottom)  # a single trump takes it: 2^1 (R7.2)
    t, step = attackers_points, 40
    if t >= 2 * step:
        change, next_banker = {"team": 1, "levels": t // step - 2}, 1
    else:
        change, next_banker = {"team": 0, "levels": 3 if t == 0 else 2 if t < step else 1}, 2
    text = (
        '{"format": "tractor-hh/1", "hand_id": "by-hand-1", "source": "notebook",\n'
        ' "rules": "two-deck", "players": ["p0", "p1", "p2", "p3"], "levels": ["2", "2"],\n'
        ' "banker": 0, "deal": {"first": 0, "cards": "'
        + "  ".join(format_cards([c]) for c in shoe)
        + '"},\n'
        ' "bids": [{"seat": ' + str(shower) + ', "cards": "2H", "dealt": ' + str(dealt) + "}],\n"
        ' "bury": {"seat": 0, "cards": "' + format_cards(bottom) + '"},\n'
        ' "plays": ' + json.dumps(plays) + ",\n"
        ' "claimed": {"trump": "H", "attackers_points": ' + str(attackers_points) + ","
        ' "bottom_multiplier": ' + str(2 if captured else 0) + ","
        ' "level_change": ' + json.dumps(change) + ', "next_banker": ' + str(next_banker) + "},\n"
        ' "_note": "written by hand"}'
    ).replace("\n", " ")
    return text, {"attackers_points": attackers_points, "plays": plays}


def test_a_hand_written_by_hand_from_the_format_replays_to_its_own_outcome() -> None:
    text, worked = _hand_written()
    replay = replay_line(text, line=3)
    assert replay.status == "ok", replay.findings
    assert len(replay.tricks) == 25 and replay.trump == "H" and replay.banker == 0
    assert replay.attackers_points == worked["attackers_points"]
    assert parse_hand(text).extra == (("_note", "written by hand"),)


def test_a_corrupted_copy_is_flagged_at_the_exact_trick_seat_and_reason() -> None:
    text, _ = _hand_written()
    obj = json.loads(text)
    # Trick 3, third play: play a card of another suit (taken from the seat's last play).
    i = 2 * 4 + 2
    seat = obj["plays"][i]["seat"]
    j = max(k for k, p in enumerate(obj["plays"]) if p["seat"] == seat)
    led = obj["plays"][i]["cards"]
    obj["plays"][i]["cards"], obj["plays"][j]["cards"] = obj["plays"][j]["cards"], led
    replay = replay_line(json.dumps(obj), line=3)
    assert replay.status in ("flagged", "rejected")
    first = replay.findings[0]
    assert (first.code, first.trick, first.seat, first.line) == ("must_follow_suit", 3, seat, 3)
    played = parse_cards(obj["plays"][i]["cards"])
    assert first.reason.startswith(f"seat {seat} to seat ")
    assert "must follow" in first.reason and format_cards(played) != led
    assert _pretty(obj["plays"][i]["cards"]) in first.reason


def _pretty(tokens: str) -> str:
    return " ".join(pretty_card(c) for c in parse_cards(tokens))


def test_a_corrupted_copy_with_a_card_not_held_is_rejected_there() -> None:
    text, _ = _hand_written()
    obj = json.loads(text)
    i = 6 * 4 + 1  # trick 7, second play
    seat = obj["plays"][i]["seat"]
    held = {p["cards"] for p in obj["plays"] if p["seat"] == seat}
    obj["plays"][i]["cards"] = next(t for t in ("BJ", "SJ", "AS", "AC") if t not in held)
    replay = replay_line(json.dumps(obj), line=9)
    assert replay.status == "rejected" and len(replay.tricks) == 6
    (finding,) = replay.findings
    assert (finding.code, finding.trick, finding.seat, finding.line) == ("not_in_hand", 7, seat, 9)
    card = _pretty(obj["plays"][i]["cards"])
    assert finding.reason == f"seat {seat} plays {card} but does not hold {card}"


# --- program errors -------------------------------------------------------------------------------


def test_a_program_error_raises_in_tests_and_is_internal_in_a_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("boom")

    _, raw = _case("clean")
    # The replay's own source, loaded afresh: a compiled module binds the functions it calls
    # when it is built, so only the Python module lets a test put a failing one in.
    spec = importlib.util.spec_from_file_location(
        "shengji._replay_source", Path(shengji.__file__).parent / "replay.py"
    )
    assert spec is not None and spec.loader is not None
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    monkeypatch.setattr(source, "resolve_trick", broken)
    with pytest.raises(ZeroDivisionError) as info:
        source.replay_line(json.dumps(raw), line=4, file="x.jsonl")
    assert any("g-clean" in note and "x.jsonl:4" in note for note in info.value.__notes__)
    replay = source.replay_line(json.dumps(raw), line=4, strict=False)
    assert replay.status == "rejected" and replay.hand_id == "g-clean"
    (finding,) = replay.findings
    assert finding.code == "internal" and "boom" in finding.reason and finding.line == 4


# --- fuzzing --------------------------------------------------------------------------------------

_BASE_LINES = [text for _, text, _ in SCENARIOS[:12]]


def _mutate(text: str, rng: random.Random) -> str:
    if not text:
        return text  # an earlier truncation left nothing to cut or flip
    kind = rng.randrange(7)
    if kind == 0:  # truncate
        return text[: rng.randrange(len(text))]
    if kind == 1:  # flip bytes
        data = bytearray(text.encode("utf-8", "surrogateescape"))
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return data.decode("utf-8", "surrogateescape")
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    if not isinstance(obj, dict):
        return text
    # An earlier mutation may have left a shape this one cannot work on.
    with contextlib.suppress(TypeError, AttributeError, KeyError, IndexError, ValueError):
        _mutate_fields(obj, kind, rng)
    return json.dumps(obj)


def _mutate_fields(obj: dict[str, Any], kind: int, rng: random.Random) -> None:
    if kind == 2:  # delete a field, here or one level down
        target = obj
        if rng.random() < 0.5:
            nested = [v for v in obj.values() if isinstance(v, dict) and v]
            nested += [p for p in obj.get("plays", []) + obj.get("bids", []) if p]
            if nested:
                target = rng.choice(nested)
        if target:
            del target[rng.choice(list(target))]
    elif kind == 3 and len(obj.get("plays", [])) > 2:  # swap cards between two plays
        a, b = rng.sample(obj["plays"], 2)
        a["cards"], b["cards"] = b["cards"], a["cards"]
    elif kind == 4 and obj.get("plays"):  # change a seat or drop / duplicate a play
        plays = obj["plays"]
        k = rng.randrange(len(plays))
        choice = rng.randrange(3)
        if choice == 0:
            plays[k]["seat"] = rng.choice([0, 1, 2, 3, 4, -1, "1", None])
        elif choice == 1:
            del plays[k]
        else:
            plays.insert(k, dict(plays[k]))
    elif kind == 5:  # replace a value with one of another type
        key = rng.choice(list(obj))
        obj[key] = rng.choice([None, 0, "x", [], {}, True, -3, 1.5])
    else:  # bend a card list
        lists = [p for p in obj.get("plays", []) if p.get("cards")]
        if lists:
            p = rng.choice(lists)
            tokens = p["cards"].split()
            tokens[rng.randrange(len(tokens))] = rng.choice(["XS", "10H", "sj", "", "AS", "2D"])
            p["cards"] = " ".join(tokens)
            if rng.random() < 0.3:
                p["forced"] = rng.choice(tokens) or "AS"
            if rng.random() < 0.3:
                p["split"] = [rng.choice(tokens) or "AS"]


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 10**9))
def test_mutated_lines_never_raise_and_always_end_with_a_status(seed: int) -> None:
    rng = random.Random(seed)
    text = rng.choice(_BASE_LINES)
    for _ in range(rng.randint(1, 3)):
        text = _mutate(text, rng)
    replay = replay_line(text, line=5)  # strict: a program error would raise here
    assert replay.status in ("ok", "flagged", "rejected")
    assert (replay.status == "ok") == (replay.findings == ())
    assert all(f.line == 5 for f in replay.findings)
    json.dumps(replay_json(replay))


def test_fuzzing_reaches_rejections_and_flags() -> None:
    rng = random.Random(1)
    statuses = set()
    codes = set()
    for _ in range(150):
        replay = replay_line(_mutate(rng.choice(_BASE_LINES), rng))
        statuses.add(replay.status)
        codes.update(f.code for f in replay.findings)
    assert statuses == {"ok", "flagged", "rejected"}
    assert {"bad_json", "bad_record", "not_in_hand"} <= codes


def test_every_hand_of_the_golden_file_parses_back_to_its_canonical_form() -> None:
    for _, text, _ in SCENARIOS:
        try:
            record = parse_hand(text)
        except ValueError:
            continue
        assert parse_hand(format_hand(record)) == record
        assert hand_to_json(record)["hand_id"] == record.hand_id
