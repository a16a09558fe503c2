"""Infection analysis (``harness.mutants.infection``): the runtime's comparison rules, the
instrumented copy computing the reference's answers, planted mutants whose infection is decided
by hand, the predicted mutation checked against cosmic-ray's own text, and the map's data checks.
The verdicts with and without the map: ``test_mutants_infection_verdicts.py``."""

from __future__ import annotations

import math
import random
import shutil
import sys
import time

import numpy as np
import pytest

from harness.mutants import equivalence, generation, infection
from harness.mutants import infection_runtime as rt
from harness.mutants.apply import REFERENCE_DIR, load
from tests.mutants import reference_answers


@pytest.fixture
def runtime():
    """The runtime with a clean record and a private site table."""
    saved = dict(rt.SITES)
    rt.SITES.clear()
    rt.reset()
    yield rt
    rt.SITES.clear()
    rt.SITES.update(saved)
    rt.reset()


def test_a_comparison_infects_only_where_the_mutants_value_differs(runtime):
    # x < 3, mutants x <= 3 and x < 4: x = 5 and x = 1 give the same value, x = 3 differs for both
    runtime.SITES[0] = ("compare", "Lt", (("m.LtE", ("op", "LtE")), ("m.N", ("right", 4))))
    assert [runtime.compare(0, x, 3) for x in (5, 1, 7)] == [False, True, False]
    assert runtime.INFECTED == set()
    assert runtime.compare(0, 3, 3) is False
    assert runtime.INFECTED == {"m.LtE", "m.N"}


def test_values_compare_by_class_bits_and_aliasing(runtime):
    runtime.SITES[1] = ("unary", "USub", (("m.Del", ("delete",)),))
    assert runtime.unary(1, 0) == 0 and runtime.INFECTED == set()        # -0 is 0
    assert math.copysign(1, runtime.unary(1, 0.0)) == -1.0
    assert runtime.INFECTED == {"m.Del"}                                # -0.0 is not 0.0
    runtime.reset()
    zeros = np.zeros(3, dtype=np.int64)
    assert runtime.unary(1, zeros).tolist() == [0, 0, 0]
    assert runtime.INFECTED == {"m.Del"}                                # the same bytes, but the caller's own array
    runtime.SITES[2] = ("binop", "Add", (("m.Sub", ("op", "Sub")), ("m.Or", ("op", "BitOr"))))
    runtime.reset()
    runtime.binop(2, np.array([0, 2]), np.array([0, 0]))
    assert runtime.INFECTED == set()                                    # + - | all [0, 2], int64, fresh
    runtime.binop(2, True, False)
    assert runtime.INFECTED == {"m.Or"}                                 # True | False is a bool, True + False an int


def test_a_dear_raising_warning_or_opaque_mutant_value_counts_as_infecting(runtime):
    runtime.SITES[3] = ("binop", "Mult", (("m.Pow", ("op", "Pow")),))
    start = time.process_time()
    assert runtime.binop(3, 10, 10**7) == 10**8
    assert runtime.INFECTED == {"m.Pow"} and time.process_time() - start < 1.0   # 10 ** 10**7 not computed
    runtime.SITES[4] = ("binop", "Mult", (("m.Div", ("op", "Div")),))
    runtime.reset()
    runtime.binop(4, 0, 0)
    assert runtime.INFECTED == {"m.Div"}                                # 0 / 0 raises
    runtime.SITES[5] = ("binop", "Sub", (("m.Div", ("op", "Div")),))
    runtime.reset()
    runtime.binop(5, np.float64(0.0), np.float64(0.0))
    assert runtime.INFECTED == {"m.Div"}                                # numpy's 0.0 / 0.0 warns

    class Opaque:
        def __eq__(self, other):
            return True
        __hash__ = object.__hash__
    runtime.SITES[6] = ("compare", "Eq", (("m.NotEq", ("op", "NotEq")), ("m.Is", ("op", "Is"))))
    runtime.reset()
    runtime.compare(6, Opaque(), 1)
    assert runtime.INFECTED == {"m.NotEq", "m.Is"}                      # not plain: never computed; ``is`` differs
    runtime.SITES[7] = ("binop", "Add", (("m.Sub", ("op", "Sub")),))
    runtime.reset()
    with pytest.raises(TypeError):
        runtime.binop(7, "a", 1)                                        # the original raises: the program's error
    assert runtime.INFECTED == {"m.Sub"}


