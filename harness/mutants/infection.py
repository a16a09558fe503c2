"""Infection analysis (weak mutation): which generated mutants ever compute a different value.

In the RIP model a test kills a mutant only if it **r**eaches the mutated code, the mutated code
**i**nfects the state (computes another value than the original) and the infection
**p**ropagates to an output. Coverage (``coverage``) answers the first question per statement;
this answers the second per expression, for the operator families whose mutation changes one
value and nothing else (``FAMILIES``):

- ``ReplaceBinaryOperator`` on a ``BinOp`` (``a + b`` -> ``a - b``);
- ``ReplaceComparisonOperator`` on a two-operand ``Compare`` (``a < b`` -> ``a <= b``);
- ``ReplaceUnaryOperator`` on a ``UnaryOp`` (``-x`` -> ``+x``, ``not x`` -> ``x``);
- ``NumberReplacer`` on a number that is an operand of a ``BinOp`` or a two-operand ``Compare``
  (``x < 3`` -> ``x < 4``: the comparison is the site, so ``x`` = 5 does not infect).

``instrument(dest)`` writes a copy of the reference where every such site is a call into
``_ch_infection`` (``infection_runtime``): the site's operands are evaluated once, in the
original order, the original value is what the program continues with, and each mutant's value
is computed from the same operands and compared (class and value, numpy arrays by dtype, shape,
strides and bytes; a value that raises, warns, is too dear to compute, or comes from operands
that are not plain data counts as differing: ``infection_runtime``'s conservative rules). So the
instrumented copy computes the reference's answers (tested), and a mutant never recorded as
infecting computes, at every evaluation of its site, the value the reference computes: its run
is the reference's run, step for step, so its outputs are the reference's.

``record(timeout)`` runs the instrumented copy once per catalogue test (default tier and deep
tier, under ``--strict``, one fresh process per test, behind the wall: the runtime runs in the
confined candidate, and ``infection_plugin`` asks it at the session's end, as the coverage map's
plugin does), then, in a child, once per corpus key (``equivalence.entries``) and per evidence
item (``evidence.items``; ``compile``, ``sampling`` and ``schema`` item by item from a fresh start,
the package's caches cleared, as ``evidence.record_lines`` does; ``constraint`` and ``vocab``
whole, in order, as a mutant's check computes them). What comes back from the candidate is data
the grader checks (``_checked``: known ids only). The map is stored beside the coverage map
(``default_path``), keyed by ``digest()`` (the evidence's digest, ``coverage.evidence_digest``,
and this analysis's own sources).

``InfectionMap.clean(mutant)`` (``runner.plan``): None unless the mutant is one of the sites
here and its text is the mutation ``predicted`` here (its AST equals the reference's with the
predicted node in place: so the runtime computed exactly that mutant's value); else which tests,
corpus keys and evidence items it infects.

Example::

    >>> imap = load_or_record(Path("run.jsonl.py3.11.infection.json"), timeout=30.0)
    >>> imap.clean(mutant)   # a comparison no test or item ever evaluates at a tie
    Infection(tests=(), deep_tests=(), keys=0, items=0, ...)
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import math
import shutil
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from harness.mutants.apply import REFERENCE_DIR

FORMAT = "constrain-harness-mutant-infection"
FORMAT_VERSION = 2   # 2: per corpus and evidence kind, each mutant's count of infected keys or items
FAMILIES = ("ReplaceBinaryOperator", "ReplaceComparisonOperator", "ReplaceUnaryOperator", "NumberReplacer")
RUNTIME_MODULE = "_ch_infection"   # the runtime's name inside the instrumented copy
REPORT_FUNCTION = "_constrain_harness_infections"
WHOLE_KINDS = ("constraint", "vocab")
"""Evidence kinds recorded whole, in order (their items share state: ``evidence.SELECTABLE``)."""
RECORD_CPU_SECONDS = 900.0
"""The domains child's CPU limit (corpus and every evidence item, instrumented)."""
TEST_SLOWDOWN = 4.0
"""A test of the instrumented copy may take this many times the run's CPU limit."""

AST_NAMES = {"Mul": "Mult"}
"""cosmic-ray's operator names that are not ``ast``'s (``ReplaceBinaryOperator_Add_Mul``: ``ast.Mult``)."""


