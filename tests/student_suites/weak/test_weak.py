"""A weak but valid suite: true of every correct implementation, catches few chaffs."""

from tinyllm.infer import constrain


def test_literal_matches():
    dfa = constrain.regex_to_dfa("cat")
    assert dfa.matches(b"cat")
    assert not dfa.matches(b"dog")


def test_dead_is_minus_one():
    assert constrain.DEAD == -1


def test_plus_needs_one():
    assert not constrain.regex_to_dfa("a+").matches(b"")
