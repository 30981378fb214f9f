"""Import hygiene: the core loads no framework and no mock, and function-level imports of callproof modules stay
few, each a commented start-up guard (issue #11 item 2). The floors' layering itself is `lint-imports`' job
([tool.importlinter] in pyproject.toml, run by `make lint`)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The source folders of the installed packages (pyproject.toml [tool.setuptools.package-dir]) that hold code.
PACKAGE_DIRS = ("harness", "mock_server", "reports")
#: What importing the core must not load: the web stack, the test and fuzzing frameworks, the mock.
HEAVY = ("httpx", "hypothesis", "pytest", "respx", "starlette", "uvicorn", "callproof.mock_server")

#: Upper bound on function-level imports of callproof modules in the package sources (issue #11: at most 6, each a
#: commented start-up guard: the fuzz and mock commands, the mock fixtures of the plugin, the harness's mock and
#: an --app IUT's in-process server). Never raise it.
MAX_FUNCTION_IMPORTS = 6
#: Upper bound on those of them without a comment on their line or the line before.
MAX_UNCOMMENTED = 0


def _loaded_after(module: str) -> list[str]:
    """The heavy packages (of HEAVY) a fresh interpreter holds after `import module`."""
    code = (
        "import json, sys\n"
        f"import {module}\n"
        f"heavy = {HEAVY!r}\n"
        "print(json.dumps(sorted(n for n in sys.modules if any(n == h or n.startswith(h + '.') for h in heavy))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    loaded: list[str] = json.loads(done.stdout)
    return sorted({heavy for heavy in HEAVY for name in loaded if name == heavy or name.startswith(heavy + ".")})


def test_import_harness_loads_no_framework_and_no_mock() -> None:
    assert _loaded_after("callproof.harness") == []


def test_import_reports_loads_no_framework_and_no_mock() -> None:
    assert _loaded_after("callproof.reports") == []


#: The core floors (pyproject.toml's `core-is-pure` contract), beside `callproof.harness` itself.
CORE = ("callproof.harness.capture", "callproof.harness.catalogue", "callproof.harness.check",
        "callproof.harness.judge", "callproof.harness.outcome", "callproof.harness.report_model",
        "callproof.harness.request", "callproof.harness.scenario")


def test_import_core_floors_loads_no_framework_and_no_mock() -> None:
    assert _loaded_after(", ".join(CORE)) == []


def function_level_imports(root: Path) -> list[tuple[str, int, str, bool]]:
    """(file, line, module, commented) of each import of a callproof module (absolute or relative) inside a function
    body of the package sources; `commented` when its line or the line before carries a `#` comment."""
    found: set[tuple[str, int, str, bool]] = set()
    for folder in PACKAGE_DIRS:
        for path in sorted((root / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            for function in ast.walk(ast.parse(text, str(path))):
                if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for node in ast.walk(function):
                    if isinstance(node, ast.Import):
                        modules = [alias.name for alias in node.names]
                    elif isinstance(node, ast.ImportFrom):
                        modules = ["." * node.level + (node.module or "")]
                    else:
                        continue
                    near = lines[max(node.lineno - 2, 0) : node.lineno]
                    commented = any("#" in line for line in near)
                    for module in modules:
                        if module == "callproof" or module.startswith(("callproof.", ".")):
                            found.add((path.relative_to(root).as_posix(), node.lineno, module, commented))
    return sorted(found)


def test_function_level_imports_are_few_and_commented() -> None:
    imports = function_level_imports(ROOT)
    listing = "\n".join(f"{file}:{line} {module}{'' if commented else '  (no comment)'}"
                        for file, line, module, commented in imports)
    assert len(imports) <= MAX_FUNCTION_IMPORTS, f"{len(imports)} function-level imports:\n{listing}"
    uncommented = [i for i in imports if not i[3]]
    assert len(uncommented) <= MAX_UNCOMMENTED, f"{len(uncommented)} without a comment:\n{listing}"


def test_the_scan_finds_nested_relative_and_commented_imports(tmp_path: Path) -> None:
    """The scan itself: what counts (nested functions, relative, `import callproof`) and what does not (module level,
    other packages), and which are commented."""
    source = tmp_path / "harness"
    source.mkdir()
    (source / "m.py").write_text(
        "from callproof.harness import check\n"
        "def f():\n"
        "    import json\n"
        "    # start-up guard\n"
        "    from callproof.mock_server import MockServer\n"
        "    def g():\n"
        "        from ._x import y  # lazy\n"
        "        x = 1\n"
        "        import callproof\n"
        "    return g\n",
        encoding="utf-8",
    )
    assert function_level_imports(tmp_path) == [
        ("harness/m.py", 5, "callproof.mock_server", True),
        ("harness/m.py", 7, "._x", True),
        ("harness/m.py", 9, "callproof", False),
    ]
