"""Failures a student can act on: one line of reason, then a small counterexample.

Every catalogue assertion about a table or a mask fails through ``fail(reason, **facts)``,
which raises ``CatalogueFailure`` (an ``AssertionError``) carrying ``reason`` (one line,
shown in the verdict table) and ``details`` (the facts, one per line, shown under the
table and in the reports). The facts name the pattern, the path bytes that reach the
state, the state, the token id and bytes, and expected against got.

Example::

    >>> fail("mask differs from walking the token's bytes", pattern="(cat|car|dog)s?",
    ...      path=b"ca", state=3, token=(11, b"ts"), expected=True, got=False)
    Traceback (most recent call last):
    CatalogueFailure: mask differs from walking the token's bytes
      pattern:  '(cat|car|dog)s?'
      path:     b'ca'  (the bytes from the start state to the state)
      ...
"""

from __future__ import annotations

from collections import deque

import numpy as np

from harness.suite.tiers import decision

DEAD = -1

_GLOSS = {"path": "(the bytes from the start state to the state)"}


class CatalogueFailure(AssertionError):
    """A catalogue check failed: ``reason`` is one line, ``details`` the counterexample."""

    def __init__(self, reason: str, details: str):
        self.reason = reason
        self.details = details
        super().__init__(f"{reason}\n{details}" if details else reason)


def fail(reason: str, **facts) -> None:
    """Raise ``CatalogueFailure`` with ``reason`` and the facts rendered one per line."""
    raise CatalogueFailure(reason, render_facts(facts))


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else ""


def expect_refusal(call, reason: str, valueerror: str | None = None, **facts) -> None:
    """``call()`` must raise (the seed says the input is refused or an error, without a
    class): nothing raised fails the test. When ``valueerror`` names a contract decision,
    an exception that is not a ``ValueError`` is that decision's departure (a note in the
    default tier, a failure under ``--strict``)."""
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - any class is a refusal in the seed's text
        if valueerror is not None:
            decision(valueerror, isinstance(exc, ValueError),
                     f"{reason}: raised {type(exc).__name__}: {first_line(exc)}"
                     + "".join(f"; {k}={show(v)}" for k, v in facts.items()))
        return
    fail(reason + " (nothing was raised)", **facts)


def expect_valueerror(key: str, call, reason: str, **facts) -> None:
    """A contract decision that ``call()`` raises ``ValueError`` (the seed is silent)."""
    where = "".join(f"; {k}={show(v)}" for k, v in facts.items())
    try:
        call()
    except ValueError:
        return
    except Exception as exc:  # noqa: BLE001 - the class is what the decision is about
        decision(key, False, f"{reason}: raised {type(exc).__name__}: {first_line(exc)}{where}")
        return
    decision(key, False, f"{reason}: nothing was raised{where}")


def compile_or_note(impl, pattern: str):
    """``impl.regex_to_dfa(pattern)``, or None with a note on ``extra_regex_syntax`` when
    the candidate refuses a pattern that needs Python syntax the seed does not list
    (``golden.readings.uses_extra_syntax``); refusing anything else fails the test."""
    from golden.readings import uses_extra_syntax

    try:
        return impl.regex_to_dfa(pattern)
    except Exception as exc:  # noqa: BLE001 - a refusal, of whatever class
        reason = f"{pattern!r} was refused: {type(exc).__name__}: {first_line(exc)}"
        if not uses_extra_syntax(pattern):
            fail("a pattern of the subset was refused", pattern=pattern, error=reason)
        decision("extra_regex_syntax", False, reason)
        return None


def render_facts(facts: dict) -> str:
    lines = []
    for key, value in facts.items():
        text = show(value)
        gloss = _GLOSS.get(key)
        lines.append(f"  {(key + ':').ljust(9)} {text}" + (f"  {gloss}" if gloss else ""))
    return "\n".join(lines)


def show(value) -> str:
    """A short, exact rendering: bytes as Python literals, token pairs as ``id b'..'``."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], (int, np.integer)) \
            and (value[1] is None or isinstance(value[1], bytes)):
        return f"id {int(value[0])} {value[1]!r}"
    if isinstance(value, (np.integer, np.bool_, np.floating)):
        return repr(value.item())  # 5, not np.int32(5)
    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=40)
    if isinstance(value, str) and len(value) > 300:
        return repr(value[:300]) + f"... ({len(value)} chars)"
    return repr(value)


def shortest_path(trans: np.ndarray, state: int) -> bytes | None:
    """The shortest (then byte-smallest) bytes leading from state 0 to ``state`` in
    ``trans``, or None when unreachable. Used only to *describe* a state."""
    if state == 0:
        return b""
    rows = np.asarray(trans).tolist()
    parent: dict[int, tuple[int, int]] = {0: (-1, -1)}
    queue = deque([0])
    while queue:
        s = queue.popleft()
        for byte, t in enumerate(rows[s]):
            if t != DEAD and t not in parent:
                parent[t] = (s, byte)
                if t == state:
                    return _unwind(parent, t)
                queue.append(t)
    return None


def _unwind(parent: dict, state: int) -> bytes:
    out = []
    while parent[state][0] != -1:
        state, byte = parent[state]
        out.append(byte)
    return bytes(reversed(out))


def walk(trans: np.ndarray, state: int, data: bytes) -> int:
    """The brute-force definition: ``data``'s bytes through ``trans`` from ``state``."""
    for byte in data:
        if state == DEAD:
            break
        state = int(trans[state, byte])
    return state


def first_difference(expected: np.ndarray, got: np.ndarray):
    """The first index (as a tuple) where two equal-shaped arrays differ, or None."""
    diff = np.argwhere(np.asarray(expected) != np.asarray(got))
    return tuple(int(i) for i in diff[0]) if len(diff) else None
