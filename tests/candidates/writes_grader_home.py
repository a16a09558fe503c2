"""Hostile: at import, write into the grader's home (/root); then works like the reference.
Expected: see tests/candidates/README.md (the gallery table)."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403

_attacks.write_home()
