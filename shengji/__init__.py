"""Four-deck Tractor (升级 · 四副牌) rules core: cards, rules, replay, audit, referee, simulator.

The hot modules run compiled with mypyc where a build of them exists (`shengji --version` says
which is running); the pure modules give the same results, only slower. An installed package
carries its compiled modules beside the sources (hatch_build.py compiles them when the wheel is
built, and leaves them out where no C compiler is found). A source checkout keeps them in
build/compiled/shengji (`make` builds them: bench/compiled.py); they go first on this package's
path (and on its subpackages' `sim` and `sim/bots`, through `use_build`) only while they were
built from the sources as they are now, by this Python, and never when the environment sets
SHENGJI_PURE. A stale or missing build means the pure modules.
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
    """sha256 over core modules with their paths: `files` of `package` (like `cards.py` or
    `sim/table.py`), or every `shengji/*.py`. What a compiled build was made from."""
    digest = hashlib.sha256()
    names = sorted(p.name for p in package.glob("*.py")) if files is None else sorted(files)
    for name in names:
        digest.update(name.encode() + b"\0" + (package / name).read_bytes() + b"\0")
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


def _chosen_build() -> Path | None:
    if os.environ.get("SHENGJI_PURE"):
        return None
    build = Path(os.environ.get(BUILD_ENV) or CHECKOUT_BUILD)
    return build / "shengji" if build_is_current(build) else None


_BUILD = _chosen_build()
"""The compiled modules this process uses (the build's `shengji/`), or None: the pure ones."""


def use_build(path: list[str], package: str) -> None:
    """Put the build's directory of subpackage `package` (like `sim/bots`) first on its `path`
    (the subpackage's `__path__`) when this process uses a build: the subpackage's compiled
    modules come from the same build as the package's, or none do."""
    if _BUILD is not None and (_BUILD / package).is_dir():
        path.insert(0, str(_BUILD / package))


if _BUILD is not None:
    __path__.insert(0, str(_BUILD))
