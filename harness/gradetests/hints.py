"""What a student is told about a chaff their suite did not catch, at three levels.

- ``none``: only that the chaff survived (its id);
- ``pitfall``: the seed's pitfall row for it (``000_...`` section 5: pitfall and symptom),
  or, for the five catalogue mutants the table leaves unnamed (s07, s19, s20, s21, s22),
  the row of section 4 ("What the tests check") of the test that kills it;
- ``full``: the mutant's own description (``harness.mutants.catalogue``: stage, the
  pitfall with an example input).

``GROUPS`` also names the chaff groups of the Gradescope report (one entry per group).

Example::

    >>> hint("s10", "pitfall")
    'pitfall 6: repetition built wrong: one optional copy too few, + as * '
    '(symptom: {2,3} accepts only 2; x+ accepts "")'
"""

from __future__ import annotations

from harness.mutants.catalogue import BY_ID

LEVELS = ("none", "pitfall", "full")

# (group, text, mutant ids): seed 000 section 5, then section 4 rows for the unnamed ones.
GROUPS: list[tuple[str, str, tuple[str, ...]]] = [
    ("pitfall 1", "classes that differ from Python's: . matching \\n, [^...] complemented over ASCII only, "
     "\\w without _, ranges missing their upper end (symptom: strings re accepts are refused, or the reverse)",
     ("s01", "s02", "s08", "s11")),
    ("pitfall 2", "no minimization (symptom: equivalent patterns give different tables; the hand example has "
     "more than 7 states)", ("s03",)),
    ("pitfall 3", "numbering in another order (symptom: tables that do not match the Rust port's)", ("s04",)),
    ("pitfall 4", "EOS allowed everywhere, or a dead sink kept as a state (symptom: outputs stop mid-word; "
     "masks lead into a state with no way out)", ("s05", "s12")),
    ("pitfall 5", "the trie walk stopping at the first dead byte, or recording the wrong next state (symptom: "
     "allowed tokens missing; the constraint drifts from the text)", ("s06", "s14")),
    ("pitfall 6", 'repetition built wrong: one optional copy too few, + as * (symptom: {2,3} accepts only 2; '
     'x+ accepts "")', ("s09", "s10")),
    ("pitfall 7", "anchors read as literal characters (symptom: a pattern means something else than in Python)",
     ("s13",)),
    ("pitfall 8", "JSON strings allowing raw control bytes or any high byte; integers with leading zeros; an "
     "exponent without digits (symptom: output that json.loads rejects)", ("s15", "s16", "s23", "s24")),
    ("pitfall 9", "optional properties made required after the first member (symptom: valid tool calls without "
     "optional arguments refused)", ("s17",)),
    ("pitfall 10", "maxItems off by one (symptom: one item too many accepted)", ("s18",)),
    ("pitfall 11", "unknown schema keywords ignored (symptom: output violates the schema silently)", ("s25",)),
    ("pitfall 12", "token strings encoded as UTF-8 without undoing the byte map; specials given bytes (symptom: "
     "masks over the wrong bytes: Ġ is two bytes, not a space)", ("s26", "s27")),
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
