"""The conformance catalogue: the spec's 16 tests, run against any implementation of the
contract (``harness/contract/constrain.pyi``).

The tests run in the grader's process; the candidate runs behind the wall
(``harness.sandbox``), reached through a proxy of its module. Run it through
``constrain-harness check`` (reports, deadlines, file verification), or directly::

    python3 -m pytest harness/suite -p harness.suite.plugin --impl path/to/constrain.py

``catalogue`` holds the spec's table; ``plugin`` the pytest options, the candidate
process and its fixture, and the crash-proof result file; ``tiers`` the default and
``--strict`` tiers; ``explain`` the counterexample rendering; ``inputs`` the seeded
inputs shared by the tests; ``twin`` the second half of the catalogue run beside the
first by a twin grader child, its reports replayed in the main one. The objects handed
to the candidate as descriptions are ``harness.sandbox.shapes`` (the sandbox's: they
cross the wall).
"""
