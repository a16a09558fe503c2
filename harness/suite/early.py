"""The grader child's first act: its candidate process begins before pytest is imported.

``python -m harness.suite.early PYTEST-ARGS...`` (what ``harness.grading.check`` starts,
through ``harness.run.launch``) reads the run (``harness.run.CatalogueRun``: the
plugin's ``--run`` document, or a hand run's separate options, as the plugin reads them), whose
implementation, policy, selection and marker say which candidate process the plugin will start,
begins that process and its import (``Candidate.begin``), then runs pytest with
PYTEST-ARGS here, handing it the process begun as a plugin object of the session
(``EarlyCandidate``, given to ``pytest.main``: passed explicitly, never kept in a module
global). The plugin's configure takes the process from its session (``take``) where it is
the one it would have begun itself (``limits``, the same spec, marker and load budget),
else closes it and begins its own. Why: the candidate's start-up (bubblewrap, an interpreter,
the server, numpy and the candidate's import: some 0.3 s of wall on a quiet machine)
otherwise began only once pytest was imported and configured, and collection was done
before it was: the grader waited for it. Now it overlaps pytest's own start-up.

Nothing begins early with ``--deep`` (its properties are counted at collection), for a
spec that names nothing loadable (its record is the plugin's), or ``--unconfined``: there
the golden file must be read before any candidate runs (an unconfined candidate could
write it; a confined one cannot, the checkout is bound read-only, and the harness's files
are verified after every run). Anything unexpected here only means no early start.

Example::

    python -m harness.suite.early harness/suite -p harness.suite.plugin --run '{"impl": "/x/constrain.py"}'
"""

from __future__ import annotations

import argparse
import os
import sys

from harness.policy import POLICY

__all__ = ["EarlyCandidate", "candidate_limits", "take"]


class EarlyCandidate:
    """The candidate process begun before pytest was imported, with the settings it was begun
    for; registered with the session's plugin manager (``pytest.main(plugins=[...])``), where the
    plugin finds it (``take``). It has no hooks: it only carries the process, handed out once."""

    def __init__(self, settings: tuple, candidate) -> None:
        self.settings = settings  # (spec, ref_deps, limits, marker, load_cpu_seconds)
        self.candidate = candidate

    def take(self, spec, ref_deps: bool, limits, marker, load_cpu_seconds: float):
        """The process, if it is the one these settings ask for (else it is closed), or None; once."""
        candidate, self.candidate = self.candidate, None
        if candidate is None:
            return None
        if self.settings != (spec, ref_deps, limits, marker, load_cpu_seconds):
            candidate.kill()  # now: a server still importing would answer its closed channel only after
            candidate.close()
            return None
        return candidate


def candidate_limits(load_cpu_seconds: float, test_cpu_seconds: float, memory_mb: int, tests: int):
    """A candidate process's limits for a run of ``tests`` tests (``harness.run.CatalogueRun.limits``)."""
    from harness.run.value import candidate_limits as limits

    return limits(load_cpu_seconds, test_cpu_seconds, memory_mb, tests)


def take(config, spec, ref_deps: bool, limits, marker, load_cpu_seconds: float):
    """The candidate process begun early for ``config``'s session (its ``EarlyCandidate``), if it
    is the one these settings ask for (else it is closed), or None; it is handed out once."""
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, EarlyCandidate):
            return plugin.take(spec, ref_deps, limits, marker, load_cpu_seconds)
    return None


def _begin(argv: list[str]) -> EarlyCandidate | None:
    """The candidate process the run of ``argv`` will ask for, begun; None where none begins early."""
    from harness.sandbox import confine

    run = _run_value(argv)
    if run is None or run.deep or confine.unconfined():
        return None
    from harness.sandbox.candidate import spec_problem
    from harness.suite.catalogue import NAMES

    if spec_problem(run.impl):
        return None
    limits = run.limits(len([n for n in NAMES if run.selects(n)]))
    from harness.policy import use_wall_calibration

    use_wall_calibration(run.wall_calibration)  # before the import's wall limit is set
    from harness.sandbox import Candidate

    settings = (run.impl, run.policy.ref_deps, limits, run.marker, run.load_cpu_seconds)
    candidate = Candidate(run.impl, ref_deps=run.policy.ref_deps, limits=limits, marker=run.marker,
                          load_cpu_seconds=run.load_cpu_seconds)
    try:
        candidate.begin()
    except Exception:  # noqa: BLE001 - e.g. no confinement here: the plugin's own start says so
        candidate.close()
        return None
    return EarlyCandidate(settings, candidate)


def _run_value(argv: list[str]):
    """The run the plugin will read from the same arguments (``harness.suite.plugin.run_of``):
    ``--run JSON``, else the plugin's separate options that choose the candidate process (their
    names and defaults); None when they do not parse."""
    from harness.run import CatalogueRun
    from harness.run.value import run_from_options

    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--run", default=None)
    parser.add_argument("--impl", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ref-deps", action="store_true", default=False)
    parser.add_argument("--deep", action="store_true", default=False)
    parser.add_argument("--timeout", type=float, default=POLICY.test_cpu_seconds)
    parser.add_argument("--load-seconds", type=float, default=POLICY.load_cpu_seconds)
    parser.add_argument("--memory", type=int, default=POLICY.memory_mb)
    parser.add_argument("--only", default="")
    parser.add_argument("--skip", default="")
    parser.add_argument("--wall-reference", default=None)
    try:
        options, _ = parser.parse_known_args(argv)
        if options.run is not None:
            return CatalogueRun.from_json(options.run)
        return run_from_options(lambda name: getattr(options, name.lstrip("-").replace("-", "_"), None),
                                os.environ.get("CONSTRAIN_HARNESS_MARKER"))
    except (SystemExit, TypeError, ValueError):
        return None


def main() -> None:
    """Begin the candidate, then pytest with the same arguments, as ``python -m pytest`` would
    (its exit status; stdout flushed), the process begun handed to the session as a plugin
    object. (Run as ``__main__``, this module is not the ``harness.suite.early`` the plugin
    imports: the ``EarlyCandidate`` class is that one's, so the plugin's ``take`` knows it.)"""
    import gc
    import importlib

    gc.disable()  # until the catalogue is collected: the plugin's _collect_less freezes what was imported, then enables
    module = importlib.import_module("harness.suite.early")
    try:
        begun = module._begin(sys.argv[1:])
    except Exception:  # noqa: BLE001 - no early start; the plugin begins its candidate as before
        begun = None
    import pytest

    code = pytest.main(sys.argv[1:], plugins=[begun] if begun is not None else [])
    _exit(int(code))


def _exit(status) -> None:
    """End as ``SystemExit(status)`` would, without the interpreter's teardown where nothing
    needs it: freeing every object of pytest, numpy, Hypothesis and the catalogue took ~0.1 CPU s
    after the run's last record, and ``check`` waits for the main grader child to end before it
    verifies the files. The records are line-buffered files (written whole at each line), the
    exit handlers (``atexit``) run here and both streams are flushed. With another thread still
    running, the normal exit (which joins it)."""
    from harness.exitcodes import exit_without_teardown

    if status is None or isinstance(status, int):
        code = int(status or 0)
    else:  # SystemExit("message"): printed, status 1
        print(status, file=sys.stderr)
        code = 1
    exit_without_teardown(code)   # returns only where another thread still runs
    sys.exit(code)


if __name__ == "__main__":
    main()
