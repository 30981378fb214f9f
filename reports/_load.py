"""Read a report from disk (JSON, or the JSON Lines report a run writes as cases finish) and validate it against
schemas/report.schema.json; write the JSON Lines report, one flushed line at a time.

The JSON Lines report survives a run killed mid-way: its first line is the header (every top-level key of the
report but `summary`, `cases`, `duration_s` and `complete`), then one line per finished case, then a footer with
the run's duration. `load_report` rebuilds the report from it: cases sorted by id, the summary recomputed, and
`complete` false when the footer is missing. A cut (or garbled) last line is what a killed writer leaves: it is
dropped and the report marked incomplete. Garbage on any other line is an error naming the file and line.

    {"kind": "header", "format": 1, "callproof_version": "...", "profile": "openai", "target": {...}, ...}
    {"kind": "case", "id": "one_call::identity", "scenario": "one_call", ...}
    {"kind": "footer", "duration_s": 14.9}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import IO, Any

import jsonschema

from callproof.harness import CallproofError
from callproof.harness.check import json_path
from callproof.harness.run._report import _summary

__all__ = ["ReportError", "load_report", "write_jsonl_case", "write_jsonl_footer", "write_jsonl_header"]

#: Top-level keys the header leaves out: `load_report` rebuilds them.
_REBUILT = ("duration_s", "complete", "summary", "cases")
#: The order of the top-level keys in a report (harness/run/_report.py::build_report).
_ORDER = ("format", "callproof_version", "profile", "target", "command", "scenario_set", "platform", "started_at",
          "duration_s", "complete", "summary", "cases")
_SUMMARY_KEYS = ("cases", "passed", "failed", "skipped", "xfailed", "error", "must_failed", "should_failed",
                 "stale_baseline")
_FIX = "regenerate it with `callproof run --report OUT.json`"


class ReportError(CallproofError):
    """A report cannot be read: missing, not JSON, or not a callproof report (the message names file and place)."""


# -- writing ---------------------------------------------------------------------------------------------------


def _write_line(fp: IO[str], record: Mapping[str, Any]) -> None:
    # json.dumps escapes newlines inside strings, so a record is always exactly one line.
    fp.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    fp.flush()


def write_jsonl_header(fp: IO[str], report_meta: Mapping[str, Any]) -> None:
    """The first line: the report's metadata (`summary`, `cases`, `duration_s` and `complete` are ignored)."""
    _write_line(fp, {"kind": "header", **{k: v for k, v in report_meta.items() if k not in (*_REBUILT, "kind")}})


def write_jsonl_case(fp: IO[str], case: Mapping[str, Any]) -> None:
    """One finished case (its report JSON)."""
    _write_line(fp, {"kind": "case", **{k: v for k, v in case.items() if k != "kind"}})


def write_jsonl_footer(fp: IO[str], duration_s: float) -> None:
    """The last line, written when the run ended normally: without it the report reads as incomplete."""
    _write_line(fp, {"kind": "footer", "duration_s": round(duration_s, 3)})


# -- reading ---------------------------------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


@cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(files("callproof.schemas").joinpath("report.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _validate(path: Path, report: Any) -> dict[str, Any]:
    if not isinstance(report, dict):
        raise ReportError(f"{path}: not a callproof report: the JSON is a {type(report).__name__}, not an object; "
                          f"{_FIX}")
    if report.get("format", 1) != 1:
        raise ReportError(f"{path}: report format {report['format']!r}, but this callproof reads format 1; "
                          f"render it with the callproof version that wrote it")
    error = jsonschema.exceptions.best_match(_validator().iter_errors(report))
    if error is not None:
        where = json_path(list(error.absolute_path))
        raise ReportError(f"{path}: not a valid callproof report at {where}: {error.message} "
                          f"(schemas/report.schema.json); {_FIX}")
    return report


@dataclass(frozen=True, slots=True)
class _Line:
    """One non-blank line of a JSON Lines report: its record, or what is wrong with it."""

    number: int
    kind: str | None  # header, case or footer; None for a line that is not a record
    record: dict[str, Any]
    problem: str = ""


def _decode_line(number: int, raw: bytes) -> _Line:
    try:
        record = _loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return _Line(number, None, {}, f"not UTF-8 ({exc.reason} at byte {exc.start})")
    except ValueError as exc:
        return _Line(number, None, {}, f"not JSON ({exc})")
    if not isinstance(record, dict) or record.get("kind") not in ("header", "case", "footer"):
        return _Line(number, None, {}, 'not a record with "kind" header, case or footer')
    return _Line(number, str(record["kind"]), {k: v for k, v in record.items() if k != "kind"})


def _jsonl(path: Path, data: bytes) -> dict[str, Any]:
    lines = [_decode_line(n, raw) for n, raw in enumerate(data.split(b"\n"), start=1) if raw.strip()]
    cut = bool(lines) and lines[-1].kind is None
    if cut:
        lines.pop()  # what a writer killed mid-line leaves: drop it, the run is incomplete anyway
    if not lines:
        raise ReportError(f"{path}: an empty JSON Lines report (no header line); {_FIX}")
    for line in lines:
        if line.kind is None:
            raise ReportError(f"{path}:{line.number}: {line.problem}; only the last line of a JSON Lines report may be "
                              f"cut off. Fix or delete the line, or render the JSON report the run wrote instead")
    first = lines[0]
    if first.kind != "header":
        raise ReportError(f'{path}:{first.number}: the first line is a "{first.kind}" record, not the header; '
                          f"a JSON Lines report starts with the header line")
    header = first.record
    cases: dict[str, dict[str, Any]] = {}
    footer: _Line | None = None
    for line in lines[1:]:
        where = f"{path}:{line.number}"
        if footer is not None:
            raise ReportError(f"{where}: a line after the footer (line {footer.number}); the footer ends the report")
        if line.kind == "header":
            raise ReportError(f"{where}: a second header line; concatenated reports are not one report")
        if line.kind == "footer":
            footer = line
            continue
        case = line.record
        if not isinstance(case.get("id"), str):
            raise ReportError(f'{where}: a case record without a string "id"; {_FIX}')
        cases[case["id"]] = case  # a later line for the same case replaces the earlier one
    try:
        summary = _summary(list(cases.values()))
    except (KeyError, TypeError, AttributeError) as exc:
        # A case too broken to count: validate with a zero summary, so the schema error names the field.
        zero = dict.fromkeys(_SUMMARY_KEYS, 0)
        _validate(path, {**header, "duration_s": 0, "complete": False, "summary": zero,
                         "cases": list(cases.values())})
        raise ReportError(f"{path}: a case cannot be counted ({exc!r}); {_FIX}") from exc
    rebuilt = {
        **header,
        "duration_s": footer.record.get("duration_s") if footer is not None else 0,
        "complete": footer is not None and not cut,
        "summary": summary,
        "cases": sorted(cases.values(), key=lambda c: str(c["id"])),
    }
    ordered = {k: rebuilt[k] for k in _ORDER if k in rebuilt}
    return _validate(path, {**ordered, **rebuilt})


def _looks_jsonl(data: bytes) -> bool:
    first = data.lstrip().split(b"\n", 1)[0]
    try:
        record = _loads(first.decode("utf-8"))
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("kind") == "header"


def load_report(path: Path) -> dict[str, Any]:
    """The report at `path`: a JSON report (`.json`) or a JSON Lines report (`.jsonl`, possibly cut off mid-run),
    validated against schemas/report.schema.json. Raises `ReportError` saying what is wrong, where."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file; give the path of a report.json or report.jsonl") from None
    except IsADirectoryError:
        raise ReportError(f"{path}: a directory, not a report file") from None
    except OSError as exc:
        raise ReportError(f"{path}: cannot read the report ({exc.strerror or exc})") from None
    if not data.strip():
        raise ReportError(f"{path}: the file is empty; {_FIX}")
    if path.suffix.lower() == ".jsonl" or (path.suffix.lower() != ".json" and _looks_jsonl(data)):
        return _jsonl(path, data)
    try:
        report = _loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ReportError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); a report is JSON") from None
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg}); a report is one JSON object "
                          f"(a run cut off mid-way leaves a readable .jsonl beside it)") from None
    except ValueError as exc:
        raise ReportError(f"{path}: not JSON ({exc})") from None
    return _validate(path, report)
