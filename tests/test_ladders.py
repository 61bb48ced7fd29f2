"""R5.3 follow ladders: the derivation reproduces every row of LADDERS.md, and its invariants."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from shengji import ladder
from shengji.ladder import (
    ONE_AT_A_TIME,
    LeadShape,
    blocks,
    canonical,
    derived_first_rung,
    format_ladder,
    format_rung,
    ladder_of_shape,
    lead_rung,
    one_at_a_time_rungs,
    parse_rung,
    partitions,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "ladders.md"

# The table of LADDERS.md (part of rule R5.3), row by row, verbatim.
LADDERS_MD: dict[str, tuple[LeadShape, str]] = {
    "pair": (((2, 1),), "2 → 1+1"),
    "triple": (((3, 1),), "3 → 2+1 → 1+1+1"),
    "quad": (((4, 1),), "4 → 3+1 → <2-2> → 2+2 → 2+1+1 → 1+1+1+1"),
    "<2-2>": (((2, 2),), "<2-2> → 2+2 → 2+1+1 → 1+1+1+1"),
    "<2-2-2>": (
        ((2, 3),),
        "<2-2-2> → <2-2>+2 → 2+2+2 → <2-2>+1+1 → 2+2+1+1 → 2+1+1+1+1 → 1×6",
    ),
    "<3-3>": (
        ((3, 2),),
        "<3-3> → 3+3 → <3-2>+1 → <2-3>+1 → 3+2+1 → 3+1+1+1 → <2-2-2> → <2-2>+2 → 2+2+2 → "
        "<2-2>+1+1 → 2+2+1+1 → 2+1+1+1+1 → 1×6",
    ),
    "<4-4>": (
        ((4, 2),),
        "<4-4> → 4+4 → <4-3>+1 → <3-4>+1 → 4+3+1 → <4-2-2> → <2-4-2> → <2-2-4> → <4-2>+2 → "
        "<2-4>+2 → 4+<2-2> → 4+2+2 → <4-2>+1+1 → <2-4>+1+1 → 4+2+1+1 → 4+1+1+1+1 → <3-3-2> → "
        "<3-2-3> → <2-3-3> → <3-3>+2 → <3-2>+3 → 3+<2-3> → 3+3+2 → <3-3>+1+1 → 3+3+1+1 → "
        "<3-2-2>+1 → <2-3-2>+1 → <2-2-3>+1 → <3-2>+2+1 → <2-3>+2+1 → 3+<2-2>+1 → 3+2+2+1 → "
        "<3-2>+1+1+1 → <2-3>+1+1+1 → 3+2+1+1+1 → 3+1×5 → <2-2-2-2> → <2-2-2>+2 → "
        "<2-2>+<2-2> → <2-2>+2+2 → 2+2+2+2 → <2-2-2>+1+1 → <2-2>+2+1+1 → 2+2+2+1+1 → "
        "<2-2>+1×4 → 2+2+1×4 → 2+1×6 → 1×8",
    ),
    "throw 1 + <2-2>": (((1, 1), (2, 2)), "1+<2-2> → 2+2+1 → 2+1+1+1 → 1×5"),
}


@pytest.mark.parametrize("row", list(LADDERS_MD))
def test_r5_3_derivation_reproduces_ladders_md_row(row: str) -> None:
    shape, expected = LADDERS_MD[row]
    assert format_ladder(ladder_of_shape(shape)) == expected


def test_r5_3_seed_002_orders_hold_as_subsequences() -> None:
    """Seed 002's coarse orders (四条→三条→连拖→对子→散牌 …) are subsequences of the ladders."""
    quad = [format_rung(r) for r in ladder_of_shape(((4, 1),))]
    assert [quad.index(s) for s in ("4", "3+1", "<2-2>", "2+2", "1+1+1+1")] == sorted(
        quad.index(s) for s in ("4", "3+1", "<2-2>", "2+2", "1+1+1+1")
    )
    three_three = [format_rung(r) for r in ladder_of_shape(((3, 2),))]
    picks = ["<3-3>", "3+3", "<2-2-2>", "<2-2>+2", "2+2+2", "1×6"]
    assert [three_three.index(s) for s in picks] == sorted(three_three.index(s) for s in picks)


def test_r5_3_partitions_run_in_reverse_lexicographic_order() -> None:
    assert list(partitions(4, 4)) == [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)]
    assert list(partitions(5, 2)) == [(2, 2, 1), (2, 1, 1, 1), (1, 1, 1, 1, 1)]


