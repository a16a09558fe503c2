"""True cause: Constraint.advance does not move to the next state (the state stays). Function: Constraint.advance. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"constraint.py": [("        else:\n            self.state = target", "        else:\n            self.state = self.state")]}))
# ruff: noqa: E501 - one edit, one line
