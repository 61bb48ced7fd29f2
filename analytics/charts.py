"""Pure chart builders: `polars.DataFrame -> altair.Chart`, each saying what it counts and over how
many hands (the subtitle). They read only the columns they are given, so tests check them through
`chart.to_dict()` and the dashboard, the report and notebooks share them.

Rates come with `rate`, `lo`, `hi` columns (analytics.stats.with_wilson) and the opportunity
count `n`; the error bars are the 95% Wilson interval.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from .stats import SMALL_SAMPLE

# Muted, colour-blind-safe hues (Okabe–Ito) so the banker team and the attackers read the same
# on every page.
BANKER_COLOUR = "#0072B2"
ATTACKER_COLOUR = "#D55E00"
NEUTRAL_COLOUR = "#555555"
HEIGHT = 260
TEAM_PALETTE = {"banker team": BANKER_COLOUR, "attackers": ATTACKER_COLOUR}
"""Series named after the teams are drawn in the teams' colours."""


def _series_colour(df: pl.DataFrame, series: str) -> alt.Color:
    values = set(df[series].unique().to_list()) if df.height else set()
    if values and values <= set(TEAM_PALETTE):
        domain = [v for v in TEAM_PALETTE if v in values]
        scale = alt.Scale(domain=domain, range=[TEAM_PALETTE[v] for v in domain])
        return alt.Color(f"{series}:N", title=series, scale=scale)
    return alt.Color(f"{series}:N", title=series)


ROLE_COLOURS = {"banker": BANKER_COLOUR, "banker's partner": "#56B4E9", "attacker": ATTACKER_COLOUR}
"""The banker in the banker team's blue, the partner a lighter blue, attackers orange."""
ROLE_NAMES = {"banker": "banker", "banker_partner": "banker's partner", "attacker": "attacker"}


def _role_colour(df: pl.DataFrame, column: str) -> alt.Color:
    """Roles in words and in the teams' colours (a `role` column holds the stored role names)."""
    present = set(df[column].to_list()) if df.height else set()
    domain = [ROLE_NAMES[r] for r in ROLE_NAMES if r in present] or list(ROLE_COLOURS)
    return alt.Color(
        f"{column}_label:N",
        title="role",
        scale=alt.Scale(domain=domain, range=[ROLE_COLOURS[d] for d in domain]),
    )


def _who_colour(df: pl.DataFrame, column: str) -> alt.Color:
    """A player in the attackers' orange, `field` in grey, whatever their alphabetical order."""
    values = sorted(set(df[column].to_list()) - {"field"}) if df.height else []
    domain = [*values, "field"]
    palette = [ATTACKER_COLOUR, BANKER_COLOUR, "#009E73", "#CC79A7"]
    colours = [palette[i % len(palette)] for i in range(len(values))] + [NEUTRAL_COLOUR]
    return alt.Color(f"{column}:N", title=None, scale=alt.Scale(domain=domain, range=colours))


def subtitle(counts: str, hands: int) -> str:
    return f"{counts} · {hands:,} hands"


def _title(title: str, counts: str, hands: int) -> alt.TitleParams:
    return alt.TitleParams(title, subtitle=[subtitle(counts, hands)], anchor="start")


def _axis_type(df: pl.DataFrame, column: str) -> str:
    dtype = df.schema[column]
    return "quantitative" if dtype.is_numeric() else "nominal"


