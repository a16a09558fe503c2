"""Which catalogue tests execute which lines of the reference: the generated mutants' filter.

A test that never executes a mutated line runs exactly as on the reference (the code it
runs is the same, so are its inputs: the catalogue is seeded), so it cannot kill that
mutant; running each generated mutant only against the tests that execute its lines
(mutmut's and cosmic-ray's coverage filtering) loses no kill and saves most of the runs.

``record(timeout)`` measures it once per reference version: for every catalogue test
(the default tier and the deep properties, under ``--deep --strict``), one catalogue run of
that test alone against a copy of the reference whose ``__init__`` starts ``coverage``
(the well-kept library, ``coverage.Coverage``, in memory) inside the candidate process,
behind the wall as ever; after the test the plugin ``coverage_plugin`` asks the copy for
the lines it executed. One process per test, so each test's lines include everything it
executes from a fresh start (module imports, caches filled): a superset of what it
executes after other tests, so the filter never drops a test that could reach the code.

The map is stored as JSON (``CoverageMap.save``: the digest of the running Python's ``major.minor``,
the reference and what decides the catalogue's inputs, ``reference_digest``; the tests, per test
the lines per file)
next to the run's state and reused while the digest matches
(``load_or_record``); ``--json`` reports name it.

``CoverageMap.tests_for(mutant, deep)``: the tests that execute any line of the statement
holding the mutated node (a multi-line statement counts whole: the line Python reports for
it may be any of them); None (every test) for ``__init__.py`` (it runs before coverage
starts) or a site outside any statement; ``()`` when no test executes it.

**What the map sees** (issue 52): the reference's code runs only in the confined candidate
under the catalogue, and that is where ``PROBE`` measures it, so a statement no test of the
map executes is one no catalogue test reaches in the candidate, not one the map failed to
see (``tests/mutants/test_mutants_coverage.py`` checks the map against an independent line tracer:
every line the compile of any pattern runs is in it). ``uncovered_statements(cmap)`` lists
those statements, and ``python -m harness.mutants.coverage MAP.json`` prints them, file by
file, with their source: for this reference (2026-12-06) they are error paths no catalogue
input takes (a pattern over ``MAX_NESTING`` or ``MAX_PATTERN_LENGTH``, Python 3.10's own
refusals, wrong argument types), Hopcroft's minimization (only a DFA needing more than
``MOORE_ROUNDS`` Moore rounds goes there: a long chain), the ``repr`` helpers (debugging aids
of the reference, outside the contract), and a few defensive lines no input reaches (``nfa.py``'s
"internal: unsupported node type", deleted as dead since, 2026-12-07). The ``dfa`` verb's dump and the
canonical-form check of the project's tests are not the reference's (``harness.commands.dfa_dump``,
``tests/support/helpers.assert_canonical``), so no generated mutant is made of them.

Example::

    >>> cmap = load_or_record(Path("run.coverage.json"), timeout=30.0)
    >>> cmap.tests_for(mutant, deep=False)
    ('test_matches_python_re', 'test_canonical_form')
    >>> uncovered_statements(cmap)["minimize.py"][:3]   # the Moore attempt giving way to Hopcroft
    [100, 110, 112]
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from harness.mutants.apply import REFERENCE_DIR
from harness.mutants.statements import _statement_spans, statement_lines  # noqa: F401 (re-exported)
from harness.suite.catalogue import DEEP_NAMES

FORMAT = "constrain-harness-mutant-coverage"
FORMAT_VERSION = 2   # 2: with the reference's fingerprint and the lines each of its keys executes
DEEP_TESTS = DEEP_NAMES  # the --deep tier's tests, in the order they run
FUNCTION_NAME = "_constrain_harness_executed_lines"
PROBE = f'''
import coverage as _ch_coverage  # constrain-harness: a coverage recording copy, never graded
_ch_cov = _ch_coverage.Coverage(data_file=None, include=[__path__[0] + "/*.py"], config_file=False)
_ch_cov.start()


def {FUNCTION_NAME}():
    import os as _os
    _ch_cov.stop()
    _data = _ch_cov.get_data()
    return {{_os.path.basename(f): sorted(_data.lines(f) or ()) for f in _data.measured_files()}}
'''


INPUT_DIRS = tuple(Path(__file__).resolve().parents[2] / name for name in ("strategies", "facts", "golden"))
"""What decides the catalogue's inputs besides its own folder: the strategies the deep properties
draw from, the spec's facts (the hand example, the constructs) and the golden modules the tests
read. A change there can change what a test executes, so a map recorded before it is stale."""


def python_version() -> str:
    """The running Python's ``major.minor`` (e.g. ``"3.11"``): a key of the map, the evidence and a
    run's state. The reference reads a pattern as this Python's ``re`` does, so the lines a test
    executes and the reference's recorded answers depend on it (``a*+`` is refused on 3.10)."""
    return f"{sys.version_info[0]}.{sys.version_info[1]}"


