"""A diagnosis, not a list: which of the spec's pitfalls fits a student's failures best.

``diagnose(tests)`` takes the tests that did not pass (dicts with ``name``, ``status``,
``reason``, ``details``, as in a batch record) and returns the pitfalls the evidence points
to, best first::

    [{"pitfall": 3, "label": "pitfall 3: numbering in another order", "strength": "strong",
      "score": 13, "explains": ["test_hand_example", "test_hand_example_masks", ...],
      "evidence": ["test_hand_example, test_canonical_form: the same language and the same 7 ..."]}]

and ``unexplained(tests, found)``: the failures no pitfall accounts for (a crash, a
timeout, a test the spec's table names no pitfall for), with what that test checks.

A test that failed because the student's code raised (``raised``), timed out or crashed is
no evidence: the error, or the call that did not finish, says where to look.
Evidence, strongest first (weights 3, 2, 1):

3. a finding the catalogue wrote into the counterexample (``harness.suite.explain.table_finding``):
   "numbered in another order" -> pitfall 3, "not merged" -> 2, "a dead sink kept" -> 4;
   EOS allowed in a state that does not accept -> 4; a state that cannot reach an accepting
   state -> 4; an anchor that was not refused -> 7;
2. what a test's counterexample is about: the pattern and string that ``re`` disagrees on
   (``.`` and ``\\n``, ``[^``, ``\\w``, a range -> 1; a repeat -> 6), the trie test -> 5,
   the document a schema gets wrong (8, 9, 10), schema keywords -> 11, vocab_bytes -> 12; generation
   alone -> 8 at weight 1 (any schema mistake can fail it);
3. (weight 1) the pitfalls the spec's table says the test catches (``harness.suite.catalogue``).

"Likely" needs separating evidence (issue 50): ``diagnose(tests, reproduces)`` replays each
failed test's input on the pitfalls' mutants (``reproduces``, e.g.
``harness.mutants.witness.reproducing``); a reading of weight 2 stays "likely" only when
its pitfall's mutants give the student's answer on that input and no other pitfall's do,
and a witness only one pitfall reproduces is likely evidence of it whatever the test. Else
it is "possible": a ``\\s`` missing ``\\f\\v`` under a repeat is not called pitfall 6 (the
repeat mutants accept ``b'\\x0b7'`` as ``re`` does). Without ``reproduces`` nothing is
replayed, and nothing but a strong finding or a consequence of one is "likely".

A failure whose details say the test addresses states by section 3's numbers while the
student's DFA of the hand example differs is attributed to that finding alone: its own
symptoms (an EOS in the "wrong" state) are consequences, not evidence. A pitfall's
``strength`` is its strongest evidence (strong 3, likely 2, possible 1); the ranking is by
total weight, then the pitfall's number. Pure functions of the records: the batch's
reports call them, nothing is run again.

Example::

    >>> diagnose([{"name": "test_hand_example", "status": "failed", "reason": "...",
    ...            "details": "  finding:  the same language ..., numbered in another order ..."}])[0]["pitfall"]
    3
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from harness.suite.catalogue import BY_NAME
from harness.suite.findings import FINDING_WORDS
from harness.suite.pitfalls import BY_NUMBER

__all__ = ["diagnose", "unexplained", "raised", "STRENGTHS"]

STRENGTHS = {3: "strong", 2: "likely", 1: "possible"}
Reproduces = Callable[[dict], "set[int] | None"]
"""A failed test -> the pitfalls whose mutants give its wrong answer on its failing input,
or None when it cannot be replayed (``harness.mutants.witness.reproducing``)."""
_RAN = ("failed", "error", "crashed", "timeout")   # statuses that are evidence (not run / not reported are not)
_FINDING_PITFALL = {FINDING_WORDS["numbering"]: 3, FINDING_WORDS["not minimal"]: 2, FINDING_WORDS["dead sink"]: 4}
_CONTEXT = "addresses states by section 3's numbers"
_REGEX_TESTS = ("test_hand_example", "test_matches_python_re", "test_every_state_is_live", "test_canonical_form")
_SCHEMA_TESTS = ("test_json_schema_documents", "test_constrained_generation_parses")
_MASK_TESTS = ("test_hand_example_masks", "test_masks_match_brute_force", "test_masks_match_the_golden_file",
               "test_reachable_states_never_have_an_empty_mask")


def diagnose(tests: list[dict], reproduces: Reproduces | None = None) -> list[dict]:
    found: dict[int, dict] = {}
    ran = [t for t in tests if t.get("status") in _RAN]
    # a schema's documents are matched by the student's own regex_to_dfa: when a test of it
    # failed too, a document's witness tells nothing about the schema (the DFA may be the cause)
    regex_failed = any(t["name"] in _REGEX_TESTS for t in ran)
    witnessed = {t["name"]: reproduces(t) if reproduces is not None and not raised(t)
                 and not (regex_failed and t["name"] in _SCHEMA_TESTS) else None for t in ran}
    table_cause = _table_cause(ran, witnessed)
    for test in ran:
        evidence = _separated(_evidence(test, table_cause), witnessed.get(test["name"]))
        if not evidence:
            continue
        best = max(weight for _, weight, _ in evidence)
        owner = min(number for number, weight, _ in evidence if weight == best)
        for number, weight, why in evidence:
            entry = found.setdefault(number, {"pitfall": number, "label": BY_NUMBER[number].label, "score": 0,
                                              "best": 0, "explains": [], "evidence": {}})
            entry["score"] += weight
            entry["best"] = max(entry["best"], weight)
            if weight >= 2:   # one line per distinct finding, naming every test that shows it
                entry["evidence"].setdefault(why, []).append(test["name"])
            if number == owner and test["name"] not in entry["explains"]:
                entry["explains"].append(test["name"])
    strongest = max([e["best"] for e in found.values()] + [0])
    kept = [e for e in found.values() if e["explains"] or e["best"] > 1 or strongest == 1]  # no table-only noise
    ranked = sorted(kept, key=lambda e: (-e["best"], -e["score"], e["pitfall"]))
    return [{"pitfall": e["pitfall"], "label": e["label"], "strength": STRENGTHS[e["best"]], "score": e["score"],
             "explains": e["explains"],
             "evidence": [f"{', '.join(names)}: {why}" for why, names in list(e["evidence"].items())[:6]]}
            for e in ranked]


def unexplained(tests: list[dict], found: list[dict]) -> list[dict]:
    """The tests that did not pass and no pitfall of ``found`` explains: ``{"name", "status",
    "checks"}`` with what the test checks (the spec's section 4)."""
    explained = {name for entry in found for name in entry["explains"]}
    return [{"name": t["name"], "status": t.get("status", ""),
             "checks": BY_NAME[t["name"]].checks if t["name"] in BY_NAME else ""}
            for t in tests if t.get("status") in _RAN and t["name"] not in explained]


# --------------------------------------------------------------------------- evidence


def _table_cause(tests: list[dict], witnessed: dict[str, set[int] | None]) -> int | None:
    """The pitfall of what is wrong with the student's tables, if a test shows it: a table
    finding (numbering, minimization, dead sink), else a language that differs from ``re``
    on a witness only that pitfall's mutants reproduce (a byte class, a repeat). Every mask
    is computed over those tables, so a mask that differs elsewhere is a consequence of it
    before it is evidence of a trie bug."""
    for test in tests:
        number = _finding_pitfall(_fact(str(test.get("details") or ""), "finding") or "")
        if number:
            return number
    for test in tests:
        witness = witnessed.get(test["name"])
        if test["name"] == "test_matches_python_re" and witness is not None and len(witness) == 1:
            return next(iter(witness))
    return None


def _separated(evidence: list[tuple[int, int, str]], witness: set[int] | None) -> list[tuple[int, int, str]]:
    """``evidence`` with "likely" (weight 2) kept only where it separates its pitfall from the
    others: the test's witness (its failing input) is reproduced by that pitfall's mutants
    and by no other pitfall's (``witness == {n}``). Without such a witness a likely reading
    (a repeat in the pattern, a test's name) is only possible (weight 1); a consequence of
    the tables (already separated by ``_table_cause``) and strong findings stay. A witness
    only one pitfall reproduces is itself likely evidence of it."""
    out = []
    for number, weight, why in evidence:
        if weight == 2 and not why.startswith("a consequence"):
            if witness == {number}:
                why += f" (your answer on it is what pitfall {number}'s mistake gives, and no other pitfall's)"
            else:
                weight = 1
        out.append((number, weight, why))
    if witness is not None and len(witness) == 1 and not any(w >= 2 for n, w, _ in out if n in witness):
        number = next(iter(witness))
        out.append((number, 2, f"your answer on the failing input is what pitfall {number}'s mistake gives, "
                               f"and no other pitfall's"))
    return out


def _evidence(test: dict, table_cause: int | None = None) -> list[tuple[int, int, str]]:
    """(pitfall, weight, why) for one failed test."""
    name, details = test["name"], str(test.get("details") or "")
    if raised(test):   # the student's code raised: an error to fix where it says, no pitfall's symptom
        return []
    if test.get("status") in ("timeout", "crashed"):   # a call that never answered shows no answer to judge
        return []
    finding = _fact(details, "finding")
    if finding and _CONTEXT in finding:   # a consequence of the hand DFA: only that finding counts
        number = _finding_pitfall(finding) or _language_pitfall(finding, details)
        cause = finding.split(": ", 1)[-1]
        return [(number, 2, f"a consequence (the test addresses states by section 3's numbers): {cause}")] \
            if number else []
    evidence = []
    if finding:
        number = _finding_pitfall(finding)
        if number:
            evidence.append((number, 3, finding))
        elif _language_pitfall(finding, details):   # another language: a class or a repeat, by the pattern
            evidence.append((_language_pitfall(finding, details), 2, finding))
    evidence += _test_rules(name, str(test.get("reason") or ""), details, table_cause)
    evidence += [(n, 1, f"the spec's table: this test catches pitfall {n}") for n in _catalogue_pitfalls(name)]
    return evidence


def raised(test: dict) -> bool:
    """Return True if and only if the test failed because the student's code raised (``TypeError:
    ...``, ``InvalidArgument: ...``: pytest's report of the exception), not with a
    counterexample of the catalogue (its facts, ``"  key: value"`` lines)."""
    details = str(test.get("details") or "")
    return bool(re.match(r"[A-Z][\w.]*: ", str(test.get("reason") or ""))) and not re.match(r"\s+\w+:\s", details)


def _language_pitfall(finding: str, details: str) -> int | None:
    """For a finding "the languages differ: your DFA refuses b'cats' ...": pitfall 1 or 6,
    from the test's pattern and that string (``_regex_rules``)."""
    witness = re.search(r"your DFA (?:accepts|refuses) (b'(?:[^'\\]|\\.)*'|b\"(?:[^\"\\]|\\.)*\")", finding)
    pattern = _fact(details, "pattern") or _fact(details, "left")   # a canonical pair names "left" and "right"
    if FINDING_WORDS["language"] not in finding or not witness or not pattern:
        return None
    rules = _regex_rules("", f"  pattern:  {pattern}\n  data:     {witness.group(1)}\n")
    return rules[0][0] if rules else None


def _finding_pitfall(finding: str) -> int | None:
    return next((n for words, n in _FINDING_PITFALL.items() if words in finding), None)


def _test_rules(name: str, reason: str, details: str, table_cause: int | None) -> list[tuple[int, int, str]]:
    eos = _eos_where_not_accepting(details)
    mask_differs = eos or _token_wrongly_allowed(details) or "next_state is DEAD" in reason
    if name in _MASK_TESTS and mask_differs and table_cause is not None:   # masks walk the DFA: its error first
        return [(table_cause, 2, f"a consequence: the masks walk your DFA, which another test found wrong "
                                 f"({reason})")]
    if eos:
        return [(4, 3, f"EOS is allowed in a state that does not accept ({reason})")]
    if name in _MASK_TESTS and mask_differs:
        return [(5, 2, f"the mask allows a token whose bytes lead nowhere ({reason})")]
    if name == "test_constraint_lifecycle" and _only_eos_added(details):
        return [(4, 2, f"Constraint.mask() allows EOS before the text is complete ({reason})")]
    if name == "test_constrained_generation_parses" and not re.search(r"\bparse|\bvalidate", reason):
        return []   # generation stuck or crashed: not pitfall 8's symptom (output json.loads rejects)
    if name == "test_every_state_is_live" and "cannot reach an accepting state" in reason:
        return [(4, 3, reason)]
    if name == "test_every_state_is_live":   # liveness differs from partial matching: a language error
        return _regex_rules(name, details)
    if name == "test_unsupported_syntax_raises" and "anchor" in reason:
        return [(7, 3, reason)]
    if name == "test_matches_python_re":
        return _regex_rules(name, details)
    if name == "test_json_schema_documents":
        return _document_rules(reason, details)
    if name == "test_constrained_generation_parses":   # any schema mistake can fail it: pitfall 8 is a guess
        return [(8, 1, reason)]
    simple = {"test_masks_match_brute_force": 5, "test_json_schema_rejects_keywords_outside_the_subset": 11,
              "test_vocab_bytes": 12}
    return [(simple[name], 2, reason)] if name in simple else []


def _eos_where_not_accepting(details: str) -> bool:
    """The counterexample is a token without bytes (EOS: ``id 13 None``) that the mask allows
    and the definition refuses."""
    token = (_fact(details, "token") or "").split()
    eos = _fact(details, "eos_id")
    is_eos = len(token) == 3 and token[0] == "id" and (token[1] == eos or token[2] == "None")
    return is_eos and _fact(details, "expected") == "False" and _fact(details, "got") == "True"


def _token_wrongly_allowed(details: str) -> bool:
    """The counterexample is a token with bytes the mask allows and the definition refuses."""
    token = (_fact(details, "token") or "").split()
    return (len(token) == 3 and token[2] != "None" and _fact(details, "expected") == "False"
            and _fact(details, "got") == "True")


def _only_eos_added(details: str) -> bool:
    """The lifecycle's expected and got states differ only by EOS (13) in the allowed set."""
    want, got = _fact(details, "expected") or "", _fact(details, "got") or ""
    allowed = re.compile(r"'allowed': \{([\d, ]*)\}")
    w, g = allowed.search(want), allowed.search(got)
    if not (w and g):
        return False
    numbers = [{int(n) for n in re.findall(r"\d+", m.group(1))} for m in (w, g)]
    return numbers[1] - numbers[0] == {13} and allowed.sub("", want) == allowed.sub("", got)


def _regex_rules(name: str, details: str) -> list[tuple[int, int, str]]:
    """Pitfall 1 or 6 from the pattern and the string ``re`` disagrees on: a byte the spec's
    classes are about in the string (``\\n``, a byte >= 0x80, ``_``, the upper end of a range
    of the pattern) points to a class (1); else a repeat in the pattern points to it (6);
    else a class or ``.`` in the pattern (1)."""
    pattern, data = _literal(_fact(details, "pattern")), _literal(_fact(details, "data") or _fact(details, "path"))
    if not isinstance(pattern, str):
        return []
    where = f"re disagrees on {pattern!r} and {data!r}" if isinstance(data, bytes) else f"re disagrees on {pattern!r}"
    ends = {m.encode()[-1] for m in re.findall(r"(?<=-)[^\]\\]", pattern)}   # e.g. "[a-f0-9]" -> f, 9
    if isinstance(data, bytes) and any(b == 0x0A or b >= 0x80 or b == ord("_") or b in ends for b in data):
        return [(1, 2, f"{where} (a byte a class decides)")]
    if re.search(r"\{\d*,?\d*\}|[+*]|(?<![(\\])\?", pattern):   # {m,n}, +, *, ? (not "(?:", not "\?")
        return [(6, 2, f"{where} (a repeat)")]
    if re.search(r"\\[wdsWDS]|\[|(?<!\\)\.", pattern):
        return [(1, 2, f"{where} (a byte class)")]
    return []


def _document_rules(reason: str, details: str) -> list[tuple[int, int, str]]:
    """Pitfall 8, 9 or 10 from the document the schema's regex gets wrong: a valid one refused
    (optional members made required, 9); an invalid one accepted with a leading zero, an
    exponent without digits or a raw control or high byte (8), else with an array (10)."""
    document = _literal(_fact(details, "document"))
    expected, got = _fact(details, "expected"), _fact(details, "got")
    if not isinstance(document, bytes):
        return []
    if expected == "True" and got == "False":
        return [(9, 2, f"a valid document is refused: {document!r} ({reason})")]
    if re.search(rb"(?<![\d.])-?0\d|[eE][+-]?(?!\d)|[\x00-\x1f\x80-\xff]", document):
        return [(8, 2, f"an invalid document is accepted: {document!r} ({reason})")]
    if b"[" in document:
        return [(10, 2, f"an array the schema bounds is accepted: {document!r} ({reason})")]
    return []


def _literal(text: str | None):
    """A fact's Python literal (``'a.c'``, ``b'a\\nc'``), or None (bounded: facts are clipped)."""
    if not text or len(text) > 2_000:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _catalogue_pitfalls(name: str) -> list[int]:
    """The pitfall numbers the spec's table lists for ``name`` ("3. numbering ... (s04)")."""
    entry = BY_NAME.get(name)
    return sorted({int(n) for n in re.findall(r"(?:^|; )(\d+)\.", entry.pitfalls)}) if entry else []


def _fact(details: str, key: str) -> str | None:
    """The value of ``key`` in a counterexample's facts (``explain.render_facts``: ``"  key: value"``)."""
    match = re.search(rf"^\s+{re.escape(key)}:\s+(.*)$", details, re.MULTILINE)
    return match.group(1).strip() if match else None
