"""Section 3's ``constrained_sample`` hand example, recorded exactly and cross-checked.

Spec ``002_...`` section 3, "A mask": pattern ``ab?``, vocabulary ``[a, b, c, EOS]``,
logits ``[0, 1, 5, 2]``, greedy (``SamplingParams(temperature=0)``).
``hand_example_record()`` holds the inputs and, per step, the allowed ids, the
greedy token and its logprob, plus the two refusals of an all-false mask.

The expected values are computed here, not read from the reference:

- the mask from the derivative oracle (``oracles.derivatives``);
- the token as the largest allowed logit, ties to the lowest id;
- the logprob exactly, ``l_t - ln(sum of e^l over the allowed ids)``, in ``Decimal``
  arithmetic at 50 digits (whose ``exp`` and ``ln`` are correctly rounded), stored as
  the ``repr`` of the nearest double: a string, identical on every machine and numpy
  (the golden files hold no JSON floats), next to its formula.

Cross-checks (a failure raises ``GoldenDisagreement``): the reference's
``constrained_sample`` takes the same tokens with logprobs within ``CROSS_CHECK`` of
the exact ones, and so does a numpy log-softmax written here; the reference
refuses ``apply_mask`` with an all-false mask and a sample once EOS was taken.

Example: the steps are ``a`` with ``"0.0"`` (``0 - ln(e^0)``; ``c`` has the largest
logit but walks dead), then EOS with ``"-0.3132616875182228"`` (``2 - ln(e^1 + e^2)``).
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np

from golden import cases
from golden.fileformat import error_name

TOLERANCE = "1e-06"
"""How far a consumer's logprob may be from the recorded one (absolute): a float32
log-softmax (the port's logits are ``&[f32]``) lands within about 1e-7."""
CROSS_CHECK = 1e-12
"""How far the reference's and numpy's float64 logprobs may be from the exact value."""
MAX_STEPS = 16
"""A bound on the walk (``ab?`` takes at most three tokens): never a hang."""


def exact_logprob(chosen: int, allowed_logits: list[int]) -> Decimal:
    """``chosen - ln(sum(e^l))`` over ``allowed_logits`` (integers), to 50 digits."""
    with localcontext() as ctx:
        ctx.prec = 50
        return Decimal(chosen) - sum(Decimal(logit).exp() for logit in allowed_logits).ln()


def formula(chosen: int, allowed_logits: list[int]) -> str:
    """The logprob as the spec writes it, e.g. ``2 - ln(e^1 + e^2)``."""
    return f"{chosen} - ln({' + '.join(f'e^{logit}' for logit in allowed_logits)})"


def numpy_log_softmax(logits: list[int], allowed: list[int]) -> np.ndarray:
    """The log-softmax over the allowed ids (``-inf`` elsewhere), by numpy: a second
    float computation, independent of the reference's sampler."""
    x = np.full(len(logits), -np.inf)
    x[allowed] = np.asarray(logits, dtype=np.float64)[allowed]
    top = x.max()
    return x - (top + np.log(np.exp(x - top).sum()))


def expected_steps() -> list[dict]:
    """The greedy walk of the hand example, by the derivative oracle and exact arithmetic."""
    from oracles import derivatives

    oracle = derivatives.Oracle(cases.SAMPLE_PATTERN)
    vocab, eos, logits = cases.SAMPLE_VOCAB, cases.SAMPLE_EOS, cases.SAMPLE_LOGITS
    text, steps = b"", []
    while len(steps) < MAX_STEPS:
        allowed = np.flatnonzero(oracle.mask(vocab, eos, text)).tolist()
        values = [logits[t] for t in allowed]
        token = allowed[values.index(max(values))]  # the first maximum: ties to the lowest id
        exact = exact_logprob(logits[token], values)
        steps.append({"allowed": allowed, "token": token, "logprob": repr(float(exact)),
                      "logprob_formula": formula(logits[token], values)})
        if token == eos:
            return steps
        text += vocab[token]
    raise RuntimeError(f"the hand example took more than {MAX_STEPS} steps")


def _disagree(message: str):
    from golden.provenance import GoldenDisagreement

    return GoldenDisagreement(f"constrained_sample_hand_example: {message}")


def _refusal_name(thunk) -> str | None:
    try:
        thunk()
    except ValueError as exc:
        return error_name(exc)
    return None


def cross_check(impl, steps: list[dict]) -> list[dict]:
    """Run ``impl``'s ``constrained_sample`` over the steps; raise on any difference.
    Returns the refusals (an all-false mask, a sample after EOS) with the error names."""
    vocab, eos, logits = cases.SAMPLE_VOCAB, cases.SAMPLE_EOS, cases.SAMPLE_LOGITS
    constraint = impl.Constraint(impl.TokenIndex(impl.regex_to_dfa(cases.SAMPLE_PATTERN), vocab, eos))
    params = impl.SamplingParams(temperature=0.0)
    history: list[int] = []
    for i, step in enumerate(steps):
        mask = np.flatnonzero(np.asarray(constraint.mask(), dtype=bool)).tolist()
        token, logprob = impl.constrained_sample(np.asarray(logits, dtype=np.float64), constraint, params,
                                                 list(history), np.random.default_rng(0))
        exact = float(step["logprob"])
        by_numpy = float(numpy_log_softmax(logits, step["allowed"])[step["token"]])
        if mask != step["allowed"] or token != step["token"]:
            raise _disagree(f"step {i}: the reference allows {mask} and takes {token}; "
                            f"expected {step['allowed']} and {step['token']}")
        if not all(math.isclose(x, exact, abs_tol=CROSS_CHECK) for x in (logprob, by_numpy)):
            raise _disagree(f"step {i}: logprob {logprob!r} (reference), {by_numpy!r} (numpy), exact {exact!r}")
        history.append(token)
    nothing = [False] * len(vocab)
    refused = [
        {"name": "all_false_mask", "call": "apply_mask", "mask": nothing,
         "error": _refusal_name(lambda: impl.apply_mask(np.asarray(logits, dtype=np.float64),
                                                        np.asarray(nothing, dtype=bool)))},
        {"name": "after_eos", "call": "constrained_sample", "mask": nothing,
         "error": _refusal_name(lambda: impl.constrained_sample(np.asarray(logits, dtype=np.float64), constraint,
                                                                params, history, np.random.default_rng(0)))},
    ]
    for refusal in refused:
        if refusal["error"] is None:
            raise _disagree(f"the reference accepts {refusal['name']}")
    return refused


def hand_example_record(reference, vocab_record: dict) -> dict:
    """The ``constrained_sample_hand_example`` field of constrain_golden.json, the
    expected steps cross-checked against ``reference`` (a module of the contract);
    ``vocab_record`` is ``cases.SAMPLE_VOCAB`` in the file's vocabulary encoding."""
    steps = expected_steps()
    refused = cross_check(reference, steps)
    return {"pattern": cases.SAMPLE_PATTERN, "vocab": vocab_record,
            "logits": list(cases.SAMPLE_LOGITS), "temperature": 0, "steps": steps,
            "tolerance": TOLERANCE, "refused": refused}
