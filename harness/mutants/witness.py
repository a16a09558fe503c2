"""Which of the spec's pitfalls give a student's wrong answer on a counterexample.

A pitfall is named "likely" only on separating evidence (issue 50): a witness, the failing
input of a test, on which the pitfall's mutants give the student's (wrong) answer and the
other pitfalls' mutants do not. ``reproducing(test)`` replays a failed test's counterexample
on the mutants of every pitfall that can change that kind of answer, and returns the
pitfall numbers whose mutants (some of them) answer as the student did, or None when the
counterexample is not one it can replay:

- ``pattern`` and ``data`` with ``expected`` / ``got`` (``DFA.matches`` against ``re``):
  ``regex_to_dfa(pattern).matches(data)`` on the mutants of the parser, NFA and
  minimization stages (pitfalls 1, 2, 3, 4, 6, 7);
- ``schema`` (a catalogue schema's name) and ``document`` with ``expected`` / ``got``: the
  document against ``json_schema_to_regex(schema)`` on the schema mutants (8, 9, 10, 11).

Guarantees: the mutants are the catalogue's own (``harness.mutants.catalogue``), our code,
loaded once per process into a private folder (``apply.materialize``; never a student's);
each replay is bounded (``MAX_INPUT`` characters of pattern and data, the reference's own
limits on states); any exception of a mutant on the input counts as "not that answer".
A mutant counts only when it is also consistent with what the student answered right
before the witness in the same test (the test stops at its first wrong answer: see
"what the student answered right before the witness" below).
The answer is a pure function of the test's facts.

Example::

    >>> reproducing({"name": "test_matches_python_re", "status": "failed",
    ...              "details": "  pattern:  'a{2,3}'\\n  data:     b'aaa'\\n  expected: True\\n  got:      False\\n"})
    {6}
    >>> reproducing({..., "details": "  pattern: '\\\\s+7'\\n  data: b'\\\\x0b7'\\n  expected: True\\n  got: False"})
    set()
"""

from __future__ import annotations

import ast
import atexit
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path

from harness.mutants.apply import load, materialize, remove_if_own
from harness.mutants.catalogue import BY_ID
from harness.suite.pitfalls import PITFALLS

__all__ = ["reproducing", "MAX_INPUT"]

MAX_INPUT = 2_000   # characters of a pattern or a document replayed (facts are clipped before this)
_REGEX_STAGES = ("parser", "nfa", "minimize")
_SCHEMA_STAGES = ("schema",)


def reproducing(test: dict) -> set[int] | None:
    """The pitfalls whose mutants give ``test``'s wrong answer on its counterexample (see the
    module docstring); None when the counterexample cannot be replayed."""
    details = str(test.get("details") or "")
    expected, got = _literal(_fact(details, "expected")), _literal(_fact(details, "got"))
    if not isinstance(expected, bool) or not isinstance(got, bool) or expected == got:
        return None
    pattern, data = _literal(_fact(details, "pattern")), _literal(_fact(details, "data"))
    if isinstance(pattern, str) and isinstance(data, bytes) and len(pattern) + len(data) <= MAX_INPUT:
        earlier = _pattern_position(pattern) if test.get("name") == "test_matches_python_re" else None
        return _agreeing(_REGEX_STAGES, lambda m: bool(m.regex_to_dfa(pattern).matches(data)), got,
                         lambda mutant_id: earlier is None or _first_wrong_pattern(mutant_id) >= earlier)
    name = _fact(details, "schema")
    schema, document = _schema(name), _literal(_fact(details, "document"))
    if schema is not None and isinstance(document, bytes) and len(document) <= MAX_INPUT:
        position = _document_position(name, document) if test.get("name") == "test_json_schema_documents" else None
        return _agreeing(_SCHEMA_STAGES, lambda m: bool(m.regex_to_dfa(m.json_schema_to_regex(schema))
                                                          .matches(document)), got,
                         lambda mutant_id: position is None or _first_wrong_document(mutant_id) == position)
    return None


def _agreeing(stages: tuple[str, ...], answer, got: bool, consistent) -> set[int]:
    """The pitfalls with a mutant of ``stages`` that answers ``got`` on the witness and is
    ``consistent`` with what the student answered right before it in the same test."""
    found = set()
    for pitfall in PITFALLS:
        for mutant_id in pitfall.mutants:
            if BY_ID[mutant_id].stage not in stages:
                continue
            try:
                if answer(_mutant(mutant_id)) == got and consistent(mutant_id):
                    found.add(pitfall.number)
                    break
            except Exception:  # noqa: BLE001 - a mutant refusing the input is not the student's answer
                continue
    return found


