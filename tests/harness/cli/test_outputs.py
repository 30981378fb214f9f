"""Every output path of every command is checked before the command does any work (docs/cli.md#output-paths): a
folder where a file is wanted (or a file where a folder is), a path under a regular file, a folder that cannot be
created, a folder the file system refuses to write to: one line on standard error naming the flag, the path and
why, and exit 2. "Before any work" shows in what each command line would otherwise fail on: the reports to read do
not exist, the IUT cannot be launched, the host cannot be bound; the output's line comes first.

The tests run as root in CI, and root writes wherever permission bits say no: an unwritable folder is one the file
system itself refuses (/sys for a file or folder, /proc for a folder it cannot create), each skipped where this
machine has no such place."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from callproof.harness.cli import main

#: A launch command that cannot start: an output problem must be found before it is tried.
NEVER = "no-such-program-callproof --port {port}"
#: A host no server can bind: an output problem must be found before the bind.
NO_HOST = "256.0.0.0"

#: (command line up to the flag, the flag) of each output file.
FILES: list[tuple[list[str], str]] = [
    *((["run", "--launch", NEVER, flag], flag)
      for flag in ("--report", "--md", "--html", "--junit", "--badge", "--write-baseline")),
    (["report", "missing.json", "--format", "md", "-o"], "-o"),
    (["report", "missing.json", "--merge", "-o"], "-o"),
    (["diff", "base.json", "head.json", "-o"], "-o"),
    (["mock", "--host", NO_HOST, "--journal"], "--journal"),
]
#: (command line up to the flag, the flag) of each output folder.
FOLDERS: list[tuple[list[str], str]] = [
    (["fuzz", "--launch", NEVER, "--out"], "--out"),
    (["record", "--upstream", "http://127.0.0.1:9", "--host", NO_HOST, "--out"], "--out"),
]


def _ids(cases: list[tuple[list[str], str]]) -> list[str]:
    return [f"{argv[0]}{' --merge' if '--merge' in argv else ''} {flag}" for argv, flag in cases]


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line a command refused to start with (exit 2, nothing on standard output)."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    return err.rstrip("\n")


def _sys_refuses(make: Callable[[Path], object]) -> Path:
    """A place under /sys that this machine's file system refuses to write, else the test is skipped."""
    probe = Path("/sys/callproof-probe")
    if not Path("/sys").is_dir():
        pytest.skip("no /sys on this machine")
    try:
        make(probe)
    except OSError:
        return Path("/sys")
    probe.unlink() if probe.is_file() else probe.rmdir()
    pytest.skip("/sys is writable here")


@pytest.mark.parametrize(("argv", "flag"), FILES, ids=_ids(FILES))
def test_an_output_file_that_cannot_be_written_is_one_line_before_any_work(
    argv: list[str], flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    command = argv[0]
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert _refused([*argv, "folder"], capsys) == f"callproof {command}: {flag} folder is a folder; name a file"
    assert _refused([*argv, "file/out.x"], capsys) == (
        f"callproof {command}: {flag} file/out.x: file is a file, not a folder; choose another path")
    assert _refused([*argv, "file/deeper/out.x"], capsys) == (
        f"callproof {command}: {flag} file/deeper/out.x: file is a file, not a folder; choose another path")
    if Path("/proc/self").is_dir():  # /proc takes no new folder, whoever asks
        assert _refused([*argv, "/proc/callproof-missing/out.x"], capsys) == (
            f"callproof {command}: {flag} /proc/callproof-missing/out.x: cannot create the folder "
            "/proc/callproof-missing (No such file or directory); choose another path")
    assert sorted(tmp_path.iterdir()) == [tmp_path / "file", tmp_path / "folder"]


@pytest.mark.parametrize(("argv", "flag"), FILES, ids=_ids(FILES))
def test_an_output_file_the_file_system_refuses_is_one_line(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _sys_refuses(lambda p: p.write_text("", encoding="utf-8"))
    assert _refused([*argv, str(folder / "out.x")], capsys) == (
        f"callproof {argv[0]}: {flag} {folder / 'out.x'}: cannot write there (Permission denied); choose a writable "
        "path")


@pytest.mark.parametrize(("argv", "flag"), FOLDERS, ids=_ids(FOLDERS))
def test_an_output_folder_that_cannot_be_written_is_one_line_before_any_work(
    argv: list[str], flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    command = argv[0]
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert _refused([*argv, "file"], capsys) == f"callproof {command}: {flag} file is a file; give a folder"
    assert _refused([*argv, "file/out"], capsys) == (
        f"callproof {command}: {flag} file/out: file is a file, not a folder; choose another path")
    if Path("/proc/self").is_dir():
        assert _refused([*argv, "/proc/callproof-missing"], capsys) == (
            f"callproof {command}: {flag} /proc/callproof-missing: cannot create the folder /proc/callproof-missing "
            "(No such file or directory); choose another path")
    assert sorted(tmp_path.iterdir()) == [tmp_path / "file"]
    if os.path.isdir("/sys/kernel"):
        _sys_refuses(lambda p: p.write_text("", encoding="utf-8"))
        assert _refused([*argv, "/sys/kernel"], capsys) == (
            f"callproof {command}: {flag} /sys/kernel: cannot write there (Permission denied); choose a writable "
            "folder")


def test_a_writable_output_is_left_to_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The check leaves nothing behind but the folder of an output file, which its writer would make: each command
    past it fails on its input (the report to convert is missing, the IUT cannot be launched); no empty output file
    is left, and an output folder that did not exist (`fuzz --out`, written only with a failure) still does not."""
    monkeypatch.chdir(tmp_path)
    assert main(["report", "missing.json", "--format", "md", "-o", "new/out.md"]) == 2
    assert "missing.json" in capsys.readouterr().err
    assert (tmp_path / "new").is_dir() and list((tmp_path / "new").iterdir()) == []
    # in a process of its own: fuzz's mock, started before the launch fails, is the process's to end
    done = subprocess.run([sys.executable, "-m", "callproof.harness.cli", "fuzz", "--launch", NEVER, "--out",
                           "found/deeper"], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "no-such-program-callproof" in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new"]
