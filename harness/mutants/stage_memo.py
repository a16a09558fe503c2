"""The compile evidence's early stages, reused from the reference where the mutant cannot reach them.

Input: a generated mutant's module (``stage_for``); output: the stage of ``regex_to_dfa`` whose
result the mutant's compile evidence may take from the reference instead of computing it.

Every mutant of a compile-path module computes the compile evidence domain (``evidence``: ~5,100
patterns through ``regex_to_dfa``, then masks): ``parse -> build_nfa -> subset_construction ->
prune_dead -> minimal_partition -> number_breadth_first -> DFA`` (``oracles/automaton/compile.py``).
For a mutant of ``minimize.py`` the first three run the reference's code on the reference's input,
and give the reference's result; for one of ``index.py`` the whole ``regex_to_dfa`` does. So:

- ``"class DFA"`` (``STAGES``): what ``compile.regex_to_dfa`` gets from
  ``subset_construction(build_nfa(parse(pattern)), max_states=...)``, a ``ClassDFA``;
- ``"DFA"``: what ``regex_to_dfa(pattern)`` returns, the ``DFA`` built from the arguments
  ``compile`` hands ``DFA(...)``;
- ``"after parse"``: what ``regex_to_dfa`` makes of the tree ``parse`` returns. The mutant's
  ``parse`` always runs; when its tree is the reference's tree for that pattern (compared as a
  value, ``value_digest``: each node's class name and fields, numbers with their types; the memo
  keeps that digest), the rest of the pipeline runs the reference's code on the
  reference's input, so its DFA is the reference's; another tree goes on through the stages
  (parsed once);
- ``"after class DFA"``: likewise what follows ``subset_construction`` (``prune_dead``,
  ``minimal_partition``, ``number_breadth_first``, the DFA), after the mutant's own parse, NFA and
  class DFA, when its class DFA is the reference's as a value. There is no "after NFA": what follows
  ``build_nfa`` reads the NFA's ``n_states``, a property of ``nfa.py`` (the coverage test shows it),
  so a mutant of ``nfa.py`` still runs there.

**The rule** (``stage_for``): a stage is reused for a mutant of module X only when X is outside
the stage's **footprint**: the package's modules the stage's entry modules (``ENTRIES``) import,
transitively, read from the reference's own import statements (``footprint``), plus ``compile``
(where the stage's calls are made and where the reuse hooks in) and ``__init__``. Today
``footprint("class DFA")`` is ``ast determinize errors nfa parser`` (+ ``compile __init__``), so
mutants of ``minimize`` and ``dfa`` reuse it; ``footprint("DFA")`` adds ``minimize dfa``, so
mutants of ``index`` and ``bytemap`` reuse the whole DFA; ``footprint("after parse")`` is ``nfa
determinize minimize`` and their imports (``ast dfa errors``), so mutants of ``parser`` reuse what
follows an equal tree; ``footprint("after class DFA")`` is ``minimize dfa errors``, so mutants of
``ast nfa determinize`` reuse what follows an equal class DFA; ``compile`` and ``errors`` reuse no
stage (the deepest stage wins: ``stage_for``). An import whose names the module reads in
annotations alone (``minimize``'s ``ClassDFA``, under ``from __future__ import annotations``: never
evaluated) reaches no code and is not counted (``_names_used_outside_annotations``).

Why that is sound: a stage's code is its entry modules' functions and what they call; a function
reaches another module's code or import-time values only through a name it imports (the package
imports itself relatively, ``from .x import y``; no module of the stages imports by string or
reaches into ``sys.modules``: ``test_mutants_stage_memo`` checks, with coverage, that the stages
run no line outside the footprint over a seeded sample of the domain). A module outside the
footprint is the reference's text in every module the stage runs or reads, so the stage computes,
on the mutant, what it computes on the reference, from a pattern (a str): the reference's result.
Each reuse hands out fresh copies (``_copied``), so a later stage that writes into its input
changes nothing another item sees, as a fresh computation would.

**The memo** (``fill``): the reference's stage results for every pattern the compile domain
hands ``regex_to_dfa`` (``evidence.compile_domain_patterns``), recorded from a private copy of the
reference's modules (``_private_reference``: never ``oracles.automaton`` itself) by wrapping the
names ``compile.py`` calls: a pattern whose ``regex_to_dfa`` did not call each stage once, or
whose stage raised, has no entry and is computed as before. It is filled once in the warm grader
(``warm``: before the first fork of this module's child, ``main``, so every later fork of that
grader inherits it; ~2.5 CPU s, counted to the run that asked first) and never in a cold process, which then computes
everything (the same answers, at the old cost). The hooks (``reusing``) replace, for the
evidence child's life, the names ``parse``, ``build_nfa``, ``subset_construction`` in the mutant's
``compile`` module (``"class DFA"``) or the package's ``regex_to_dfa`` (``"DFA"``) by
functions that answer from the memo, and compute as before for a pattern it lacks or a call it
did not record (other arguments).

**The masks** (``MASKS``, a third reuse beside the two stages): the compile domain's items build a
``TokenIndex`` over ``evidence.evidence_vocabulary()`` on each DFA they compile and ask the mask of
every state. ``TokenIndex``'s answers are a function of the DFA's two tables (``trans``, ``accept``),
the vocabulary and the EOS id, computed by the modules of ``footprint("masks")`` (``index`` and what
it imports: ``dfa errors vocab bytemap``, + ``compile __init__``). For a mutant outside that
footprint (``parser ast nfa determinize minimize``) an index built on a DFA whose tables are
byte-identical (shape, dtype, bytes) to a DFA the reference indexed holds the reference's masks:
the memo (``fill_masks``, keyed by the tables' bytes, never by the pattern) hands the new index the
reference's per-state caches (``_masks``, ``_pairs``: what its own ``mask(s)`` for every state
would have put there, recorded the same way), so its ``mask`` and ``next_state`` answer without
walking the trie. A DFA whose tables differ (a mutant that changes the language or the numbering)
is not in the memo and is computed as before; the item's tables are still compared, so a
difference is found where it was. ~0.7 CPU s of the compile domain's ~3 (measured on the
reference, 2026-12-07).

``CONSTRAIN_HARNESS_NO_STAGE_REUSE=1`` turns every reuse off (the slow path, to compare verdicts);
``CONSTRAIN_HARNESS_NO_MASK_REUSE=1`` the masks alone.

Example::

    >>> stage_for("minimize"), stage_for("index"), stage_for("parser"), stage_for("nfa"), stage_for("compile")
    ('class DFA', 'DFA', 'after parse', 'after class DFA', None)
    >>> reuse_for("minimize"), reuse_for("index"), reuse_for("parser"), reuse_for("nfa")
    ('class DFA+masks', 'DFA', 'after parse+masks', 'after class DFA+masks')
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

STAGES = ("after class DFA", "after parse", "class DFA", "DFA")
VALUE_STAGES = {"after parse": "parse", "after class DFA": "subset_construction"}
"""The stages reused after a value the mutant computes itself: the name ``compile`` calls for it."""
MASKS = "masks"
REUSES = STAGES + (MASKS,)
ENTRIES = {"after class DFA": ("minimize",), "after parse": ("nfa", "determinize", "minimize"),
           "class DFA": ("parser", "nfa", "determinize"),
           "DFA": ("compile",), MASKS: ("index",)}
"""Each reuse's entry modules: the modules whose functions ``compile.regex_to_dfa`` calls for a
stage; for the masks, ``index`` (``TokenIndex``)."""
ALWAYS_IN = frozenset({"compile", "__init__"})
"""In every footprint: ``compile`` makes the calls (and holds the hooks); ``__init__`` runs at import."""
OFF_VARIABLE = "CONSTRAIN_HARNESS_NO_STAGE_REUSE"
MASKS_OFF_VARIABLE = "CONSTRAIN_HARNESS_NO_MASK_REUSE"
CHILD = "harness.mutants.stage_memo"   # the evidence child that reuses (``main``; a fork of the warm grader)
PRIVATE_NAME = "_constrain_stage_memo_reference"


def reference_dir() -> Path:
    from harness.mutants.apply import REFERENCE_DIR

    return REFERENCE_DIR


@functools.lru_cache(maxsize=None)
def footprint(stage: str) -> frozenset[str]:
    """The modules a stage runs or reads (``ENTRIES[stage]`` and what they import from the package,
    transitively), with ``ALWAYS_IN``. This parses the reference's sources: call it before a run
    fans out (``runner.plan``), never in a task's thread."""
    if stage not in ENTRIES:
        raise ValueError(f"stage must be one of {', '.join(REUSES)}, not {stage!r}")
    found: set[str] = set()
    pending = list(ENTRIES[stage])
    while pending:
        name = pending.pop()
        if name in found:
            continue
        found.add(name)
        pending += sorted(_package_imports(name))
    return frozenset(found) | ALWAYS_IN


