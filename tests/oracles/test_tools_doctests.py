"""The examples in oracles.tools' docstrings (and the parse tree's, ``oracles.automaton.ast``) run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["oracles.tools", "oracles.tools.wire", "oracles.tools.request", "oracles.tools.grammar",
           "oracles.tools.render", "oracles.tools.parser",
           "oracles.automaton.ast"]   # its reprs: ByteSet(mask=97) is not the literal a


@pytest.mark.unit
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