def reference_digest(reference: Path = REFERENCE_DIR) -> str:
    """SHA-256 of what decides the coverage: the running Python (``python_version``), the
    reference's sources, the catalogue's and those of its inputs (``INPUT_DIRS``)."""
    digest = hashlib.sha256(b"python " + python_version().encode() + b"\0")
    suite = Path(__file__).resolve().parents[1] / "suite"
    for folder in (Path(reference), suite, *INPUT_DIRS):
        for path in sorted(folder.glob("*.py")):
            digest.update(f"{folder.name}/{path.name}".encode() + b"\0" + path.read_bytes() + b"\0")
    corpus = Path(__file__).with_name("equivalence.py")   # the fingerprint's corpus, stored with the map
    digest.update(b"mutants/equivalence.py\0" + corpus.read_bytes() + b"\0")
    return digest.hexdigest()


EVIDENCE_SOURCES = ("harness/mutants/evidence.py", "harness/differential/sweep/enumerate.py", "golden/cases.py",
                    "facts/constructs.py")
"""What decides the evidence domains besides the reference, the catalogue's inputs and the corpus
(``reference_digest``)."""


def evidence_digest() -> str:
    """SHA-256 of what decides the recorded evidence (``CoverageMap.evidence``): the map's digest
    and ``EVIDENCE_SOURCES``."""
    digest = hashlib.sha256(reference_digest().encode())
    top = Path(__file__).resolve().parents[2]
    for name in EVIDENCE_SOURCES:
        digest.update(name.encode() + b"\0" + (top / name).read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class CoverageMap:
    digest: str
    lines: dict[str, dict[str, frozenset[int]]]   # test -> file -> lines it executed
    fingerprint: dict | None = None
    """The reference's fingerprint (``equivalence.record``): ``digest`` (key -> hash), ``lines``
    (key -> file -> lines the key executes from a fresh start), ``import`` (file -> lines run
    when the package is imported). None: not recorded (the fingerprint is then computed whole)."""
    evidence: dict | None = None
    """The reference's evidence and the lines each item executes (``evidence.record_lines``), kept
    while ``evidence_digest`` matches; None: not recorded (each evidence domain computed whole)."""
    cpu: dict | None = None
    """What each test costs on the reference, measured as the map was recorded (``coverage_plugin``):
    ``{"load": the most CPU s a candidate's start and import took, "tests": test -> {"candidate",
    "grader"}: CPU s}``, from which ``harness.mutants.budgets`` makes each test's CPU budget; None:
    not recorded (a map recorded before them: every test has today's budget)."""
    path: str | None = field(default=None, compare=False, repr=False)
    """The file this map was read from or saved to (``load``, ``load_or_record``): its recorded passes
    are kept beside it (``traffic.folder_for``); None: none are."""
    picks: dict = field(default_factory=dict, init=False, compare=False, repr=False)
    """``evidence_for``'s answers per statement, kept with this map: a run's mutants of one
    statement share one ``evidence.Pick``."""

    def tests_for(self, mutant, deep: bool) -> tuple[str, ...] | None:
        """The tests (of the default tier, or of every tier when ``deep``) executing the mutant's statement."""
        from harness.suite.catalogue import NAMES

        wanted = [*NAMES, *DEEP_TESTS] if deep else list(NAMES)
        site = mutant.site
        span = statement_lines(site.file, site.start[0])
        if site.file == "__init__.py" or span is None:
            return None
        return tuple(t for t in wanted if span & self.lines.get(t, {}).get(site.file, frozenset()))

    def keys_for(self, mutant) -> dict[str, str] | None:
        """The part of the reference's fingerprint a mutant can change: key -> the reference's
        hash, for the keys executing the mutated statement (every key when the statement runs
        when the package is imported, or it is in ``__init__.py``, or outside a statement);
        None when no fingerprint was recorded. A key that never executes the mutated statement
        computes the same value on the mutant (the argument of ``tests_for``, ``equivalence.record``)."""
        if self.fingerprint is None:
            return None
        site, reference = mutant.site, self.fingerprint["digest"]
        span = statement_lines(site.file, site.start[0])
        if site.file == "__init__.py" or span is None or span & set(self.fingerprint["import"].get(site.file, ())):
            return dict(reference)
        return {key: reference[key] for key, files in self.fingerprint["lines"].items()
                if span & set(files.get(site.file, ()))}

    def evidence_for(self, mutant):
        """The evidence items a mutant can change (an ``evidence.Pick``: the items executing its
        statement), or None: its module's whole domain (no evidence recorded, a kind not chosen by
        coverage, or a statement every item runs: ``evidence.pick``)."""
        from harness.mutants import evidence

        site = mutant.site
        kind = evidence.kind_for(site.module, site.start[0])
        if self.evidence is None or kind is None:
            return None
        span = statement_lines(site.file, site.start[0])
        key = (kind, site.file, span)
        if key not in self.picks:
            self.picks[key] = evidence.pick(self.evidence, kind, site.file, span)
        return self.picks[key]

    def save(self, path: Path) -> None:
        doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "reference_digest": self.digest,
               "tests": {t: {f: sorted(lines) for f, lines in files.items()} for t, files in self.lines.items()},
               "fingerprint": self.fingerprint}
        if self.cpu is not None:
            doc["cpu"] = self.cpu
        if self.evidence is not None:
            doc.update(evidence=self.evidence, evidence_digest=evidence_digest())
        save_document(path, doc)

    @classmethod
    def load(cls, path: Path) -> CoverageMap | None:
        """The map in ``path``, or None when there is none for this reference (or it is not ours)."""
        doc = load_document(path, (FORMAT, FORMAT_VERSION), "reference_digest", reference_digest)
        if doc is None:
            return None
        recorded = doc.get("evidence") if doc.get("evidence_digest") == evidence_digest() else None
        return cls(doc["reference_digest"], {t: {f: frozenset(lines) for f, lines in files.items()}
                                              for t, files in doc["tests"].items()}, doc.get("fingerprint"), recorded,
                   _cpu_figures(doc.get("cpu")), path=str(path))


