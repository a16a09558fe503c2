"""Plain words for students: the harness's own jargon out of every student-facing text.

The harness names its parts for the people who build and run it: the *candidate* (the
code under test), the *wall* (the sandbox) and its *wall-clock backstop*, the *tier*
(default or strict grading), grade-tests' *wheats* and *chaffs* (correct and buggy
implementations), the *twin* (a second run). A student reads none of these: ``plain(text)``
rewrites them, and the per-student feedback files (``harness.grading.batch.feedback``) and
the Gradescope results' student-visible outputs (``harness.grading.autograder.gradescope``)
pass through it. The TA's reports keep the precise words.

``JARGON`` is the list a test sweeps the student-facing texts for (``tests/grading/test_rough_edges.py``).
A word inside quotes or backticks, or part of an identifier (``candidate_id``,
``self.candidate``), is the student's own and is left alone.

Example::

    >>> plain("not run: importing the candidate failed (wall-clock backstop 600 s)")
    'not run: importing your code failed (elapsed-time limit 600 s)'
"""

from __future__ import annotations

import re

__all__ = ["plain", "JARGON"]

JARGON = ("candidate", "candidates", "wheat", "wheats", "chaff", "chaffs", "twin", "twins", "wall", "tier", "tiers",
          "backstop", "backstops")

_EDGE_BEFORE = r"(?<![\w'\"`.])"
_EDGE_AFTER = r"(?![\w'\"`(=])"
_RULES = [(re.compile(_EDGE_BEFORE + pattern + _EDGE_AFTER, re.IGNORECASE), words) for pattern, words in (
    (r"the candidate process", "your code's process"),
    (r"the candidate's", "your code's"),
    (r"the candidate", "your code"),
    (r"candidate's", "your code's"),
    (r"candidates", "implementations"),
    (r"candidate", "your code"),
    (r"wall[- ]clock backstops?", "elapsed-time limit"),
    (r"wall backstops?", "elapsed-time limit"),
    (r"backstops?", "limit"),
    (r"wall[- ]clock", "elapsed-time"),
    (r"wall time", "elapsed time"),
    (r"the wall", "the sandbox"),
    (r"wall", "sandbox"),
    (r"(default|strict) tier", r"\1 grading"),
    (r"tier (default|strict)", r"\1 grading"),
    (r"tiers?", "grading level"),
    (r"wheats", "correct implementations"),
    (r"wheat", "correct implementation"),
    (r"chaffs", "buggy implementations"),
    (r"chaff", "buggy implementation"),
    (r"twins?", "second run"),
)]


def plain(text: str) -> str:
    """``text`` with the harness's jargon in plain words (module docstring)."""
    for pattern, words in _RULES:
        text = pattern.sub(lambda m, w=words: _same_case(m.group(), m.expand(w)), text)
    return text


def _same_case(found: str, words: str) -> str:
    """``words`` capitalized when ``found`` was (a sentence's first word)."""
    return words[:1].upper() + words[1:] if found[:1].isupper() else words