def rate_chart(
    df: pl.DataFrame,
    x: str,
    *,
    title: str,
    counts: str,
    hands: int,
    x_title: str | None = None,
    rate_title: str = "rate",
    colour: str = NEUTRAL_COLOUR,
    sort: list[str] | None = None,
) -> alt.Chart:
    """A rate per category (or numeric bin) of `x`: a point at `rate`, a bar from `lo` to `hi`,
    the tooltip saying hits/n. Numeric `x` draws a line through the points (a binned curve)."""
    x_type = _axis_type(df, x)
    x_enc = alt.X(f"{x}:{x_type[0].upper()}", title=x_title or x)
    if x_type == "nominal":
        x_enc = alt.X(f"{x}:N", title=x_title or x, sort=sort or None, axis=alt.Axis(labelAngle=0))
    elif df.schema[x].is_integer():
        x_enc = alt.X(f"{x}:Q", title=x_title or x, axis=alt.Axis(format="d", tickMinStep=1))
    else:
        x_enc = alt.X(f"{x}:Q", title=x_title or x, axis=alt.Axis(format="~g"))
    tooltip = [
        alt.Tooltip(f"{x}:{x_type[0].upper()}", title=x_title or x),
        alt.Tooltip("hits:Q", title="hits"),
        alt.Tooltip("n:Q", title="opportunities"),
        alt.Tooltip("rate:Q", format=".1%"),
        alt.Tooltip("lo:Q", format=".1%", title="95% low"),
        alt.Tooltip("hi:Q", format=".1%", title="95% high"),
    ]
    if x_type == "quantitative" and df.height:
        # A curve joins only bins of SMALL_SAMPLE opportunities or more, next to each other: a
        # sparse bin (100% of 2) is a hollow point with its wide interval, and breaks the line.
        df = df.sort(x).with_columns(
            (pl.col("n") < SMALL_SAMPLE).cum_sum().alias("_segment"),
            (pl.col("n") >= SMALL_SAMPLE).alias("_dense"),
        )
    base = alt.Chart(df).encode(x=x_enc)
    y_scale = alt.Scale(domain=[0, 1])
    bars = base.mark_rule(color=colour, strokeWidth=2, opacity=0.6).encode(
        y=alt.Y("lo:Q", title=rate_title, axis=alt.Axis(format="%"), scale=y_scale),
        y2="hi:Q",
    )
    points = base.mark_point(filled=True, size=60, color=colour).encode(
        y=alt.Y("rate:Q", scale=y_scale), tooltip=tooltip
    )
    layers: list[alt.Chart] = [bars, points]
    if x_type == "quantitative":
        # The outline stays drawn: a sparse bin is a ring.
        points = (
            base.mark_point(filled=True, size=60, color=colour, stroke=colour, strokeWidth=1.5)
            .encode(y=alt.Y("rate:Q", scale=y_scale), tooltip=tooltip)
            .encode(fillOpacity=alt.condition("datum._dense", alt.value(1.0), alt.value(0.0)))
        )
        line = (
            base.transform_filter("datum._dense")
            .mark_line(color=colour, opacity=0.5)
            .encode(y="rate:Q", detail="_segment:N")
        )
        layers = [line, bars, points]
        counts = f"{counts}; hollow: fewer than {SMALL_SAMPLE}, not joined"
    return alt.layer(*layers).properties(title=_title(title, counts, hands), height=HEIGHT)


def series_rate_chart(
    df: pl.DataFrame,
    x: str,
    series: str,
    *,
    title: str,
    counts: str,
    hands: int,
    x_title: str | None = None,
    rate_title: str = "rate",
) -> alt.Chart:
    """Several rate curves over a numeric `x`, one per value of `series`, each with its Wilson
    band (e.g. trump length vs win rate for the banker team and for the attackers)."""
    base = alt.Chart(df).encode(
        x=alt.X(f"{x}:Q", title=x_title or x, axis=alt.Axis(format="~g")),
        color=_series_colour(df, series),
    )
    band = base.mark_area(opacity=0.18).encode(
        y=alt.Y(
            "lo:Q", title=rate_title, axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])
        ),
        y2="hi:Q",
    )
    line = base.mark_line(point=True).encode(
        y="rate:Q",
        tooltip=[
            alt.Tooltip(f"{series}:N"),
            alt.Tooltip(f"{x}:Q", title=x_title or x),
            alt.Tooltip("hits:Q"),
            alt.Tooltip("n:Q", title="opportunities"),
            alt.Tooltip("rate:Q", format=".1%"),
            alt.Tooltip("lo:Q", format=".1%", title="95% low"),
            alt.Tooltip("hi:Q", format=".1%", title="95% high"),
        ],
    )
    return alt.layer(band, line).properties(title=_title(title, counts, hands), height=HEIGHT)


