"""The suite's Hypothesis profile: no per-example deadline. Speed is measured by `make bench`,
never asserted by a test; on a loaded shared machine one example can take longer than any fixed
deadline, and Hypothesis would report that as a flaky failure."""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("suite", deadline=None)
settings.load_profile("suite")
