"""Small presentation helpers shared by the pages: stored text made inert, rates as metrics, charts
at full width, compact tables. (Cards are drawn by the Hand replay's component,
dashboard/replayer.py.)

Every string that comes from a log (players, hand and match ids, sources, reasons, raw lines, file
names) is shown through `md` (inside Markdown) or `esc` (inside HTML written with
`unsafe_allow_html`): a log is hostile, and Streamlit's Markdown renders images, links, LaTeX,
coloured text and — with `unsafe_allow_html` — any HTML. Tables (`st.dataframe`), widget options,
chart text and `st.code` are drawn as plain text already."""

from __future__ import annotations

import collections
import functools
import hashlib
import html
import re
import threading
import unicodedata
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import polars as pl
import streamlit as st

from analytics.stats import Rate

# altair checks each part of a chart against the Vega-Lite schema as it is built ("debug mode"),
# on every run of every page. The tests check every chart's whole spec instead (see `served`).
alt.utils.schemapi.disable_debug_mode()


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


def finder_params(params: Params) -> Params:
    """`params` for the Hand finder: the event stated, and the filters of the current URL, so
    the finder's URL reproduces the list (and the finder has nothing to add to it: each change
    of the URL is an entry in the browser's history, and Back would seem to do nothing)."""
    qp = st.query_params
    filters: Params = {name: qp.get_all(name) for name in qp if name.startswith("f_")}
    return {"event": "all", **params, **filters}


def chart(
    c: alt.TopLevelMixin,
    key: str,
    drill: tuple[list[str], Callable[[dict[str, Any]], Params | None]] | None = None,
) -> None:
    """A chart at full width. With `drill=(fields, to_params)`, clicking a mark opens the Hand
    finder on the hands that mark counts: `to_params({field: value})` gives its query."""
    if drill is None:
        st.altair_chart(served(c), width="stretch", key=key)
        return
    fields, to_params = drill
    # After a drill-down the chart starts afresh under a new key: coming back, it has no
    # selection, so a click on the same mark is a change again and opens its hands again.
    drills = f"{key}__drills"
    generation = st.session_state.get(drills, 0)
    picked_chart = _kept_pick(c, fields)
    event = st.altair_chart(
        served(picked_chart),
        width="stretch",
        key=f"{key}_{generation}" if generation else key,
        on_select="rerun",
        selection_mode="pick",
    )
    st.caption("Click a mark to list the hands it counts.")
    picked = (event.get("selection") or {}).get("pick") or []  # type: ignore[union-attr]
    if picked:
        params = to_params(dict(picked[0]))
        if params is not None:
            st.session_state[drills] = generation + 1
            st.switch_page(HANDS_PAGE, query_params=finder_params(params))


_MEMO_SIZE = 256
"""Charts kept between runs (a page draws up to six; filters and choices make more)."""
_memo: collections.OrderedDict[tuple[Any, ...], Any] = collections.OrderedDict()
_memo_lock = threading.Lock()


class _Unkeyable(Exception):
    """An argument `built` cannot fingerprint: the chart is built afresh."""


def built(builder: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`builder(*args, **kwargs)`, one of analytics' chart builders (pure functions of their
    arguments), kept for the runs that ask for the same chart of the same data: building the
    charts was 40-50% of a cached page view's script (docs/dashboard.md, "Serving"). The data
    frames are told apart by their columns, types, length and every row's 128-bit hash; an argument of
    another kind than frames, text, numbers, None and their lists, tuples and dicts is not
    fingerprinted and the chart is built afresh. Kept charts are shared by every session: they
    are never changed, only copied (`pickable`, `served`)."""
    try:
        key = (builder.__module__, builder.__qualname__, _fingerprint(args), _fingerprint(kwargs))
    except _Unkeyable:
        return builder(*args, **kwargs)
    return _remembered(key, lambda: builder(*args, **kwargs))


def _remembered(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    with _memo_lock:
        if key in _memo:
            _memo.move_to_end(key)
            return _memo[key]
    value = make()
    with _memo_lock:
        _memo[key] = value
        while len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    return value


def _kept_pick(c: Any, fields: list[str]) -> Any:
    """`pickable(c, fields)`, made once for a chart `built` keeps; the entry holds the chart, so
    its id is no other chart's while the entry lasts."""
    with _memo_lock:
        kept = any(v is c for v in _memo.values())
    if not kept:
        return pickable(c, fields)
    entry = _remembered(("pick", id(c), tuple(fields)), lambda: (c, pickable(c, fields)))
    return entry[1]


