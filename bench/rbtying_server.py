"""Differential check of the `rbtying` preset against the rbtying/shengji server's own rules code.

    python -m bench.rbtying_server --server DIR [--cases N] [--seed S] [--golden FILE]

DIR is a checkout of github.com/rbtying/shengji (the preset follows commit 71f8d43). The server's
`mechanics` crate needs crates that an offline machine may not have (serde, schemars, slog, …),
but its rules code uses none of them: this tool copies `types.rs`, `ordered_card.rs`,
`multiset_iter.rs`, `format_match.rs`, `hands.rs` and `trick.rs` out of DIR, strips the
serialisation derives, logging impls and tests, supplies the three `itertools` adaptors and the
`lazy_static` tables it needs from std, and builds them with a small driver
(bench/rbtying_harness/) into build/rbtying-harness with `cargo build --offline`.

It then generates hard cases in four families — random leads near the top of a suit, throws among
the level cards and jokers, side-suit throws ruffed from compact trump holdings, and failed
throws with a quad and a tractor of equal size — has the server judge them (the reading of a lead
without a format hint; for a trick the throw check, the forced unit and its blocker, the legality
of each follow and the winner) and compares with `shengji.referee` under `rbtying`. It reports
the disagreements per family, and for each of the four options that copy the server
(`tractor_width`, `throw_block_search`, `forced_order`, `winning_split`) how many cases the rule
book's value would get wrong, so the run shows that every class was exercised.

`--golden FILE` writes the cases as JSON lines (the referee request and the server's verdict),
every case some rule-book value gets wrong and a sample of the others: tests/data/
rbtying_server_cases.jsonl is such a file, judged by the server's code and checked by
tests/test_rbtying_server.py without a Rust toolchain.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shengji.cards import Card, Hand, format_cards
from shengji.combos import iter_matches, read_lead, suit_layout
from shengji.follow import random_legal_play
from shengji.referee import judge
from shengji.rules import RBTYING, rules_from_spec
from shengji.throws import check_throw
from shengji.trump import TRUMP, TrumpContext, trump_context

ROOT = Path(__file__).resolve().parent.parent
SHIM = Path(__file__).resolve().parent / "rbtying_harness"
BUILD = ROOT / "build" / "rbtying-harness"
SOURCES = (
    "types.rs",
    "ordered_card.rs",
    "multiset_iter.rs",
    "format_match.rs",
    "hands.rs",
    "trick.rs",
)
RANKS = "23456789TJQKA"
TEXTBOOK = {
    "tractor_width": "fewest",
    "throw_block_search": "any_start",
    "forced_order": "size_top",
    "winning_split": "strongest",
}


# --- building the server's rules code ------------------------------------------------------------


def _match_brace(text: str, i: int) -> int:
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced braces")


def _drop_blocks(text: str, pattern: str) -> str:
    while (m := re.search(pattern, text, flags=re.M)) is not None:
        end = _match_brace(text, text.index("{", m.start()))
        text = text[: m.start()] + text[end + 1 :]
    return text


def strip_source(text: str) -> str:
    """One server source without what needs crates: tests, serde/schemars/slog impls and
    derives, thiserror attributes, anyhow errors (as strings), lazy_static (as LazyLock)."""
    while "#[cfg(test)]" in text:
        i = text.index("#[cfg(test)]")
        text = text[:i] + text[_match_brace(text, text.index("{", i)) + 1 :]
    text = re.sub(r"^use schemars::\{[^;]*\};\n", "", text, flags=re.M | re.S)
    text = re.sub(r"^use (schemars|serde|thiserror)[^;]*;\n", "", text, flags=re.M)
    text = _drop_blocks(
        text,
        r"^impl(<[^>]*>)? (serde::)?(Serialize|Deserialize<[^>]*>|JsonSchema|slog::Value) for ",
    )
    text = re.sub(r"^\s*crate::impl_slog_value!\(\w+\);\n", "", text, flags=re.M)
    text = re.sub(r"^\s*#\[(serde|error|schemars)\(.*?\)\]\s*\n", "", text, flags=re.M | re.S)
    text = text.replace("#[from]", "")

    def derive(m: re.Match[str]) -> str:
        dropped = ("Serialize", "Deserialize", "JsonSchema", "Error")
        kept = [x.strip() for x in m.group(1).split(",") if x.strip() and x.strip() not in dropped]
        return f"#[derive({', '.join(kept)})]" if kept else ""

    text = re.sub(r"#\[derive\(([^)]*)\)\]", derive, text, flags=re.S)
    text = text.replace("use anyhow::Error;", "type Error = String;")
    text = re.sub(r'anyhow::anyhow!\(("[^"]*")\)', r"\1.to_string()", text)

    def lazy(m: re.Match[str]) -> str:
        found = re.findall(r"static ref (\w+): (.*?) = (.*?);", m.group(1), flags=re.S)
        return "\n".join(
            f"static {name}: std::sync::LazyLock<{ty}> = std::sync::LazyLock::new(|| {expr});"
            for name, ty, expr in found
        )

    text = re.sub(r"lazy_static::lazy_static! \{(.*?)\n\}", lazy, text, flags=re.S)
    return text.replace("use itertools::Itertools;", "use crate::itertools::Itertools;")


def build(server: Path, out: Path = BUILD) -> Path:
    """Build the harness from a server checkout; the path of its binary."""
    src = server / "mechanics" / "src"
    missing = [name for name in SOURCES if not (src / name).is_file()]
    if missing:
        raise SystemExit(f"{server}: no mechanics/src/{missing[0]} (a rbtying/shengji checkout?)")
    crate = out / "src"
    crate.mkdir(parents=True, exist_ok=True)
    for name in SOURCES:
        text = strip_source((src / name).read_text(encoding="utf-8"))
        if name == "trick.rs":
            text += "\n" + (SHIM / "trick_harness.rs").read_text(encoding="utf-8")
        (crate / name).write_text(text, encoding="utf-8")
    for name in ("lib.rs", "itertools.rs", "main.rs"):
        shutil.copy(SHIM / name, crate / name)
    shutil.copy(SHIM / "Cargo.toml", out / "Cargo.toml")
    subprocess.run(["cargo", "build", "--offline", "--release", "--quiet"], cwd=out, check=True)
    return out / "target" / "release" / "rbt-harness"


# --- cases ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    family: str
    request: dict[str, Any]


def _token(suit: int | None) -> str:
    return "NT" if suit is None else "SHCD"[suit]


class _Shoe:
    """Four copies of each face, handed out at random from a list of faces."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.counts = [0] * 54

    def take(self, face: Card, k: int) -> list[Card]:
        k = max(0, min(k, 4 - self.counts[face]))
        self.counts[face] += k
        return [face] * k

    def draw(self, faces: Sequence[Card], n: int) -> list[Card]:
        out: list[Card] = []
        for _ in range(50 * n):
            if len(out) >= n:
                break
            out += self.take(self.rng.choice(faces), 1)
        return out


