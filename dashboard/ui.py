"""Small presentation helpers shared by the pages: rates as metrics, charts at full width, compact
tables. (Cards are drawn by the Hand replay's component, dashboard/replayer.py.)"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import altair as alt
import polars as pl
import streamlit as st

from analytics.stats import Rate


def rate_metric(label: str, r: Rate, what: str, help_extra: str = "") -> None:
    """A rate as a metric: the percentage large, `hits / n what` and the interval beneath."""
    value = "n/a" if r.value is None else f"{100 * r.value:.1f}%"
    st.metric(
        label,
        value,
        help=f"{r.hits:,} of {r.n:,} {what}; 95% Wilson interval "
        f"{100 * r.lo:.1f}–{100 * r.hi:.1f}%. {help_extra}".strip(),
    )
    st.caption(f"{r.hits:,} / {r.n:,} {what} · 95% CI {100 * r.lo:.1f}–{100 * r.hi:.1f}%")


def number_metric(label: str, value: float | int | None, caption: str, fmt: str = ",.1f") -> None:
    st.metric(label, "n/a" if value is None else format(value, fmt))
    st.caption(caption)


HANDS_PAGE = "views/hands.py"
Params = dict[str, str | list[str]]


def chart(
    c: alt.TopLevelMixin,
    key: str,
    drill: tuple[list[str], Callable[[dict[str, Any]], Params | None]] | None = None,
) -> None:
    """A chart at full width. With `drill=(fields, to_params)`, clicking a mark opens the Hand
    finder on the hands that mark counts: `to_params({field: value})` gives its query."""
    if drill is None:
        st.altair_chart(c, width="stretch", key=key)
        return
    fields, to_params = drill
    pick = alt.selection_point(name="pick", fields=fields, on="click", nearest=True)
    event = st.altair_chart(
        c.add_params(pick),  # type: ignore[attr-defined]
        width="stretch",
        key=key,
        on_select="rerun",
        selection_mode="pick",
    )
    st.caption("Click a mark to list the hands it counts.")
    picked = (event.get("selection") or {}).get("pick") or []  # type: ignore[union-attr]
    # A selection survives the round trip to the finder and back: act on a new one only.
    done_key = f"{key}__done"
    fresh = bool(picked) and st.session_state.get(done_key) != picked
    st.session_state[done_key] = picked
    if fresh:
        params = to_params(dict(picked[0]))
        if params is not None:
            st.switch_page(HANDS_PAGE, query_params=params)


def hands_link(label: str, params: Params) -> None:
    """A link to the Hand finder listing the hands behind a number."""
    st.page_link(HANDS_PAGE, label=label, icon=":material/list:", query_params=params)


@dataclass(frozen=True)
class Percent:
    """A rate column (0..1) shown as a percentage with one decimal, like every rate metric."""

    label: str


def table(df: pl.DataFrame, key: str, **kwargs: Any) -> None:
    """A compact, full-width table without the index. Rates marked with `percent()` show as
    `27.4%` everywhere; missing values in non-numeric columns show as `—`, not `None`."""
    config = dict(kwargs.pop("column_config", None) or {})
    for name, spec in list(config.items()):
        if isinstance(spec, Percent) and name in df.columns:
            df = df.with_columns(pl.col(name) * 100)
            config[name] = st.column_config.NumberColumn(spec.label, format="%.1f%%")
    df = blank_nulls(df)
    st.dataframe(
        df,
        hide_index=True,
        width="stretch",
        key=key,
        column_config=config or None,  # type: ignore[arg-type]
        **kwargs,
    )


def blank_nulls(df: pl.DataFrame) -> pl.DataFrame:
    """Missing text, integer or date values as `—` (a table's `None` reads as a bug)."""
    fixes = []
    for name, dtype in df.schema.items():
        if dtype.is_float() or not df[name].null_count():
            continue
        if dtype in (pl.String, pl.Boolean, pl.Null) or dtype.is_integer() or dtype.is_temporal():
            fixes.append(pl.col(name).cast(pl.String).fill_null("—"))
    return df.with_columns(fixes) if fixes else df


def percent(column: str, label: str | None = None) -> Percent:
    return Percent(label or column)


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:&])")


def md(text: object) -> str:
    """A stored or linked string as literal text inside Markdown (captions, labels): every
    character Markdown or HTML would act on is escaped."""
    return _MARKDOWN.sub(r"\\\1", str(text))


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 player`, `2 players`, `1,374 captures`."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def empty(what: str) -> None:
    st.info(f"Nothing to show: no {what} under these filters.", icon=":material/filter_alt_off:")
