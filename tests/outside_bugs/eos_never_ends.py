"""True cause: TokenIndex.next_state answers DEAD for EOS even in an accepting state. Function: TokenIndex.next_state. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {}))
_TokenIndex = TokenIndex  # noqa: F821


class TokenIndex(_TokenIndex):
    def next_state(self, state, token_id):
        if token_id == self.eos_id:
            return -1
        return super().next_state(state, token_id)
# ruff: noqa: E501 - one edit, one line
