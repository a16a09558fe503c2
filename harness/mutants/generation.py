"""Generated mutants of ``oracles/automaton``: every site of every operator, then a seeded sample.

The operators are cosmic-ray's (``cosmic_ray.operators``, over parso trees) plus the five
of ``harness.mutants.operators``; a mutant is one application of one operator at one
site: ``(file, operator, occurrence)``, where ``occurrence`` counts that operator's
positions in the file in cosmic-ray's walk order, so ``cosmic_ray.mutating.mutate_code``
rebuilds exactly that mutant from the reference's text. Nothing is written to the
reference: ``GeneratedMutant.source`` is the mutated text of one file, which
``apply.materialize_generated`` writes into a copy of the package.

Why cosmic-ray (evaluated against mutmut 3.8): cosmic-ray's ``mutate_code(code,
operator, occurrence)`` is a pure function from source text to mutated text, and its
operators are plugin classes with a documented interface, so our extra operators run
through the same machinery. mutmut 3 only mutates inside functions (module constants
such as ``DOT = FULL_MASK & ~NEWLINE`` or ``INTEGER = r"..."`` are where several seeded
pitfalls live), and it emits all mutants of a file at once behind trampolines that only
its own runner switches; applying a single mutant needs its internal, changing modules.

Left out: cosmic-ray's ``VariableReplacer``/``VariableInserter`` (they need named
variables and draw random numbers). ``pick`` drops, and counts, the mutants that are
equivalent or void by construction: text unchanged, not valid Python, only a type
annotation changed (the reference uses ``from __future__ import annotations``, so
annotations are never evaluated), or the same text as a mutant already kept; so a
sample of N is N distinct programs.

Example::

    >>> sites = enumerate_sites(modules=["nfa"], operators=["NumberReplacer"])
    >>> mutants, dropped = pick(sites, 2, seed=1)
    >>> [m.id.startswith("nfa.NumberReplacer.") for m in mutants], mutants[0].file
    ([True, True], 'nfa.py')

Invariant: ids are stable for a given reference text (file, operator, occurrence), and
``pick(sites, n, seed)`` is the same list for the same sites, n and seed.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import hashlib
import json
import os
import pickle
import random
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import parso.tree
from cosmic_ray.ast import get_ast
from cosmic_ray.mutating import MutationVisitor
from cosmic_ray.plugins import get_operator, operator_names

from harness.mutants.anchors import parse
from harness.mutants.apply import REFERENCE_DIR
from harness.mutants.catalogue import CATALOGUE
from harness.mutants.operators import EXTRA

EXCLUDED_OPERATORS = ("core/VariableReplacer", "core/VariableInserter")
MAX_SITES = 20_000  # bound on the enumeration (the reference has about 4,700)


@dataclasses.dataclass(frozen=True)
class Site:
    """One place one operator can mutate: enough to rebuild the mutant from the reference."""

    file: str            # e.g. "parser.py"
    operator: str        # e.g. "core/NumberReplacer" or "harness/SwapArguments"
    occurrence: int      # the operator's position number in the file (cosmic-ray's walk order)
    start: tuple[int, int]  # (line, column) of the mutated node, 1-based line, 0-based column
    end: tuple[int, int]

    @property
    def family(self) -> str:
        """The operator without its from/to suffix: ``ReplaceBinaryOperator_Add_Sub`` -> ``ReplaceBinaryOperator``."""
        return self.operator.split("/", 1)[1].split("_", 1)[0]

    @property
    def module(self) -> str:
        return self.file[:-3]

    @property
    def id(self) -> str:
        return f"{self.module}.{self.operator.split('/', 1)[1]}.{self.occurrence}"


@dataclasses.dataclass(frozen=True)
class GeneratedMutant:
    """A built mutant: the site, the mutated file's text, and a one-line description."""

    site: Site
    source: str          # the whole mutated file
    before: str          # the first changed line, as in the reference (stripped)
    after: str           # the same line in the mutant (stripped)

    id = property(lambda self: self.site.id)
    file = property(lambda self: self.site.file)
    stage = property(lambda self: self.site.module)
    kind = CATALOGUE
    killers: tuple[str, ...] = ()

    @property
    def package(self) -> str:
        return "mutant_" + "".join(c if c.isalnum() else "_" for c in self.id)

    @property
    def pitfall(self) -> str:
        return f"{self.file}:{self.site.start[0]} {self.before} -> {self.after}"


