"""A suite that tests one reading the spec allows and nothing else: a named group read with
Python's meaning (``python_only_syntax_refused=python_meaning``, the reading of
``fair_literal_sre`` and ``fair_sre_tablefill``). It is valid under that reading; every
chaff is the reference's code, which refuses named groups, so the test fails on every chaff
by the reading alone, whatever the chaff's mistake."""

from tinyllm.infer import constrain


def test_a_named_group_has_pythons_meaning():
    assert constrain.regex_to_dfa("(?P<n>a)").matches(b"a")
