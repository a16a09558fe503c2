"""Hostile (every process attack at once, at import): leave a ``setsid`` + double-fork
daemon, kill the parent and every process that looks like the grader, read every
``/proc/<pid>/environ`` for ``CONSTRAIN_HARNESS_TEST_SECRET``, flood stdout (20 MB) and
print a fake PASS row and verdict line (ANSI escapes, a carriage return); ``regex_to_dfa``
raises a ValueError carrying the fake row and the secret for ``"(a|b)*"``, else works
like the reference. Expected: ``test_canonical_form`` fails (it needs ``(a|b)*``), every
other test passes (exit 1); the grader is neither killed nor read, the fake row is shown
only escaped, the secret appears nowhere, no process of the candidate is left."""

import _attacks

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa

_attacks.leave_daemon()
_attacks.kill_graders()
SECRET = _attacks.find_secret()
_attacks.print_fake_row()
_attacks.flood_stdout()
_attacks.print_fake_row()


def regex_to_dfa(pattern):
    if pattern == "(a|b)*":
        raise ValueError(f"bad pattern{_attacks.FAKE_ROW}secret={SECRET}")
    return _reference_regex_to_dfa(pattern)
