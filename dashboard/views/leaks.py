"""My leaks: one player's accuracy per kind of decision, their costliest decisions and the trend
over time, each with its counts and 95% Wilson intervals. `?player=NAME` opens a player."""

from __future__ import annotations

import streamlit as st

st.title("My leaks")
