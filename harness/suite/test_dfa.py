"""Catalogue: the DFA (spec tests 1, 3, 4, 5, 6).

Oracles: the spec's hand table (section 3), Python's ``re.fullmatch`` on bytes, the
derivative oracle's canonical DFA (``oracles.derivatives``), and a backward search
written here. The candidate's own tables only *generate inputs* (random walks); they
never supply an expected answer.
"""

from __future__ import annotations

import re
from collections import deque

import numpy as np
import pytest

from harness.sandbox import call_many
from harness.suite import oracle_memo, strength
from harness.suite.batched import call_and_read
from harness.suite.explain import (
    DEAD,
    expect_refusal,
    expect_valueerror,
    fail,
    first_difference,
    shortest_path,
    table_finding,
)
from harness.suite.inputs import (
    EQUIVALENT_PAIRS,
    EXTRA_SYNTAX,
    HAND_ACCEPT,
    HAND_PATTERN,
    OVER_THE_CAP,
    PYTHON_ONLY_SYNTAX,
    RE_PATTERNS,
    SUPPORTED,
    UNSUPPORTED,
    hand_trans,
    random_patterns,
    repeat_shapes,
)
from harness.suite.seeding import derive, seeded_rng
from harness.suite.tiers import decision, is_strict

DFA_READS = [["trans", "array"], ["accept", "array"], ["n_states", "int"]]  # compile_ok's reads, in order


def compile_ok(impl, pattern: str):
    """The candidate's DFA for a pattern it must accept, with its arrays checked for
    shape and dtype (a wrong type is a failure, not a crash of the test)."""
    # the call and the three reads made ahead in one round trip (harness.suite.batched.call_and_read)
    ahead = call_and_read(impl, "regex_to_dfa", [pattern], DFA_READS)
    try:
        dfa = ahead.take("call", lambda: impl.regex_to_dfa(pattern))
    except ValueError as exc:
        fail("a pattern of the subset was refused", pattern=pattern, error=(str(exc).splitlines() or [""])[0])
    trans, accept = np.asarray(ahead.take("trans", lambda: dfa.trans)), np.asarray(ahead.take("accept",
                                                                                              lambda: dfa.accept))
    n = int(ahead.take("n_states", lambda: dfa.n_states))
    if trans.dtype != np.int32 or trans.shape != (n, 256):
        fail("DFA.trans must be int32 [n_states, 256]", pattern=pattern, dtype=str(trans.dtype), shape=trans.shape)
    if accept.dtype != np.bool_ or accept.shape != (n,):
        fail("DFA.accept must be bool [n_states]", pattern=pattern, dtype=str(accept.dtype), shape=accept.shape)
    if n < 1 or trans.min() < DEAD or trans.max() >= n:
        fail("DFA.trans holds a target outside DEAD..n_states-1", pattern=pattern, n_states=n,
             min=int(trans.min()), max=int(trans.max()))
    return dfa, trans, accept


@pytest.mark.unit
@pytest.mark.smoke
def test_hand_example(impl):
    dfa, trans, accept = compile_ok(impl, HAND_PATTERN)
    if dfa.n_states != 7:
        fail("the hand example has 7 states (section 3)", pattern=HAND_PATTERN, expected=7, got=int(dfa.n_states),
             **hand_finding(trans, accept))
    if accept.tolist() != HAND_ACCEPT:
        fail("accepting states differ from section 3 (expected {5, 6})", pattern=HAND_PATTERN,
             expected=[i for i, a in enumerate(HAND_ACCEPT) if a], got=np.flatnonzero(accept).tolist(),
             **hand_finding(trans, accept))
    expected = hand_trans()
    where = first_difference(expected, trans)
    if where is not None:
        state, byte = where
        fail(f"edge {state} --{bytes([byte])!r}--> differs from section 3", pattern=HAND_PATTERN,
             state=state, path=shortest_path(expected, state), byte=bytes([byte]),
             expected=int(expected[state, byte]), got=int(trans[state, byte]), **hand_finding(trans, accept))
    _check_step_and_matches(impl, dfa)
    strength.run_for("test_hand_example", impl)


def hand_finding(trans, accept, prefix: str = "") -> dict:
    """``{"finding": ...}`` when the candidate's table of the hand example differs from
    section 3's (``explain.table_finding``), else ``{}``: a fact for a failure's details.
    ``prefix`` says why it matters to a test that addresses states by section 3's numbers."""
    finding = table_finding(hand_trans(), HAND_ACCEPT, trans, accept)
    return {"finding": prefix + finding} if finding else {}


