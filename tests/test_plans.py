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
    ([["call", 1, "f", []]], "plan step 0: not [op, target, name, args, reading]"),
    ([["exec", 1, "f", [], None]], "plan step 0: op must be one of"),
    ([["call", 1, "f", [], None], ["getattr", ["answer", 1], "x", [], None]], "plan step 1: the target"),
    ([["call", 1, "f", [], "guess"]], "plan step 0: unknown reading 'guess'"),
    ([["call", 1, "f", [], ["vector"]]], "plan step 0: unknown reading"),
    ([["many_range", 1, "f", [[0]], None]], "plan step 0: many_range's args must be [prefix, count]"),
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
            ["call", module, "regex_to_dfa", [HAND_PATTERN], "object"],
            ["getattr", ["answer", 0], "n_states", [], "int"],
            ["getattr", ["answer", 0], "accept", [], "array"],
            ["call", module, "TokenIndex", [], None],  # raises: the plan ends with it
            ["getattr", ["answer", 0], "n_states", [], "int"],
        ])
        assert answers[1] == dfa.n_states and np.array_equal(answers[2], dfa.accept)
        assert isinstance(error, TypeError) and len(answers) == 3

        made = cand.module.TokenIndex(cand.module.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)._handle.id
        answers, error = cand.run_plan("sweep", [
            ["call", made, "mask", [0], ["vector", size]],
            ["many_range", made, "next_state", [[0], size], ["length", size]],
            ["call", made, "mask", [0], ["vector", size + 1]],  # read as another size: the plan stops after it
            ["call", made, "mask", [1], None],
        ])
        assert error is None and len(answers) == 3
        assert np.array_equal(answers[0], index.mask(0)) and np.array_equal(answers[2], index.mask(0))
        assert answers[1] == [index.next_state(0, t) for t in range(size)]

        answers, error = cand.run_plan("reads", [
            ["call", module, "regex_to_dfa", [HAND_PATTERN], "object"],
            ["getattr", ["answer", 0], "step", [], "int"],  # a method of the DFA: the grader's proxy asks nothing
        ])
        assert error is None and len(answers) == 1

        answers, error = cand.run_plan("matches", [
            ["call", module, "regex_to_dfa", [HAND_PATTERN], "object"],
            ["call", ["answer", 0], "matches", [b"cats"], "truth"],
            ["call", module, "json_schema_to_regex", [{"type": "string"}], "object"],  # data: read nothing of it
            ["getattr", ["answer", 2], "n_states", [], "int"],
        ])
        assert error is None and answers[1:] == [dfa.matches(b"cats"), reference.json_schema_to_regex(
            {"type": "string"})]

        with pytest.raises(ValueError, match="plan step 0: op must be one of"):
            cand.run_plan("bad", [["exec", module, "regex_to_dfa", [HAND_PATTERN], None]])
        assert cand.alive
    assert left_over(marker) == []