def mean_chart(
    df: pl.DataFrame,
    x: str,
    y: str,
    *,
    title: str,
    counts: str,
    hands: int,
    x_title: str | None = None,
    y_title: str | None = None,
    series: str | None = None,
) -> alt.Chart:
    """A mean per `x` with its normal 95% interval (`{y}_lo`, `{y}_hi`) and sample size `n`."""
    x_type = _axis_type(df, x)
    enc: dict[str, object] = {
        "x": alt.X(f"{x}:{x_type[0].upper()}", title=x_title or x),
    }
    if series:
        enc["color"] = _series_colour(df, series)
    base = alt.Chart(df).encode(**enc)
    tooltip = [
        alt.Tooltip(f"{x}:{x_type[0].upper()}", title=x_title or x),
        alt.Tooltip(f"{y}:Q", format=".1f", title=y_title or y),
        alt.Tooltip("n:Q", title="hands"),
    ]
    if series:
        tooltip.insert(0, alt.Tooltip(f"{series}:N"))
    band = base.mark_area(opacity=0.18) if x_type == "quantitative" else base.mark_rule()
    interval = band.encode(y=alt.Y(f"{y}_lo:Q", title=y_title or y), y2=f"{y}_hi:Q")
    mark = base.mark_line(point=True) if x_type == "quantitative" else base.mark_point(filled=True)
    line = mark.encode(y=f"{y}:Q", tooltip=tooltip)
    if not series:
        interval = interval.encode(color=alt.value(NEUTRAL_COLOUR))
        line = line.encode(color=alt.value(NEUTRAL_COLOUR))
    return alt.layer(interval, line).properties(title=_title(title, counts, hands), height=HEIGHT)


def count_bars(
    df: pl.DataFrame,
    x: str,
    y: str = "n",
    *,
    title: str,
    counts: str,
    hands: int,
    x_title: str | None = None,
    y_title: str = "count",
    colour: str | None = None,
    horizontal: bool = False,
) -> alt.Chart:
    """Counts per category (`colour` may name a column to stack by)."""
    x_type = _axis_type(df, x)
    # Every category gets its label: angled rather than thinned out when they crowd.
    cat = alt.X(
        f"{x}:{x_type[0].upper()}",
        title=x_title or x,
        sort=None,
        axis=alt.Axis(labelAngle=-35 if df.height > 6 else 0, labelOverlap=False, labelLimit=160),
    )
    # Counts are whole numbers: no tick at 0.5.
    count_axis = alt.Axis(format="d", tickMinStep=1)
    val = alt.Y(f"{y}:Q", title=y_title, axis=count_axis)
    height = HEIGHT
    if horizontal:
        cat = alt.Y(
            f"{x}:N",
            title=x_title or x,
            sort="-x",
            axis=alt.Axis(labelOverlap=False, labelLimit=240),
        )
        val = alt.X(f"{y}:Q", title=y_title, axis=count_axis)
        height = max(HEIGHT, 22 * df.height)
    enc: dict[str, object] = {
        "x": val if horizontal else cat,
        "y": cat if horizontal else val,
        "tooltip": [alt.Tooltip(f"{x}"), alt.Tooltip(f"{y}:Q", title=y_title)],
    }
    if colour:
        enc["color"] = alt.Color(f"{colour}:N", title=colour)
    mark = alt.Chart(df).mark_bar() if colour else alt.Chart(df).mark_bar(color=NEUTRAL_COLOUR)
    return mark.encode(**enc).properties(title=_title(title, counts, hands), height=height)