def _ast_name(name: str) -> str:
    return AST_NAMES.get(name, name)


@dataclasses.dataclass(frozen=True)
class Mutation:
    """One mutant of a site: its id and what it changes (``infection_runtime.SITES``' spec), with
    ``text``: a number operand's new literal as cosmic-ray writes it (``predicted``)."""

    id: str
    spec: tuple
    text: str = ""


@dataclasses.dataclass(frozen=True)
class SiteEntry:
    """An instrumented expression: ``kind`` (binop, compare, unary), its original operator (ast
    name), where it is (lineno, col_offset, end_lineno, end_col_offset of the ast node) and its
    mutants."""

    key: int
    file: str
    kind: str
    op: str
    where: tuple[int, int, int, int]
    mutants: tuple[Mutation, ...]


def _op_name(node) -> str:
    return type(node).__name__


def _pos(node) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _end(node) -> tuple[int, int]:
    return node.end_lineno, node.end_col_offset


def _where(node) -> tuple[int, int, int, int]:
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


@lru_cache(maxsize=1)
def sites(reference: Path = REFERENCE_DIR) -> tuple[SiteEntry, ...]:
    """Every instrumented expression of the reference with its mutants (ids as ``generation``
    numbers them), in file and position order."""
    from harness.mutants.generation import enumerate_sites, reference_modules

    found: list[SiteEntry] = []
    for module in reference_modules(Path(reference)):
        file = f"{module}.py"
        text = (Path(reference) / file).read_text(encoding="utf-8")
        grouped: dict[tuple, list[Mutation]] = {}
        nodes: dict[tuple, ast.AST] = {}
        for node, mutation in _locate(text, enumerate_sites(modules=[module], operators=list(FAMILIES),
                                                            reference=Path(reference))):
            grouped.setdefault(_where(node), []).append(mutation)
            nodes[_where(node)] = node
        for where in sorted(grouped):
            node = nodes[where]
            kind = {"BinOp": "binop", "Compare": "compare", "UnaryOp": "unary"}[type(node).__name__]
            op = _op_name(node.ops[0] if kind == "compare" else node.op)
            found.append(SiteEntry(len(found), file, kind, op, where, tuple(grouped[where])))
    return tuple(found)


def _locate(text: str, file_sites) -> list[tuple[ast.AST, Mutation]]:
    """(the ast node instrumented, the mutation) for each site it can place (others: left out)."""
    tree = ast.parse(text)
    lines = text.splitlines()
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    in_annotation = _annotation_nodes(tree)
    binops = [n for n in ast.walk(tree) if isinstance(n, ast.BinOp) and n not in in_annotation]
    compares = [n for n in ast.walk(tree) if isinstance(n, ast.Compare) and len(n.ops) == 1]
    unaries = {_pos(n): n for n in ast.walk(tree) if isinstance(n, ast.UnaryOp)}
    numbers = {_pos(n): n for n in ast.walk(tree) if isinstance(n, ast.Constant)
               and type(n.value) in (int, float, complex)}
    offsets: dict[tuple, int] = {}
    found = []
    for site in file_sites:
        line, col = site.start
        pos = (line, len(lines[line - 1][:col].encode("utf-8")))
        family, name = site.family, site.operator.split("/", 1)[1]
        placed = None
        if family == "ReplaceBinaryOperator":
            node = _between(binops, pos, lambda n: (n.left, n.right))
            parts = [_ast_name(p) for p in name.split("_")]
            if node is not None and _op_name(node.op) == parts[1]:
                placed = node, Mutation(site.id, ("op", parts[2]))
        elif family == "ReplaceComparisonOperator":
            node = _between(compares, pos, lambda n: (n.left, n.comparators[0]))
            parts = name.split("_")
            if node is not None and _op_name(node.ops[0]) == parts[1]:
                placed = node, Mutation(site.id, ("op", parts[2]))
        elif family == "ReplaceUnaryOperator":
            node = unaries.get(pos)
            parts = name.split("_")
            if node is not None and parts[1] == "Delete" and _op_name(node.op) == parts[2]:
                placed = node, Mutation(site.id, ("delete",))
            elif node is not None and _op_name(node.op) == parts[1]:
                placed = node, Mutation(site.id, ("op", parts[2]))
        elif family == "NumberReplacer":
            number = numbers.get(pos)
            index = offsets.get(pos, 0)
            offsets[pos] = index + 1
            placed = _number_site(number, parents.get(number), index, site.id) if number is not None else None
        if placed is not None:
            found.append(placed)
    return found


