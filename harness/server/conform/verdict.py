"""What one conformance case concluded: a status and the failures that decided it.

A case is ``passed`` (every rule held), ``failed`` (some rule was broken: each
``Failure`` names the rule, the request and an excerpt of the response) or ``error``
(the exchange could not be judged: connection refused, a timeout, a body that is not
JSON, a malformed event stream; the failure says which).

Guarantees: a ``CaseResult`` with status ``passed`` has no failures; one with status
``failed`` or ``error`` has at least one. Excerpts are clipped to ``EXCERPT_CHARS``
so a flooding server cannot flood the report.

Example::

    Failure(rule="tools.call: finish_reason is tool_calls",
            request="tools.call named get_weather, seed 7",
            excerpt='finish_reason "stop"')
"""

from __future__ import annotations

import dataclasses
import json

EXCERPT_CHARS = 400
"""The longest excerpt of a response a failure carries (the rest is cut with '...')."""

STATUSES = ("passed", "failed", "error")


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """A one-line excerpt of a response part: JSON for data, the text itself for text."""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if not isinstance(value, str):
        try:
            value = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=repr)
        except (TypeError, ValueError):
            value = repr(value)
    value = " ".join(value.split()) if "\n" in value else value
    return value if len(value) <= limit else value[: limit - 3] + "..."


@dataclasses.dataclass(frozen=True)
class Failure:
    """A broken rule: which rule, on which request, and what the server answered."""

    rule: str
    request: str
    excerpt: str

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class CaseResult:
    """The verdict of one case: ``status`` in STATUSES, its failures, what it cost."""

    name: str
    status: str
    failures: tuple[Failure, ...]
    requests: int
    seconds: float

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"CaseResult: status must be one of {STATUSES}, got {self.status!r}")
        if (self.status == "passed") != (not self.failures):
            raise ValueError(f"CaseResult {self.name}: status {self.status!r} with {len(self.failures)} failure(s)")

    def to_json(self) -> dict:
        return {"name": self.name, "status": self.status, "requests": self.requests,
                "seconds": round(self.seconds, 3), "failures": [f.to_json() for f in self.failures]}
