"""The examples in oracles.tools' docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["oracles.tools", "oracles.tools.wire", "oracles.tools.request", "oracles.tools.grammar",
           "oracles.tools.render", "oracles.tools.parser"]


@pytest.mark.unit
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
