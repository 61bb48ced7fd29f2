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
from collections.abc import Iterable
from pathlib import Path

_HERE = Path(__file__).resolve().parent
CHECKOUT_BUILD = _HERE.parent / "build" / "compiled"
"""Where a source checkout's compiled modules live (`shengji/` below it, and `build.json`)."""
BUILD_ENV = "SHENGJI_BUILD"
"""Another build directory to use instead of CHECKOUT_BUILD: how a new build is checked before it
replaces the old one (bench/compiled.py). It too is used only when current."""


def source_digest(package: Path = _HERE, files: Iterable[str] | None = None) -> str:
    """sha256 over core modules with their names: `files` of `package` (names like `cards.py`),
    or every `shengji/*.py`. What a compiled build was made from."""
    digest = hashlib.sha256()
    paths = sorted(package.glob("*.py")) if files is None else [package / f for f in sorted(files)]
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_is_current(build: Path = CHECKOUT_BUILD, package: Path = _HERE) -> bool:
    """`build` holds modules built from the sources as they are now, by this Python: the files
    its stamp lists (the compiled modules and the core modules they import) are unchanged."""
    try:
        stamp = json.loads((build / "build.json").read_text(encoding="utf-8"))
        sources = source_digest(package, stamp.get("files"))
    except (OSError, ValueError, TypeError):
        return False
    return bool(stamp.get("python") == sys.version and stamp.get("sources") == sources)


def _use_build() -> None:
    if os.environ.get("SHENGJI_PURE"):
        return
    build = Path(os.environ.get(BUILD_ENV) or CHECKOUT_BUILD)
    if build_is_current(build):
        __path__.insert(0, str(build / "shengji"))


_use_build()
