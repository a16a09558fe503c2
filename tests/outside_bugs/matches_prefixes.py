"""True cause: DFA.matches accepts when any state on the way accepts (a prefix matches). Function: DFA.matches. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"dfa.py": [("        state = self.step(0, data)\n        return state != DEAD and bool(self.accept[state])",
"        state = 0\n        for b in data:\n            if state != DEAD and self.accept[state]:\n                return True\n            state = self.step(state, bytes([b]))\n        return state != DEAD and bool(self.accept[state])")]}))
# ruff: noqa: E501 - one edit, one line