def scatter_chart(
    df: pl.DataFrame,
    x: str,
    y: str,
    *,
    title: str,
    counts: str,
    hands: int,
    x_title: str | None = None,
    y_title: str | None = None,
    colour: str | None = None,
) -> alt.Chart:
    """Points of `y` against `x`, one per distinct pair, `n` in the tooltip (e.g. bottom points
    buried vs points added). No size channel: sized marks overflowed Streamlit's chart frame."""
    enc: dict[str, object] = {
        "x": alt.X(f"{x}:Q", title=x_title or x),
        "y": alt.Y(f"{y}:Q", title=y_title or y),
        "tooltip": [alt.Tooltip(f"{x}:Q"), alt.Tooltip(f"{y}:Q"), alt.Tooltip("n:Q")],
    }
    if colour:
        kind = "O" if df.schema[colour].is_numeric() else "N"
        enc["color"] = alt.Color(f"{colour}:{kind}", title=colour)
        enc["tooltip"] = [alt.Tooltip(f"{colour}:{kind}"), *enc["tooltip"]]  # type: ignore[misc]
    mark = alt.Chart(df).mark_circle(opacity=0.8, size=60)
    if not colour:
        mark = mark.encode(color=alt.value(ATTACKER_COLOUR))
    return mark.encode(**enc).properties(title=_title(title, counts, hands), height=HEIGHT)


def trend_chart(
    df: pl.DataFrame,
    x: str,
    y: str,
    *,
    title: str,
    counts: str,
    hands: int,
    series: str,
    y_title: str | None = None,
    percent: bool = False,
) -> alt.Chart | alt.LayerChart:
    """A value over time (`x` a date), one line per `series` (a player vs the field). A rate
    (`percent`, with `hits`, `lo`, `hi` columns) gets its 95% Wilson interval as a bar at each
    point, and its hits and opportunities in the tooltip."""
    y_axis = alt.Axis(format="%") if percent else alt.Axis()
    tooltip = [
        alt.Tooltip(f"{series}:N"),
        alt.Tooltip(f"{x}:T"),
        alt.Tooltip(f"{y}:Q", format=".1%" if percent else ".1f"),
        alt.Tooltip("n:Q", title="hands"),
    ]
    interval = percent and {"hits", "lo", "hi"} <= set(df.columns)
    if interval:
        tooltip[3:] = [
            alt.Tooltip("hits:Q", title="hits"),
            alt.Tooltip("n:Q", title="opportunities"),
            alt.Tooltip("lo:Q", format=".1%", title="95% low"),
            alt.Tooltip("hi:Q", format=".1%", title="95% high"),
        ]
    base = alt.Chart(df).encode(x=alt.X(f"{x}:T", title=None), color=_who_colour(df, series))
    line = base.mark_line(point=True).encode(
        y=alt.Y(f"{y}:Q", title=y_title or y, axis=y_axis), tooltip=tooltip
    )
    props = {"title": _title(title, counts, hands), "height": HEIGHT}
    if not interval:
        return line.properties(**props)
    bars = base.mark_rule(strokeWidth=2, opacity=0.45).encode(
        y=alt.Y("lo:Q", title=y_title or y, axis=y_axis), y2="hi:Q", tooltip=tooltip
    )
    return alt.layer(bars, line).properties(**props)


def deviation_chart(
    df: pl.DataFrame, *, title: str, counts: str, hands: int, label: str = "metric"
) -> alt.Chart:
    """A player's rates beside the field's, per metric: two points and their Wilson bars."""
    base = alt.Chart(df).encode(
        y=alt.Y(f"{label}:N", title=None, sort=None, axis=alt.Axis(labelLimit=320)),
        color=_who_colour(df, "who"),
        yOffset=alt.YOffset("who:N"),
    )
    bars = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("lo:Q", title="rate", axis=alt.Axis(format="%")), x2="hi:Q"
    )
    points = base.mark_point(filled=True, size=60).encode(
        x="rate:Q",
        tooltip=[
            alt.Tooltip(f"{label}:N"),
            alt.Tooltip("who:N"),
            alt.Tooltip("hits:Q"),
            alt.Tooltip("n:Q", title="opportunities"),
            alt.Tooltip("rate:Q", format=".1%"),
            alt.Tooltip("lo:Q", format=".1%", title="95% low"),
            alt.Tooltip("hi:Q", format=".1%", title="95% high"),
        ],
    )
    return alt.layer(bars, points).properties(title=_title(title, counts, hands))


