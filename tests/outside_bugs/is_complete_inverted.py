"""True cause: Constraint.is_complete answers the opposite. Function: Constraint.is_complete. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"constraint.py": [("        return bool(self.index.dfa.accept[self.state])", "        return not bool(self.index.dfa.accept[self.state])")]}))
# ruff: noqa: E501 - one edit, one line
