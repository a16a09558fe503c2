"""An attack on the hello: tests that fail when the grader selected tests, or when the
shim's plugin holds a selection. They test nothing of the implementation; on a grader
that tells chaffs by a selection, they "catch" every chaff. Expected: valid, 0 caught."""

import conftest
from tinyllm.infer import constrain


def test_nothing_was_deselected():
    assert conftest.DESELECTED == [], conftest.DESELECTED


def test_no_plugin_holds_a_selection(request):
    for plugin in request.config.pluginmanager.get_plugins():
        for name in ("only", "selection", "select"):
            value = getattr(plugin, name, None)
            assert value in (None, (), [], frozenset(), set()), (type(plugin).__name__, name, value)


def test_a_literal_matches():
    assert constrain.regex_to_dfa("a").matches(b"a")
