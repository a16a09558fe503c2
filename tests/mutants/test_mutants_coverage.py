"""The coverage map of the generated mutants sees the confined candidate's process.

Under ``check`` the reference's code runs in the candidate process behind the wall, never in
the grader's; ``harness.mutants.coverage`` records, per catalogue test, the lines of the
reference that process executes. The oracle here is an independent line tracer
(``sys.settrace``) in this process, on the real reference: the lines every pattern's
compile runs must be in the map of any test that compiles a pattern, and a generated
mutant on such a line must be covered (some test is run against it).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import oracles.automaton as reference
from harness.mutants import coverage, generation
from harness.mutants.apply import REFERENCE_DIR

PATTERNS = ("a", "(ab|c)*d", "[0-9]+x?", r"h\x65llo{2,3}")   # different shapes: every one takes the common path


def _traced_lines(thunk) -> dict[str, set[int]]:
    """file name -> lines of the reference ``thunk`` executes in this process (a plain tracer)."""
    folder = str(REFERENCE_DIR.resolve())
    found: dict[str, set[int]] = {}

    def local(frame, event, arg):
        if event == "line":
            found.setdefault(Path(frame.f_code.co_filename).name, set()).add(frame.f_lineno)
        return local

    def call(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(folder) else None

    sys.settrace(call)
    try:
        thunk()
    finally:
        sys.settrace(None)
    return found


def _lines_every_pattern_runs() -> dict[str, set[int]]:
    every: dict[str, set[int]] | None = None
    for pattern in PATTERNS:   # regex_to_dfa caches nothing: every call runs its whole path
        lines = _traced_lines(lambda p=pattern: reference.regex_to_dfa(p))
        every = lines if every is None else {f: every[f] & lines.get(f, set()) for f in every}
    return {f: lines for f, lines in every.items() if lines}


@pytest.fixture(scope="module")
def hand_example_recording(tmp_path_factory) -> tuple[dict[str, frozenset[int]], dict | None]:
    """The lines ``test_hand_example`` executes in its confined candidate (one catalogue run), and its CPU figures.
    Without the oracle memo: a warm grader's first catalogue run would first fork its recording run
    (the whole default tier, ~4 CPU s, most of this fixture's), a grader's cache that neither the
    candidate's lines nor the coverage plugin's CPU figures read."""
    from tests.support.helpers import without_oracle_memo

    with pytest.MonkeyPatch.context() as patch:
        without_oracle_memo(patch)
        lines, problem, cost = coverage._record_one("test_hand_example", tmp_path_factory.mktemp("cov"), timeout=60.0)
    assert problem is None, problem
    return lines, cost


@pytest.fixture(scope="module")
def hand_example_lines(hand_example_recording) -> dict[str, frozenset[int]]:
    return hand_example_recording[0]


@pytest.mark.e2e  # hand_example_recording runs a candidate
def test_the_recording_measures_the_tests_cpu_on_the_reference(hand_example_recording):
    """What ``harness.mutants.budgets`` calibrates each test's budget from: the candidate's load, its
    CPU in the test (the hand example compiles patterns: more than nothing) and the grader's."""
    cost = hand_example_recording[1]
    assert cost is not None and set(cost) == {"load", "candidate", "grader"}
    assert cost["load"] > 0 and cost["candidate"] > 0 and cost["grader"] > 0


@pytest.mark.e2e  # hand_example_lines runs a candidate
def test_the_map_holds_every_line_a_pattern_s_compile_runs_in_the_candidate(hand_example_lines):
    every = _lines_every_pattern_runs()
    assert {"parser.py", "ast.py", "minimize.py", "nfa.py", "determinize.py"} <= set(every)
    for file, lines in every.items():
        missing = sorted(lines - hand_example_lines.get(file, frozenset()))
        assert not missing, f"{file}: lines every pattern runs, absent from the map: {missing[:20]}"


@pytest.mark.e2e  # hand_example_lines runs a candidate
def test_a_mutant_on_a_parser_line_every_pattern_runs_is_covered(hand_example_lines):
    parser_lines = _lines_every_pattern_runs()["parser.py"]
    cmap = coverage.CoverageMap("digest", {"test_hand_example": {f: lines for f, lines in hand_example_lines.items()}})
    sites = [s for s in generation.enumerate_sites(modules=["parser"])
             if (coverage.statement_lines(s.file, s.start[0]) or frozenset()) & parser_lines]
    assert len(sites) >= 20   # the parser's main path holds many sites
    uncovered = [s for s in sites if not cmap.tests_for(SimpleNamespace(site=s), deep=False)]
    assert not uncovered, f"not covered, yet every pattern runs their line: {uncovered[:5]}"


@pytest.mark.e2e  # hand_example_lines runs a candidate
def test_the_map_holds_the_candidate_s_lines_only(hand_example_lines):
    """The recording copy's files only (never the grader's own reference), and a method no
    catalogue test calls (``DFA.__repr__``: a debugging aid of the reference) is absent."""
    names = {p.name for p in REFERENCE_DIR.glob("*.py")}
    assert set(hand_example_lines) <= names
    assert "dfa.py" in hand_example_lines
    assert not hand_example_lines["dfa.py"] & _body_lines("dfa.py", "DFA", "__repr__")


def _body_lines(file: str, cls: str, method: str) -> set[int]:
    """The lines of the body of ``cls.method`` in ``file``."""
    import ast

    tree = ast.parse((REFERENCE_DIR / file).read_text(encoding="utf-8"))
    klass = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    function = next(n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == method)
    return {line for node in function.body for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}


def test_the_uncovered_statements_are_those_no_test_executes(capsys, tmp_path):
    """A map whose one test executes every line of ``parser.py`` but two statements' (and no
    line of the other modules): those two are listed for parser.py, every statement elsewhere."""
    text = (REFERENCE_DIR / "parser.py").read_text(encoding="utf-8").splitlines()
    parse_def = next(i for i, line in enumerate(text, 1) if line.startswith("def parse("))
    first, second = parse_def + 2, parse_def + 4   # `if not isinstance(...)`, `if len(pattern) > ...`
    assert text[first - 1].strip().startswith("if not isinstance") and text[second - 1].strip().startswith("if len")
    executed = frozenset(range(1, len(text) + 1)) - coverage.statement_lines("parser.py", first) \
        - coverage.statement_lines("parser.py", second)
    cmap = coverage.CoverageMap(coverage.reference_digest(), {"test_hand_example": {"parser.py": executed}})
    found = coverage.uncovered_statements(cmap)
    assert found["parser.py"] == [first, second]
    assert "__init__.py" not in found
    assert found["nfa.py"] and all(coverage.statement_lines("nfa.py", line) for line in found["nfa.py"])
    cmap.save(tmp_path / "map.json")
    assert coverage.main([str(tmp_path / "map.json")]) == 0
    shown = capsys.readouterr().out
    assert f"parser.py:{first}: if not isinstance(pattern, str):" in shown
    assert "parser.py: 2 statement(s) no catalogue test executes" in shown
    assert coverage.main([str(tmp_path / "nothing.json")]) == 2


def test_python_m_coverage_hands_its_command_line_to_main(tmp_path):
    # `python -m harness.mutants.coverage MAP.json` as a user types it: main gets the command
    # line's arguments (the map's path), and without one says its usage (exit 2)
    import subprocess

    cmap = coverage.CoverageMap(coverage.reference_digest(), {"test_hand_example": {"parser.py": frozenset()}})
    cmap.save(tmp_path / "map.json")
    root = Path(__file__).resolve().parents[2]
    listed = subprocess.run([sys.executable, "-m", "harness.mutants.coverage", str(tmp_path / "map.json")],
                            capture_output=True, text=True, cwd=root, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "parser.py: " in listed.stdout and "statement(s) no catalogue test executes" in listed.stdout
    bare = subprocess.run([sys.executable, "-m", "harness.mutants.coverage"], capture_output=True, text=True,
                          cwd=root, timeout=120)
    assert bare.returncode == 2 and bare.stderr.startswith("usage: python -m harness.mutants.coverage MAP.json")
