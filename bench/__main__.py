"""Run every benchmark section and write docs/benchmarks.md."""

from __future__ import annotations

import importlib
import os
import platform
import sys
import time
from pathlib import Path

from bench import SECTIONS


def main() -> int:
    only = set(sys.argv[1:])
    parts = [
        "# Benchmarks",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}. "
        "Figures are medians of repeated runs on a shared machine; compare ratios, not absolutes.",
        "",
    ]
    for name in SECTIONS:
        if only and name.rsplit(".", 1)[-1] not in only:
            continue
        print(f"bench: {name} …", flush=True)
        parts.append(importlib.import_module(name).main())
        parts.append("")
    out = Path("docs/benchmarks.md")
    out.write_text("\n".join(parts))
    print(f"bench: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
