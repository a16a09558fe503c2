"""Hostile: at import, plant new files in golden/, harness/suite/, oracles/ and a __pycache__;
then works like the reference.
Expected: see tests/candidates/README.md (the gallery table)."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403

_attacks.plant_files()
