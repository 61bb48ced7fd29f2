"""The 2023 Botzone judge's own checks (JackSimbol/Tractor `judge.py`, commit 5c675d3), where no
option of the rule book can say what its code does: the follow check (`follow_rule`
`botzone2023`), which also fails on every answer to a throw.

The judge reads a play by `checkPokerType`: one card a single, two identical cards a pair, pairs of
one suit's plain ranks consecutive in its `pointorder` a tractor (exactly SJ SJ BJ BJ too);
anything else is "suspect", except pairs only (four cards or more) mixing suits or holding a
level-rank pair, which it ends the match on (INVALID_POKERTYPE). Its `checkLegalMove` then looks
at a follow only as far as docs/rules.md ("The 2023 Botzone judge") says; a path of it that raises
an error it does not catch (NameError, TypeError) stops the judge, and with it the match.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Final, Literal

from .cards import BIG_JOKER, SMALL_JOKER, Card, card_rank, card_suit
from .shape import Reading
from .trump import TRUMP, TrumpContext

JudgeType = Literal["single", "pair", "tractor", "suspect", "invalid"]

INVALID: Final = "INVALID_POKERTYPE"
JUDGE_FAILS: Final = "the 2023 judge fails on this play"
CRASH: Final = JUDGE_FAILS + " ({}) and the match ends there"


def point_index(trump: TrumpContext) -> dict[int, int]:
    """The judge's `pointorder` (3 … K A 2 with `two_above_ace`, else 2 … A), level removed."""
    ranks = [*range(3, 15), 2] if trump.two_above_ace else list(range(2, 15))
    return {r: i for i, r in enumerate(r for r in ranks if r != trump.level)}


def judge_type(cards: Sequence[Card], trump: TrumpContext) -> JudgeType:
    """`checkPokerType` of a play; `invalid` where the judge ends the match instead."""
    n = len(cards)
    if n == 1:
        return "single"
    if n == 2:
        return "pair" if cards[0] == cards[1] else "suspect"
    if n % 2:
        return "suspect"
    counts: dict[Card, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    if counts.get(SMALL_JOKER) == 2 and counts.get(BIG_JOKER) == 2:
        return "tractor"
    if SMALL_JOKER in counts or BIG_JOKER in counts:
        return "suspect"
    if any(v != 2 for v in counts.values()):
        return "suspect"
    suit = card_suit(cards[0])
    if any(card_suit(c) != suit or card_rank(c) == trump.level for c in counts):
        return "invalid"
    index = point_index(trump)
    spots = sorted(index[card_rank(c)] for c in counts)
    if all(b - a == 1 for a, b in pairwise(spots)):
        return "tractor"
    return "suspect"


def lead_type(lead: Reading) -> JudgeType:
    """The judge's type of a lead the replay read (a throw is "suspect")."""
    if lead.is_throw:
        return "suspect"
    comp = lead.components[0]
    if len(comp.faces) > 1:
        return "tractor"
    return "single" if comp.width == 1 else "pair"


def _longest_pair_run(faces: Sequence[Card], counts: Sequence[int], trump: TrumpContext) -> int:
    """The longest run of pairs (exactly two copies) consecutive in `pointorder`, as `checkRes`
    counts it, among `faces` (plain cards of one suit)."""
    index = point_index(trump)
    spots = sorted(index[card_rank(f)] for f in faces if counts[f] == 2)
    best = run = 1 if spots else 0
    for a, b in pairwise(spots):
        run = run + 1 if b - a == 1 else 1
        best = max(best, run)
    return best


def can_answer(lead: Reading, size: int, counts: Sequence[int], trump: TrumpContext) -> bool:
    """`checkRes`: whether the holding has an answer of the lead's type in the led suit. A pair
    lead is answered by any face held twice (of trump: level cards and jokers too); a tractor
    lead by a run of pairs of the suit's plain ranks as long as the lead."""
    eff = trump.eff
    faces = [f for f in range(54) if eff[f] == lead.suit]
    if size <= 2:
        return any(counts[f] >= size for f in faces)
    plain = [f for f in faces if f < 52 and card_rank(f) != trump.level]
    return _longest_pair_run(plain, counts, trump) * 2 >= size


def follow_debt(
    lead: Reading, counts: Sequence[int], play: Sequence[Card], trump: TrumpContext
) -> tuple[str, str, bool] | None:
    """What `checkLegalMove` rejects a follow for: (reason, rule, whether about its shape), or
    None when it lets the play pass. `counts` is the follower's holding before the play; the
    play has the lead's size and is held. The judge looks at the play's first card as listed."""
    eff = trump.eff
    suit = lead.suit
    size = len(play)
    played_in = [c for c in play if eff[c] == suit]
    held_in = sum([counts[f] for f in range(54) if eff[f] == suit])
    name = "trump" if suit == TRUMP else "the led suit"
    if lead.is_throw:
        # Both of its branches for a throw read `own_pok`, which the function assigns only
        # further down: every answer to a throw raises UnboundLocalError.
        return CRASH.format("checkLegalMove reads own_pok before assigning it"), "R5.3", False
    first = lead_type(lead)
    mine = judge_type(play, trump)
    if mine == "invalid":
        return f"pairs of several suits or of the level rank ({INVALID})", "R5.3", True
    if can_answer(lead, size, counts, trump):
        if mine != first:
            return f"must answer the {first} with a {first} of {name}, holding one", "R5.3", True
        lead_card = play[0]
        if suit == TRUMP and eff[lead_card] != TRUMP:
            return f"must answer with {name}, holding an answer", "R5.3", False
        if suit != TRUMP and (eff[lead_card] == TRUMP or card_suit(lead_card) != suit):
            return f"must answer with {name}, holding an answer", "R5.3", False
        return None
    if mine == first:
        return None  # the judge checks nothing more
    if suit == TRUMP:
        if len(played_in) != size:
            if len(played_in) != held_in:
                return f"must play all {held_in} trump held", "R5.2", False
            return None
        return CRASH.format("checkLegalMove reads an undefined major_hold"), "R5.3", True
    # The judge counts the led suit by its letter, so a level card of that suit counts too.
    by_letter = [c for c in play if c < 52 and card_suit(c) == suit]
    if len(by_letter) != size:
        if len(by_letter) != held_in:
            return f"must play all {held_in} of the led suit held", "R5.2", False
        return None
    if first == "tractor":
        pairs_played = sum([1 for c in set(play) if play.count(c) >= 2])
        pairs_held = sum([1 for f in range(54) if eff[f] == suit and counts[f] >= 2])
        if pairs_played < size // 2 and pairs_played < pairs_held:
            return (
                f"must play {min(size // 2, pairs_held)} pairs, holding {pairs_held}",
                "R5.3",
                True,
            )
    return None
