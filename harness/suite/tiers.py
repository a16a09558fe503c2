"""Two tiers of grading: what the seed states, and what our contract decides beyond it.

The default tier asserts only what the seed's text (``000_4b494d6fc237472e.txt``,
sections 2-5) states, and accepts every reading consistent with it. Where the seed is
silent, the contract (``harness/contract/constrain.pyi``) takes a decision ("Decision:"
in its docstrings); a test checks such a decision through ``decision(...)``:

- under ``check --strict`` a departure fails the test, like any assertion;
- in the default tier it is recorded as a note ("contract decision not met: ...") that
  the report prints, and it changes neither the verdict nor the exit code.

Every key passed to ``decision`` is a row of ``DECISIONS`` (the table the contract's
documentation prints), so a course sees exactly what each tier grades.

Example::

    >>> _ = register("step_out_of_range_valueerror", "DFA.step raises ValueError for a state out of range")
    >>> set_strict(False)
    >>> decision("step_out_of_range_valueerror", False, "DFA.step(99) raised IndexError")
    >>> drain_notes()
    ['contract decision not met: step_out_of_range_valueerror: DFA.step(99) raised IndexError']
    >>> set_strict(True)
    >>> decision("step_out_of_range_valueerror", False, "raised IndexError")
    Traceback (most recent call last):
    ...
    AssertionError: contract decision not met: step_out_of_range_valueerror: raised IndexError

Invariant: ``decision`` never raises in the default tier (a departure is a note, never a
failure); an unknown key is an internal error (``KeyError``), loud in both tiers.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Decision", "DECISIONS", "decision", "set_strict", "is_strict", "drain_notes"]


@dataclass(frozen=True)
class Decision:
    """One contract decision the seed does not state: its key and what it requires."""

    key: str
    requires: str


# The table: every decision a catalogue test may check through ``decision(key, ...)``.
# Rows are added by the tests that check them (keep them sorted by key).
DECISIONS: dict[str, Decision] = {}


def register(key: str, requires: str) -> Decision:
    """Add a row to ``DECISIONS`` (at import of the test module that checks it)."""
    row = Decision(key, requires)
    if DECISIONS.get(key, row) != row:
        raise KeyError(f"decision {key!r} registered twice with different texts")
    DECISIONS[key] = row
    return row


_STATE = {"strict": False, "notes": []}


def set_strict(strict: bool) -> None:
    """Set the tier for this process (the plugin calls it from ``--strict``)."""
    _STATE["strict"] = bool(strict)


def is_strict() -> bool:
    return _STATE["strict"]


def decision(key: str, ok: bool, message: str) -> None:
    """Check a contract decision: fail under ``--strict``, else note a departure."""
    if key not in DECISIONS:
        raise KeyError(f"unknown contract decision {key!r}: register it in harness.suite.tiers")
    if ok:
        return
    text = f"contract decision not met: {key}: {message}"
    if _STATE["strict"]:
        raise AssertionError(text)
    _STATE["notes"].append(text)


def drain_notes() -> list[str]:
    """The notes recorded since the last call (the plugin calls it after each test)."""
    notes, _STATE["notes"] = _STATE["notes"], []
    return notes