def _check_step_and_matches(impl, dfa) -> None:
    cases = [(0, b"", 0), (0, b"ca", 3), (0, b"cats", 6), (3, b"t", 5), (0, b"dogs", 6), (0, b"x", DEAD),
             (0, b"catss", DEAD), (5, b"", 5)]
    for start, data, want in cases:  # delta*(s, w): section 2's definition on section 3's table
        got = dfa.step(start, data)
        if got != want:
            fail("DFA.step disagrees with section 3", start=start, data=data, expected=want, got=got)
    for data in (b"cat", b"car", b"dog", b"cats", b"dogs", b"", b"ca", b"cat ", b"dgo", b"catss"):
        want = re.fullmatch(HAND_PATTERN.encode(), data) is not None
        if bool(dfa.matches(data)) != want:
            fail("DFA.matches disagrees with re.fullmatch", pattern=HAND_PATTERN, data=data, expected=want,
                 got=bool(dfa.matches(data)))
    if impl.DEAD != -1:
        fail("DEAD must be -1", expected=-1, got=impl.DEAD)
    try:
        from_dead = dfa.step(DEAD, b"a")
    except Exception as exc:  # noqa: BLE001 - the spec does not say; the contract decides
        from_dead = f"{type(exc).__name__}: {exc}"
    decision("step_from_dead", from_dead == DEAD, f"DFA.step(DEAD, b'a') gave {from_dead!r}, expected DEAD")
    for bad in (7, -2):
        expect_valueerror("step_out_of_range_valueerror", lambda: dfa.step(bad, b"a"),
                          f"DFA.step({bad}, b'a') on a 7-state DFA")


class _raises:
    """``pytest.raises`` with a catalogue failure message (and the exception kind)."""

    def __init__(self, kind, reason: str, **facts):
        self.kind, self.reason, self.facts = kind, reason, facts

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            fail(self.reason + " (nothing was raised)", **self.facts)
        if not issubclass(exc_type, self.kind):
            fail(self.reason + f" (got {exc_type.__name__}: {str(exc).splitlines()[0] if str(exc) else ''})",
                 **self.facts)
        return True


# ---------------------------------------------------------------- test_matches_python_re


@pytest.mark.golden
def test_matches_python_re(impl):
    rng = seeded_rng(20240603)
    checked = 0
    for pattern in RE_PATTERNS:
        dfa, trans, accept = compile_ok(impl, pattern)
        # the probe strings (drawn from rng, by length) and re.fullmatch of each (oracle_memo._probes)
        strings, wants = oracle_memo.answer("re_probes", pattern, trans, accept, rng, 25)
        for data, got, want in zip(strings, call_many(dfa.matches, [(data,) for data in strings]), wants):
            got = bool(got)
            if got != want:
                fail("DFA.matches disagrees with Python's re.fullmatch", pattern=pattern, data=data,
                     expected=want, got=got, state=dfa.step(0, data))
            checked += 1
    assert checked > 1000, f"only {checked} strings were checked"
    strength.run_for("test_matches_python_re", impl)


# ---------------------------------------------------------------- test_every_state_is_live


def dead_states(trans: np.ndarray, accept: np.ndarray) -> list[int]:
    """States from which no accepting state is reachable (a backward search)."""
    n = len(accept)
    preds: list[set[int]] = [set() for _ in range(n)]
    for s, row in enumerate(trans.tolist()):
        for t in set(row) - {DEAD}:
            preds[t].add(s)
    live = set(np.flatnonzero(accept).tolist())
    queue = deque(live)
    while queue:
        for s in preds[queue.popleft()] - live:
            live.add(s)
            queue.append(s)
    return sorted(set(range(n)) - live)


LIVENESS_PATTERNS = RE_PATTERNS + ("a(b|c)*d", "(ab|ac|ad)e", "[0-9]{3}-[0-9]{4}", "x*y*z*")
# then, whatever the run seed: every repeat of every atom of the random grammar (one-state
# languages such as "(a)*" among them), before the seeded random patterns
LIVENESS_SHAPES = repeat_shapes()


@pytest.mark.property
def test_every_state_is_live(impl):
    rng = seeded_rng(77)
    for pattern in LIVENESS_PATTERNS + LIVENESS_SHAPES + tuple(random_patterns(seed=derive(7), n=40)):
        dfa, trans, accept = compile_ok(impl, pattern)
        dead = dead_states(trans, accept)
        if dead:
            fail("a state cannot reach an accepting state (a dead state kept)", pattern=pattern,
                 state=dead[0], path=shortest_path(trans, dead[0]), dead_states=dead)
        if pattern in LIVENESS_PATTERNS:  # the prefixes the DFA keeps alive are exactly the viable ones
            # the first 300 probe strings and regex partial matching of each: is it a prefix of a member?
            strings, viable = oracle_memo.answer("live_probes", pattern, trans, accept, rng, 8)
            for data, reached, partial in zip(strings, call_many(dfa.step, [(0, data) for data in strings]), viable):
                alive = reached != DEAD
                if alive != partial:
                    fail("the DFA's liveness after a prefix differs from regex partial matching",
                         pattern=pattern, path=data, expected=f"alive={not alive}", got=f"alive={alive}",
                         state=dfa.step(0, data))


# ---------------------------------------------------------------- test_canonical_form


