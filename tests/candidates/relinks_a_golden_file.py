"""Hostile: at import, replace golden/constrain_golden.json by a symlink to a file outside the
checkout; then works like the reference.
Expected: see tests/candidates/README.md (the gallery table)."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403

_attacks.relink_golden()
