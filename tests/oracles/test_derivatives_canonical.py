"""The derivative oracle's canonical tables, witnesses, findings kept as regressions, its
front end on every Python the machine has, and its independence from the reference (the
second half of ``tests/oracles/test_derivatives.py``, whose bank and helpers it shares).

What answers each question (never the reference's own output): the spec's section 3 by
hand, equivalent-pattern pairs, a breadth-first re-walk of the tables, Python's ``re``
for witnesses, and (differential) ``regex_to_dfa``.
"""
from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracles import derivatives as D
from oracles.derivatives import (
    DEAD,
    EmptyLanguage,
    LimitExceeded,
    canonical_dfa,
    is_empty,
    mask,
    matches,
    parse,
    viable,
)
from tests.oracles.test_derivatives import BANK, REFUSED, short_strings

# --- canonical tables -----------------------------------------------------------------

EQUIVALENT = [
    ("a|b", "[ab]"), ("(cat|car|dog)s?", "(ca[rt]|dog)(s|)"), ("(a|b)*", "(a*b*)*"),
    ("a{2,3}", "aaa?"), ("x+", "xx*"), (r"\d", "[0-9]"), ("(ab)*a", "a(ba)*"),
    (r"[^\n]", "."), (r"\w", "[A-Za-z0-9_]"), ("(a?){2,3}", "a{0,3}"), ("a{,}", "a*"),
    (r"[\x00-\xff]", r"[\s\S]"), ("(a|b|)+", "[ab]*"),
]


@pytest.mark.property
@pytest.mark.parametrize("left,right", EQUIVALENT)
def test_canonical_form(left, right):
    lt, la = canonical_dfa(left)
    rt, ra = canonical_dfa(right)
    assert np.array_equal(lt, rt) and np.array_equal(la, ra)


def bfs_order(trans: np.ndarray) -> list[int]:
    order, seen = [0], {0}
    for s in order:
        for t in trans[s].tolist():
            if t != DEAD and t not in seen:
                seen.add(t)
                order.append(t)
    return order


def equivalent_pairs(trans: np.ndarray, accept: np.ndarray) -> list[tuple[int, int]]:
    """Pairs of states with the same future, by table filling (Myhill-Nerode; not
    Moore's refinement): mark pairs that differ in accepting, then pairs with a byte
    leading to a marked pair or to exactly one DEAD, until nothing changes."""
    n = accept.shape[0]
    rows = trans.tolist()
    marked = {(p, q) for p in range(n) for q in range(p + 1, n) if accept[p] != accept[q]}
    changed = True
    while changed:
        changed = False
        for p in range(n):
            for q in range(p + 1, n):
                if (p, q) in marked:
                    continue
                for a, b in zip(rows[p], rows[q]):
                    if a == b:
                        continue
                    if a == DEAD or b == DEAD or (min(a, b), max(a, b)) in marked:
                        marked.add((p, q))
                        changed = True
                        break
    return [(p, q) for p in range(n) for q in range(p + 1, n) if (p, q) not in marked]


def walk(trans, accept, data: bytes) -> bool:
    state = 0
    for b in data:
        state = int(trans[state, b])
        if state == DEAD:
            return False
    return bool(accept[state])


@pytest.mark.property
@pytest.mark.parametrize("pattern", [p for p in BANK if not is_empty(p)])
def test_canonical_dfa_is_canonical_and_means_the_pattern(pattern):
    trans, accept = canonical_dfa(pattern)
    n = accept.shape[0]
    assert trans.shape == (n, 256) and trans.dtype == np.int32 and not trans.flags.writeable
    assert bfs_order(trans) == list(range(n)), "numbered breadth first, bytes ascending"
    # every state live: an accepting state is reachable (forward search from each)
    for s in range(n):
        reach, stack = {s}, [s]
        while stack:
            for t in set(trans[stack.pop()].tolist()) - {DEAD} - reach:
                reach.add(t)
                stack.append(t)
        assert any(accept[t] for t in reach), f"state {s} is dead"
    assert not equivalent_pairs(trans, accept), "minimal: no two states share a future"
    compiled = re.compile(pattern.encode("ascii"))
    for s in short_strings(pattern, length=2):
        assert walk(trans, accept, s) == (compiled.fullmatch(s) is not None), s


