"""Write the golden hands (tests/data/hands/scenarios.jsonl) and their replays
(scenarios.expected.jsonl). Run by hand after a deliberate change: `python tests/make_golden_hands.py`.

Each line carries `_case`, the scenario it shows. Clean scenarios are played by `hh_builder`;
fault scenarios are clean hands mutated until the replay gives exactly the fault wanted (the search
is here, not in the tests: the tests read the fixed lines and check what the replay says of them).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hh_builder import played_hand

from shengji.cards import format_cards, parse_cards
from shengji.record import hand_to_json, parse_hand, split_deal
from shengji.render import replay_json
from shengji.replay import replay_line
from shengji.rules import TWO_DECK
from shengji.trump import parse_trump

OUT = Path(__file__).resolve().parent / "data" / "hands"
Obj = dict[str, Any]


def _obj(case: str, **kw: Any) -> Obj:
    seed = kw.pop("seed", 1)
    obj = hand_to_json(played_hand(seed, hand_id=f"g-{case}", **kw))
    obj["_case"] = case
    return obj


def _line(obj: Obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _codes(obj: Obj) -> list[str]:
    return [f.code for f in replay_line(_line(obj)).findings]


def _first(search: Iterator[Obj], what: str) -> Obj:
    for obj in search:
        return obj
    raise SystemExit(f"no hand found for {what}")


def _seeds(pred: Callable[[Obj], bool], **kw: Any) -> Iterator[Obj]:
    for seed in range(1, 400):
        candidate = hand_to_json(played_hand(seed, **kw))
        if pred(candidate):
            yield candidate


def _replayed(obj: Obj) -> Any:
    return replay_line(_line(obj))


def clean_cases() -> list[Obj]:
    cases: list[Obj] = []
    clean = _obj("clean", seed=1)
    r = _replayed(clean)
    clean["claimed"] = {
        "trump": r.trump,
        "attackers_points": r.attackers_points,
        "bottom_multiplier": r.bottom.multiplier,
        "level_change": {"team": r.level_change.team, "levels": r.level_change.levels},
        "next_banker": r.next_banker,
    }
    cases.append(clean)

    def failed_throw(o: Obj) -> bool:
        return any(t.throw is not None and t.throw.failed for t in _replayed(o).tricks)

    obj = _first(_seeds(failed_throw, throw_rate=0.3), "a failed throw")
    obj["hand_id"], obj["_case"] = "g-failed_throw", "failed_throw"
    cases.append(obj)
    obj = _first(_seeds(failed_throw, throw_rate=0.3, claim_forced=False), "unclaimed")
    obj["hand_id"], obj["_case"] = "g-failed_throw_unclaimed", "failed_throw_unclaimed"
    cases.append(obj)

    def pair_capture(o: Obj) -> bool:
        b = _replayed(o).bottom
        return b is not None and b.captured and b.lead_shape == "pair" and b.multiplier == 4

    obj = _first(_seeds(pair_capture, throw_rate=0.0), "a bottom captured with a pair")
    obj["hand_id"], obj["_case"] = "g-bottom_pair", "bottom_pair"
    cases.append(obj)
    cases.append(_obj("fried", seed=2, fry=True))
    cases.append(_obj("bottom_reveal", seed=3, show=False))
    cases.append(_obj("first_hand", seed=4, first_hand=True))
    cases.append(_obj("two_deck", seed=5, rules=TWO_DECK))
    abandoned = _obj("abandoned", seed=6)
    abandoned["plays"] = abandoned["plays"][:37]
    abandoned["end"] = "abandoned"
    cases.append(abandoned)
    redeal = _obj("redeal", seed=7)
    for key in ("bids", "plays"):
        redeal[key] = []
    del redeal["bury"]
    redeal["banker"] = None
    redeal["end"] = "redeal"
    cases.append(redeal)
    return cases


def _holding_counts(obj: Obj) -> list[list[int]]:
    record = parse_hand(_line(obj))
    dealt, _ = split_deal(record.deal, record.rules)
    return [list(h.counts) for h in dealt]


def _swap_search(base: Obj, target: str, min_size: int = 1) -> Obj:
    """Exchange one card between two plays of one seat until the replay finds exactly `target`."""
    replay = _replayed(base)
    plays = base["plays"]
    for trick in replay.tricks:
        if len(trick.plays[0].cards) < min_size:
            continue
        for rec in trick.plays[1:]:
            i = rec.index
            later = [j for j in range(i + 1, len(plays)) if plays[j]["seat"] == rec.seat]
            for j in later:
                a_cards, b_cards = plays[i]["cards"].split(), plays[j]["cards"].split()
                for ai in range(len(a_cards)):
                    for bi in range(len(b_cards)):
                        if a_cards[ai] == b_cards[bi]:
                            continue
                        obj = json.loads(_line(base))
                        a2, b2 = list(a_cards), list(b_cards)
                        a2[ai], b2[bi] = b_cards[bi], a_cards[ai]
                        obj["plays"][i]["cards"] = " ".join(a2)
                        obj["plays"][j]["cards"] = " ".join(b2)
                        if _codes(obj) == [target]:
                            return obj
    raise SystemExit(f"no swap gives exactly {target}")


def fault_cases() -> list[Obj]:
    for seed in range(11, 60):
        try:
            return _fault_cases(seed)
        except (StopIteration, SystemExit) as e:
            print(f"base seed {seed}: {e!r}", file=sys.stderr)
            continue
    raise SystemExit("no base hand gives every fault")


def _fault_cases(seed: int) -> list[Obj]:
    cases: list[Obj] = []

    def case(name: str, obj: Obj) -> None:
        obj["hand_id"], obj["_case"] = f"g-{name}", name
        cases.append(obj)

    base = _obj("base", seed=seed)
    # Record and deal faults.
    obj = json.loads(_line(base))
    obj["colour"] = "red"
    case("bad_record", obj)
    obj = json.loads(_line(base))
    tokens = obj["deal"]["cards"].split()
    tokens[0] = "BJ" if tokens[0] != "BJ" else "SJ"
    obj["deal"]["cards"] = " ".join(tokens)
    case("deck_mismatch", obj)
    # Shows: on a hand stopped before the bury, so trump changes leave no trail of follow faults.
    early = json.loads(_line(base))
    del early["bury"]
    early["plays"] = []
    early["end"] = "abandoned"
    first = early["bids"][0]
    shower = first["seat"]
    level_face = parse_cards(first["cards"])[0]
    hands = _holding_counts(base)
    obj = json.loads(_line(early))
    obj["bids"].append({"seat": (shower + 1) % 4, "cards": "AS", "dealt": 208})
    case("bad_show", obj)
    obj = json.loads(_line(early))
    # An equal show (the same face, by another seat) is not stronger (R8.2) and leaves trump as is.
    other = next(s for s in range(4) if s != shower and hands[s][level_face] >= 1)
    obj["bids"].append({"seat": other, "cards": format_cards([level_face]), "dealt": 208})
    case("weak_show", obj)
    obj = json.loads(_line(early))
    pair = next(
        face for face in (0, 13, 26, 39, 52, 53) if hands[shower][face] >= 2 and face != level_face
    )
    obj["bids"].append({"seat": shower, "cards": format_cards([pair, pair]), "dealt": 208})
    case("self_overturn", obj)
    obj = json.loads(_line(base))
    obj["bids"][0]["dealt"] = 0
    case("show_not_held", obj)
    reveal = _obj("x", seed=seed + 1, show=False)
    reveal["plays"] = []
    reveal["end"] = "abandoned"
    rhands = _holding_counts(reveal)
    fryer, fry_face = next(
        (s, suit * 13) for s in (1, 2, 3) for suit in range(4) if rhands[s][suit * 13] >= 2
    )
    fry_hand = list(rhands[fryer])
    for c in parse_cards(reveal["bury"]["cards"]):
        fry_hand[c] += 1
    fry_bury = [c for c in range(54) for _ in range(fry_hand[c])][:8]
    reveal["fries"] = [
        {
            "seat": fryer,
            "cards": format_cards([fry_face, fry_face]),
            "bury": format_cards(fry_bury),
        }
    ]
    case("bad_fry", reveal)
    obj = json.loads(_line(base))
    obj["bury"]["seat"] = (obj["banker"] + 1) % 4
    case("bad_bury", obj)
    obj = json.loads(_line(base))
    obj["banker"], obj["bids"] = None, []
    case("no_show", obj)
    obj = json.loads(_line(base))
    obj["bids"], obj["plays"], obj["end"] = [], [], "redeal"
    del obj["bury"]
    case("bad_redeal", obj)
    # Plays.
    obj = json.loads(_line(base))
    obj["plays"][5]["seat"] = (obj["plays"][5]["seat"] + 1) % 4
    case("out_of_turn", obj)
    obj = json.loads(_line(base))
    seat = obj["plays"][9]["seat"]
    never = next(c for c in range(54) if hands[seat][c] == 0)
    cards = obj["plays"][9]["cards"].split()
    cards[0] = format_cards([never])
    obj["plays"][9]["cards"] = " ".join(cards)
    case("not_in_hand", obj)
    obj = json.loads(_line(base))
    later = next(p for p in obj["plays"][14:] if p["seat"] == obj["plays"][13]["seat"])
    obj["plays"][13]["cards"] += " " + later["cards"].split()[0]
    case("wrong_count", obj)
    obj = json.loads(_line(base))
    replay = _replayed(base)
    lead_i = replay.tricks[3].plays[0].index
    leader = obj["plays"][lead_i]["seat"]
    lead_suit = replay.tricks[3].suit
    rec = parse_hand(_line(base))
    ctx = parse_trump(replay.trump, replay.level)
    held_later = [
        c
        for p in rec.plays[lead_i + 1 :]
        if p.seat == leader
        for c in p.cards
        if ctx.eff[c] != lead_suit
    ]
    obj["plays"][lead_i]["cards"] += " " + format_cards(held_later[:1])
    case("mixed_lead", obj)
    case("must_follow_suit", _swap_search(base, "must_follow_suit"))
    case("must_follow_shape", _swap_search(base, "must_follow_shape", min_size=2))
    # Throw claims and splits.
    case("throw_claim_mismatch", next(clean_throws()))
    obj = json.loads(_line(base))
    multi = next(t for t in replay.tricks if len(t.plays[0].cards) >= 2)
    lead_play = obj["plays"][multi.plays[0].index]
    lead_play["split"] = [lead_play["cards"].split()[0]]
    case("bad_split", obj)
    # The end of the hand.
    obj = json.loads(_line(base))
    obj["plays"] = obj["plays"][:-4]
    case("incomplete_hand", obj)
    obj = json.loads(_line(base))
    obj["claimed"] = {"trump": replay.trump, "attackers_points": replay.attackers_points + 5}
    case("claim_mismatch", obj)
    return cases


def clean_throws() -> Iterator[Obj]:
    """Hands whose failed throw of singles gets a claim naming another single of it; the leader's
    later play of that card gets the truly forced card instead, so the holdings still add up."""
    for seed in range(20, 400):
        base = hand_to_json(played_hand(seed, throw_rate=0.4))
        replay = _replayed(base)
        rec = parse_hand(_line(base))
        for trick in replay.tricks:
            throw = trick.throw
            if throw is None or not throw.failed or throw.forced is None:
                continue
            if len(throw.forced) != 1:
                continue
            i = trick.plays[0].index
            leader = rec.plays[i].seat
            forced = throw.forced[0]
            for card in set(throw.attempted) - {forced}:
                j = next(
                    (
                        j
                        for j in range(i + 1, len(rec.plays))
                        if rec.plays[j].seat == leader and card in rec.plays[j].cards
                    ),
                    None,
                )
                if j is None:
                    continue
                obj = json.loads(_line(base))
                obj["plays"][i]["forced"] = format_cards([card])
                later = list(rec.plays[j].cards)
                later[later.index(card)] = forced
                obj["plays"][j]["cards"] = format_cards(later)
                if _codes(obj) == ["throw_claim_mismatch"]:
                    yield obj


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    cases = clean_cases() + fault_cases()
    lines = [_line(obj) for obj in cases]
    bad_json = _line(cases[0])[:300]  # a line cut short
    lines.append(bad_json)
    (OUT / "scenarios.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = []
    for number, text in enumerate(lines, start=1):
        replay = replay_line(text, line=number)
        expected.append(_line(replay_json(replay)))
    (OUT / "scenarios.expected.jsonl").write_text("\n".join(expected) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} hands to {OUT}")


if __name__ == "__main__":
    main()
