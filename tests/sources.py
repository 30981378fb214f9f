"""The parsed sources the structure scans share (tests/test_structure.py, tests/test_imports.py,
tests/harness/test_types.py, tests/harness/scenario/test_faults.py): each file is parsed and walked once a process,
not once a scan. A tree is keyed by its text, so a file a test rewrites is parsed again; nothing may change a tree."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

__all__ = ["nodes", "tree"]


def tree(path: Path) -> ast.Module:
    """The syntax tree of a source file."""
    return _parse(path.read_text(encoding="utf-8"), str(path))


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a source file's tree, in `ast.walk` order."""
    return _walk(tree(path))


@cache
def _parse(text: str, filename: str) -> ast.Module:
    return ast.parse(text, filename)


@cache
def _walk(module: ast.Module) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(module))
