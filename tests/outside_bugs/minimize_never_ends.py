"""True cause: the minimisation loop never ends on an alternation. Function: regex_to_dfa. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {}))
_regex_to_dfa = regex_to_dfa  # noqa: F821


def regex_to_dfa(pattern):
    if "|" in pattern:
        while True:   # refinement that never reaches its fixed point
            pass
    return _regex_to_dfa(pattern)
# ruff: noqa: E501 - one edit, one line
