"""Bounded memo tables: what the rules core remembers may not grow with the input.

A `Budget` counts entries that several memo tables hold together; once `limit` of them are spent
it clears every table it was given and starts afresh. Forgetting everything at once is crude, but
it is cheap on the hot path (one decrement per new entry), keeps the bound exact, and the tables
refill within a few hands of a replay. The bound is counted in entries, so a table whose entries
vary in size spends in proportion to it (a derived ladder spends one per rung).
"""

from __future__ import annotations

from collections.abc import Callable

MEMO_LIMIT = 50_000
"""Entries one budget's tables may hold together (a few MB)."""


class Budget:
    """Entries left before the registered tables are cleared; `spend` counts new ones."""

    __slots__ = ("clearers", "left", "limit")

    def __init__(self, limit: int = MEMO_LIMIT) -> None:
        self.limit = limit
        self.left = limit
        self.clearers: list[Callable[[], None]] = []

    def watch(self, clear: Callable[[], None]) -> None:
        """Have `clear` called whenever the budget is spent (a table's `clear`)."""
        self.clearers.append(clear)

    def spend(self, entries: int = 1) -> None:
        """Count `entries` entries about to be added; past the limit, clear every table first (the
        new entries then count against the fresh budget)."""
        self.left -= entries
        if self.left < 0:
            self.reset()
            self.left -= entries

    def reset(self) -> None:
        for clear in self.clearers:
            clear()
        self.left = self.limit

    def used(self) -> int:
        """Entries counted since the tables were last cleared."""
        return self.limit - self.left
