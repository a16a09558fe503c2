"""One strategy object per set of arguments: ``reused``, so Hypothesis validates it once.

A property that builds its strategies inside the test (``data.draw(patterns(max_leaves=10))``,
``data.draw(strings_for(pattern))``) builds a new strategy object at every example, and
Hypothesis validates every new object at its first draw: for a recursive strategy that walks
the whole definition (``st.recursive`` validates and prints its ``extend`` step). Measured
2026-12-06 on the deep tier's four properties against the reference: about half of the
grader's CPU seconds went to building and validating strategies, not to the oracles or the
candidate (``docs/mutants-runs.md``, "Where a survivor's deep pass goes").

**Invariant**: a function decorated with ``reused`` returns a strategy that depends on its
arguments only (no other state, nothing random), so the object made for the first call with
those arguments describes the same values as a fresh one: for a given choice sequence it draws
the same value (a strategy is an immutable description; Hypothesis itself caches the
strategies of ``hypothesis.strategies`` the same way). Only hashable arguments are cached;
a call with an unhashable one (a schema dict) builds a fresh object, as before.

``REUSE`` off (``tests/strategies/test_strategies_reuse.py`` turns it off) gives a fresh object
every call: that test checks the deep properties draw the same inputs, in the same order,
either way.
"""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

__all__ = ["REUSE", "reused"]

F = TypeVar("F", bound=Callable)

REUSE = [True]
"""Whether ``reused`` functions return the cached object (a one-element list, so a test can turn
it off and on without rebinding a module global)."""

MAX_CACHED = 4096
"""Objects kept per function (least recently used dropped): ``strings_for`` is called with
every drawn pattern; a deep pass draws a few hundred."""


def reused(function: F) -> F:
    """``function`` (which builds a strategy from hashable arguments) returning the same object for
    the same arguments while ``REUSE[0]`` holds; a fresh one otherwise or for unhashable ones."""
    cached = functools.lru_cache(maxsize=MAX_CACHED, typed=True)(function)   # typed: 1.0 is refused, not 1's

    @functools.wraps(function)
    def strategy(*args, **kwargs):
        if not REUSE[0]:
            return function(*args, **kwargs)
        try:
            return cached(*args, **kwargs)
        except TypeError as exc:
            if "unhashable" not in str(exc):
                raise
            return function(*args, **kwargs)

    strategy.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return strategy  # type: ignore[return-value]
