"""Loading a candidate and checking it against the contract (harness/sandbox/candidate.py)."""

from __future__ import annotations

import shutil
import sys
import textwrap
import types
from pathlib import Path

import pytest

from harness.sandbox.candidate import (
    REF_DEPS,
    CandidateError,
    ContractError,
    check_contract,
    load_candidate,
    read_contract,
    require_contract,
    signature_notes,
    spec_problem,
)

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"
WHEATS = ROOT / "harness" / "grading" / "gradetests" / "wheats"  # grade-tests' wheats (package data)


def test_the_contract_is_read_without_importing_it():
    contract = read_contract()
    assert contract.constants == ["DEAD"]
    assert set(contract.functions) >= {"regex_to_dfa", "json_schema_to_regex", "apply_mask", "vocab_bytes",
                                       "constrained_sample", "sample", "bytes_to_unicode", "unicode_to_bytes"}
    assert set(contract.classes) == {"DFA", "TokenIndex", "Constraint", "SamplingParams"}
    assert set(contract.classes["TokenIndex"]) == {"__init__", "mask", "next_state"}
    init = contract.classes["TokenIndex"]["__init__"]
    assert [(p.name, p.has_default) for p in init.params] == [("dfa", False), ("vocab", False), ("eos_id", True)]


def test_a_stub_is_parsed_once_as_it_is_on_disk_and_again_once_it_changes(tmp_path, monkeypatch):
    from harness.sandbox import candidate

    stub = tmp_path / "contract.pyi"
    stub.write_text("DEAD: int\ndef f(x): ...\n")
    parsed = []
    monkeypatch.setattr(candidate, "_parse_contract", lambda path: parsed.append(path) or _parse(path))
    first = read_contract(stub)
    assert read_contract(stub) is first and parsed == [stub]   # the zygote's read serves every fork
    stub.write_text("DEAD: int\ndef f(x): ...\ndef g(y): ...\n")
    assert set(read_contract(stub).functions) == {"f", "g"} and parsed == [stub, stub]


_parse = __import__("harness.sandbox.candidate", fromlist=["_parse_contract"])._parse_contract


def test_the_reference_loads_by_default_and_meets_the_contract():
    module = load_candidate(None)
    assert module.__name__ == "oracles.automaton"
    assert check_contract(module) == []


def test_a_py_file_loads_under_a_private_name():
    module = load_candidate(str(WHEATS / "brzozowski.py"))
    assert module.__name__.startswith("cand_brzozowski_")
    assert check_contract(module) == []
    assert module.regex_to_dfa("a|b").n_states == 2


def test_a_package_directory_loads_with_relative_imports(tmp_path):
    copy = tmp_path / "constrain_copy"
    shutil.copytree(ROOT / "oracles" / "automaton", copy, ignore=shutil.ignore_patterns("__pycache__"))
    module = load_candidate(str(copy))
    assert module.__file__.startswith(str(copy))
    assert module.regex_to_dfa("(cat|car|dog)s?").n_states == 7
    assert sys.modules[module.regex_to_dfa.__module__].__file__.startswith(str(copy))


