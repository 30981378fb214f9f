"""What a capture's "arguments are not JSON" finding (RSP-ARGS-004, CHAT-TC-006, ANT-TOOL-002) says about whose
fault it is: a capture alone cannot tell whether the upstream or the relay wrote the text, so the checker keeps the
failure and says so; `callproof run` against the mock can tell, and attributes a text relayed byte for byte to the
upstream (docs/spec/contracts.md §7.8, "Findings attributed to the upstream")."""

from __future__ import annotations

__all__ = ["RELAY_CAVEAT", "relay_caveat"]

#: Appended to the finding of arguments that are not JSON at all (a JSON value that is not an object gets none).
RELAY_CAVEAT = ("; a capture cannot tell whether the upstream or the relay wrote it: in a `callproof run` against "
                "the mock, a gateway relaying the upstream's bytes unchanged is not failed for it "
                "(docs/spec/contracts.md §7.8)")


def relay_caveat(problem: str) -> str:
    """`RELAY_CAVEAT` when `problem` (`parse_json_object`'s) says the text is not JSON at all, else ''."""
    return RELAY_CAVEAT if problem.startswith("not valid JSON") else ""
