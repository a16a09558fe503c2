"""The plan (issue 51, item 3): the one generic batched operation of the candidate process
(``harness.sandbox.plans``), whose plans the catalogue builds (``harness.suite.batched``).

Oracle: the same calls made in this process on the reference. A malformed plan is a
ValueError naming the step, in the grader's process and behind the wall alike; a plan
stops where its own answers leave it nothing to go on (an answer that fails its reading,
an answer that is no object where the next step reads it, a method read as an attribute,
an exception), never elsewhere. A loop (the explore and generate of the catalogue) is
bounded before anything runs (its bound times its body within ``MAX_STEPS`` answers),
walks what the candidate's own answers reach, keeps its values, draws its logits where
the candidate's call before left the generator, and stops the same way.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import oracles.automaton as reference
from harness.sandbox import Candidate
from harness.sandbox.channel import Described
from harness.sandbox.plans import MAX_BODY, MAX_STEPS, check_plan
from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB
from tests.support.helpers import left_over

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("steps, where", [
    ("call", "plan: the steps must be a list"),
    ([["call", 1, "f", None]], "plan step 0: not [op, target, name, reading, size, *args]"),
    ([["exec", 1, "f", None, None]], "plan step 0: op must be one of"),
    ([["call", 1, "f", None, None], ["getattr", -2, "x", None, None]], "plan step 1: the target"),
    ([["call", 0, "f", None, None]], "plan step 0: the target"),
    ([["call", 1, "f", "guess", None]], "plan step 0: unknown reading 'guess'"),
    ([["call", 1, "f", "vector", None]], "plan step 0: unknown reading 'vector' with size None"),
    ([["call", 1, "f", "truth", 3]], "plan step 0: unknown reading 'truth' with size 3"),
    ([["many_range", 1, "f", None, None, [0]]], "plan step 0: many_range's args must be [*prefix, count]"),
])
def test_a_malformed_plan_is_a_value_error_naming_the_step(steps, where):
    with pytest.raises(ValueError, match="^" + re.escape(where)):
        check_plan(steps)


def test_a_plan_makes_its_calls_and_stops_where_its_answers_leave_nothing_to_go_on(harness_unchanged):
    dfa = reference.regex_to_dfa(HAND_PATTERN)
    index = reference.TokenIndex(dfa, HAND_VOCAB, HAND_EOS)
    with Candidate(None, ref_deps=True) as cand:
        module, marker = cand.module._handle.id, cand.marker
        size = len(HAND_VOCAB)
        answers, error = cand.run_plan("test", [
            ["call", module, "regex_to_dfa", "object", None, HAND_PATTERN],
            ["getattr", -1, "n_states", "int", None],
            ["getattr", -1, "accept", "array", None],
            ["call", module, "TokenIndex", None, None],  # raises: the plan ends with it
            ["getattr", -1, "n_states", "int", None],
        ])
        assert answers[1] == dfa.n_states and np.array_equal(answers[2], dfa.accept)
        assert isinstance(error, TypeError) and len(answers) == 3

        made = cand.module.TokenIndex(cand.module.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)._handle.id
        answers, error = cand.run_plan("sweep", [
            ["call", made, "mask", "vector", size, 0],
            ["many_range", made, "next_state", "length", size, 0, size],
            ["call", made, "mask", "vector", size + 1, 0],  # read as another size: the plan stops after it
            ["call", made, "mask", None, None, 1],
        ])
        assert error is None and len(answers) == 3
        assert np.array_equal(answers[0], index.mask(0)) and np.array_equal(answers[2], index.mask(0))
        assert answers[1] == [index.next_state(0, t) for t in range(size)]

        answers, error = cand.run_plan("reads", [
            ["call", module, "regex_to_dfa", "object", None, HAND_PATTERN],
            ["getattr", -1, "step", "int", None],  # a method of the DFA: the grader's proxy asks nothing
        ])
        assert error is None and len(answers) == 1

        answers, error = cand.run_plan("matches", [
            ["call", module, "regex_to_dfa", "object", None, HAND_PATTERN],
            ["call", -1, "matches", "truth", None, b"cats"],
            ["call", module, "json_schema_to_regex", "object", None, {"type": "string"}],  # data: nothing to read
            ["getattr", -3, "n_states", "int", None],
        ])
        assert error is None and answers[1:] == [dfa.matches(b"cats"), reference.json_schema_to_regex(
            {"type": "string"})]

        with pytest.raises(ValueError, match="plan step 0: op must be one of"):
            cand.run_plan("bad", [["exec", module, "regex_to_dfa", None, None, HAND_PATTERN]])
        assert cand.alive
    assert left_over(marker) == []


# --------------------------------------------------------------------------- loops (explore, generate)

ITEM, KEPT, LOGITS, RNG = (Described("ref", [what]) for what in ("item", "kept", "logits", "rng"))
MASK = ["call", 2, "mask", ["true_ids", 15, 13], None, ITEM]
NEXT = ["many_each", 2, "next_state", ["as_long_as", 0, -1], None, 0, ITEM]
DRAW = [Described("rng", np.random.default_rng(0).bit_generator.state), 15, 1.0, np.zeros(15)]


def loop(**spec) -> list:
    """A plan of one loop: the walk of explore, with ``spec``'s changes (a body of one step queues nothing)."""
    spec.setdefault("queue", 1 if len(spec.get("body", [MASK, NEXT])) > 1 else None)
    return [["loop", 0, None, None, None, {"body": [MASK, NEXT], "bound": 10, "start": [0], **spec}]]


