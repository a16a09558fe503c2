"""The derivative oracle's bounds, and the work budget that enforces one of them.

Every input is answered within these, or refused with ``LimitExceeded`` (``PatternTooLarge``
when the bound is one of the pattern's text):

- ``MAX_PATTERN_CHARS``: pattern text, checked before Python's parser sees it;
- ``MAX_REPEAT``: repeat counts (``a{1001}`` is ``PatternTooLarge``);
- ``MAX_NESTING``: groups nested in the text, checked before Python's parser (which
  recurses per level) sees it (``PatternTooLarge`` at the first ``(`` too deep);
- ``MAX_STATES``: distinct terms explored by one ``canonical_dfa``, emptiness or
  witness search;
- ``MAX_DERIVATIVE_WORK``: derivative steps of one public call (fresh derivatives,
  each costing the number of alternatives it walks), plus 64 per input byte;
- ``MAX_MOORE_WORK``: states x columns x rounds of one Moore minimization;
- ``MAX_CACHED_TERMS`` and ``MAX_CACHED_DFA_CELLS``: what the module functions' caches
  (parses, ``Oracle`` objects, their canonical DFAs) keep between calls, counted as terms
  made and DFA cells built since the last clear (terms a caller holds do not count). Past either, the
  next module-level call clears the caches first (``api.clear_caches`` and a collection:
  derivative memos form cycles), so a long-lived process holds one call's work plus these
  (measured: ~460 bytes a term with its memo, so ~90 MB of terms and 100 MB of DFAs).

``BUDGET`` counts ``MAX_DERIVATIVE_WORK``: ``guarded(n)`` wraps each public call
(refilling the budget at the outermost one and turning a ``RecursionError`` into
``LimitExceeded``); the term constructors and ``derivative`` spend from it.
The other modules read these as ``bounds.MAX_...`` when they run, so a test lowers one
with ``monkeypatch.setattr(oracles.derivatives.bounds, "MAX_STATES", 40)`` (the names
the package re-exports are the defaults). Example::

    >>> with guarded(input_bytes=10):
    ...     BUDGET.left == MAX_DERIVATIVE_WORK + 640
    True
"""

from __future__ import annotations

import contextlib

from .errors import LimitExceeded

__all__ = ["MAX_REPEAT", "MAX_NESTING", "MAX_STATES", "MAX_MOORE_WORK", "MAX_PATTERN_CHARS", "MAX_DERIVATIVE_WORK",
           "MAX_CACHED_TERMS", "MAX_CACHED_DFA_CELLS", "BUDGET", "guarded"]

MAX_REPEAT = 1000    # largest repeat bound accepted in {m,n}: e.g. a{1001} is refused
MAX_NESTING = 400    # most groups nested in a pattern's text: a 401st ( inside 400 others is refused
MAX_STATES = 20_000  # most distinct terms explored by one DFA build or emptiness search
MAX_MOORE_WORK = 20_000_000  # most (states x columns x rounds) of one Moore minimization (a few s)
MAX_PATTERN_CHARS = 200_000  # longest pattern text parsed: a 1 MB literal is refused before parsing
MAX_DERIVATIVE_WORK = 400_000  # derivative steps of one public call (about a second), plus 64 per input byte
MAX_CACHED_TERMS = 200_000  # terms made since the caches were last cleared (what they may keep between calls)
MAX_CACHED_DFA_CELLS = 25_000_000  # int32 cells of canonical DFAs built since the caches were last cleared


class Budget:
    """The derivative work left to the current public call (``MAX_DERIVATIVE_WORK`` at
    its start). Invariant: ``active`` is the depth of nested guarded calls; only the
    outermost one refills, and work outside any guarded call is not counted (direct
    ``derivative`` calls in tests stay unbounded, as documented)."""

    def __init__(self) -> None:
        self.active = 0
        self.left = MAX_DERIVATIVE_WORK

    def refill(self, input_bytes: int = 0) -> None:
        """A fresh budget: MAX_DERIVATIVE_WORK plus 64 steps per byte of input."""
        self.left = MAX_DERIVATIVE_WORK + 64 * input_bytes

    def spend(self, steps: int) -> None:
        self.left -= steps
        if self.left < 0:
            raise LimitExceeded(
                f"derivative work past MAX_DERIVATIVE_WORK={MAX_DERIVATIVE_WORK} steps (terms grow too "
                f"large: e.g. nested counted repeats such as ((a{{0,30}}){{0,30}}){{0,30}})")


BUDGET = Budget()


@contextlib.contextmanager
def guarded(input_bytes: int = 0):
    """A term nested deeper than Python's recursion limit is a bound, not a crash; the
    outermost guarded call also gets a fresh derivative work budget, larger by 64
    steps per byte of its input (``matches`` on a long document is linear work)."""
    if not BUDGET.active:
        BUDGET.refill(input_bytes)
    BUDGET.active += 1
    try:
        yield
    except RecursionError:
        raise LimitExceeded("term nested too deeply for the recursion limit") from None
    finally:
        BUDGET.active -= 1
