"""What binds the fault table (harness/scenario/_faults.py) to the scenario schema and to the mock's injectors
(mock_server/_inject.py). Each check takes the tables to compare and returns what does not match, as messages that
name the kind, where it is missing and the fix (empty: bound); the tests run them on the real tables, and on copies
with a throwaway kind (tests/harness/scenario/test_fault_newcomer.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib.resources import files
from typing import Any

from callproof.harness.scenario import FaultSpec
from callproof.mock_server._inject import Injector

SCHEMA: dict[str, Any] = json.loads(files("callproof.schemas").joinpath("scenario.schema.json").read_text("utf-8"))
WHERE = "schemas/scenario.schema.json#/$defs/fault"
_TYPES: dict[str, type] = {"integer": int, "number": float, "string": str}

#: A parameter as the schema declares it: (type, may be an object keyed by dialect, required).
SchemaParam = tuple[type, bool, bool]


def _schema_type(prop: Mapping[str, Any]) -> tuple[type, bool]:
    if prop.get("$ref") == "#/$defs/count_per_dialect":
        return int, True
    if "type" in prop:
        return _TYPES[prop["type"]], False
    values = {type(v) for v in prop["enum"]}
    return (int if values == {int} else str), False


def schema_params(schema: Mapping[str, Any]) -> dict[str, dict[str, SchemaParam]]:
    """Each fault kind's parameters in the schema's per-kind blocks (`allOf` of `if kind ... then properties`)."""
    params: dict[str, dict[str, SchemaParam]] = {}
    for block in schema["$defs"]["fault"]["allOf"]:
        condition = block["if"]["properties"]["kind"]
        kinds = [condition["const"]] if "const" in condition else condition["enum"]
        then = block["then"]
        for kind in kinds:
            for name, prop in then.get("properties", {}).items():
                kind_of, per_dialect = _schema_type(prop)
                params.setdefault(kind, {})[name] = (kind_of, per_dialect, name in then.get("required", ()))
    return params


def schema_mismatches(schema: Mapping[str, Any], table: Mapping[str, FaultSpec]) -> list[str]:
    """Where the schema's fault kinds and their parameters differ from the table's."""
    enum: list[str] = schema["$defs"]["fault"]["properties"]["kind"]["enum"]
    problems = [f"fault kind {kind!r} is missing from {WHERE}/properties/kind/enum: add it there, and a block of "
                f"its parameters to {WHERE}/allOf" for kind in table if kind not in enum]
    problems += [f"{WHERE}/properties/kind/enum names {kind!r}, which has no row in FAULTS: add one in "
                 "harness/scenario/_faults.py" for kind in enum if kind not in table]
    if [k for k in enum if k in table] != [k for k in table if k in enum]:
        problems.append(f"{WHERE}/properties/kind/enum lists the kinds in another order than FAULTS: keep one order")
    declared = schema_params(schema)
    for kind, spec in table.items():
        if kind not in enum:
            continue
        ours = {p.name: (p.type, p.per_dialect, p.required) for p in spec.params}
        theirs = declared.get(kind, {})
        for name in sorted(ours.keys() - theirs.keys()):
            problems.append(f"fault kind {kind!r}: parameter {name!r} is declared in FAULTS but not in {WHERE}/allOf "
                            "(the block for the kind): add it there")
        for name in sorted(theirs.keys() - ours.keys()):
            problems.append(f"fault kind {kind!r}: {WHERE}/allOf gives parameter {name!r}, which FAULTS does not "
                            "declare: add a FaultParam to the kind's row")
        for name in sorted(ours.keys() & theirs.keys()):
            if ours[name] != theirs[name]:
                problems.append(f"fault kind {kind!r}: parameter {name!r} is (type, per dialect, required) "
                                f"{ours[name]} in FAULTS but {theirs[name]} in {WHERE}/allOf: make them agree")
    return problems


def injector_mismatches(table: Mapping[str, FaultSpec], injectors: Mapping[str, Injector]) -> list[str]:
    """Where the mock's injectors differ from the table: a kind without an injector (or the reverse), an injector
    with no function for its stage, or one that changes a non-stream body when the table says it does not."""
    problems = [f"fault kind {kind!r} has no injector: write its function and add it to INJECTORS in "
                "mock_server/_inject.py" for kind in table if kind not in injectors]
    problems += [f"INJECTORS has an injector for {kind!r}, which is not in FAULTS (harness/scenario/_faults.py)"
                 for kind in injectors if kind not in table]
    for kind, injector in injectors.items():
        if kind not in table:
            continue
        if (injector.stage == "answer") != (injector.answer is not None) or not (
                injector.answer or injector.stream or injector.body):
            problems.append(f"the injector of {kind!r} needs an `answer` function at stage `answer`, else a `stream` "
                            f"one (stage {injector.stage!r})")
        in_body = injector.answer is not None or injector.body is not None
        if in_body != table[kind].in_body:
            problems.append(f"fault kind {kind!r}: FAULTS says in_body={table[kind].in_body}, but its injector "
                            f"{'changes' if in_body else 'leaves'} a non-stream body: make them agree")
    return problems
