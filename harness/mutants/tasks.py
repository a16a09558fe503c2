"""Mutant runs as executor tasks (``harness.fanout.executor``): the mutant as data in, its result as data out.

A catalogue mutant crosses as its id (every worker has the catalogue) and its edited files
(applied by the caller, ``apply.prepared``: a worker parses no Python); a generated mutant
as its **edit**: the site (file, operator, occurrence, span), the whole mutated file's
text and its one-line description, so a worker rebuilds the same ``GeneratedMutant``
without cosmic-ray and without any pickled object. Options cross as numbers and flags.
The worker materializes the mutant into a private folder of its own (removed after the
task), runs it behind the same wall as a local run (``runner.run_mutant`` /
``runner.run_generated``) and returns ``result_to_json``; the caller rebuilds the
``MutantResult`` (``result_from_json``), so the same mutant gives the same record here or
there (``seconds`` aside).

Example::

    >>> from harness.mutants.catalogue import BY_ID
    >>> task = mutant_task(BY_ID["s05"], timeout=120.0)
    >>> sorted(task.payload)
    ['edited', 'id', 'kind', 'timeout']
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from harness.mutants import runner
from harness.mutants.runner import FUNCTION, mutant_task, result_from_json, result_to_json

__all__ = ["FUNCTION", "mutant_task", "rebuild", "result_from_json", "result_to_json", "run_task"]


def rebuild(payload: dict):
    """The mutant a payload describes (a catalogue ``Mutant`` or a ``GeneratedMutant``)."""
    if payload["kind"] == "catalogue":
        from harness.mutants.apply import remember
        from harness.mutants.catalogue import BY_ID

        mutant = BY_ID[payload["id"]]
        if "edited" in payload:   # the edits, applied by the caller: nothing is parsed here
            remember(mutant, payload["edited"])
        return mutant
    from harness.mutants.generation import GeneratedMutant, Site

    site = payload["site"]
    return GeneratedMutant(Site(site["file"], site["operator"], int(site["occurrence"]), tuple(site["start"]),
                                tuple(site["end"])), payload["source"], payload["before"], payload["after"])


def run_task(payload: dict) -> dict:
    """Run one mutant (here or on a worker) in a private folder; its result as JSON data."""
    from harness.mutants import evidence

    mutant = rebuild(payload)
    root = Path(tempfile.mkdtemp(prefix="constrain-mutant-"))
    runner.task_cpu(reset=True)
    try:
        if payload["kind"] == "catalogue":
            result = runner.run_mutant(mutant, root, payload["timeout"], first_kill=payload.get("first_kill", False))
        else:
            result = runner.run_generated(mutant, root, payload["timeout"], deep=payload["deep"],
                                          tests=_tupled(payload.get("tests")),
                                          deep_tests=_tupled(payload.get("deep_tests")),
                                          first_kill=payload.get("first_kill", False),
                                          fingerprint=payload.get("fingerprint"),
                                          evidence=evidence.Pick.from_json(payload.get("evidence")),
                                          infection=payload.get("infection"), bound=payload.get("bound"),
                                          reuse=payload.get("reuse"), budgets=payload.get("budgets"),
                                          replay=payload.get("replay"))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return result_to_json(result, cpu=runner.task_cpu())


def _tupled(tests):
    return None if tests is None else tuple(tests)
