"""Misbehaves: on the first call, overwrites the masks golden file and a catalogue test
file (found through the imported ``golden`` and ``harness.suite`` packages), then works
like the reference. Write errors are swallowed, so only the harness can notice.
Expected: every test passes, and the harness's files are unchanged afterwards."""

from pathlib import Path

import golden
import harness.suite
from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa

_done = []


def _vandalize():
    targets = [Path(golden.__file__).parent / "masks_golden.json",
               Path(harness.suite.__file__).parent / "test_dfa.py"]
    for target in targets:
        try:
            target.write_text("{}\n")
        except OSError:
            pass


def regex_to_dfa(pattern):
    if not _done:
        _done.append(True)
        _vandalize()
    return _reference_regex_to_dfa(pattern)
