"""Catalogue: token masks and the Constraint (spec tests 2, 7, 8, 9, 10).

Oracles: the spec's hand masks (section 3), the brute-force definition (walk a token's
bytes through the DFA: ``m_s[t] = delta*(s, bytes(t)) != DEAD``, ``m_s[eos] = s in F``),
and the golden file written from the derivative oracle.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from harness.sandbox import call_many
from harness.suite import golden_masks, oracle_memo, strength
from harness.suite.batched import Prefetched, explore, sweep
from harness.suite.explain import DEAD, expect_refusal, expect_valueerror, fail, shortest_path
from harness.suite.inputs import (
    HAND_ACCEPT,
    HAND_EOS,
    HAND_MASKS,
    HAND_PATTERN,
    HAND_VOCAB,
    RE_PATTERNS,
    TOOL_SCHEMA,
    advanced,
    hand_trans,
    make_constraint,
    pattern_alphabet,
    random_patterns,
    random_vocab,
)
from harness.suite.seeding import derive, seeded_rng
from harness.suite.test_dfa import compile_ok, hand_finding
from harness.suite.tiers import decision

_LIVE = Prefetched()  # nothing made ahead: every call one round trip


def mask_of(index, state: int, vocab_size: int, ahead: Prefetched = _LIVE, **facts) -> np.ndarray:
    """``index.mask(state)`` checked to be bool [V] (``ahead``: the answer made ahead, if any)."""
    mask = np.asarray(ahead.take("mask", lambda: index.mask(state)))
    if mask.dtype != np.bool_ or mask.shape != (vocab_size,):
        fail("TokenIndex.mask must return bool [V]", **facts, state=state, dtype=str(mask.dtype), shape=mask.shape)
    return mask


def next_states(index, pairs: list, ahead: Prefetched = _LIVE) -> list:
    """``call_many(index.next_state, pairs)`` (``ahead``: its answers made ahead, counted as a
    live ``many`` counts them)."""
    return ahead.take("many", lambda: call_many(index.next_state, pairs),
                      lambda answers: index.next_state.counted(answers, len(pairs)))


def brute_force(trans: np.ndarray, accept: np.ndarray, vocab, eos_id) -> tuple[np.ndarray, np.ndarray]:
    """(masks bool [S, V], ends int [S, V]): every state's mask by walking every token's bytes (the
    definition, ``harness.suite.definitions.brute_force``), and where each walk ends; kept by the
    mutant runner's warm grader for the tables it saw the reference give (``harness.suite.oracle_memo``)."""
    return oracle_memo.answer("brute_force", trans, accept, vocab, eos_id)


# ---------------------------------------------------------------- test_hand_example_masks


NUMBERED_BY_SECTION_3 = "this test addresses states by section 3's numbers, and your DFA of the hand example differs: "


@pytest.mark.unit
@pytest.mark.smoke
def test_hand_example_masks(impl):
    dfa, trans, accept = compile_ok(impl, HAND_PATTERN)
    context = hand_finding(trans, accept, NUMBERED_BY_SECTION_3)
    index = impl.TokenIndex(dfa, HAND_VOCAB, HAND_EOS)
    want_masks, want_ends = brute_force(hand_trans(), np.array(HAND_ACCEPT), HAND_VOCAB, HAND_EOS)
    for state, allowed in HAND_MASKS.items():  # the spec's table, then the definition for 1, 2, 4
        assert set(np.flatnonzero(want_masks[state])) == allowed, "catalogue bug: hand masks"
    for state in range(7):
        got = mask_of(index, state, len(HAND_VOCAB), pattern=HAND_PATTERN)
        _compare_mask(want_masks[state], got, state, hand_trans(), HAND_VOCAB, pattern=HAND_PATTERN, eos_id=HAND_EOS,
                      **context)
    # next_state for tokens (delta*), then EOS and refused tokens (the contract's decisions)
    for state, token, want in [(0, 9, 5), (0, 8, 3), (3, 11, 6), (0, 12, DEAD), (0, 1, DEAD), (6, 7, DEAD),
                               (2, 5, 4), (5, 13, 5), (6, 13, 6), (0, 13, DEAD), (0, 14, DEAD)]:
        check_next_state(index, state, token, want, HAND_VOCAB, HAND_EOS, hand_trans(), pattern=HAND_PATTERN,
                         **context)
    for state, token in ((7, 0), (0, 15), (-2, 0), (0, -1)):  # -1: a token id Python would index from the end
        expect_valueerror("next_state_out_of_range_valueerror", lambda: index.next_state(state, token),
                          f"next_state({state}, {token}) with 7 states and 15 tokens")
    expect_valueerror("mask_out_of_range_valueerror", lambda: index.mask(7), "mask(7) with 7 states")
    strength.run_for("test_hand_example_masks", impl)


