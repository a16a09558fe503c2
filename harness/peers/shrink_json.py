"""Structural shrinking of a JSON instance on which peers disagree.

Main access point: ``shrink_instance(value, keeps, budget)`` -> ``(smallest value, evaluations)``:
greedy, first improvement, over single structural steps (``structural_steps``), keeping
only candidates for which ``keeps`` (e.g. "the same peer still answers alone against the
others") says True; at most ``budget`` calls of ``keeps``, never the same candidate twice.

A *structural step* is one of (bigger steps first):

- an object member dropped, e.g. ``{"a":1,"b":[2]}`` -> ``{"b":[2]}``;
- an array item dropped, e.g. ``[1,[2,3]]`` -> ``[[2,3]]``;
- a string shortened: emptied, halved (its first half), or one character dropped;
- a number moved toward 0: ``0`` (``0.0`` for a float), an integer halved toward 0 or one step
  toward 0 (``-7`` -> ``-3``, ``-6``), a float's fraction dropped (``2.5`` -> ``2.0``);
- any of the above inside a member's value or an item.

Guarantee: the result keeps the disagreement (``keeps`` said True of it, or it is the input),
and when the budget was not spent, it is *minimal*: no single structural step of it keeps the
disagreement. Every step makes the value strictly smaller in (members + items, string
lengths, integer magnitudes, fractions), so the search ends even without the budget for
objects, arrays, strings and integers; a float's steps end at an integral value.

Bound: ``SHRINK_INSTANCE_BUDGET`` evaluations by default (each asks every peer once).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["SHRINK_INSTANCE_BUDGET", "shrink_instance", "structural_steps"]

SHRINK_INSTANCE_BUDGET = 200


def structural_steps(value: Any) -> Iterable[Any]:
    """Every value one structural step smaller than ``value`` (module docstring), bigger steps first."""
    if isinstance(value, dict):
        for key in value:
            yield {k: v for k, v in value.items() if k != key}
        for key, member in value.items():
            for smaller in structural_steps(member):
                yield {**value, key: smaller}
    elif isinstance(value, list):
        for i in range(len(value)):
            yield value[:i] + value[i + 1:]
        for i, item in enumerate(value):
            for smaller in structural_steps(item):
                yield value[:i] + [smaller] + value[i + 1:]
    elif isinstance(value, str):
        yield from dict.fromkeys(s for s in [""] + [value[:len(value) // 2]] + [
            value[:i] + value[i + 1:] for i in range(len(value))] if len(s) < len(value))
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        yield from dict.fromkeys(n for n in (0, int(value / 2), value - (1 if value > 0 else -1))
                                 if abs(n) < abs(value))
    elif isinstance(value, float) and math.isfinite(value):
        yield from dict.fromkeys(x for x in (0.0, float(math.trunc(value))) if x != value and abs(x) <= abs(value))


def _key(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def shrink_instance(value: Any, keeps: Callable[[Any], bool],
                    budget: int = SHRINK_INSTANCE_BUDGET) -> tuple[Any, int]:
    """(the smallest value found that ``keeps`` the disagreement, the evaluations spent)."""
    best, spent, tried = value, 0, {_key(value)}
    improved = True
    while improved and spent < budget:
        improved = False
        for candidate in structural_steps(best):
            key = _key(candidate)
            if key in tried:
                continue
            tried.add(key)
            spent += 1
            if keeps(candidate):
                best, improved = candidate, True
                break
            if spent >= budget:
                break
    return best, spent
