"""Each engine's card codes and events as tractor-hh/1 (docs/import.md), on the committed logs."""

from __future__ import annotations

from pathlib import Path

import pytest

from shengji.cards import format_cards, parse_card, parse_cards
from shengji.hhfile import Line
from shengji.importers import botzone, ejfn, jerryyyu, read, read_file
from shengji.importers.common import LogError
from shengji.record import Play, TrickClaim, parse_hand, split_deal
from shengji.rules import preset

ENGINES = Path(__file__).resolve().parent.parent / "data" / "engines"


def _lines(*texts: str) -> list[Line]:
    return [Line(i, t, len(t)) for i, t in enumerate(texts, start=1)]


@pytest.mark.parametrize(
    ("token", "card"),
    [
        ("S10", "TS"),
        ("HQ", "QH"),
        ("D2", "2D"),
        ("CA", "AC"),
        ("SJ", "JS"),  # jerryyyu writes suit first: the jack of spades, not a joker
        ("LJ", "SJ"),
        ("BJ", "BJ"),
    ],
)
def test_jerryyyu_card_codes(token: str, card: str) -> None:
    assert jerryyyu.card(token) == parse_card(card)


@pytest.mark.parametrize("token", ["X9", "S1", "S11", "", "H", 12, None])
def test_jerryyyu_wrong_card_codes_are_quoted(token: object) -> None:
    with pytest.raises(LogError, match="unknown card"):
        jerryyyu.card(token)


@pytest.mark.parametrize(
    ("card_id", "suits", "card"),
    [
        (0, botzone.SUITS_2024, "AS"),
        (1, botzone.SUITS_2024, "AH"),
        (2, botzone.SUITS_2024, "AC"),
        (3, botzone.SUITS_2024, "AD"),
        (4, botzone.SUITS_2024, "2S"),
        (36, botzone.SUITS_2024, "TS"),
        (51, botzone.SUITS_2024, "KD"),
        (52, botzone.SUITS_2024, "SJ"),
        (53, botzone.SUITS_2024, "BJ"),
        (54, botzone.SUITS_2024, "AS"),
        (107, botzone.SUITS_2024, "BJ"),
        (0, botzone.SUITS_2023, "AH"),
        (1, botzone.SUITS_2023, "AD"),
        (2, botzone.SUITS_2023, "AS"),
        (3, botzone.SUITS_2023, "AC"),
    ],
)
def test_botzone_card_ids_in_both_judges_suit_orders(card_id: int, suits: str, card: str) -> None:
    assert botzone.card(card_id, suits) == parse_card(card)


@pytest.mark.parametrize("card_id", [108, -1, True, "5", 3.0])
def test_botzone_wrong_card_ids_are_quoted(card_id: object) -> None:
    with pytest.raises(LogError, match="unknown card id"):
        botzone.card(card_id, botzone.SUITS_2024)


@pytest.mark.parametrize(
    ("token", "card"),
    [("10♦", "TD"), ("A♠", "AS"), ("2♣", "2C"), ("K♥", "KH"), ("SJ", "SJ"), ("BJ", "BJ")],
)
def test_ejfn_card_strings(token: str, card: str) -> None:
    assert ejfn.card(token) == parse_card(card)


@pytest.mark.parametrize("token", ["1♠", "A♤", "AS", "LJ", ""])
def test_ejfn_wrong_card_strings_are_quoted(token: str) -> None:
    with pytest.raises(LogError, match="unknown card"):
        ejfn.card(token)


def test_jerryyyu_round_events_map_to_the_hand() -> None:
    """SMA1 round 1, the example of SOURCES: declares D2 then D2 D2 by seat 2, trump ♦, banker 2."""
    first = next(iter(read_file(ENGINES / "jerryyyu" / "SMA1.jsonl.gz", "jerryyyu")))
    r = first.record
    assert r is not None and first.line == 1
    assert (r.hand_id, r.source, r.match_id, r.hand_no) == ("SMA1-1", "jerryyyu", "SMA1", 1)
    assert r.rules == preset("jerryyyu")
    assert r.players == ("Bot 0", "Bot 1", "Bot 2", "Bot 3")
    assert r.banker is None and r.levels == (2, 2) and r.deal.first == 0
    assert [(b.seat, format_cards(b.cards)) for b in r.bids] == [(2, "2D"), (2, "2D 2D")]
    assert [b.dealt for b in r.bids] == sorted(b.dealt for b in r.bids)
    assert r.bury is not None and r.bury.seat == 2
    assert format_cards(r.bury.cards) == "3H 3C 4H 6H 7H 8S 9H 8C"
    assert r.plays[:4] == (
        Play(2, parse_cards("6C 6C 7C 7C")),
        Play(3, parse_cards("4C 4C KC KC")),
        Play(0, parse_cards("TC TC 9C AC")),
        Play(1, parse_cards("5C 8C 3C 4H")),
    )
    c = r.claimed
    assert c is not None
    assert (c.trump, c.banker) == ("D", 2)
    assert c.tricks[0] == TrickClaim(2, 2, 45)
    assert (c.attackers_points, c.level_change, c.next_banker) == (65, (0, 1), 0)
    assert r.played_at is not None and r.played_at.endswith("Z")