def check_next_state(index, state: int, token: int, want: int, vocab, eos_id, trans, **facts) -> None:
    """``next_state(state, token)`` against the walk of the token's bytes. The spec defines
    it for tokens with bytes (delta*, DEAD where the walk dies); for EOS, a special or the
    empty token it is the contract's decision (``eos_next_state``,
    ``next_state_refused_is_dead``): a departure there is a note in the default tier."""
    try:
        got = index.next_state(state, token)
    except Exception as exc:  # noqa: BLE001 - allowed only where the spec is silent
        got = f"{type(exc).__name__}: {str(exc).strip()[:100]}"
    if got == want:
        return
    what = f"next_state({state}, {token}) gave {got!r}, expected {want}"
    if token == eos_id:
        decision("eos_next_state", False, what + " (EOS)")
    elif not vocab[token]:
        decision("next_state_refused_is_dead", False, what + f" (token {vocab[token]!r})")
    else:
        fail("TokenIndex.next_state differs from walking the token's bytes", **facts, state=state,
             path=shortest_path(trans, state), token=(token, vocab[token]), expected=want, got=got)


def _compare_mask(want: np.ndarray, got: np.ndarray, state: int, trans, vocab, **facts) -> None:
    diff = np.flatnonzero(want != got)
    if len(diff):
        # the smallest counterexample: the shortest token, then the lowest id
        token = min((int(t) for t in diff), key=lambda t: (len(vocab[t] or b""), t))
        fail("a mask differs from walking the token's bytes through the DFA", **facts, state=state,
             path=shortest_path(trans, state), token=(token, vocab[token]), expected=bool(want[token]),
             got=bool(got[token]), all_differences=diff[:12].tolist())


# ---------------------------------------------------------------- test_masks_match_brute_force


def brute_force_cases(impl):
    rng = seeded_rng(1234)
    patterns = list(RE_PATTERNS[:7]) + random_patterns(seed=derive(11), n=6)
    schema_pattern = impl.json_schema_to_regex(TOOL_SCHEMA)
    for pattern in patterns + [schema_pattern]:
        vocab, eos_id = random_vocab(rng, pattern_alphabet(pattern)[:60], n_multi=150,
                                     all_bytes=rng.random() < 0.7)
        yield pattern, vocab, eos_id
    yield HAND_PATTERN, list(HAND_VOCAB), None  # no EOS at all


@pytest.mark.property
def test_masks_match_brute_force(impl):
    for pattern, vocab, eos_id in brute_force_cases(impl):
        dfa, trans, accept = compile_ok(impl, pattern)
        index = impl.TokenIndex(dfa, vocab, eos_id)
        want_masks, want_ends = brute_force(trans, accept, vocab, eos_id)
        facts = dict(pattern=pattern, eos_id=eos_id)
        states = range(dfa.n_states)
        # the loop's masks and next states made ahead in one round trip (harness.suite.batched.sweep, given the
        # counts only: the brute-force answers stay here); each answer is still checked here, in the same order
        ahead = sweep(index, len(states), len(vocab)) if len(states) == len(want_masks) else _LIVE
        for state in states:
            got = mask_of(index, state, len(vocab), ahead, **facts)
            _compare_mask(want_masks[state], got, state, trans, vocab, **facts)
            tokens = range(len(vocab))
            try:  # one round trip; a token that raises is found below, one call each
                nexts = next_states(index, [(state, token) for token in tokens], ahead)
            except Exception:  # noqa: BLE001 - only where the spec is silent (check_next_state says)
                nexts = None
            for token in tokens:
                want = int(want_ends[state, token])
                if nexts is None or nexts[token] != want:
                    check_next_state(index, state, token, want, vocab, eos_id, trans, pattern=pattern)


# ---------------------------------------------------------------- test_masks_match_the_golden_file


@pytest.mark.golden
def test_masks_match_the_golden_file(impl, golden):
    compared = golden_masks.replay(impl, golden)
    assert compared > 0, "the golden file holds no masks"


# ---------------------------------------------------------------- test_reachable_states_never_have_an_empty_mask


@pytest.mark.property
def test_reachable_states_never_have_an_empty_mask(impl):
    rng = seeded_rng(99)
    patterns = list(RE_PATTERNS) + random_patterns(seed=derive(5), n=20) + [impl.json_schema_to_regex(TOOL_SCHEMA)]
    for pattern in patterns:
        vocab, eos_id = random_vocab(rng, pattern_alphabet(pattern)[:60], n_multi=60, all_bytes=True)
        dfa, trans, _ = compile_ok(impl, pattern)
        index = impl.TokenIndex(dfa, vocab, eos_id)
        _explore(index, pattern, vocab, eos_id)


