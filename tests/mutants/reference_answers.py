"""The reference's own answers that several of ``tests/mutants``' files compare mutants with, each
computed once per process (once per xdist worker) at its first use, whichever file asks first.

The reference (``oracles.automaton``) is never mutated in these tests, so its answers cannot change
within a run: ``test_mutants_evidence``, ``test_mutants_evidence_pick``, ``test_mutants_generated`` and
``test_mutants_infection`` each computed the same ones on their own before (2026-12-07: the sampling
domain's record twice, the corpus fingerprint twice). What each test proves about them is unchanged:
``test_mutants_evidence.test_the_reference_agrees_with_itself_on_every_item`` still computes every
domain afresh and compares it with ``record`` item by item. The values are shared: read them, never
change them (``record`` is a tuple; ``fingerprint`` a dict every reader only reads)."""

from __future__ import annotations

import functools
from typing import Any

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

