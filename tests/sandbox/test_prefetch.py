"""The catalogue's loops made ahead by the candidate's process (issue 23, item 4):
``harness.suite.batched.Prefetched`` and the catalogue's plans (``harness.suite.batched``: ``walk_constraint``,
``sweep``, ``call_and_read``, ``calls_ahead``, and the loops ``explore`` and ``generation``).

Oracle: the same loop made one call at a time. A candidate that logs every call it gets
shows the batched loop made exactly those calls, in that order, given their inputs only
(the whole path where the grader stops at a wrong mask: it never knows what is wrong;
``tests/sandbox/test_knowledge.py`` holds the rule to account); the answers, the generator's
final state and what the grader reads are the same; an answer the candidate changes
after returning it reaches the grader as it was returned; a server rewritten to send
more answers than calls is a protocol violation.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from harness.sandbox import Candidate, CandidateProtocolError
from harness.suite.batched import (
    Prefetched,
    call_and_read,
    calls_ahead,
    explore,
    generation,
    sweep,
    walk_constraint,
)
from harness.suite.inputs import HAND_EOS, HAND_MASKS, HAND_PATTERN, HAND_VOCAB
from harness.suite.test_dfa import DFA_READS
from harness.suite.test_masks import brute_force
from harness.suite.test_sampling import generation_vocab
from tests.support.helpers import CANDIDATES, left_over

pytestmark = pytest.mark.e2e

LOGGING = textwrap.dedent('''
    """The reference, logging every call of a Constraint and a TokenIndex (``calls()``), and,
    with ``REUSE``, returning masks in one buffer it rewrites (a plausible implementation)."""
    import numpy as np

    import oracles.automaton as _reference
    from oracles.automaton import *  # noqa: F401,F403

    LOG = []
    REUSE = {reuse}


    def calls():
        return list(LOG)


    class TokenIndex(_reference.TokenIndex):
        def mask(self, state):
            LOG.append(["index.mask", int(state)])
            mask = super().mask(state)
            if REUSE:
                self.__dict__.setdefault("_buffer", np.zeros(len(mask), bool))[:] = mask
                return self.__dict__["_buffer"]
            return mask

        def next_state(self, state, token):
            LOG.append(["next_state", int(state), int(token)])
            return super().next_state(state, token)


    class Constraint(_reference.Constraint):
        def mask(self):
            LOG.append(["mask"])
            return super().mask()

        def is_complete(self):
            LOG.append(["is_complete"])
            return super().is_complete()

        def advance(self, token):
            LOG.append(["advance", int(token)])
            return super().advance(token)


    def constrained_sample(logits, c, p, history, rng, prompt=()):
        LOG.append(["constrained_sample", len(history)])
        return _reference.constrained_sample(logits, c, p, history, rng, prompt)
''')


@pytest.fixture(params=[False, True], ids=["own-masks", "reused-buffer"])
def logging_candidate(request, tmp_path):
    path = tmp_path / "logging_reference.py"
    path.write_text(LOGGING.format(reuse=request.param))
    return str(path)


def both_ways(spec: str, loop) -> list:
    """``loop(impl, made_ahead)`` run twice on fresh candidate processes, made ahead and one
    call at a time: [(its result, the calls the candidate got)] for each."""
    out = []
    for ahead in (True, False):
        with Candidate(spec, ref_deps=True) as cand:
            out.append((loop(cand.module, ahead), cand.module.calls()))
    return out


def hand_index(impl):
    return impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)


def test_a_golden_walk_makes_the_grader_s_calls_given_the_tokens_only(logging_candidate):
    path = {"tokens": [9, 7, HAND_EOS], "allowed": [sorted(HAND_MASKS[0]), sorted(HAND_MASKS[5]), [0], [1]],
            "complete": [False, True, True, True]}  # step 2's mask is wrong: the grader stops there

    def loop(impl, ahead):
        c = impl.Constraint(hand_index(impl))
        taken = walk_constraint(c, path["tokens"], HAND_EOS) if ahead else Prefetched()
        seen = []
        for number, allowed in enumerate(path["allowed"]):
            got = np.flatnonzero(np.asarray(taken.take("mask", lambda: c.mask()), dtype=bool)).tolist()
            complete = bool(taken.take("is_complete", lambda: c.is_complete()))
            state = int(taken.take("state", lambda: c.state))
            seen.append((got, complete, state))
            if got != allowed:
                return seen
            token = path["tokens"][number]
            taken.take("advance", lambda: c.advance(token))
        return seen

    (made_ahead, logged_ahead), (one_by_one, calls_one_by_one) = both_ways(logging_candidate, loop)
    assert made_ahead == one_by_one and len(made_ahead) == 3
    # the walk knows no expected mask: it makes the whole path's calls, the grader's first among them
    assert logged_ahead[:len(calls_one_by_one)] == calls_one_by_one
    assert calls_one_by_one[-3:] == [["mask"], ["index.mask", 6], ["is_complete"]]
    assert logged_ahead[len(calls_one_by_one):] == [["advance", HAND_EOS], ["next_state", 6, HAND_EOS], ["mask"],
                                                    ["is_complete"]]


def test_a_generation_makes_the_same_calls_draws_and_generator_state(logging_candidate):
    vocab, eos_id, bias = generation_vocab()

    def loop(impl, ahead):
        from harness.suite.inputs import TOOL_SCHEMA

        index = impl.TokenIndex(impl.regex_to_dfa(impl.json_schema_to_regex(TOOL_SCHEMA)), vocab, eos_id)
        runs = []
        for request in range(4):
            rng = np.random.default_rng(1000 + request)
            c, params = impl.Constraint(index), impl.SamplingParams(temperature=1.0)
            taken = generation(impl.constrained_sample, c, params, rng, bias, 2.0, vocab, eos_id, 300) if ahead \
                else Prefetched()
            history, masks = [], []
            for _ in range(300):
                masks.append(np.asarray(taken.take("mask", lambda: c.mask())).copy())
                token, logprob = taken.take("draw", lambda: impl.constrained_sample(
                    rng.normal(size=len(vocab)) * 2.0 + bias, c, params, history, rng))
                assert masks[-1][token]
                history.append(token)
                if token == eos_id:
                    break
            runs.append((history, np.array(masks).tobytes(), rng.bit_generator.state))
        return runs

    (made_ahead, logged_ahead), (one_by_one, calls_one_by_one) = both_ways(logging_candidate, loop)
    assert made_ahead == one_by_one
    assert logged_ahead == calls_one_by_one
    assert sum(len(history) for history, _, _ in made_ahead) > 20


OTHER_LOGITS = textwrap.dedent('''
    """Hostile (issue 48): the reference, its server rewritten to hand its generation's draws
    logits of its own choosing (the bias alone: no randomness), the generator states it
    reports those an honest server would."""
    import sys

    import numpy as np

    from oracles.automaton import *  # noqa: F401,F403

    _plans = sys.modules.get("harness.sandbox.plans")
    if _plans is not None:
        _draw = _plans.draw_logits

        def _bias_alone(state, size, scale, bias):
            _, after = _draw(state, size, scale, bias)
            return np.asarray(bias, dtype=np.float64) + 0.0, after

        _plans.draw_logits = _bias_alone
''')


def test_a_generation_whose_draws_get_other_logits_is_a_protocol_violation(harness_unchanged, tmp_path):
    """The grader draws each step's logits itself (from the state the candidate's call
    before left) and compares them, and the history, with the inputs the candidate's process
    says each draw got: a server that hands its draws other logits is caught at the first
    draw, its process ended and nothing of it left running; the honest reference's
    generation made ahead is taken whole (``test_a_generation_makes_the_same_calls...``)."""
    from harness.suite.inputs import TOOL_SCHEMA

    hostile = tmp_path / "other_logits.py"
    hostile.write_text(OTHER_LOGITS)
    vocab, eos_id, bias = generation_vocab()
    with Candidate(str(hostile), ref_deps=True) as cand:
        impl, marker = cand.module, cand.marker
        index = impl.TokenIndex(impl.regex_to_dfa(impl.json_schema_to_regex(TOOL_SCHEMA)), vocab, eos_id)
        c, params = impl.Constraint(index), impl.SamplingParams(temperature=1.0)
        rng = np.random.default_rng(1000)
        with pytest.raises(CandidateProtocolError, match="draw 0 was not given the logits and history"):
            generation(impl.constrained_sample, c, params, rng, bias, 2.0, vocab, eos_id, 300)
        assert not cand.alive
    assert left_over(marker) == []


def test_the_catalogue_takes_a_draw_made_ahead_only_as_the_answer_to_its_own_logits(harness_unchanged):
    """``test_constrained_generation_parses`` draws each step's logits itself and takes a draw
    made ahead only where its logprob is the spec's under them: an honest candidate's
    generation made ahead is taken whole, the same as one call at a time; a server that
    hands its draws other logits and reports the grader's digest (``tests/candidates/
    lies_about_generation_inputs.py``) is not taken, and one call at a time it is its twin."""
    from harness.suite.inputs import TOOL_SCHEMA
    from harness.suite.test_sampling import _generate, _NotTaken

    vocab, eos_id, bias = generation_vocab()

    def generations(name: str) -> list[tuple]:
        """Per request, (made ahead or "not taken", one call at a time)."""
        with Candidate(str(CANDIDATES / name), ref_deps=True) as cand:
            impl, marker = cand.module, cand.marker
            index = impl.TokenIndex(impl.regex_to_dfa(impl.json_schema_to_regex(TOOL_SCHEMA)), vocab, eos_id)
            out = []
            for request in range(6):
                try:
                    ahead = _generate(impl, index, request, vocab, eos_id, bias, ahead=True)
                except _NotTaken:
                    ahead = "not taken"
                out.append((ahead, _generate(impl, index, request, vocab, eos_id, bias, ahead=False)))
        assert left_over(marker) == []
        return out

    honest, lying = generations("wrong_raw_control_bytes.py"), generations("lies_about_generation_inputs.py")
    assert all(ahead == one_by_one for ahead, one_by_one in honest), honest
    assert [one_by_one for _, one_by_one in lying] == [one_by_one for _, one_by_one in honest]
    assert all(ahead == "not taken" for ahead, _ in lying), lying


def test_the_masks_walk_and_sweep_and_reads_make_the_same_calls(logging_candidate):
    vocab = list(HAND_VOCAB)

    def loop(impl, ahead):
        dfa = impl.regex_to_dfa(HAND_PATTERN)
        read = call_and_read(impl, "regex_to_dfa", [HAND_PATTERN], DFA_READS) if ahead else Prefetched()
        made = read.take("call", lambda: impl.regex_to_dfa(HAND_PATTERN))
        trans = np.asarray(read.take("trans", lambda: made.trans))
        accept = np.asarray(read.take("accept", lambda: made.accept))
        n = int(read.take("n_states", lambda: made.n_states))
        index = impl.TokenIndex(dfa, vocab, HAND_EOS)
        masks, _ = brute_force(trans, accept, vocab, HAND_EOS)
        swept = sweep(index, n, len(vocab)) if ahead else Prefetched()
        found = []
        for state in range(n):
            found.append(np.asarray(swept.take("mask", lambda: index.mask(state))).tolist())
            pairs = [(state, t) for t in range(len(vocab))]
            nexts = swept.take("many", lambda: [index.next_state(*p) for p in pairs],
                               lambda answers: index.next_state.counted(answers, len(pairs)))
            found.append(list(nexts))
        found.append(np.asarray(masks).tolist())  # the reads fed the grader's own oracle, made ahead or not
        walked = explore(index, len(vocab), HAND_EOS) if ahead else Prefetched()
        queue, seen = [0], {0}
        while queue:
            state = queue.pop(0)
            mask = np.asarray(walked.take("mask", lambda: index.mask(state)))
            tokens = [t for t in np.flatnonzero(mask).tolist() if t != HAND_EOS]
            targets = walked.take("many", lambda: [index.next_state(state, t) for t in tokens],
                                  lambda answers: index.next_state.counted(answers, len(tokens)))
            for target in targets:
                if target not in seen:
                    seen.add(target)
                    queue.append(target)
        words = [[b"cat"], [b"dogs"], [b"cow"], [b"car"]]
        matched = calls_ahead(made, "matches", words) if ahead else Prefetched()
        found.append([bool(matched.take("call", lambda: made.matches(*w))) for w in words])
        return found, sorted(seen)

    (made_ahead, logged_ahead), (one_by_one, calls_one_by_one) = both_ways(logging_candidate, loop)
    assert made_ahead == one_by_one
    assert logged_ahead == calls_one_by_one
    assert made_ahead[0][-1] == [True, True, False, True]


def test_more_answers_than_calls_is_a_protocol_violation(tmp_path):
    hostile = tmp_path / "long_walks.py"
    hostile.write_text(textwrap.dedent('''
        """Hostile: the reference, its server rewritten so that every plan's reply (a walk's)
        carries more answers than the plan has calls."""
        import sys

        from oracles.automaton import *  # noqa: F401,F403

        _server = sys.modules.get("harness.sandbox.server")
        if _server is not None:
            _handle = _server.Server.handle

            def _one_more(self, request):
                reply = _handle(self, request)
                if request[0] == "plan":
                    answers, error, draws = reply
                    return [answers + [None] * 40, error, draws]
                return reply

            _server.Server.handle = _one_more
    '''))
    with Candidate(str(hostile), ref_deps=True) as cand:
        c = cand.module.Constraint(hand_index(cand.module))
        with pytest.raises(CandidateProtocolError, match="answers to at most"):
            walk_constraint(c, [9], HAND_EOS)
        assert not cand.alive
