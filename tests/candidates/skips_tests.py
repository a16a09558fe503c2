"""Misbehaves: calls ``pytest.skip`` inside ``regex_to_dfa``, hoping a skipped test counts
as a pass. Expected: the catalogue never skips, so the test fails (exit 1)."""

import pytest

from oracles.automaton import *  # noqa: F401,F403


def regex_to_dfa(pattern):
    pytest.skip("not today")