def record(timeout: float, jobs: int = 2, progress=None) -> CoverageMap:
    """Measure every catalogue test's lines of the reference (one confined run per test)."""
    from concurrent.futures import ThreadPoolExecutor

    from harness.suite.catalogue import NAMES

    tests = [*NAMES, *DEEP_TESTS]
    root = Path(tempfile.mkdtemp(prefix="constrain-coverage-"))
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            found = dict(zip(tests, pool.map(lambda test: _record_one(test, root, timeout), tests)))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for test, (lines, problem, _) in found.items():
        if problem:
            raise RuntimeError(f"recording the coverage of {test} failed: {problem}")
        if progress:
            progress(test, lines)
    costs = {t: cost for t, (_, _, cost) in found.items()}
    cpu = None if any(cost is None for cost in costs.values()) else \
        {"load": max(cost["load"] for cost in costs.values()),
         "tests": {t: {"candidate": cost["candidate"], "grader": cost["grader"]} for t, cost in costs.items()}}
    return CoverageMap(reference_digest(), {t: lines for t, (lines, _, _) in found.items()},
                       _record_fingerprint(timeout), cpu=cpu)


def _cpu_figures(value) -> dict | None:
    """A stored map's ``cpu`` figures when well formed (``CoverageMap.cpu``), else None (not recorded,
    or not ours: every test then has today's budget)."""
    def seconds(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x < float("inf")
    if not (isinstance(value, dict) and seconds(value.get("load")) and isinstance(value.get("tests"), dict)):
        return None
    tests = value["tests"]
    if not all(isinstance(cost, dict) and seconds(cost.get("candidate")) and seconds(cost.get("grader"))
               for cost in tests.values()):
        return None
    return value


def _record_fingerprint(timeout: float) -> dict:
    """The reference's fingerprint and the lines each key executes (``equivalence.record``, in a child)."""
    return _record_child(["--record"], timeout, "harness.mutants.equivalence")


def _record_child(args: list[str], timeout: float, module: str) -> dict:
    from harness.mutants.runner import NULL_MUTANT, fingerprint_child, materialize

    root = Path(tempfile.mkdtemp(prefix="constrain-coverage-"))
    try:
        found, problem = fingerprint_child(materialize(NULL_MUTANT, root), args, timeout, module)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if found is None:
        raise RuntimeError(f"recording the reference's {module.rsplit('.', 1)[1]} record failed: {problem}")
    return found


def _record_one(test: str, root: Path, timeout: float) -> tuple[dict[str, frozenset[int]], str | None, dict | None]:
    """The lines ``test`` executes in the reference, the problem (None), and its CPU figures
    (``coverage_plugin``: the load's, the candidate's and the grader's CPU s; None if none came back)."""
    from harness.mutants.runner import run_catalogue_against

    copy = root / f"coverage_{test}"
    shutil.copytree(REFERENCE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    init = copy / "__init__.py"
    text = init.read_text(encoding="utf-8")
    marker = "from __future__ import annotations\n"
    init.write_text(text.replace(marker, marker + PROBE, 1), encoding="utf-8")
    out = root / f"{test}.json"
    env = {"CONSTRAIN_HARNESS_COVERAGE_OUT": str(out)}
    outcomes, problem = run_catalogue_against(copy, (test,), test in DEEP_TESTS, timeout, strict=True,
                                              plugins=("harness.mutants.coverage_plugin",), env=env)
    if problem or outcomes.get(test) != "passed":
        return {}, problem or f"the reference did not pass it ({outcomes.get(test)})", None
    try:
        found = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return {}, f"no coverage came back ({exc})", None
    try:
        cost = json.loads(Path(f"{out}.cpu").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        cost = None
    return {f: frozenset(lines) for f, lines in found.items()}, None, cost


def load_or_record(path: Path, timeout: float, jobs: int = 2, progress=None) -> CoverageMap:
    """The map stored at ``path`` for this reference, else a new one, recorded and stored there;
    with its evidence (``with_evidence``)."""
    found = CoverageMap.load(path)
    if found is None:
        found = dataclasses.replace(record(timeout, jobs, progress), path=str(path))
        found.save(path)
    return with_evidence(found, path, timeout)


EVIDENCE_RECORD_CPU_SECONDS = 240.0
"""The evidence record's CPU limit (~26 CPU s on a quiet machine: every item under coverage)."""


def with_evidence(cmap: CoverageMap, path: Path, timeout: float) -> CoverageMap:
    """``cmap`` with the reference's evidence and the lines of each item (``evidence.record_lines``,
    in a child: ~26 CPU s, once per reference version), recorded and stored at ``path`` when it
    lacks them."""
    if cmap.evidence is not None:
        return cmap
    recorded = _record_child(["--record"], max(timeout, EVIDENCE_RECORD_CPU_SECONDS), "harness.mutants.evidence")
    found = dataclasses.replace(cmap, evidence=recorded)
    found.save(path)
    return found


def default_path(state_path) -> Path:
    """Where the coverage map is kept: beside ``--state`` (``run.jsonl.py3.11.coverage.json``), else in
    the user's cache, per reference digest; both named by the running Python (``python_version``), so
    the runs of one plan on two Pythons beside each other keep a map each."""
    name = f"constrain-harness-coverage-py{python_version()}-{reference_digest()[:12]}.json"
    if state_path is not None:
        return Path(state_path).with_name(f"{Path(state_path).name}.py{python_version()}.coverage.json")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "constrain-harness"
    cache.mkdir(parents=True, exist_ok=True)
    return cache / name


def uncovered_statements(cmap: CoverageMap, reference: Path = REFERENCE_DIR) -> dict[str, list[int]]:
    """file -> the first lines of the reference's statements no test of ``cmap`` (any tier)
    executes (a compound statement: its header; docstrings are not statements here), for
    every module but ``__init__.py`` (it runs before coverage starts: ``tests_for``)."""
    found: dict[str, list[int]] = {}
    for path in sorted(Path(reference).glob("*.py")):
        if path.name == "__init__.py":
            continue
        executed = frozenset().union(*(files.get(path.name, frozenset()) for files in cmap.lines.values()))
        docstrings = _docstring_lines(path)
        lines = sorted({start for start, end in _statement_spans(path.name, Path(reference))
                        if start not in docstrings and not executed & set(range(start, end + 1))})
        found[path.name] = lines   # a statement inside an unexecuted block is listed too
    return found


def _docstring_lines(path: Path) -> frozenset[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(node.lineno for node in ast.walk(tree)
                     if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                     and isinstance(node.value.value, str))


def main(argv: list[str]) -> int:
    """``python -m harness.mutants.coverage MAP.json``: the statements no catalogue test executes."""
    if len(argv) != 1:
        print("usage: python -m harness.mutants.coverage MAP.json   (a recorded coverage map)", file=sys.stderr)
        return 2
    cmap = CoverageMap.load(Path(argv[0]))
    if cmap is None:
        print(f"{argv[0]}: no coverage map of this reference (recorded for another version, or not one)",
              file=sys.stderr)
        return 2
    for file, lines in uncovered_statements(cmap).items():
        text = (REFERENCE_DIR / file).read_text(encoding="utf-8").splitlines()
        print(f"{file}: {len(lines)} statement(s) no catalogue test executes")
        for line in lines:
            print(f"  {file}:{line}: {text[line - 1].strip()}")
    return 0


def save_document(path: Path, doc: dict) -> None:
    """Write ``doc`` as JSON to ``path`` whole or not at all (a ``.partial`` file, then renamed): a
    run stopped mid-write leaves the old map or none, never a torn one."""
    partial = Path(path).with_name(Path(path).name + ".partial")
    partial.write_text(json.dumps(doc, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(partial, path)


def load_document(path: Path, format_: tuple[str, int], digest_key: str, digest) -> dict | None:
    """The JSON document in ``path`` when it is of ``format_`` (name, version) and its ``digest_key``
    holds ``digest()`` (called only once the file is read: hashing the sources costs); else None (no
    file, not JSON, another format, or another reference's)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or (doc.get("format"), doc.get("format_version")) != format_ \
            or doc.get(digest_key) != digest():
        return None
    return doc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

