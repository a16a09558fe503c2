"""``repeat_call``: many calls of one method in one round trip, the same calls as a loop
of single calls (issue 23, item 4: the sampling checks' draws).

Oracles: the loop of single calls, in-process on the reference and across the wall (the
answers and the generator's final state must be identical); the module docstrings of
``harness.sandbox.server`` / ``client`` for what each call gets (its own lists, one
generator, ``Fresh`` arguments built anew) and for the reply's count; a hostile candidate
(``tests/candidates/channel_short_repeat.py``) that drops an answer gets a protocol verdict.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import oracles.automaton as reference
from harness.sandbox import (
    Candidate,
    CandidateProtocolError,
    Fresh,
    HarnessCannotSend,
    RemoteError,
    client,
    repeat_call,
    server,
)
from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB
from tests.sandbox.test_channel_bounds import check_in_child

LOGITS = np.array([0.5, 9, 9, 9, 2.0, 9, 9, 9, 1.0, 1.5, 0.0, 9, 9, 9, 9])

HARNESS_DIGEST_BYTECODE = False  # as in test_channel_bounds.py (conftest.py)


def single_draws(impl, n: int, seed: int, temperature: float = 1.0) -> tuple[list, dict]:
    """The loop ``repeat_call`` stands for: one call per draw, one generator."""
    index = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    rng = np.random.default_rng(seed)
    draws = [tuple(impl.constrained_sample(LOGITS, impl.Constraint(index), impl.SamplingParams(temperature=temperature),
                                           [], rng)) for _ in range(n)]
    return draws, rng.bit_generator.state


def repeated_draws(impl, n: int, seed: int, temperature: float = 1.0) -> tuple[list, dict]:
    index = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    rng = np.random.default_rng(seed)
    draws = [tuple(d) for d in repeat_call(impl.constrained_sample, n, LOGITS, Fresh(impl.Constraint, index),
                                           Fresh(impl.SamplingParams, temperature=temperature), [], rng)]
    return draws, rng.bit_generator.state


@pytest.fixture(scope="module")
def candidate():
    with Candidate(None, ref_deps=True) as cand:
        yield cand


def test_in_process_it_is_the_loop():
    assert repeated_draws(reference, 500, 7) == single_draws(reference, 500, 7)


@pytest.mark.e2e
@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_across_the_wall_the_same_draws_and_generator_state_as_single_calls(candidate, temperature):
    want = single_draws(reference, 2000, 33, temperature)  # in-process: the oracle
    assert repeated_draws(candidate.module, 2000, 33, temperature) == want
    assert single_draws(candidate.module, 300, 33, temperature) == single_draws(reference, 300, 33, temperature)


@pytest.mark.e2e
def test_it_is_one_round_trip(candidate):
    trips, exchange = [], candidate.exchange
    candidate.exchange = lambda frame, what="a request", describe=None: (trips.append(what),
                                                                          exchange(frame, what, describe))[1]
    try:
        impl = candidate.module
        index = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
        trips.clear()
        draws = list(repeat_call(impl.constrained_sample, 1000, LOGITS, Fresh(impl.Constraint, index),
                                 Fresh(impl.SamplingParams), [], np.random.default_rng(1)))
    finally:
        del candidate.exchange
    assert len(draws) == 1000 and trips == ["repeat constrained_sample"]


SIDE_EFFECTS = '''
calls = []

def record(history, box, array, counter):
    history.append(len(history))      # each call must get its own list
    box["n"] = box.get("n", 0) + 1    # and its own dict
    array[0] += 1                     # a top-level array: written through, as with single calls
    calls.append(counter.n)
    if len(calls) == {fail_at}:
        raise ValueError(f"call {{len(calls)}} refuses")
    return [list(history), dict(box), float(array[0]), counter.n]

class Counter:
    made = 0
    def __init__(self):
        Counter.made += 1
        self.n = Counter.made
'''


@pytest.mark.e2e
@pytest.mark.parametrize("where", ["in-process", "behind the wall"])
def test_each_call_gets_its_own_lists_fresh_arguments_and_an_exception_in_place(tmp_path, where):
    path = tmp_path / "side_effects.py"
    path.write_text(textwrap.dedent(SIDE_EFFECTS.format(fail_at=4)))
    array = np.zeros(2)
    if where == "in-process":
        import importlib.util

        spec = importlib.util.spec_from_file_location("side_effects", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        got = _collect(repeat_call(module.record, 6, [], {}, array, Fresh(module.Counter)))
    else:
        with Candidate(str(path)) as cand:
            got = _collect(repeat_call(cand.module.record, 6, [], {}, array, Fresh(cand.module.Counter)))
    answers, error = got
    assert answers == [[[0], {"n": 1}, 1.0, 1], [[0], {"n": 1}, 2.0, 2], [[0], {"n": 1}, 3.0, 3]]
    assert isinstance(error, ValueError) and "call 4 refuses" in str(error)
    assert array[0] == 4.0  # the fourth call wrote before it raised: written back, as a single call's would be


def _collect(iterator) -> tuple[list, BaseException | None]:
    answers = []
    try:
        for answer in iterator:
            answers.append(answer)
    except ValueError as exc:
        return answers, exc
    return answers, None


@pytest.mark.e2e
def test_bounds_and_misuse(candidate):
    impl = candidate.module
    with pytest.raises(ValueError, match="count"):
        list(repeat_call(impl.regex_to_dfa, client.MAX_REPEAT + 1, "a"))
    assert client.MAX_REPEAT == server.MAX_REPEAT
    # the grader's own misuse of Fresh: its error, never taken for the candidate's (nothing is sent)
    with pytest.raises(HarnessCannotSend, match="TypeError: Fresh needs a method or proxy"):
        list(repeat_call(impl.regex_to_dfa, 2, Fresh(str, "a")))
    with pytest.raises(HarnessCannotSend, match="TypeError: a Generator cannot be an argument of Fresh"):
        list(repeat_call(impl.regex_to_dfa, 2, Fresh(impl.regex_to_dfa, np.random.default_rng(0))))
    # a fresh description anywhere but among a repeat's own arguments is refused by the server
    with pytest.raises(RemoteError, match="only among a repeat's own arguments"):
        candidate.request("call", impl._handle.id, "regex_to_dfa",
                          [client.channel.Described("fresh", {"target": 1, "name": "regex_to_dfa",
                                                               "args": ["a"], "kwargs": {}})], {})
    assert list(repeat_call(impl.regex_to_dfa, 0, "a")) == []
    assert candidate.alive


@pytest.mark.e2e
def test_a_short_repeat_reply_is_a_protocol_violation(tmp_path):
    from tests.sandbox.test_channel_bounds import CANDIDATES

    with Candidate(str(CANDIDATES / "channel_short_repeat.py"), ref_deps=True) as cand:
        impl = cand.module
        with pytest.raises(CandidateProtocolError, match="3 answers to 4 calls"):
            list(repeat_call(impl.regex_to_dfa, 4, "a"))
        assert not cand.alive


@pytest.mark.e2e
def test_a_short_repeat_reply_is_that_tests_protocol_verdict_in_check(harness_unchanged):  # noqa: F811
    result = check_in_child("channel_short_repeat.py", ("test_greedy_takes_the_best_allowed_token",
                                                        "test_hand_example"))
    status, reason = result["tests"]["test_greedy_takes_the_best_allowed_token"]
    assert status == "crashed" and "protocol violation during repeat constrained_sample" in reason, reason
    assert "answers to" in reason
    assert result["tests"]["test_hand_example"][0] == "passed" and result["exit"] == 3
