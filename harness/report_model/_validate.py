"""The one check of a report's JSON against schemas/report.schema.json, and the error a bad report raises."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

import jsonschema

from callproof.harness._errors import CallproofError
from callproof.harness._types import JSONValue
from callproof.harness.check import json_path

__all__ = ["FIX", "ReportError", "validate_report"]

#: How to get a good report instead of a bad one.
FIX = "regenerate it with `callproof run --report OUT.json`"


class ReportError(CallproofError):
    """A report cannot be read: missing, not JSON, or not a callproof report (the message names file and place)."""


@cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(files("callproof.schemas").joinpath("report.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def validate_report(report: JSONValue, source: str) -> None:
    """Raise `ReportError` naming `source` (a file, or "report") and the JSON path of the first problem."""
    if not isinstance(report, dict):
        raise ReportError(f"{source}: not a callproof report: the JSON is a {type(report).__name__}, not an object; "
                          f"{FIX}")
    if report.get("format", 1) != 1:
        raise ReportError(f"{source}: report format {report['format']!r}, but this callproof reads format 1; "
                          f"render it with the callproof version that wrote it")
    error = jsonschema.exceptions.best_match(_validator().iter_errors(report))
    if error is not None:
        where = json_path(list(error.absolute_path))
        raise ReportError(f"{source}: not a valid callproof report at {where}: {error.message} "
                          f"(schemas/report.schema.json); {FIX}")
