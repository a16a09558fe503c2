"""How a candidate process fails, as verdicts: the ``CandidateGone`` family, and the rule
that tells the machine's refusal to start a process from the candidate's own crash.

- ``CandidateCrashed`` (verdict ``crashed``): the process died mid-call;
- ``CandidateTimeout`` (``timeout``): it ran past its CPU budget or the wall-clock backstop
  (``CandidateNotAsked``, ``harness.sandbox.hangs``, is one too);
- ``CandidateProtocolError`` (``protocol``): it broke the channel's rules;
- ``HarnessCouldNotStart`` (``harness``): the machine had no process or memory to start it,
  twice (``harness.sandbox.client.Candidate.start`` tries once more): nothing of the student's
  code ran, the course staff's business (``machine_refusal`` says when).

All derive from ``CandidateGone``, a ``BaseException``, so a test's ``except Exception``
cannot swallow the end of the candidate's process.

One failure is the grader's own and no verdict on the candidate: ``HarnessCannotSend``, a
request the grader's side could not encode (a value the channel does not carry, one past
its bounds). Nothing was sent, the candidate's process goes on; it is a ``BaseException``
too, so neither ``pytest.raises(ValueError)`` nor ``except Exception`` takes it for the
candidate's exception, and the catalogue reports the test as "error" (``harness.suite.plugin``).

Invariant: ``machine_refusal`` names the machine only for what happens before any of the
candidate's code runs (``Popen``'s own ``EAGAIN``/``ENOMEM``, no cgroup or uid to be had, a
starter's own line saying so); anything else the candidate's process does is its own verdict.
"""

from __future__ import annotations

import errno
import os

from harness.sandbox import confine, resources


class CandidateGone(BaseException):
    """The candidate process can no longer answer; ``verdict`` names why."""

    verdict = "crashed"


class CandidateCrashed(CandidateGone):
    verdict = "crashed"


class CandidateTimeout(CandidateGone):
    verdict = "timeout"


class CandidateProtocolError(CandidateGone):
    verdict = "protocol"


class HarnessCouldNotStart(CandidateGone):
    """The machine refused to start the candidate's process (no process or memory left:
    ``EAGAIN``, ``ENOMEM``), twice: nothing of the student's code ran. ``str`` starts with
    ``COULD_NOT_START``, then the machine's words (for the course staff)."""

    verdict = "harness"


class HarnessCannotSend(BaseException):
    """The grader's side could not encode a request (``harness.sandbox.channel.pack`` raised:
    a value of no type the channel carries, a bound): the harness's error, never the
    candidate's answer. ``str`` starts with ``CANNOT_SEND``; the cause is ``__cause__``."""

    verdict = "harness"


CANNOT_SEND = "harness error: the grader could not send"
COULD_NOT_START = resources.COULD_NOT_START
MACHINE_REFUSALS = ("Resource temporarily unavailable", "Cannot allocate memory")
"""strerror(EAGAIN) and strerror(ENOMEM): what the kernel says when it has no process or memory to give."""
STARTERS = ("bwrap: ", "setpriv: ")
"""The programs that start a candidate (before any of its code runs): a line of theirs that
ends the process is the machine's refusal, not the candidate's doing."""


def machine_refusal(exc: BaseException, output: str) -> str | None:
    """The machine's words when ``exc`` means its process could not start for want of
    processes or memory (``Popen``'s own ``EAGAIN``/``ENOMEM``, no cgroup or uid to be had
    (``confine.plan``'s ``ConfinementUnavailable``: the verb checked that confinement works
    before it began), or a line of bwrap or setpriv saying so before any of the candidate's
    code ran; ``output``: what the process printed), else None."""
    if isinstance(exc, OSError) and exc.errno in (errno.EAGAIN, errno.ENOMEM):
        return f"starting its process: {os.strerror(exc.errno)}"
    if isinstance(exc, confine.ConfinementUnavailable):  # no cgroup or uid left now (the verb's check passed)
        return str(exc)
    if not isinstance(exc, CandidateCrashed):
        return None
    lines = output.strip().splitlines()
    first = lines[0] if lines else ""
    if first.startswith(STARTERS) and any(words in first for words in MACHINE_REFUSALS):
        from harness.sandbox.text import escape

        return escape(first[:300])
    return None
