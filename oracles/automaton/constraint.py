"""One generation's position in the language: the state of the text so far, and EOS.

A ``Constraint`` follows one output through a ``TokenIndex``:

- ``state`` is the DFA state of the text generated so far (0 at the start);
- ``done`` becomes True when EOS is accepted; after that nothing is allowed;
- ``advance(t)`` refuses any token outside ``mask()`` with a ValueError naming the
  token and the state, so a sampler that ignored the mask surfaces as an error
  instead of an output outside the language.

Invariant: ``state`` is never DEAD, so ``mask()`` of a live DFA always allows a
token or EOS when the vocabulary has every single byte and an EOS id.

Example, ``(cat|car|dog)s?`` with the spec's vocabulary (``ca`` = 8, ``t`` = 2, EOS =
13)::

    c = Constraint(index)
    c.advance(8); c.advance(2)   # "cat": state 5, complete
    c.advance(13)                # EOS: done, state unchanged
    c.advance(7)                 # ValueError: token 7 is not allowed ... (done)
"""

from __future__ import annotations

import numpy as np

from .dfa import DEAD
from .errors import InvalidArgument
from .index import TokenIndex

__all__ = ["Constraint"]


class Constraint:
    """``Constraint(index, state=0)``: ``state``, ``done``, ``mask()``, ``advance()``,
    ``is_complete()``."""

    __slots__ = ("index", "state", "done", "_nothing")

    def __init__(self, index: TokenIndex, state: int = 0) -> None:
        if not isinstance(index, TokenIndex):
            raise TypeError(f"Constraint: index must be a TokenIndex, not {type(index).__name__}")
        index.mask(state)  # validates the state (ValueError out of range) and warms the cache
        self.index = index
        self.state = int(state)
        self.done = False
        self._nothing: np.ndarray | None = None

    def mask(self) -> np.ndarray:
        """``index.mask(state)`` (read-only); after EOS an all-False bool [V]."""
        if self.done:
            if self._nothing is None:
                self._nothing = np.zeros(self.index.vocab_size, np.bool_)
                self._nothing.setflags(write=False)
            return self._nothing
        return self.index.mask(self.state)

    def advance(self, token_id: int) -> None:
        """Consume ``token_id``. Raises ValueError naming the token and the state when
        it is outside ``mask()`` (any token after EOS included); EOS sets ``done``
        and leaves the state unchanged."""
        if self.done:
            raise InvalidArgument(f"Constraint: token {token_id} is not allowed in state {self.state}: "
                                  "the generation is done (EOS was accepted)")
        target = self.index.next_state(self.state, token_id)
        if target == DEAD:
            raise InvalidArgument(f"Constraint: token {token_id} is not allowed in state {self.state}")
        if token_id == self.index.eos_id:
            self.done = True
        else:
            self.state = target

    def is_complete(self) -> bool:
        """True iff the text so far is in the language (``dfa.accept[state]``)."""
        return bool(self.index.dfa.accept[self.state])

    def __repr__(self) -> str:
        return f"Constraint(state={self.state}, done={self.done}, complete={self.is_complete()})"
