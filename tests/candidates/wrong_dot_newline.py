"""Wrong (spec pitfall 1, mutant s01): ``.`` matches every byte, ``\\n`` included.
Must fail: test_matches_python_re."""

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def _dot_any(pattern):
    out, i, in_class = [], 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        out.append("[\\x00-\\xff]" if ch == "." and not in_class else ch)
        i += 1
    return "".join(out)


def regex_to_dfa(pattern):
    return _reference_regex_to_dfa(_dot_any(pattern))