def _fingerprint(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, str)):
        return (type(v).__name__, v)
    if isinstance(v, float):
        return ("float", repr(v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_fingerprint(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((_fingerprint(k), _fingerprint(x)) for k, x in v.items()))
    if isinstance(v, pl.DataFrame):
        if any(t == pl.Object for t in v.schema.values()):
            raise _Unkeyable("a column of Python objects")  # polars cannot hash their contents
        try:
            rows = [v.hash_rows(seed=seed).to_numpy().tobytes() for seed in (0, 1)]
        except Exception as e:  # a type polars cannot hash
            raise _Unkeyable from e
        digest = hashlib.blake2b(b"".join(rows), digest_size=32).hexdigest()
        return ("frame", tuple((c, str(t)) for c, t in v.schema.items()), v.height, digest)
    raise _Unkeyable(type(v).__name__)


def served(c: Any) -> Any:
    """`c` as it is handed to Streamlit: converted to Vega-Lite without altair's schema check of
    the whole spec, which ran on every run of every page; the specs are checked by the tests
    instead, every chart builder's (tests/test_analytics_charts.py) and every chart a page draws
    (tests/test_dashboard_pages.py)."""
    out = c.copy(deep=False)
    # An instance attribute, set past altair's __setattr__ (which would make it a chart property):
    # Streamlit's conversion calls `to_dict()`, which is this.
    object.__setattr__(out, "to_dict", functools.partial(type(out).to_dict, out, validate=False))
    return out


def pickable(c: alt.TopLevelMixin, fields: list[str]) -> Any:
    """`c` with a click selection named `pick` on `fields`, on its most pickable mark. Picking
    the nearest mark only for point-like marks: on bars Vega-Lite's nearest-mark layer answers a
    hover or a click with the bar whose centre is closest, which on a long bar is often another
    row's (its tooltip shows that row, a click opens that row's hands)."""
    nearest = _pick_mark(c) not in _AREA_MARKS
    pick = alt.selection_point(name="pick", fields=fields, on="click", nearest=nearest)
    return _with_pick(c, pick)


_PICKABLE = ("point", "circle", "square", "bar", "tick", "rect", "line", "area")
"""Marks a click picks, best first: Vega-Lite's `nearest` needs point-like marks (a layered
chart's first layer is often an interval rule, where a click picks nothing)."""


_AREA_MARKS = ("bar", "rect", "area", "tick")
"""Marks a click picks by their own area, never through `nearest`."""


def _pick_mark(c: Any) -> str:
    """The mark `_with_pick` puts the selection on (a line's points are points)."""
    if isinstance(c, alt.LayerChart):
        layers = list(c.layer)
        return _pick_mark(min(layers, key=lambda layer: _rank(_mark(layer))))
    m = _mark(c)
    return "point" if m in ("line", "area") else m


def _rank(mark: str) -> int:
    return _PICKABLE.index(mark) if mark in _PICKABLE else len(_PICKABLE)


def _mark(c: Any) -> str:
    m = getattr(c, "mark", None)
    return m if isinstance(m, str) else str(getattr(m, "type", ""))


def _with_pick(c: Any, pick: Any) -> Any:
    """`c` with the click selection on its most pickable mark: a layer's points rather than its
    interval rules; a line gets its points drawn as a layer of their own to be clicked."""
    if isinstance(c, alt.LayerChart):
        layers = list(c.layer)
        best = min(range(len(layers)), key=lambda i: _rank(_mark(layers[i])))
        layers[best] = _with_pick(layers[best], pick)
        out = c.copy()
        out.layer = layers
        return out
    if _mark(c) in ("line", "area"):
        return alt.layer(c, c.mark_point(filled=True, size=50).add_params(pick))
    return c.add_params(pick)


def from_url(param: str, key: str, options: Sequence[object], default: object = None) -> None:
    """Before drawing the widget `key` (one of `options`): a shared link's `?param=` chooses its
    value, the first time the page sees that value in the URL (a link from another page, Back);
    otherwise the widget keeps what the user chose, or starts at `default`. Draw the widget
    without its own default, then call `to_url`."""
    wanted = st.query_params.get(param)
    seen = f"{key}__url"
    match = next((o for o in options if str(o) == wanted), None) if wanted is not None else None
    if match is not None and (wanted != st.session_state.get(seen) or key not in st.session_state):
        st.session_state[key] = match
    elif key not in st.session_state and default is not None:
        st.session_state[key] = default
    st.session_state[seen] = wanted


def to_url(param: str, key: str, value: object, default: object = None) -> None:
    """After drawing the widget `key`: its value in the URL as `?param=` (left out at `default`),
    so a shared or bookmarked link opens the page as it is shown."""
    text = None if value is None or value == default else str(value)
    if text is None:
        if param in st.query_params:
            del st.query_params[param]
    elif st.query_params.get(param) != text:
        st.query_params[param] = text
    st.session_state[f"{key}__url"] = text


def hands_link(label: str, params: Params) -> None:
    """A link to the Hand finder listing the hands behind a number."""
    st.page_link(
        HANDS_PAGE, label=label, icon=":material/list:", query_params=finder_params(params)
    )


def hands_url(params: Params) -> str:
    """The Hand finder's address for `params`, with the filters of the current URL: a table's
    link column opens it in a new tab, a new session that takes its filters from the URL."""
    query: list[tuple[str, str]] = []
    for name, value in finder_params(params).items():
        query += [(name, v) for v in ([value] if isinstance(value, str) else value)]
    return "hands?" + urllib.parse.urlencode(query)


def mark_value(v: Any) -> str:
    """A chart mark's value as the text the Hand finder compares (`2`, not `2.0`)."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


@dataclass(frozen=True)
class Percent:
    """A rate column (0..1) shown as a percentage with one decimal, like every rate metric."""

    label: str


def table(df: pl.DataFrame, key: str, **kwargs: Any) -> None:
    """A compact, full-width table without the index. Rates marked with `percent()` show as
    `27.4%` everywhere; missing values in non-numeric columns show as `—`, not `None`; text a
    spreadsheet would run as a formula is made inert (`inert_cells`)."""
    df = inert_cells(df)
    config = dict(kwargs.pop("column_config", None) or {})
    for name, spec in list(config.items()):
        if isinstance(spec, Percent) and name in df.columns:
            df = df.with_columns(pl.col(name) * 100)
            config[name] = st.column_config.NumberColumn(spec.label, format="%.1f%%")
    for name, dtype in df.schema.items():
        if dtype.is_float() and df[name].null_count():
            df, config[name] = _float_as_text(df, name, config.get(name, name))
    # A link column keeps its missing values: an empty cell, not a link to `—`.
    links = [n for n, spec in config.items() if _column_type(spec) == "link" and n in df.columns]
    order = df.columns
    df = blank_nulls(df.drop(links)).hstack(df.select(links)).select(order)
    st.dataframe(
        df,
        hide_index=True,
        width="stretch",
        key=key,
        column_config=config or None,  # type: ignore[arg-type]
        **kwargs,
    )


FORMULA_START = r"^[=+\-@\t\r]"
"""What a spreadsheet opening a CSV reads as the start of a formula (`=HYPERLINK(…)`,
`@SUM(…)`, `+cmd|…`), a tab or carriage return included (some read past them)."""
PLAIN_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?%?$"


def inert_cells(df: pl.DataFrame) -> pl.DataFrame:
    """`df` with every text cell that starts as a formula prefixed with `'`, so that the table's
    "Download as CSV" (and a copy of its cells) cannot run anything in a spreadsheet: a log's
    player name or hand id is hostile. Numbers stay numbers, and text that is a plain number
    (`-5`) is left as it is: a spreadsheet reads it as that number."""
    fixes = []
    for name, dtype in df.schema.items():
        if dtype not in (pl.String, pl.Categorical) and not isinstance(dtype, pl.Enum):
            continue
        col = pl.col(name).cast(pl.String)
        risky = col.str.contains(FORMULA_START) & ~col.str.contains(PLAIN_NUMBER)
        fixes.append(pl.when(risky).then(pl.lit("'") + col).otherwise(col).alias(name))
    return df.with_columns(fixes) if fixes else df


def _column_type(spec: Any) -> str | None:
    return (spec.get("type_config") or {}).get("type") if isinstance(spec, dict) else None


def _float_as_text(df: pl.DataFrame, name: str, spec: Any) -> tuple[pl.DataFrame, Any]:
    """A number column with missing values as text in its own format, `—` where missing: a
    table shows a missing number as `None`, which reads as a bug."""
    spec = dict(spec) if isinstance(spec, dict) else {"label": spec or name}
    fmt = str((spec.get("type_config") or {}).get("format") or "%.2f")
    if not fmt.startswith("%"):
        fmt = "%.2f"
    text = pl.Series(name, ["—" if v is None else fmt % v for v in df[name]], pl.String)
    column = st.column_config.TextColumn(
        spec.get("label"), help=spec.get("help"), width=spec.get("width")
    )
    return df.with_columns(text), {**column, "alignment": "right"}


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


_ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_AUTOLINK = re.compile(r"(https?:|www|@)", re.IGNORECASE)
WORD_JOINER = "\u2060"


def one_line(text: object) -> str:
    """`text` as one line: control characters, line and paragraph separators become spaces (a
    line break would end an HTML block or a table row and let Markdown in)."""
    return "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in str(text))


def md(text: object) -> str:
    """A stored or linked string as literal text inside Markdown (`st.markdown`, captions, headers,
    alerts, labels): every ASCII punctuation character backslash-escaped (CommonMark allows it for
    all of them), so no emphasis, link, image, HTML tag, `$` maths, `:colour[…]` directive or
    `:emoji:` code can start, and all on one line.

    Escapes cannot stop GitHub-style autolinks (Streamlit turns `http://…`, `www.…` and `a@b.c` in
    the parsed text into links): an invisible word joiner after `http:`, `www` and `@` does."""
    text = _AUTOLINK.sub(r"\1" + WORD_JOINER, one_line(text))
    return _ASCII_PUNCTUATION.sub(r"\\\1", text)


def esc(text: object) -> str:
    """A stored string as literal text inside HTML written with `unsafe_allow_html` — which must be
    one HTML block (starting with a tag such as `<div>`, no blank line), where Markdown does not
    apply."""
    return html.escape(one_line(text), quote=True)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 player`, `2 players`, `1,374 captures`."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def empty(what: str) -> None:
    st.info(f"Nothing to show: no {what} under these filters.", icon=":material/filter_alt_off:")
