"""One wrong test (the hand example has 7 states, not 8) beside two right ones."""

from tinyllm.infer import constrain


def test_hand_example_has_eight_states():  # wrong: section 3 of the spec says 7
    dfa = constrain.regex_to_dfa("(cat|car|dog)s?")
    assert dfa.n_states == 8, "the hand example should have 8 states"


def test_plus_needs_one():
    assert not constrain.regex_to_dfa("a+").matches(b"")


def test_anchors_are_refused():
    try:
        constrain.regex_to_dfa("^a")
    except ValueError:
        return
    raise AssertionError("'^a' was accepted")