@pytest.mark.parametrize(
    ("text", "rung"),
    [
        ("<3-2>+1", ((3, 2), (1,))),
        ("4+<2-2>", ((4,), (2, 2))),
        ("1×6", ((1,),) * 6),
        ("2+2+1×4", ((2,), (2,)) + ((1,),) * 4),
        ("4+1+1+1+1", ((4,),) + ((1,),) * 4),
        ("1+<2-2>", ((1,), (2, 2))),
    ],
)
def test_r5_3_rung_spelling_round_trips(text: str, rung: tuple[tuple[int, ...], ...]) -> None:
    assert format_rung(rung) == text
    assert parse_rung(text) == rung


def _shapes(max_cards: int, max_parts: int) -> list[LeadShape]:
    comps = [(1, 1)] + [(w, n) for w in (2, 3, 4) for n in (1, 2, 3)]
    out = []
    for k in range(1, max_parts + 1):
        for combo in itertools.combinations_with_replacement(comps, k):
            if sum(w * n for w, n in combo) <= max_cards:
                out.append(tuple(sorted(combo)))
    return out


def test_r5_3_first_admissible_rung_is_the_lead_itself_for_every_shape() -> None:
    """The packing filter never lets a rung stricter than the lead come before it (R5.3), over
    every lead of up to four components and 16 cards."""
    shapes = _shapes(16, 4)
    assert len(shapes) > 300
    for shape in shapes:
        assert derived_first_rung(shape) == canonical(lead_rung(shape)), shape


@pytest.mark.parametrize("shape", _shapes(9, 3))
def test_r5_3_ladder_invariants(shape: LeadShape) -> None:
    """Every rung uses exactly the lead's card count in units no wider than the lead's widest;
    no rung repeats; the ladder ends with all singles."""
    rungs = ladder_of_shape(shape)
    n = sum(w * k for w, k in shape)
    widest = max(w for w, _ in shape)
    assert rungs[0] == lead_rung(shape)
    assert rungs[-1] == ((1,),) * n
    assert len({canonical(r) for r in rungs}) == len(rungs)
    for rung in rungs:
        assert sum(sum(req) for req in rung) == n
        assert max(max(req) for req in rung) <= widest
        assert all(len(req) == 1 or min(req) >= 2 for req in rung), "singles never chain"


@pytest.mark.parametrize(
    ("shape", "absent", "present"),
    [
        # A throw of two separate pairs never demands a tractor …
        (((2, 1), (2, 1)), "<2-2>", "2+2"),
        # … nor a throw of 3 + <2-2> two triples, while a quad lead keeps <2-2> …
        (((2, 2), (3, 1)), "3+3+1", "3+<2-2>"),
        (((4, 1),), None, "<2-2>"),
        # … and a <3-3> lead keeps <2-2-2> (seed 002: 三条两连拖 → … → 三连拖).
        (((3, 2),), None, "<2-2-2>"),
    ],
)
def test_r5_3_no_rung_is_stricter_than_the_lead(
    shape: LeadShape, absent: str | None, present: str
) -> None:
    spelled = [format_rung(r) for r in ladder_of_shape(shape)]
    assert present in spelled
    if absent is not None:
        assert absent not in spelled


def test_r5_3_two_deck_leads_only_meet_pairs_and_singles() -> None:
    """R9 two-deck: units are at most pairs, so the ladders never ask for triples."""
    for shape in (((2, 1),), ((2, 2),), ((2, 3),), ((1, 1), (2, 2))):
        assert all(max(max(r) for r in rung) <= 2 for rung in ladder_of_shape(shape))


def test_r5_3_docs_ladders_md_lists_what_the_derivation_gives() -> None:
    """docs/ladders.md's derived rows (`| shape | n | ladder |`) match the code."""
    rows = re.findall(r"^\| `([^`]+)` \| (\d+) \| (.+?) \|$", DOCS.read_text(), re.MULTILINE)
    assert len(rows) >= 15
    for spelled_shape, count, text in rows:
        shape = tuple(
            sorted(
                (max(req), len(req)) if len(req) > 1 else (req[0], 1)
                for req in parse_rung(spelled_shape)
            )
        )
        rungs = ladder_of_shape(shape)
        assert int(count) == len(rungs), spelled_shape
        if "…" not in text:
            assert text == format_ladder(rungs), spelled_shape
        else:
            head, tail = text.split(" → … → ")
            assert format_ladder(rungs).startswith(head + " → "), spelled_shape
            assert format_ladder(rungs).endswith(" → " + tail), spelled_shape


# --- throw_ladder = one_at_a_time (R5.3, rbtying/shengji) ----------------------------------------