def _top(trump: TrumpContext, suit: int, positions: int) -> list[Card]:
    at = suit_layout(trump, suit).at
    return [f for p in range(max(0, len(at) - positions), len(at)) for f in at[p]]


def _trick(
    family: str,
    trump: TrumpContext,
    lead: Sequence[Card],
    hands: list[list[Card]],
    rng: random.Random,
) -> Case:
    """A trick request: the lead as attempted and legal follows to the lead as `rbtying` plays
    it (the forced unit after a failed throw); a seat void in the led suit ruffs with trumps."""
    reading = read_lead(tuple(sorted(lead)), trump, RBTYING)
    played = reading
    if reading.is_throw:
        check = check_throw(reading, 0, [Hand.of(h) for h in hands], trump, RBTYING)
        if check.forced is not None:
            played = check.forced
    plays = [tuple(lead)]
    for seat in (1, 2, 3):
        held = hands[seat]
        trumps = [c for c in held if trump.eff[c] == TRUMP]
        void = not any(trump.eff[c] == played.suit for c in held)
        if void and len(trumps) >= played.size and rng.random() < 0.8:
            # A ruff of the lead's shape when one can be found: those are the ones compared.
            tries = [tuple(rng.sample(trumps, played.size)) for _ in range(30)]
            fits = [t for t in tries if next(iter_matches(t, played, trump, RBTYING), None)]
            plays.append(fits[0] if fits else tries[0])
        else:
            plays.append(random_legal_play(played, Hand.of(held), trump, RBTYING, rng))
    request = {
        "kind": "trick",
        "trump": _token(trump.suit),
        "level": RANKS[trump.level - 2],
        "hands": [format_cards(sorted(h)) for h in hands],
        "plays": [format_cards(p) for p in plays],
    }
    return Case(family, request)


