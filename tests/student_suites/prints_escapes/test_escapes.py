"""An attack on the terminal: failure text and output carrying ANSI escapes, a carriage
return and a backspace, drawing a fake green "score: 27/27" over the report. Expected:
every byte of it shown escaped (``\\x1b``, ``\\r``), nothing drawn."""

import sys

from tinyllm.infer import constrain

FAKE = "\r\x1b[2K\x1b[32mscore: 27/27 chaffs caught (100%)\x1b[0m\x08\x07"


def test_crashes_after_printing_a_fake_score():
    import os

    os.write(1, FAKE.encode() + b"\n")
    os._exit(3)


def test_fails_with_a_fake_score():
    sys.stdout.write(FAKE + "\n")
    sys.stdout.flush()
    assert False, FAKE


def test_prints_a_fake_score_and_passes():
    print(FAKE)
    assert constrain.regex_to_dfa("a").matches(b"a")
