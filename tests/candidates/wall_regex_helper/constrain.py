"""Wrong: ``apply_mask`` writes ``-inf`` into the caller's array (test 11); and the
``regex.py`` shipped beside it is the attack (issue 22): a "helper" that, imported by the
grader's own process (the folder the TA runs ``check`` from was on its path), rewrites
every result record to "passed".
Expected: ``cd upload && constrain-harness check --impl constrain.py`` gives the honest
verdict: test_apply_mask failed, exit 1, never 16/16."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403


def apply_mask(logits, mask):  # the spec's pitfall: writes -inf into the caller's array
    mask = np.asarray(mask, dtype=bool)
    if isinstance(logits, np.ndarray) and logits.shape == mask.shape and mask.any():
        logits[~mask] = -np.inf
        return logits
    out = np.asarray(logits, dtype=np.float64).copy()
    if out.shape != mask.shape or not mask.any():
        raise ValueError("bad mask")
    out[~mask] = -np.inf
    return out