# --- what the student answered right before the witness --------------------------------
#
# A catalogue test stops at its first wrong answer, so every input it checked before the
# witness was answered right. test_json_schema_documents checks its documents in a fixed
# order (test_schema.DOCUMENTS): a mutant that gets an earlier document wrong is not the
# student's mistake, whatever it answers on the witness. test_matches_python_re checks its
# patterns in a fixed order (inputs.RE_PATTERNS), each on strings probed from the student's
# own DFA: a mutant that disagrees with re on an earlier pattern (on strings probed from the
# reference's DFA, a fixed seed) would most likely have failed there, so it is not the
# student's mistake either. Both are computed once per mutant and process.


def _document_order() -> list[tuple[str, bytes, bool]]:
    """(schema name, document, valid?) in the order the test checks them."""
    import json

    from harness.suite.test_schema import DOCUMENTS

    def dumps(value) -> bytes:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    return [(name, document, document not in invalid)
            for _schema_value, name, valid, invalid in DOCUMENTS
            for document in [dumps(v) for v in valid] + list(invalid)]


def _document_position(name: str, document: bytes) -> int | None:
    text = _literal(name) if name[:1] in "'\"" else name
    return next((i for i, (known, doc, _) in enumerate(_document_order()) if known == text and doc == document),
                None)


@lru_cache(maxsize=None)
def _first_wrong_document(mutant_id: str) -> int:
    """The position of the first document the mutant answers wrong (len() when none)."""
    from harness.suite.test_schema import DOCUMENTS

    module, schemas, dfas = _mutant(mutant_id), {name: schema for schema, name, _, _ in DOCUMENTS}, {}
    order = _document_order()
    for i, (name, document, valid) in enumerate(order):
        try:
            if name not in dfas:
                dfas[name] = module.regex_to_dfa(module.json_schema_to_regex(schemas[name]))
            if bool(dfas[name].matches(document)) != valid:
                return i
        except Exception:  # noqa: BLE001 - a mutant that raises there is wrong there
            return i
    return len(order)


def _pattern_position(pattern: str) -> int | None:
    from harness.suite.inputs import RE_PATTERNS

    return RE_PATTERNS.index(pattern) if pattern in RE_PATTERNS else None


@lru_cache(maxsize=None)
def _first_wrong_pattern(mutant_id: str) -> int:
    """The index of the first pattern of ``RE_PATTERNS`` on which the mutant disagrees with
    ``re`` (strings probed from the reference's DFA, seed 0); len() when none."""
    import re as python_re

    import numpy as np

    from golden.readings import probe_strings
    from harness.suite.inputs import RE_PATTERNS
    from oracles.automaton import regex_to_dfa

    module = _mutant(mutant_id)
    for i, pattern in enumerate(RE_PATTERNS):
        reference = regex_to_dfa(pattern)
        oracle = python_re.compile(pattern.encode("ascii"))
        strings = probe_strings(reference.trans, reference.accept, np.random.default_rng(0))
        try:
            dfa = module.regex_to_dfa(pattern)
            if any(bool(dfa.matches(s)) != (oracle.fullmatch(s) is not None) for s in strings):
                return i
        except Exception:  # noqa: BLE001
            return i
    return len(RE_PATTERNS)


@lru_cache(maxsize=None)
def _mutant(mutant_id: str):
    """The mutant's package, materialized once per process in a private folder."""
    return load(materialize(BY_ID[mutant_id], Path(_folder())))


@lru_cache(maxsize=1)
def _folder() -> str:
    """This process's folder of materialized mutants, removed when the process that made it exits
    (not by a forked child that exits normally: it shares the folder with its parent)."""
    folder = tempfile.mkdtemp(prefix="constrain-harness-witness-")
    atexit.register(remove_if_own, folder, os.getpid())
    return folder


def _schema(name: str | None):
    """A catalogue schema by the name its facts give (``test_schema.DOCUMENTS``), or None."""
    if not name:
        return None
    from harness.suite.test_schema import DOCUMENTS

    text = _literal(name) if name[:1] in "'\"" else name
    return next((schema for schema, known, _, _ in DOCUMENTS if known == text), None)


def _literal(text: str | None):
    if not text or len(text) > MAX_INPUT + 100:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _fact(details: str, key: str) -> str | None:
    match = re.search(rf"^\s+{re.escape(key)}:\s+(.*)$", details, re.MULTILINE)
    return match.group(1).strip() if match else None