def operator_classes() -> dict[str, type]:
    """Every operator the generator uses: name -> class (cosmic-ray's core ones, then ours)."""
    found = {name: get_operator(name) for name in sorted(operator_names())
             if name.startswith("core/") and name not in EXCLUDED_OPERATORS}
    found.update(EXTRA)
    return found


def families() -> list[str]:
    return sorted({Site("x.py", name, 0, (1, 0), (1, 0)).family for name in operator_classes()})


def _unknown(wanted: list[str], known: list[str], what: str) -> None:
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise ValueError(f"unknown {what} {', '.join(unknown)}; known: {', '.join(known)}")


def _short(name: str) -> str:
    return name.split("/", 1)[1]


def _family_of(name: str) -> str:
    return _short(name).split("_", 1)[0]


def reference_modules(reference: Path = REFERENCE_DIR) -> list[str]:
    return sorted(p.stem for p in Path(reference).glob("*.py"))


def enumerate_sites(*, modules: list[str] | None = None, operators: list[str] | None = None,
                    reference: Path = REFERENCE_DIR) -> list[Site]:
    """Every site of the chosen operators in the chosen modules (all by default), in a stable order.

    ``operators`` entries may be families (``NumberReplacer``), full names
    (``core/ReplaceBinaryOperator_Add_Sub``) or names without the prefix. Raises
    ``ValueError`` for an unknown module or operator, or past ``MAX_SITES``.
    """
    return list(_enumerate(tuple(sorted(modules or ())), tuple(sorted(operators or ())), Path(reference)))


def only(sites: list[Site], ids: list[str]) -> list[Site]:
    """The sites named by ``ids`` (a report's mutant ids, e.g. ``parser.RemoveStatement.27``), in
    site order: to run again the timeouts or errors of a whole run. Raises ``ValueError`` naming
    the ids no site has (at most 10 shown)."""
    wanted, known = set(ids), {site.id for site in sites}
    unknown = [i for i in dict.fromkeys(ids) if i not in known]
    if unknown:
        shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
        raise ValueError(f"--only: no generated mutant site is called {shown} (ids as a report prints them, "
                         "e.g. parser.RemoveStatement.27; within --module/--operators if given)")
    return [site for site in sites if site.id in wanted]


def _enumerate(modules: tuple[str, ...], operators: tuple[str, ...], reference: Path) -> tuple[Site, ...]:
    classes = operator_classes()
    chosen = sorted(classes)
    if operators:
        _unknown(operators, sorted(set(classes) | {_family_of(n) for n in classes} | {_short(n) for n in classes}),
                 "operator(s)")
        chosen = [n for n in chosen if n in operators or _family_of(n) in operators or _short(n) in operators]
    files = reference_modules(reference)
    if modules:
        _unknown(modules, files, "module(s)")
        files = [m for m in files if m in modules]
    sites: list[Site] = []
    for module in files:
        sites.extend(_module_sites(module, tuple(chosen), reference))
        if len(sites) > MAX_SITES:
            raise ValueError(f"more than {MAX_SITES} mutation sites: choose --module or --operators")
    return tuple(sites)


def _module_sites(module: str, chosen: tuple[str, ...], reference: Path) -> tuple[Site, ...]:
    """The sites of ``chosen`` operators in one module: the module's sites of every operator
    (``_every_site``, kept per text), those of ``chosen`` kept in their order. A site's number counts
    its own operator's positions only, so the filtered list is what asking only ``chosen`` gives."""
    file = f"{module}.py"
    every = _every_site(file, (reference / file).read_text(encoding="utf-8"))
    if len(chosen) == len(operator_classes()):
        return every
    wanted = frozenset(chosen)
    return tuple(site for site in every if site.operator in wanted)


SITES_CACHE_FILES = 64
"""Bound on the site lists kept in the user's cache (``sites_cache_dir``), the least recently used
removed past it: a reference's 15 modules, a few versions of them and of the tools' reference."""
SITES_FORMAT = 1  # of a cached site list; and in its key, beside what else decides the sites

