"""Report files: read a report (JSON, or the JSON Lines report a run writes as cases finish), write the JSON report
atomically, and write the JSON Lines report one flushed line at a time.

The JSON Lines report survives a run killed mid-way: its first line is the header (every top-level key of the
report but `summary`, `cases`, `duration_s` and `complete`), then one line per finished case, then a footer with
the run's duration. `read_report` rebuilds the report from it: cases sorted by id, the summary recomputed, and
`complete` false when the footer is missing. A cut (or garbled) last line is what a killed writer leaves: it is
dropped and the report marked incomplete. Garbage on any other line is an error naming the file and line.

    {"kind": "header", "format": 1, "callproof_version": "...", "profile": "openai", "target": {...}, ...}
    {"kind": "case", "id": "one_call::identity", "scenario": "one_call", ...}
    {"kind": "footer", "duration_s": 14.9}
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn

from callproof.harness._types import JSONData

from ._model import REBUILT, Case, Report, Summary
from ._validate import FIX, ReportError, validate_report

__all__ = ["read_report", "write_jsonl_case", "write_jsonl_footer", "write_jsonl_header", "write_report"]

#: The order of the top-level keys in a report.
_ORDER = ("format", "callproof_version", "profile", "target", "command", "scenario_set", "platform", "started_at",
          "duration_s", "complete", "summary", "cases")
_ZERO = Summary().to_json()


# -- writing ---------------------------------------------------------------------------------------------------


def _umask() -> int:
    """The process's umask, read without changing it where Linux says it (/proc/self/status), else set and restored
    at once."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _plain_mode(path: Path) -> int:
    """The mode `path` gets as any other report file: an existing file's own, else 0666 less the umask (what
    open() gives; mkstemp's 0600 would hide report.json from the group its siblings are shared with)."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def write_report(path: Path, report: Report | Mapping[str, Any]) -> None:
    """Write the JSON report atomically: a reader never sees half a report. It gets the mode of the report's
    other files (the umask's, or the mode of the file it replaces)."""
    data = report.to_json() if isinstance(report, Report) else report
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as out:  # a lone surrogate: \ud83d
            json.dump(data, out, indent=2, ensure_ascii=False)
            out.write("\n")
        os.chmod(tmp, _plain_mode(path))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_line(fp: IO[str], record: Mapping[str, Any]) -> None:
    # json.dumps escapes newlines inside strings, so a record is always exactly one line.
    fp.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    fp.flush()


def write_jsonl_header(fp: IO[str], report: Report | Mapping[str, Any]) -> None:
    """The first line: the report's metadata (`summary`, `cases`, `duration_s` and `complete` are left out)."""
    meta = report.header_json() if isinstance(report, Report) else report
    _write_line(fp, {"kind": "header", **{k: v for k, v in meta.items() if k not in (*REBUILT, "kind")}})


def write_jsonl_case(fp: IO[str], case: Case | Mapping[str, Any]) -> None:
    """One finished case."""
    data = case.to_json() if isinstance(case, Case) else case
    _write_line(fp, {"kind": "case", **{k: v for k, v in data.items() if k != "kind"}})


def write_jsonl_footer(fp: IO[str], duration_s: float) -> None:
    """The last line, written when the run ended normally: without it the report reads as incomplete."""
    _write_line(fp, {"kind": "footer", "duration_s": round(duration_s, 3)})


# -- reading ---------------------------------------------------------------------------------------------------


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def _loads(text: str) -> JSONData:
    return json.loads(text, parse_constant=_reject_constant)


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


def _lines(path: Path, data: bytes) -> tuple[list[_Line], bool]:
    """The records of a JSON Lines report, and whether its last line was cut off."""
    lines = [_decode_line(n, raw) for n, raw in enumerate(data.split(b"\n"), start=1) if raw.strip()]
    cut = bool(lines) and lines[-1].kind is None
    if cut:
        lines.pop()  # what a writer killed mid-line leaves: drop it, the run is incomplete anyway
    if not lines:
        raise ReportError(f"{path}: an empty JSON Lines report (no header line); {FIX}")
    for line in lines:
        if line.kind is None:
            raise ReportError(f"{path}:{line.number}: {line.problem}; only the last line of a JSON Lines report may be "
                              f"cut off. Fix or delete the line, or render the JSON report the run wrote instead")
    first = lines[0]
    if first.kind != "header":
        raise ReportError(f'{path}:{first.number}: the first line is a "{first.kind}" record, not the header; '
                          f"a JSON Lines report starts with the header line")
    return lines, cut


def _jsonl(path: Path, data: bytes) -> Report:
    lines, cut = _lines(path, data)
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
            raise ReportError(f'{where}: a case record without a string "id"; {FIX}')
        cases[case["id"]] = case  # a later line for the same case replaces the earlier one
    rebuilt = {
        **lines[0].record,
        "duration_s": footer.record.get("duration_s") if footer is not None else 0,
        "complete": footer is not None and not cut,
        "summary": _ZERO,  # recomputed below, from the validated cases
        "cases": sorted(cases.values(), key=lambda c: str(c["id"])),
    }
    ordered = {k: rebuilt[k] for k in _ORDER if k in rebuilt}
    validate_report({**ordered, **rebuilt}, str(path))
    report = Report.from_json(rebuilt, validate=False)
    return dataclasses.replace(report, summary=Summary.of(report.cases))


def _looks_jsonl(data: bytes) -> bool:
    first = data.lstrip().split(b"\n", 1)[0]
    try:
        record = _loads(first.decode("utf-8"))
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("kind") == "header"


def read_report(path: Path) -> Report:
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
        raise ReportError(f"{path}: the file is empty; {FIX}")
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
    return Report.from_json(report, source=str(path))