@pytest.mark.parametrize("steps, where", [
    ([["loop", 1, None, None, None, {}]], "plan step 0: a loop is"),
    (loop(body=[["loop", 0, None, None, None, {}]]), "plan step 0 body step 0: a loop belongs outside a loop"),
    ([["many_each", 1, "f", None, None, 0]], "plan step 0: many_each belongs in a loop's body"),
    ([["loop", 0, None, None, None, {"body": [MASK]}]], "plan step 0: a loop's spec must be a dict with body"),
    (loop(extra=1), "plan step 0: a loop's spec must be a dict"),
    (loop(body=[]), f"plan step 0: a loop's body must be 1 to {MAX_BODY} steps"),
    (loop(body=[MASK] * (MAX_BODY + 1)), f"plan step 0: a loop's body must be 1 to {MAX_BODY} steps"),
    (loop(bound=-1), "plan step 0: a loop's body must be 1 to"),
    (loop(bound=MAX_STEPS // 2 + 1), f"plan step 0: a loop of {MAX_STEPS // 2 + 1} iterations of 2 steps: more than"),
    ([["call", 1, "f", None, None]] * 2 + loop(bound=MAX_STEPS // 2), f"plan: {MAX_STEPS + 2} answers at most"),
    (loop(start=None), "plan step 0: a loop's queue needs a start"),
    (loop(start=[[0]]), "plan step 0: a loop's start must be a list of plain items"),
    (loop(queue=2), "plan step 0: a loop's queue must be a body step"),
    (loop(until=[1]), "plan step 0: a loop's until must be a list of plain values (with a keep)"),
    (loop(keep=1, until=5), "plan step 0: a loop's until must be a list"),
    (loop(draw=DRAW[:3]), "plan step 0: a loop's draw must be"),
    (loop(draw=[*DRAW[:3], np.zeros(14)]), "plan step 0: a loop's draw must be"),
    (loop(draw=[Described("rng", {"bit_generator": "Evil"}), *DRAW[1:]]), "plan step 0: a loop's draw must be"),
    (loop(body=[["call", -1, "mask", None, None]]), "plan step 0 body step 0: the target must be a handle number"),
    (loop(body=[["call", 2, "f", None, None, LOGITS]]), "plan step 0 body step 0: a reference must be one of"),
    (loop(body=[["call", 2, "f", None, None, KEPT]]), "plan step 0 body step 0: a reference must be one of"),
    (loop(start=None, queue=None, body=[MASK]), "plan step 0 body step 0: a reference must be one of"),
    (loop(body=[["call", 2, "f", None, None, Described("ref", ["answer"])]]), "plan step 0 body step 0: a reference"),
    (loop(body=[MASK, ["many_each", 2, "f", None, None, 1]]), "plan step 0 body step 1: many_each's args must be"),
    (loop(body=[["call", 2, "f", ["guess"], None]]), "plan step 0 body step 0: unknown value reading ['guess']"),
    (loop(body=[["call", 2, "f", ["pick", 0, 1.0], None]]), "plan step 0 body step 0: the reading pick's step"),
    (loop(body=[["call", 2, "f", ["true_ids", -1, None], None]]), "plan step 0 body step 0: the reading true_ids's"),
    (loop(body=[["call", 2, "f", ["true_ids", 3, [1]], None]]), "plan step 0 body step 0: the reading true_ids's skip"),
    (loop(body=[["call", 2, "f", ["array"], 3]]), "plan step 0 body step 0: unknown value reading ['array']"),
])
def test_a_malformed_or_unbounded_loop_is_a_value_error_naming_the_step(steps, where):
    with pytest.raises(ValueError, match="^" + re.escape(where)):
        check_plan(steps)


def test_a_loop_counts_as_its_bound_times_its_body():
    assert check_plan(loop(bound=7)) == 14
    assert check_plan([["call", 1, "f", None, None], *loop(bound=MAX_STEPS // 2 - 1)]) == MAX_STEPS - 1


def breadth_first(index, eos_id: int, strange: int | None = None) -> tuple[list, list]:
    """The walk of ``harness.suite.test_masks._explore`` in this process: (its answers in
    order, mask then next states, up to and with the mask of state ``strange``; the states
    in the order it took them)."""
    answers, order, seen, queue = [], [], {0}, [0]
    while queue:
        state = queue.pop(0)
        order.append(state)
        answers.append(index.mask(state))
        if state == strange:
            break
        tokens = [t for t in np.flatnonzero(index.mask(state)).tolist() if t != eos_id]
        targets = [index.next_state(state, t) for t in tokens]
        answers.append(targets)
        for target in targets:
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return answers, order


STRANGE = '''
"""The reference, but the mask of one state comes back as an array of ints: data a
grader's reading of a bool vector refuses (the walk cannot read on past it)."""
import oracles.automaton as _reference
from oracles.automaton import *  # noqa: F401,F403

STRANGE_STATE = {state}
ARMED = []


def arm():
    """From now on next_state raises (the candidate's own exception)."""
    ARMED.append(True)


class TokenIndex(_reference.TokenIndex):
    def mask(self, state):
        mask = super().mask(state)
        return mask.astype(int) if state == STRANGE_STATE else mask

    def next_state(self, state, token):
        if ARMED:
            raise KeyError("armed")
        return super().next_state(state, token)
'''


def test_a_loop_walks_what_the_candidates_answers_reach_and_stops_where_it_cannot_read_on(harness_unchanged,
                                                                                           tmp_path):
    """Oracle: the same breadth-first walk in this process on the reference. The whole walk
    made ahead, answer for answer; a bound of 2 iterations: its first 4 answers; a mask that
    is no bool vector stops the plan right after it (the steps after the loop are not made);
    the candidate's exception ends it with the answers before."""
    index = reference.TokenIndex(reference.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    whole, order = breadth_first(index, HAND_EOS)
    strange = order[3]
    cut, _ = breadth_first(index, HAND_EOS, strange)
    path = tmp_path / "strange_mask.py"
    path.write_text(STRANGE.format(state=strange))
    with Candidate(str(path), ref_deps=True) as cand:
        marker = cand.marker
        made = cand.module.TokenIndex(cand.module.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)._handle.id

        def walk(bound: int, start: list, after: list = ()) -> tuple:
            body = [["call", made, "mask", ["true_ids", len(HAND_VOCAB), HAND_EOS], None, ITEM],
                    ["many_each", made, "next_state", ["as_long_as", 0, -1], None, 0, ITEM]]
            spec = {"body": body, "bound": bound, "start": start, "queue": 1}
            return cand.run_plan("explore", [["loop", 0, None, None, None, spec], *after])

        answers, error = walk(2, [0])
        assert error is None and len(answers) == 4
        assert all(np.array_equal(a, b) for a, b in zip(answers[0::2], cut[0::2])) and answers[1::2] == cut[1:4:2]

        answers, error = walk(100, [0], [["call", 1, "regex_to_dfa", None, None, "a"]])
        assert error is None and len(answers) == len(cut)
        assert answers[-1].dtype != np.bool_ and np.array_equal(answers[-1], cut[-1])  # the strange mask, as sent
        assert all(np.array_equal(a, b) for a, b in zip(answers[:-1:2], cut[:-1:2])) and answers[1::2] == cut[1::2]

        cand.module.arm()
        answers, error = walk(100, [0])  # next_state raises: the loop ends with its answers before
        assert isinstance(error, KeyError) and len(answers) == 1
        assert cand.alive
    assert left_over(marker) == []
    assert len(whole) > len(cut)  # the oracle's walk goes past the strange state: the candidate's stopped there


def test_a_loop_keeps_its_values_draws_its_logits_and_ends_at_until(harness_unchanged):
    """Oracle: constrained_sample called in this process with the logits drawn the same way
    (``normal(size) * scale + bias`` from where the call before left the generator) and the
    history of the tokens taken. The loop's draws say, per call, the generator state it left
    and the digest of its inputs; the loop ends after EOS (an ``until`` value)."""
    from harness.sandbox.plans import flat_state, inputs_digest

    vocab, eos = list(HAND_VOCAB), HAND_EOS
    bias = np.zeros(len(vocab))
    bias[eos] = 4.0
    index = reference.TokenIndex(reference.regex_to_dfa(HAND_PATTERN), vocab, eos)
    params = reference.SamplingParams(temperature=1.0)
    expected, states, digests = [], [], []
    rng, c, history = np.random.default_rng(7), reference.Constraint(index), []
    start = rng.bit_generator.state
    for _ in range(20):
        expected.append(c.mask())
        logits = rng.normal(size=len(vocab)) * 2.0 + bias
        digests.append(inputs_digest(logits, np.asarray(history, dtype=np.int64).tobytes()))
        token, logprob = reference.constrained_sample(logits, c, params, list(history), rng)
        expected.append((token, logprob))
        states.append(flat_state(rng.bit_generator.state))
        history.append(token)
        if token == eos:
            break
    assert history[-1] == eos and len(history) > 1
    with Candidate(None, ref_deps=True) as cand:
        impl, marker = cand.module, cand.marker
        made = impl.Constraint(impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), vocab, eos))
        given = impl.SamplingParams(temperature=1.0)
        body = [["call", made._handle.id, "mask", ["array"], None],
                ["call", 1, "constrained_sample", ["pick", 0, 1e-9], None, LOGITS, made._handle, given._handle,
                 KEPT, RNG]]
        spec = {"body": body, "bound": 20, "keep": 1, "until": [eos],
                "draw": [Described("rng", start), len(vocab), 2.0, bias]}
        answers, error, draws = cand.run_plan("generate", [["loop", 0, None, None, None, spec]], draws=True)
    assert error is None and len(answers) == len(expected)
    assert all(np.array_equal(a, b) for a, b in zip(answers[0::2], expected[0::2]))
    assert [(int(t), float(p)) for t, p in answers[1::2]] == [(int(t), float(p)) for t, p in expected[1::2]]
    assert [draw[1] for draw in draws] == digests and [draw[0] for draw in draws] == states
    assert left_over(marker) == []
