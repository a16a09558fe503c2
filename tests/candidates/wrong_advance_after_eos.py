"""Wrong: the constraint accepts tokens after EOS (``done`` is ignored).
Must fail: test_constraint_lifecycle."""

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import Constraint as _ReferenceConstraint


class Constraint(_ReferenceConstraint):
    def advance(self, token_id):
        if self.done:
            return
        super().advance(token_id)
