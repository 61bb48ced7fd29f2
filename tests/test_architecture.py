"""The rules core is pure: standard library only, none of our other packages (DEVELOPERS.md)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "shengji"


COMPILER_ONLY = {"mypy_extensions"}
"""Read by mypyc when it compiles a module (`mypyc_attr`); imported only inside a `try` whose
`except ImportError` defines the stand-in, so the package runs on the standard library alone."""


def _optional(tree: ast.AST) -> set[int]:
    """The ids of imports of COMPILER_ONLY modules inside a `try` that catches ImportError."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        caught = {ast.unparse(h.type) for h in node.handlers if h.type is not None}
        if "ImportError" not in caught:
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom) and (stmt.module or "") in COMPILER_ONLY:
                found.add(id(stmt))
    return found


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    optional = _optional(tree)
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"shengji", "__future__"}
    offenders = {
        str(path.relative_to(CORE.parent)): sorted(_imported_roots(path) - allowed)
        for path in CORE.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(offenders) >= 5


def test_a_compiler_only_import_counts_unless_it_falls_back(tmp_path: Path) -> None:
    guarded = tmp_path / "guarded.py"
    guarded.write_text(
        "try:\n    from mypy_extensions import mypyc_attr\nexcept ImportError:\n    pass\n"
    )
    bare = tmp_path / "bare.py"
    bare.write_text("from mypy_extensions import mypyc_attr\n")
    assert _imported_roots(guarded) == set()
    assert _imported_roots(bare) == {"mypy_extensions"}
