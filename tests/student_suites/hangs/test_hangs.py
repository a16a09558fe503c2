"""A suite whose second test never returns (a busy loop that ignores signals it can catch)."""

from tinyllm.infer import constrain


def test_fine():
    assert constrain.regex_to_dfa("a").matches(b"a")


def test_hangs_forever():
    while True:
        pass
