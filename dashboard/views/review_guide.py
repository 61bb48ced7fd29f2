"""Review guide: what each of the review's verdicts means, from docs/review.md (its sections on
knowledge, severity and the codes), shown in the dashboard so a verdict's help is one click away
wherever the dashboard runs. `?code=fed_points` opens at that code's kind with its summary first."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from analytics import review_codes
from dashboard import ui
from shengji.coach.review import KIND

DOCS = Path(__file__).resolve().parents[2] / review_codes.DOCS_FILE


def _kind_of(title: str) -> str:
    """The kind a section's heading names (`… — kind `throw``)."""
    return title.rsplit("kind", 1)[-1].strip(" `") if "kind" in title else ""


st.title("Review guide")
code = st.query_params.get("code")
kind = KIND.get(code or "", code if code in review_codes.KIND_LABEL else None)
try:
    text = DOCS.read_text(encoding="utf-8")
except OSError:
    st.error(f"The review's documentation ({review_codes.DOCS_FILE}) is missing.")
    st.stop()

if code in KIND:
    st.info(
        f"**{review_codes.label(code)}** (`{code}`, a {review_codes.kind_label(KIND[code])} "
        f"decision): {review_codes.help_text(code)}",
        icon=":material/help:",
    )
elif code is not None and kind is None:
    st.warning(f"No review code {ui.md(code)}: the guide is shown whole.", icon=":material/help:")
st.caption(f"From {review_codes.DOCS_FILE}, the review's reference.")

# Only the parts a reader of a verdict needs: up to the store's internals.
body = text.split("\n## What the store keeps", 1)[0]
parts = body.split("\n## ")
for part in parts[1:]:
    heading, _, content = part.partition("\n")
    if heading.strip() != "Codes":
        with st.expander(heading.strip(), expanded=code is None):
            st.markdown(content)
        continue
    intro, *sections = content.split("\n### ")
    for section in sections:
        title, _, section_text = section.partition("\n")
        name = title.split(" — ")[0].strip()
        open_it = kind is None or name == review_codes.KIND_SECTION.get(kind)
        with st.expander(f"{name} — {review_codes.kind_label(_kind_of(title))}", expanded=open_it):
            st.markdown(section_text)
