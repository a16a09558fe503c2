"""pytest plugin of a coverage recording run (``harness.mutants.coverage``), loaded after
``harness.suite.plugin``: when the session ends, before the candidate process closes, ask
the recording copy of the reference for the lines it executed and write them, as JSON, to
``$CONSTRAIN_HARNESS_COVERAGE_OUT``. Used only with the reference's own recording copy.
"""

from __future__ import annotations

import json
import os

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    from harness.mutants.coverage import FUNCTION_NAME
    from harness.suite import plugin

    out = os.environ.get("CONSTRAIN_HARNESS_COVERAGE_OUT")
    candidate = plugin.live_candidate(session.config)
    if not out or candidate is None or not candidate.alive:
        return
    lines = getattr(candidate.module, FUNCTION_NAME)()
    found = {str(f): [int(n) for n in numbers] for f, numbers in dict(lines).items()}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(found, f)
