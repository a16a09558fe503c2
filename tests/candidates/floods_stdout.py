"""Hostile: at import, print 200 MB to stdout; then works like the reference.
Expected: see tests/candidates/README.md (the gallery table)."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403

_attacks.flood_stdout(200)
