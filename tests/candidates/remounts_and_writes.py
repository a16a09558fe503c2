"""Hostile: at import, remount and rewrite a golden file and a catalogue test; then works like the reference.
Expected: see tests/candidates/README.md (the gallery table)."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403

_attacks.quietly(_attacks.remount)
_attacks.write_harness()
