"""Import hygiene: the core loads no framework and no mock, function-level imports of callproof modules stay few,
each a commented start-up guard (issue #11 item 2), and packages meet at public seams: no module imports another
package's private module or name, nor its own package's `__init__` (issue #24 item 5). The floors' layering itself is
`lint-imports`' job ([tool.importlinter] in pyproject.toml, run by `make lint`)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from tests.sources import nodes

ROOT = Path(__file__).resolve().parents[1]
#: The source folders of the installed packages (pyproject.toml [tool.setuptools.package-dir]) that hold code, and
#: the package each one is.
PACKAGES = {"harness": "callproof.harness", "mock_server": "callproof.mock_server", "reports": "callproof.reports"}
PACKAGE_DIRS = tuple(PACKAGES)
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
        "callproof.harness.request", "callproof.harness.scenario", "callproof.harness.transports")


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
            for function in nodes(path):
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


def _names(root: Path, path: Path) -> tuple[str, str]:
    """(module, package) of a package source file: harness/check/_sse.py is callproof.harness.check._sse in
    callproof.harness.check; an `__init__.py` is its package."""
    parts = path.relative_to(root).with_suffix("").parts
    names = [PACKAGES[parts[0]], *parts[1:]]
    if names[-1] == "__init__":
        names.pop()
        return ".".join(names), ".".join(names)
    return ".".join(names), ".".join(names[:-1])


def private_owner(target: str) -> str | None:
    """The package a dotted name is private to (callproof.x._m.y -> callproof.x), or None when it is public."""
    parts = target.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:index])
    return None


def seam_violations(root: Path) -> list[str]:
    """Each import in the package sources (module level or in a function) of a private module or name of another
    package (`callproof.x._m` or `from callproof.x import _n` outside callproof.x), and each import of a module's own
    package `__init__` (`from callproof.x import N` or `from . import N` in callproof.x.m, N no submodule; a
    package's `__main__`, run by `python -m` once its package is imported, may take its entry point from it)."""
    found: list[str] = []
    for folder in PACKAGES:
        for path in sorted((root / folder).rglob("*.py")):
            module, package = _names(root, path)
            where = f"{path.relative_to(root).as_posix()}"
            for node in nodes(path):
                if isinstance(node, ast.Import):
                    sources = [alias.name for alias in node.names]
                    targets = list(sources)
                    names: list[str] = []
                elif isinstance(node, ast.ImportFrom):
                    if node.level:
                        base = package.split(".")[: len(package.split(".")) - node.level + 1]
                        sources = [".".join([*base, *([node.module] if node.module else [])])]
                    else:
                        sources = [node.module or ""]
                    names = [alias.name for alias in node.names]
                    targets = [sources[0], *(f"{sources[0]}.{name}" for name in names)]
                else:
                    continue
                for target in targets:  # one finding a statement: its module when private, else its first name
                    owner = private_owner(target) if target.startswith("callproof.") else None
                    if owner is not None and module != owner and not module.startswith(owner + "."):
                        found.append(f"{where}:{node.lineno}: imports {target}, private to {owner}: export the "
                                     f"name from {owner} (its __all__) and import it from there")
                        break
                if module == package or path.name == "__main__.py" or package not in sources:
                    continue
                defined = [n for n in names if not ((path.parent / f"{n}.py").exists() or (path.parent / n).is_dir())]
                if isinstance(node, ast.Import) or defined:
                    found.append(f"{where}:{node.lineno}: imports its own package {package} (its __init__): import "
                                 "the name from the module of the package that defines it")
    return found


def test_packages_meet_at_public_seams() -> None:
    violations = seam_violations(ROOT)
    assert violations == [], "\n".join(violations)


def test_the_seam_scan_finds_planted_violations(tmp_path: Path) -> None:
    """The scan itself, over a small synthetic tree: what counts (another package's private module or name, absolute,
    relative or in a function; the own package's __init__, absolute, relative or `import`) and what does not (a
    package's own private modules, an ancestor's, a submodule by name, a package's __main__)."""
    files = {
        "harness/__init__.py": "from .check._sse import P\nfrom ._types import T\n",  # callproof.harness
        "harness/_types.py": "T = int\n",
        "harness/__main__.py": "from . import main\n",
        "harness/check/__init__.py": "from ._sse import P\n",
        "harness/check/_sse.py": "from callproof.harness._types import T\nfrom ._lines import L\nP = 1\n",
        "harness/check/_lines.py": "from . import _sse\nfrom callproof.harness.check import _sse as s\nL = 1\n",
        "harness/judge/_rules.py": (
            "from callproof.harness.check import P\n"
            "from callproof.harness.check._sse import P as Q\n"
            "from ..check import _lines\n"
            "from callproof.harness.judge import R\n"
            "from . import S\n"
            "import callproof.harness.judge\n"
            "def f():\n"
            "    from callproof.mock_server._pytest import start\n"
        ),
        "mock_server/__init__.py": "",
        "mock_server/_pytest.py": "from callproof.harness import T\nfrom callproof.harness._types import T as U\n",
        "reports/__init__.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = [line.split(": ", 2)[:2] for line in seam_violations(tmp_path)]
    assert found == [
        ["harness/__init__.py:1", "imports callproof.harness.check._sse, private to callproof.harness.check"],
        ["harness/judge/_rules.py:2", "imports callproof.harness.check._sse, private to callproof.harness.check"],
        ["harness/judge/_rules.py:3", "imports callproof.harness.check._lines, private to callproof.harness.check"],
        ["harness/judge/_rules.py:4", "imports its own package callproof.harness.judge (its __init__)"],
        ["harness/judge/_rules.py:5", "imports its own package callproof.harness.judge (its __init__)"],
        ["harness/judge/_rules.py:6", "imports its own package callproof.harness.judge (its __init__)"],
        ["harness/judge/_rules.py:8", "imports callproof.mock_server._pytest, private to callproof.mock_server"],
        ["mock_server/_pytest.py:2", "imports callproof.harness._types, private to callproof.harness"],
    ]