@pytest.mark.property
def test_canonical_form(impl):
    from oracles import derivatives  # the oracle is part of the harness: no skip when missing

    for left, right in EQUIVALENT_PAIRS:
        _assert_same_language_by_re(left, right)
        _, t1, a1 = compile_ok(impl, left)
        _, t2, a2 = compile_ok(impl, right)
        want_t, want_a = derivatives.canonical_dfa(left)
        # the finding of the pair: each table against the canonical one (the pair alone cannot say which is off)
        finding = table_finding(want_t, want_a, t1, a1) or table_finding(*derivatives.canonical_dfa(right), t2, a2)
        _compare_tables(f"{left!r} and {right!r} have one language but different tables",
                        t1, a1, t2, a2, left=left, right=right, finding=finding)
        _compare_tables("the table differs from the derivative oracle's canonical DFA", want_t, want_a,
                        t1, a1, pattern=left)


def _assert_same_language_by_re(left: str, right: str) -> None:
    # Preliminary, on the test's own data: the pairs really are equivalent (up to length 5).
    data = oracle_memo.answer("same_language", left, right)   # definitions.same_language_counterexample
    assert data is None, f"catalogue bug: {left!r} and {right!r} differ on {data!r}"


def _compare_tables(reason: str, want_t, want_a, got_t, got_a, finding: str | None = None, **facts) -> None:
    """Fail with ``reason`` where the tables differ; ``finding`` (default: ``table_finding``
    of the two) says what the difference shows."""
    want_t, want_a = np.asarray(want_t), np.asarray(want_a)
    finding = finding or table_finding(want_t, want_a, got_t, got_a)
    facts = {**facts, "finding": finding} if finding else facts
    if want_t.shape != got_t.shape:
        fail(reason, **facts, expected=f"{want_t.shape[0]} states", got=f"{got_t.shape[0]} states")
    where = first_difference(want_a, got_a)
    if where is not None:
        fail(reason, **facts, state=where[0], path=shortest_path(want_t, where[0]),
             expected=f"accept={bool(want_a[where])}", got=f"accept={bool(got_a[where])}")
    where = first_difference(want_t, got_t)
    if where is not None:
        state, byte = where
        fail(reason, **facts, state=state, path=shortest_path(want_t, state), byte=bytes([byte]),
             expected=int(want_t[where]), got=int(got_t[where]))


# ---------------------------------------------------------------- test_unsupported_syntax_raises


@pytest.mark.boundary
def test_unsupported_syntax_raises(impl):
    for pattern, what in UNSUPPORTED:  # the spec: these raise (the class is a contract decision)
        expect_refusal(lambda: impl.regex_to_dfa(pattern), f"{what} must be refused",
                       valueerror="unsupported_syntax_valueerror", pattern=pattern)
    for pattern in SUPPORTED:
        compile_ok(impl, pattern)
    for pattern in EXTRA_SYNTAX:  # Python's meaning, where the spec does not list the construct
        try:
            _, trans, accept = compile_ok(impl, pattern)
        except Exception as exc:  # noqa: BLE001 - a refusal of any class (or a failure of compile_ok)
            decision("extra_regex_syntax", False, f"{pattern!r}: {type(exc).__name__}: "
                                                  f"{(str(exc).splitlines() or [''])[0]}")
            continue
        _same_language_as_re(pattern, trans, accept, "Python syntax the spec does not list was accepted "
                             "with another language than Python's (refusing it is allowed)")
    for pattern in PYTHON_ONLY_SYNTAX:  # refused by the contract; Python's meaning a note; another a failure
        try:
            impl.regex_to_dfa(pattern)
        except Exception:  # noqa: BLE001 - a refusal of any class: what the contract decides
            continue
        _, trans, accept = compile_ok(impl, pattern)
        _same_language_as_re(pattern, trans, accept, "Python syntax the spec does not name was accepted "
                             "with another language than Python's (refusing it is allowed)")
        decision("python_only_syntax_refused", False, f"{pattern!r} was accepted (with Python's meaning)")
    if is_strict():  # an uncapped reading of the spec would build a billion states: not asked by default
        for pattern in OVER_THE_CAP:
            expect_valueerror("repeat_cap", lambda: impl.regex_to_dfa(pattern), "a repeat bound over the cap",
                              pattern=pattern)
    expect_raises_type = "nothing was raised"
    try:
        impl.regex_to_dfa(b"ab")
    except TypeError:
        expect_raises_type = None
    except Exception as exc:  # noqa: BLE001 - the class is the decision
        expect_raises_type = f"raised {type(exc).__name__}"
    decision("bytes_pattern_typeerror", expect_raises_type is None,
             f"regex_to_dfa(b'ab') must raise TypeError: {expect_raises_type}")
    strength.run_for("test_unsupported_syntax_raises", impl)


def _same_language_as_re(pattern: str, trans, accept, reason: str) -> None:
    """Fail (in every tier) when the candidate's table and ``re.fullmatch`` differ on a probe."""
    wrong = oracle_memo.answer("re_disagreement", pattern, trans, accept,   # readings.first_disagreement_with_re
                               (b"", b"a", b"A", b"b", b"ab", b"aa"))
    if wrong is not None:
        fail(reason, pattern=pattern, data=wrong, expected=re.fullmatch(pattern.encode("ascii"), wrong) is not None,
             got=not (re.fullmatch(pattern.encode("ascii"), wrong) is not None))
