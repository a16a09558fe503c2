"""The mutant catalogue: the mistakes the specs name, applied to copies of the reference.

A mutant is a small patch to a *copy* of ``oracles/automaton`` (never the reference
in place), written as edits anchored on syntax (``anchors``: a function and the node
in it, so reformatting the reference never makes it stale), imported under its own
package name (``mutant_s05``). Each one
describes itself (``catalogue.Mutant``): its id, the stage it breaks, the pitfall in
one line, an example whose answer it changes, and the tests expected to kill it.

- ``s01``-``s27``: the Python module's pitfalls (spec ``000_...`` section 5, plus the
  five it leaves unnamed, one per catalogue test no named mutant aims at), killed by
  the conformance catalogue (``harness/suite``);
- ``l10_9:s01``-``l10_9:s11``: the Rust port's mutants under the ids of its pitfall
  table (spec ``002_...`` section 5; formerly ``p01``-``p11``, still accepted by
  ``--only``), simulated on the Python reference, each killed by the check of
  ``golden replay`` of ``constrain_golden.json`` the spec names: proof that the golden
  file is strong enough for the port.

- ``l10_9:s12``-``l10_9:s16``: the port's tool-surface mutants, applied to a copy of
  ``oracles/tools`` (``tools_mutants``), killed by ``golden replay --file tools``.
- ``l10_9:s17``: specials given bytes, for the spec's 20th test ``vocab_bytes_marks_specials``
  (its pitfall table has no row for it), killed by constrain_golden.json's ``vocab_bytes``.

``runner.run_catalogue`` first checks itself (the clean copy survives every test, a
forced failure is killed), then runs each mutant in its own process with a timeout,
expected killers first. Outcomes: ``Outcome`` (killed, survived, timeout, error,
patch no longer applies). Reports: ``report`` (terminal, JSON, Stryker, HTML).
"""

from harness.mutants import catalogue  # noqa: E402,F401 - before tools_mutants, which imports from it
