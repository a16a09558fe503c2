"""The reference's own answers that several of ``tests/mutants``' files compare mutants with, each
computed once per process (once per xdist worker) at its first use, whichever file asks first.

The reference (``oracles.automaton``) is never mutated in these tests, so its answers cannot change
within a run: ``test_mutants_evidence``, ``test_mutants_evidence_pick``, ``test_mutants_generated`` and
``test_mutants_infection`` each computed the same ones on their own before (2026-12-07: the sampling
domain's record twice, the corpus fingerprint twice); ``reference_dfas_once`` does the same for the
DFAs the tools replay compiles with the reference, within a block. What each test proves about them is unchanged:
``test_mutants_evidence.test_the_reference_agrees_with_itself_on_every_item`` still computes every
domain afresh and compares it with ``record`` item by item. The values are shared: read them, never
change them (``record`` is a tuple; ``fingerprint`` a dict every reader only reads)."""

from __future__ import annotations

import contextlib
import copy
import functools
from typing import Any, Iterator

import oracles.automaton as reference
from harness.mutants import equivalence, evidence


@functools.cache
def record(kind: str) -> tuple[str, ...]:
    """``evidence.record`` of the reference over ``kind``'s domain (vocab ~0.7 CPU s, sampling ~0.6)."""
    return tuple(evidence.record(reference, kind))


@functools.cache
def fingerprint() -> dict[str, Any]:
    """``equivalence.fingerprint`` of the reference: its answers on the corpus's keys (~0.5 CPU s)."""
    return equivalence.fingerprint(reference)


@functools.cache
def digest() -> dict[str, str]:
    """``equivalence.digest`` of ``fingerprint()``: what crosses a process boundary."""
    return equivalence.digest(fingerprint())


@contextlib.contextmanager
def reference_dfas_once(made: dict) -> Iterator[None]:
    """Within the block, ``oracles.automaton.regex_to_dfa(pattern)`` (a pattern and nothing else) is
    computed once a pattern (kept in ``made``, which may outlive the block) and each call given its own
    deep copy of that DFA; a pattern it refuses is asked again each time (its error raised as before),
    and any other call goes to it unchanged.

    The tools replay (``golden.tools_replay``: ``check_grammars``, the forced walks, and the copy's
    own ``request`` check) compiles the grammar patterns of its cases with the reference, 48 calls of
    9 patterns a replay, ~0.7 of its ~0.9 CPU s (2026-12-07), the same for every copy replayed. The
    reference is a function of the pattern alone and the copy is what a fresh compile returns, so
    every replay's findings are the ones it makes without this (``test_tools_mutants``)."""
    import oracles.automaton as automaton

    real = automaton.regex_to_dfa

    def regex_to_dfa(pattern, *args, **kwargs):
        if args or kwargs or not isinstance(pattern, str):
            return real(pattern, *args, **kwargs)
        if pattern not in made:
            made[pattern] = real(pattern)
        return copy.deepcopy(made[pattern])

    automaton.regex_to_dfa = regex_to_dfa
    try:
        yield
    finally:
        automaton.regex_to_dfa = real
