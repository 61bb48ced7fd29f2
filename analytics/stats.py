"""Rates with honest uncertainty: a numerator over its opportunities, with a 95% Wilson interval.

The Wilson score interval is used rather than the normal approximation because our samples are
often small (one player's failed throws) and rates often near 0 or 1 (bottom captures), where
the normal interval leaves [0, 1] or collapses to a point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


@dataclass(frozen=True, slots=True)
class Rate:
    """`hits` out of `n` opportunities, with its Wilson interval (`lo`, `hi`)."""

    hits: int
    n: int
    lo: float
    hi: float

    @property
    def value(self) -> float | None:
        return self.hits / self.n if self.n else None

    def describe(self) -> str:
        """For people: `23.1% (12/52, 95% CI 13.7–36.1%)`; `n/a (0/0)` with no opportunity."""
        if not self.n:
            return "n/a (0/0)"
        assert self.value is not None
        return (
            f"{100 * self.value:.1f}% ({self.hits}/{self.n}, "
            f"95% CI {100 * self.lo:.1f}–{100 * self.hi:.1f}%)"
        )

    def as_dict(self) -> dict[str, float | int | None]:
        return {"hits": self.hits, "n": self.n, "rate": self.value, "lo": self.lo, "hi": self.hi}


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for `hits` successes in `n` trials; (0, 1) when n is 0:
    with no opportunity every rate is possible."""
    if n < 0 or hits < 0 or hits > n:
        raise ValueError(f"wilson needs 0 <= hits <= n, got {hits}/{n}")
    if n == 0:
        return (0.0, 1.0)
    p = hits / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At hits = 0 or n the bound is exactly 0 or 1; float noise would leave 0.9999….
    lo = 0.0 if hits == 0 else max(0.0, centre - half)
    hi = 1.0 if hits == n else min(1.0, centre + half)
    return (lo, hi)


def rate(hits: int, n: int) -> Rate:
    lo, hi = wilson(hits, n)
    return Rate(hits, n, lo, hi)


def wilson_exprs(hits: str, n: str, prefix: str = "") -> list[pl.Expr]:
    """Polars expressions adding `{prefix}rate`, `{prefix}lo`, `{prefix}hi` from two count columns;
    the rate is null where there was no opportunity."""
    k = pl.col(hits).cast(pl.Float64)
    m = pl.col(n).cast(pl.Float64)
    z2 = Z95 * Z95
    p = k / m
    denom = 1 + z2 / m
    centre = (p + z2 / (2 * m)) / denom
    half = Z95 / denom * (p * (1 - p) / m + z2 / (4 * m * m)).sqrt()
    has = m > 0
    # As in `wilson`: exact ends at 0 and n, and (0, 1) with no opportunity.
    lo = pl.when(~has | (k == 0)).then(0.0).otherwise((centre - half).clip(0.0, 1.0))
    hi = pl.when(~has | (k == m)).then(1.0).otherwise((centre + half).clip(0.0, 1.0))
    return [
        pl.when(has).then(p).otherwise(None).alias(f"{prefix}rate"),
        lo.alias(f"{prefix}lo"),
        hi.alias(f"{prefix}hi"),
    ]


def with_wilson(df: pl.DataFrame, hits: str, n: str, prefix: str = "") -> pl.DataFrame:
    """`df` with its rate and 95% Wilson bounds for `hits` over `n` (see `wilson_exprs`)."""
    return df.with_columns(wilson_exprs(hits, n, prefix))


SMALL_SAMPLE = 30
"""Below this many hands a mean's normal interval is not shown: points per hand are skewed (most
hands lose nothing, a few lose a lot), and on a handful of hands the interval would claim a
precision it has not (and could go below zero)."""


def mean_interval(mean: float | None, sd: float | None, n: int) -> tuple[float, float] | None:
    """A normal 95% interval for a mean (points per hand): mean ± z·sd/√n; None below 2 samples."""
    if mean is None or sd is None or n < 2:
        return None
    half = Z95 * sd / math.sqrt(n)
    return (mean - half, mean + half)
