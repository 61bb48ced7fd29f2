"""Cards as small ints, their `tractor-hh/1` tokens, point values, and the immutable hand (R1).

A card is a face id 0..53: suit index * 13 + (rank - 2) for the 52 suited faces, then the small
joker (52) and the big joker (53). Four decks hold four copies of every face, so a holding is a
multiset, stored as a tuple of 54 counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from .pickling import picklable

Card = int

SUITS: Final = "SHCD"
SUIT_SYMBOLS: Final = "♠♥♣♦"
RANKS: Final = "23456789TJQKA"
NUM_FACES: Final = 54
SMALL_JOKER: Final[Card] = 52
BIG_JOKER: Final[Card] = 53
JOKER_SUIT: Final = 4

SUIT_INDEX: Final = {s: i for i, s in enumerate(SUITS)}
RANK_VALUE: Final = {r: i + 2 for i, r in enumerate(RANKS)}
RANK_VALUE["10"] = 10


class CardError(ValueError):
    """A card token, card list or holding operation that cannot be honoured."""


def make_card(rank: int, suit: int) -> Card:
    """The face of a suited card; rank 2..14 (A = 14), suit index 0..3 (S H C D)."""
    if not (2 <= rank <= 14 and 0 <= suit <= 3):
        raise CardError(f"no card of rank {rank} in suit {suit}")
    return suit * 13 + (rank - 2)


def card_suit(card: Card) -> int:
    """Suit index 0..3, or JOKER_SUIT for both jokers."""
    return JOKER_SUIT if card >= 52 else card // 13


_EQUAL_RANK_ORDER: Final = (0, 1, 3, 2)
"""Each suit index (S H C D) in the order ♠ < ♥ < ♦ < ♣ (R4.4)."""


def equal_rank_order(card: Card) -> int:
    """Where a face stands among faces of equal rank — off-suit level cards, level cards in
    no-trump (R4.4): ♠ 0, ♥ 1, ♦ 2, ♣ 3 (jokers, never of equal rank with another face, 4)."""
    return _EQUAL_RANK_ORDER[card // 13] if card < 52 else 4


def card_rank(card: Card) -> int:
    """Rank 2..14 for suited cards, 15 for the small joker and 16 for the big joker."""
    if card >= 52:
        return 15 if card == SMALL_JOKER else 16
    return card % 13 + 2


def rank_token(rank: int) -> str:
    return RANKS[rank - 2]


def parse_rank(token: str) -> int:
    """A level or card rank: `2`..`9`, `T` or `10`, `J`, `Q`, `K`, `A`."""
    value = RANK_VALUE.get(token.strip().upper())
    if value is None:
        raise CardError(f"unknown rank {token!r}")
    return value


_TOKENS: Final[tuple[str, ...]] = tuple(
    [RANKS[i % 13] + SUITS[i // 13] for i in range(52)] + ["SJ", "BJ"]
)
_PARSE: Final[dict[str, Card]] = {tok: i for i, tok in enumerate(_TOKENS)}
for _i in range(52):
    if _TOKENS[_i][0] == "T":
        _PARSE["10" + _TOKENS[_i][1]] = _i

_POINTS: Final[tuple[int, ...]] = tuple(
    (5 if card_rank(c) == 5 else 10 if card_rank(c) in (10, 13) else 0) if c < 52 else 0
    for c in range(NUM_FACES)
)


def parse_card(token: str) -> Card:
    """A card from its token; `10` is read as `T`. Raises CardError quoting the token."""
    card = _PARSE.get(token)
    if card is None:
        card = _PARSE.get(token.upper())
        if card is None:
            raise CardError(f"unknown card {token!r}")
    return card


def _pair_table() -> list[Card]:
    table = [-1] * 65536
    for tok, card in _PARSE.items():
        if len(tok) == 2:
            table[ord(tok[0]) * 256 + ord(tok[1])] = card
    return table


_PAIRS: Final[list[Card]] = _pair_table()
"""The card of each two-letter token by its two ASCII codes (a * 256 + b), -1 for none."""


def _parse_spaced(text: str) -> tuple[Card, ...] | None:
    """The cards of canonical text — two-letter tokens one space apart — read from its bytes
    without splitting it into strings (the compiled build indexes bytes and lists natively: a
    dealt hand of 216 cards in a fraction of the time); None for any other text."""
    n = len(text)
    if n % 3 != 2 or not text.isascii():
        return None
    data = text.encode("ascii")
    pairs = _PAIRS
    out: list[Card] = []
    for i in range(0, n, 3):
        card = pairs[data[i] * 256 + data[i + 1]]
        if card < 0 or (i + 2 < n and data[i + 2] != 32):
            return None
        out.append(card)
    return tuple(out)


def parse_cards(text: str) -> tuple[Card, ...]:
    """A space-separated card list. Extra whitespace is tolerated, as FORMAT.md allows."""
    if not isinstance(text, str):
        raise CardError(f"a card list must be a string, not {type(text).__name__}")
    cards = _parse_spaced(text)
    if cards is not None:
        return cards
    tokens = text.split()
    try:
        return tuple([_PARSE[tok] for tok in tokens])
    except KeyError:
        # Lower case, or a bad token: the careful path names the culprit.
        return tuple([parse_card(tok) for tok in tokens])


def format_card(card: Card) -> str:
    return _TOKENS[card]


def format_cards(cards: Iterable[Card]) -> str:
    # A list comprehension, not `map` over the tuple's `__getitem__`: the compiled build indexes
    # the final tuple natively, where `map` calls the bound method through Python for each card.
    return " ".join([_TOKENS[c] for c in cards])


def pretty_card(card: Card) -> str:
    """A card for people: rank and suit symbol, jokers as SJ/BJ."""
    if card >= 52:
        return _TOKENS[card]
    rank = RANKS[card % 13]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card // 13]


def card_points(card: Card) -> int:
    """R1.4: every 5 is worth 5, every 10 and K 10."""
    return _POINTS[card]


def points_of(cards: Iterable[Card]) -> int:
    return sum(_POINTS[c] for c in cards)


def full_deck(decks: int) -> tuple[Card, ...]:
    """Every face `decks` times, in face order (R1.2)."""
    return tuple(c for c in range(NUM_FACES) for _ in range(decks))


@dataclass(frozen=True, slots=True)
class Hand:
    """An immutable multiset of cards: `counts[face]` copies of each face."""

    counts: tuple[int, ...]

    @staticmethod
    def of(cards: Iterable[Card]) -> Hand:
        counts = [0] * NUM_FACES
        for c in cards:
            counts[c] += 1
        return Hand(tuple(counts))

    @staticmethod
    def empty() -> Hand:
        return Hand((0,) * NUM_FACES)

    def __len__(self) -> int:
        return sum(self.counts)

    def __iter__(self) -> Iterator[Card]:
        for face, n in enumerate(self.counts):
            for _ in range(n):
                yield face

    def count(self, card: Card) -> int:
        return self.counts[card]

    def cards(self) -> tuple[Card, ...]:
        return tuple(self)

    def contains(self, cards: Iterable[Card]) -> bool:
        return not self._lacking(cards)

    def missing(self, cards: Iterable[Card]) -> tuple[Card, ...]:
        """The cards of `cards` this hand cannot supply (with multiplicity), in face order."""
        lacking = self._lacking(cards)
        if not lacking:
            return ()
        out: list[Card] = []
        for face in sorted(lacking):
            out.extend([face] * lacking[face])
        return tuple(out)

    def _lacking(self, cards: Iterable[Card]) -> dict[Card, int]:
        """How many copies of each face `cards` asks for beyond what the hand holds."""
        need: dict[Card, int] = {}
        for c in cards:
            need[c] = need.get(c, 0) + 1
        have = self.counts
        return {face: n - have[face] for face, n in need.items() if n > have[face]}

    def add(self, cards: Iterable[Card]) -> Hand:
        counts = list(self.counts)
        for c in cards:
            counts[c] += 1
        return Hand(tuple(counts))

    def remove(self, cards: Iterable[Card]) -> Hand:
        """This hand without `cards`; raises CardError naming the cards it lacks."""
        counts = list(self.counts)
        lacking: list[Card] = []
        for c in cards:
            if counts[c] == 0:
                lacking.append(c)
            else:
                counts[c] -= 1
        if lacking:
            raise CardError(f"not in hand: {format_cards(lacking)}")
        return Hand(tuple(counts))

    def __str__(self) -> str:
        return format_cards(self)

    def __init__(self, counts: tuple[int, ...]) -> None:
        # Written out: mypyc compiles these stores natively (shengji/pickling.py).
        object.__setattr__(self, "counts", counts)


picklable(Hand)
