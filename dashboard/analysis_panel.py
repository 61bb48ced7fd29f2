"""Hand replay's computer analysis (docs/analysis.md, "In the dashboard"): the "Analyse this hand"
action, its progress, and the stored result — the evaluation graph (a click on a decision moves
the table there) and, per decision, the best alternative and its expected gain.

The analysis runs as a job of its own (dashboard/analysis_job.py); this section only polls its
status in a fragment, so the page stays usable while it runs. When the job has stored its result
the store has a new version, and the page's next run reads it.

Stored strings reach the page through dataframes (text, never markup) or `ui.md`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from analytics import analysed
from dashboard import analysis_job, db, ui
from dashboard.review_panel import pretty
from ingest.lake import is_lake
from shengji.coach.analysis import ENGINE

JOBS = "an_jobs"
"""Session state: the analysis job of each hand this session started, by `source\\0hand_id`."""
RUNNING = ("starting", "running")
VERDICT = {"ok": "not flagged", **{s: s for s in analysed.SEVERITIES}}


def _job_key(source: str, hand_id: str) -> str:
    return f"{source}\0{hand_id}"


def _start(source: str, hand_id: str) -> None:
    folder = analysis_job.start(db.db_path(), source, hand_id)
    st.session_state.setdefault(JOBS, {})[_job_key(source, hand_id)] = str(folder)


@st.fragment(run_every=1.0)
def _progress(folder: Path) -> None:
    """The running analysis's progress, polled every second without rerunning the page."""
    status = analysis_job.status(folder)
    if status.get("state") not in RUNNING:
        st.rerun()  # finished: the whole page reads the new version and shows the result
    done, total = int(status.get("done", 0)), int(status.get("total", 0))
    if status.get("storing"):
        text = f"Storing the analysis of {total:,} decisions…"
    elif total:
        text = (
            f"Analysing: {done:,} of {total:,} decisions "
            f"({float(status.get('seconds', 0.0)):.0f} s so far)"
        )
    else:
        text = "Starting the analysis…"
    st.progress(min(done / total, 1.0) if total else 0.0, text=text)
    if st.button("Cancel the analysis", key="an_cancel"):
        analysis_job.cancel(folder)
        st.rerun()


def _gain(r: dict[str, Any]) -> str:
    """The expected gain of the best alternative over the play made, in words that say what it
    counts."""
    if not r["judged"]:
        return "not judged: " + (r["note"] or "nothing to compare")
    n = f"{r['worlds']} world" + ("s" if r["worlds"] != 1 else "")
    if r["best"] is None:
        return f"best of {r['candidates']} considered ({n})"
    return f"{r['loss']:.1f} ± {r['loss_se']:.1f} points ({n})"


def decision_rows(df: pl.DataFrame) -> pl.DataFrame:
    """The decisions as the page lists them: `decision`, `trick`, `player`, `kind`, `verdict`,
    `play`, `best alternative`, `expected gain` and `expected attackers' total` (blank when not
    judged) — cards drawn as the table draws them."""
    rows = []
    for r in df.iter_rows(named=True):
        judged = bool(r["judged"])
        rows.append(
            {
                "decision": int(r["number"]),
                "trick": int(r["trick"]),
                "player": r["player"] if r["player"] is not None else f"seat {r['seat']}",
                "kind": r["kind"],
                "verdict": (
                    VERDICT.get(r["severity"], r["severity"]) if r["flagged"] else "not flagged"
                )
                if judged
                else "not judged",
                "play": pretty(r["play"]) or "",
                "best alternative": (
                    (pretty(r["best"]) or "")
                    if r["best"] is not None
                    else "the play made"
                    if judged
                    else "—"
                ),
                "expected gain": _gain(r),
                "expected attackers' total": float(r["attackers"]) if judged else None,
            }
        )
    return pl.DataFrame(
        rows,
        schema={
            "decision": pl.Int64,
            "trick": pl.Int64,
            "player": pl.String,
            "kind": pl.String,
            "verdict": pl.String,
            "play": pl.String,
            "best alternative": pl.String,
            "expected gain": pl.String,
            "expected attackers' total": pl.Float64,
        },
    )


_CONFIG = {
    "verdict": st.column_config.TextColumn(
        "verdict",
        help="flagged when the expected loss is at least 5 points and beyond two "
        "standard errors; severities as the review's",
    ),
    "best alternative": st.column_config.TextColumn(
        "best alternative", help="the best of the candidates considered, when not the play made"
    ),
    "expected gain": st.column_config.TextColumn(
        "expected gain",
        help="expected points (the actor's side) the best alternative gains over the play made, "
        "± its standard error, over the worlds (deals of the unseen cards) it rests on",
    ),
    "expected attackers' total": st.column_config.NumberColumn(
        "expected attackers' total",
        format="%.1f",
        help="the attackers' expected final total after the play made (the graph's point)",
    ),
}


def _table(df: pl.DataFrame, key: str) -> None:
    ui.table(decision_rows(df), key=key, column_config=_CONFIG)


def _jump(decisions: pl.DataFrame, number: int, on_jump: Any) -> None:
    row = decisions.filter(pl.col("number") == number)
    if row.height:
        r = row.row(0, named=True)
        if int(r["trick"]) < 1:
            # The bury (decision 0) is made before trick 1: the table before its lead.
            on_jump(1, 0)
        else:
            on_jump(int(r["trick"]), int(r["position"]) if r["position"] is not None else None)