_EVERY_SITE: dict[str, tuple[Site, ...]] = {}
"""This process's site lists by key (``_sites_key``), at most ``SITES_CACHE_FILES``."""


def sites_cache_dir() -> Path:
    """Where the site lists are kept between processes: the user's cache (``XDG_CACHE_HOME``, else
    ``~/.cache``), ``constrain-harness/sites``."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "constrain-harness" / "sites"


def _every_site(file: str, text: str) -> tuple[Site, ...]:
    """Every operator's sites in ``file`` of text ``text``: asking every operator about every node of a
    module (``_sites_in``) is 0.1-0.8 CPU s, 3-5 for the whole reference, so the list is kept by its key
    in this process and in the user's cache (``sites_cache_dir``), for the next process that asks:
    each worker of a test run, each run of the verb. A cached list that cannot be read, or is not of
    its key, is computed again."""
    key = _sites_key(file, text)
    found = _EVERY_SITE.get(key)
    if found is None:
        found = _read_sites(key, file)
        if found is None:
            classes = operator_classes()
            found = tuple(_sites_in(file, text, tuple(sorted(classes)), classes))
            _write_sites(key, file, found)
        if len(_EVERY_SITE) >= SITES_CACHE_FILES:
            _EVERY_SITE.pop(next(iter(_EVERY_SITE)))
        _EVERY_SITE[key] = found
    return found


@lru_cache(maxsize=1)
def _tools_key() -> str:
    """What decides the sites besides a module's text: the operators (their names, cosmic-ray's and
    parso's versions, our operators' and this module's code) and the Python whose grammar parso reads."""
    from importlib.metadata import version

    from harness.mutants import operators

    parts = [str(SITES_FORMAT), f"{sys.version_info[0]}.{sys.version_info[1]}", version("cosmic-ray"),
             version("parso"), *sorted(operator_classes()),
             Path(operators.__file__).read_text(encoding="utf-8"), Path(__file__).read_text(encoding="utf-8")]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _sites_key(file: str, text: str) -> str:
    return hashlib.sha256("\0".join((_tools_key(), file, text)).encode("utf-8", "surrogatepass")).hexdigest()


def _sites_path(key: str) -> Path:
    return sites_cache_dir() / f"sites-{key[:32]}.json"


def _read_sites(key: str, file: str) -> tuple[Site, ...] | None:
    path = _sites_path(key)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc["key"] != key or doc["file"] != file:
            return None
        found = tuple(Site(file, operator, occurrence, (start[0], start[1]), (end[0], end[1]))
                      for operator, occurrence, start, end in doc["sites"])
        os.utime(path)   # recently used: the last to go past the bound
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    return found


def _write_sites(key: str, file: str, sites: tuple[Site, ...]) -> None:
    """The list stored whole or not at all (a temporary file renamed), the oldest lists past
    ``SITES_CACHE_FILES`` removed; a cache that cannot be written is no error (nothing is kept)."""
    folder = sites_cache_dir()
    doc = {"format": SITES_FORMAT, "key": key, "file": file,
           "sites": [[s.operator, s.occurrence, list(s.start), list(s.end)] for s in sites]}
    partial = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, prefix=".sites-", suffix=".partial",
                                         delete=False) as out:
            partial = Path(out.name)
            out.write(json.dumps(doc))
        os.replace(partial, _sites_path(key))
        partial = None
        kept = sorted(folder.glob("sites-*.json"), key=_mtime, reverse=True)
        for old in kept[SITES_CACHE_FILES:]:
            old.unlink(missing_ok=True)
    except OSError:
        return
    finally:
        if partial is not None:
            partial.unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:   # removed meanwhile by another process
        return 0.0


