"""FORMAT.md: parsing, checking and canonically writing one `tractor-hh/1` hand; the file edge."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.cards import Hand, format_cards, full_deck, parse_cards
from shengji.hhfile import iter_lines, write_lines
from shengji.record import (
    Bury,
    Claimed,
    Deal,
    Fry,
    HandRecord,
    Play,
    RecordError,
    Show,
    format_hand,
    hand_to_json,
    parse_hand,
    shuffled_shoe,
    split_deal,
)
from shengji.rules import RBTYING, TWO_DECK, RuleSet, rules_from_spec


def _base(**over: Any) -> dict[str, Any]:
    shoe = shuffled_shoe(random.Random(7))
    obj: dict[str, Any] = {
        "format": "tractor-hh/1",
        "hand_id": "t7-0042",
        "source": "club-server",
        "match_id": "t7",
        "hand_no": 42,
        "played_at": "2026-11-28T20:15:03Z",
        "rules": "four-deck",
        "players": ["lin", "mei", "jun", "hao"],
        "levels": ["5", "3"],
        "banker": 2,
        "deal": {"first": 2, "cards": format_cards(shoe)},
        "bids": [{"seat": 3, "cards": "5S", "dealt": 61}],
        "bury": {"seat": 2, "cards": format_cards(shoe[-8:])},
        "plays": [{"seat": 2, "cards": "AC AC KC"}, {"seat": 3, "cards": "2C 3C 9C"}],
        "claimed": {
            "trump": "H",
            "attackers_points": 145,
            "level_change": {"team": 0, "levels": 1},
        },
    }
    obj.update(over)
    return obj


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj)


def test_format_md_example_parses_with_every_field() -> None:
    record = parse_hand(_line(_base()))
    assert record.hand_id == "t7-0042" and record.source == "club-server"
    assert record.match_id == "t7" and record.hand_no == 42
    assert record.played_at == "2026-11-28T20:15:03Z"
    assert record.levels == (5, 3) and record.banker == 2
    assert record.players == ("lin", "mei", "jun", "hao")
    assert len(record.deal.cards) == 216 and record.deal.first == 2
    assert record.bids == (Show(3, parse_cards("5S"), 61),)
    assert record.plays[0] == Play(2, parse_cards("AC AC KC"))
    assert record.claimed == Claimed(trump="H", attackers_points=145, level_change=(0, 1))
    assert record.end == "complete" and record.fries == ()


def test_lenient_where_the_format_allows() -> None:
    obj = _base(
        plays=[{"seat": 2, "cards": "  10h   AS\tsj "}],
        played_at="2026-11-28t20:15:03.250+00:00",
        levels=["10", "j"],
        claimed={"trump": "nt"},
    )
    record = parse_hand(_line(obj))
    assert format_cards(record.plays[0].cards) == "TH AS SJ"
    assert record.played_at == "2026-11-28T20:15:03.250Z"
    assert record.levels == (10, 11)
    assert record.claimed is not None and record.claimed.trump == "NT"
    canonical = json.loads(format_hand(record))
    assert canonical["levels"] == ["T", "J"]
    assert canonical["plays"] == [{"seat": 2, "cards": "TH AS SJ"}]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"colour": "red"}, None),
        ({"deal": {"first": 2, "cards": "AS", "shuffle": 1}}, "deal"),
        ({"format": "tractor-hh/2"}, "format"),
        ({"hand_id": 42}, "hand_id"),
        ({"hand_id": ""}, "hand_id"),
        ({"hand_no": 0}, "hand_no"),
        ({"hand_no": True}, "hand_no"),
        ({"banker": 4}, "banker"),
        ({"banker": "2"}, "banker"),
        ({"players": ["a", "b", "c"]}, "players"),
        ({"players": ["a", "b", "c", 4]}, "players[3]"),
        ({"levels": ["5", "1"]}, "levels[1]"),
        ({"levels": [5, 3]}, "levels[0]"),
        ({"played_at": "2026-13-28T20:15:03Z"}, "played_at"),
        ({"played_at": "2026-11-28T20:15:03+08:00"}, "played_at"),
        ({"played_at": "yesterday"}, "played_at"),
        ({"rules": "three-deck"}, "rules"),
        ({"rules": {"preset": "four-deck", "decks": 3}}, "rules"),
        ({"rules": {"preset": "rbtying", "throw_split": "widest_first"}}, "rules"),
        ({"rules": {"throw_ladder": "lowest_first"}}, "rules"),
        ({"rules": 4}, "rules"),
        ({"bids": [{"seat": 3, "cards": "5S"}]}, "bids[0].dealt"),
        ({"bids": [{"seat": 3, "cards": "5S", "dealt": 300}]}, "bids[0].dealt"),
        ({"bids": [{"seat": 3, "cards": "5S", "dealt": 3, "trump": "X"}]}, "bids[0].trump"),
        ({"bids": {"seat": 3}}, "bids"),
        ({"plays": [{"seat": 2, "cards": "AC 1C"}]}, "plays[0].cards"),
        ({"plays": [{"seat": 2, "cards": ["AC"]}]}, "plays[0].cards"),
        ({"plays": [{"seat": -1, "cards": "AC"}]}, "plays[0].seat"),
        ({"plays": [{"seat": 2, "cards": "AC", "forced": 1}]}, "plays[0].forced"),
        ({"plays": [{"seat": 2, "cards": "AC", "split": "AC"}]}, "plays[0].split"),
        ({"plays": [{"seat": 2, "cards": "AC", "why": "x"}]}, "plays[0]"),
        ({"claimed": {"level_change": {"team": 2, "levels": 1}}}, "claimed.level_change.team"),
        ({"claimed": {"score": 5}}, "claimed"),
        ({"end": "finished"}, "end"),
        ({"fries": [{"seat": 1, "cards": "BJ BJ BJ BJ"}]}, "fries[0].bury"),
    ],
)
def test_strict_elsewhere_naming_the_field(change: dict[str, Any], field: str | None) -> None:
    with pytest.raises(RecordError) as info:
        parse_hand(_line(_base(**change)))
    assert info.value.field == field


@pytest.mark.parametrize("key", ["format", "hand_id", "source", "players", "levels", "deal"])
def test_a_missing_required_field_is_named(key: str) -> None:
    obj = _base()
    del obj[key]
    with pytest.raises(RecordError, match="missing required field") as info:
        parse_hand(_line(obj))
    assert info.value.field == key


def test_a_deck_of_the_wrong_size_is_refused() -> None:
    obj = _base()
    obj["deal"]["cards"] += " AS"
    with pytest.raises(RecordError, match="217 cards") as info:
        parse_hand(_line(obj))
    assert info.value.field == "deal.cards"


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", '"hand"', '{"a": 1,}', "\udcff{}"])
def test_lines_that_are_not_a_json_object(text: str) -> None:
    with pytest.raises(RecordError):
        parse_hand(text)


def test_source_fields_are_kept_and_written_last() -> None:
    obj = _base(_table={"id": 9}, _seen=True)
    obj["plays"][0]["_ms"] = 1200
    record = parse_hand(_line(obj))
    assert record.extra == (("_seen", True), ("_table", {"id": 9}))
    assert record.plays[0].extra == (("_ms", 1200),)
    out = json.loads(format_hand(record))
    assert list(out)[-2:] == ["_seen", "_table"]
    assert out["plays"][0] == {"seat": 2, "cards": "AC AC KC", "_ms": 1200}


def test_canonical_line_is_compact_and_in_format_order() -> None:
    line = format_hand(parse_hand(_line(_base())))
    assert line.startswith('{"format":"tractor-hh/1","hand_id":"t7-0042","source":"club-server"')
    assert ", " not in line and ": " not in line
    keys = list(json.loads(line))
    assert keys == [
        "format", "hand_id", "source", "match_id", "hand_no", "played_at", "rules", "players",
        "levels", "banker", "deal", "bids", "bury", "plays", "claimed",
    ]  # fmt: skip
    assert parse_hand(line) == parse_hand(_line(_base()))


def test_rules_objects_round_trip_through_their_spec() -> None:
    spec = {"preset": "four-deck", "throw_compare": "highest", "level_step": 80}
    record = parse_hand(_line(_base(rules=spec)))
    assert record.rules == rules_from_spec({"throw_compare": "highest"})
    assert json.loads(format_hand(record))["rules"] == {
        "preset": "four-deck",
        "throw_compare": "highest",
    }


def test_r9_rbtying_preset_and_throw_options_in_a_hand_history() -> None:
    """R9: `"rules": "rbtying"` and the R4.2/R5.3 options `throw_split`, `throw_ladder` are read
    from a hand history and written back as given."""
    record = parse_hand(_line(_base(rules="rbtying")))
    assert record.rules == RBTYING and json.loads(format_hand(record))["rules"] == "rbtying"
    spec = {"preset": "four-deck", "throw_ladder": "one_at_a_time", "throw_split": "lowest_first"}
    record = parse_hand(_line(_base(rules=spec)))
    assert (record.rules.throw_split, record.rules.throw_ladder) == (
        "lowest_first",
        "one_at_a_time",
    )
    assert json.loads(format_hand(record))["rules"] == spec
    record = parse_hand(_line(_base(rules={"preset": "rbtying", "throw_ladder": "widest_first"})))
    assert (
        record.rules.throw_ladder == "widest_first" and record.rules.throw_split == "lowest_first"
    )


def test_split_deal_gives_each_seat_its_cards_and_the_bottom() -> None:
    shoe = shuffled_shoe(random.Random(3))
    hands, bottom = split_deal(Deal(1, shoe))
    assert [len(h) for h in hands] == [52] * 4
    assert bottom == shoe[-8:]
    assert hands[1].count(shoe[0]) >= 1 and hands[2].count(shoe[1]) >= 1
    assert Hand.of([c for h in hands for c in h] + list(bottom)) == Hand.of(full_deck(4))


# --- round trip ----------------------------------------------------------------------------------

_seats = st.integers(0, 3)
_cards = st.lists(st.integers(0, 53), max_size=10).map(tuple)
_trumps = st.sampled_from(["S", "H", "C", "D", "NT"])
_text = st.text(max_size=8)
_extra = st.lists(
    st.tuples(st.text(max_size=5).map(lambda s: "_" + s), st.integers() | st.text(max_size=4)),
    max_size=2,
    unique_by=lambda kv: kv[0],
).map(lambda kvs: tuple(sorted(kvs)))


@st.composite
def _records(draw: st.DrawFn) -> HandRecord:
    rules = draw(
        st.sampled_from(
            [
                RuleSet(),
                TWO_DECK,
                rules_from_spec({"preset": "four-deck", "bottom_multiplier": "times"}),
                RBTYING,
            ]
        )
    )
    shoe = tuple(draw(st.permutations(full_deck(rules.decks))))
    opt = st.none()
    return HandRecord(
        hand_id=draw(_text.filter(bool)),
        source=draw(_text.filter(bool)),
        players=(draw(_text), draw(_text), draw(_text), draw(_text)),
        levels=(draw(st.integers(2, 14)), draw(st.integers(2, 14))),
        deal=Deal(draw(_seats), shoe, draw(_extra)),
        rules=rules,
        banker=draw(opt | _seats),
        match_id=draw(opt | _text),
        hand_no=draw(opt | st.integers(1, 10**6)),
        played_at=draw(opt | st.just("2026-01-02T03:04:05Z") | st.just("2026-01-02T03:04:05.5Z")),
        bids=tuple(
            draw(
                st.lists(
                    st.builds(Show, _seats, _cards, st.integers(0, rules.deck_size), opt | _trumps),
                    max_size=3,
                )
            )
        ),
        bury=draw(opt | st.builds(Bury, _seats, _cards, _extra)),
        fries=tuple(
            draw(st.lists(st.builds(Fry, _seats, _cards, _cards, opt | _trumps), max_size=2))
        ),
        plays=tuple(
            draw(
                st.lists(
                    st.builds(
                        Play,
                        _seats,
                        _cards,
                        opt | _cards,
                        opt | st.lists(_cards, max_size=3).map(tuple),
                        _extra,
                    ),
                    max_size=12,
                )
            )
        ),
        claimed=draw(
            opt
            | st.builds(
                Claimed,
                opt | _trumps,
                opt | st.integers(-100, 900),
                opt | st.integers(0, 64),
                opt | st.tuples(st.integers(0, 1), st.integers(0, 5)),
                opt | _seats,
            )
        ),
        end=draw(st.sampled_from(["complete", "abandoned", "redeal"])),
        extra=draw(_extra),
    )


@settings(max_examples=60, deadline=None)
@given(_records())
def test_format_then_parse_is_the_identity_and_canonical_lines_are_fixed_points(
    record: HandRecord,
) -> None:
    line = format_hand(record)
    assert line == json.dumps(hand_to_json(record), ensure_ascii=False, separators=(",", ":"))
    again = parse_hand(line)
    assert again == record
    assert format_hand(again) == line


# --- the file edge -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["hands.jsonl", "hands.jsonl.gz"])
def test_write_then_iter_lines_numbers_lines_from_one_and_skips_blanks(
    tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    assert write_lines(path, ["{}", "", "  ", "[1]"]) == 4
    assert list(iter_lines(path)) == [(1, "{}"), (4, "[1]")]


def test_gzip_output_is_reproducible(tmp_path: Path) -> None:
    write_lines(tmp_path / "a.jsonl.gz", ["x"])
    write_lines(tmp_path / "b.jsonl.gz", ["x"])
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    assert gzip.decompress((tmp_path / "a.jsonl.gz").read_bytes()) == b"x\n"


def test_a_line_that_is_not_utf8_is_read_and_then_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = _line(_base())
    path.write_bytes(good.encode() + b"\n" + b'{"hand_id": "\xff"}\r\n')
    (n1, l1), (n2, l2) = iter_lines(path)
    assert (n1, n2) == (1, 2)
    assert parse_hand(l1).hand_id == "t7-0042"
    with pytest.raises(RecordError, match="not valid UTF-8"):
        parse_hand(l2)
