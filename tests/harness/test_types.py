"""Typed values end to end (harness/_types.py): no annotation in the packages is a bare `Any` (a decoded JSON value
is a `JSONValue`, or a `JSONData` where it is read defensively), and no internal signature defaults a dialect, so a
forgotten one is a type error rather than a silent Responses; only the documented entry points keep the default."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests import sources

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("harness", "mock_server", "reports")

#: The bare `Any` left, and why: the option table forwards its keyword arguments to `Option` as they are.
#: Arguments forwarded untouched to a typed callee (an `Option`, argparse's parser), the only bare `Any` left.
BARE_ANY = {"harness/_options.py:_option.kw", "harness/cli/__init__.py:_Parser.__init__.args",
            "harness/cli/__init__.py:_Parser.__init__.kwargs"}

#: The dialect defaults kept: the public API of callproof.harness (`check_*`, `StreamChecker`: README "From Python
#: without pytest") and the pytest plugin's `callproof_check` (README), the run options' own defaults (`--front`,
#: `--upstream-dialect`, `--client-dialect`: docs/cli.md), the report model's `Case` (docs/report.md), and each
#: renderer's own dialect (a class constant).
DIALECT_DEFAULTS = {
    "harness/check/_check.py:StreamChecker.__init__.front",
    "harness/check/_check.py:check_body.front",
    "harness/check/_check.py:check_bytes.front",
    "harness/check/_check.py:check_events.front",
    "harness/plugin/_assertions.py:StreamAssertion.__call__.front",
    "harness/report_model/_model.py:Case.front",
    "harness/run/_config.py:RunConfig.client_dialect",
    "harness/run/_config.py:RunConfig.front",
    "harness/run/_config.py:RunConfig.upstream_dialect",
    "mock_server/dialects/_anthropic.py:AnthropicRenderer.dialect",
    "mock_server/dialects/_chat.py:ChatRenderer.dialect",
    "mock_server/dialects/_responses.py:ResponsesRenderer.dialect",
}


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), sources.tree(path)


def _named(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.AST]]:
    """(qualified name, node) of every function and class, nested ones included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield prefix + node.name, node
            yield from _named(node, f"{prefix}{node.name}.")


def _is(annotation: ast.expr | None, name: str) -> bool:
    return (isinstance(annotation, ast.Name) and annotation.id == name) or (
        isinstance(annotation, ast.Attribute) and annotation.attr == name)


def _arguments(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[ast.arg, ast.expr | None]]:
    """Each parameter with its default (None: none)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    yield from zip(positional, defaults, strict=True)
    yield from zip(args.kwonlyargs, args.kw_defaults, strict=True)
    for rest in (args.vararg, args.kwarg):
        if rest is not None:
            yield rest, None


def test_no_annotation_is_a_bare_any() -> None:
    found = set()
    for module, tree in _modules():
        for name, node in _named(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found |= {f"{module}:{name}.{arg.arg}" for arg, _ in _arguments(node) if _is(arg.annotation, "Any")}
                if _is(node.returns, "Any"):
                    found.add(f"{module}:{name}")
        found |= {f"{module}:{ast.unparse(n.target)}" for n in ast.walk(tree)
                  if isinstance(n, ast.AnnAssign) and _is(n.annotation, "Any")}
    assert found == BARE_ANY, "annotate a decoded JSON value as JSONValue or JSONData (harness/_types.py)"


def test_only_the_documented_entry_points_default_a_dialect() -> None:
    found = set()
    for module, tree in _modules():
        for name, node in _named(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found |= {f"{module}:{name}.{arg.arg}" for arg, default in _arguments(node)
                          if default is not None and _is(arg.annotation, "Dialect")}
            elif isinstance(node, ast.ClassDef):
                found |= {f"{module}:{name}.{ast.unparse(n.target)}" for n in node.body
                          if isinstance(n, ast.AnnAssign) and n.value is not None and _is(n.annotation, "Dialect")}
    assert found == DIALECT_DEFAULTS, "pass the dialect explicitly: an internal signature has no default for it"