def _explore(index, pattern: str, vocab, eos_id) -> None:
    """Breadth first over the states reachable by tokens; each must allow something. The
    walk's calls are made ahead in one round trip up to where it could stop
    (``harness.suite.batched.explore``); each answer is still checked here, in the same order."""
    seen = {0: []}
    queue = deque([0])
    ahead = explore(index, len(vocab), eos_id)
    while queue:
        state = queue.popleft()
        mask = mask_of(index, state, len(vocab), ahead, pattern=pattern)
        if not mask.any():
            fail("a state reachable by tokens allows no token (generation would be stuck)", pattern=pattern,
                 state=state, tokens=[(t, vocab[t]) for t in seen[state]], eos_id=eos_id)
        tokens = [t for t in np.flatnonzero(mask).tolist() if t != eos_id]
        for token, target in zip(tokens, next_states(index, [(state, t) for t in tokens], ahead)):
            if target == DEAD:
                fail("next_state is DEAD for a token the mask allows", pattern=pattern, state=state,
                     token=(token, vocab[token]))
            if target not in seen:
                seen[target] = seen[state] + [token]
                queue.append(target)


# ---------------------------------------------------------------- test_constraint_lifecycle


@pytest.mark.unit
def test_constraint_lifecycle(impl):
    dfa, trans, accept = compile_ok(impl, HAND_PATTERN)
    context = hand_finding(trans, accept, NUMBERED_BY_SECTION_3)
    index = impl.TokenIndex(dfa, HAND_VOCAB, HAND_EOS)
    c = make_constraint(impl, index)
    _expect(c, state=0, done=False, complete=False, allowed=set(HAND_MASKS[0]), context=context)
    _refused(c, HAND_EOS, "EOS before the text is complete must be refused", state=0, token=(13, None))
    _refused(c, 12, "a disallowed token must be refused", state=0, token=(12, b"x"))
    _unchanged_after_refusal(c, state=0, allowed=set(HAND_MASKS[0]))
    c = make_constraint(impl, index)  # a fresh one: what a refusal leaves behind is only a decision
    c.advance(9)  # cat
    _expect(c, state=5, done=False, complete=True, allowed=set(HAND_MASKS[5]), context=context)
    c.advance(7)  # s
    _expect(c, state=6, done=False, complete=True, allowed={13}, context=context)
    c.advance(HAND_EOS)
    if not bool(c.done):
        fail("Constraint.done must be True after EOS", pattern=HAND_PATTERN, path=b"cats", got=bool(c.done))
    decision("eos_keeps_state", int(c.state) == 6, f"the state after EOS in state 6 is {int(c.state)}")
    after = np.asarray(c.mask())
    decision("mask_after_eos_empty", after.dtype == np.bool_ and after.shape == (len(HAND_VOCAB),)
             and not after.any(), f"mask() after EOS is {after.dtype} {after.shape} allowing "
             f"{np.flatnonzero(after).tolist()[:8]}")
    for token in (HAND_EOS, 7, 0):
        _refused(c, token, "nothing may follow EOS", token=token)
    resumed = advanced(impl, index, [8])  # "ca": the spec's state 3
    _expect(resumed, state=3, done=False, complete=False, allowed={2, 3, 11}, context=context)
    resumed.advance(11)  # ts
    _expect(resumed, state=6, done=False, complete=True, allowed={13}, context=context)


def _refused(c, token_id: int, reason: str, **facts) -> None:
    expect_refusal(lambda: c.advance(token_id), reason, valueerror="advance_refusal_valueerror", **facts)


def _unchanged_after_refusal(c, state: int, allowed: set[int]) -> None:
    got = dict(state=int(c.state), done=bool(c.done), allowed=set(np.flatnonzero(np.asarray(c.mask())).tolist()))
    want = dict(state=state, done=False, allowed=allowed)
    decision("refusal_changes_nothing", got == want, f"after two refused tokens: {got}, expected {want}")


_SPEC_NAMES = {"state": "Constraint.state", "done": "Constraint.done", "complete": "Constraint.is_complete()",
               "allowed": "Constraint.mask()"}   # what a student reads names the spec's interface (section 4)


def _expect(c, state: int, done: bool, complete: bool, allowed: set[int], context: dict) -> None:
    got = dict(state=int(c.state), done=bool(c.done), complete=bool(c.is_complete()),
               allowed=set(np.flatnonzero(np.asarray(c.mask())).tolist()))
    want = dict(state=state, done=done, complete=complete, allowed=allowed)
    for key in want:
        if got[key] != want[key]:
            fail(f"{_SPEC_NAMES[key]} differs from section 3's walk", pattern=HAND_PATTERN, expected=want, got=got,
                 **context)
    if np.asarray(c.mask()).shape != (len(HAND_VOCAB),):
        fail("Constraint.mask() must be bool [V]", got=np.asarray(c.mask()).shape)
