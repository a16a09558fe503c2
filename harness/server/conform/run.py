"""Run the conformance cases against one server and collect their verdicts.

``run_conformance(base_url, cases=..., model=None, api_key=None, timeout=30.0,
case_timeout=180.0)`` asks
``GET /models`` for the model when none is given, then sends each case's requests
(sequentially, a fixed number per case: 1 to 6) and returns a ``ConformResult``: one
``CaseResult`` per case, in ``CASES`` order.

Each case has ``case_timeout`` seconds for all its requests, each request at most
``timeout`` (``harness.server.conform.exchange`` enforces both, and ``MAX_RESPONSE_BYTES``).
Bad arguments (a base URL that is not an http(s) URL, a timeout that is not a finite
positive number) raise ValueError before any request: never a verdict on the server.

A case that raises ``Unanswered`` (connection refused, timeout, non-JSON body,
malformed stream, a response over the size bound) ends with status ``error`` and the
failure that says why (``failed`` for a redirect to another origin: a finding); the
next case still runs. Any other exception inside a case
is a bug of conform itself: the case ends with status ``error`` and a failure whose
rule says so (``<case>: conform's own error, not the server's``), with its type, so a
hostile server never produces a traceback instead of a verdict.

Verdict and exit code: ``failed`` (1) when some case failed, else ``error`` (3) when
some case could not be judged, else ``passed`` (0).

Example::

    result = run_conformance("http://127.0.0.1:8000/v1")
    [c.status for c in result.cases]   # ['passed', 'passed', 'passed', 'passed', 'passed']
"""

from __future__ import annotations

import dataclasses
import time

from harness.exitcodes import ExitCode
from harness.server.conform.cases import CASES
from harness.server.conform.exchange import DEFAULT_CASE_TIMEOUT, DEFAULT_TIMEOUT, Exchange, Unanswered
from harness.server.conform.verdict import CaseResult, Failure


@dataclasses.dataclass(frozen=True)
class ConformResult:
    base_url: str
    model: str | None
    cases: tuple[CaseResult, ...]
    seconds: float

    @property
    def verdict(self) -> str:
        statuses = {c.status for c in self.cases}
        return "failed" if "failed" in statuses else "error" if "error" in statuses else "passed"

    @property
    def exit_code(self) -> int:
        return int({"passed": ExitCode.OK, "failed": ExitCode.FAILED, "error": ExitCode.CRASHED}[self.verdict])


def parse_cases(text: str | None) -> list[str]:
    """``"tools.call,tools.stream"`` -> the names, checked; None or "" -> every case."""
    if not text:
        return list(CASES)
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in CASES]
    if unknown or not names:
        raise ValueError(f"unknown case(s): {', '.join(unknown) or '(none given)'}; known: {', '.join(CASES)}")
    return [n for n in CASES if n in names]


def run_case(name: str, ex: Exchange) -> CaseResult:
    before, start = ex.requests, time.monotonic()
    ex.begin_case()
    try:
        failures = CASES[name](ex)
        status = "failed" if failures else "passed"
    except Unanswered as exc:   # "error", or "failed" for a finding (a redirect to another origin)
        failures, status = [exc.failure], exc.status
    except Exception as exc:  # noqa: BLE001 - a case must end in a verdict, never a traceback
        failures = [Failure(f"{name}: conform's own error, not the server's", name,
                            f"{type(exc).__name__}: {str(exc)[:300]}")]
        status = "error"
    return CaseResult(name, status, tuple(failures), ex.requests - before, time.monotonic() - start)


def run_conformance(base_url: str, cases: list[str] | None = None, model: str | None = None,
                    api_key: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                    case_timeout: float = DEFAULT_CASE_TIMEOUT) -> ConformResult:
    names = list(CASES) if cases is None else cases
    start = time.monotonic()
    ex = Exchange(base_url, model=model, api_key=api_key, timeout=timeout, case_timeout=case_timeout)
    try:
        try:
            ex.begin_case()
            ex.model()  # GET /models once, before the cases, when --model is not given
        except Unanswered as exc:  # no model to ask for: every case is an error, saying why
            results = tuple(CaseResult(name, exc.status, (exc.failure,), 0, 0.0) for name in names)
        else:
            results = tuple(run_case(name, ex) for name in names)
    finally:
        ex.close()
    return ConformResult(base_url, ex._model, results, time.monotonic() - start)
