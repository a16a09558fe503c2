"""Project test configuration: Hypothesis profiles, and ``copies_elsewhere`` (the wall's
tests plant copies of the harness outside the checkout and look for them from inside).

Profiles, chosen by the environment variable ``CONSTRAIN_HARNESS_PROFILE``
(default ``dev``, or ``ci`` when the variable ``CI`` is set, as CI sets it):

- ``dev``: 50 examples, the local example database;
- ``ci``: derandomized (the same examples every run), no database writes, 50 examples;
- ``thorough``: 1000 examples, derandomized, for slow exhaustive runs.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", max_examples=50, **_COMMON)
settings.register_profile("ci", max_examples=50, derandomize=True, database=None, print_blob=True, **_COMMON)
settings.register_profile("thorough", max_examples=1000, derandomize=True, database=None, **_COMMON)
settings.load_profile(os.environ.get("CONSTRAIN_HARNESS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


@pytest.fixture
def copies_elsewhere():
    """Planted copies of the harness's folders where neither the checkout, nor a home, nor
    the temp folder is: beside the checkout and in /var/tmp (a course machine's other
    checkouts, CI's worktrees)."""
    checkout = Path(__file__).resolve().parents[1]
    decoys = [folder / f".constrain-decoy-{os.getpid()}" for folder in (checkout.parent, Path("/var/tmp"))]
    for decoy in decoys:
        (decoy / "oracles").mkdir(parents=True)
        (decoy / "oracles" / "derivatives.py").write_text("SECRET = 'the grader keeps this'\n")
        decoy.chmod(0o755)
    yield decoys
    for decoy in decoys:
        shutil.rmtree(decoy)