def _package_imports(module: str) -> set[str]:
    """The package's modules ``module``'s source imports (relatively, or by the package's name), but
    those whose imported names it uses in annotations alone (``annotation_only``)."""
    path = reference_dir() / f"{module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = reference_dir().parent.name + "." + reference_dir().name   # oracles.automaton
    used = _names_used_outside_annotations(tree) if _postponed_annotations(tree) else None
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            bound = {alias.asname or alias.name for alias in node.names}
            if used is not None and not bound & used:
                continue   # every name it binds is read in annotations only (never evaluated)
            if node.level == 1 and base:
                found.add(base.split(".")[0])
            elif node.level == 1:   # from . import x
                found.update(alias.name for alias in node.names)
            elif base == package or base.startswith(package + "."):
                rest = base[len(package) + 1:]
                found.update([rest.split(".")[0]] if rest else [alias.name for alias in node.names])
        elif isinstance(node, ast.Import):
            found.update(alias.name[len(package) + 1:].split(".")[0] for alias in node.names
                         if alias.name.startswith(package + "."))
    return {name for name in found if (reference_dir() / f"{name}.py").exists()}


def _postponed_annotations(tree: ast.Module) -> bool:
    """True when the module says ``from __future__ import annotations`` (its annotations are strings,
    never evaluated: a name read there alone runs nothing and reads nothing at run time)."""
    return any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
               and any(alias.name == "annotations" for alias in node.names) for node in tree.body)