def test_a_module_name_loads(tmp_path, monkeypatch):
    (tmp_path / "student_constrain.py").write_text("from oracles.automaton import *\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_candidate("student_constrain").__name__ == "student_constrain"


@pytest.mark.parametrize("spec", ["no_such_module_xyz", "missing/file.py", "tests/candidates/README.md"])
def test_a_spec_naming_nothing_is_a_clear_error(spec):
    with pytest.raises(CandidateError, match="candidate"):
        load_candidate(spec)


def test_a_directory_without_init_is_not_a_package(tmp_path):
    with pytest.raises(CandidateError, match="no __init__.py"):
        load_candidate(str(tmp_path))


def test_a_wrong_type_is_a_type_error():
    with pytest.raises(TypeError):
        load_candidate(3)


def test_the_contract_check_names_every_problem():
    module = load_candidate(str(CANDIDATES / "wrong_missing_names.py"))
    problems = check_contract(module)
    assert any(p.startswith("TokenIndex.next_state: missing") for p in problems), problems
    assert any(p.startswith("constrained_sample: missing") for p in problems), problems
    assert len(problems) == 2, problems  # a signature is never a problem, only a note
    notes = signature_notes(module)
    assert [n.split(":")[0] for n in notes] == ["regex_to_dfa"] and "requires arguments" in notes[0], notes
    with pytest.raises(ContractError, match="TokenIndex.next_state"):
        require_contract(module)


def test_ref_deps_fill_only_what_is_missing():
    spec = str(CANDIDATES / "needs_ref_deps.py")
    bare = load_candidate(spec)
    assert {p.split(":")[0] for p in check_contract(bare)} == set(REF_DEPS)
    filled = load_candidate(spec, ref_deps=True)
    assert check_contract(filled) == []
    assert set(filled.__constrain_ref_deps__) == set(REF_DEPS)
    reference = load_candidate(None, ref_deps=True)  # has its own: nothing replaced
    assert reference.__constrain_ref_deps__ == ()


def _module(source: str) -> types.ModuleType:
    module = types.ModuleType("fake")
    exec(textwrap.dedent(source), module.__dict__)
    return module


FULL = """
    DEAD = -1
    class DFA:
        def step(self, state, data): ...
        def matches(self, data): ...
    def regex_to_dfa(pattern): ...
    def json_schema_to_regex(schema): ...
    class TokenIndex:
        def __init__(self, dfa, vocab, eos_id=None): ...
        def mask(self, state): ...
        def next_state(self, state, token_id): ...
    class Constraint:
        def __init__(self, index, state=0): ...
        def mask(self): ...
        def advance(self, token_id): ...
        def is_complete(self): ...
    class SamplingParams:
        def __init__(self, temperature=1.0, top_k=0, top_p=1.0, repetition_penalty=1.0): ...
    def sample(logits, p, history, rng, prompt=()): ...
    def apply_mask(logits, mask): ...
    def vocab_bytes(tok, special_ids=None): ...
    def bytes_to_unicode(): ...
    def unicode_to_bytes(): ...
    def constrained_sample(logits, c, p, history, rng, prompt=()): ...
"""


def test_a_minimal_stub_meets_the_contract():
    assert check_contract(_module(FULL)) == []


@pytest.mark.parametrize("old, new, expected", [
    ("def regex_to_dfa(pattern): ...", "regex_to_dfa = 3", "regex_to_dfa: expected a callable"),
    ("class TokenIndex:", "def TokenIndex(): ...\nclass _Unused:", "TokenIndex: expected a class"),
    ("DEAD = -1", "DEAD = 'dead'", "DEAD: expected an int"),
    ("def next_state(self, state, token_id): ...", "", "TokenIndex.next_state: missing"),
])
def test_unusable_names_are_problems(old, new, expected):
    source = textwrap.dedent(FULL).replace(old, new)
    assert source != textwrap.dedent(FULL)
    problems = check_contract(_module(source))
    assert any(p.startswith(expected) for p in problems), problems


@pytest.mark.parametrize("old, new, expected", [
    ("def apply_mask(logits, mask): ...", "def apply_mask(logits): ...",
     "apply_mask: takes fewer positional arguments than the spec passes"),
    ("def sample(logits, p, history, rng, prompt=()): ...", "def sample(logits, p, history, rng, prompt): ...",
     "sample: requires arguments the spec's call does not pass"),
    ("def regex_to_dfa(pattern): ...", "def regex_to_dfa(pattern, *, flags): ...",
     "regex_to_dfa: requires arguments"),
])
def test_signatures_the_specs_call_cannot_use_are_notes_not_problems(old, new, expected):
    module = _module(textwrap.dedent(FULL).replace(old, new))
    assert check_contract(module) == []
    assert any(n.startswith(expected) for n in signature_notes(module)), signature_notes(module)


@pytest.mark.parametrize("old, new", [
    ("def apply_mask(logits, mask): ...", "def apply_mask(*args, **kwargs): ..."),
    ("def regex_to_dfa(pattern): ...", "def regex_to_dfa(pattern, *, max_states=10000): ..."),
    ("def sample(logits, p, history, rng, prompt=()): ...",
     "def sample(logits, p, history=(), rng=None, prompt=(), **extra): ..."),
    # what the spec allows (issue 12): other parameter names, no optional parameters
    ("def regex_to_dfa(pattern): ...", "def regex_to_dfa(regex): ..."),
    ("def vocab_bytes(tok, special_ids=None): ...", "def vocab_bytes(tokenizer): ..."),
    ("def __init__(self, index, state=0): ...", "def __init__(self, token_index): ..."),
    ("def next_state(self, state, token_id): ...", "def next_state(self, s, t): ..."),
])
def test_compatible_variations_are_accepted(old, new):
    module = _module(textwrap.dedent(FULL).replace(old, new))
    assert check_contract(module) == [] and signature_notes(module) == []


@pytest.mark.parametrize("spec, words", [
    (None, None), ("oracles.automaton", None), ("harness/grading/gradetests/wheats/brzozowski.py", None),
    ("missing/file.py", "no such .py file"), ("not a module!", "not a module name"),
])
def test_spec_problems_are_found_without_importing(spec, words):
    problem = spec_problem(spec)
    assert (problem is None) if words is None else (words in problem), problem
