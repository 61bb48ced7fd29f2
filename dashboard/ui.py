"""Small presentation helpers shared by the pages: rates as metrics, cards with coloured suits,
charts at full width, compact tables."""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import altair as alt
import polars as pl
import streamlit as st

from analytics.stats import Rate
from shengji.cards import SUIT_SYMBOLS, card_suit, parse_cards, pretty_card
from shengji.trump import TrumpContext, parse_trump

RED = "#c62828"
BLACK = "#1f1f1f"
SUIT_NAMES = {"S": "♠", "H": "♥", "C": "♣", "D": "♦", "NT": "no-trump", "trump": "trump"}
CARD_CSS = """
<style>
.cards {font-family: ui-monospace, SFMono-Regular, Menlo, monospace; line-height: 1.9;}
.card {display: inline-block; padding: 0 .22em; margin: 0 .08em; border: 1px solid #d0d0d0;
       border-radius: 4px; background: #fff; font-weight: 600; white-space: nowrap;}
.card.trump {background: #fff6d6; border-color: #e0c060;}
.card.red {color: #c62828;} .card.black {color: #1f1f1f;}
.card.joker {font-style: italic;}
.card.gone {opacity: .28;}
.won {background: #e6f4ea; border-radius: 4px; padding: 0 .3em;}
</style>
"""


def css() -> None:
    st.markdown(CARD_CSS, unsafe_allow_html=True)


def card_span(card: int, trump: TrumpContext | None = None, gone: bool = False) -> str:
    if card >= 52:
        colour = "red" if card == 53 else "black"
        classes = f"card joker {colour}"
    else:
        classes = "card " + ("red" if card_suit(card) in (1, 3) else "black")
    if trump is not None and trump.is_trump(card):
        classes += " trump"
    if gone:
        classes += " gone"
    return f'<span class="{classes}">{html.escape(pretty_card(card))}</span>'


def cards_html(
    cards: str | Iterable[int] | None, trump: TrumpContext | None = None, sort: bool = True
) -> str:
    """Card tokens (or faces) as coloured chips, trumps tinted; sorted by suit and strength."""
    if cards is None:
        return ""
    faces = list(parse_cards(cards)) if isinstance(cards, str) else list(cards)
    if sort and trump is not None:
        faces.sort(key=trump.sort_key, reverse=True)
    elif sort:
        faces.sort(reverse=True)
    return '<span class="cards">' + "".join(card_span(c, trump) for c in faces) + "</span>"


def trump_context(trump: str | None, level: str | None) -> TrumpContext | None:
    if not trump or not level:
        return None
    try:
        return parse_trump(trump, level)
    except ValueError:
        return None


def trump_label(trump: str | None) -> str:
    if trump is None:
        return "—"
    if trump == "NT":
        return "no-trump"
    symbol = SUIT_SYMBOLS["SHCD".index(trump)]
    colour = RED if trump in "HD" else BLACK
    return f'<span style="color:{colour};font-weight:600">{symbol}</span>'


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


def chart(c: alt.TopLevelMixin, key: str) -> None:
    st.altair_chart(c, width="stretch", key=key)


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
        if dtype == pl.String or dtype.is_integer() or dtype.is_temporal() or dtype == pl.Boolean:
            fixes.append(pl.col(name).cast(pl.String).fill_null("—"))
    return df.with_columns(fixes) if fixes else df


def percent(column: str, label: str | None = None) -> Percent:
    return Percent(label or column)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 player`, `2 players`, `1,374 captures`."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def empty(what: str) -> None:
    st.info(f"Nothing to show: no {what} under these filters.", icon=":material/filter_alt_off:")