def _node_guards() -> dict:
    """The cosmic-ray operator families (by module) whose ``mutation_positions`` yields nothing for a
    node that fails a test of cosmic-ray's own that it starts with: the 132 binary replacements (a
    binary operator leaf, ``_is_binary_operator``, whose value is one they replace), the 56 comparison
    replacements (a ``comparison`` node), the 12 unary ones (``_is_unary_operator``). ``_sites_in``
    asks them only about the nodes that pass it, not about every node of a module (2026-12-07: 2.9 ->
    ~0.9 CPU s for the reference's 15 modules and the tools'), so the sites are the ones asking every
    operator gives (``tests/mutants/test_mutants_generated.py`` compares the two walks)."""
    from cosmic_ray.operators import binary_operator_replacement as binary
    from cosmic_ray.operators import comparison_operator_replacement as comparison
    from cosmic_ray.operators import unary_operator_replacement as unary

    replaced = frozenset(op.value for op in binary.BinaryOperators)
    return {binary.__name__: lambda node: binary._is_binary_operator(node) and node.value in replaced,
            comparison.__name__: lambda node: node.type == "comparison",
            unary.__name__: unary._is_unary_operator}


def _sites_in(file: str, source: str, chosen: tuple[str, ...], classes: dict[str, type]) -> list[Site]:
    instances = [(name, classes[name]()) for name in chosen]
    by_family = _node_guards()
    guards = tuple(dict.fromkeys(by_family[classes[name].__module__] for name in chosen
                                 if classes[name].__module__ in by_family))
    # for each outcome of the guards on a node, the operators to ask, in ``chosen``'s order (the sites' order)
    asked: dict[tuple[bool, ...], list] = {}
    counts = dict.fromkeys(chosen, 0)
    sites: list[Site] = []
    for node in _walk(get_ast(source)):
        passed = tuple(guard(node) for guard in guards)
        operators = asked.get(passed)
        if operators is None:
            held = {guard for guard, ok in zip(guards, passed) if ok}
            operators = asked[passed] = [(name, operator) for name, operator in instances
                                         if by_family.get(type(operator).__module__) in (None, *held)]
        for name, operator in operators:
            for start, end in operator.mutation_positions(node):
                sites.append(Site(file, name, counts[name], start, end))
                counts[name] += 1  # numbered like cosmic-ray's MutationVisitor counts them
    return sites


def _walk(node):
    """Every node in pre-order, as cosmic-ray's ``Visitor.walk`` visits them."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, parso.tree.BaseNode):
            stack.extend(reversed(current.children))


def pick(sites: list[Site], n: int | None, seed: int, jobs: int = 1) -> tuple[list[GeneratedMutant], dict[str, int]]:
    """``n`` distinct mutants (all when ``n`` is None) from a seeded shuffle of ``sites``, in site order.

    Sites are built in the shuffled order until ``n`` mutants are kept; the others are
    counted by reason in the second value (``DROP_REASONS``). ``jobs`` > 1 builds them in
    that many processes (``harness.fanout.executor``, ``build_task``: building is parsing, ~70 ms
    a site, so every site takes minutes on one core), a batch at a time; the batches are
    read in the shuffled order, so the result is the one ``jobs=1`` gives.
    """
    if n is not None and n < 0:
        raise ValueError(f"--sample must be >= 0, got {n}")
    order = list(range(len(sites)))
    random.Random(seed).shuffle(order)
    kept: dict[int, GeneratedMutant] = {}
    dropped = dict.fromkeys(DROP_REASONS, 0)
    seen: set[tuple[str, str]] = set()
    position = 0
    while position < len(order) and (n is None or len(kept) < n):
        wanted = len(order) - position if n is None else n - len(kept)
        batch = order[position:position + (wanted if jobs <= 1 else max(jobs, wanted + wanted // 10 + 2))]
        position += len(batch)
        for i, (mutant, reason) in zip(batch, _build_all([sites[i] for i in batch], jobs)):
            if n is not None and len(kept) >= n:
                break
            if mutant is not None and (mutant.file, mutant.source) in seen:
                mutant, reason = None, "duplicate"
            if mutant is None:
                dropped[reason] += 1
                continue
            seen.add((mutant.file, mutant.source))
            kept[i] = mutant
    return [kept[i] for i in sorted(kept)], dropped


def _build_all(chosen: list[Site], jobs: int) -> list[tuple[GeneratedMutant | None, str]]:
    """``build`` of every site, in order (in ``jobs`` processes when more than one)."""
    if jobs <= 1 or len(chosen) < 2:
        return [build(site) for site in chosen]
    from harness.fanout import executor

    tasks = [executor.Task(str(k), "harness.mutants.generation:build_task", {"site": _site_data(site)})
             for k, site in enumerate(chosen)]
    found = {int(task.key): record for task, record in executor.run(tasks, jobs=jobs, processes=True)}
    return [(None, found[k]["dropped"]) if "dropped" in found[k] else
            (GeneratedMutant(site, found[k]["source"], found[k]["before"], found[k]["after"]), "")
            for k, site in enumerate(chosen)]


def _site_data(site: Site) -> dict:
    return {"file": site.file, "operator": site.operator, "occurrence": site.occurrence,
            "start": list(site.start), "end": list(site.end)}


def build_task(payload: dict) -> dict:
    """An executor task: ``build`` of one site (as data), the mutant's text or why it is dropped."""
    data = payload["site"]
    site = Site(data["file"], data["operator"], int(data["occurrence"]), tuple(data["start"]), tuple(data["end"]))
    mutant, reason = build(site)
    if mutant is None:
        return {"dropped": reason}
    return {"source": mutant.source, "before": mutant.before, "after": mutant.after}


