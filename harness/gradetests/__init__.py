"""Grade a student's own tests with wheats and chaffs (``constrain-harness grade-tests``).

A student's suite (``python/tests/l8-7-constrain/``) is untrusted code that imports
``tinyllm.infer.constrain``. It is run under pytest once per implementation: twice on
each wheat (a correct implementation: validity and flakiness), once on each chaff (a
catalogue mutant: thoroughness). A test failing on a wheat is invalid and excluded; a
chaff is caught when a valid test fails on it; the score is caught/total, 0 without a
valid test.

How one run is wired (the crux: the suite may call the implementation but must not learn
which one it is except by its behaviour)::

    student's process (confined)         grader                 implementation (confined)
    pytest + the suite                    relay.Gate             harness.sandbox.server
    shim: tinyllm.infer.constrain  <-frames->  refuse/clean  <-frames->  the wheat or chaff
          (proxies, data only)                                    (its objects stay there)

- two confined processes, each in its own PID and mount namespaces; only the grader holds
  both channels (``suite_run``), so neither process can reach the other;
- the student's filesystem has no implementation file in it (``suite_run.secret_roots``:
  the checkout and every wheat's folder are empty tmpfs, chaffs live under the grader's
  hidden ``/tmp``), its environment is the wall's allowlist, and each run is a fresh
  process with a fresh private ``/tmp`` (no state passes from one implementation's run to
  the next);
- the gate serves only the contract's names, never ``_`` names, ``repr``, modules or
  handles it did not hand out, and scrubs the implementation's name, folder and line
  numbers from error messages (``relay``);
- results come from the suite's own process (a pytest plugin reporting on the channel):
  a suite can lie about them, but only as a function of what it observed, the behaviour;
  lying can only lower its own score (a suite passing everything catches nothing).

Modules: ``shim`` (the student's side: served module, proxies, pytest reporter),
``relay`` (``Gate``, ``ServedImplementation``), ``suite_run`` (one run, its bounds and
verdicts), ``implementations`` (wheats, chaffs, the hook for generated mutants),
``scoring`` (validity, flakiness, matrix, score), ``hints`` (none / pitfall / full),
``grade`` (the whole grading within a budget), ``reports`` (terminal, JSON, Gradescope,
Stryker, HTML).

Example::

    >>> from harness.gradetests.grade import GradeOptions, grade
    >>> g = grade(GradeOptions(suite=Path("tests/student_suites/weak"), chaffs=("s10", "s05"))).grade
    >>> sorted(g.caught), g.total
    (['s10'], 2)

Known limits: timing is observable (a suite could time calls; no chaff here differs
mainly in speed); without bubblewrap (the fallback mode) none of the isolation holds and
every report says so.
"""
