"""grade-tests shows a suite behaviour only (issue 48, part 3).

Every answer an implementation gives reaches a student's suite through one normalisation
(``harness.grading.gradetests.normalise``, applied by ``relay.Gate``): the builtin class of
an exception with a message from the contract call alone, the contract's data, objects
under the contract's names and the gate's own numbers. In process: the gate's rules, and
every wheat's and chaff's errors on the contract's refused inputs normalised to the same
words whenever their classes agree. Behind the wall: a suite that hashes everything it
sees (``tests/student_suites/hashes_what_it_sees``) cannot tell a wheat from a chaff that
behaves the same; the control shows it does tell them apart without the normalisation.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from harness.grading.gradetests import normalise
from harness.grading.gradetests.grade import GradeOptions, grade
from harness.grading.gradetests.relay import ROOT as MODULE
from harness.grading.gradetests.relay import Gate, public_names
from harness.mutants.apply import load, materialize
from harness.mutants.catalogue import CATALOGUE, MUTANTS
from harness.sandbox import channel
from harness.sandbox.server import _error
from tests.support.helpers import ROOT, SUITES, WHEATS, confined, left_over

HARNESS_DIGEST_BYTECODE = False  # grading imports harness modules in this process while it runs (conftest.py)


# ------------------------------------------------------------------ the gate's rules, in process


def handed(gate: Gate, request: list, kind: str = "Impl", number: int = 50) -> channel.Handle:
    """The handle the tests get when the implementation answers ``request`` with an object."""
    reply = gate.clean(request, ["ok", channel.Handle(number, kind, ("helper", "step")), None])
    assert reply[0] == "ok", reply
    return reply[1]


def test_objects_are_named_by_the_contract_never_by_the_implementation():
    gate = Gate(public_names())
    function = handed(gate, ["getattr", MODULE, "regex_to_dfa", [], {}], "_lru_cache_wrapper")
    assert (function.kind, function.methods) == ("function", ())
    dfa = handed(gate, ["call", function.id, None, ["ab"], {}], "_FastDFA")
    assert (dfa.kind, dfa.methods) == ("DFA", ("step", "matches"))
    cls = handed(gate, ["getattr", MODULE, "TokenIndex", [], {}], "ABCMeta")
    index = handed(gate, ["call", cls.id, None, [dfa, [b"a"]], {}], "Index")
    assert (cls.kind, index.kind, index.methods) == ("class", "TokenIndex", ("mask", "next_state"))
    constraint = handed(gate, ["call", MODULE, "Constraint", [index], {}], "Cursor")
    assert handed(gate, ["getattr", constraint.id, "index", [], {}]).kind == "TokenIndex"
    assert handed(gate, ["getattr", index.id, "dfa", [], {}]).kind == "DFA"
    assert handed(gate, ["getitem", index.id, None, [0], {}]).kind == "object"
    many = gate.clean(["call", MODULE, "regex_to_dfa", ["a"], {}], ["ok", [channel.Handle(9, "X")], None])[1]
    assert many[0].kind == "object"  # the contract says regex_to_dfa returns a DFA, not a list of them


def test_the_tests_number_objects_themselves_and_see_no_identity():
    gate = Gate(public_names())
    first = handed(gate, ["call", MODULE, "regex_to_dfa", ["ab"], {}], number=7)
    again = handed(gate, ["call", MODULE, "regex_to_dfa", ["ab"], {}], number=7)  # a cache: the same object
    assert first.id != again.id and {first.id, again.id} == {2, 3}  # the gate's own numbers, in the tests' order
    assert gate.inward(["call", again.id, "step", [first, 0], {}]) == ["call", 7, "step", [channel.Handle(7, "DFA"), 0],
                                                                      {}]
    assert gate.answer(["eq", first.id, None, [first], {}]) == ["ok", True, None]
    assert gate.answer(["eq", first.id, None, [again], {}]) == ["ok", False, None]
    assert gate.answer(["eq", first.id, None, [3], {}]) == ["ok", False, None]
    assert gate.answer(["call", first.id, "step", [0, b"a"], {}]) is None


def test_only_the_contracts_attributes_are_served():
    gate = Gate(public_names())
    dfa = handed(gate, ["call", MODULE, "regex_to_dfa", ["ab"], {}])
    for name in ("n_states", "trans", "accept", "step", "matches"):
        assert gate.refusal(["getattr", dfa.id, name, [], {}]) is None
    for name in ("check_canonical", "classes", "helper", "dfa"):
        assert "DFA." + name + " is not part of the contract" in gate.refusal(["getattr", dfa.id, name, [], {}])
    function = handed(gate, ["getattr", MODULE, "regex_to_dfa", [], {}])
    other = handed(gate, ["getitem", dfa.id, None, [0], {}])
    for target in (function.id, other.id):
        assert "not part of the contract" in gate.refusal(["getattr", target, "gi_frame", [], {}])
        assert gate.refusal(["call", target, None, [], {}]) is None


@pytest.mark.parametrize("kinds, shown", [
    (["ValueError", "Exception", "BaseException"], "ValueError"),
    (["UnicodeDecodeError", "UnicodeError", "ValueError", "Exception", "BaseException"], "UnicodeError"),
    (["KeyError", "LookupError", "Exception", "BaseException"], "KeyError"),
    (["RecursionError", "RuntimeError", "Exception", "BaseException"], "RecursionError"),
    (["SystemExit", "BaseException"], "Exception"),
    ([], "Exception"),
    (["NoSuchBuiltin", "TypeError"], "TypeError"),
])
def test_an_exception_is_its_builtin_class(kinds, shown):
    assert normalise.error_class(kinds) == shown
    info = normalise.error("regex_to_dfa", kinds)
    assert info["type"] == shown and info["message"] == f"regex_to_dfa raised {shown}"


def test_errors_are_worded_by_the_call_alone():
    gate = Gate(public_names())
    dfa = handed(gate, ["call", MODULE, "regex_to_dfa", ["ab"], {}])
    secret = {"type": "PatternError", "kinds": ["ValueError", "Exception"], "where": "/x/mutant_s05/parser.py:3",
              "message": "unsupported anchor '^' at offset 0 (oracles.automaton.parser)"}
    cases = [(["call", MODULE, "regex_to_dfa", ["^a"], {}], "regex_to_dfa raised ValueError"),
             (["getattr", MODULE, "bytes_to_unicode", [], {}], "constrain.bytes_to_unicode raised ValueError"),
             (["call", dfa.id, "step", [9, b"a"], {}], "DFA.step raised ValueError"),
             (["getattr", dfa.id, "trans", [], {}], "DFA.trans raised ValueError"),
             (["len", dfa.id, None, [], {}], "len(DFA) raised ValueError"),
             (["getitem", dfa.id, None, [0], {}], "DFA[...] raised ValueError")]
    for request, message in cases:
        reply = gate.clean(request, ["err", secret, {"rng": [{"state": np.int64(3)}]}])
        assert reply == ["err", {"type": "ValueError", "kinds": ["ValueError", "Exception", "BaseException"],
                                 "message": message}, {"rng": [{"state": 3}]}], request


def test_values_are_the_contracts_data():
    gate = Gate(public_names())
    swapped = np.arange(4, dtype=">i4")
    answer = (np.int64(3), np.float32(0.5), np.bool_(True), [swapped, {np.int16(2): np.uint8(1)}], {np.int8(1)})
    got = gate.clean(["call", MODULE, "constrained_sample", [], {}], ["ok", answer, None])[1]
    assert got[:3] == (3, 0.5, True) and [type(v) for v in got[:3]] == [int, float, bool]
    array = got[3][0]
    assert array.dtype == np.dtype("int32") and array.dtype.isnative and array.tolist() == [0, 1, 2, 3]
    assert got[3][1] == {2: 1} and [type(k) for k in got[3][1]] == [int] and got[4] == {1}
    written = gate.clean(["call", MODULE, "apply_mask", [], {}], ["ok", None, {"written": [[0, swapped]]}])[2]
    assert written["written"][0][1].dtype.isnative


# ------------------------------------------------------------------ every implementation's errors, in process


def _module(path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def implementations(tmp_path_factory):
    """The reference, every default wheat and the catalogue's chaffs, imported here (their
    code is ours; the wall is not what this test is about)."""
    import oracles.automaton

    found = {"reference": oracles.automaton}
    for path in sorted(WHEATS.glob("*.py")):
        found[path.stem] = _module(path, f"wheat_{path.stem}")
    root = tmp_path_factory.mktemp("chaffs")
    for mutant in (m for m in MUTANTS if m.kind == CATALOGUE):
        found[mutant.id] = load(materialize(mutant, root))
    return found


REFUSED = [("regex_to_dfa", (p,)) for p in ("^a", "a$", "(a", "a)", "[a", "a{3,2}", "*a", "a*?", "(?=a)b", "(a)\\1",
                                             "\u00e9", "a|(?!)")] + \
          [("json_schema_to_regex", (s,)) for s in ({"type": "string", "pattern": "x"}, {"type": "strin"},
                                                    {"$ref": "#"}, {"type": "object", "additionalProperties": True},
                                                    {"type": "object", "properties": {}, "required": ["b"]})]


@pytest.mark.parametrize("function, args", REFUSED, ids=[f"{f}{a!r}"[:60] for f, a in REFUSED])
def test_implementations_that_refuse_alike_are_told_apart_by_nothing(implementations, function, args):
    """Each implementation's own exception (as its process sends it, ``_error``) through
    the gate: one reply per class raised, however many messages and class names."""
    raw, shown, classes = {}, {}, set()
    for name, module in implementations.items():
        try:
            getattr(module, function)(*args)
            continue  # a chaff that accepts it behaves otherwise (s13 reads anchors as literals)
        except Exception as exc:  # noqa: BLE001 - every refusal is compared
            info = _error(exc)
        raw[name] = (info["type"], info["message"])
        classes.add(normalise.error_class(info["kinds"]))
        shown[name] = repr(Gate(public_names()).clean(["call", MODULE, function, list(args), {}], ["err", info, None]))
    assert "reference" in shown and len(shown) > 20
    assert len(set(shown.values())) == len(classes), shown  # one reply per class raised, whatever the words
    assert len(set(raw.values())) > 1, "the implementations' own words differ (else this test shows nothing)"


# ------------------------------------------------------------------ behind the wall


HASHES = SUITES / "hashes_what_it_sees"
WORDS = SUITES / "tells_by_words"
SAME_BEHAVIOUR_CHAFFS = ("s01", "s02", "s08", "s11")
"""Chaffs whose mistakes (``.`` and ``\\n``, ``[^...]``, ``\\w``, class ranges) none of the
hashing suite's inputs reach: on them they behave as the reference."""


