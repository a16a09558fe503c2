"""Wheats grouped by the spec's readings: where the spec's own text allows two behaviours, a
student's test written to one of them is valid if it passes every wheat of that reading.

``SPEC_READINGS`` lists those decisions (``harness.suite.tiers.DECISIONS`` keys) and their
readings, the contract's first. A wheat declares the readings it takes where it departs from
the contract's with a module-level literal ``SPEC_READINGS = {"decision": "reading"}`` (read
from its source with ``ast``, never imported here); the reference takes the contract's
readings. Decisions where the spec is silent (error classes, ...) are not here: a test asserting
the contract's choice there still has to pass every wheat.

The rule (``assumption``): a test that failed on some wheats is valid when some choice of
readings, one per decision for a few decisions, leaves a non-empty group of wheats that take
exactly those readings, on all of which it passed, and the wheats it failed on are whole groups
of another reading of the chosen decisions (it failed on every wheat that reads them as that
wheat does: failing on one wheat of a group that another wheat of the same group passes is no
reading). The smallest such choice is reported as what the test assumes
(``enum_const_raw_utf8=ascii_escapes``); every choice of that size that works is listed, the one
with the largest group first. The rule cannot see which decision a test touches: it only excuses
failures on wheats of another reading, and says which reading a TA should read the test against.

Example::

    >>> assumption({"reference"}, {"reference": {"enum_const_raw_utf8": "raw_utf8"},
    ...                            "fair_literal_sre": {"enum_const_raw_utf8": "ascii_escapes"}})
    ['enum_const_raw_utf8=ascii_escapes']
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

__all__ = ["SPEC_READINGS", "declared_readings", "assumption", "takes"]

SPEC_READINGS: dict[str, tuple[str, ...]] = {
    # spec 000 section 2.5: compact JSON "as json.dumps(v, separators=(",", ":")) writes it" (ensure_ascii:
    # \uXXXX for non-ASCII and DEL), or raw UTF-8 (spec 002's dumps_matches_python: "raw non-ASCII")
    "enum_const_raw_utf8": ("raw_utf8", "ascii_escapes"),
    # Python syntax outside the spec's list (named groups, comments, inline flags): refused by the spec's
    # list, or read with Python's meaning ("the subset is Python's own")
    "python_only_syntax_refused": ("refused", "python_meaning"),
}
"""Decision -> its readings, the contract's first."""

MAX_CHOSEN = len(SPEC_READINGS)
DECLARATION_NAMES = ("SPEC_READINGS", "SEED_READINGS")  # words: the old name, kept: wheats written before 2026-12-06


def defaults() -> dict[str, str]:
    return {decision: readings[0] for decision, readings in SPEC_READINGS.items()}


def declared_readings(spec: str | None) -> dict[str, str]:
    """Every decision's reading for the wheat ``spec`` (None: the reference): the contract's,
    overridden by the file's ``SPEC_READINGS`` literal. ValueError for an unknown decision or
    reading, or a ``SPEC_READINGS`` that is not a literal dict."""
    readings = defaults()
    if spec is None:
        return readings
    path = Path(spec)
    source = path / "__init__.py" if path.is_dir() else path
    if not source.is_file():
        return readings
    for node in ast.parse(source.read_text(encoding="utf-8"), str(source)).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) in DECLARATION_NAMES for t in node.targets):
            try:
                declared = ast.literal_eval(node.value)
            except ValueError:
                raise ValueError(f"{source}: SPEC_READINGS must be a literal dict") from None
            readings.update(_checked(declared, source))
    return readings


def _checked(declared, source: Path) -> dict[str, str]:
    if not isinstance(declared, dict):
        raise ValueError(f"{source}: SPEC_READINGS must be a dict, not {type(declared).__name__}")
    for decision, reading in declared.items():
        if reading not in SPEC_READINGS.get(decision, ()):
            raise ValueError(f"{source}: SPEC_READINGS[{decision!r}] = {reading!r}: not a reading of "
                             f"{', '.join(f'{d} {r}' for d, r in SPEC_READINGS.items())}")
    return dict(declared)


def assumption(failed_on: set[str], wheat_readings: dict[str, dict[str, str]]) -> list[str] | None:
    """The readings a test that failed on the wheats ``failed_on`` assumes (each
    ``decision=reading`` choice of the smallest size that excuses every failure, several
    when several do), or None when none does (the test is invalid). ``wheat_readings``: the
    loaded wheats' declared readings."""
    if not failed_on:
        return []
    decisions = sorted(SPEC_READINGS)
    for size in range(1, MAX_CHOSEN + 1):
        found = []
        for chosen in itertools.combinations(decisions, size):
            for picks in itertools.product(*(SPEC_READINGS[d] for d in chosen)):
                choice = dict(zip(chosen, picks))
                group = {w for w, r in wheat_readings.items() if all(r.get(d) == p for d, p in choice.items())}
                if group and not group & failed_on and _uniform(failed_on, wheat_readings, chosen):
                    found.append((-len(group), ", ".join(f"{d}={p}" for d, p in choice.items())))
        if found:  # the choice the most wheats agree with first (then by decision name)
            return [text for _, text in sorted(found)]
    return None


def _uniform(failed_on: set[str], wheat_readings: dict[str, dict[str, str]], chosen: tuple[str, ...]) -> bool:
    """Whether the failures follow the readings of ``chosen``: every wheat that takes the same
    readings of them as a wheat the test failed on failed too (a test that fails on one wheat and
    passes on another of the same readings is wrong whatever it assumes)."""
    profile = {w: tuple(r.get(d) for d in chosen) for w, r in wheat_readings.items()}
    failing = {profile[w] for w in failed_on if w in profile}
    return failed_on <= set(profile) and all(w in failed_on for w, p in profile.items() if p in failing)


def takes(choices: list[str], readings: dict[str, str]) -> bool:
    """Whether an implementation of ``readings`` takes one of the ``choices`` a test
    assumes (``assumption``'s texts, ``"decision=reading, decision=reading"``); True when
    the test assumes nothing.

    >>> takes(["python_only_syntax_refused=python_meaning"], defaults())
    False
    """
    if not choices:
        return True
    return any(all(readings.get(d) == r for d, r in (pair.split("=", 1) for pair in choice.split(", ")))
               for choice in choices)
