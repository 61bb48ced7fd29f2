"""Small presentation helpers shared by the pages: stored text made inert, rates as metrics, cards
with coloured suits, charts at full width, compact tables.

Every string that comes from a log (players, hand and match ids, sources, reasons, raw lines, file
names) is shown through `md` (inside Markdown: `st.markdown`, captions, headers, alerts) or `esc`
(inside HTML written with `unsafe_allow_html`): a log is hostile, and Streamlit's Markdown renders
images, links, LaTeX, coloured text and — with `unsafe_allow_html` — any HTML. Tables
(`st.dataframe`), widget options and chart text are drawn as plain text already."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable

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


_ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_AUTOLINK = re.compile(r"(https?:|www|@)", re.IGNORECASE)
WORD_JOINER = "\u2060"


def one_line(text: object) -> str:
    """`text` as one line: control characters, line and paragraph separators become spaces (a
    line break would end an HTML block or a table row and let Markdown in)."""
    return "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in str(text))


def md(text: object) -> str:
    """`text` as literal text inside Markdown: every ASCII punctuation character backslash-escaped
    (CommonMark allows it for all of them), so no emphasis, link, image, HTML tag, `$` maths,
    `:colour[…]` directive or `:emoji:` code can start, and all on one line.

    Escapes cannot stop GitHub-style autolinks (Streamlit turns `http://…`, `www.…` and `a@b.c` in
    the parsed text into links): an invisible word joiner after `http:`, `www` and `@` does."""
    text = _AUTOLINK.sub(r"\1" + WORD_JOINER, one_line(text))
    return _ASCII_PUNCTUATION.sub(r"\\\1", text)


def esc(text: object) -> str:
    """`text` as literal text inside HTML written with `unsafe_allow_html` — which must be one HTML
    block (starting with a tag such as `<div>`, no blank line), where Markdown does not apply."""
    return html.escape(one_line(text), quote=True)


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
    if trump not in ("S", "H", "C", "D"):
        return esc(trump)
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


def table(df: pl.DataFrame, key: str, **kwargs: object) -> None:
    """A compact, full-width table without the index."""
    st.dataframe(df, hide_index=True, width="stretch", key=key, **kwargs)  # type: ignore[arg-type]


def percent(column: str, label: str | None = None) -> object:
    return st.column_config.NumberColumn(label or column, format="percent")


def empty(what: str) -> None:
    st.info(f"Nothing to show: no {what} under these filters.", icon=":material/filter_alt_off:")
