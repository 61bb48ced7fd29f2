"""Replay equivalence: a fixed generated corpus of hands, clean and faulty, and digests of what the
rules core says about it — every verdict, every reason, byte for byte.

Two dumps are made of each line:

- `replay`: `render.replay_json` of `replay_line` (the audit's batch mode), plus the few fields of
  a `HandReplay` the JSON leaves out (each trick's lead components, the blocking component, the
  holdings at the start of play);
- `api`: the public rule functions called directly on every trick of the replay — `read_lead` of
  the lead as attempted, `check_throw` of a throw, `check_follow` of every follow and of one other
  play drawn from the holding (mostly illegal ones, so their reasons are compared too), `demand`,
  and `resolve_trick` — with every field of their verdicts.

The corpus mixes hands played at random by `hh_builder.played_hand` under several rule options with
deterministic corruptions (cards swapped between one seat's plays, foreign cards, wrong seats and
counts, throw claims, stated splits, cut plays, claims, broken JSON) and the golden hands of
`tests/data/hands/scenarios.jsonl`. tests/test_replay_equivalence.py checks the digests of a small
corpus against tests/data/replay_equivalence.json; after a deliberate change of what the replay
says, regenerate that file with `python tests/replay_equivalence.py write`.

The bots and the table loop (the simulator, and the analysis's rollouts) are compared too: `play`
digests the lines of simulated matches (every style, both presets) and the JSON of one simulated
hand analysed at small settings (`PLAY_SETTINGS`), against tests/data/play_equivalence.json
(`write` regenerates it with the replay digests).

`python tests/replay_equivalence.py save DIR --count N` writes a larger corpus and its dumps to
DIR; `python tests/replay_equivalence.py check DIR` replays DIR's corpus again and compares both
dumps line by line (the first difference is printed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hh_builder import played_hand

from shengji.cards import Card, Hand, format_cards, parse_cards
from shengji.combos import PlayError, read_lead
from shengji.follow import FollowVerdict, check_follow, demand
from shengji.record import HandRecord, Play, format_hand
from shengji.render import replay_json
from shengji.replay import replay_line, replay_record
from shengji.results import HandReplay
from shengji.rules import FOUR_DECK, TWO_DECK, RuleSet
from shengji.shape import Component, Reading
from shengji.throws import check_throw
from shengji.trick import resolve_trick
from shengji.trump import TrumpContext, parse_trump

HERE = Path(__file__).resolve().parent
DIGEST = HERE / "data" / "replay_equivalence.json"
GOLDEN = HERE / "data" / "hands" / "scenarios.jsonl"
PLAY_DIGEST = HERE / "data" / "play_equivalence.json"
COUNT = 260
"""Generated hands in the committed corpus (the golden hands come on top)."""
SEED = 20260

VARIANTS: tuple[RuleSet, ...] = (
    FOUR_DECK,
    FOUR_DECK,
    FOUR_DECK,
    TWO_DECK,
    replace(FOUR_DECK, failed_throw_forced="first_blocker"),
    replace(FOUR_DECK, protect_longer_units=True),
    replace(FOUR_DECK, throw_compare="highest"),
    replace(FOUR_DECK, throw_compare="longest_unit"),
    replace(FOUR_DECK, stronger_shapes_win=False),
    replace(FOUR_DECK, ace_low_tractor=False, throw_penalty_points=10),
    replace(FOUR_DECK, bottom_multiplier="times", side_suit_capture_doubles=True),
    replace(TWO_DECK, ace_low_tractor=True, throw_compare="longest_unit"),
)


# --- the corpus --------------------------------------------------------------------------------


def _play_hand(rng: random.Random, index: int) -> HandRecord:
    rules = rng.choice(VARIANTS)
    kw: dict[str, Any] = {
        "rules": rules,
        "banker": rng.randrange(4),
        "levels": (rng.randint(2, 14), rng.randint(2, 14)),
        "show": rng.random() < 0.8,
        "throw_rate": rng.choice((0.15, 0.4, 0.8)),
        "claim_forced": rng.random() < 0.7,
        "hand_id": f"eq-{index}",
    }
    wish = rng.random()
    for attempt in range(4):
        seed = rng.randrange(1 << 30)
        try:
            if wish < 0.08 and attempt < 3:
                return played_hand(seed, first_hand=True, **kw)
            if wish < 0.16 and attempt < 3:
                return played_hand(seed, fry=True, **kw)
            return played_hand(seed, **kw)
        except AssertionError:
            continue  # no show or no fry possible with this shoe: draw another
    raise AssertionError("no hand could be played")


def _seat_plays(plays: Sequence[Play], seat: int, follows_only: bool) -> list[int]:
    return [
        i
        for i, p in enumerate(plays)
        if p.seat == seat and (not follows_only or i % 4 != 0) and p.forced is None
    ]


def _swap(
    rec: HandRecord, rng: random.Random, follows_only: bool, same_suit: bool = False
) -> HandRecord:
    """Swap one card between two plays of one seat: both stay in hand, a follow may turn
    illegal, a winner may change (and later plays come out of turn). `same_suit`: swap cards of
    one effective suit only, so that a follow keeps its suit and may lose its shape."""
    plays = list(rec.plays)
    eff: tuple[int, ...] | None = None
    if same_suit:
        r = replay_record(rec, strict=False)
        if r.trump is None or r.level is None:
            return rec
        eff = parse_trump(r.trump, r.level).eff
    for _ in range(40):
        seat = rng.randrange(4)
        idx = _seat_plays(plays, seat, follows_only)
        if len(idx) < 2:
            continue
        if eff is None:
            a, b = sorted(rng.sample(idx, 2))
        else:
            wide = [k for k in idx[:-1] if len(plays[k].cards) >= 2]
            if not wide:
                continue
            a = rng.choice(wide)
            b = rng.choice([k for k in idx if k > a])
        x = rng.randrange(len(plays[a].cards))
        y = rng.randrange(len(plays[b].cards))
        ca, cb = list(plays[a].cards), list(plays[b].cards)
        if ca[x] == cb[y] or (eff is not None and eff[ca[x]] != eff[cb[y]]):
            continue
        ca[x], cb[y] = cb[y], ca[x]
        plays[a] = replace(plays[a], cards=tuple(ca))
        plays[b] = replace(plays[b], cards=tuple(cb))
        return replace(rec, plays=tuple(plays))
    return rec


def _mutate(rec: HandRecord, rng: random.Random) -> HandRecord | str:
    plays = list(rec.plays)
    if not plays:
        return rec
    kind = rng.choice(
        (
            "swap",
            "swap",
            "swaps",
            "shape",
            "shape",
            "shape",
            "swap_lead",
            "foreign",
            "seat",
            "count",
            "forced",
            "forced",
            "unforce",
            "split",
            "split",
            "shuffle",
            "cut",
            "abandon",
            "claimed",
            "json",
            "field",
            "mixed",
        )
    )
    i = rng.randrange(len(plays))
    p = plays[i]
    if kind == "swap":
        return _swap(rec, rng, True)
    if kind == "shape":
        for _ in range(rng.randint(1, 3)):
            rec = _swap(rec, rng, True, same_suit=True)
        return rec
    if kind == "swaps":
        for _ in range(rng.randint(2, 6)):
            rec = _swap(rec, rng, True)
        return rec
    if kind == "swap_lead":
        return _swap(rec, rng, False)
    if kind == "foreign":
        cards = list(p.cards)
        cards[rng.randrange(len(cards))] = rng.randrange(54)
        plays[i] = replace(p, cards=tuple(cards))
    elif kind == "seat":
        plays[i] = replace(p, seat=(p.seat + rng.randint(1, 3)) % 4)
    elif kind == "count":
        if len(p.cards) > 1 and rng.random() < 0.5:
            plays[i] = replace(p, cards=p.cards[1:])
        else:
            plays[i] = replace(p, cards=(*p.cards, rng.randrange(54)))
    elif kind in ("forced", "unforce", "split"):
        leads = [k for k in range(0, len(plays), 4)]
        k = rng.choice(leads)
        lead = plays[k]
        cards = list(lead.cards)
        if kind == "unforce":
            plays[k] = replace(lead, forced=None)
        elif kind == "forced":
            n = rng.randint(1, len(cards))
            plays[k] = replace(lead, forced=tuple(rng.sample(cards, n)))
        else:
            rng.shuffle(cards)
            parts: list[tuple[Card, ...]] = []
            while cards:
                n = rng.randint(1, len(cards))
                parts.append(tuple(sorted(cards[:n])))
                cards = cards[n:]
            plays[k] = replace(lead, split=tuple(parts))
    elif kind == "shuffle":
        for k in range(len(plays)):
            cards = list(plays[k].cards)
            rng.shuffle(cards)
            plays[k] = replace(plays[k], cards=tuple(cards))
    elif kind == "cut":
        plays = plays[: rng.randrange(len(plays))]
    elif kind == "abandon":
        return replace(rec, plays=tuple(plays[: rng.randrange(len(plays))]), end="abandoned")
    elif kind == "claimed":
        line = format_hand(rec)
        claimed = {
            "trump": rng.choice("SHCD") if rng.random() < 0.5 else "NT",
            "attackers_points": rng.randrange(0, 400, 5),
            "bottom_multiplier": rng.choice((1, 2, 4, 8)),
            "level_change": {"team": rng.randrange(2), "levels": rng.randrange(4)},
            "next_banker": rng.randrange(4),
        }
        return line[:-1] + ',"claimed":' + json.dumps(claimed, separators=(",", ":")) + "}"
    elif kind == "json":
        line = format_hand(rec)
        return line[: rng.randrange(len(line))]
    elif kind == "field":
        line = format_hand(rec)
        return line[:-1] + ',"colour":"blue"}'
    elif kind == "mixed":
        k = rng.randrange(0, len(plays), 4)
        plays[k] = replace(plays[k], cards=(*plays[k].cards[:-1], rng.randrange(54)))
    return replace(rec, plays=tuple(plays))


def corpus(count: int = COUNT, seed: int = SEED, golden: bool = True) -> list[str]:
    """`count` generated lines (about half of them corrupted), then the golden hands."""
    lines: list[str] = []
    for index in range(count):
        rng = random.Random(f"replay-equivalence:{seed}:{index}")
        rec = _play_hand(rng, index)
        made: HandRecord | str = rec
        if rng.random() < 0.55:
            made = _mutate(rec, rng)
        lines.append(made if isinstance(made, str) else format_hand(made))
    if golden:
        lines.extend(GOLDEN.read_text(encoding="utf-8").splitlines())
    return lines


# --- the dumps ---------------------------------------------------------------------------------


def _comp(c: Component) -> list[Any]:
    return [c.width, list(c.faces), c.top]


def _comps(cs: Iterable[Component]) -> list[Any]:
    return [_comp(c) for c in cs]


def replay_dump(r: HandReplay) -> dict[str, Any]:
    out = replay_json(r)
    out["_components"] = [_comps(t.components) for t in r.tricks]
    out["_blocking"] = [
        None
        if t.throw is None or t.throw.blocking_component is None
        else format_cards(t.throw.blocking_component)
        for t in r.tricks
    ]
    out["_start"] = [format_cards(h) for h in r.start]
    out["_index"] = [[p.index, p.line] for t in r.tricks for p in t.plays]
    return out


def _follow(v: FollowVerdict) -> list[Any]:
    return [v.legal, v.rule, v.reason, v.kind, v.rung]


def _reading(r: Reading) -> list[Any]:
    return [r.suit, _comps(r.components)]


def api_dump(record_line: str, r: HandReplay) -> dict[str, Any]:
    """The public rule functions on every trick of a replay (see the module doc)."""
    out: dict[str, Any] = {"hand_id": r.hand_id, "tricks": []}
    if not r.tricks or r.trump is None or r.level is None or r.rules is None:
        return out
    rules = r.rules
    trump: TrumpContext = parse_trump(r.trump, r.level)
    plays = json.loads(record_line)["plays"]
    holdings = [list(h.counts) for h in r.start]
    rng = random.Random(f"api:{r.hand_id}")
    for t in r.tricks:
        row: dict[str, Any] = {}
        lead = t.plays[0]
        logged = plays[lead.index] if lead.index is not None else None
        attempted = t.throw.attempted if t.throw is not None else lead.cards
        try:
            reading = read_lead(attempted, trump, rules)
            row["read"] = _reading(reading)
        except PlayError as e:
            row["read"] = str(e)
            reading = None
        if logged is not None and "split" in logged:
            split = [parse_cards(s) for s in logged["split"]]
            try:
                row["split"] = _reading(read_lead(attempted, trump, rules, split))
            except PlayError as e:
                row["split"] = str(e)
        if reading is not None and reading.is_throw:
            check = check_throw(reading, t.leader, [Hand(tuple(h)) for h in holdings], trump, rules)
            row["throw"] = [
                check.failed,
                None if check.forced is None else _reading(check.forced),
                check.blocker,
                check.blocking,
                check.rule,
                check.reason,
            ]
        as_played = Reading(t.suit, t.components)
        for c in lead.cards:
            holdings[lead.seat][c] -= 1
        follows = []
        trick: list[tuple[int, tuple[Card, ...]]] = [(lead.seat, lead.cards)]
        voids = [False]
        eff = trump.eff
        for p in t.plays[1:]:
            hand = Hand(tuple(holdings[p.seat]))
            verdict = check_follow(as_played, hand, p.cards, trump, rules)
            pool = list(hand)
            other = tuple(rng.sample(pool, min(len(pool), len(p.cards))))
            need = demand(as_played, hand, trump, rules)
            follows.append(
                [
                    _follow(verdict),
                    list(other),
                    _follow(check_follow(as_played, hand, other, trump, rules)),
                    None if need is None else [need.index, need.rung, list(need.witness)],
                ]
            )
            voids.append(not any(hand.counts[f] for f in range(54) if eff[f] == t.suit))
            trick.append((p.seat, p.cards))
            for c in p.cards:
                holdings[p.seat][c] -= 1
        row["follow"] = follows
        won = resolve_trick(as_played, trick, voids, trump, rules)
        row["trick"] = [
            won.winner,
            won.winner_index,
            won.points,
            won.rule,
            won.reason,
            _comps(won.winning),
        ]
        # The same plays in another order of seats after the lead: other winners, other ties.
        rest = list(zip(trick[1:], voids[1:], strict=True))
        rng.shuffle(rest)
        again = resolve_trick(
            as_played,
            [trick[0]] + [x for x, _ in rest],
            [False] + [v for _, v in rest],
            trump,
            rules,
        )
        row["shuffled"] = [again.winner_index, again.rule, again.reason, _comps(again.winning)]
        out["tricks"].append(row)
    return out


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def dumps(lines: Sequence[str]) -> Iterator[tuple[str, str, HandReplay]]:
    """(replay dump, api dump, replay) of every line, as JSON text."""
    for number, text in enumerate(lines, start=1):
        r = replay_line(text, line=number, strict=False)
        yield _dumps(replay_dump(r)), _dumps(api_dump(text, r)), r


def digest(lines: Sequence[str]) -> dict[str, Any]:
    """The digests of the corpus and of both dumps, and what the corpus holds."""
    replay_sha, api_sha = hashlib.sha256(), hashlib.sha256()
    statuses: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    plays = 0
    for rep, api, r in dumps(lines):
        replay_sha.update(rep.encode() + b"\n")
        api_sha.update(api.encode() + b"\n")
        statuses[r.status] += 1
        codes.update(f.code for f in r.findings)
        plays += sum(len(t.plays) for t in r.tricks)
    return {
        "hands": len(lines),
        "corpus_sha256": hashlib.sha256("\n".join(lines).encode()).hexdigest(),
        "replay_sha256": replay_sha.hexdigest(),
        "api_sha256": api_sha.hexdigest(),
        "plays_replayed": plays,
        "statuses": dict(sorted(statuses.items())),
        "codes": dict(sorted(codes.items())),
    }


# --- simulated play and the analysis ----------------------------------------------------------

PLAY_MATCHES = ((FOUR_DECK, 3, 31), (TWO_DECK, 2, 32))
"""(rules, matches, seed) of the simulated matches digested: every style plays (match_specs)."""


def play_digest() -> dict[str, Any]:
    """Digests of simulated matches (`PLAY_MATCHES`, 4 hands each) and of the analysis of the
    first four-deck one at small settings: what the bots, the table loop and the rollouts say."""
    from shengji.coach.analysis import Settings, analyse_line, analysis_json
    from shengji.sim.match import match_specs
    from shengji.sim.run import run_matches

    lines: list[str] = []
    for rules, matches, seed in PLAY_MATCHES:
        lines.extend(h.line for h in run_matches(match_specs(matches, 4, seed, rules)))
    settings = Settings(worlds=4, min_worlds=2, cap=2, screen=1, listed=8, seed=7)
    analysis = analysis_json(analyse_line(lines[0], settings))
    decisions = analysis["decisions"]
    return {
        "simulated_hands": len(lines),
        "simulated_sha256": hashlib.sha256("\n".join(lines).encode()).hexdigest(),
        "analysed_decisions": len(decisions),
        "analysed_judged": sum(1 for d in decisions if d["judged"]),
        "analysis_sha256": hashlib.sha256(_dumps(analysis).encode()).hexdigest(),
    }


# --- the command -------------------------------------------------------------------------------


def _first_difference(path: Path, fresh: Iterable[str]) -> str | None:
    with path.open(encoding="utf-8") as fh:
        for number, (old, new) in enumerate(zip(fh, fresh, strict=True), start=1):
            if old.rstrip("\n") != new:
                return f"{path.name} line {number}:\n- {old.rstrip()[:2000]}\n+ {new[:2000]}"
    return None


def _save(out: Path, count: int, seed: int, extra: Callable[[], list[str]] | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    lines = corpus(count, seed)
    if extra is not None:
        lines.extend(extra())
    (out / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with (
        (out / "replay.jsonl").open("w", encoding="utf-8") as rf,
        (out / "api.jsonl").open("w", encoding="utf-8") as af,
    ):
        for rep, api, _ in dumps(lines):
            rf.write(rep + "\n")
            af.write(api + "\n")
    print(json.dumps(digest(lines), indent=1))


def _check(out: Path) -> int:
    lines = (out / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    reps, apis = [], []
    for rep, api, _ in dumps(lines):
        reps.append(rep)
        apis.append(api)
    bad = 0
    for name, fresh in (("replay.jsonl", reps), ("api.jsonl", apis)):
        diff = _first_difference(out / name, fresh)
        if diff is not None:
            print(diff)
            bad = 1
    print(f"{len(lines)} hands: " + ("DIFFERENT" if bad else "identical"))
    return bad


def compiled_modules() -> list[str]:
    """The `shengji` modules imported from extension modules (a mypyc build), by name."""
    return sorted(
        name
        for name, module in sys.modules.items()
        if name.startswith("shengji.")
        and not (getattr(module, "__file__", None) or "").endswith(".py")
    )


def _verify(compiled: bool) -> int:
    found = digest(corpus())
    expected = json.loads(DIGEST.read_text(encoding="utf-8"))
    native = compiled_modules()
    where = f"compiled: {', '.join(native)}" if native else "pure Python"
    if compiled and not native:
        print("no compiled module was imported", file=sys.stderr)
        return 1
    if found != expected:
        print(f"replay digests differ ({where})", file=sys.stderr)
        for key in expected:
            if found.get(key) != expected[key]:
                print(f"  {key}: {found.get(key)} != {expected[key]}", file=sys.stderr)
        return 1
    played = play_digest()
    native = compiled_modules()  # the simulator's modules too, now imported
    where = f"compiled: {', '.join(native)}" if native else "pure Python"
    expected = json.loads(PLAY_DIGEST.read_text(encoding="utf-8"))
    if played != expected:
        print(f"simulated play or analysis digests differ ({where})", file=sys.stderr)
        for key in expected:
            if played.get(key) != expected[key]:
                print(f"  {key}: {played.get(key)} != {expected[key]}", file=sys.stderr)
        return 1
    print(
        f"{found['hands']} hands, replay and verdict digests identical; "
        f"{played['simulated_hands']} simulated hands and an analysis of "
        f"{played['analysed_decisions']} decisions identical ({where})"
    )
    return 0


def _sim_lines() -> list[str]:
    """Simulated matches with injected faults (both presets)."""
    from shengji.sim.faults import inject_faults
    from shengji.sim.match import match_specs
    from shengji.sim.run import run_matches

    lines: list[str] = []
    for rules, matches, seed in ((FOUR_DECK, 40, 5), (TWO_DECK, 16, 6)):
        hands = list(run_matches(match_specs(matches, 12, seed, rules)))
        lines.extend(inject_faults(hands, 0.5, seed)[0])
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("write", help="regenerate tests/data/replay_equivalence.json")
    save = sub.add_parser("save", help="write a corpus and its dumps to DIR")
    save.add_argument("dir", type=Path)
    save.add_argument("--count", type=int, default=3000)
    save.add_argument("--seed", type=int, default=SEED + 1)
    save.add_argument("--sim", action="store_true", help="add simulated hands with faults")
    check = sub.add_parser("check", help="replay DIR's corpus and compare its dumps")
    check.add_argument("dir", type=Path)
    verify = sub.add_parser("verify", help="compare with tests/data/replay_equivalence.json")
    verify.add_argument(
        "--compiled", action="store_true", help="and require compiled rules modules"
    )
    args = parser.parse_args(argv)
    if args.command == "verify":
        return _verify(args.compiled)
    if args.command == "write":
        found = digest(corpus())
        DIGEST.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(found, indent=1))
        played = play_digest()
        PLAY_DIGEST.write_text(json.dumps(played, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(played, indent=1))
        return 0
    if args.command == "save":
        _save(args.dir, args.count, args.seed, _sim_lines if args.sim else None)
        return 0
    return _check(args.dir)


if __name__ == "__main__":
    sys.exit(main())
