"""The examples in the sandbox's docstrings run as written: a candidate's ``RLIMIT_CPU`` pair
(``cpulimit.pair``) and which of its own limits dealt a SIGKILL (``client.own_limit_kill``)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["harness.sandbox.cpulimit", "harness.sandbox.client"]


@pytest.mark.unit
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