def _site_ids(file: str, text: str) -> dict[str, str]:
    """The instrumented mutants of the line of ``file`` holding ``text``: id -> what it changes."""
    line = next(i for i, row in enumerate((REFERENCE_DIR / file).read_text(encoding="utf-8").splitlines(), 1)
                if text in row)
    return {m.id: m.spec for e in infection.sites() if e.file == file and e.where[0] == line for m in e.mutants}


@pytest.fixture(scope="module")
def instrumented(tmp_path_factory):
    """The instrumented copy, loaded in this process, and its runtime."""
    package = infection.instrument(tmp_path_factory.mktemp("infection") / "infection_reference")
    module = load(package)
    yield module, sys.modules[f"{module.__name__}.{infection.RUNTIME_MODULE}"]
    shutil.rmtree(package, ignore_errors=True)


def test_a_planted_mutant_infects_exactly_where_the_hand_says(instrumented):
    module, runtime = instrumented
    # sampling.py: ``if self.top_k < 0: raise``; its mutants ``<= 0``, ``< 1`` and ``< -1``
    ids = _site_ids("sampling.py", "if self.top_k < 0:")
    by_change = {spec: mid for mid, spec in ids.items()}
    le, one, minus = by_change[("op", "LtE")], by_change[("right", 1)], by_change[("right", -1)]
    runtime.reset()
    module.SamplingParams(top_k=5)          # 5 < 0, 5 <= 0, 5 < 1, 5 < -1: all False
    assert not runtime.INFECTED & {le, one, minus}
    assert {le, one, minus} <= {mid for key in runtime.REACHED for mid, _ in runtime.SITES[key][2]}
    module.SamplingParams(top_k=0)          # 0 <= 0 and 0 < 1 are True where 0 < 0 is not; 0 < -1 is False
    assert {le, one} <= runtime.INFECTED and minus not in runtime.INFECTED


def test_the_instrumented_copy_computes_the_references_answers(instrumented):
    module, runtime = instrumented
    # the oracle: oracles.automaton's own fingerprint (once a process: reference_answers; a plain copy's
    # equals it: test_mutants_generated.test_the_fingerprint_of_a_clean_copy_equals_the_reference)
    reference = reference_answers.digest()
    runtime.reset()
    assert equivalence.digest(equivalence.fingerprint(module)) == reference   # the corpus's 309 keys
    assert runtime.REACHED   # the sites ran


def test_a_mutant_is_analysed_only_when_its_text_is_the_predicted_mutation():
    top_k = _site_ids("sampling.py", "if self.top_k < 0:")
    # ``2 + copies * item``: ``*`` made ``|`` reparses as ``(2 + copies) | item``,
    # not the predicted ``2 + (copies | item)``
    swapped = [mid for mid in _site_ids("nfa.py", "2 + copies * item") if "_Mul_BitOr." in mid]
    sites = generation.enumerate_sites(modules=["sampling", "nfa"], operators=list(infection.FAMILIES))
    sample = [s for s in sites if s.id in {*top_k, *swapped}] + random.Random(5).sample(sites, 30)
    built = {site.id: generation.build(site)[0] for site in sample}
    assert top_k and all(infection.matches(built[mid]) for mid in top_k)
    assert swapped and not any(infection.matches(built[mid]) for mid in swapped)
    # a seeded sample: every analysed mutant predicted exactly, or refused (never read as another mutation)
    analysed = [m for m in built.values() if m is not None and infection.predicted(m.id) is not None]
    assert sum(infection.matches(m) for m in analysed) > 0.8 * len(analysed)


def test_the_candidates_record_is_checked_as_data():
    mid = next(iter(infection.by_id()))
    assert infection._checked({"infected": [mid], "reached": [mid]}, "t") == (frozenset({mid}), frozenset({mid}))
    for bad in ({"infected": ["nfa.NoSuchOperator.0"], "reached": []}, {"infected": [1], "reached": []},
                {"infected": []}, ["x"]):
        with pytest.raises(ValueError, match="t: "):
            infection._checked(bad, "t")


def test_a_stored_map_is_reused_only_for_the_same_digest(tmp_path, monkeypatch):
    imap = infection.InfectionMap(infection.digest(), {"test_hand_example": frozenset({"a"})},
                                  {"test_hand_example": frozenset({"a", "b"})}, {"size": 1, "infected": {}},
                                  {"compile": {"size": 2, "infected": {"a": 1}}})
    path = tmp_path / "map.infection.json"
    imap.save(path)
    assert infection.InfectionMap.load(path) == imap
    monkeypatch.setattr(infection, "digest", lambda: "another reference")
    assert infection.InfectionMap.load(path) is None
