"""The student's own tests (rung R5; named so the project's pytest never collects them): never the graded module."""

from tinyllm.infer import constrain


def test_hand_example():
    assert constrain.regex_to_dfa("ab").n_states == 3
