"""The hints a student reads (issue 26): every claim a pitfall's hint makes is checked
against the mutant it describes, hints name only the spec's interface, and nothing of the
grader's machinery.

The oracle for a claim is the mutant itself (``harness.mutants``: the reference with the
spec's mistake patched in, imported in this process) and the reference: the claim must hold
on the mutant and not on the reference. The old text of pitfall 2 ("the hand example has
more than 7 states", the spec's own symptom) is kept here as the example of a claim this
check refuses: s03 has exactly 7.
"""

from __future__ import annotations

import re

import pytest

import oracles.automaton as reference
from harness.grading.gradetests.hints import GROUPS, hint
from harness.mutants.apply import load, materialize
from harness.mutants.catalogue import BY_ID
from harness.suite.pitfalls import BY_MUTANT, PITFALLS, SPEC_INTERFACE, Example
from harness.suite.pitfalls import hint as pitfall_hint

CASES = [(p.number, i, mutant) for p in PITFALLS for i, e in enumerate(p.examples) for mutant in e.mutants]
MACHINERY = re.compile(r"rlimit|bwrap|bubblewrap|namespace|nobody|root:|sandbox|/tmp|/autograder|harness\.|"
                       r"it can write|CPU s per test|allowlisted", re.IGNORECASE)


@pytest.fixture(scope="module")
def mutants(tmp_path_factory):
    root = tmp_path_factory.mktemp("mutants")
    cache = {}

    def get(mutant_id: str):
        if mutant_id not in cache:
            cache[mutant_id] = load(materialize(BY_ID[mutant_id], root))
        return cache[mutant_id]
    return get


@pytest.mark.parametrize("number, index, mutant_id", CASES, ids=[f"pitfall{n}-{m}" for n, _, m in CASES])
def test_every_claim_of_a_hint_holds_on_its_mutant_and_not_on_the_reference(mutants, number, index, mutant_id):
    example = next(p for p in PITFALLS if p.number == number).examples[index]
    assert example.holds(mutants(mutant_id)), f"pitfall {number}: {example.text!r} is false for {mutant_id}"
    assert not example.holds(reference), f"pitfall {number}: {example.text!r} also holds on the reference"


def test_every_mutant_of_a_pitfall_has_a_claim_checked_against_it():
    for pitfall in PITFALLS:
        checked = {m for example in pitfall.examples for m in example.mutants}
        assert checked == set(pitfall.mutants), (pitfall.label, set(pitfall.mutants) - checked)
    assert sorted(BY_MUTANT) == sorted(m for p in PITFALLS for m in p.mutants)


def test_the_old_pitfall_2_text_is_a_claim_the_check_refuses(mutants):
    """The spec's symptom "the hand example has more than 7 states" was the s03 hint; s03
    has exactly 7 (its subset construction of the hand example happens to be minimal)."""
    old = Example("the hand example has more than 7 states", ("s03",),
                  lambda m: m.regex_to_dfa("(cat|car|dog)s?").n_states > 7)
    assert not old.holds(mutants("s03"))
    assert "more than 7 states" not in hint("s03", "pitfall") and "more than 7" not in pitfall_hint(
        BY_MUTANT["s03"], "full")


def _hint_texts() -> list[str]:
    texts = [text for _name, text, _ids in GROUPS]
    texts += [pitfall_hint(p, level) for p in PITFALLS for level in ("pitfall", "full")]
    return texts


def test_hints_name_only_the_specs_interface():
    dotted = {name for text in _hint_texts() for name in re.findall(r"\b(DFA|TokenIndex|Constraint|SamplingParams)"
                                                                     r"\.(\w+)", text)}
    assert {f"{owner}.{attr}" for owner, attr in dotted} <= SPEC_INTERFACE


def test_hints_say_nothing_of_the_graders_machinery():
    for text in _hint_texts():
        assert not MACHINERY.search(text), text


def test_every_pitfall_names_the_tests_the_spec_says_catch_it():
    from harness.suite.catalogue import BY_NAME

    for pitfall in PITFALLS:
        assert pitfall.tests and all(name in BY_NAME for name in pitfall.tests), pitfall.label
        for mutant in pitfall.mutants:
            assert set(BY_ID[mutant].killers) & set(pitfall.tests), (pitfall.label, mutant)


def test_the_catalogues_messages_name_only_the_specs_interface():
    """What a failed test says (its reason and facts, written in harness/suite) names the
    spec's section 4 interface: no ``Constraint.allowed`` or ``Constraint.complete``, which
    the spec does not have (the lifecycle test once built those names from its dict keys)."""
    from pathlib import Path

    suite = Path(__file__).resolve().parents[2] / "harness" / "suite"
    named = {m for path in suite.glob("*.py")
             for m in re.findall(r"\b((?:DFA|TokenIndex|Constraint|SamplingParams)\.[a-z_]+)", path.read_text())}
    assert named <= SPEC_INTERFACE, named - SPEC_INTERFACE
    lifecycle = (suite / "test_masks.py").read_text()
    assert 'f"Constraint.{key}' not in lifecycle


def test_a_lifecycle_failure_names_constraint_mask_not_an_attribute_the_spec_lacks():
    import importlib.util
    from pathlib import Path

    from harness.suite.explain import CatalogueFailure
    from harness.suite.test_masks import test_constraint_lifecycle

    path = Path(__file__).resolve().parents[1] / "candidates" / "wrong_eos_everywhere.py"
    spec = importlib.util.spec_from_file_location("lifecycle_eos_everywhere", path)
    impl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(impl)
    with pytest.raises(CatalogueFailure) as failure:
        test_constraint_lifecycle(impl)
    assert failure.value.reason == "Constraint.mask() differs from section 3's walk"


def test_a_set_in_a_failure_is_written_in_order_whatever_the_bytecode_cache():
    # a set literal compiled now and the same literal loaded from a .pyc (marshal rebuilds it) can iterate in
    # different orders: the report's text must not depend on which happened
    import marshal

    from harness.suite.explain import render_facts, show

    fresh = eval(compile("{11, 2, 3, 1024, 7}", "<facts>", "eval"))
    cached = eval(marshal.loads(marshal.dumps(compile("frozenset({11, 2, 3, 1024, 7})", "<facts>", "eval"))))
    assert show(fresh) == "{2, 3, 7, 11, 1024}" and show(cached) == "frozenset({2, 3, 7, 11, 1024})"
    assert show({b"b", b"a"}) == "{b'a', b'b'}" and show(set()) == "set()" and show({1, "a"}) == "{'a', 1}"
    assert render_facts({"allowed": {3, 2}}).split()[1] == "{2,"
