"""Correct but incomplete in the seed's allowed way: no L8.1 sampling and no GPT-2 byte
map of its own (``SamplingParams``, ``sample``, ``bytes_to_unicode``,
``unicode_to_bytes`` missing). Its ``constrained_sample`` calls the global ``sample``.
Expected: a contract error without ``--ref-deps``; all tests pass with it."""

import numpy as np

from oracles.automaton import (  # noqa: F401  # noqa: F401
    DEAD,
    DFA,
    Constraint,
    TokenIndex,
    apply_mask,
    json_schema_to_regex,
    regex_to_dfa,
    vocab_bytes,
)


def constrained_sample(logits, c, p, history, rng, prompt=()):
    if c.done:
        raise ValueError("the constraint is done: nothing may follow EOS")
    masked = apply_mask(logits, c.mask())
    token, logprob = sample(masked, p, history, rng, prompt)  # noqa: F821 - supplied by --ref-deps
    c.advance(token)
    return token, logprob


_ = np
