"""Project test configuration: Hypothesis profiles.

Profiles, chosen by the environment variable ``CONSTRAIN_HARNESS_PROFILE``
(default ``dev``, or ``ci`` when the variable ``CI`` is set, as CI sets it):

- ``dev``: 50 examples, the local example database;
- ``ci``: derandomized (the same examples every run), no database writes, 50 examples;
- ``thorough``: 1000 examples, derandomized, for slow exhaustive runs.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", max_examples=50, **_COMMON)
settings.register_profile("ci", max_examples=50, derandomize=True, database=None, print_blob=True, **_COMMON)
settings.register_profile("thorough", max_examples=1000, derandomize=True, database=None, **_COMMON)
settings.load_profile(os.environ.get("CONSTRAIN_HARNESS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))