def _one(order: LeadShape) -> tuple:
    return tuple(one_at_a_time_rungs(order))


@pytest.mark.parametrize("row", list(LADDERS_MD))
def test_r5_3_one_at_a_time_gives_every_ladders_md_row(row: str) -> None:
    """LADDERS.md's leads under `one_at_a_time`: a lead of one component keeps its row, and the
    throw `1+<2-2>` (component order: the single first) gives the row as well."""
    shape, expected = LADDERS_MD[row]
    assert format_ladder(_one(shape)) == expected
    assert format_ladder(ladder_of_shape((ONE_AT_A_TIME, *shape))) == expected


def test_r5_3_one_at_a_time_rules_example() -> None:
    """R5.3's example: lead ⟨JJ-QQ⟩ + AAAA (the tractor first: equal card counts, lower first
    card); 3+2+2+1 is never a rung."""
    rungs = _one(((2, 2), (4, 1)))
    text = "<2-2>+4 → <2-2>+3+1 → <2-2>+<2-2> → <2-2>+2+2 → 2×4 → 2+2+2+1+1 → 2+2+1×4 → 2+1×6 → 1×8"
    assert [sorted(r) for r in rungs] == [sorted(parse_rung(t)) for t in text.split(" → ")]
    assert format_rung(rungs[0]) == "<2-2>+4" and format_rung(rungs[1]) == "<2-2>+3+1"
    assert parse_rung("3+2+2+1") not in [tuple(sorted(r, reverse=True)) for r in rungs]


def test_r5_3_one_at_a_time_tie_goes_to_the_component_moved_last() -> None:
    """3+4: after 3+2+2 both have two rungs left; the quad moved last and moves again."""
    rungs = [format_rung(r) for r in _one(((3, 1), (4, 1)))]
    assert rungs[3:6] == ["3+2+2", "3+2+1+1", "2+2+1+1+1"]
    assert "2+2+2+1" not in rungs
    # Never moved, a tie goes to the first in component order: of two triples, the lower.
    assert [format_rung(r) for r in _one(((3, 1), (3, 1)))][1] == "2+3+1"


def test_r5_3_one_at_a_time_has_one_rung_per_move() -> None:
    """Each rung moves one component one rung: 1 + Σ(own rungs − 1) rungs, ending at 1×N."""
    for order in (((1, 1), (4, 1)), ((2, 1), (2, 2)), ((3, 1), (4, 1)), ((1, 1), (1, 1), (3, 2))):
        rungs = _one(order)
        own = [len(ladder_of_shape((s,))) for s in order]
        assert len(rungs) == 1 + sum(n - 1 for n in own)
        size = sum(w * n for w, n in order)
        assert rungs[-1] == ((1,),) * size
        assert all(sum(map(sum, r)) == size for r in rungs)


def test_r5_3_docs_ladders_md_lists_what_one_at_a_time_gives() -> None:
    """docs/ladders.md's `one_at_a_time` rows (`| throw | n | ladder | yes/no |`) match the code."""
    rows = re.findall(
        r"^\| ([^`|]+?) \| (\d+) \| (.+?) \| (yes|no) \|$", DOCS.read_text(), re.MULTILINE
    )
    assert len(rows) >= 12
    for spelled, count, text, same in rows:
        first = parse_rung(spelled)
        order = tuple((max(r), len(r)) if len(r) > 1 else (r[0], 1) for r in first)
        rungs = _one(order)
        assert (len(rungs), format_ladder(rungs)) == (int(count), text), spelled
        widest = ladder_of_shape(tuple(sorted(order)))
        assert ([sorted(r) for r in rungs] == [sorted(r) for r in widest]) == (same == "yes")


def test_r5_3_one_at_a_time_reads_a_huge_component_only_as_far_as_needed() -> None:
    """A throw of ⟨4-4-4-4-4⟩ (19 492 rungs of its own) and a pair: the quad tractor moves first
    for as long as it has more rungs left than the pair, so its first rungs come without reading
    its whole own ladder; they are its own rungs, the pair kept whole."""
    key = (ONE_AT_A_TIME, (2, 1), (4, 5))
    first = []
    for block in blocks(key):
        first.extend(block.rungs)
        if len(first) >= 30:
            break
    own = []
    for block in blocks(((4, 5),)):
        own.extend(block.rungs)
        if len(own) >= 30:
            break
    assert [sorted(r) for r in first[:30]] == [sorted(((2,), *r)) for r in own[:30]]
    assert ladder._LADDERS[((4, 5),)]._done and len(ladder._LADDERS[((4, 5),)]._done) < 40
