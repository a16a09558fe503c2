"""Hostile: at import, leave a setsid + double-fork child running; then works like the reference.
Expected: see tests/candidates/README.md (the gallery table)."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403

_attacks.leave_daemon()
