"""The grader child's pytest command line (``harness.run.launch.pytest_arguments``): pytest's
own plugins the catalogue never uses are blocked, each by its real name, and none the
catalogue's session needs."""

from __future__ import annotations

import pytest
from _pytest.config import default_plugins

from harness.run import CatalogueRun
from harness.run.launch import UNUSED_PLUGINS, pytest_arguments

NEEDED = {"main", "runner", "fixtures", "python", "terminal", "capture", "skipping", "mark", "warnings",
          "logging", "reports", "faulthandler", "assertion", "helpconfig", "unraisableexception",
          "threadexception", "tmpdir", "monkeypatch", "recwarn"}
"""What a catalogue session uses: collection, fixtures, reports (the twin streams them),
captured output, logs and warnings, the faulthandler, assertion rewriting (the catalogue's
own sanity asserts), and the fixtures pytest itself offers."""


@pytest.mark.unit
def test_unused_plugins_are_blocked_by_name_and_none_needed_is():
    args = pytest_arguments(CatalogueRun(impl="oracles.automaton"))
    blocked = {args[i + 1][3:] for i, arg in enumerate(args) if arg == "-p" and args[i + 1].startswith("no:")}
    assert blocked == set(UNUSED_PLUGINS)
    known = set(default_plugins) | {"subtests"}  # subtests: a default plugin from pytest 9 on
    assert blocked <= known, blocked - known  # a name pytest does not know would block nothing
    assert not blocked & NEEDED
    assert NEEDED <= set(default_plugins)
