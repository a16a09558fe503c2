"""The words of each finding ``harness.suite.explain`` writes and ``harness.suite.diagnosis`` looks for.

One place, with no imports, so that the report side (``diagnosis``, read by the ``check`` verb
after its run) need not import what explaining a failure needs (numpy, pytest): the verb's
report costs 0.03 CPU s instead of 0.27.
"""

from __future__ import annotations

__all__ = ["FINDING_WORDS"]

FINDING_WORDS = {
    "dead sink": "a dead sink kept as a state",
    "language": "the languages differ",
    "not minimal": "states with the same futures are not merged",
    "numbering": "numbered in another order",
}