DROP_REASONS = {
    "unchanged": "the mutated text equals the reference's",
    "invalid": "the mutated text is not valid Python (e.g. '*' in a signature made '/')",
    "annotation only": "only a type annotation changed (never evaluated: from __future__ import annotations)",
    "duplicate": "the same text as a mutant already kept",
    "operator failed": "cosmic-ray's operator raised on the site (its ExceptionReplacer on `except (re.error, X)`)",
}


@lru_cache(maxsize=64)
def _reference_text(file: str, reference: Path = REFERENCE_DIR) -> str:
    return (reference / file).read_text(encoding="utf-8")


def build(site: Site, reference: Path = REFERENCE_DIR) -> tuple[GeneratedMutant | None, str]:
    """The mutant at ``site`` and "", or None and the reason it is dropped (a ``DROP_REASONS`` key)."""
    original = _reference_text(site.file, reference)
    try:
        operator = operator_classes()[site.operator]()
        mutated = _mutate_statement(site, reference, operator)
        if mutated is _WHOLE:
            mutated = _mutate(site.file, reference, operator, site.occurrence)
    except Exception:  # noqa: BLE001 - a library's bug on one site drops that site, never the run
        return None, "operator failed"
    if mutated is None or mutated == original:
        return None, "unchanged"
    try:
        tree = parse(mutated)
    except SyntaxError:
        return None, "invalid"
    if _annotation_only(tree, mutated, site.file, reference):
        return None, "annotation only"
    before, after = _first_change(original, mutated)
    return GeneratedMutant(site, mutated, before, after), ""


def _mutate(file: str, reference: Path, operator, occurrence: int) -> str | None:
    """``cosmic_ray.mutating.mutate_code`` of the reference's ``file``, on a copy of its parso tree
    (unpickling the tree is ~4x faster than parsing the text again, which was most of a build;
    the walk is cosmic-ray's own ``MutationVisitor``, so the text is the one ``mutate_code`` gives)."""
    visitor = MutationVisitor(occurrence, operator)
    mutated = visitor.walk(pickle.loads(_pickled_tree(file, reference)))
    return mutated.get_code() if visitor.mutation_applied else None


_WHOLE = object()   # _mutate_statement's answer when the whole module's walk must decide


def _mutate_statement(site: Site, reference: Path, operator):
    """``_mutate``'s text, from a copy of the one top-level statement that holds the site: the
    module's text before and after it kept, the statement walked by cosmic-ray's ``MutationVisitor``
    from the site's occurrence less the operator's positions in the statements before it (counted in
    the module's site list), the copy hung under the module's own node (an operator reads a node's
    parents: their types are the module's). Unpickling the whole module's tree was half of a build
    (2026-12-07: 159 builds 4.1 CPU s, 2.2 of it unpickling). ``_WHOLE`` when the module node itself is
    a position of the operator, the site is in no statement, or the statement's walk applies nothing:
    then the whole module is walked, as before. ``test_mutants_generated`` compares the two on a
    seeded sample of every module's sites."""
    module, pieces = _statements(site.file, reference)
    if next(iter(operator.mutation_positions(module)), None) is not None:
        return _WHOLE
    found = next((piece for piece in pieces if piece[0] <= site.start and site.end <= piece[1]), None)
    if found is None:
        return _WHOLE
    start, _, begin, end, data = found
    text = _reference_text(site.file, reference)
    before = sum(1 for other in _every_site(site.file, text) if other.operator == site.operator
                 and other.start < start)
    if site.occurrence < before:
        return _WHOLE
    visitor = MutationVisitor(site.occurrence - before, operator)
    statement = pickle.loads(data)
    statement.parent = module
    mutated = visitor.walk(statement)
    if not visitor.mutation_applied:
        return _WHOLE
    return text[:begin] + ("" if mutated is None else mutated.get_code()) + text[end:]


