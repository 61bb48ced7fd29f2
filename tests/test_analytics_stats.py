"""The Wilson interval against published values (Newcombe 1998, Table I, method 3)."""

from __future__ import annotations

import math

import polars as pl
import pytest

from analytics.stats import mean_interval, rate, wilson, with_wilson

# (hits, n, lower, upper) as printed in Newcombe, "Two-sided confidence intervals for the single
# proportion", Statistics in Medicine 17 (1998), Table I, Wilson score method without correction.
NEWCOMBE = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize(("hits", "n", "lo", "hi"), NEWCOMBE)
def test_wilson_matches_published_values(hits: int, n: int, lo: float, hi: float) -> None:
    got = wilson(hits, n)
    assert got[0] == pytest.approx(lo, abs=5e-5)
    assert got[1] == pytest.approx(hi, abs=5e-5)


def test_wilson_ends_and_empty() -> None:
    assert wilson(10, 10)[1] == 1.0
    assert wilson(0, 10)[0] == 0.0
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(50, 100)
    assert lo < 0.5 < hi
    assert (0.5 - lo) == pytest.approx(hi - 0.5)
    with pytest.raises(ValueError, match="3/2"):
        wilson(3, 2)


def test_rate_describes_its_sample() -> None:
    r = rate(81, 263)
    assert r.value == pytest.approx(81 / 263)
    assert "81/263" in r.describe()
    assert "25.5–36.6%" in r.describe()
    assert rate(0, 0).describe() == "n/a (0/0)"


def test_polars_wilson_agrees_with_scalar() -> None:
    df = pl.DataFrame({"k": [81, 15, 0, 1, 0, 7], "n": [263, 148, 20, 29, 0, 7]})
    out = with_wilson(df, "k", "n")
    for row in out.iter_rows(named=True):
        lo, hi = wilson(row["k"], row["n"])
        assert row["lo"] == pytest.approx(lo, abs=1e-12)
        assert row["hi"] == pytest.approx(hi, abs=1e-12)
        if row["n"]:
            assert row["rate"] == pytest.approx(row["k"] / row["n"])
        else:
            assert row["rate"] is None


def test_mean_interval() -> None:
    lo, hi = mean_interval(100.0, 20.0, 100)  # type: ignore[misc]
    assert lo == pytest.approx(100 - 1.959963984540054 * 2)
    assert math.isclose(hi - 100, 100 - lo)
    assert mean_interval(1.0, 1.0, 1) is None