def test_jerryyyu_show_is_dated_when_the_seat_first_held_its_cards() -> None:
    """The log does not date a declaration: the first show is dated the deal's count at which its
    seat first held the cards (its seat is dealt deck[seat::4] from seat 0)."""
    r = next(iter(read_file(ENGINES / "jerryyyu" / "SMA1.jsonl.gz", "jerryyyu"))).record
    assert r is not None
    show = r.bids[0]
    held = list(r.deal.cards[show.seat : show.dealt : 4])
    before = list(r.deal.cards[show.seat : show.dealt - 1 : 4])
    assert all(held.count(c) >= show.cards.count(c) for c in show.cards)
    assert not all(before.count(c) >= show.cards.count(c) for c in show.cards)


def test_jerryyyu_failed_throw_keeps_the_attempt_and_claims_what_was_played() -> None:
    """RSK1: `attempted_cards` are the play, the cards the engine played its `forced` claim."""
    forced = [
        p
        for imported in read_file(ENGINES / "jerryyyu" / "RSK1.jsonl.gz", "jerryyyu")
        if imported.record is not None
        for p in imported.record.plays
        if p.forced is not None
    ]
    assert forced
    for p in forced:
        assert len(p.forced or ()) < len(p.cards)
        assert dict(p.extra) == {"_engine_resolution": "failed_throw_forced"}


def test_botzone_match_maps_to_one_hand() -> None:
    (imported,) = read_file(ENGINES / "botzone" / "r1001.json.gz", "botzone")
    r = imported.record
    assert r is not None and not imported.warnings
    assert (r.hand_id, r.match_id, r.hand_no, r.source) == ("r1001", "r1001", 1, "botzone")
    assert r.rules == preset("botzone") and r.levels == (2, 2) and r.deal.first == 0
    # Seat s is dealt allocation[s] in order, the kitty (publiccard) last.
    _, bottom = split_deal(r.deal, r.rules)
    assert format_cards(bottom) == format_cards(
        botzone.card(i, "SHCD") for i in (68, 19, 29, 57, 21, 31, 0, 30)
    )
    assert r.deal.cards[0] == botzone.card(89, "SHCD") and r.deal.cards[1] == botzone.card(
        69, "SHCD"
    )
    # Seat 3 called with one level card after 4 cards were dealt, seat 1 snatched with a pair.
    assert [(b.seat, len(b.cards), b.dealt) for b in r.bids] == [(3, 1, 4), (1, 2, 90)]
    assert r.banker is None  # the shows made the banker (first_round)
    assert r.bury is not None and r.bury.seat == 1 and len(r.bury.cards) == 8
    c = r.claimed
    assert c is not None
    assert (c.trump, c.banker, c.attackers_points, c.level_change) == ("D", 1, 120, (0, 2))
    assert c.tricks[0].leader == 1
    assert dict(r.extra)["_judge"] == "2024"


def test_botzone_failed_throw_claims_the_one_card_the_judge_kept() -> None:
    forced = [
        (path.name, p)
        for path in sorted((ENGINES / "botzone").glob("*.json.gz"))
        for imported in read_file(path, "botzone")
        if imported.record is not None
        for p in imported.record.plays
        if p.forced is not None
    ]
    assert forced
    assert all(len(p.forced or ()) == 1 and len(p.cards) > 1 for _, p in forced)