def _annotation_nodes(tree) -> set:
    """Every node inside an annotation (never evaluated: ``from __future__ import annotations``)."""
    roots = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
    return {n for root in roots for n in ast.walk(root)}


def _between(candidates, pos, operands):
    """The node whose operator token at ``pos`` lies between its two operands, or None."""
    for node in candidates:
        left, right = operands(node)
        if _end(left) <= pos < _pos(right):
            return node
    return None


NUMBER_OFFSETS = (+1, -1)   # cosmic-ray's NumberReplacer: the first occurrence of a number adds 1, the second 1 less


def _number_site(number, parent, index: int, mutant_id: str):
    if index >= len(NUMBER_OFFSETS):
        return None
    value = number.value + NUMBER_OFFSETS[index]
    text = str(value)
    if not math.isfinite(abs(value)):
        return None   # no literal writes it back (``SITES``' repr)
    if isinstance(parent, ast.BinOp) and number in (parent.left, parent.right):
        return parent, Mutation(mutant_id, ("left" if number is parent.left else "right", value), text)
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1 and number in (parent.left, parent.comparators[0]):
        return parent, Mutation(mutant_id, ("left" if number is parent.left else "right", value), text)
    return None


def by_id(reference: Path = REFERENCE_DIR) -> dict[str, tuple[SiteEntry, Mutation]]:
    return {m.id: (entry, m) for entry in sites(reference) for m in entry.mutants}


# --- the instrumented copy -----------------------------------------------------------------------

class _Instrument(ast.NodeTransformer):
    def __init__(self, entries: dict[tuple, SiteEntry], skip: set):
        self.entries, self.skip = entries, skip

    def generic_visit(self, node):
        if node in self.skip:
            return node
        node = super().generic_visit(node)
        entry = self.entries.get(_where(node)) if isinstance(node, (ast.BinOp, ast.Compare, ast.UnaryOp)) else None
        if entry is None or entry.kind != {"BinOp": "binop", "Compare": "compare", "UnaryOp": "unary"}[
                type(node).__name__]:
            return node
        if entry.kind == "binop":
            args = [node.left, node.right]
        elif entry.kind == "compare":
            args = [node.left, node.comparators[0]]
        else:
            args = [node.operand]
        call = ast.Call(ast.Attribute(ast.Name("_ch_i", ast.Load()), entry.kind, ast.Load()),
                        [ast.Constant(entry.key), *args], [])
        return ast.copy_location(call, node)


def instrument(dest: Path, reference: Path = REFERENCE_DIR) -> Path:
    """Write an instrumented copy of the reference at ``dest`` (a new folder): every site of
    ``sites`` a call into the runtime, the runtime as ``_ch_infection.py`` holding the sites'
    table, and ``__init__`` answering ``_constrain_harness_infections()``."""
    dest = Path(dest)
    shutil.copytree(reference, dest, ignore=shutil.ignore_patterns("__pycache__"))
    entries = sites(Path(reference))
    for file in sorted({e.file for e in entries}):
        text = (Path(reference) / file).read_text(encoding="utf-8")
        tree = ast.parse(text)
        here = {e.where: e for e in entries if e.file == file}
        tree = _Instrument(here, _annotation_nodes(tree)).visit(tree)
        _import_runtime(tree)
        (dest / file).write_text(ast.unparse(ast.fix_missing_locations(tree)) + "\n", encoding="utf-8")
    table = {e.key: (e.kind, e.op, tuple((m.id, m.spec) for m in e.mutants)) for e in entries}
    runtime = Path(__file__).with_name("infection_runtime.py").read_text(encoding="utf-8")
    (dest / f"{RUNTIME_MODULE}.py").write_text(runtime + f"\nSITES.update({table!r})\n", encoding="utf-8")
    init = dest / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + f"\n\ndef {REPORT_FUNCTION}():\n"
                    f"    from . import {RUNTIME_MODULE}\n    return {RUNTIME_MODULE}.report()\n", encoding="utf-8")
    return dest


