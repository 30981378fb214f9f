"""A newcomer adds a report format as one row of the registry (callproof.reports.FORMATS) and every consumer picks
it up: `callproof report --format` renders it, `callproof run` offers its flag and writes its file, `make docs`
lists it. Each test puts a throwaway format in a temporary copy of the registry: a consumer that kept a list of its
own would miss it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from callproof import reports
from callproof.harness._options import OPTIONS, format_options
from callproof.harness.cli import main
from callproof.harness.cli._docs import cli_document, format_sections

ROOT = Path(__file__).resolve().parents[3]
FAILING = ROOT / "tests" / "reports" / "data" / "failing.json"


def shout(loaded: Sequence[reports.Report | Mapping[str, Any]], /) -> str:
    """The throwaway format: each report's verdict line, in capitals."""
    return "".join(reports.render_markdown(one).splitlines()[0].upper() + "\n" for one in loaded)


THROWAWAY = reports.ReportFormat("shout", "the verdict line, shouted", shout, ".shout", "text/plain",
                                 run=reports.RunOutput("also write the verdict, shouted", order=99))


@pytest.fixture
def with_throwaway(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reports, "FORMATS", (*reports.FORMATS, THROWAWAY))


@pytest.mark.usefixtures("with_throwaway")
def test_callproof_report_renders_a_new_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["report", str(FAILING), "--format", "shout"]) == 0
    assert capsys.readouterr().out == shout([reports.read_report(FAILING)])
    assert main(["report", str(FAILING), str(FAILING), "--format", "shout"]) == 2
    assert "--format shout takes one report; only html compares several" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "{md,html,junit,badge,badge-json,json,shout}" in capsys.readouterr().out


@pytest.mark.usefixtures("with_throwaway")
def test_make_docs_lists_a_new_format() -> None:
    sections = format_sections()
    assert "| `--shout OUT.shout` | - | also write the verdict, shouted |" in sections["run-formats"]
    assert "| `shout` | the verdict line, shouted | `.shout`, `text/plain` | `--shout OUT.shout` |" in \
        sections["report-formats"]
    document = cli_document((ROOT / "docs" / "cli.md").read_text(encoding="utf-8"))
    run_section = document.split("## `callproof run`")[1].split("\n## `callproof ")[0]
    assert "`--shout OUT.shout`" in run_section
    assert "callproof report --format {md,html,junit,badge,badge-json,json,shout}" in document


#: A fresh interpreter: the registry gets the throwaway row before anything reads it, then `callproof run` is
#: asked for its flag, its help, the files it writes and the file it writes at the end of a run.
RUN = """
import contextlib, io, json, sys
from pathlib import Path
from callproof import reports

def shout(loaded):
    return "".join(reports.render_markdown(one).splitlines()[0].upper() + "\\n" for one in loaded)

reports.FORMATS = (*reports.FORMATS, reports.ReportFormat(
    "shout", "the verdict line, shouted", shout, ".shout", "text/plain",
    run=reports.RunOutput("also write the verdict, shouted", order=99)))
from callproof.harness.cli import _parser, _run_command, _report_command

help_text = io.StringIO()
with contextlib.redirect_stdout(help_text), contextlib.suppress(SystemExit):
    _parser().parse_args(["run", "--help"])
out = Path(sys.argv[2])
args = _parser().parse_args(["run", "--launch", "x", "--shout", str(out), "--md", str(out.with_suffix(".md"))])
written = _report_command.write_formats(json.loads(Path(sys.argv[1]).read_text()), _run_command._formats(args))
print(json.dumps({"help": help_text.getvalue(), "outputs": [[f, str(p)] for f, p in _run_command._outputs(args)],
                  "written": [str(p) for p in written], "text": out.read_text()}))
"""


def test_callproof_run_offers_and_writes_a_new_format(tmp_path: Path) -> None:
    out = tmp_path / "verdict.shout"
    done = subprocess.run([sys.executable, "-c", RUN, str(FAILING), str(out)], capture_output=True, text=True,
                          check=True, timeout=120)
    seen = json.loads(done.stdout)
    assert "--shout OUT.shout" in seen["help"] and "also write the verdict, shouted" in seen["help"]
    assert ["--shout", str(out)] in seen["outputs"]  # checked before the run starts, like --md
    assert seen["written"] == [str(out.with_suffix(".md")), str(out)]  # in the flags' order
    assert seen["text"] == shout([reports.read_report(FAILING)])


def test_the_option_table_makes_its_format_flags_from_the_registry() -> None:
    names = {f.option for f in reports.run_formats(reports.FORMATS)}
    assert tuple(o for o in OPTIONS if o.name in names) == format_options(reports.FORMATS)
    assert [o.cli_flags for o in format_options([THROWAWAY])] == [("--shout",)]
