"""The Hand replay's table as a Streamlit custom component (components v2): HTML, CSS and JS
inline from `dashboard/assets/`, committed in the repository — no build step, no network.

The page hands it one JSON value (`analytics.handview.replay_payload`) and the position to open
at; the component steps play by play in the browser (keys, buttons, autoplay), keeps the URL's
`trick` and `play` in step, and reports the position back as its `position` state once stepping
pauses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

ASSETS = Path(__file__).resolve().parent / "assets"
NAME = "tractor_replayer"

_mount = st.components.v2.component(
    NAME,
    css=(ASSETS / "replayer.css").read_text(encoding="utf-8"),
    js=(ASSETS / "replayer.js").read_text(encoding="utf-8"),
)


def replayer(payload: dict[str, Any], start: dict[str, Any], key: str, on_change: Any) -> Any:
    """Mount the replayer; returns the component's result (its `position` state, if any)."""
    return _mount(
        key=key,
        data={**payload, "start": start},
        default={"position": None},
        on_position_change=on_change,
        height="content",
    )
