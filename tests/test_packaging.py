"""The built wheel works with no checkout present: packages mapped into callproof.*, schemas shipped as data."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(ROOT)],
        check=True, capture_output=True,
    )
    (found,) = out.glob("callproof-*.whl")
    return found


def test_wheel_holds_the_mapped_packages_and_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "callproof/harness/__init__.py" in names
    assert "callproof/harness/py.typed" in names
    assert "callproof/schemas/responses/events/response.function_call_arguments.delta.json" in names
    assert "callproof/schemas/fronts/responses.openai.json" in names
    assert not any(n.startswith(("tests/", "harness/", "conftest")) for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "callproof = callproof.harness.cli:main" in text
    assert "callproof = callproof.harness.plugin" in text


def test_unpacked_wheel_checks_a_capture_without_the_checkout(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    capture = next((ROOT / "examples" / "captures" / "responses" / "openai" / "ok").glob("*.sse"))
    code = (
        "import sys, callproof.harness as h; "
        "assert h.__file__.startswith(sys.argv[1]), h.__file__; "
        "r = h.check_bytes(open(sys.argv[2], 'rb').read()); "
        "print(r.conformant, len(r.results))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(site), str(capture)],
        cwd=tmp_path, env={"PYTHONPATH": str(site)}, capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("True ")