def _format(family: str, trump: TrumpContext, lead: Sequence[Card]) -> Case:
    request = {
        "kind": "format",
        "trump": _token(trump.suit),
        "level": RANKS[trump.level - 2],
        "cards": format_cards(sorted(lead)),
    }
    return Case(family, request)


def _random_top(rng: random.Random) -> Case | None:
    """A lead near the top of a suit, followers holding some of it, trumps or other suits."""
    trump = trump_context(rng.choice([0, 1, 2, 3, None]), rng.choice([2, 3, 5, 9, 10, 13, 14]))
    suits = sorted({trump.eff[c] for c in range(54)})
    led = TRUMP if rng.random() < 0.6 else rng.choice([s for s in suits if s != TRUMP])
    shoe = _Shoe(rng)
    lead = [
        c
        for f in _top(trump, led, rng.randint(3, 7))
        for c in shoe.take(f, rng.choice([0, 0, 1, 2, 2, 3, 4]))
    ]
    if len(lead) < 2:
        return None
    if rng.random() < 0.3:
        return _format("top", trump, lead)
    others = [c for c in range(52) if trump.eff[c] not in (led, TRUMP)]
    hands = [lead]
    for _ in range(3):
        held: list[Card] = []
        mode = rng.random()
        if mode < 0.45:
            held += shoe.draw(_top(trump, led, 6), rng.randint(1, 8))
        elif led != TRUMP and mode < 0.85:
            held += shoe.draw(_top(trump, TRUMP, 8), rng.randint(len(lead), len(lead) + 3))
        held += shoe.draw(others, rng.randint(len(lead), len(lead) + 3))
        hands.append(held)
    return _trick("top", trump, lead, hands, rng)


def _level_cards(rng: random.Random) -> Case | None:
    """Trump throws among the trump A, the level cards and the jokers, against holdings of the
    same (R4.2's running width, R4.3's search from the second card)."""
    trump = trump_context(rng.randrange(4), rng.choice([2, 3, 5, 9, 10, 13, 14]))
    pool = _top(trump, TRUMP, 6)
    shoe = _Shoe(rng)
    lead = [
        c
        for f in rng.sample(pool, rng.randint(2, 5))
        for c in shoe.take(f, rng.choice([1, 2, 2, 3, 4]))
    ]
    if rng.random() < 0.2:
        return _format("level", trump, lead)
    others = [c for c in range(52) if trump.eff[c] != TRUMP]
    hands = [lead]
    for _ in range(3):
        held = [
            c
            for f in rng.sample(pool, rng.randint(0, 4))
            for c in shoe.take(f, rng.choice([1, 2, 2, 3]))
        ]
        hands.append(held + shoe.draw(others, len(lead) + 2))
    return _trick("level", trump, lead, hands, rng)


_RUFFED_LEADS = ((1, 1, 4), (1, 4), (2, 4), (1, 1, 2), (1, 2, 4), (1, 1, 1, 4), (1, 2, 2))
"""Throw shapes whose ruffs read several ways: singles, pairs and a ⟨2-2⟩ tractor (4)."""


def _ruffs(rng: random.Random) -> Case | None:
    """Side-suit throws of singles, pairs and a tractor, ruffed by two or three seats from
    compact trump holdings, so that a ruff reads several ways (R6.2)."""
    suit = rng.choice([0, 1, 2, 3, None])
    trump = trump_context(suit, rng.choice([2, 3, 5, 9, 10, 13, 14]))
    led = rng.choice([s for s in range(4) if s != suit])
    at = suit_layout(trump, led).at
    shoe = _Shoe(rng)
    lead: list[Card] = []
    p = len(at) - 1
    for part in rng.choice(_RUFFED_LEADS):
        if part == 4:
            p -= 1  # a gap, so the tractor stays apart from the units above it
            if p < 1:
                return None
            lead += shoe.take(at[p][0], 2) + shoe.take(at[p - 1][0], 2)
            p -= 2
        else:
            lead += shoe.take(at[p][0], part)
            p -= 2 if part == 2 else 1
        if p < 0:
            return None
    floor = max(p, 0)
    ladder = suit_layout(trump, TRUMP).at
    others = [c for c in range(52) if trump.eff[c] not in (led, TRUMP)]
    below = [f for q in range(floor) for f in at[q]]
    hands = [lead]
    base = rng.randint(0, max(0, len(ladder) - 7))
    for seat in (1, 2, 3):
        if seat == 3 and rng.random() < 0.4 and below:
            held = shoe.draw(below, len(lead) + 1)
        else:
            # Ruffs from overlapping windows: they compete, and are compared reading by reading.
            low = base + rng.randint(0, 2)
            window = [ladder[q][0] for q in range(low, min(len(ladder), low + rng.randint(3, 4)))]
            held = [c for f in window for c in shoe.take(f, rng.choice([1, 2, 2, 2, 3]))]
        hands.append(held + shoe.draw(others, max(3, len(lead) + 2 - len(held))))
    return _trick("ruffs", trump, lead, hands, rng)


