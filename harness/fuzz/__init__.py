"""`callproof fuzz`: scenarios generated with hypothesis within the scenario schema, run against one mock and one
implementation under test through the same rules as `callproof run`, and the first failure shrunk to a minimal
scenario file the user adds to their suite (`callproof run --scenarios FILE`).

What varies (scenarios/README.md terminology): the output items (1 to 4: function calls, text, reasoning);
each item's fragments (explicit `chunk.fragments` at random boundaries, which may fall inside an escape or between
the code points of an emoji); the order of the fragments across items (sequential, round-robin, or an explicit
interleaving); the call_id (given, absent: the mock's stable id, or null: no id on the wire); the chat quirks of
one call (a split name, an id on every delta, a name on later deltas, arguments before the name, Responses
arguments only in the done event); unicode (multi-byte, JSON escapes, emoji, line separators) in arguments, text
and the user's message; and sizes (number of calls, argument length).

Modules: `_generate` (a scenario from a sequence of choices), `_strategies` (the choices from hypothesis),
`_scenario_file` (generated scenarios as scenario files, through the users' loader), `_search` (run, judge, shrink),
`_session` (the values). hypothesis is imported at module level: the command line imports this package only for
`callproof fuzz`.
"""

from __future__ import annotations

from ._generate import expect_of, gen_scenario, named_scenario
from ._scenario_file import failure_file, parse_generated, scenario_file
from ._search import FUZZ_GROUPS, failure_of, fuzz
from ._session import FuzzError, FuzzFailure, FuzzOptions, FuzzOutcome
from ._strategies import scenario_documents

__all__ = [
    "FUZZ_GROUPS",
    "FuzzError",
    "FuzzFailure",
    "FuzzOptions",
    "FuzzOutcome",
    "expect_of",
    "failure_file",
    "failure_of",
    "fuzz",
    "gen_scenario",
    "named_scenario",
    "parse_generated",
    "scenario_documents",
    "scenario_file",
]
