"""Clients for an id the stream gave several calls (`duplicate_call_ids`; docs/spec/contracts.md §7.9, ids): the
upstream's fault, which a client may keep or make unique, as long as the calls stay separate calls.

- `renaming` (in-process, `--client tests.fakes.id_clients:renaming`): correct. A call whose call_id an earlier
  call of the turn already has gets an id of its own (`call_0` -> `call_0~2`); an id given once is kept.
- `merges_repeated_ids` (`python -m tests.fakes.clients --defect merges_repeated_ids`): broken. Keys the calls by
  call_id, as an accumulator keyed by id does, so a later call with a repeated id replaces the earlier one.
  Caught by EXP-001 (the calls stay separate calls); CLI-004 has nothing to say: the id it kept is the stream's.
"""

from __future__ import annotations

import os
from typing import Any

from .clients import Driver, ReferenceClient

__all__ = ["DEFECTS", "MergesRepeatedIds", "RenamesRepeatedIds", "renaming"]


class RenamesRepeatedIds(ReferenceClient):
    """renames_repeated_ids (correct): a repeated call_id gets a suffix on each call after the first."""

    def tool_calls(self) -> list[dict[str, Any]]:
        seen: dict[str, int] = {}
        calls = []
        for call in super().tool_calls():
            count = seen[call["call_id"]] = seen.get(call["call_id"], 0) + 1
            calls.append(call if count == 1 else {**call, "call_id": f"{call['call_id']}~{count}"})
        return calls


class MergesRepeatedIds(ReferenceClient):
    """merges_repeated_ids: calls are keyed by call_id, so a later call with an id already seen replaces the
    earlier one and one of the two calls is lost. Caught by EXP-001 (the calls stay separate calls)."""

    def tool_calls(self) -> list[dict[str, Any]]:
        by_id: dict[str, dict[str, Any]] = {}
        for call in super().tool_calls():
            by_id[call["call_id"]] = call
        return list(by_id.values())


def renaming(request: dict[str, Any], base_url: str, dialect: str = "responses", tool_loop: bool = False,
             max_retries: int = 0) -> dict[str, Any]:
    """`RenamesRepeatedIds` in-process (Responses only), as `tests.fakes.clients:run` runs the reference client."""
    key = os.environ.get("OPENAI_API_KEY", "callproof")
    return Driver(lambda body: RenamesRepeatedIds(base_url, key).run(body), dialect, tool_loop=tool_loop,
                  max_retries=max_retries).run(request)


#: Defect name -> the broken Responses client.
DEFECTS: dict[str, type[ReferenceClient]] = {
    "merges_repeated_ids": MergesRepeatedIds,
}