def test_ejfn_round_maps_to_the_hand() -> None:
    """seed0001 round 1: bot1 declares 2♦ at 53 of 100 dealt, takes the kitty, wins trick 1."""
    first = next(iter(read_file(ENGINES / "ejfn" / "seed0001.log.gz", "ejfn")))
    r = first.record
    assert r is not None
    assert (r.hand_id, r.match_id, r.hand_no) == ("seed1-1", "seed1", 1)
    assert r.players == ("human", "bot1", "bot2", "bot3")
    assert r.rules == preset("ejfn") and r.deal.first == 0
    assert [(b.seat, format_cards(b.cards), b.dealt) for b in r.bids] == [(1, "2D", 53)]
    assert r.banker is None  # round 1: the declarer banks
    assert r.bury is not None and r.bury.seat == 1
    assert format_cards(r.bury.cards) == "5C 6C TC 3H 6H 7H JH 5H"
    _, bottom = split_deal(r.deal, r.rules)
    assert format_cards(bottom) == "KH 3H BJ 5H 5S TC JD 6H"
    c = r.claimed
    assert c is not None
    assert (c.trump, c.banker, c.tricks[0]) == ("D", 1, TrickClaim(1, 1, 10))
    assert (c.attackers_points, c.level_change) == (45, (1, 1))
    assert r.played_at == "2026-11-29T20:08:32.341Z"


def test_ejfn_non_bankers_are_dealt_their_first_hand_in_order() -> None:
    """A seat that is not the banker holds, at its first play, its cards in dealing order."""
    import gzip
    import json

    firsts: dict[tuple[int, str], list[str]] = {}
    with gzip.open(ENGINES / "ejfn" / "seed0002.log.gz", "rt", encoding="utf-8") as fh:
        for text in fh:
            event = json.loads(text)
            data = event["data"]
            if event["event"] == "card_play" and "handBefore" in data:
                firsts.setdefault((data["roundNumber"], data["playerId"]), data["handBefore"])
    checked = 0
    for imported in read_file(ENGINES / "ejfn" / "seed0002.log.gz", "ejfn"):
        r = imported.record
        assert r is not None and r.hand_no is not None and r.bury is not None
        for s, name in enumerate(ejfn.NAMES):
            dealt = r.deal.cards[(s - r.deal.first) % 4 : 100 : 4]
            if s != r.bury.seat:
                assert dealt == tuple(ejfn.card(t) for t in firsts[(r.hand_no, name)])
                checked += 1
    assert checked == 3 * 31


def test_ejfn_banker_is_rebuilt_from_its_hand_the_bottom_and_the_bury() -> None:
    """The banker's hand after the bury is its kept cards in dealing order then the kept bottom;
    its own buried cards go after its kept ones, or first when its show needs them."""
    h = parse_cards
    hand = h("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 3H 4H 5H 6H 7H 8H 9H TH JH QH") + h("3C 4C 5C")
    kitty = h("3C 4C 5C 6C 7C 8C 9C TC")
    buried = h("6C 7C 8C 9C TC 2D 2D 3D")
    order, fits = ejfn._banker_deal(hand, kitty, buried, [])
    assert fits and order == list(hand[:22]) + list(h("2D 2D 3D"))
    # A show of 2♦ 2♦ after the banker's 5th card: the buried pair goes first.
    order, fits = ejfn._banker_deal(hand, kitty, buried, [(5, h("2D 2D"))])
    assert fits and order[:2] == list(h("2D 2D")) and order[2:24] == list(hand[:22])
    with pytest.raises(LogError, match="cannot be rebuilt"):
        ejfn._banker_deal(h("3S") * 25, kitty, buried, [])


def test_a_converted_hand_reads_back_as_the_same_record() -> None:
    from shengji.record import format_hand

    for path, engine in (
        (ENGINES / "jerryyyu" / "RSK1.jsonl.gz", "jerryyyu"),
        (ENGINES / "botzone" / "s6008.json.gz", "botzone"),
        (ENGINES / "ejfn" / "seed0003.log.gz", "ejfn"),
    ):
        for imported in read_file(path, engine):
            assert imported.record is not None
            text = format_hand(imported.record)
            assert parse_hand(text) == imported.record
            assert format_hand(parse_hand(text)) == text


def test_readers_take_plain_lines() -> None:
    """The readers work on lines, not files: a two-event round without its end is abandoned."""
    deck = '["' + '","'.join(["S2"] * 108) + '"]'
    got = list(
        read(
            "jerryyyu",
            _lines(
                '{"e":"round_start","room":"R","round":1,"t":0,"deck":' + deck + ',"banker":null,'
                '"trump_rank":"2","levels":["2","2"],"players":[]}',
            ),
            "stem",
        )
    )
    (imported,) = got
    assert imported.record is not None and imported.record.end == "abandoned"
    assert imported.record.players == ("R seat 0", "R seat 1", "R seat 2", "R seat 3")
