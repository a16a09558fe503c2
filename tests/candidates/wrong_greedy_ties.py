"""Wrong: greedy breaks ties towards the highest id. Must fail:
test_greedy_takes_the_best_allowed_token."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import apply_mask
from oracles.automaton import constrained_sample as _reference_constrained_sample


def constrained_sample(logits, c, p, history, rng, prompt=()):
    if p.temperature != 0:
        return _reference_constrained_sample(logits, c, p, history, rng, prompt)
    masked = apply_mask(logits, c.mask())
    best = int(len(masked) - 1 - np.argmax(masked[::-1]))
    allowed = masked[np.isfinite(masked)]
    logprob = float(masked[best] - np.log(np.exp(allowed - allowed.max()).sum()) - allowed.max())
    c.advance(best)
    return best, logprob