def _names_used_outside_annotations(tree: ast.Module) -> set[str]:
    """The names a module reads anywhere but in an annotation (a parameter's, a return's, an annotated
    assignment's): ``annotation_only``'s test."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        parts = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parts.append(node.returns)
            arguments = node.args
            parts += [a.annotation for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
            parts += [a.annotation for a in (arguments.vararg, arguments.kwarg) if a is not None]
        elif isinstance(node, ast.AnnAssign):
            parts.append(node.annotation)
        inside.update(id(sub) for part in parts if part is not None for sub in ast.walk(part))
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and id(node) not in inside}


def stage_for(module: str) -> str | None:
    """The deepest stage of ``regex_to_dfa`` a mutant of ``module`` cannot reach (its result is then
    the reference's: reused), or None (the switch ``OFF_VARIABLE`` set, or every stage in reach).
    Only for the compile evidence (``evidence.kind_for``: the caller checks)."""
    if os.environ.get(OFF_VARIABLE) == "1":
        return None
    for stage in reversed(STAGES):
        if module not in footprint(stage):
            return stage
    return None


def reuse_for(module: str) -> str | None:
    """What a mutant of ``module``'s compile evidence takes from the reference: ``stage_for``'s stage
    and ``MASKS`` when ``module`` is outside ``footprint("masks")``, joined by ``+`` (``"class
    DFA+masks"``), or None (nothing: ``OFF_VARIABLE`` set, or everything in reach).
    ``MASKS_OFF_VARIABLE`` leaves the masks out. Only for the compile evidence (the caller checks)."""
    if os.environ.get(OFF_VARIABLE) == "1":
        return None
    found = [stage_for(module)]
    if os.environ.get(MASKS_OFF_VARIABLE) != "1" and module not in footprint(MASKS):
        found.append(MASKS)
    return "+".join(part for part in found if part) or None


def reuses(text: str) -> tuple[str, ...]:
    """The reuses named by ``reuse_for``'s text (``"class DFA+masks"``), in order; ValueError for a
    name that is none of ``REUSES``, or a text naming two stages of ``regex_to_dfa``."""
    found = tuple(text.split("+"))
    wrong = [part for part in found if part not in REUSES]
    if wrong or len(set(found) & set(STAGES)) > 1 or len(set(found)) != len(found):
        raise ValueError(f"stage_memo: a reuse is one of {', '.join(STAGES)} and/or {MASKS!r} joined by '+', "
                         f"not {text!r}")
    return found


# --- the memo: the reference's stage results --------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _Entry:
    kwargs: dict            # the call's keyword arguments, as compile made it
    args: tuple = ()        # "DFA", "after ...": the positional arguments of ``DFA(...)``, copied at the call
    fields: dict | None = None   # "class DFA": the ClassDFA's fields (classes: the BytePartition's)
    value: tuple | None = None   # "after ...": (the stage's call's keyword arguments, ``value_digest`` of its result)


_MEMO: dict[str, dict[str, _Entry]] = {}   # stage -> pattern -> entry; filled once (``fill``)


def filled() -> bool:
    """True when the memo holds the reference's results of some pattern (``fill`` ran here)."""
    return any(_MEMO.values())


def clear() -> None:
    """Forget the memo, masks included (the tests' reset)."""
    _MEMO.clear()
    _MASKS.clear()


def _copied(value: Any) -> Any:
    """A fresh copy of a stage's result (arrays copied with their layout; numbers kept; lists and
    tuples rebuilt); anything else is refused (ValueError): the memo holds plain data only."""
    if isinstance(value, np.ndarray):
        return np.array(value, copy=True, order="K")
    if isinstance(value, (bool, int, float, str, bytes, np.generic)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_copied(v) for v in value)
    raise ValueError(f"stage_memo: a stage result holds a {type(value).__name__}, not plain data")


CLASS_DFA_FIELDS = ("trans", "accept", "classes", "sink")
PARTITION_FIELDS = ("class_of", "n", "members")


def _class_dfa_fields(cdfa) -> dict:
    names = tuple(f.name for f in dataclasses.fields(cdfa))
    classes = cdfa.classes
    if names != CLASS_DFA_FIELDS or tuple(f.name for f in dataclasses.fields(classes)) != PARTITION_FIELDS:
        raise ValueError(f"stage_memo: ClassDFA's fields are {names}, not {CLASS_DFA_FIELDS}")
    found = {name: _copied(getattr(cdfa, name)) for name in CLASS_DFA_FIELDS if name != "classes"}
    found["classes"] = {name: _copied(getattr(classes, name)) for name in PARTITION_FIELDS}
    return found


def _private_reference():
    """The reference package imported under a private name (its own module objects: the memo never
    touches ``oracles.automaton``), with every module loaded."""
    directory = reference_dir()
    _forget(PRIVATE_NAME)
    spec = importlib.util.spec_from_file_location(PRIVATE_NAME, directory / "__init__.py",
                                                  submodule_search_locations=[str(directory)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[PRIVATE_NAME] = package
    spec.loader.exec_module(package)
    importlib.import_module(f"{PRIVATE_NAME}.compile")
    return package


def _forget(name: str) -> None:
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        del sys.modules[key]


def fill(patterns: list[str] | None = None) -> None:
    """Record the reference's stage results for ``patterns`` (default: every pattern the compile
    evidence domain hands ``regex_to_dfa``), once per process."""
    if _MEMO:
        return
    _MEMO.update({stage: {} for stage in STAGES})   # tried once: a failure is not paid again
    if patterns is None:
        from harness.mutants import evidence

        patterns = evidence.compile_domain_patterns()
    package = _private_reference()
    try:
        compile_module = sys.modules[f"{PRIVATE_NAME}.compile"]
        for pattern in dict.fromkeys(patterns):
            for stage, entry in _record(package, compile_module, pattern).items():
                _MEMO[stage][pattern] = entry
    finally:
        _forget(PRIVATE_NAME)


def _record(package, compile_module, pattern: str) -> dict[str, _Entry]:
    """The stage entries of one ``regex_to_dfa(pattern)`` on the reference (none for a stage that
    was not called exactly once, or raised)."""
    calls: dict[str, list] = {"parse": [], "build_nfa": [], "subset_construction": [], "DFA": []}
    real = {name: getattr(compile_module, name) for name in calls}

    def recorder(name: str):
        def call(*args, **kwargs):
            copies = _copied(args) if name == "DFA" else None
            result = real[name](*args, **kwargs)
            calls[name].append((copies, dict(kwargs), result if name == "DFA" else
                                (_class_dfa_fields(result), value_digest(result)) if name == "subset_construction"
                                else value_digest(result) if name == "parse" else None))   # no stage after the NFA
            return result
        return call

    for name in calls:
        setattr(compile_module, name, recorder(name))
    try:
        result = package.regex_to_dfa(pattern)
    except Exception:  # noqa: BLE001 - a refusal: the stages before it may still be recorded
        result = None
    finally:
        for name, function in real.items():
            setattr(compile_module, name, function)
    found = {}
    once = [len(calls[n]) for n in ("parse", "build_nfa", "subset_construction")] == [1, 1, 1]
    if once:
        _, kwargs, (fields, _) = calls["subset_construction"][0]
        found["class DFA"] = _Entry(kwargs, fields=fields)
    if result is not None and len(calls["DFA"]) == 1 and calls["DFA"][0][2] is result:
        args, kwargs, _ = calls["DFA"][0]
        found["DFA"] = _Entry(kwargs, args=args)
        if once:
            for stage, name in VALUE_STAGES.items():
                _, stage_kwargs, value = calls[name][0]
                digest = value[1] if name == "subset_construction" else value
                found[stage] = _Entry(kwargs, args=args, value=(stage_kwargs, digest))
    return found


def value_digest(node: Any) -> str:
    """SHA-256 of a stage's result as a value two packages' results can be compared by (what the memo
    keeps of it: not the value, for memory): a dataclass (a parse tree's node, a ``ClassDFA`` and its
    ``BytePartition``) its class's name and its fields' values; a numpy array its dtype, shape and
    bytes; each number or string with its type's name (``True`` is not ``1``); tuples and lists kept
    apart; anything else its type and ``repr`` (a mutant's stage may return anything: it gets a
    digest all the same). Every part is length-prefixed, so two values never feed the same bytes."""
    digest = hashlib.sha256()
    _feed(digest, node)
    return digest.hexdigest()


def _feed(digest, node: Any) -> None:
    update, kind = digest.update, type(node)
    if kind is int or kind is str or kind is bool or node is None:   # the common leaves, at C speed
        text = repr((kind.__name__, node)).encode()
        update(b"V" + len(text).to_bytes(8, "little") + text)
        return
    names = _FIELD_NAMES.get(kind)
    if names is None and dataclasses.is_dataclass(node) and not isinstance(node, type):
        names = _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(node))
    if names is not None:
        text = f"{kind.__name__}/{'/'.join(names)}".encode()
        update(b"D" + len(text).to_bytes(8, "little") + text)
        for name in names:
            _feed(digest, getattr(node, name))
    elif isinstance(node, np.ndarray):
        text, data = repr((node.dtype.str, node.shape)).encode(), node.tobytes()
        update(b"A" + len(text).to_bytes(8, "little") + text + len(data).to_bytes(8, "little") + data)
    elif isinstance(node, (tuple, list)):
        text = f"{kind.__name__}/{len(node)}".encode()
        update(b"S" + len(text).to_bytes(8, "little") + text)
        for item in node:
            _feed(digest, item)
    else:
        shown = node if isinstance(node, (int, str, bytes, float)) else repr(node)
        text = repr((kind.__name__, shown)).encode()
        update(b"V" + len(text).to_bytes(8, "little") + text)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}   # a dataclass's field names, per class (its fields never change)


# --- the masks memo: the reference's TokenIndex caches, by the DFA's tables --------------------

@dataclasses.dataclass(frozen=True)
class _Masks:
    masks: dict      # state -> bool [V] (read-only), as the reference's ``mask(s)`` cached it
    pairs: dict      # state -> (tokens, targets), as it cached them


_MASKS: dict = {}   # "vocab" -> (vocab tuple, eos id); (shape, trans bytes, accept bytes) -> _Masks


def _tables_key(dfa) -> tuple | None:
    """The key of a DFA's tables in the masks memo: their shapes, dtypes and bytes (None: a table
    that is no numpy array)."""
    trans, accept = getattr(dfa, "trans", None), getattr(dfa, "accept", None)
    if not isinstance(trans, np.ndarray) or not isinstance(accept, np.ndarray):
        return None
    return (trans.dtype.str, trans.shape, accept.dtype.str, accept.shape, trans.tobytes(), accept.tobytes())


def mask_patterns() -> list[str]:
    """The patterns whose DFAs the compile domain indexes over the evidence vocabulary, each once:
    every pattern of ``evidence_patterns()`` but the enumeration's largest size (tables only:
    ``evidence._compile_items``' rule), then ``TABLE_PATTERNS`` (``_next_states``,
    ``_index_refusals``). A pattern left out costs only time (its masks computed by the mutant):
    ``test_mutants_mask_memo`` checks that the memo holds every DFA the domain indexes."""
    from harness.mutants import evidence

    # evidence's own enumeration (made once a process; the layers allow the sweep's import there)
    tables_only = set(evidence._enumerated(evidence.EVIDENCE_GRAMMAR, evidence.EVIDENCE_MAX_SIZE)[-1])
    found = [p for p in evidence.evidence_patterns() if p not in tables_only] + list(evidence.TABLE_PATTERNS)
    return list(dict.fromkeys(found))


def fill_masks(patterns: list[str] | None = None) -> None:
    """Record the reference's ``TokenIndex`` caches over the evidence vocabulary for the DFA of each
    of ``patterns`` (default ``mask_patterns()``), each state's ``mask(s)`` asked in order as the
    compile domain asks them; once per process."""
    if _MASKS:
        return
    from harness.mutants import evidence

    vocab, eos_id = evidence.evidence_vocabulary()
    _MASKS["vocab"] = (tuple(vocab), eos_id)   # tried once: a failure is not paid again
    package = _private_reference()
    try:
        token_index = importlib.import_module(f"{PRIVATE_NAME}.index").TokenIndex
        for pattern in dict.fromkeys(mask_patterns() if patterns is None else patterns):
            try:
                dfa = package.regex_to_dfa(pattern)
            except Exception:  # noqa: BLE001 - a refusal: no DFA, nothing to index
                continue
            key = _tables_key(dfa)
            if key is None or key in _MASKS:
                continue
            index = token_index(dfa, list(vocab), eos_id)
            for state in range(dfa.n_states):
                index.mask(state)
            _MASKS[key] = _Masks(dict(index._masks), {s: tuple(_copied(p) for p in pair)
                                                      for s, pair in index._pairs.items()})
    finally:
        _forget(PRIVATE_NAME)


def masks_filled() -> bool:
    """True when the masks memo holds some DFA (``fill_masks`` ran here)."""
    return len(_MASKS) > 1


def _masks_hook(package):
    """``TokenIndex`` of the mutant ``package``, its caches taken from the masks memo when the DFA's
    tables, the vocabulary and the EOS id are the recorded ones."""
    index_module = importlib.import_module(f"{package.__name__}.index")
    dfa_class = importlib.import_module(f"{package.__name__}.dfa").DFA
    real = index_module.TokenIndex
    vocab, eos_id = _MASKS["vocab"]

    def TokenIndex(dfa, *args, **kwargs):   # noqa: N802 - the name it stands in for
        index = real(dfa, *args, **kwargs)  # its own checks and errors, as before
        if type(dfa) is not dfa_class or type(index.eos_id) is not int or index.eos_id != eos_id \
                or index.vocab_size != len(vocab):
            return index
        entry = _MASKS.get(_tables_key(dfa))
        given = args[0] if args else kwargs.get("vocab")
        if entry is None or not isinstance(getattr(index, "_masks", None), dict) \
                or not isinstance(getattr(index, "_pairs", None), dict) or index._masks or index._pairs \
                or tuple(given) != vocab:
            return index
        index._masks.update(entry.masks)   # read-only rows: shared, as the reference's own cache shares them
        index._pairs.update({state: tuple(_copied(p) for p in pair) for state, pair in entry.pairs.items()})
        return index
    return TokenIndex


# --- the hooks in the mutant's package ---------------------------------------------------------

class _Recorded:
    """A pattern whose ``class DFA`` the memo holds, passed through ``parse`` and ``build_nfa``."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: str):
        self.pattern = pattern


@contextlib.contextmanager
def reusing(package, stage: str):
    """Within: the mutant ``package``'s compile evidence takes ``stage``'s results from the memo
    (``fill``, ``fill_masks``; an empty memo: nothing changes); ``stage`` is one of ``REUSES`` or
    several joined by ``+`` (``reuses``). The hooks are removed on exit."""
    if "+" in stage:
        with contextlib.ExitStack() as stack:
            for part in reuses(stage):
                stack.enter_context(reusing(package, part))
            yield
        return
    if stage not in REUSES:
        raise ValueError(f"stage must be one of {', '.join(REUSES)}, not {stage!r}")
    if stage == MASKS:
        if not masks_filled():
            yield
            return
        with _replaced(package, {"TokenIndex": _masks_hook(package)}):
            yield
        return
    memo = _MEMO.get(stage)
    if not memo:
        yield
        return
    compile_module = importlib.import_module(f"{package.__name__}.compile")
    if stage == "DFA":
        with _replaced(package, {"regex_to_dfa": _dfa_hook(compile_module, memo)}):
            yield
        return
    if stage in VALUE_STAGES:
        with _replaced(package, {"regex_to_dfa": _after_value_hook(compile_module, memo, VALUE_STAGES[stage])}):
            yield
        return
    with _replaced(compile_module, _class_dfa_hooks(package, compile_module, memo)):
        yield


@contextlib.contextmanager
def _replaced(module, names: dict):
    before = {name: vars(module).get(name, _MISSING) for name in names}
    for name, value in names.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is _MISSING:
                delattr(module, name)
            else:
                setattr(module, name, value)


_MISSING = object()


def _dfa_hook(compile_module, memo: dict[str, _Entry]):
    real = compile_module.regex_to_dfa

    def regex_to_dfa(pattern, *args, **kwargs):
        entry = memo.get(pattern) if isinstance(pattern, str) and not args and not kwargs else None
        if entry is None:
            return real(pattern, *args, **kwargs)
        return compile_module.DFA(*_copied(entry.args), **entry.kwargs)
    return regex_to_dfa


class _Same(BaseException):
    """Raised out of ``compile.regex_to_dfa`` when a stage's result is the reference's (a
    BaseException: no ``except Exception`` on the way swallows it)."""


def _after_value_hook(compile_module, memo: dict[str, _Entry], name: str):
    """``regex_to_dfa`` that runs the package's own pipeline (``compile``'s code, the mutant's stages)
    up to the stage ``compile`` calls ``name``, and, when that call's result is the reference's for the
    pattern (its keyword arguments the recorded ones and ``value_digest`` equal), answers the
    reference's DFA instead of the stages after it; any other result goes on as before (computed once)."""
    real = compile_module.regex_to_dfa

    def regex_to_dfa(pattern, *args, **kwargs):
        entry = memo.get(pattern) if isinstance(pattern, str) and not args and not kwargs else None
        if entry is None:
            return real(pattern, *args, **kwargs)
        stage = getattr(compile_module, name)
        calls: list[int] = []

        def watched(*a, **k):
            result = stage(*a, **k)
            calls.append(1)
            if len(calls) == 1 and k == entry.value[0] and value_digest(result) == entry.value[1]:
                raise _Same
            return result
        try:
            with _replaced(compile_module, {name: watched}):
                return real(pattern)
        except _Same:
            return compile_module.DFA(*_copied(entry.args), **entry.kwargs)
    return regex_to_dfa


def _class_dfa_hooks(package, compile_module, memo: dict[str, _Entry]) -> dict:
    real_parse, real_build, real_subset = (compile_module.parse, compile_module.build_nfa,
                                           compile_module.subset_construction)
    determinize = importlib.import_module(f"{package.__name__}.determinize")

    def materialized(tree):
        if not isinstance(tree, _Recorded):
            return tree
        with compile_module._recursion_room(compile_module.RECURSION_ROOM):
            return real_build(real_parse(tree.pattern))

    def parse(pattern, *args, **kwargs):
        if isinstance(pattern, str) and pattern in memo and not args and not kwargs:
            return _Recorded(pattern)
        return real_parse(pattern, *args, **kwargs)

    def build_nfa(tree, *args, **kwargs):
        if isinstance(tree, _Recorded) and not args and not kwargs:
            return tree
        if isinstance(tree, _Recorded):
            with compile_module._recursion_room(compile_module.RECURSION_ROOM):
                tree = real_parse(tree.pattern)
        return real_build(tree, *args, **kwargs)

    def subset_construction(nfa, *args, **kwargs):
        if isinstance(nfa, _Recorded):
            entry = memo[nfa.pattern]
            if not args and kwargs == entry.kwargs:
                fields = _copied(entry.fields["trans"]), _copied(entry.fields["accept"])
                classes = determinize.BytePartition(**_copied_dict(entry.fields["classes"]))
                return determinize.ClassDFA(*fields, classes=classes, sink=entry.fields["sink"])
            nfa = materialized(nfa)
        return real_subset(nfa, *args, **kwargs)

    return {"parse": parse, "build_nfa": build_nfa, "subset_construction": subset_construction}


def _copied_dict(fields: dict) -> dict:
    return {name: _copied(value) for name, value in fields.items()}


# --- the evidence child that reuses -------------------------------------------------------------

def prepare_parent(argv: list[str]) -> None:
    """In the warm grader, before it forks this module's child (``warm.serve``): the memos the run
    asks for (its last argument, ``reuses``) recorded (``fill``, ``fill_masks``), each once per warm
    grader; every later fork inherits them."""
    asked = reuses(argv[-1]) if argv else STAGES
    if set(asked) & set(STAGES):
        fill()
    if MASKS in asked:
        fill_masks()


def main(argv: list[str]) -> int:
    """``PACKAGE compile --against FILE STAGE``: ``evidence``'s child (``{"differs": [...], "computed":
    n}``, the first item on which the mutant at PACKAGE differs from FILE's hashes, a null hash: an
    item not computed) with ``STAGE`` of ``regex_to_dfa`` (and/or ``MASKS``, joined by ``+``) taken
    from the memo where it holds the pattern or the tables (none in a cold process: everything
    computed). The runner asks it only for a mutant outside each reuse's footprint (``reuse_for``).
    Memory bounded first, as ``evidence.main``'s."""
    import json

    from harness.mutants import evidence
    from harness.mutants.apply import load
    from harness.mutants.equivalence import _bound_memory

    if len(argv) != 5 or argv[1] != "compile" or argv[2] != "--against":
        raise ValueError(f"stage_memo: usage: PACKAGE compile --against FILE STAGE (of {', '.join(REUSES)}, "
                         f"joined by '+'), not {argv!r}")
    reuses(argv[4])
    _bound_memory()
    module = load(Path(argv[0]))
    reference, budgets = evidence.read_against(Path(argv[3]))
    with reusing(module, argv[4]):
        differs, computed = evidence.first_difference(module, "compile", reference, budgets)
    print(json.dumps({"differs": differs, "computed": computed}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
