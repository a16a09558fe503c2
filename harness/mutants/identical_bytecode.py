"""Trivial Compiler Equivalence: a generated mutant whose compiled module is the reference's runs
nothing, and mutants whose compiled modules are one another's share one run.

TCE (Papadakis, Jia, Harman, Le Traon, ICSE 2015) is sound by construction: the interpreter runs a
module's code objects, not its text, so two texts that compile to the same code objects behave the
same on every input. Python's compiler folds constants (``2 * 3`` is ``6``), turns ``not a is b``
into ``a is not b`` and ``not a in b`` into ``a not in b``, and drops dead branches (``if 0:``), so
a text-level mutant can be the reference, or another mutant, in what runs.

``module_key(source, file)`` compiles the text as the candidate's import does (``compile(source,
file, "exec", dont_inherit=True, optimize=0)``: only the file's own ``__future__`` imports, asserts
kept) and reduces each code object, recursively, to what the interpreter executes: its bytecode,
exception table, flags, argument and local counts, stack size, names (``co_names``, ``co_varnames``,
``co_freevars``, ``co_cellvars``, its name and qualified name) and constants (each by its type and
``repr``; a nested code object by its own key; a frozenset's members sorted). Left out: line numbers
(``co_firstlineno``, the line table) and the file name. ``mutant_key`` is ``(file, module_key)``;
``REFERENCE`` keys are computed once per process.

Invariant: equal keys mean the same instructions on the same constants and names; what can still
differ is only what reads a code object's lines or file name (a traceback's line numbers, a warning's
location), which no catalogue verdict reads. A text that does not compile has no key (``None``): it
is run as before (the candidate's import reports it).

Cost: one compile of the mutated file, ~7 ms at load ~9 (~40 CPU s for the whole run's 6,122, in
the parent before the run fans out). Of those 6,122, none compiles to the reference (the generator
drops the text-equal and annotation-only ones) and 162 are duplicates (``docs/mutants-runs.md``, "The dear end cut").
"""

from __future__ import annotations

import hashlib
import threading
import types
import warnings
from pathlib import Path

KIND = "identical bytecode"
"""The evidence kind of a mutant equivalent by its bytecode (``evidence``'s record, the reports)."""
DOMAIN = ("its compiled module equals the reference's: every code object's bytecode, constants and names "
          "(line numbers and the file name left out), compiled as the candidate's import compiles it")
"""The one line the reports print for ``KIND`` (as ``evidence.domain`` does for a domain)."""


def module_key(source: str, file: str) -> str | None:
    """The digest of ``source`` (the text of ``file``) compiled as an import compiles it, reduced to
    what runs (module docstring); None when it does not compile."""
    try:
        with warnings.catch_warnings():   # the compiler's SyntaxWarnings (`x is 1`): the import says them
            warnings.simplefilter("ignore")
            code = compile(source, file, "exec", dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError):
        return None
    return hashlib.sha256(repr(_code_key(code)).encode("utf-8")).hexdigest()


def _code_key(code: types.CodeType) -> tuple:
    return ("code", code.co_code, getattr(code, "co_exceptiontable", b""), code.co_flags, code.co_argcount,
            code.co_posonlyargcount, code.co_kwonlyargcount, code.co_nlocals, code.co_stacksize,
            code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, code.co_name,
            getattr(code, "co_qualname", code.co_name), tuple(_constant_key(c) for c in code.co_consts))


def _constant_key(value) -> tuple:
    """A constant by its type and value: ``1``, ``1.0`` and ``True`` differ, so do ``0.0`` and ``-0.0``."""
    if isinstance(value, types.CodeType):
        return _code_key(value)
    if isinstance(value, tuple):
        return ("tuple", tuple(_constant_key(v) for v in value))
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(_constant_key(v)) for v in value)))
    return (type(value).__name__, repr(value))


_REFERENCE: dict[str, str | None] = {}
_LOCK = threading.Lock()


def reference_key(file: str, reference: Path) -> str | None:
    """``module_key`` of the reference's ``file`` under ``reference`` (once per process and file)."""
    place = str(Path(reference) / file)
    with _LOCK:
        if place not in _REFERENCE:
            _REFERENCE[place] = module_key(Path(place).read_text(encoding="utf-8"), file)
        return _REFERENCE[place]


def mutant_key(mutant) -> tuple[str, str] | None:
    """``(file, module_key)`` of a generated mutant's mutated file (None: it does not compile)."""
    key = module_key(mutant.source, mutant.file)
    return None if key is None else (mutant.file, key)


def is_reference(mutant, reference: Path) -> bool:
    """The mutant's compiled module is the reference's (it is equivalent: nothing need run)."""
    return sort([mutant], reference)[0] == {mutant.id}


def duplicates(mutants: list, reference: Path) -> dict[str, str]:
    """Each mutant whose compiled module equals an earlier one's (in ``mutants``' order): its id ->
    the first such mutant's id. A mutant equal to the reference is left out (``is_reference``)."""
    return sort(mutants, reference)[1]


def sort(mutants: list, reference: Path) -> tuple[set[str], dict[str, str]]:
    """Each mutant compiled once: (the ids of those whose compiled module is the reference's, and each
    other mutant whose compiled module is an earlier one's, in ``mutants``' order: its id -> the first's)."""
    same: set[str] = set()
    first: dict[tuple[str, str], str] = {}
    found: dict[str, str] = {}
    for mutant in mutants:
        key = mutant_key(mutant)
        if key is None:
            continue
        if key[1] == reference_key(mutant.file, reference):
            same.add(mutant.id)
        elif key in first:
            found[mutant.id] = first[key]
        else:
            first[key] = mutant.id
    return same, found


def evidence() -> dict:
    """The evidence record of a mutant equivalent by its bytecode (``MutantResult.evidence``)."""
    return {"kind": KIND, "domain": DOMAIN, "size": None}
