"""The conformance catalogue: the seed's 16 tests, run against any implementation of the
contract (``harness/contract/constrain.pyi``).

Run it through ``constrain-harness check`` (a sandboxed child process with limits and
reports), or directly::

    python3 -m pytest harness/suite -p harness.suite.plugin --impl path/to/constrain.py

``catalogue`` holds the seed's table; ``plugin`` the pytest options, the candidate
fixture and the crash-proof result file; ``guard`` the tamper detection; ``explain`` the
counterexample rendering; ``inputs`` the seeded inputs shared by the tests.
"""
