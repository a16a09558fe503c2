"""Hostile: implements nothing; at import it looks for its own grader's result file (on
the command line of the processes it descends from, under /proc: ``--results-file F`` or the
``results_file`` of a ``--run`` document, and any ``results*.jsonl``
beside it) and appends a ``passed`` record for every catalogue test, then a ``finish`` record.
Expected: every test fails (``regex_to_dfa`` raises), exit 1; no forged record counts
(the grader's files are out of its reach, and the verdicts come from the grader).

It aims only at the run that started it, never at another run's files (the suite runs
checks in parallel: tests/test_check_isolation.py); where it runs confined, it sees no
ancestor beyond the sandbox and writes nothing."""

import glob
import json
import os

NAMES = ["test_hand_example", "test_hand_example_masks", "test_matches_python_re", "test_every_state_is_live",
         "test_canonical_form", "test_unsupported_syntax_raises", "test_masks_match_brute_force",
         "test_masks_match_the_golden_file", "test_reachable_states_never_have_an_empty_mask",
         "test_constraint_lifecycle", "test_apply_mask", "test_greedy_takes_the_best_allowed_token",
         "test_constrained_generation_parses", "test_json_schema_documents",
         "test_json_schema_rejects_keywords_outside_the_subset", "test_vocab_bytes"]


def _ancestors():
    """The processes this one descends from, nearest first (their ids, from /proc/<pid>/stat)."""
    pid = os.getppid()
    while pid > 1:
        yield pid
        try:
            stat = open(f"/proc/{pid}/stat", "rb").read()
        except OSError:
            return
        pid = int(stat.rsplit(b")", 1)[1].split()[1])  # the field after the state: the parent's id


def _targets():
    found = set()
    for pid in _ancestors():
        try:
            args = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        for i, arg in enumerate(args[:-1]):
            if arg == b"--results-file":
                found.add(args[i + 1].decode(errors="replace"))
            elif arg == b"--run":   # the whole run as one JSON document: its records' file in it
                try:
                    path = json.loads(args[i + 1]).get("results_file")
                except (ValueError, AttributeError):
                    continue
                if isinstance(path, str):
                    found.add(path)
    for path in list(found):
        found.update(glob.glob(os.path.join(os.path.dirname(path), "**", "results*.jsonl"), recursive=True))
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
