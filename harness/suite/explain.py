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

from harness.suite.findings import FINDING_WORDS
from harness.suite.tiers import decision

DEAD = -1

_GLOSS = {"path": "(the bytes from the start state to the state)"}
_PLAIN = {"finding"}   # facts shown as text, not as a Python literal
MAX_COMPARED_PAIRS = 20_000   # state pairs walked by ``table_finding`` before it gives up (no finding)


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
    """``call()`` must raise (the spec says the input is refused or an error, without a
    class): nothing raised fails the test. When ``valueerror`` names a contract decision,
    an exception that is not a ``ValueError`` is that decision's departure (a note in the
    default tier, a failure under ``--strict``)."""
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - any class is a refusal in the spec's text
        if valueerror is not None:
            decision(valueerror, isinstance(exc, ValueError),
                     f"{reason}: raised {type(exc).__name__}: {first_line(exc)}"
                     + "".join(f"; {k}={show(v)}" for k, v in facts.items()))
        return
    fail(reason + " (nothing was raised)", **facts)


def expect_valueerror(key: str, call, reason: str, **facts) -> None:
    """A contract decision that ``call()`` raises ``ValueError`` (the spec is silent)."""
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
    the candidate refuses a pattern that needs Python syntax the spec does not list
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
        text = str(value) if key in _PLAIN else show(value)
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
    if isinstance(value, (set, frozenset)):
        return _sorted_set(value)
    return repr(value)


def _sorted_set(value: set | frozenset) -> str:
    """A set as Python writes it, its items in order: a set's own iteration order can differ
    between a literal compiled now and the same literal loaded from a ``.pyc`` (marshal rebuilds
    it), and a report's text must not depend on the bytecode cache."""
    try:
        items = sorted(value)
    except TypeError:  # items that do not compare with each other: by their text
        items = sorted(value, key=repr)
    inner = ", ".join(repr(item) for item in items)
    if isinstance(value, frozenset):
        return f"frozenset({{{inner}}})" if items else "frozenset()"
    return f"{{{inner}}}" if items else "set()"


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


# --------------------------------------------------------------------------- findings


def table_finding(want_t, want_a, got_t, got_a) -> str | None:
    """What separates a candidate's table from the expected canonical one, as one sentence
    a student can act on, or None when they are equal (or too large to compare).

    The sentence names the mistake the evidence shows, in this order: a state that cannot
    reach an accepting state (a dead sink kept: section 2.2 step 1); another language (the
    shortest, then byte-smallest, string on which they differ); the same language with more
    states (not minimized: step 2); the same language and the same number of states (only
    the numbering differs: step 3; two minimal DFAs of one language differ only by it).
    ``harness.suite.diagnosis`` reads these sentences (``FINDING_WORDS``) to name the pitfall.

    Example::

        >>> table_finding(hand_trans(), HAND_ACCEPT, depth_first_trans, depth_first_accept)
        'the same language and the same 7 states, numbered in another order ...'
    """
    want_t, got_t = np.asarray(want_t), np.asarray(got_t)
    want_a, got_a = np.asarray(want_a, dtype=bool), np.asarray(got_a, dtype=bool)
    if got_t.ndim != 2 or got_t.shape[1:] != (256,) or got_a.shape != (got_t.shape[0],):
        return None
    if want_t.shape == got_t.shape and (want_t == got_t).all() and (want_a == got_a).all():
        return None
    stuck = _first_dead_state(got_t, got_a)
    if stuck is not None:
        return (f"state {stuck} of your DFA cannot reach an accepting state: {FINDING_WORDS['dead sink']} "
                f"(section 2.2 step 1: transitions into it must be DEAD)")
    witness = _distinguishing_string(want_t, want_a, got_t, got_a)
    if witness is False:
        return None   # too large to compare here
    if witness is not None:
        yours = "accepts" if _accepts(got_t, got_a, witness) else "refuses"
        return f"{FINDING_WORDS['language']}: your DFA {yours} {witness!r}, the expected one does the opposite"
    n_want, n_got = want_t.shape[0], got_t.shape[0]
    if n_got > n_want:
        return (f"the same language, but {n_got} states where the minimal DFA has {n_want}: "
                f"{FINDING_WORDS['not minimal']} (section 2.2 step 2)")
    if n_got < n_want:   # only when the expected table is not minimal itself (a pair of the candidate's)
        return f"the same language, but {n_got} states where the other table has {n_want}"
    return (f"the same language and the same {n_got} states, {FINDING_WORDS['numbering']} (section 2.2 step 3: "
            f"breadth first from the start state, bytes in ascending order)")


def _first_dead_state(trans: np.ndarray, accept: np.ndarray) -> int | None:
    """The lowest state from which no accepting state is reachable, or None."""
    live = accept.copy()
    while True:
        targets = np.where(trans >= 0, trans, 0)
        grown = live | ((trans >= 0) & live[targets]).any(axis=1)
        if (grown == live).all():
            break
        live = grown
    dead = np.flatnonzero(~live)
    return int(dead[0]) if len(dead) else None


def _accepts(trans: np.ndarray, accept: np.ndarray, data: bytes) -> bool:
    state = walk(trans, 0, data)
    return state != DEAD and bool(accept[state])


def _distinguishing_string(want_t, want_a, got_t, got_a):
    """The shortest (then byte-smallest) string one table accepts and the other refuses;
    None when the languages are equal; False past ``MAX_COMPARED_PAIRS`` pairs."""
    def accepting(s, accept):
        return s != DEAD and bool(accept[s])

    start = (0, 0)
    parent: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {start: None}
    queue = deque([start])
    while queue:
        pair = queue.popleft()
        if accepting(pair[0], want_a) != accepting(pair[1], got_a):
            out = []
            while parent[pair] is not None:
                pair, byte = parent[pair]
                out.append(byte)
            return bytes(reversed(out))
        row_w = want_t[pair[0]] if pair[0] != DEAD else np.full(256, DEAD)
        row_g = got_t[pair[1]] if pair[1] != DEAD else np.full(256, DEAD)
        codes, first = np.unique(row_w.astype(np.int64) * (1 << 32) + row_g.astype(np.int64), return_index=True)
        for byte in sorted(int(b) for b in first):
            nxt = (int(row_w[byte]), int(row_g[byte]))
            if nxt not in parent and nxt != (DEAD, DEAD):
                parent[nxt] = (pair, byte)
                if len(parent) > MAX_COMPARED_PAIRS:
                    return False
                queue.append(nxt)
    return None
