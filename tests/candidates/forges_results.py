"""Hostile: implements nothing; at import it looks for the grader's result file (on any
command line it can see under /proc, and any ``results*.jsonl`` in the temp folders)
and appends a ``passed`` record for every catalogue test, then a ``finish`` record.
Expected: every test fails (``regex_to_dfa`` raises), exit 1; no forged record counts
(the grader's files are out of its reach, and the verdicts come from the grader)."""

import glob
import json
import os

NAMES = ["test_hand_example", "test_hand_example_masks", "test_matches_python_re", "test_every_state_is_live",
         "test_canonical_form", "test_unsupported_syntax_raises", "test_masks_match_brute_force",
         "test_masks_match_the_golden_file", "test_reachable_states_never_have_an_empty_mask",
         "test_constraint_lifecycle", "test_apply_mask", "test_greedy_takes_the_best_allowed_token",
         "test_constrained_generation_parses", "test_json_schema_documents",
         "test_json_schema_rejects_keywords_outside_the_subset", "test_vocab_bytes"]


def _targets():
    found = set()
    for cmdline in glob.glob("/proc/*/cmdline"):
        try:
            args = open(cmdline, "rb").read().split(b"\0")
        except OSError:
            continue
        for i, arg in enumerate(args[:-1]):
            if arg == b"--results-file":
                found.add(args[i + 1].decode(errors="replace"))
    for folder in ("/tmp", os.environ.get("TMPDIR", "/tmp"), "/var/tmp"):
        found.update(glob.glob(os.path.join(folder, "**", "results*.jsonl"), recursive=True))
    return found


for _path in _targets():
    try:
        with open(_path, "a") as _f:
            for _name in NAMES:
                _f.write(json.dumps({"event": "result", "test": _name, "outcome": "passed", "reason": "",
                                     "details": "", "duration": 0.0}) + "\n")
            _f.write(json.dumps({"event": "finish", "exitstatus": 0}) + "\n")
    except OSError:
        pass

DEAD = -1


def _nothing(*args, **kwargs):
    raise NotImplementedError("this candidate implements nothing")


regex_to_dfa = json_schema_to_regex = apply_mask = vocab_bytes = constrained_sample = sample = _nothing
bytes_to_unicode = unicode_to_bytes = _nothing


class DFA:
    step = matches = _nothing


class TokenIndex:
    __init__ = mask = next_state = _nothing


class Constraint:
    __init__ = mask = advance = is_complete = _nothing


class SamplingParams:
    __init__ = _nothing
