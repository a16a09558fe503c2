"""Hostile: at import, print a fake PASS row and verdict line with ANSI escapes and a carriage
return; then works like the reference.
Expected: see tests/candidates/README.md (the gallery table)."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403

_attacks.print_fake_row()
