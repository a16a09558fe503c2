"""Hostile: at import, kill its parent and every process that looks like the grader; then works like the reference.
Expected: see tests/candidates/README.md (the gallery table)."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403

_attacks.kill_graders()
