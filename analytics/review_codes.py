"""The review's codes and kinds in words (docs/review.md): one label, one short help text and one
link to the guide for each, so every chart, table and panel names a verdict the same way.

The guide is the dashboard's own "Review guide" page (`GUIDE_PAGE`), which shows docs/review.md's
section for a code: a link that works wherever the dashboard runs, with nothing fetched from
outside it."""

from __future__ import annotations

from typing import Final

from shengji.coach.review import KIND

GUIDE_PAGE: Final = "review_guide"
"""The url path of the dashboard page that shows the review's documentation."""

DOCS_FILE: Final = "docs/review.md"

KIND_LABEL: Final[dict[str, str]] = {
    "throw": "throw",
    "last_seat": "fourth seat",
    "bury": "bury",
    "note": "note",
}
"""Every kind of decision (`shengji.coach.review.KIND`'s values) in words."""

KIND_HELP: Final[dict[str, str]] = {
    "throw": (
        "A lead of several components, judged by its odds of failing from the thrower's seat "
        "(the unseen cards dealt at random to the other seats)."
    ),
    "last_seat": (
        "The fourth player of a trick sees the whole trick: every legal play is checked for the "
        "one that wins it or gives the other team the fewest points."
    ),
    "bury": (
        "The banker's bury (or a fry by the banker's team): points buried against the fewest "
        "points any 8 cards of that hand could hold."
    ),
    "note": "Reported without blame; counts in no rate.",
}

KIND_SECTION: Final[dict[str, str]] = {
    "throw": "Throws (R4.3, from the thrower's seat)",
    "last_seat": "The fourth seat (R5, R6)",
    "bury": "The bury (R8.6, R8.7)",
    "note": "The fourth seat (R5, R6)",
}
"""The heading of docs/review.md's section on each kind (without its "— kind …" tail)."""

LABEL: Final[dict[str, str]] = {
    "throw_safe": "safe throw",
    "throw_possible": "throw worth the risk",
    "throw_risky": "risky throw",
    "throw_certain_fail": "throw sure to fail",
    "throw_skipped": "throw not judged",
    "fed_points": "fed points",
    "missed_points": "missed points",
    "lost_trick": "lost trick",
    "last_seat_ok": "sound fourth seat",
    "last_seat_skipped": "fourth seat not judged",
    "ruffed_partner": "ruffed partner",
    "bury_points": "points buried",
    "bury_ok": "sound bury",
}
"""Every review code in words."""

HELP: Final[dict[str, str]] = {
    "throw_safe": "No arrangement of the unseen cards beats a component of the throw. Cost 0.",
    "throw_possible": (
        "The throw may fail, but its expected loss is no more than its expected gain. Cost 0."
    ),
    "throw_risky": (
        "The throw may fail and its expected loss (failure odds × the forced component's points "
        "plus the penalty) exceeds its expected gain. Cost: loss − gain."
    ),
    "throw_certain_fail": (
        "From what the thrower could see, some seat surely beats a component. Cost: the forced "
        "component's points plus the penalty."
    ),
    "throw_skipped": (
        "The counts of the unseen cards do not add up (a flagged hand): not judged, counted in "
        "no rate."
    ),
    "fed_points": (
        "Fourth seat: the other team won the trick, no legal play could win it, and another play "
        "would have given it fewer points. Cost: the point difference."
    ),
    "missed_points": (
        "Fourth seat: the player's team won the trick, and another legal play would still have "
        "won it with more points. Cost: the point difference."
    ),
    "lost_trick": (
        "Fourth seat: the other team won the trick, and a legal play would have won it for the "
        "player's team. Cost: that play's points plus the points the other team took."
    ),
    "last_seat_ok": "Fourth seat: no legal play would have done better. Cost 0.",
    "last_seat_skipped": (
        "Fourth seat with more than 120 distinct legal plays: not judged, counted in no rate."
    ),
    "ruffed_partner": (
        "The partner was winning a side-suit trick after three plays and the player trumped it; "
        "taking the lead may be the point. A note, counted in no rate."
    ),
    "bury_points": (
        "More points buried than the fewest the hand allowed; flagged only when the bottom was "
        "captured. Cost: the excess × the capture multiplier."
    ),
    "bury_ok": "No more points buried than the fewest the hand allowed. Cost 0.",
}
"""One or two sentences per code, from docs/review.md's tables."""


def label(code: str) -> str:
    """A review code in words; an unknown code as it is."""
    return LABEL.get(code, code)


def kind_label(kind: str) -> str:
    """A kind of decision in words; an unknown kind as it is."""
    return KIND_LABEL.get(kind, kind)


def help_text(code: str) -> str:
    """What a code means and what it costs; "" for an unknown code."""
    return HELP.get(code, "")


def guide_url(code: str | None = None) -> str:
    """The dashboard's review guide, opened at a code (or a kind) when given: a link relative to
    the page it is on, so it works under any host and port."""
    return GUIDE_PAGE if code is None else f"{GUIDE_PAGE}?code={code}"


def guide_link(code: str | None = None, text: str = "review guide ↗") -> str:
    """A markdown link to the review guide (see `guide_url`)."""
    return f"[{text}]({guide_url(code)})"


def section(code: str) -> str:
    """The heading of docs/review.md's section on a code or a kind ("" when unknown)."""
    kind = KIND.get(code, code)
    return KIND_SECTION.get(kind, "")
