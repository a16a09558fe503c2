"""Hostile: at import, read the grader's environment through /proc (and show what it found in an
error); then works like the reference.
Expected: see tests/candidates/README.md (the gallery table)."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403

SECRET = _attacks.find_secret()
if SECRET:
    raise RuntimeError(f"found the grader's secret: {SECRET}")
