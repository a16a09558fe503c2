"""The plan (issue 51, item 3): the one generic batched operation of the candidate process
(``harness.sandbox.plans``), whose plans the catalogue builds (``harness.suite.batched``).

Oracle: the same calls made in this process on the reference. A malformed plan is a
ValueError naming the step, in the grader's process and behind the wall alike; a plan
stops where its own answers leave it nothing to go on (an answer that fails its reading,
an answer that is no object where the next step reads it, a method read as an attribute,
an exception), never elsewhere.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import oracles.automaton as reference
from harness.sandbox import Candidate
from harness.sandbox.plans import check_plan
from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB

from helpers import left_over

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
