"""The dashboard's script (`make demo` serves it through dashboard/serve.py). It only routes —
the page list, the global filters every page shares (drawn here so they survive page changes),
then the page.

The database is $SHENGJI_DB or data/tractor.duckdb, read through ingest's pointer (dashboard/db.py).

The page modules live in `views/`, not `pages/`: a `pages/` folder beside the entry point puts
Streamlit in its legacy multipage mode until the first `st.navigation` call of the process, and in
that mode a page requested by URL (a deep link right after start, every AppTest rerun) runs on its
own — without this file, so without the shared sidebar.
"""

from __future__ import annotations

import logging

import streamlit as st

from analytics import review_codes
from dashboard import sidebar, visits

log = logging.getLogger("dashboard")

# An emoji, not a Material icon: the browser draws it from the page itself, where a Material
# page icon is fetched as a picture from fonts.gstatic.com (nothing may leave this machine).
st.set_page_config(page_title="Tractor hand analytics", page_icon="🃏", layout="wide")

PAGES = {
    "Analytics": [
        st.Page("views/overview.py", title="Overview", icon=":material/dashboard:", default=True),
        st.Page("views/bottom.py", title="Bottom capture", icon=":material/savings:"),
        st.Page("views/throws.py", title="Throws", icon=":material/call_split:"),
        st.Page("views/trump_length.py", title="Trump length", icon=":material/straighten:"),
        st.Page("views/players.py", title="Players", icon=":material/groups:"),
        st.Page("views/coaching.py", title="Coaching", icon=":material/school:"),
        st.Page("views/leaks.py", title="My leaks", icon=":material/person_search:"),
        st.Page("views/explorer.py", title="Explorer", icon=":material/query_stats:"),
    ],
    "Hands": [
        st.Page("views/replay.py", title="Hand replay", icon=":material/replay:"),
        st.Page("views/hands.py", title="Hand finder", icon=":material/manage_search:"),
        st.Page("views/audit.py", title="Audit", icon=":material/fact_check:"),
        st.Page("views/import_files.py", title="Import", icon=":material/upload_file:"),
        st.Page(
            "views/review_guide.py",
            title="Review guide",
            icon=":material/help:",
            url_path=review_codes.GUIDE_PAGE,
        ),
    ],
}

# Every page listed: by default the sidebar folds all but ten under "View more".
page = st.navigation(PAGES, expanded=True)
visits.begin(page.url_path)
run = visits.hold_url()
try:
    sidebar.store(sidebar.render())
    page.run()
except Exception:
    # No traceback on the page (it names server paths, and a log's text may be in it): a short
    # message there, the whole traceback in the server's log. st.stop() and st.rerun() are not
    # Exceptions, so they pass through.
    log.exception("page %s failed", page.url_path or "overview")
    st.error(
        "Something went wrong on this page, and it cannot be shown. The error is in the "
        "dashboard's log; try other filters or another page.",
        icon=":material/error:",
    )
finally:
    visits.leave_url(run)