def _forced(rng: random.Random) -> Case | None:
    """Components of equal size whose order by top card and by lowest card differ (R4.4): an
    off-suit level card's triple or quad beside a tractor climbing onto another one (from the
    trump A), or from one to the trump-suit level card, or — in no-trump — from a level card to
    the small joker."""
    no_trump = rng.random() < 0.25
    trump = trump_context(
        None if no_trump else rng.randrange(4), rng.choice([2, 3, 5, 9, 10, 13, 14])
    )
    at = suit_layout(trump, TRUMP).at
    shoe = _Shoe(rng)
    if no_trump:  # the level cards share position 0, then SJ, BJ
        x, y = rng.sample(list(at[0]), 2)
        lead = shoe.take(x, 2) + shoe.take(at[1][0], 2) + shoe.take(y, rng.choice([3, 4]))
        pool = [f for p in range(len(at)) for f in at[p]]
    else:
        ace_at = len(at) - 5
        x, y = rng.sample(list(at[ace_at + 1]), 2)
        if rng.random() < 0.5:  # ⟨A A-y y⟩ beside x × 3 or 4
            lead = shoe.take(at[ace_at][0], 2) + shoe.take(y, 2)
        else:  # ⟨y y-T T⟩, T the trump-suit level card, beside x × 3 or 4
            lead = shoe.take(y, 2) + shoe.take(at[ace_at + 2][0], 2)
        lead += shoe.take(x, rng.choice([3, 4]))
        pool = [f for p in range(ace_at - 1, len(at)) for f in at[p]]
    extra = rng.choice([None, *suit_layout(trump, TRUMP).faces[-6:]])
    if extra is not None:
        lead += shoe.take(extra, rng.choice([1, 2]))
    others = [c for c in range(52) if trump.eff[c] != TRUMP]
    hands = [lead]
    for _ in range(3):
        held = [
            c
            for f in rng.sample(pool, min(len(pool), rng.randint(0, 4)))
            for c in shoe.take(f, rng.choice([1, 2, 2, 3, 4]))
        ]
        hands.append(held + shoe.draw(others, len(lead) + 2))
    return _trick("forced", trump, lead, hands, rng)


FAMILIES: dict[str, Callable[[random.Random], Case | None]] = {
    "top": _random_top,
    "level": _level_cards,
    "ruffs": _ruffs,
    "forced": _forced,
}


def cases(n: int, seed: int) -> list[Case]:
    """`n` cases of each family."""
    rng = random.Random(seed)
    out: list[Case] = []
    for make in FAMILIES.values():
        made = 0
        while made < n:
            case = make(rng)
            if case is not None:
                out.append(case)
                made += 1
    return out


# --- judging --------------------------------------------------------------------------------------


def _line(case: Case) -> str:
    r = case.request
    head = f"{'F' if r['kind'] == 'format' else 'T'} {r['trump']} {r['level']}"
    if r["kind"] == "format":
        return f"{head}|{r['cards']}"
    return "|".join([head, *r["hands"], *r["plays"]])


_TRICK = re.compile(r"failed=(\d) forced=(.*) blocker=(\S+) winner=(\d) illegal=(\S*) units=(.*)$")


