"""pytest plugin of an infection recording run (``harness.mutants.infection``), loaded after
``harness.suite.plugin``: when the session ends, before the candidate process closes, ask the
instrumented copy of the reference for the mutants it recorded as infecting (and the sites it
reached) and write them, as JSON, to ``$CONSTRAIN_HARNESS_INFECTION_OUT``. A session whose
candidate was restarted (a crash) lost the first process's record: nothing is written, and the
recording fails rather than keep a partial answer. The grader checks what comes back
(``infection._checked``)."""

from __future__ import annotations

import json
import os

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    from harness.mutants.infection import REPORT_FUNCTION
    from harness.suite import plugin

    out = os.environ.get("CONSTRAIN_HARNESS_INFECTION_OUT")
    run = plugin.run_of_session(session.config)
    candidate = plugin.live_candidate(session.config)
    if not out or candidate is None or not candidate.alive or run is None or run.restarts:
        return
    found = dict(getattr(candidate.module, REPORT_FUNCTION)())
    answer = {str(k): [str(i) for i in v] for k, v in found.items()}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(answer, f)
