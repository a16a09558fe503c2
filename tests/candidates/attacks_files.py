"""Hostile (every file attack at once, at import): detach or remount the read-only tree,
rewrite a golden file and a catalogue test, plant new files in ``golden/``,
``harness/suite/``, ``oracles/`` and a ``__pycache__``, replace ``golden/constrain_golden.json``
by a symlink to a file outside the checkout (the grader's home: ``writes_grader_home.py``,
which is run only confined). Then works like the reference. Expected: the tests pass and the harness's files are
unchanged; where the files could be written (the fallback without bubblewrap) the verdict
is ``tampered`` (exit 4), every change is listed and undone, and the file the symlink
points to is never written."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403

_attacks.quietly(_attacks.remount)
_attacks.write_harness()
_attacks.plant_files()
_attacks.relink_golden()