def _import_runtime(tree: ast.Module) -> None:
    """``from . import _ch_infection as _ch_i`` after the docstring and ``__future__`` imports."""
    at = 0
    for i, node in enumerate(tree.body):
        docstring = i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if docstring or (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            at = i + 1
    tree.body.insert(at, ast.ImportFrom(None, [ast.alias(RUNTIME_MODULE, "_ch_i")], 1))


# --- the prediction, checked against the mutant's own text ---------------------------------------

def predicted(mutant_id: str, reference: Path = REFERENCE_DIR) -> str | None:
    """``ast.dump`` of the reference with the mutation of ``mutant_id`` as this analysis reads it
    (None: not one of its sites). A mutant is analysed only when its own text dumps the same."""
    found = by_id(Path(reference)).get(mutant_id)
    if found is None:
        return None
    entry, mutation = found
    tree = ast.parse((Path(reference) / entry.file).read_text(encoding="utf-8"))
    node = next(n for n in ast.walk(tree) if isinstance(n, (ast.BinOp, ast.Compare, ast.UnaryOp))
                and _where(n) == entry.where)
    tag = mutation.spec[0]
    if tag == "delete":
        replacement = node.operand
    elif tag == "op":
        new = getattr(ast, mutation.spec[1])()
        replacement = node
        if entry.kind == "compare":
            node.ops = [new]
        else:
            node.op = new
    else:
        literal = ast.parse(mutation.text, mode="eval").body
        replacement = node
        if entry.kind == "compare":
            if tag == "left":
                node.left = literal
            else:
                node.comparators = [literal]
        elif tag == "left":
            node.left = literal
        else:
            node.right = literal
    if replacement is not node:
        for parent in ast.walk(tree):
            for field, value in ast.iter_fields(parent):
                if value is node:
                    setattr(parent, field, replacement)
                elif isinstance(value, list) and any(v is node for v in value):
                    setattr(parent, field, [replacement if v is node else v for v in value])
    return ast.dump(tree)


def matches(mutant, reference: Path = REFERENCE_DIR) -> bool:
    """True if and only if the generated ``mutant``'s text is the mutation this analysis
    instruments (its AST equals ``predicted``'s)."""
    expected = predicted(mutant.id, reference)
    return expected is not None and ast.dump(ast.parse(mutant.source)) == expected


# --- recording -----------------------------------------------------------------------------------

def digest() -> str:
    """What decides the map: the coverage map's evidence digest (the reference, the catalogue, its
    inputs, the corpus, the evidence domains, the running Python) and this analysis's sources."""
    from harness.mutants.coverage import evidence_digest

    found = hashlib.sha256(evidence_digest().encode())
    here = Path(__file__).resolve().parent
    for name in ("infection.py", "infection_runtime.py", "infection_plugin.py", "generation.py", "operators.py"):
        found.update(name.encode() + b"\0" + (here / name).read_bytes() + b"\0")
    return found.hexdigest()


@dataclasses.dataclass(frozen=True)
class Infection:
    """A mutant's infections: the catalogue tests (default tier, deep tier) in which its value ever
    differed, and the corpus keys and evidence items (of its module's kind) where it did."""

    tests: tuple[str, ...]
    deep_tests: tuple[str, ...]
    keys: int
    items: int
    kind: str | None

    @property
    def none(self) -> bool:
        return not (self.tests or self.deep_tests or self.keys or self.items)


@dataclasses.dataclass
class InfectionMap:
    digest: str
    tests: dict[str, frozenset[str]]          # test -> the mutant ids infected in it
    reached: dict[str, frozenset[str]]        # test -> the mutant ids whose site it evaluated
    corpus: dict                              # {"size": keys, "infected": {mutant id: keys infected}}
    evidence: dict                            # kind -> {"size": items (1: recorded whole), "infected": {id: items}}
    verified: dict = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def clean(self, mutant) -> Infection | None:
        """The mutant's ``Infection``, or None when this analysis does not apply to it (not one of its
        sites, or its text is not the predicted mutation: ``matches``)."""
        from harness.mutants import evidence
        from harness.suite.catalogue import DEEP_NAMES, NAMES

        if mutant.id not in self.verified:
            self.verified[mutant.id] = matches(mutant)
        if not self.verified[mutant.id]:
            return None
        mid = mutant.id
        kind = evidence.kind_for(mutant.site.module, mutant.site.start[0])
        return Infection(tuple(t for t in NAMES if mid in self.tests.get(t, ())),
                         tuple(t for t in DEEP_NAMES if mid in self.tests.get(t, ())),
                         self.corpus["infected"].get(mid, 0),
                         self.evidence[kind]["infected"].get(mid, 0) if kind in self.evidence else 0, kind)

    def reached_count(self, mutant_id: str) -> int:
        """How many catalogue tests evaluate the mutant's site."""
        return sum(mutant_id in ids for ids in self.reached.values())

    def sizes(self, kind: str | None) -> tuple[int, int, int]:
        """(catalogue tests, corpus keys, evidence items of ``kind``) recorded."""
        items = self.evidence[kind]["size"] if kind in self.evidence else 0
        return len(self.tests), self.corpus["size"], items

    def save(self, path: Path) -> None:
        doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "digest": self.digest,
               "tests": _listed(self.tests), "reached": _listed(self.reached), "corpus": self.corpus,
               "evidence": self.evidence}
        from harness.mutants.coverage import save_document

        save_document(path, doc)

    @classmethod
    def load(cls, path: Path) -> InfectionMap | None:
        """The map in ``path``, or None when there is none for this reference (or it is not ours)."""
        from harness.mutants.coverage import load_document

        doc = load_document(path, (FORMAT, FORMAT_VERSION), "digest", digest)
        if doc is None:
            return None
        sets = lambda d: {k: frozenset(v) for k, v in d.items()}   # noqa: E731
        return cls(doc["digest"], sets(doc["tests"]), sets(doc["reached"]), doc["corpus"], doc["evidence"])


