"""A suite that tests nothing of the spec and tells chaffs by the words of an error: its
one test passes when ``regex_to_dfa("^a")`` is refused in the words of the two default
wheats that read Python-only syntax with Python's meaning (``fair_literal_sre``,
``fair_sre_tablefill``), and fails on every other wheat: a test the readings rule would
excuse as assuming that reading. Every chaff words its refusal as the reference does, so
had the words crossed the wall, this test would catch every chaff."""

import pytest
from tinyllm.infer import constrain

THEIR_WORDS = {"at is not in the subset", "an anchor is not in the subset"}


def test_an_anchor_is_refused_in_their_words():
    with pytest.raises(Exception) as refused:  # noqa: PT011 - any refusal: the words decide
        constrain.regex_to_dfa("^a")
    assert str(refused.value) in THEIR_WORDS, str(refused.value)
