"""Catalogue: masking logits and sampling under a constraint (spec tests 11, 12, 13).

Oracles: numpy arithmetic written here (the masked copy, the log-softmax over the
allowed tokens), the spec's hand example, and ``json`` + ``jsonschema`` through
``oracles.stdlib.check_document`` for generated documents.

A generation is made ahead by the candidate's process in one round trip
(``harness.sandbox.generation``), which draws each step's logits there and reports which
inputs each call got. The verdict never rests on that report: the grader draws every
step's logits itself and takes a draw made ahead only where it answers them (an allowed
token whose logprob is the spec's log-softmax under them, ``_answers_the_logits``); a draw
that does not, or an exception made ahead, and the generation is made again one call at a
time (the rest of the requests too), with the grader's own logits sent with each call. An
honest candidate's generations are taken whole (0.035 CPU s of the grader's for 40
requests); the limit: a process that fabricates answers consistent with the grader's
logits is judged on those answers, as any module answering so would be.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.suite import oracle_memo, strength
from harness.suite.batched import Prefetched, generation
from harness.suite.explain import expect_refusal, fail
from harness.suite.inputs import (
    HAND_EOS,
    HAND_MASKS,
    HAND_PATTERN,
    HAND_VOCAB,
    TOOL_SCHEMA,
    advanced,
    make_constraint,
)
from harness.suite.seeding import seeded_rng
from harness.suite.test_dfa import compile_ok, hand_finding
from harness.suite.tiers import decision


@pytest.mark.boundary
def test_apply_mask(impl):
    rng = seeded_rng(5)
    # every float dtype an engine's logits may have (the spec fixes only the float64 output): a
    # write into the caller's array shows on float64, where np.asarray makes no copy
    for size, dtype in ((1, np.float32), (7, np.float64), (300, np.float32), (300, np.float64), (40, np.float16)):
        logits = rng.normal(size=size).astype(dtype)
        mask = rng.random(size) < 0.4
        mask[int(rng.integers(size))] = True
        before = logits.copy()
        out = np.asarray(impl.apply_mask(logits, mask))
        if out.dtype != np.float64 or out.shape != (size,):
            fail("apply_mask must return float64 [V]", dtype=str(out.dtype), shape=out.shape)
        if not np.array_equal(logits, before):
            fail("apply_mask modified its input logits", size=size, dtype=str(np.dtype(dtype)))
        if np.shares_memory(out, logits):
            fail("apply_mask must return a copy", size=size)
        want = np.where(mask, logits.astype(np.float64), -np.inf)
        bad = np.flatnonzero(~((out == want) | (np.isneginf(out) & np.isneginf(want))))
        if len(bad):
            i = int(bad[0])
            fail("apply_mask: kept logits unchanged, the rest -inf", index=i, mask=bool(mask[i]),
                 expected=float(want[i]), got=float(out[i]))
    try:
        from_lists = np.asarray(impl.apply_mask([1.0, 2.0, 3.0], [False, True, False])).tolist()
    except Exception as exc:  # noqa: BLE001 - lists are the contract's decision
        from_lists = f"{type(exc).__name__}: {exc}"
    decision("apply_mask_accepts_lists", from_lists == [-np.inf, 2.0, -np.inf],
             f"apply_mask([1.0, 2.0, 3.0], [False, True, False]) gave {from_lists!r}")
    # the spec: "an all-false mask and a wrong shape are errors"
    expect_refusal(lambda: impl.apply_mask(np.zeros(4), np.zeros(4, dtype=bool)),
                   "an all-False mask is an error (L8.1 would see an all -inf row)",
                   valueerror="apply_mask_errors_valueerror")
    for shape in (3, 5, (2, 2)):
        expect_refusal(lambda: impl.apply_mask(np.zeros(4), np.ones(shape, dtype=bool)),
                       "a mask whose shape differs from the logits is an error",
                       valueerror="apply_mask_errors_valueerror", shape=shape)
    strength.run_for("test_apply_mask", impl)


def _log_softmax_at(logits: np.ndarray, allowed: list[int], token: int) -> float:
    values = np.asarray(logits, dtype=np.float64)[allowed]
    top = values.max()
    return float(logits[token] - top - np.log(np.exp(values - top).sum()))


@pytest.mark.unit
def test_greedy_takes_the_best_allowed_token(impl):
    dfa, trans, accept = compile_ok(impl, HAND_PATTERN)
    context = hand_finding(trans, accept, "this test addresses states by section 3's numbers, and your DFA of the "
                                          "hand example differs: ")
    index = impl.TokenIndex(dfa, HAND_VOCAB, HAND_EOS)
    greedy = impl.SamplingParams(temperature=0.0)
    # state 0 allows 0 c, 4 d, 8 ca, 9 cat, 10 dog. x (12), EOS (13) and "" (14) score higher
    # but are refused; 8 and 9 tie for the best allowed logit, so the lower id wins.
    # (state, tokens that reach it, logits, greedy's token, the state after it, the allowed ids)
    logits = np.array([1.0, 5, 5, 5, 2.0, 0, 0, 0, 3.0, 3.0, 2.5, 0, 9.0, 8.0, 7.0], dtype=np.float32)
    cases = [(0, [], logits, 8, 3, sorted(HAND_MASKS[0])),
             (5, [9], np.array([0, 0, 0, 0, 0, 0, 0, 1.5, 0, 0, 0, 0, 4, 2.0, 0]), 13, 5, sorted(HAND_MASKS[5])),
             (3, [8], np.array([0, 0, 1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0.5, 3, 0, 0]), 2, 5, sorted(HAND_MASKS[3]))]
    for seed, (state, reach, row, want_id, want_state, allowed) in enumerate(cases):
        c = advanced(impl, index, reach)
        token, logprob = impl.constrained_sample(row, c, greedy, [], seeded_rng(seed))
        facts = dict(pattern=HAND_PATTERN, state=state, logits=np.asarray(row).tolist(), allowed=allowed, **context)
        if token != want_id:
            fail("greedy must take the largest allowed logit (ties to the lowest id)", **facts,
                 expected=(want_id, HAND_VOCAB[want_id]), got=(token, HAND_VOCAB[token] if 0 <= token < 15 else None))
        want_lp = _log_softmax_at(row, allowed, want_id)
        if not np.isclose(logprob, want_lp, rtol=1e-6, atol=1e-6):
            fail("the logprob is the log-softmax over the allowed tokens", **facts, token=want_id,
                 expected=want_lp, got=float(logprob))
        if want_id == HAND_EOS:  # the spec: advanced means EOS is taken (done); the state is a decision
            if not bool(c.done):
                fail("constrained_sample must advance the constraint (EOS: done)", **facts, got=bool(c.done))
            decision("eos_keeps_state", int(c.state) == want_state,
                     f"the state after EOS in state {state} is {int(c.state)}")
        elif int(c.state) != want_state or bool(c.done):
            fail("constrained_sample must advance the constraint", **facts, expected=(want_state, False),
                 got=(int(c.state), bool(c.done)))
    done = advanced(impl, index, [9, 7, HAND_EOS])  # "cats" + EOS
    expect_refusal(lambda: impl.constrained_sample(np.zeros(15), done, greedy, [], seeded_rng(0)),
                   "constrained_sample after EOS must be refused (nothing may follow EOS)",
                   valueerror="sample_after_eos_valueerror")
    strength.run_for("test_greedy_takes_the_best_allowed_token", impl)


# ---------------------------------------------------------------- test_constrained_generation_parses

STRUCTURE = [b'"', b"}", b"]", b",", b":", b'{"', b'":', b'",', b'"}', b"city", b"days", b"units", b"lat",
             b"alerts", b"tags", b"metric", b"imperial", b"true", b"false", b"null", b"0", b"1", b"2", b"-", b".",
             b"e", b"E", b"+", b"Oslo", b"\\", b"\\n", b"\\u00e9", b"\xc3\xa9", b"\xe6\x97", b"\xa5", b" ", b"\t"]


def generation_vocab() -> tuple[list[bytes | None], int, np.ndarray]:
    """Byte-level: all 256 bytes, JSON fragments (some of them half a UTF-8 character),
    a special and EOS; with a per-token bias that makes structure likely."""
    vocab: list[bytes | None] = [bytes([b]) for b in range(256)] + STRUCTURE + [None]
    eos_id = len(vocab)
    vocab.append(None)
    bias = np.zeros(len(vocab))
    for i, token in enumerate(vocab):
        if token is not None and (token[:1] in (b'"', b"}", b"]", b",") or token.isdigit()):
            bias[i] = 3.5
    bias[eos_id] = 6.0
    return vocab, eos_id, bias


GENERATION_STEPS = 300  # tokens per request at most


def _answers_the_logits(logits: np.ndarray, allowed, token, logprob) -> bool:
    """Return True if and only if a draw made ahead answers the logits the grader drew: a
    token the mask ``allowed`` allows, whose logprob is the spec's under those logits
    (section 2.4: the log-softmax over the allowed tokens, at temperature 1), within 1e-6."""
    try:
        mask = np.asarray(allowed, dtype=bool)
        if not (mask.shape == logits.shape and isinstance(token, (int, np.integer)) and 0 <= token < len(mask)
                and mask[token]):
            return False
        values = logits[mask]
        top = values.max()
        want = float(logits[token] - top - np.log(np.exp(values - top).sum()))
        return abs(float(logprob) - want) <= 1e-6 * (1.0 + abs(want))
    except (TypeError, ValueError, IndexError):
        return False


class _NotTaken(Exception):
    """An answer made ahead that the grader does not take (``_generate``)."""


def _take(made: Prefetched, name: str, live):
    """``made.take(name, live)``, but the exception that stopped the loop made ahead raises
    ``_NotTaken``: the inputs of the call that raised are its process's word, so one call at a
    time says whether the call raises."""
    stopped = made.error if made.ahead() and made.position == len(made.answers) else None
    try:
        return made.take(name, live)
    except Exception as exc:
        if stopped is not None and exc is stopped:
            raise _NotTaken(name) from exc
        raise


def _generate(impl, index, request: int, vocab: list, eos_id: int, bias: np.ndarray, *, ahead: bool):
    """Seeded request ``request``'s generation as ``(text, the last token)``, one call at a
    time or, ``ahead``, made ahead by the candidate in one round trip up to where it could
    stop (``harness.sandbox.generation``); every answer is checked here, in the same order,
    against the logits the grader draws itself from ``rng``. Raises ``_NotTaken`` where an
    answer made ahead cannot be taken as the answer to those logits: a draw that does not
    answer them (``_answers_the_logits``: its process may have handed the call logits of its
    own and said otherwise), or an exception (``_take``); the caller then makes the
    generation again one call at a time, whose answers are judged."""
    rng = seeded_rng(1000 + request)
    c = make_constraint(impl, index)
    params = impl.SamplingParams(temperature=1.0)
    made = generation(impl.constrained_sample, c, params, rng, bias, 2.0, vocab, eos_id, GENERATION_STEPS) \
        if ahead else Prefetched()
    text, history, token = b"", [], None
    for _ in range(GENERATION_STEPS):
        allowed = np.asarray(_take(made, "mask", lambda: c.mask())).copy()
        logits = rng.normal(size=len(vocab)) * 2.0 + bias
        answered_ahead = made.ahead()
        token, logprob = _take(made, "draw", lambda: impl.constrained_sample(logits, c, params, history, rng))
        if answered_ahead and not _answers_the_logits(logits, allowed, token, logprob):
            raise _NotTaken("draw")
        if not allowed[token] or not logprob <= 1e-9:
            fail("constrained_sample drew a token outside the mask (or logprob > 0)", request=request,
                 path=text, token=(token, vocab[token]), logprob=float(logprob))
        history.append(token)
        if token == eos_id:
            break
        text += vocab[token]
    return text, token


@pytest.mark.property
def test_constrained_generation_parses(impl):
    vocab, eos_id, bias = generation_vocab()
    dfa, _, _ = compile_ok(impl, impl.json_schema_to_regex(TOOL_SCHEMA))
    index = impl.TokenIndex(dfa, vocab, eos_id)
    finished, ahead = 0, True
    for request in range(40):
        try:
            text, token = _generate(impl, index, request, vocab, eos_id, bias, ahead=ahead)
        except _NotTaken:  # this request, and the rest, one call at a time
            ahead = False
            text, token = _generate(impl, index, request, vocab, eos_id, bias, ahead=False)
        if token != eos_id:
            continue
        finished += 1
        verdict = oracle_memo.answer("check_document", TOOL_SCHEMA, text)   # oracles.stdlib.check_document
        if not (verdict.parses and verdict.valid and verdict.ordered):
            fail("a finished generation does not parse or validate", request=request, document=text,
                 oracle=verdict.reason)
    if finished < 30:
        fail("fewer than 30 of 40 seeded requests finished (EOS never allowed?)", expected=">= 30", got=finished)