@pytest.mark.unit
def test_all_accepting_states_still_split():
    """Regression (found while speeding up Moore rounds): when every state accepts,
    the first partition has one block, not two. By hand: a{0,3} is a chain of 4
    accepting states; a*|b is 0 -a-> 1 (loops on a), 0 -b-> 2, all accepting."""
    trans, accept = canonical_dfa("(?:a?){2,3}")
    assert accept.tolist() == [True] * 4
    assert [np.flatnonzero(row != DEAD).tolist() for row in trans] == [[97]] * 3 + [[]]
    assert [int(trans[s, 97]) for s in range(3)] == [1, 2, 3]
    trans, accept = canonical_dfa("a*|b")
    assert accept.tolist() == [True] * 3
    assert (int(trans[0, 97]), int(trans[0, 98]), int(trans[1, 97])) == (1, 2, 1)
    assert (trans != DEAD).sum() == 3


@pytest.mark.unit
def test_minimizer_drops_a_dead_sink_and_merges_equal_futures():
    """The spec's pitfall 4 on a hand-made automaton of a(b|c): every byte that
    leaves the language goes to a non-accepting sink state 4 that loops forever, and
    the states after ab (2) and ac (3) have the same future. Expected by hand:
    0 -a-> 1 -b,c-> 2, accepting {2}, the sink gone (DEAD)."""
    sink = 4
    rows = [[sink] * 256 for _ in range(5)]
    rows[0][ord("a")] = 1
    rows[1][ord("b")], rows[1][ord("c")] = 2, 3
    trans, accept = D.canonical_from_rows(rows, [False, False, True, True, False])
    expected = np.full((3, 256), DEAD)
    expected[0, ord("a")] = 1
    expected[1, ord("b")] = expected[1, ord("c")] = 2
    assert trans.tolist() == expected.tolist() and accept.tolist() == [False, False, True]
    with pytest.raises(EmptyLanguage):
        D.canonical_from_rows([[1] * 256, [1] * 256], [False, False])


@pytest.mark.golden
@pytest.mark.parametrize("pattern", [p for p in BANK if not is_empty(p)] + [left for left, _ in EQUIVALENT])
def test_canonical_dfa_equals_the_reference(pattern):
    """Differential: two independent constructions of the minimal DFA agree."""
    from oracles.automaton import regex_to_dfa
    trans, accept = canonical_dfa(pattern)
    ref = regex_to_dfa(pattern)
    assert np.array_equal(trans, ref.trans) and np.array_equal(accept, ref.accept)


@pytest.mark.golden
def test_tool_schema_tables_equal_the_reference():
    from facts.tools import FORECAST_PARAMETERS as TOOL_SCHEMA
    from oracles.automaton import json_schema_to_regex, regex_to_dfa
    pattern = json_schema_to_regex(TOOL_SCHEMA)
    trans, accept = canonical_dfa(pattern)
    ref = regex_to_dfa(pattern)
    assert np.array_equal(trans, ref.trans) and np.array_equal(accept, ref.accept)


# --- witnesses: shortlex-least members and differences, checked with re ---------------


@pytest.mark.property
@pytest.mark.parametrize("pattern", BANK)
def test_witness_is_the_shortlex_least_member(pattern):
    compiled = re.compile(pattern.encode("ascii"))
    w = D.witness(pattern)
    if w is None:
        assert is_empty(pattern)
        return
    assert compiled.fullmatch(w)
    smaller = [s for s in short_strings(pattern) if (len(s), s) < (len(w), w)]
    if len(w) <= 2:  # every shorter-or-smaller string of all 256 bytes
        smaller = [bytes(s) for n in range(len(w) + 1) for s in itertools.product(range(256), repeat=n)
                   if (n, bytes(s)) < (len(w), w)]
    assert not [s for s in smaller if compiled.fullmatch(s)], pattern


NOT_EQUIVALENT = [
    ("a{2,3}", "a{2,4}"), ("x+", "x*"), (".", r"[\x00-\xff]"), (r"\w", "[a-z]"), ("(ab)*", "(ab)+a?"),
    ("(cat|car|dog)s?", "(cat|car|dog)s"), ("a|b|", "a|b"), (r"[^\n]*", ".+"), ("abc", "ab"),
]


