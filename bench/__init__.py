"""Benchmarks (`make bench`): each module listed in `SECTIONS` has `main() -> str`, a Markdown
section of measured figures (medians of several runs); the report lands in docs/benchmarks.md."""

SECTIONS: tuple[str, ...] = (
    "bench.rules",
    "bench.follow_worst",
    "bench.replay",
    "bench.review",
    "bench.peers",
    "bench.ingest",
    "bench.import_logs",
    "bench.ingest_memory",
    "bench.ray_lake",
    "bench.campaign",
    "bench.queries",
    "bench.simulate",
    "bench.analysis",
    "bench.serving",
)
