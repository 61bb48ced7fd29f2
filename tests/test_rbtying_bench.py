"""bench/rbtying_server.py, the differential check against the rbtying/shengji server's rules code:
its source stripping, its case families and its reading of the harness's answers. (Building and
running the server's code needs a checkout of it and a Rust toolchain; tests/data/
rbtying_server_cases.jsonl holds what such a run judged, checked in tests/test_rbtying_server.py.)
"""

from __future__ import annotations

from bench.rbtying_server import FAMILIES, Case, cases, ours, parse_verdict, strip_source
from shengji.referee import judge

RUST = """use std::cmp::Ordering;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Format {
    #[serde(default)]
    units: Vec<usize>,
}

#[derive(Error, Clone, Debug)]
pub enum TrickError {
    #[error("error in hand {}", source)]
    HandError {
        #[from]
        source: HandError,
    },
}

crate::impl_slog_value!(Format);

impl slog::Value for Format {
    fn serialize(&self) -> slog::Result {
        { nested(); }
    }
}

lazy_static::lazy_static! {
    static ref CACHE: Mutex<HashMap<usize, Vec<usize>>> = Mutex::new(HashMap::new());
}

fn go() -> Result<(), Error> {
    Err(anyhow::anyhow!("Missing requested format bucket"))
}

#[cfg(test)]
mod tests {
    fn t() { { } }
}
"""


def test_stripping_keeps_the_rules_and_drops_what_needs_crates() -> None:
    got = strip_source(RUST.replace("fn go", "use anyhow::Error;\nfn go"))
    for gone in ("schemars", "serde", "thiserror", "slog", "lazy_static", "#[from]", "mod tests"):
        assert gone not in got, gone
    assert "#[derive(Debug, Clone, PartialEq)]\npub struct Format" in got
    assert "#[derive(Clone, Debug)]\npub enum TrickError" in got
    assert "static CACHE: std::sync::LazyLock<Mutex<HashMap<usize, Vec<usize>>>>" in got
    assert 'Err("Missing requested format bucket".to_string())' in got
    assert "type Error = String;" in got and "use std::cmp::Ordering;" in got


def test_every_family_makes_requests_the_referee_judges() -> None:
    made = cases(5, seed=3)
    assert {c.family for c in made} == set(FAMILIES) and len(made) == 5 * len(FAMILIES)
    for case in made:
        assert "error" not in judge({"rules": "rbtying", **case.request}).response, case


def test_the_harness_answers_read_as_the_referees_verdicts() -> None:
    case = Case(
        "forced",
        {
            "kind": "trick",
            "trump": "S",
            "level": "2",
            "hands": [
                "AS AS 2D 2D 2H 2H 2H 2H",
                "SJ SJ SJ SJ BJ BJ 3S 4S",
                "3C 4C 5C 6C",
                "3D 4D 5D 6D",
            ],
            "plays": ["AS AS 2D 2D 2H 2H 2H 2H", "SJ SJ BJ BJ", "3C 4C 5C 6C", "3D 4D 5D 6D"],
        },
    )
    line = "failed=1 forced=AS AS 2D 2D blocker=1 winner=1 illegal= units=AS AS 2D 2D"
    assert parse_verdict(case, line) == ours(case)
    lead = Case(
        "top", {"kind": "format", "trump": "S", "level": "2", "cards": "AS AS AS 2H 2H 2C 2C 2C"}
    )
    assert parse_verdict(lead, "AS;2C;2H 2H;AS AS 2C 2C") == ours(lead)
    assert parse_verdict(lead, "error IllegalPlay") == {"error": "error IllegalPlay"}