@pytest.mark.property
@pytest.mark.parametrize("left,right", EQUIVALENT + NOT_EQUIVALENT)
def test_difference_is_the_shortlex_least_disagreement(left, right):
    lc, rc = (re.compile(p.encode("ascii")) for p in (left, right))
    d = D.difference(left, right)
    strings = short_strings(left + right)
    if d is None:
        assert (left, right) in EQUIVALENT
        assert all((lc.fullmatch(s) is None) == (rc.fullmatch(s) is None) for s in strings)
        return
    assert (left, right) in NOT_EQUIVALENT
    assert (lc.fullmatch(d) is None) != (rc.fullmatch(d) is None), d
    smaller = [s for s in strings if (len(s), s) < (len(d), d)]
    assert all((lc.fullmatch(s) is None) == (rc.fullmatch(s) is None) for s in smaller), d


# --- findings: disagreements between the oracles, kept as regressions -----------------


@pytest.mark.boundary
def test_deeply_nested_groups_are_a_bound_not_a_crash():
    """1000 nested groups exceed Python's own parser: a ValueError, never a
    RecursionError; 300 are answered."""
    with pytest.raises(LimitExceeded):
        parse("(?:a" * 1000 + ")?" * 1000)
    assert matches("(?:a" * 300 + ")?" * 300, b"a" * 300)


@pytest.mark.boundary
def test_reference_on_300_nested_groups_is_a_value_error_or_an_answer():
    """Finding (fixed in the reference: parser.MAX_NESTING, compile.RECURSION_ROOM):
    ``(?:a(?:a...)?)?`` 300 deep. The derivative oracle answers (301 states, by
    hand: 0 to 300 a's); the reference crashed with RecursionError."""
    from oracles.automaton import regex_to_dfa
    pattern = "(?:a" * 300 + ")?" * 300
    assert canonical_dfa(pattern)[0].shape == (301, 256)
    try:
        dfa = regex_to_dfa(pattern)
    except ValueError:
        return
    assert dfa.n_states == 301


@pytest.mark.golden
def test_masks_along_the_benchmark_path_equal_the_reference_token_index():
    """Differential on the 123-token golden vocabulary: derivative masks at every
    prefix of the benchmark's 60-byte tool-schema document equal TokenIndex's."""
    from facts.tools import FORECAST_PARAMETERS as TOOL_SCHEMA
    from harness.bench.derivatives import PATH, vocabulary
    from oracles.automaton import TokenIndex, json_schema_to_regex, regex_to_dfa
    vocab, eos_id = vocabulary()
    pattern = json_schema_to_regex(TOOL_SCHEMA)
    dfa = regex_to_dfa(pattern)
    index = TokenIndex(dfa, vocab, eos_id)
    for i in range(len(PATH) + 1):
        got = mask(pattern, vocab, eos_id, PATH[:i])
        assert got.tolist() == index.mask(dfa.step(0, PATH[:i])).tolist(), PATH[:i]


def _golden_cases():
    from golden import cases
    return cases.CONSTRAIN_PATTERNS + cases.CONSTRAIN_SCHEMAS + cases.MASKS_CASES


@pytest.mark.golden
@pytest.mark.parametrize("case", _golden_cases(), ids=lambda c: c.name)
def test_golden_cases_tables_equal_the_reference(case):
    """Differential on the golden files' own patterns and schemas: the tables the
    Rust port is held to are the same from derivatives and from automata."""
    from oracles.automaton import json_schema_to_regex, regex_to_dfa
    pattern = case.source if case.kind == "pattern" else json_schema_to_regex(case.schema)
    trans, accept = canonical_dfa(pattern)
    ref = regex_to_dfa(pattern)
    assert np.array_equal(trans, ref.trans) and np.array_equal(accept, ref.accept)


def _golden_refusals():
    from golden import cases
    return [p for p, _ in cases.REFUSED_PATTERNS]


@pytest.mark.boundary
@pytest.mark.parametrize("pattern", _golden_refusals())
def test_golden_refused_patterns_are_refused(pattern):
    """Every pattern the golden file says the subset refuses, the oracle refuses."""
    with pytest.raises(ValueError):
        canonical_dfa(pattern)


# --- the front end on every Python the machine has (sre moved in 3.11) ----------------

