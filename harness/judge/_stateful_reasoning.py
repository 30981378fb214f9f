"""GW-STATE-003, encrypted reasoning through a gateway (docs/spec/stateful.md §3): a front request's reasoning items
with `encrypted_content` pass byte for byte to an upstream that carries them, are dropped (never sent as text) to
one that has no field for them, or the request is refused in the documented shape."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.dialects import DIALECTS

from ._findings import Findings
from ._stateful_rules import Refusal, describe_entry, entries_of, new_entries, order_problems, refusal_problem

__all__ = ["check_encrypted_reasoning"]


def _reasoning_items(request: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    items = request.get("input")
    return [(i, item) for i, item in enumerate(items if isinstance(items, list) else [])
            if isinstance(item, Mapping) and item.get("type") == "reasoning" and item.get("encrypted_content")]


def check_encrypted_reasoning(
    findings: Findings, *, request: Mapping[str, Any], upstream: Mapping[str, Any] | None, upstream_dialect: str,
    refusal: Refusal | None = None, policy: str = "either",
) -> None:
    """GW-STATE-003 for a front request holding reasoning items with `encrypted_content`: a Responses upstream gets
    each item byte for byte (same id, same ciphertext, in its place among the other items) and the request's
    `include` of `reasoning.encrypted_content`; a Chat or Anthropic upstream, which has no field for it, gets the
    other items in order and never the ciphertext as text (dropping the item there is the documented choice,
    docs/spec/stateful.md §3); or the request is refused (HTTP 400, param naming the item), except under
    `--policy stateful=honor` to a Responses upstream."""
    reasoning = _reasoning_items(request)
    if not reasoning:
        return
    findings.check("GW-STATE-003")
    if upstream is None:
        _reasoning_refused(findings, reasoning, refusal, upstream_dialect, policy)
        return
    wanted = new_entries(request)
    if DIALECTS[upstream_dialect].sealed_reasoning:
        _reasoning_passed_through(findings, reasoning, request, upstream)
    else:
        wanted = [e for e in wanted if e[0] != "reasoning"]
        _reasoning_dropped(findings, reasoning, upstream, upstream_dialect)
    got = entries_of(upstream_dialect, upstream)
    for kind, entry in order_problems(wanted, got):
        findings.fail("GW-STATE-003", f"{describe_entry(entry)} is {kind} in the upstream request (the items around "
                      "encrypted reasoning pass in order, each once)",
                      Evidence(path="upstream request $", expected=describe_entry(entry),
                               actual=short([g[:2] for g in got])))


def _reasoning_refused(findings: Findings, reasoning: Sequence[tuple[int, Mapping[str, Any]]],
                       refusal: Refusal | None, upstream_dialect: str, policy: str) -> None:
    """GW-STATE-003 when the upstream was not called: a refusal in the documented shape, unless the policy is honor
    and the upstream speaks Responses."""
    if policy == "honor" and DIALECTS[upstream_dialect].sealed_reasoning:
        findings.fail("GW-STATE-003", "--policy stateful=honor: the gateway refused a request with encrypted "
                      "reasoning that its Responses upstream can take; pass the items through",
                      Evidence(path=f"$.input[{reasoning[0][0]}]", expected="passed through",
                               actual=short(refusal.body) if refusal else "no upstream request"))
        return
    problem = (refusal_problem(refusal, ("input", "include"), ("unsupported_parameter",))
               if refusal is not None else ("no refusal either", Evidence(path="$")))
    if problem is not None:
        why, evidence = problem
        findings.fail("GW-STATE-003", f"the gateway did not call its upstream for a request with encrypted "
                      f"reasoning, but {why}: a refusal is HTTP 400, error.param naming the item "
                      f"(input[{reasoning[0][0]}].encrypted_content), code unsupported_parameter", evidence)


def _reasoning_passed_through(findings: Findings, reasoning: Sequence[tuple[int, Mapping[str, Any]]],
                              request: Mapping[str, Any], upstream: Mapping[str, Any]) -> None:
    """GW-STATE-003 to a Responses upstream: each item by its id with the same ciphertext, and the include."""
    items = [i for i in upstream.get("input") or () if isinstance(i, Mapping)] \
        if isinstance(upstream.get("input"), list) else []
    for index, item in reasoning:
        same = [(n, i) for n, i in enumerate(items) if i.get("type") == "reasoning" and i.get("id") == item["id"]]
        if not same:
            findings.fail("GW-STATE-003", f"the reasoning item {item['id']!r} (input[{index}]) is missing from "
                          "the Responses upstream's input: pass encrypted reasoning through",
                          Evidence(path="upstream request $.input", expected=item["id"],
                                   actual=short([i.get("type") for i in items])))
        elif same[0][1].get("encrypted_content") != item["encrypted_content"]:
            findings.fail("GW-STATE-003", f"the reasoning item {item['id']!r} reached the upstream with other "
                          "encrypted_content than the client sent: pass it byte for byte",
                          Evidence(path=f"upstream request $.input[{same[0][0]}].encrypted_content",
                                   expected=short(item["encrypted_content"]),
                                   actual=short(same[0][1].get("encrypted_content"))))
    include = request.get("include")
    if isinstance(include, list) and "reasoning.encrypted_content" in include and \
            "reasoning.encrypted_content" not in (upstream.get("include") or ()):
        findings.fail("GW-STATE-003", "the client asked for include reasoning.encrypted_content and the "
                      "Responses upstream did not get it", Evidence(
                          path="upstream request $.include", expected=["reasoning.encrypted_content"],
                          actual=upstream.get("include")))


def _reasoning_dropped(findings: Findings, reasoning: Sequence[tuple[int, Mapping[str, Any]]],
                       upstream: Mapping[str, Any], upstream_dialect: str) -> None:
    """GW-STATE-003 to a Chat or Anthropic upstream: the ciphertext appears nowhere in its request."""
    blob = json.dumps(upstream)
    for index, item in reasoning:
        if item["encrypted_content"] in blob:
            findings.fail("GW-STATE-003", f"the ciphertext of reasoning item input[{index}] reached the "
                          f"{upstream_dialect} upstream, which has no field for it: drop the item (or refuse)",
                          Evidence(path="upstream request $", expected="no encrypted_content",
                                   actual=short(item["encrypted_content"])))
