"""The review's codes in words: every code and kind named, helped and linked to its section."""

from __future__ import annotations

from pathlib import Path

from analytics import review_codes
from shengji.coach.review import KIND

DOCS = Path(__file__).resolve().parent.parent / "docs" / "review.md"


def test_every_code_and_kind_has_a_label_and_help() -> None:
    assert set(review_codes.LABEL) == set(KIND)
    assert set(review_codes.HELP) == set(KIND)
    assert set(KIND.values()) <= set(review_codes.KIND_LABEL)
    assert set(KIND.values()) <= set(review_codes.KIND_HELP)
    labels = list(review_codes.LABEL.values())
    assert len(set(labels)) == len(labels), "two codes share a label"
    assert review_codes.kind_label("last_seat") == "fourth seat"


def test_every_code_is_in_the_docs_and_its_section_exists() -> None:
    text = DOCS.read_text(encoding="utf-8")
    headings = [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]
    for code in KIND:
        assert f"`{code}`" in text, code
        assert any(h.startswith(review_codes.section(code)) for h in headings), code


def test_guide_links_are_relative_and_name_the_code() -> None:
    assert review_codes.guide_url("fed_points") == "review_guide?code=fed_points"
    assert review_codes.guide_link("fed_points").endswith("(review_guide?code=fed_points)")
    assert review_codes.label("unknown_code") == "unknown_code"
