"""`callproof_check`: assert that a stream, a body or a list of events is conformant, in a user's own test."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from typing import Any

from callproof.harness._types import Dialect
from callproof.harness.catalogue import Profile
from callproof.harness.check import CheckReport, check_capture, check_events, format_report

__all__ = ["ConformanceError", "StreamAssertion"]


class ConformanceError(AssertionError):
    """A checked stream broke MUST rules; the message lists each with evidence and the fix."""

    def __init__(self, report: CheckReport, source: str) -> None:
        super().__init__(f"callproof: stream not conformant\n{format_report(report, source)}")
        self.report = report


class StreamAssertion:
    """Callable given by the `callproof_check` fixture. Private: construct it through the fixture."""

    def __init__(self, profile: Profile) -> None:
        self.profile: Profile = profile

    def __call__(
        self,
        stream: bytes | str | Iterable[Mapping[str, Any]],
        *,
        front: Dialect = "responses",
        profile: Profile | None = None,
        raise_on_failure: bool = True,
    ) -> CheckReport:
        """Check `stream` (raw SSE bytes/text, a JSON body, or decoded events) and return the report.

        :param front: the dialect of the stream.
        :param profile: defaults to `--callproof-profile` / the `callproof_profile` ini setting.
        :param raise_on_failure: raise `ConformanceError` (an AssertionError) when a MUST rule failed.
        """
        __tracebackhide__ = True
        chosen: Profile = profile or self.profile
        if isinstance(stream, str):
            stream = stream.encode("utf-8")
        if isinstance(stream, bytes | bytearray):
            report = check_capture(io.BytesIO(bytes(stream)), "<stream>", front=front, profile=chosen)
            source = "<stream>"
        else:
            report = check_events(stream, front=front, profile=chosen)
            source = "<events>"
        if raise_on_failure and not report.conformant:
            raise ConformanceError(report, source)
        return report