def graded(suite, wheats: tuple[str, ...], chaffs: tuple[str, ...]):
    result = grade(GradeOptions(suite=suite, wheats=wheats, chaffs=chaffs, seed=1))
    assert left_over(result.marker) == [], f"processes of the {suite.name} suite are still running"
    assert result.tampered == []
    return result.grade


@pytest.mark.e2e
@confined
def test_a_suite_hashing_what_it_sees_cannot_tell_same_behaviour_apart(harness_unchanged):
    """brzozowski refuses every input of the suite as the reference does, in its own words
    and classes (the control below); the chaffs are the reference's code. Before the
    normalisation the suite's error digest told brzozowski from the reference (and every
    default wheat from every other): now no test tells any of them apart."""
    g = graded(HASHES, ("reference", str(WHEATS / "brzozowski.py")), SAME_BEHAVIOUR_CHAFFS)
    assert len(g.tests) == 24 and sorted(g.chaff_verdicts.values()) == ["completed"] * 4
    rows = {c: tuple(row[t] for t in g.tests) for c, row in g.matrix.items()}
    for wheat, runs in g.wheat_runs.items():
        rows |= {f"{wheat} run {i}": tuple(run.outcomes[t] for t in g.tests) for i, run in enumerate(runs)}
    assert len(set(rows.values())) == 1, rows  # every implementation: the same outcome for every test
    assert g.caught == {} and g.flaky == {}
    assert 0 < len(g.valid) < 24  # the digests' bits: some 0 (valid), some 1 (invalid on every wheat alike)


