"""M05.2's GPT-2 byte map, as the student's repository holds it (here the reference's, re-exported)."""

from oracles.automaton import bytes_to_unicode, unicode_to_bytes  # noqa: F401
