"""Equivalence with evidence (issue 52 item 2): a survivor equal to the reference on the corpus
is "equivalent" only when it also agrees on its module's exhaustive domain
(``harness.mutants.evidence``), with that evidence recorded; else it survives, unproven."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

import oracles.automaton as reference
from harness.differential.sweep.enumerate import patterns_by_size
from harness.mutants import equivalence, evidence, generation, runner
from harness.mutants.apply import REFERENCE_DIR, load, materialize, materialize_generated
from harness.mutants.catalogue import BY_ID
from harness.mutants.runner import MutantResult, Outcome
from tests.mutants import reference_answers
from tests.support.helpers import seeded_cases

# A pattern of the enumeration (size 4) that no corpus holds: a mutant wrong only there passes the
# corpus and must still not be called equivalent.
OUTSIDE_THE_CORPUS = "b?a"
COMPILE_ITEMS = 5190   # the compile domain's items: 5,102 patterns, tables, steps, bounds, edges, next_state, refusals


def _mutant_of(file: str, source: str, line: int | None = None) -> generation.GeneratedMutant:
    """A hand-made mutant of ``file`` with the text ``source``, carried by one of the file's real sites
    (its id, module and location, or at ``line`` when given; its text is ours)."""
    site = generation.enumerate_sites(modules=[file[:-3]])[0]
    if line is not None:
        site = dataclasses.replace(site, start=(line, 0), end=(line, 1))
    return generation.GeneratedMutant(site, source, "(hand-made)", "(hand-made)")


def _never_read_errors_mutant() -> generation.GeneratedMutant:
    """``errors.py`` with a module-level constant nobody reads appended, located at it: outside the
    error classes, so a statement of no evidence domain (``evidence.ERRORS_KINDS``)."""
    source = _reference_text("errors.py") + "\n_NEVER_READ = 2\n"
    return _mutant_of("errors.py", source, line=len(source.splitlines()))


def _reference_text(file: str) -> str:
    return (REFERENCE_DIR / file).read_text(encoding="utf-8")


def _reference_record(kind: str) -> tuple[str, ...]:
    """The reference's answers over ``kind``'s domain (``evidence.record``), recorded once for the
    process (``reference_answers.record``, which ``test_mutants_evidence_pick`` reads too): the oracle
    every mutant of the kind is compared with (vocab's 15 tests read). The reference is never mutated,
    so its record cannot change within the run; ``test_the_reference_agrees_with_itself_on_every_item``
    computes the domain afresh and compares it with this record item by item."""
    return reference_answers.record(kind)


def _answers(m, chosen) -> list[str]:
    """The hashed answers of the compile domain's items whose label ``chosen`` keeps, on module ``m``."""
    return [evidence._hash(evidence._attempt(thunk)) for label, thunk in evidence.items(m, "compile") if chosen(label)]


@functools.cache
def _reference_answers(chosen) -> tuple[str, ...]:
    """``_answers`` on the reference, once for the module per selection (a module-level function): the
    reference is never mutated, so they cannot change within the run (as ``_reference_record``'s)."""
    return tuple(_answers(reference, chosen))


@functools.cache
def _pattern_labels(patterns: tuple[str, ...]) -> frozenset[str]:
    return frozenset(f"pattern {p[:40]!r}" for p in patterns)


def _repeat_bound_items(label: str) -> bool:
    return label in _pattern_labels(tuple(evidence.REPEAT_BOUND_PATTERNS))


def _next_state_items(label: str) -> bool:
    return label.startswith("TokenIndex.next_state on")


def _index_argument_item(label: str) -> bool:
    return label == "TokenIndex given bad arguments"


def _index_refusal_items(label: str) -> bool:
    return label.startswith("TokenIndex refusals on")


def _refusal_items(label: str) -> bool:
    """The compile domain's items on the patterns the subset refuses (the ones raising a PatternError)."""
    return label in _refused_labels()


@functools.cache
def _refused_labels() -> frozenset[str]:
    from harness.suite.inputs import MALFORMED_PATTERNS

    return _pattern_labels((*MALFORMED_PATTERNS, *evidence.construct_patterns()))


def _survivor(mutant) -> MutantResult:
    return MutantResult(mutant.id, Outcome.SURVIVED, (), [], {"test_x": "passed"}, 0.0)


def test_the_evidence_domains_are_the_stated_ones():
    enumerated = [p for level in patterns_by_size(evidence.EVIDENCE_GRAMMAR, evidence.EVIDENCE_MAX_SIZE).values()
                  for p in level]
    assert len(enumerated) == 4766 and evidence.EVIDENCE_GRAMMAR.alphabet == b"ab"
    patterns = evidence.evidence_patterns()
    assert patterns[:len(enumerated)] == enumerated and set(equivalence.patterns()) <= set(patterns)
    assert len(patterns) == 5102
    assert set(evidence.construct_patterns()) <= set(patterns)   # what another Python's code reads
    assert {"a*+", "a++", "a?+", "a*+?", "a+?+", "(?>a)", "(a)(?(+1)a|b)", "(?t)"} <= set(patterns)
    vocab, eos_id = evidence.evidence_vocabulary()
    assert len(vocab) == 301 and eos_id == 300 and vocab[:256] == [bytes([b]) for b in range(256)]
    assert {evidence.kind_for(m) for m in ("parser", "minimize", "index")} == {"compile"}
    assert (evidence.kind_for("sampling"), evidence.kind_for("constraint"), evidence.kind_for("schema"),
            evidence.kind_for("vocab"), evidence.kind_for("errors")) == ("sampling", "constraint", "schema", "vocab",
                                                                        None)
    assert (evidence.kind_for("__init__"), evidence.kind_for("errors", 1)) == (None, None)  # errors' docstring
    schemas = evidence.evidence_schemas()
    assert len(schemas) == 982 and len(evidence.bound_schemas()) == 24
    assert {"type": "array", "items": {"enum": [1, 2]}, "minItems": 1, "maxItems": 2} in schemas
    with pytest.raises(ValueError, match="evidence kind must be one of"):
        evidence.domain("errors")
    with pytest.raises(ValueError, match="evidence kind must be one of"):
        list(evidence.items(reference, "nope"))


@pytest.mark.parametrize("kind, size", [("sampling", 1917), ("constraint", 3617), ("schema", 982), ("vocab", 2501)])
def test_the_reference_agrees_with_itself_on_every_item(kind, size):
    hashes = _reference_record(kind)   # the module's record (the other tests' oracle), against a fresh run
    assert len(hashes) == size
    assert evidence.first_difference(reference, kind, hashes) == ([], size)
    # a shorter record is a difference, at the item past its end: its items left None (not computed, as a
    # Pick's), so only that last item is computed, not the whole domain a third time
    last = list(evidence.items(reference, kind))[-1][0]
    assert evidence.first_difference(reference, kind, [None] * (size - 1)) == ([last], 1)


@pytest.mark.parametrize("mutant_id, kind", [("s07", "constraint"), ("s20", "sampling"), ("s19", "sampling"),
                                            ("s26", "vocab"), ("s27", "vocab")])
def test_a_catalogue_mutant_differs_on_its_domain(mutant_id, kind, tmp_path):
    mutated = load(materialize(BY_ID[mutant_id], tmp_path))
    differs, computed = evidence.first_difference(mutated, kind, _reference_record(kind))
    assert differs and computed >= 1, mutant_id


@pytest.mark.e2e  # the mutant's fingerprint is computed in child processes
@pytest.mark.parametrize("file, kind, size", [
    ("constraint.py", "constraint", 3617),
    # the compile domain whole in the fingerprint's children: ~12 CPU s (the constraint domain's: ~1)
    pytest.param("compile.py", "compile", COMPILE_ITEMS, marks=pytest.mark.slow)])
def test_a_never_read_constant_is_equivalent_with_its_evidence(tmp_path, file, kind, size):
    source = _reference_text(file) + "\n_NEVER_READ = 2  # a mutated constant: no code reads it\n"
    mutant = _mutant_of(file, source)
    package = materialize_generated(mutant, tmp_path)
    # {}: no corpus key to compute (the corpus step is the outside-the-corpus test's); the evidence runs whole
    result = runner._decide_equivalence(_survivor(mutant), mutant, package, tmp_path, 60.0, {})
    assert result.outcome is Outcome.EQUIVALENT, result.detail
    assert result.evidence == evidence.summary(kind, size) and result.evidence["domain"] == evidence.domain(kind)
    record = runner.result_to_json(result)
    assert runner.result_from_json(record).evidence == result.evidence


def test_the_compile_domain_is_named_by_its_grammar_and_vocabulary():
    assert "size <= 5" in evidence.domain("compile") and "301-token" in evidence.domain("compile")


@pytest.mark.e2e  # the mutant's fingerprint is computed in child processes
def test_a_mutant_wrong_only_outside_the_corpus_is_not_equivalent(tmp_path):
    assert OUTSIDE_THE_CORPUS not in equivalence.patterns()
    assert OUTSIDE_THE_CORPUS in patterns_by_size(evidence.EVIDENCE_GRAMMAR, 4)[4]
    text = _reference_text("compile.py")
    anchor = "    with _recursion_room(RECURSION_ROOM):\n        tree = parse(pattern)\n"
    assert text.count(anchor) == 1
    source = text.replace(anchor, f"    if pattern == {OUTSIDE_THE_CORPUS!r}:\n        pattern = 'b*a'\n" + anchor)
    mutant = _mutant_of("compile.py", source)
    package = materialize_generated(mutant, tmp_path)
    mutated = load(package)   # the oracle: Python's re tells the two languages apart on "bba"
    assert mutated.regex_to_dfa(OUTSIDE_THE_CORPUS).matches(b"bba") != reference.regex_to_dfa("b?a").matches(b"bba")
    result = runner._decide_equivalence(_survivor(mutant), mutant, package, tmp_path, 60.0, None)
    assert result.outcome is Outcome.SURVIVED and result.evidence is None
    assert result.detail.startswith("equal on the corpus, but differs on the compile evidence domain at "
                                    f"pattern {OUTSIDE_THE_CORPUS!r}"), result.detail


def test_a_survivor_of_a_module_without_a_domain_is_unproven_not_equivalent(tmp_path, monkeypatch):
    passed = []

    def every_test_passes(package, tests, deep, timeout, **kwargs):
        passed.append(deep)
        return dict.fromkeys(tests, "passed"), None

    monkeypatch.setattr(runner, "run_catalogue_against", every_test_passes)
    mutant = _never_read_errors_mutant()
    result = runner.run_generated(mutant, tmp_path, 30.0, deep=True, tests=("test_x",), deep_tests=("test_y",),
                                  fingerprint={})
    assert result.outcome is Outcome.UNPROVEN and result.evidence is None
    assert result.detail == f"{runner.UNPROVEN_NOTE}equal on the corpus; no evidence domain for module errors"
    assert passed == [False, True]   # unproven: the deep pass ran
    assert runner.result_from_json(runner.result_to_json(result)).outcome is Outcome.UNPROVEN


def test_an_unproven_survivor_the_deep_pass_kills_is_killed_by_the_deep_tier(tmp_path, monkeypatch):
    def the_deep_pass_kills(package, tests, deep, timeout, **kwargs):
        return {name: "failed" if deep else "passed" for name in tests}, None

    monkeypatch.setattr(runner, "run_catalogue_against", the_deep_pass_kills)
    mutant = _never_read_errors_mutant()
    result = runner.run_generated(mutant, tmp_path, 30.0, deep=True, tests=("test_x",), deep_tests=("test_y",),
                                  fingerprint={})
    assert (result.outcome, result.tier, result.killed_by) == (Outcome.KILLED, "deep", ["test_y"])
    assert result.detail == "equal on the corpus; no evidence domain for module errors"


@pytest.mark.e2e  # the mutant's fingerprint is computed in child processes
def test_a_mutant_of_the_long_dfa_path_is_not_equivalent(tmp_path):
    """Hopcroft's path in ``minimize`` runs only for DFAs past Moore's rounds, which no pattern
    of the enumeration builds: the deep tier's long patterns are in the evidence domain, so a
    mutant of that path (its predecessor lists dropped) is never called equivalent."""
    from harness.suite.inputs import LONG_PATTERNS

    assert set(LONG_PATTERNS) <= set(evidence.evidence_patterns())
    text = _reference_text("minimize.py")
    assert text.count("    return preds\n") == 1
    mutant = _mutant_of("minimize.py", text.replace("    return preds\n", "    return [{} for _ in preds]\n"))
    package = materialize_generated(mutant, tmp_path)
    result = runner._decide_equivalence(_survivor(mutant), mutant, package, tmp_path, 120.0, None)
    assert result.outcome is not Outcome.EQUIVALENT and result.evidence is None, result.detail


def test_a_mutant_of_the_dfa_constructors_check_differs_on_the_table_items(tmp_path):
    """``dfa.ReplaceComparisonOperator_GtE_Gt.0`` (``trans >= n`` -> ``trans > n``: a target one
    past the last state is accepted) passed every pattern of the domain, which never hands a
    caller's tables to ``DFA``: it was "equivalent with evidence". The table items tell it apart,
    at the first bad table it accepts (what it does is shown first, on the hand example)."""
    from harness.suite.inputs import HAND_PATTERN

    site = next(s for s in generation.enumerate_sites(modules=["dfa"])
                if s.id == "dfa.ReplaceComparisonOperator_GtE_Gt.0")
    mutant, why = generation.build(site)
    assert mutant is not None and mutant.after.strip() == "bad = (trans < DEAD) | (trans > n)", why
    mutated = load(materialize_generated(mutant, tmp_path))
    hand = reference.regex_to_dfa(HAND_PATTERN)
    trans = np.array(hand.trans)
    trans[6, 200] = 7
    mutated.DFA(trans, np.array(hand.accept))  # accepted: no DFA has a state 7 of 7
    with pytest.raises(ValueError):
        reference.DFA(trans, np.array(hand.accept))
    labels = [label for label, _ in evidence._table_items(reference)]
    assert len(labels) == 72
    ours = [evidence._hash(evidence._attempt(thunk)) for _, thunk in evidence._table_items(reference)]
    theirs = [evidence._hash(evidence._attempt(thunk)) for _, thunk in evidence._table_items(mutated)]
    differ = [label for label, a, b in zip(labels, ours, theirs) if a != b]
    assert differ[0] == "DFA(tables of '(cat|car|dog)s?', a target one past the last state)", differ


@pytest.mark.parametrize("mutant_id, equal", [
    ("dfa.ReplaceBinaryOperator_Sub_BitXor.0", True),   # the last state the message names: n ^ 1, not n - 1
    ("dfa.NumberReplacer.9", True),                     # the message names DEAD as (-2)
    ("dfa.ReplaceComparisonOperator_Lt_LtE.0", False),  # step(n_states) read past the end
])
def test_the_step_items_tell_a_message_from_a_behaviour(mutant_id, equal, tmp_path):
    """``DFA.step``'s range check (dfa.py, ``_check_state``): no item of the compile domain stepped
    from a state out of range, so a mutant of its message was "equivalent" on no item at all. The
    ``STEPS_OUT_OF_RANGE`` items execute it: a mutant of the message only is equal there (the error's
    class is compared, not its text), one of the range itself differs."""
    site = next(s for s in generation.enumerate_sites(modules=["dfa"]) if s.id == mutant_id)
    mutant, why = generation.build(site)
    assert mutant is not None, why
    assert "state" in mutant.before and mutant.site.start[0] in (89, 90), (mutant.before, mutant.site)
    mutated = load(materialize_generated(mutant, tmp_path))
    steps = [(label, thunk) for label, thunk in evidence._table_items(reference) if "DFA.step(" in label
             and "b'a')" in label]
    assert len(steps) == 3 * len(evidence.STEPS_OUT_OF_RANGE)
    ours = [evidence._hash(evidence._attempt(thunk)) for _, thunk in steps]
    theirs = [evidence._hash(evidence._attempt(thunk))
              for label, thunk in evidence._table_items(mutated) if label in dict(steps)]
    assert (ours == theirs) == equal, mutant_id


@pytest.mark.parametrize("mutant_id, equal", [
    ("parser.ReplaceBinaryOperator_Add_BitXor.22", True),  # MAX_REPEAT ^ 1 is 1001 too: MAX_REPEAT is 1000
    ("parser.NumberReplacer.168", True),                   # MAX_REPEAT + 2: past the cap as well, refused alike
    ("parser.ReplaceBinaryOperator_Add_Sub.22", False),    # MAX_REPEAT - 1: a{10000} read as a{999}
])
def test_the_repeat_bound_items_tell_an_equivalent_from_a_behaviour(mutant_id, equal, tmp_path):
    """A repeat bound of more digits than the cap (``parser._bound_value``): no pattern of the
    enumeration or the corpus had one, so its mutants were "equivalent" on no item. The
    ``REPEAT_BOUND_PATTERNS`` items reach it: a mutant whose value stays past the cap is equal there,
    one that brings it under the cap differs (a refused pattern compiles)."""
    site = next(s for s in generation.enumerate_sites(modules=["parser"]) if s.id == mutant_id)
    mutant, why = generation.build(site)
    assert mutant is not None, why
    mutated = load(materialize_generated(mutant, tmp_path))
    ours, theirs = list(_reference_answers(_repeat_bound_items)), _answers(mutated, _repeat_bound_items)
    assert len(ours) == len(evidence.REPEAT_BOUND_PATTERNS)
    assert (ours == theirs) == equal, mutant_id


def _index_items_on_both(mutant_id: str, tmp_path, chosen) -> tuple[list, list]:
    """The hashed answers of the compile domain's items whose label ``chosen`` keeps, on the reference
    and on the generated ``index`` mutant ``mutant_id`` (built, written under ``tmp_path``, loaded)."""
    site = next(s for s in generation.enumerate_sites(modules=["index"]) if s.id == mutant_id)
    mutant, why = generation.build(site)
    assert mutant is not None, why
    mutated = load(materialize_generated(mutant, tmp_path))
    return list(_reference_answers(chosen)), _answers(mutated, chosen)


@pytest.mark.parametrize("mutant_id, equal", [
    ("index.ReplaceComparisonOperator_Gt_NotEq.4", True),  # the target-row cache evicts sooner: same answers
    ("index.SwapArguments.41", False),                     # np.full(DEAD, V): no row at all
])
def test_the_next_state_items_tell_a_cache_from_a_behaviour(mutant_id, equal, tmp_path):
    """``TokenIndex.next_state`` and its cache of target rows (``index.py``, ``_target_row``): no item
    of the compile domain asked ``next_state``. The items on ``TABLE_PATTERNS`` do: a mutant of the
    cache's eviction bound is equal there, one of what a row holds differs."""
    ours, theirs = _index_items_on_both(mutant_id, tmp_path, _next_state_items)
    assert len(ours) == len(evidence.TABLE_PATTERNS)
    assert (ours == theirs) == equal, mutant_id


@pytest.mark.parametrize("mutant_id, equal", [
    ("index.ReplaceBinaryOperator_Sub_Add.6", True),     # the bound the EOS id's range error names
    ("index.ReplaceComparisonOperator_IsNot_Eq.0", True),  # which entry the message names (a bytes one's id)
    ("index.ReplaceComparisonOperator_IsNot_Is.0", False),  # no None before the bad entry: StopIteration
    ("index.ReplaceComparisonOperator_Lt_LtE.2", False),  # EOS id V let through: IndexError, not ValueError
    ("index.RemoveStatement.2", False),                  # a str entry let through
])
def test_the_index_argument_item_tells_a_message_from_a_behaviour(mutant_id, equal, tmp_path):
    """``TokenIndex(dfa, vocab, eos_id)``'s refusals: no item built an index from bad arguments, so a
    mutant of a refusal's message was "unproven". The ``_index_bad_arguments`` item does: a message's
    mutant is equal there, one of a check differs."""
    ours, theirs = _index_items_on_both(mutant_id, tmp_path, _index_argument_item)
    assert len(ours) == 1
    assert (ours == theirs) == equal, mutant_id


@pytest.mark.parametrize("mutant_id, equal", [
    ("index.ReplaceBinaryOperator_Sub_Add.9", True),     # the bound a state's range error names: a message
    ("index.NumberReplacer.109", True),                  # the bound a token id's range error names
    ("index.NumberReplacer.102", False),                 # state 0 refused
    ("index.ReplaceComparisonOperator_Lt_LtE.4", False),  # token id V let through: IndexError, not ValueError
    ("index.RemoveStatement.21", False),                 # a float token id read as an index, not a TypeError
])
def test_the_index_refusal_items_tell_a_message_from_a_behaviour(mutant_id, equal, tmp_path):
    """``TokenIndex``'s range and type checks of a state and a token id (``_check_state``,
    ``_check_token``): no item of the compile domain asked ``mask`` or ``next_state`` outside their range,
    so a mutant of the range error's message was "unproven" (a seeded sample of index: 2026-12-07). The
    ``_index_refusals`` items on ``TABLE_PATTERNS`` do: a message's mutant is equal there, one of a check
    differs."""
    ours, theirs = _index_items_on_both(mutant_id, tmp_path, _index_refusal_items)
    assert len(ours) == len(evidence.TABLE_PATTERNS)
    assert (ours == theirs) == equal, mutant_id


DOMAIN_CASES = [  # (mutant id, equal, what it changes: the kind of the case, for seeded_cases)
    # schema: survivors of a seeded sample (and one the catalogue kills)
    ("schema.NumberReplacer.15", True, "message"),   # which unknown keyword the message names: the class is the same
    ("schema.SwapArguments.41", True, "message"),    # the pointer an annotation's error names: _pointer(key, pointer)
    ("schema.ReplaceComparisonOperator_Gt_Is.1", False, "bound"),  # depth == MAX_DEPTH refused: 33 nested objects
    ("schema.ReplaceComparisonOperator_Gt_GtE.0", False, "bound"),  # a regex of exactly MAX_REGEX_LENGTH refused
    ("schema.RemoveStatement.10", False, "class"),  # a schema that is no object: TypeError, not ValueError
    ("schema.ReplaceBinaryOperator_Sub_LShift.4", False, "kill"),  # killed by test_json_schema_documents
    # vocab: survivors and not-covered mutants of a seeded sample
    ("vocab.NumberReplacer.6", True, "message"),    # the bound the "special id out of range" message names
    ("vocab.NumberReplacer.27", True, "message"),   # how much of a bad added token the message quotes
    ("vocab.RemoveStatement.0", False, "class"),  # vocab_bytes("abc") read as three tokens, not a TypeError
    ("vocab.ReplaceComparisonOperator_Gt_GtE.0", False, "bound"),  # a vocabulary of exactly MAX_VOCAB_SIZE ids refused
    ("vocab.ReplaceComparisonOperator_NotEq_Gt.0", False, "reading"),  # convert_ids_to_tokens answering too few
    ("vocab.ReplaceComparisonOperator_Lt_NotEq.2", False, "reading"),  # a special id past len(tokenizer) refused
    ("vocab.ZeroIterationForLoop.7", False, "reading"),  # a special on a ranked id keeps its bytes
    ("vocab.ReplaceUnaryOperator_Delete_USub.0", False, "reading"),  # no rank at all: two ids, not none
    ("vocab.ExceptionReplacer.0", False, "class"),  # a str rank: TypeError, not ValueError
    ("vocab.ReplaceAndWithOr.0", False, "reading"),  # all_special_ids alone taken for a transformers tokenizer
    ("vocab.ReplaceComparisonOperator_NotEq_IsNot.0", False, "reading"),  # `len(strings) is not n`: wrong past 256
    ("vocab.ReplaceFalseWithTrue.0", False, "reading"),  # an added token without a special flag read as special
]


def domain_case_kinds(mutant_id: str, equal: bool) -> set[str]:
    """A ``DOMAIN_CASES`` case's kind: its domain and what its mutant changes (a message, a size bound, an
    error's class, a tokenizer kind's reading, or what the catalogue kills): 18 cases, 8 kinds."""
    change = next(kind for mid, _, kind in DOMAIN_CASES if mid == mutant_id)
    return {f"{mutant_id.split('.')[0]} {change}"}


def pytest_generate_tests(metafunc):
    if metafunc.definition.name == "test_the_schema_and_vocab_domains_tell_a_message_from_a_behaviour":
        # a case of each kind by default, every case under -m slow (2026-12-08: the 18 cases were ~5 CPU s, each
        # mutant of vocab's reading computing the whole vocab domain, its three 4-million-id answers included)
        cases = [((mid, equal), f"{mid}-{equal}") for mid, equal, _ in DOMAIN_CASES]
        metafunc.parametrize("mutant_id, equal", seeded_cases(metafunc.config, cases, domain_case_kinds,
                                                              draw="evidence.domain_cases"))


def test_the_schema_and_vocab_domains_tell_a_message_from_a_behaviour(mutant_id, equal, tmp_path):
    """A mutant of ``schema`` or ``vocab`` (the domain is the module its id names) that changes
    only an error's message is equal on that module's domain (``evidence_vocab`` for vocab);
    one that moves a size bound, an error's class or a tokenizer kind's reading differs there
    (for schema: the bound schemas and ``NOT_SCHEMAS``), as does a kill."""
    domain = mutant_id.split(".")[0]
    site = next(s for s in generation.enumerate_sites(modules=[domain]) if s.id == mutant_id)
    mutant, why = generation.build(site)
    assert mutant is not None, why
    mutated = load(materialize_generated(mutant, tmp_path))
    differs, computed = evidence.first_difference(mutated, domain, _reference_record(domain))
    assert (differs == []) == equal, (mutant_id, differs)



def test_a_mutant_of_errors_is_checked_on_the_domain_that_raises_its_class():
    """``errors.py``'s code is the messages of ``PatternError`` and ``SchemaError`` (their
    ``__init__``): a mutant there is checked on the domain whose items raise that class
    (``evidence.ERRORS_KINDS``), not left unproven for want of a domain."""
    import ast

    sites = generation.enumerate_sites(modules=["errors"])
    real_parse = ast.parse
    ast.parse = None   # the runner asks kind_for in its tasks, where nothing may be parsed
    try:
        kinds = {s.id: evidence.kind_for("errors", s.start[0]) for s in sites}
    finally:
        ast.parse = real_parse
    assert len(kinds) >= 30 and set(kinds.values()) == {"compile", "schema"}
    assert (kinds["errors.AddNot.0"], kinds["errors.ReplaceOrWithAnd.0"]) == ("compile", "schema")


@pytest.mark.parametrize("mutant_id, equal", [
    ("errors.NumberReplacer.0", True),       # the caret drawn under patterns of 201 characters too
    ("errors.RemoveStatement.1", True),      # no message at all: the class is the same
    ("errors.AddNot.1", True),               # no caret where there is a pattern
    ("errors.ReplaceBinaryOperator_Mul_Add.0", False),  # ' ' + int: a TypeError where the ValueError was
    ("errors.ReplaceOrWithAnd.0", True),     # SchemaError: "/" named for every pointer
    ("errors.RemoveStatement.2", True),      # SchemaError: no message at all
])
def test_the_errors_domains_tell_a_message_from_a_behaviour(mutant_id, equal, tmp_path):
    """A mutant of an error's message is equal on its class's domain (the error's class is compared,
    not its text); one that raises another class while writing the message differs there."""
    site = next(s for s in generation.enumerate_sites(modules=["errors"]) if s.id == mutant_id)
    mutant, why = generation.build(site)
    assert mutant is not None, why
    mutated = load(materialize_generated(mutant, tmp_path))
    kind = evidence.kind_for("errors", site.start[0])
    if kind == "schema":
        differs, _ = evidence.first_difference(mutated, "schema", _reference_record("schema"))
        assert (differs == []) == equal, (mutant_id, differs)
        return
    ours, theirs = list(_reference_answers(_refusal_items)), _answers(mutated, _refusal_items)
    assert len(ours) > 50
    assert (ours == theirs) == equal, mutant_id
