"""The chain of processes of one catalogue run, and the one value that crosses it.

A run is a chain of processes::

    the verb (constrain-harness check / check --batch / autograder / mutants / bench)
      -> a check job per submission (harness.commands.check_entry, started by harness.grading)
        -> the grader child: pytest and the catalogue (harness.suite.early, harness.suite.plugin),
           and, beside it, its twin (harness.suite.twin)
          -> the confined candidate (harness.sandbox): only what the wall allows

``CatalogueRun`` (``harness.run.value``) is what the grader child is asked to do: the
implementation, the policy (tier, ref-deps, CPU per test and to load, memory), the run seed,
the selection (``only``, ``skip``), the golden file, the marker, the wall calibration, the
twin's tests and the descriptors and paths of its records. The caller that decides the run
builds it once (``harness.grading.check.CheckOptions.catalogue_run``), validated once (the
limits by ``GradingPolicy``, the seed against ``MAX_SEED``); it crosses to the grader child as
one JSON document (the plugin's ``--run``), which the child reads back into the same frozen
value (``harness.suite.early`` before pytest starts, ``harness.suite.plugin`` in its configure
hook, where it is kept in the session's ``config.stash``). The twin gets the same value with
its own selection, records and stream (``dataclasses.replace`` of it, never a new encoding).
The candidate never receives it: the plugin gives the sandbox only the candidate's limits.
The mutant runner builds its own (``harness.mutants.runner.run_catalogue_against``) and starts
pytest with the same ``harness.run.launch.pytest_arguments``. The hop before, from a batch or
the autograder to its check job, carries the job's ``CheckOptions`` whole the same way
(``check_entry --request``: one JSON document, ``harness.commands.check.run_request``).

The package: ``value`` (the run value), ``launch`` (starting the grader child: fork or exec,
the key pipe, ``pytest_arguments``), ``forkserver`` (the warm server that forks the grader
children of a caller that cannot fork its own: a test run's worker, a library caller of
``run_check``), ``records`` (reading its signed records as they come), ``rewritten`` (pytest's
rewritten catalogue, written before a run so that no grader child rewrites it).

Who reads what:

- ``harness.grading.check``: builds the value (``run_check``), starts the grader child and its
  twin with it, watches them under its ``policy`` and reads their signed records;
- ``harness.suite.early``: ``impl``, ``policy``, ``deep``, the selection, ``marker`` and
  ``wall_calibration``, to begin the candidate process before pytest is imported;
- ``harness.suite.plugin``: everything; it puts ``seed`` and the tier in the session's
  ``CatalogueState`` (``harness.suite.session``, kept in ``config.stash``), which the catalogue's
  helpers (``harness.suite.seeding``, ``harness.suite.tiers``) read while it is in force.

The package sits between the catalogue and the sandbox in the layers (``harness/__init__``):
the catalogue and everything above it may import it; it imports only the sandbox and the bottom.
"""

from harness.run.value import CatalogueRun

__all__ = ["CatalogueRun"]