def parse_verdict(case: Case, line: str) -> dict[str, Any]:
    """The server's verdict on a case, in the referee's terms (cards sorted, as strings)."""
    if line.startswith("error"):
        return {"error": line}
    if case.request["kind"] == "format":
        return {"components": sorted(" ".join(sorted(u.split())) for u in line.split(";") if u)}
    m = _TRICK.match(line)
    if m is None:
        raise ValueError(f"unreadable harness line {line!r}")
    failed = m.group(1) == "1"
    return {
        "throw_failed": failed,
        "forced": " ".join(sorted(m.group(2).split())) if failed else None,
        "blocker": int(m.group(3)) if failed else None,
        "winner": int(m.group(4)),
        "illegal": sorted(int(x) for x in m.group(5).split(",") if x),
    }


def ours(case: Case, rules: Any = "rbtying") -> dict[str, Any]:
    """The referee's verdict in the same terms."""
    got = judge({"id": None, "rules": rules, **case.request}).response
    if "error" in got:
        return {"error": got["error"]}
    if case.request["kind"] == "format":
        return {
            "components": sorted(" ".join(sorted(c["cards"].split())) for c in got["components"])
        }
    throw = got["throw"]
    failed = bool(throw and throw["failed"])
    return {
        "throw_failed": failed,
        "forced": " ".join(sorted(throw["forced"].split())) if failed else None,
        "blocker": throw["blocker"] if failed else None,
        "winner": got["winner"],
        "illegal": got["illegal"],
    }


def server_verdicts(binary: Path, todo: Sequence[Case]) -> list[dict[str, Any]]:
    text = "".join(_line(c) + "\n" for c in todo)
    run = subprocess.run([str(binary)], input=text, capture_output=True, text=True, check=True)
    lines = run.stdout.splitlines()
    if len(lines) != len(todo):
        raise SystemExit(f"the harness answered {len(lines)} of {len(todo)} cases")
    return [parse_verdict(c, line) for c, line in zip(todo, lines, strict=True)]


def _agrees(server: dict[str, Any], mine: dict[str, Any]) -> bool:
    if "error" in server:
        # The server refuses follows of another size than its own verdict's lead: only a
        # verdict that also differs from ours can cause that.
        return "error" in mine
    return server == mine


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.rbtying_server", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--server", type=Path, required=True, help="a rbtying/shengji checkout")
    parser.add_argument("--cases", type=int, default=1000, help="cases per family")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--golden", type=Path, help="write the cases and verdicts as JSON lines")
    parser.add_argument(
        "--others", type=int, default=60, help="agreeing cases per family kept by --golden"
    )
    args = parser.parse_args(argv)
    binary = build(args.server)
    todo = cases(args.cases, args.seed)
    verdicts = server_verdicts(binary, todo)
    variants = {
        name: rules_from_spec({"preset": "rbtying", name: value})
        for name, value in TEXTBOOK.items()
    }
    wrong: Counter[tuple[str, str]] = Counter()
    total: Counter[str] = Counter()
    shown = 0
    kept: list[dict[str, Any]] = []
    others: Counter[str] = Counter()
    for case, server in zip(todo, verdicts, strict=True):
        total[case.family] += 1
        mine = ours(case)
        if not _agrees(server, mine):
            wrong[(case.family, "rbtying")] += 1
            if shown < 10:
                shown += 1
                print(
                    f"DISAGREE {case.family}: {json.dumps(case.request)}\n  server {server}\n  ours   {mine}"
                )
        classes = [
            name
            for name, rules in variants.items()
            if not _agrees(server, ours(case, rules.spec()))
        ]
        for name in classes:
            wrong[(case.family, name)] += 1
        if classes or others[case.family] < args.others:
            if not classes:
                others[case.family] += 1
            if "error" not in server:
                kept.append(
                    {
                        "family": case.family,
                        "classes": classes,
                        "request": case.request,
                        "server": server,
                    }
                )
    print(f"cases per family: {dict(total)}")
    for name in ("rbtying", *TEXTBOOK):
        label = "rbtying preset" if name == "rbtying" else f"{name}={TEXTBOOK[name]}"
        counts = {family: wrong[(family, name)] for family in FAMILIES}
        print(f"disagreements with the server, {label}: {sum(counts.values())} {counts}")
    if args.golden:
        args.golden.write_text(
            "".join(json.dumps(k, ensure_ascii=False) + "\n" for k in kept), encoding="utf-8"
        )
        print(f"wrote {len(kept)} cases to {args.golden}")
    return 1 if any(wrong[(f, "rbtying")] for f in FAMILIES) else 0


if __name__ == "__main__":
    sys.exit(main())
