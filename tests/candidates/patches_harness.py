"""Hostile: a wrong numbering (the reference's states renumbered in reverse) hidden by
patching, at import, everything that decides a verdict in a shared process: the golden
replay's report (``ReplayReport.ok`` always true, ``fail`` a no-op), the catalogue's
``fail`` helper, the plugin's summary, pytest's report outcome, and ``re.fullmatch``.
Expected: ``test_hand_example`` fails (check, exit 1) and the golden replay fails (exit 1):
the patches change only the candidate's own process."""

import re

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def _patch():
    try:
        import golden.replay as replay

        replay.ReplayReport.ok = property(lambda self: True)
        replay.ReplayReport.fail = lambda self, *a, **k: None
    except Exception:  # noqa: BLE001
        pass
    try:
        import harness.suite.explain as explain

        explain.fail = lambda *a, **k: None
    except Exception:  # noqa: BLE001
        pass
    try:
        import harness.suite.plugin as plugin

        plugin._summarize = lambda reports: ("passed", "", "")
    except Exception:  # noqa: BLE001
        pass
    try:
        import _pytest.reports as reports

        reports.TestReport.failed = property(lambda self: False)
        reports.TestReport.passed = property(lambda self: True)
    except Exception:  # noqa: BLE001
        pass
    re.fullmatch = lambda *a, **k: True


_patch()


class _Reversed:
    def __init__(self, dfa):
        n = dfa.n_states
        order = np.arange(n)[::-1]  # state i becomes n-1-i: still a DFA, wrong numbering
        self.n_states = n
        self.trans = np.where(dfa.trans >= 0, (n - 1 - dfa.trans), -1)[order].astype(np.int32)
        self.accept = dfa.accept[order]
        self.start = n - 1

    def step(self, state, data):
        for byte in data:
            if state < 0:
                return -1
            state = int(self.trans[state, byte])
        return state

    def matches(self, data):
        state = self.step(0, data)
        return state >= 0 and bool(self.accept[state])


def regex_to_dfa(pattern):
    return _Reversed(_reference_regex_to_dfa(pattern))
