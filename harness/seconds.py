"""The one check of a time limit given as a number: a finite number of seconds > 0.

Every typed value that holds a limit in seconds (the grading policy, the wall calibration,
the autograder's wall and its configuration, the batch's CPU limits, the developer verbs'
``--timeout``) checks it here, so a refusal reads the same everywhere::

    >>> check_seconds("timeout", 2)
    2
    >>> check_seconds("timeout", float("inf"))
    Traceback (most recent call last):
    ...
    ValueError: timeout must be a finite number of seconds > 0, not inf

A bool is not a number of seconds (``True`` is refused, though Python counts it as 1); NaN
and the infinities are refused; ``at_most`` bounds the value from above (inclusive) and the
refusal then names the range.
"""

from __future__ import annotations

import math


def check_seconds(name: str, value, *, unit: str = "seconds", at_most: float = math.inf):
    """``value`` unchanged if it is an int or a float (never a bool) with ``0 < value <= at_most``
    and finite; else a ValueError naming ``name`` and the value: ``{name} must be a finite number
    of {unit} > 0, not {value!r}`` (``in (0, {at_most:g}]`` in place of ``> 0`` when bounded)."""
    if not is_seconds(value, at_most=at_most):
        bound = "> 0" if at_most == math.inf else f"in (0, {at_most:g}]"
        raise ValueError(f"{name} must be a finite number of {unit} {bound}, not {value!r}")
    return value


def is_seconds(value, *, at_most: float = math.inf) -> bool:
    """True when ``check_seconds`` would accept ``value``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return 0 < value < math.inf and value <= at_most