@pytest.mark.e2e  # three Python children
def test_the_hashing_suite_tells_implementations_apart_without_the_normalisation(tmp_path):
    """The control: the suite's own digests, computed with the reference, a wheat and a
    chaff imported in one process (no wall, no normalisation), differ."""
    chaff = materialize(next(m for m in MUTANTS if m.id == "s01"), tmp_path)  # a package under tmp_path
    code = ("import importlib, importlib.util, sys, types\n"
            "def load(spec):\n"
            "    if spec.endswith('.py'):\n"
            "        s = importlib.util.spec_from_file_location('w', spec); m = importlib.util.module_from_spec(s)\n"
            "        s.loader.exec_module(m); return m\n"
            "    return importlib.import_module(spec)\n"
            "m = load(sys.argv[1]); sys.modules['tinyllm'] = types.ModuleType('tinyllm')\n"
            "sys.modules['tinyllm.infer'] = types.ModuleType('tinyllm.infer')\n"
            "sys.modules['tinyllm.infer'].constrain = sys.modules['tinyllm.infer.constrain'] = m\n"
            f"sys.path.insert(0, {str(HASHES)!r}); import test_hashes\n"
            "print(test_hashes.digest('errors')[0])\n")
    digests = {}
    for spec in ("oracles.automaton", str(WHEATS / "brzozowski.py"), chaff.name):
        proc = subprocess.run([sys.executable, "-c", code, spec], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"},
                              check=False)
        assert proc.returncode == 0, proc.stderr[-2000:]
        digests[spec] = proc.stdout.split()
    errors = {d[0] for d in digests.values()}
    assert len(errors) == 3, digests  # the reference, brzozowski and s01 word their refusals apart


@pytest.mark.e2e
@confined
def test_a_suite_telling_chaffs_by_the_words_of_an_error_catches_nothing(harness_unchanged):
    """The attack of issue 48: a test passing on the words of the wheats of one reading
    (fair_sre_tablefill reads Python-only syntax with Python's meaning) and failing on the
    reference's was valid under that reading and caught every chaff (27/27 with the
    default wheats before the normalisation). Every implementation now says the same
    words: the test fails on every wheat, so it is invalid and catches nothing."""
    g = graded(WORDS, ("reference", str(WHEATS / "fair_sre_tablefill.py")), ("s01", "s10"))
    assert [i.test for i in g.invalid] == ["test_words.py::test_an_anchor_is_refused_in_their_words"]
    assert "regex_to_dfa raised ValueError" in g.invalid[0].message
    assert g.assumes == {} and g.caught == {} and g.score == 0.0
