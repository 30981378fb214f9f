"""The one table of fault kinds (harness/scenario/_faults.py): `FaultKind`, the table and the scenario schema name the
same kinds with the same parameters; the helpers the judge, the client rules, sequences and the run plan read answer
from the table's flags; no other module of the packages lists fault kinds or compares a kind with a kind's name; and
scenarios/README.md names every kind. tests/mock_server/test_inject.py binds the table to the mock's injectors,
test_fault_newcomer.py adds a throwaway kind and follows it through every consumer."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

from callproof.harness.scenario import (
    FAULTS,
    Fault,
    FaultKind,
    cut_kinds,
    fault_param,
    framing_variant,
    http_error_fault,
    is_framing,
    raw_http_error,
)
from tests import sources
from tests.harness.scenario.fault_bindings import SCHEMA, schema_mismatches, schema_params

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("harness", "mock_server", "reports")
TABLE = Path("harness/scenario/_faults.py")
#: The mock's table of injectors, one per kind (keyed by kind, bound to FAULTS by tests/mock_server/test_inject.py).
INJECTORS = Path("mock_server/_inject.py")


def test_the_kind_type_and_the_table_name_the_same_kinds() -> None:
    assert tuple(FAULTS) == get_args(FaultKind)
    assert all(spec.kind == kind for kind, spec in FAULTS.items())


def test_the_schema_names_the_tables_kinds_with_their_parameters() -> None:
    assert schema_mismatches(SCHEMA, FAULTS) == []


def test_the_binding_reports_a_parameter_the_schema_lacks_or_types_otherwise() -> None:
    stall = next(b for b in SCHEMA["$defs"]["fault"]["allOf"] if b["if"]["properties"]["kind"].get("const") == "stall")
    assert set(schema_params(SCHEMA)["stall"]) == {"ms", "after_events"}
    edited = {**stall, "then": {**stall["then"], "properties": {"ms": {"type": "integer"}}}}
    blocks = [edited if b is stall else b for b in SCHEMA["$defs"]["fault"]["allOf"]]
    schema = {"$defs": {"fault": {**SCHEMA["$defs"]["fault"], "allOf": blocks}}}
    problems = schema_mismatches(schema, FAULTS)
    assert len(problems) == 2
    assert "'stall': parameter 'after_events' is declared in FAULTS but not in" in problems[0]
    assert "'stall': parameter 'ms' is (type, per dialect, required)" in problems[1]


def _fault(kind: FaultKind, probability: float = 1.0, **params: object) -> Fault:
    return Fault(kind, probability, params)


def test_cut_kinds_are_the_certain_faults_that_cut_the_stream() -> None:
    faults = [_fault("disconnect"), _fault("truncate", 0.5), _fault("stall", ms=5), _fault("malformed"),
              _fault("stream_error"), _fault("keepalive")]
    assert cut_kinds(faults) == {"disconnect", "malformed", "stream_error"}
    assert cut_kinds([_fault("crlf"), _fault("http_error", status=500)]) == frozenset()


def test_the_http_error_fault_is_the_first_certain_one() -> None:
    chaos, certain = _fault("http_error", 0.5, status=429), _fault("http_error", status=503)
    assert http_error_fault([_fault("crlf"), chaos, certain]) is certain
    assert http_error_fault([chaos, _fault("disconnect")]) is None
    written = [{"kind": "stall", "ms": 5}, {"kind": "http_error", "status": 429, "probability": 0.2},
               {"kind": "http_error", "status": 503, "retry_after": 2}]
    assert raw_http_error(written) == written[2]
    assert raw_http_error(written[:2]) is None


def test_framing_kinds_are_named_with_what_they_do_on_the_wire() -> None:
    assert sorted(k for k in FAULTS if is_framing(k)) == ["crlf", "fragment", "framing", "keepalive"]
    assert not is_framing("no_such_kind")
    assert framing_variant(_fault("keepalive")) == "keepalive (a `:` comment after every 1 event(s))"
    assert framing_variant(_fault("keepalive", every_events=3)) == "keepalive (a `:` comment after every 3 event(s))"
    assert framing_variant(_fault("fragment", bytes=2)) == "fragment (2-byte writes, UTF-8 and line ends split)"
    assert framing_variant(_fault("crlf")) == "crlf (CRLF line ends)"
    assert framing_variant(_fault("framing", style="cr_only")) == "cr_only (lines ended by a lone CR)"
    assert framing_variant(_fault("framing", style="odd")) == "odd (a framing the standard allows)"
    with pytest.raises(ValueError, match="'stall' is not a framing variant"):
        framing_variant(_fault("stall", ms=1))


def test_a_parameter_reads_as_its_declared_type_else_the_fallback_else_its_default() -> None:
    assert fault_param(_fault("stall", ms=5), "ms") == 5.0
    assert isinstance(fault_param(_fault("stall", ms=5), "ms"), float)
    assert fault_param(_fault("stall"), "ms") == 0.0
    assert fault_param(_fault("stall"), "after_events", 3) == 3
    assert fault_param(_fault("stall", after_events=1), "after_events", 3) == 1
    assert fault_param(_fault("disconnect"), "after_bytes") is None
    assert fault_param(_fault("keepalive"), "comment") == "keep-alive"
    with pytest.raises(KeyError, match="fault kind 'crlf' declares no parameter 'bytes'; add it to the kind's row"):
        fault_param(_fault("crlf"), "bytes")


def _sources() -> list[tuple[Path, ast.AST]]:
    return [(p.relative_to(ROOT), sources.tree(p))
            for top in PACKAGES for p in sorted((ROOT / top).rglob("*.py"))]


def _names_kind(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in FAULTS


def _is_a_kind(node: ast.AST) -> bool:
    """`x.kind` or `x["kind"]`: a fault's kind."""
    if isinstance(node, ast.Attribute):
        return node.attr == "kind"
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "kind"


def test_no_other_module_lists_fault_kinds_or_compares_a_kind_with_a_name() -> None:
    """A consumer that kept its own list (`_CUT_FAULTS`, `FRAMING_FAULTS`, `FAULT_KINDS`) or special-cased a kind
    (`fault.kind == "http_error"`) would not pick up a new kind: they read the table's flags instead."""
    found = []
    for path, tree in _sources():
        if path == TABLE:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Tuple | ast.List | ast.Set) and sum(map(_names_kind, node.elts)) >= 2:
                found.append(f"{path}:{node.lineno}: a list of fault kinds")
            if isinstance(node, ast.Dict) and path != INJECTORS and sum(map(_names_kind, filter(None, node.keys))) >= 2:
                found.append(f"{path}:{node.lineno}: a table keyed by fault kinds")
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(map(_is_a_kind, sides)) and any(map(_names_kind, sides)):
                    found.append(f"{path}:{node.lineno}: a fault kind compared with a kind's name")
    assert found == [], "read the fault table (harness/scenario/_faults.py) instead:\n" + "\n".join(found)


def test_the_scenario_readme_names_every_kind() -> None:
    readme = (ROOT / "scenarios" / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| **fault** |"))
    assert [kind for kind in FAULTS if f"`{kind}`" not in row] == []
    assert "## Adding a fault kind" in readme
