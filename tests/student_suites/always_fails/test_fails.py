"""Every test fails, on every implementation: a suite that catches 'everything' by failing."""

from tinyllm.infer import constrain


def test_always_fails():
    assert False, "this suite fails everything"


def test_fails_after_a_call():
    assert constrain.regex_to_dfa("a").matches(b"b"), "a never matches b"
