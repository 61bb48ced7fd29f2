"""Run benchmark sections and write docs/benchmarks.md.

`python -m bench` runs every section; `python -m bench replay ingest` runs those two and replaces
only their sections in the report, keeping the others as they were measured. Each section is
stamped with when it ran and the machine's load average before and after, so figures measured
at different times are never mistaken for one side-by-side run.
"""

from __future__ import annotations

import fcntl
import importlib
import os
import platform
import re
import sys
import time
from pathlib import Path

from bench import SECTIONS

REPORT = Path("docs/benchmarks.md")
MARK = re.compile(r"^<!-- section: ([a-z_]+) -->$", re.MULTILINE)


def _header() -> str:
    return (
        "# Benchmarks\n\n"
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}. Figures are medians of repeated runs on a shared machine; "
        "compare ratios measured in the same section, not absolutes across sections. Each section "
        "says when it ran and the load average (1 min) before and after it.\n"
    )


def split_report(text: str) -> dict[str, str]:
    """The report's sections by name, each with its marker line."""
    marks = list(MARK.finditer(text))
    out: dict[str, str] = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        block = text[m.start() : end]
        # A section holds one `## ` heading: an unmarked section after it (from a report written
        # before the markers) is not its text, and is dropped until its own section runs again.
        heading = block.find("\n## ")
        if heading >= 0:
            later = block.find("\n## ", heading + 1)
            if later >= 0:
                block = block[:later]
        out[m.group(1)] = block.rstrip() + "\n"
    return out


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def run_section(module: str) -> str:
    short = module.rsplit(".", 1)[-1]
    before = _load()
    started = time.time()
    body = importlib.import_module(module).main().rstrip()
    took = time.time() - started
    stamp = (
        f"*Ran {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))}, "
        f"{took:.0f} s; load average {before:.1f} before, {_load():.1f} after.*"
    )
    lines = body.split("\n")
    # The stamp goes right under the section's heading.
    head, rest = (lines[0], lines[1:]) if lines and lines[0].startswith("#") else ("", lines)
    parts = [f"<!-- section: {short} -->"]
    if head:
        parts += [head, "", stamp]
    else:
        parts += [stamp]
    parts += rest
    return "\n".join(parts).rstrip() + "\n"


def compose(sections: dict[str, str]) -> str:
    order = [m.rsplit(".", 1)[-1] for m in SECTIONS]
    kept = [sections[name] for name in order if name in sections]
    return _header() + "\n" + "\n".join(kept)


def store_section(report: Path, short: str, text: str) -> None:
    """Put one section into the report as the file is now, under a lock: two benchmark runs at
    once (a long one and a short one beside it) each replace only their own section. Read at the
    start of a run instead, a run wrote back its stale copy of every section another run had
    replaced meanwhile."""
    with report.with_name(f".{report.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        sections = split_report(report.read_text()) if report.exists() else {}
        sections[short] = text
        tmp = report.with_name(f".{report.name}.tmp")
        tmp.write_text(compose(sections))
        tmp.replace(report)


def main() -> int:
    names = {m.rsplit(".", 1)[-1]: m for m in SECTIONS}
    only = sys.argv[1:]
    unknown = [n for n in only if n not in names]
    if unknown:
        print(f"bench: unknown section(s) {', '.join(unknown)}; known: {', '.join(names)}")
        return 2
    # Sections not run this time keep their last measured figures, stamped with when they ran.
    for short, module in names.items():
        if only and short not in only:
            continue
        print(f"bench: {module} …", flush=True)
        # Written after every section: a long run cut off keeps what it measured.
        store_section(REPORT, short, run_section(module))
    print(f"bench: wrote {REPORT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
