"""Four-deck Tractor (升级 · 四副牌) rules core: cards, rules, replay, audit, referee, simulator.

The hot modules run compiled with mypyc where a build of them exists (`shengji --version` says
which is running); the pure modules give the same results, only slower. An installed package
carries its compiled modules beside the sources (hatch_build.py compiles them when the wheel is
built, and leaves them out where no C compiler is found). A source checkout keeps them in
build/compiled/shengji (`make` builds them: bench/compiled.py); they go first on this package's
path only while they were built from the sources as they are now, by this Python, and never when
the environment sets SHENGJI_PURE. A stale or missing build means the pure modules.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
CHECKOUT_BUILD = _HERE.parent / "build" / "compiled"
"""Where a source checkout's compiled modules live (`shengji/` below it, and `build.json`)."""
BUILD_ENV = "SHENGJI_BUILD"
"""Another build directory to use instead of CHECKOUT_BUILD: how a new build is checked before it
replaces the old one (bench/compiled.py). It too is used only when current."""


def source_digest(package: Path = _HERE) -> str:
    """sha256 over the core's modules (`shengji/*.py`, with their names): what a compiled build
    was made from."""
    digest = hashlib.sha256()
    for path in sorted(package.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_is_current(build: Path = CHECKOUT_BUILD) -> bool:
    """`build` holds modules built from the sources as they are now, by this Python."""
    try:
        stamp = json.loads((build / "build.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(stamp.get("python") == sys.version and stamp.get("sources") == source_digest())


def _use_build() -> None:
    if os.environ.get("SHENGJI_PURE"):
        return
    build = Path(os.environ.get(BUILD_ENV) or CHECKOUT_BUILD)
    if build_is_current(build):
        __path__.insert(0, str(build / "shengji"))


_use_build()