def _listed(found: dict) -> dict:
    return {k: sorted(v) for k, v in found.items()}


def default_path(coverage_path: Path) -> Path:
    """Beside the coverage map: ``MAP.json`` -> ``MAP.json.infection.json``."""
    return Path(coverage_path).with_name(Path(coverage_path).name + ".infection.json")


def load_or_record(path: Path, timeout: float, jobs: int = 2, progress=None) -> InfectionMap:
    found = InfectionMap.load(path)
    if found is None:
        found = record(timeout, jobs, progress)
        found.save(path)
    return found


def record(timeout: float, jobs: int = 2, progress=None) -> InfectionMap:
    """Run the instrumented copy under every catalogue test (one confined run each, ``jobs`` at a
    time), then over the corpus and every evidence item (a child): the ``InfectionMap``."""
    from concurrent.futures import ThreadPoolExecutor

    from harness.suite.catalogue import DEEP_NAMES, NAMES

    tests = [*NAMES, *DEEP_NAMES]
    root = Path(tempfile.mkdtemp(prefix="constrain-infection-"))
    try:
        package = instrument(root / "infection_reference")
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            found = dict(zip(tests, pool.map(lambda test: _record_test(package, test, root, timeout), tests)))
        domains = _record_domains(package, timeout)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for test, (_, _, problem) in found.items():
        if problem:
            raise RuntimeError(f"recording the infections of {test} failed: {problem}")
        if progress:
            progress(test)
    return InfectionMap(digest(), {t: infected for t, (infected, _, _) in found.items()},
                        {t: reached for t, (_, reached, _) in found.items()}, domains["corpus"], domains["evidence"])


def _record_test(package: Path, test: str, root: Path, timeout: float):
    from harness.mutants.runner import run_catalogue_against
    from harness.suite.catalogue import DEEP_NAMES

    out = root / f"{test}.json"
    outcomes, problem = run_catalogue_against(package, (test,), test in DEEP_NAMES, timeout * TEST_SLOWDOWN,
                                              strict=True, plugins=("harness.mutants.infection_plugin",),
                                              env={"CONSTRAIN_HARNESS_INFECTION_OUT": str(out)})
    if problem or outcomes.get(test) != "passed":
        return frozenset(), frozenset(), problem or f"the instrumented reference did not pass it ({outcomes.get(test)})"
    try:
        doc = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return frozenset(), frozenset(), f"no infections came back ({exc})"
    try:
        infected, reached = _checked(doc, f"the candidate's answer for {test}")
    except ValueError as exc:
        return frozenset(), frozenset(), str(exc)
    return infected, reached, None