def hand_analysis(
    k: db.Key,
    source: str,
    hand_id: str,
    shown_trick: int | None,
    on_jump: Any,
    final: float | None = None,
) -> None:
    """The section: the action (or the running job's progress), then the stored analysis.
    `on_jump(trick, play)` moves the table to a decision (then reruns the page); `final`, the
    hand's actual attackers' total, is drawn on the graph for comparison."""
    st.markdown("**Computer analysis**")
    if is_lake(db.db_path()):
        st.caption(
            "Computer analysis is kept in a DuckDB store: analyse a hand of this lake with "
            "`shengji analyse FILE --hand ID`."
        )
        return
    jobs: dict[str, str] = st.session_state.setdefault(JOBS, {})
    folder = jobs.get(_job_key(source, hand_id))
    status = analysis_job.status(Path(folder)) if folder else {}
    if status.get("state") in RUNNING:
        _progress(Path(folder))  # type: ignore[arg-type]
        return
    if status.get("state") in ("error", "failed"):
        st.error(f"The analysis could not finish: {ui.md(status.get('message', ''))}")
    elif status.get("state") == "cancelled":
        st.info("Analysis cancelled: nothing was stored.")
    state = db.query_plain("analysed.hand_state", k, source, hand_id, ENGINE)
    if state["state"] != "ok":
        why = {
            "none": "This hand has not been analysed yet.",
            "engine": (
                f"This hand was analysed by another version of the engine "
                f"({ui.md(state.get('stored_engine'))}; this one is {ui.md(ENGINE)}): "
                "analyse it again to see its figures."
            ),
            "changed": "The hand has changed since it was analysed: analyse it again.",
        }[state["state"]]
        st.caption(
            why
            + " The analysis plays the hand out many times from the bury and each lead and follow "
            "(docs/analysis.md); it runs in the background, about a minute a hand, and the page "
            "stays usable meanwhile."
        )
        # One analysis at a time from a session: the machine's other core stays the server's.
        other = next(
            (
                key.split("\0", 1)[1]
                for key, job in jobs.items()
                if key != _job_key(source, hand_id) and analysis_job.running(Path(job))
            ),
            None,
        )
        st.button(
            "Analyse this hand",
            key="an_start",
            type="primary",
            on_click=_start,
            args=(source, hand_id),
            disabled=other is not None,
            help="Judge the bury and every lead and follow by its expected effect on the hand's result.",
        )
        if other is not None:
            st.caption(
                f"The analysis of hand {ui.md(other)} is still running: one hand at a time "
                "(its progress shows on that hand)."
            )
        return
    decisions: pl.DataFrame = db.query_plain("analysed.hand_decisions", k, source, hand_id, ENGINE)
    if not decisions.height:
        st.caption("The stored analysis holds no decision of this hand.")
        return
    judged, flagged = state["judged"], state["flagged"]
    try:
        most = int(json.loads(state["settings"])["worlds"])
        looked = f", at most {most} worlds a decision"
    except (ValueError, KeyError, TypeError):
        looked = ""
    partial = "" if state["complete"] else " The run was cut short: later decisions are missing."
    st.caption(
        f"{state['decisions']:,} decisions analysed ({ENGINE}{looked}), {judged:,} judged (the rest had "
        f"one distinct play), {flagged:,} flagged. Each figure is the mean over the worlds "
        f"(deals of the cards the player could not see) it names; the rollouts play on as the "
        f"careful bot would, so the figures are as strong as that bot.{partial}"
    )
    graph = analysed.graph_data(decisions)
    if graph.height:
        generation_key = "an_graph_gen"
        generation = st.session_state.get(generation_key, 0)
        event = st.altair_chart(
            ui.served(ui.pickable(analysed.evaluation_chart(graph, final), ["number"])),
            width="stretch",
            key=f"an_graph_{generation}",
            on_select="rerun",
            selection_mode="pick",
        )
        st.caption(
            "Click a decision to show it on the table above. Larger marks: flagged decisions "
            "(inaccuracy, mistake, blunder)."
            + (" Dashed: the hand's actual final total." if final is not None else "")
        )
        picked = (event.get("selection") or {}).get("pick") or []
        if picked and picked[0].get("number") is not None:
            # A fresh chart next run: clicking the same decision again is a change again.
            st.session_state[generation_key] = generation + 1
            _jump(decisions, int(picked[0]["number"]), on_jump)
    if shown_trick is not None:
        here = decisions.filter(pl.col("trick") == shown_trick)
        st.markdown(f"Analysis of trick {shown_trick}")
        if here.height:
            _table(here, key=f"an_trick_{shown_trick}")
        else:
            st.caption("No decision of this trick was analysed.")
    worst = decisions.filter(pl.col("flagged")).sort("loss", descending=True)
    with st.expander(f"Flagged decisions of the hand ({worst.height:,})", expanded=False):
        if worst.height:
            _table(worst, key="an_flagged")
        else:
            st.caption("No decision was flagged: none lost 5 points or more beyond its error.")
    with st.expander(f"Every analysed decision ({decisions.height:,})", expanded=False):
        _table(decisions, key="an_all")