_OTHER_PYTHON_CHECK = r'''
import re, sys, types, itertools, json
sys.modules.setdefault("numpy", types.ModuleType("numpy"))  # parse/matches need no numpy
sys.path.insert(0, sys.argv[1])
from oracles import derivatives as D
bank, refused = json.loads(sys.argv[2])
alpha = [0, 10, 32, 46, 48, 95, 97, 98, 99, 120, 123, 255, 34, 92]
bad = []
for p in bank:
    c = re.compile(p.encode())
    for n in range(4):
        for s in map(bytes, itertools.product(alpha, repeat=n)):
            if D.matches(p, s) != (c.fullmatch(s) is not None):
                bad.append([p, s.hex()])
for p in refused:
    try:
        D.parse(p)
        bad.append([p, "accepted"])
    except ValueError:
        pass
print(json.dumps(bad))
'''


def _other_pythons() -> list[str]:
    import glob
    import os
    import shutil
    found = {shutil.which(f"python3.{minor}") for minor in range(10, 15)}
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found |= set(glob.glob(os.path.join(root, "versions", "3.1[0-9]*", "bin", "python")))
    return sorted(p for p in found if p and _runs(p))


def _runs(python: str) -> bool:
    """A shim that names a version pyenv has not installed does not count."""
    import subprocess
    try:
        return subprocess.run([python, "-c", "import sys; assert sys.version_info >= (3, 10)"],
                              capture_output=True, timeout=60).returncode == 0
    except OSError:
        return False


@pytest.mark.e2e
@pytest.mark.slow
def test_front_end_means_the_same_on_every_python():
    """sre moved from ``sre_parse`` (3.10) to ``re._parser`` (3.11+): the bank means
    what each interpreter's own ``re`` says, and the refusals hold, on every
    Python 3.10+ found on PATH or under pyenv (parse and matches only)."""
    import json
    import os
    import subprocess
    pythons = _other_pythons()
    if not pythons:
        pytest.skip("no other Python 3.10+ interpreter found (PATH, pyenv)")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = json.dumps([BANK, [p for p, *_ in REFUSED]])
    for python in pythons:
        out = subprocess.run([python, "-c", _OTHER_PYTHON_CHECK, root, args],
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, (python, out.stderr[-2000:])
        assert json.loads(out.stdout) == [], python


@pytest.mark.unit
@pytest.mark.parametrize("pattern", [r"(?:(?:[\r]||){4,}){4,}", "(?:(?:(?:){4,}){4,}){4,}", "(?:(?:||){4}){3,}"])
def test_nested_nullable_repeats_are_answered_without_backtracking(pattern):
    """Finding (Hypothesis, pattern_trees): Python's re backtracks exponentially on
    b"x" here (10 s and 4 minutes for the first two; documented in oracles/stdlib.py),
    so this regression does not ask re. By hand: the languages are \\r* and {""}."""
    carriage = "\\r" in pattern
    assert not matches(pattern, b"x") and matches(pattern, b"")
    assert matches(pattern, b"\r" * 7) is carriage and viable(pattern, b"\r") is carriage
    assert canonical_dfa(pattern)[0].shape == (1, 256)


# --- independence: the oracle imports nothing from the reference ----------------------


@pytest.mark.e2e
@pytest.mark.unit
def test_the_oracle_imports_nothing_from_the_reference():
    """No module of the package names the reference, and using every phase in a fresh
    process loads no ``oracles.automaton`` module."""
    package = Path(D.__file__).parent
    sources = sorted(package.glob("*.py"))
    assert {p.stem for p in sources} >= {"errors", "bounds", "terms", "frontend", "derive", "emptiness",
                                         "witnesses", "dfa", "api"}
    for source in sources:
        imports = re.findall(r"^\s*(?:from|import)\s+(\S+)", source.read_text(encoding="utf-8"), re.MULTILINE)
        assert not [name for name in imports if "automaton" in name or name.startswith("..")], source
    probe = ("import sys; from oracles import derivatives as D; D.canonical_dfa('(cat|car|dog)s?'); "
             "D.mask('a+', [b'a', None], 1); D.witness('ab|b'); D.difference('a', 'a?'); "
             "print(sorted(m for m in sys.modules if m.startswith('oracles.automaton')))")
    root = str(package.parent.parent)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": root}, cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
