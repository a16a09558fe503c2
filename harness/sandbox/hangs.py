"""A grading rule of the wall: a call that ran out of time is not asked again in the run.

When a call whose input is named (``harness.sandbox.wording.what``: ``call regex_to_dfa on
'(cat|car|dog)s?'``) runs past its CPU budget, ``harness.sandbox.client.Candidate`` keeps
``hang_key`` of it in ``known_hangs`` (a set the run's candidate processes share,
``harness.suite.plugin``); asking the same call on the same input later in the run raises
``CandidateNotAsked`` at once, whatever op carries it, so a later test does not spend its
budget on a hang already seen.

Invariant: the key is the call and its shown input only, never an expected answer, and a
request that names no input (a batched loop over many inputs, an attribute read) has no key:
only the very call that hung is not asked again.
"""

from __future__ import annotations

from harness.sandbox.failures import CandidateTimeout


class CandidateNotAsked(CandidateTimeout):
    """A call not made: the same call on the same input ran out of time earlier in the run
    (``Candidate.known_hangs``), so asking again would only spend the budget once more. Its
    verdict is a timeout's (the test scores 0 as the first did); its reason says "not run"."""


def hang_key(what: str) -> str | None:
    """The call a request made, whatever op carried it (``call`` alone, ``reads`` ahead of
    the attributes): ``regex_to_dfa on '(cat|car|dog)s?'``; None when ``what`` names no
    input (a batched loop over many inputs, an attribute read)."""
    for op in ("call ", "reads "):
        if what.startswith(op) and " on " in what:
            return what[len(op):].removesuffix(" (a batched loop)")
    return None
