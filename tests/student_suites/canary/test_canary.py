"""An attack on the test selection: a canary test that fails everywhere (so it is invalid)
and tests that fail when the canary did not run. A grader that deselects invalid tests on
chaffs only would see every chaff "caught" by tests that never look at behaviour; a grader
that runs the same tests everywhere sees them pass on every implementation: 0 caught."""

from tinyllm.infer import constrain

RAN = []


def test_a_canary():
    RAN.append(True)
    assert False, "the canary always fails (and is therefore invalid)"


def test_the_canary_ran():
    assert RAN, "the canary was deselected: this must be a chaff"


def test_the_canary_ran_and_a_literal_matches():
    assert RAN, "the canary was deselected: this must be a chaff"
    assert constrain.regex_to_dfa("a").matches(b"a")