def histogram(
    df: pl.DataFrame,
    start: str,
    width: float,
    *,
    title: str,
    counts: str,
    hands: int,
    x_title: str | None = None,
    y_title: str = "hands",
    colour: str | None = None,
) -> alt.Chart:
    """Counts `n` of bins that start at `start` and are `width` wide, drawn edge to edge."""
    data = df.with_columns((pl.col(start) + width).alias("_end"))
    if colour == "role":
        data = data.with_columns(
            pl.col("role").replace_strict(ROLE_NAMES, default=pl.col("role")).alias("role_label")
        )
    enc: dict[str, object] = {
        "x": alt.X(f"{start}:Q", bin=alt.Bin(binned=True, step=width), title=x_title or start),
        "x2": "_end:Q",
        "y": alt.Y("n:Q", title=y_title, stack=True),
        "tooltip": [alt.Tooltip(f"{start}:Q", title="from"), alt.Tooltip("n:Q", title=y_title)],
    }
    if colour:
        enc["color"] = _role_colour(df, colour) if colour == "role" else alt.Color(f"{colour}:N")
    mark = alt.Chart(data).mark_bar(binSpacing=1)
    if not colour:
        mark = mark.encode(color=alt.value(NEUTRAL_COLOUR))
    return mark.encode(**enc).properties(title=_title(title, counts, hands), height=HEIGHT)


KIND_COLOURS = {"throw": ATTACKER_COLOUR, "fourth seat": BANKER_COLOUR, "bury": "#009E73"}
"""The review's kinds of decision (in words, analytics.review_codes) in fixed colours."""
BAR_STEP = 28
"""Pixels per row of a horizontal bar chart: every label has its row, however many rows."""


def leak_bars(df: pl.DataFrame, *, who_title: str, hands: int) -> alt.Chart:
    """Points lost per seat-hand, one stacked bar per `who`, a segment per kind of decision.
    `df` has a row per who and kind: `who, kind` (the stored kind, for drilling down),
    `kind_label`, `lost` (per seat-hand), `points_lost`, `hands` (the who's seat-hands),
    `judged`, `mistakes` (of that kind) and `total` (the who's points lost per seat-hand, all
    kinds). Every row has its label (a row per `BAR_STEP` pixels), the most lost on top; the
    tooltip of a segment is that segment's who and kind."""
    labels = [k for k in KIND_COLOURS if df.height and k in set(df["kind_label"].to_list())]
    return (
        alt.Chart(df)
        .mark_bar()
        .encode(
            y=alt.Y(
                "who:N",
                title=who_title,
                sort=alt.EncodingSortField(field="total", op="max", order="descending"),
                axis=alt.Axis(labelOverlap=False, labelLimit=240),
            ),
            x=alt.X("lost:Q", title="points lost per seat-hand", stack="zero"),
            color=alt.Color(
                "kind_label:N",
                title="decision",
                scale=alt.Scale(domain=labels, range=[KIND_COLOURS[k] for k in labels]),
                sort=labels,
            ),
            order=alt.Order("kind_label:N", sort="ascending"),
            tooltip=[
                alt.Tooltip("who:N", title=who_title),
                alt.Tooltip("kind_label:N", title="decision"),
                alt.Tooltip("lost:Q", format=".2f", title="points lost per seat-hand"),
                alt.Tooltip("points_lost:Q", format=",.1f", title="points lost"),
                alt.Tooltip("hands:Q", format=",", title="seat-hands"),
                alt.Tooltip("mistakes:Q", format=",", title="mistakes"),
                alt.Tooltip("judged:Q", format=",", title="decisions judged"),
            ],
        )
        .properties(
            title=alt.TitleParams(
                "Where the points go",
                subtitle=[
                    "points lost per seat-hand, by kind of decision",
                    f"{hands:,} seat-hands · click a bar for its hands",
                ],
                anchor="start",
            ),
            height=alt.Step(BAR_STEP),
        )
    )
