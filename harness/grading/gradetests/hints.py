"""What a student is told about a chaff their suite did not catch, at three levels.

- ``none``: only that the chaff survived (its id);
- ``pitfall``: the spec's pitfall row for it (``000_...`` section 5: pitfall and symptom,
  with examples checked against the mutant: ``harness.suite.pitfalls``),
  or, for the five catalogue mutants the table leaves unnamed (s07, s19, s20, s21, s22),
  the row of section 4 ("What the tests check") of the test that kills it;
- ``full``: the mutant's own description (``harness.mutants.catalogue``: stage, the
  pitfall with an example input).

``GROUPS`` also names the chaff groups of the Gradescope report (one entry per group).

Example::

    >>> hint("s10", "pitfall")
    "pitfall 6: repetition built wrong: one optional copy too few, + as * (symptom: {2,3} accepts only 2 copies, ..."
"""

from __future__ import annotations

from harness.mutants.catalogue import BY_ID
from harness.suite.pitfalls import PITFALLS

LEVELS = ("none", "pitfall", "full")

# (group, text, mutant ids): spec 000 section 5 (harness.suite.pitfalls: every example in a
# text is checked against its mutant), then section 4 rows for the unnamed ones.
GROUPS: list[tuple[str, str, tuple[str, ...]]] = [
    *((f"pitfall {p.number}", f"{p.title} (symptom: {p.symptom_text})", p.mutants) for p in PITFALLS),
    ("constraint lifecycle", "what test_constraint_lifecycle checks: advancing, refusing a disallowed token, EOS "
     "only when complete, nothing after EOS", ("s07",)),
    ("apply_mask", "what test_apply_mask checks: a float64 copy with -inf; an all-false mask and a wrong shape are "
     "errors", ("s19",)),
    ("greedy sampling", "what test_greedy_takes_the_best_allowed_token checks: the largest allowed logit wins (ties "
     "lowest); the logprob is renormalized", ("s20",)),
    ("matches Python's re", "what test_matches_python_re checks: random strings from your DFA, their prefixes and "
     "one-byte edits get the same answer from Python's re (repetitions included)", ("s21",)),
    ("schema documents", "what test_json_schema_documents checks: valid documents match; missing keys, wrong types, "
     "order, extra keys, trailing commas, spaces, bounds, raw control bytes do not (enum and const values "
     "included)", ("s22",)),
]
GROUP_OF = {mutant: name for name, _text, ids in GROUPS for mutant in ids}


def group(chaff_id: str) -> str:
    """The chaff's group name (``other`` for chaffs outside the catalogue)."""
    return GROUP_OF.get(chaff_id, "other")


def hint(chaff_id: str, level: str) -> str:
    """The hint for a surviving chaff at ``level`` (``LEVELS``)."""
    if level not in LEVELS:
        raise ValueError(f"--hints must be one of {', '.join(LEVELS)}, not {level!r}")
    if level == "none":
        return ""
    if level == "pitfall":
        for name, text, ids in GROUPS:
            if chaff_id in ids:
                return f"{name}: {text}"
        return "no pitfall text for this chaff"
    mutant = BY_ID.get(chaff_id)
    return f"{mutant.stage}: {mutant.pitfall}" if mutant else "no description for this chaff"