def _checked(doc, where: str) -> tuple[frozenset[str], frozenset[str]]:
    """The candidate's ``{"infected": [...], "reached": [...]}``, checked: lists of known mutant ids
    (a restarted candidate's partial record is refused: ``infection_plugin``)."""
    known = by_id()
    if not isinstance(doc, dict) or set(doc) != {"infected", "reached"}:
        raise ValueError(f"{where}: not an infection record ({str(doc)[:120]})")
    found = []
    for field in ("infected", "reached"):
        ids = doc[field]
        if not isinstance(ids, list) or not all(isinstance(i, str) and i in known for i in ids):
            raise ValueError(f"{where}: {field} must be a list of the instrumented mutants' ids")
        found.append(frozenset(ids))
    return found[0], found[1]


def _record_domains(package: Path, timeout: float) -> dict:
    from harness.mutants.runner import fingerprint_child

    found, problem = fingerprint_child(package, ["--domains"], max(timeout, RECORD_CPU_SECONDS),
                                       "harness.mutants.infection")
    if found is None:
        raise RuntimeError(f"recording the infections over the corpus and the evidence failed: {problem}")
    return found


def record_domains(package_dir: Path) -> dict:
    """In this process: the instrumented package over every corpus key and evidence item, each
    from a fresh start (caches cleared, the runtime's record emptied), but the kinds recorded
    whole (``WHOLE_KINDS``): ``{"corpus": COUNTS, "evidence": {kind: COUNTS}}``, where COUNTS is
    ``{"size": keys or items (1 for a kind recorded whole), "infected": {mutant id: how many of them
    it infected}}``."""
    import importlib

    from harness.mutants import equivalence, evidence
    from harness.mutants.apply import load

    module = load(Path(package_dir))
    for path in sorted(Path(package_dir).glob("*.py")):
        if path.stem != "__init__":
            importlib.import_module(f"{module.__name__}.{path.stem}")
    runtime = sys.modules[f"{module.__name__}.{RUNTIME_MODULE}"]
    imported = set(runtime.INFECTED)   # module-level values computed at import: every key and item's
    corpus = _counts(_each(module, runtime, equivalence.entries(module), imported))
    domains: dict[str, dict] = {}
    for kind in evidence.KINDS:
        if kind in WHOLE_KINDS:
            equivalence._clear_caches(module)
            runtime.reset()
            for _, thunk in evidence.items(module, kind):
                equivalence._attempt(thunk)
            domains[kind] = _counts([imported | runtime.INFECTED])
        else:
            domains[kind] = _counts(_each(module, runtime, evidence.items(module, kind), imported))
    return {"corpus": corpus, "evidence": domains}


def _counts(per_item: list) -> dict:
    """``{"size": len(per_item), "infected": {id: the items whose set holds it}}``."""
    from collections import Counter

    found = Counter(mid for ids in per_item for mid in ids)
    return {"size": len(per_item), "infected": dict(sorted(found.items()))}


def _each(module, runtime, pairs, imported: set) -> list[set[str]]:
    """Each (label, thunk) of ``pairs`` from a fresh start: the ids infected in it, with those
    infected at import and in the domain's own set-up between items (which counts to every item,
    as ``evidence.record_lines`` counts its lines)."""
    from harness.mutants import equivalence

    setup, found = set(imported), []
    pairs = iter(pairs)
    while True:
        runtime.reset()
        step = next(pairs, None)
        setup |= runtime.INFECTED
        if step is None:
            return [ids | setup for ids in found]
        equivalence._clear_caches(module)
        runtime.reset()
        equivalence._attempt(step[1])
        found.append(set(runtime.INFECTED))


def main(argv: list[str]) -> int:
    """``PACKAGE --domains``: ``record_domains`` of an instrumented copy, as JSON."""
    from harness.mutants.equivalence import _bound_memory

    if len(argv) != 2 or argv[1] != "--domains":
        print("usage: python -m harness.mutants.infection PACKAGE --domains", file=sys.stderr)
        return 2
    _bound_memory()
    print(json.dumps(record_domains(Path(argv[0]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