@lru_cache(maxsize=64)
def _statements(file: str, reference: Path) -> tuple[object, list[tuple]]:
    """The module's parso tree (never changed: the copies' parent) and, for each of its top-level
    children, its first and last positions, its text's span in the module's text, and its pickle."""
    module = pickle.loads(_pickled_tree(file, reference))
    pieces, offset = [], 0
    for child in module.children:
        code = child.get_code()
        child.parent = None
        try:
            data = pickle.dumps(child, protocol=pickle.HIGHEST_PROTOCOL)
        finally:
            child.parent = module
        pieces.append((child.start_pos, child.end_pos, offset, offset + len(code), data))
        offset += len(code)
    if offset != len(_reference_text(file, reference)):   # pragma: no cover - parso round-trips its text
        pieces = []
    return module, pieces


@lru_cache(maxsize=64)
def _pickled_tree(file: str, reference: Path) -> bytes:
    return pickle.dumps(get_ast(_reference_text(file, reference)), protocol=pickle.HIGHEST_PROTOCOL)


def _annotation_only(tree: ast.Module, mutated: str, file: str, reference: Path) -> bool:
    """Whether the mutant's ``tree`` (of the text ``mutated``) is the reference's ``file`` but for its
    type annotations: the two modules' ``_without_annotations`` dumps are equal. Compared a top-level
    statement at a time, as the dump of a module is its statements' in order: a statement whose text,
    from the end of the one before it to its own end, is the reference's is the same tree (its tokens
    are the same from the same place), so only the others are stripped and dumped (the whole module's
    dump was 40% of a build)."""
    chunks, dumps = _original_statements(file, reference)
    mine = _statement_chunks(tree, mutated)
    if mine is None or chunks is None:
        return _without_annotations(tree) == _original_without_annotations(file, reference)
    return len(mine) == len(chunks) and all(
        chunk == theirs or _without_annotations(statement) == dump
        for statement, chunk, theirs, dump in zip(tree.body, mine, chunks, dumps))


@lru_cache(maxsize=64)
def _original_statements(file: str, reference: Path) -> tuple[list[bytes] | None, list[str]]:
    text = _reference_text(file, reference)
    tree = parse(text)
    return _statement_chunks(tree, text), [_without_annotations(statement) for statement in tree.body]


def _statement_chunks(tree: ast.Module, text: str) -> list[bytes] | None:
    """Each top-level statement's source, from the end of the statement before it (the file's start for
    the first) to its own end, as UTF-8 (the AST's columns count bytes); None for a text with a line
    break other than "\\n" (then the whole dumps are compared)."""
    data = text.encode("utf-8", "surrogatepass")
    if b"\r" in data:
        return None
    starts = [0]
    for line in data.split(b"\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    chunks, begin = [], 0
    for statement in tree.body:
        end = starts[statement.end_lineno - 1] + statement.end_col_offset
        chunks.append(data[begin:end])
        begin = end
    return chunks


@lru_cache(maxsize=64)
def _original_without_annotations(file: str, reference: Path) -> str:
    return _without_annotations(parse(_reference_text(file, reference)))


def _without_annotations(tree: ast.AST) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        elif isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
    return ast.dump(tree)


def _first_change(original: str, mutated: str) -> tuple[str, str]:
    old, new = original.splitlines(), mutated.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag != "equal":
            return (" / ".join(s.strip() for s in old[i1:i2])[:120] or "(nothing)",
                    " / ".join(s.strip() for s in new[j1:j2])[:120] or "(nothing)")
    return "", ""
