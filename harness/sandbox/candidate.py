"""Loading the implementation under test, and checking it against the contract.

Input: a *candidate spec*, one of

- ``None``: the built-in reference, ``oracles.automaton``;
- a module name importable from ``sys.path`` (``my_constrain``, ``pkg.constrain``);
- a path to a ``.py`` file (``submission/constrain.py``);
- a path to a package directory holding an ``__init__.py`` (``submission/constrain/``).

Output: ``load_candidate(spec, ref_deps=False)`` returns the candidate's module, on which
every name of the contract (``harness/contract/constrain.pyi``) can be looked up.

``--ref-deps`` (``ref_deps=True``) supplies the reference's L8.1 sampling
(``SamplingParams``, ``sample``) and M05.2 GPT-2 byte map (``bytes_to_unicode``,
``unicode_to_bytes``) where the candidate lacks its own: they are set as attributes of
the candidate module, so the candidate's own code can call them as globals too. A name
the candidate defines itself is never replaced.

The contract check (``check_contract(module)``) reads the ``.pyi`` with ``ast`` (never
importing it) and lists the names that are missing or unusable: a missing name, a
function where a class is expected, a method missing from a class, a constant that is
not an int. It never refuses a signature: the spec fixes positions, not parameter names
or optional parameters, so ``vocab_bytes(tok)``, ``Constraint(index)`` and
``regex_to_dfa(regex)`` are all fine. ``signature_notes(module)`` lists the signatures
that cannot take the spec's call (its required arguments, by position): notes only.
Neither blocks grading: a test that needs a missing name fails with a one-line reason,
the others run (``harness.suite.plugin``). ``spec_problem(spec)`` says, without
importing anything, why a spec names nothing loadable (the grader's side).

Example::

    >>> mod = load_candidate(None)                  # the reference
    >>> check_contract(mod)
    []
    >>> load_candidate("tests/candidates/wall_regex_helper")  # a package directory
    <module 'cand_wall_regex_helper_...' ...>

A module in a package is imported as a package's module, from the folder its packages
sit in (``import_place``): the spec's layout ``python/tinyllm/infer/constrain.py`` is
imported as ``tinyllm.infer.constrain`` from ``python/`` (its ``tinyllm`` and ``infer``
folders need no ``__init__.py``), so ``from tinyllm.infer.sampling import sample`` and
``from .sampling import sample`` find the student's own L8.1 code; any other folder
holding an ``__init__.py`` counts as a package the same way. A module outside a package,
or one whose top package name is taken by an installed module, is imported by its file
alone, its folder on ``sys.path``. An import of something the submission does not hold
raises ``ModuleNotFoundError`` naming the module and the folders it was looked for in.

Errors: ``CandidateError`` (a ``ValueError``) when the spec names nothing loadable;
exceptions raised by the candidate's own import propagate unchanged. ``load_candidate``
runs the candidate's code: call it only in the candidate process
(``harness.sandbox.server``), never in the grader.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

CONTRACTS = ("constrain", "tools")
"""The lab's contract names: what ``harness.sandbox.server.Server.load`` checks the candidate
against, the automaton's contract (``harness/contract/constrain.pyi``; the reference
``oracles.automaton``) or the tool-calling surface's names (``golden.tools_replay.TOOLS_CONTRACT``;
``oracles.tools``). ``harness.sandbox.client.Candidate`` refuses any other."""
CONTRACT_PATH = Path(__file__).resolve().parents[1] / "contract" / "constrain.pyi"
REFERENCE = "oracles.automaton"

# The names --ref-deps may supply: L8.1 sampling and the M05.2 byte map (spec, "Needs").
REF_DEPS = ("SamplingParams", "sample", "bytes_to_unicode", "unicode_to_bytes")


class CandidateError(ValueError):
    """The candidate spec names nothing that can be loaded."""


class ContractError(ValueError):
    """The candidate lacks contract names or has incompatible signatures.

    ``problems`` lists one line per problem, e.g.
    ``TokenIndex.next_state: missing``.
    """

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"the candidate does not implement the contract ({CONTRACT_PATH.name}):\n{lines}")


# --------------------------------------------------------------------------- loading


def load_candidate(spec: str | None, ref_deps: bool = False) -> ModuleType:
    """The candidate module for ``spec`` (see the module docstring), with the reference's
    sampling and byte map filled in where missing when ``ref_deps`` is true."""
    if spec is not None and not isinstance(spec, str):
        raise TypeError(f"candidate spec must be a str or None, not {type(spec).__name__}")
    module = _import_spec(spec)
    if ref_deps:
        _supply_ref_deps(module)
    return module


def spec_problem(spec: str | None) -> str | None:
    """Why ``spec`` names nothing loadable, decided without importing anything (the
    grader's side of ``load_candidate``'s ``CandidateError``); None when it may load."""
    if spec is None or spec == REFERENCE:
        return None
    if not isinstance(spec, str):
        return f"candidate spec must be a str or None, not {type(spec).__name__}"
    path = Path(spec)
    if spec.endswith(".py") or path.is_dir() or "/" in spec or "\\" in spec:
        path = path.resolve()
        if path.is_dir():
            return None if (path / "__init__.py").is_file() else \
                f"candidate directory {path} has no __init__.py: not a package"
        return None if path.is_file() and path.suffix == ".py" else \
            f"candidate {str(path)!r}: no such .py file or package directory"
    if not all(part.isidentifier() for part in spec.split(".")):
        return f"candidate {spec!r}: not a module name, and no file or directory at that path"
    return None


def _import_spec(spec: str | None) -> ModuleType:
    if spec is None or spec == REFERENCE:
        return importlib.import_module(REFERENCE)
    path = Path(spec)
    if spec.endswith(".py") or path.is_dir() or "/" in spec or "\\" in spec:
        return _import_path(path)
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as exc:
        if exc.name and spec.startswith(exc.name):
            raise CandidateError(f"candidate {spec!r}: no module of that name on sys.path, "
                                 f"and no file or directory at that path") from exc
        raise


@dataclass(frozen=True)
class ImportPlace:
    """Where a candidate module given by its path is imported from.

    ``root``: the folder put on ``sys.path``, holding the module's top package (or the
    module itself when ``name`` has no dot); ``name``: the dotted name the module is
    imported as there (``tinyllm.infer.constrain``; just ``constrain`` outside a package);
    ``folder``: the module's own folder (``.../tinyllm/infer``), also on ``sys.path``, after
    ``root``, so ``import sampling`` beside it keeps working."""

    root: Path
    name: str
    folder: Path

    @property
    def folders(self) -> list[Path]:
        """The folders the candidate's imports look in, ``root`` first (each once)."""
        return list(dict.fromkeys((self.root, self.folder)))


SPEC_PACKAGES = ("tinyllm", "infer")  # the spec's layout: python/tinyllm/infer/constrain.py


def import_place(path: Path) -> ImportPlace:
    """The ``ImportPlace`` of the module at ``path`` (a ``.py`` file or a package folder).
    A folder above it is a package when it holds an ``__init__.py``, or when it continues
    the spec's package path from the module up (``infer``, then ``tinyllm``: the spec's
    namespace packages), and its name is an identifier.

    Example: ``repo/python/tinyllm/infer/constrain.py`` -> root ``repo/python``, name
    ``tinyllm.infer.constrain``; ``class/alice.py`` -> root ``class``, name ``alice``."""
    path = Path(path).resolve()
    folder = path.parent
    parts = [path.stem if path.suffix == ".py" and not path.is_dir() else path.name]
    spec_left = list(SPEC_PACKAGES)
    root = folder
    while root.name.isidentifier() and root.parent != root:
        in_spec_layout = bool(spec_left) and spec_left[-1] == root.name
        if not (in_spec_layout or (root / "__init__.py").is_file()):
            break
        parts.insert(0, root.name)
        spec_left = spec_left[:-1] if in_spec_layout else []
        root = root.parent
    return ImportPlace(root, ".".join(parts), folder)


def _import_path(path: Path) -> ModuleType:
    path = path.resolve()
    place = import_place(path)
    for folder in place.folders:  # the candidate process has them already (client); in-process loads too
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
    try:
        if "." in place.name and _imports_from(place):
            return importlib.import_module(place.name)
        return _import_file(path)
    except ModuleNotFoundError as exc:
        raise _not_in_submission(exc, place) from exc


def _imports_from(place: ImportPlace) -> bool:
    """Return True if and only if ``place.name``'s top package would be found in
    ``place.root`` (not an installed or already imported module of that name), and the
    module itself is not imported yet."""
    top = place.name.split(".", 1)[0]
    if place.name in sys.modules:
        return False
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    locations = list(found.submodule_search_locations or ()) if found is not None else []
    return bool(locations) and Path(locations[0]).resolve() == place.root / top


def _not_in_submission(exc: ModuleNotFoundError, place: ImportPlace) -> ModuleNotFoundError:
    """``exc`` (an import of a module nobody holds) reworded to say where it was looked for,
    e.g. "No module named 'tinyllm.infer.sampling': not in the submission (no
    tinyllm/infer/sampling.py or tinyllm/infer/sampling/) and not installed; looked in
    python/, python/tinyllm/infer/" (the folders from the one holding the packages' root:
    no path of the grading machine; last, so a clipped line loses only them)."""
    name = exc.name or ""
    if not name or "looked in" in str(exc):
        return exc
    relative = name.replace(".", "/")
    folders = ", ".join(f"{f.relative_to(place.root.parent)}/" for f in place.folders)  # no machine path
    error = ModuleNotFoundError(f"No module named {name!r}: not in the submission (no {relative}.py or "
                                f"{relative}/) and not installed; looked in {folders}", name=name)
    return error.with_traceback(exc.__traceback__)  # the student's line stays the place named


def _import_file(path: Path) -> ModuleType:
    if path.is_dir():
        init = path / "__init__.py"
        if not init.is_file():
            raise CandidateError(f"candidate directory {path} has no __init__.py: not a package")
        location, search = init, [str(path)]
    elif path.is_file() and path.suffix == ".py":
        location, search = path, None
    else:
        raise CandidateError(f"candidate {str(path)!r}: no such .py file or package directory")
    # A unique name per path: two candidates called constrain.py never collide, and the
    # candidate cannot shadow a module the harness uses.
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:10]
    name = f"cand_{path.stem if path.is_file() else path.name}_{digest}".replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, location, submodule_search_locations=search)
    if spec is None or spec.loader is None:  # pragma: no cover - only for exotic paths
        raise CandidateError(f"candidate {str(path)!r}: cannot build an import spec")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # so the package's relative imports find their parent
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _supply_ref_deps(module: ModuleType) -> list[str]:
    reference = importlib.import_module(REFERENCE)
    supplied = []
    for name in REF_DEPS:
        if not hasattr(module, name):
            setattr(module, name, getattr(reference, name))
            supplied.append(name)
    module.__constrain_ref_deps__ = tuple(supplied)
    return supplied


# --------------------------------------------------------------------------- the contract


@dataclass(frozen=True)
class Param:
    """One parameter of a contract signature: name, kind, and whether it has a default."""

    name: str
    kind: str  # "positional" (positional-or-keyword) or "keyword" (keyword-only)
    has_default: bool


@dataclass(frozen=True)
class Callable_:
    """A contract function or method: its name and parameters (``self`` dropped)."""

    name: str
    params: tuple[Param, ...]

    def __str__(self) -> str:
        parts = [p.name + ("=..." if p.has_default else "") for p in self.params]
        return f"{self.name}({', '.join(parts)})"


@dataclass
class Contract:
    """The contract's names, read from the ``.pyi``: constants, functions and classes
    (each class with its constructor and methods)."""

    constants: list[str] = field(default_factory=list)
    functions: dict[str, Callable_] = field(default_factory=dict)
    classes: dict[str, dict[str, Callable_]] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return self.constants + list(self.functions) + list(self.classes)


_READ: dict = {}  # (path, mtime_ns, size) -> its Contract: at most a few stubs, each read once a process


def read_contract(path: Path = CONTRACT_PATH) -> Contract:
    """Parse the contract stub with ``ast`` (no import, no execution), once a process for a
    stub as it is on disk (the zygote reads it before it forks, so a generated mutant's
    candidate process parses nothing: ~9 ms of each load, twice). Read-only for the caller."""
    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
    except OSError:
        key = None
    if key is not None and key in _READ:
        return _READ[key]
    contract = _parse_contract(path)
    if key is not None and len(_READ) < 8:
        _READ[key] = contract
    return contract


def _parse_contract(path: Path) -> Contract:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    contract = Contract()
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            contract.constants.append(node.target.id)  # e.g. DEAD: int
        elif isinstance(node, ast.FunctionDef):
            contract.functions[node.name] = _callable(node, drop_self=False)
        elif isinstance(node, ast.ClassDef):
            methods = {n.name: _callable(n, drop_self=True) for n in node.body if isinstance(n, ast.FunctionDef)}
            contract.classes[node.name] = methods
    return contract


def _callable(node: ast.FunctionDef, drop_self: bool) -> Callable_:
    signature = node.args
    positional = signature.posonlyargs + signature.args
    n_defaults = len(signature.defaults)
    params = []
    for i, arg in enumerate(positional):
        if drop_self and i == 0:
            continue
        params.append(Param(arg.arg, "positional", i >= len(positional) - n_defaults))
    for arg, default in zip(signature.kwonlyargs, signature.kw_defaults):
        params.append(Param(arg.arg, "keyword", default is not None))
    return Callable_(node.name, tuple(params))


def check_contract(module, contract: Contract | None = None) -> list[str]:
    """The contract names ``module`` lacks or provides unusably (a constant that is not an
    int, a function or method that is not callable, a class that is not a class), one line
    each; ``[]`` when every name is there. Signatures are never a problem here: the spec
    fixes positions, not parameter names or optional parameters (``signature_notes``)."""
    contract = contract or read_contract()
    problems: list[str] = []
    for name in contract.constants:
        if not hasattr(module, name):
            problems.append(f"{name}: missing (a module-level constant)")
        elif not isinstance(getattr(module, name), int):
            problems.append(f"{name}: expected an int, got {type(getattr(module, name)).__name__}")
    for name, expected in contract.functions.items():
        problems += _check_callable(module, name, expected, f"{name}")
    for name, methods in contract.classes.items():
        problems += _check_class(module, name, methods)
    return problems


def missing_names(problems: list[str]) -> dict[str, str]:
    """``{"TokenIndex.next_state": "missing (...)", ...}`` from ``check_contract``'s lines."""
    return dict(line.split(": ", 1) for line in problems if ": " in line)


def signature_notes(module, contract: Contract | None = None) -> list[str]:
    """Signatures that cannot take the spec's call (its required arguments, by position),
    one line each. Notes only: the tests that make such a call fail with the candidate's
    own TypeError, the others run."""
    contract = contract or read_contract()
    notes: list[str] = []
    for name, expected in contract.functions.items():
        notes += _arity_note(getattr(module, name, None), expected, name, bound=True)
    for name, methods in contract.classes.items():
        cls = getattr(module, name, None)
        if not isinstance(cls, type):
            continue
        for method_name, expected in methods.items():
            if method_name == "__init__":
                notes += _arity_note(cls, expected, f"{name}(...)", bound=True)
            else:
                notes += _arity_note(getattr(cls, method_name, None), expected, f"{name}.{method_name}", bound=False)
    return notes


def _check_class(module, name: str, methods: dict[str, Callable_]) -> list[str]:
    if not hasattr(module, name):
        return [f"{name}: missing (a class)"]
    cls = getattr(module, name)
    if not isinstance(cls, type):
        return [f"{name}: expected a class, got {type(cls).__name__}"]
    problems = []
    for method_name, expected in methods.items():
        if method_name != "__init__":
            problems += _check_callable(cls, method_name, expected, f"{name}.{method_name}")
    return problems


def _check_callable(owner, name: str, expected: Callable_, label: str) -> list[str]:
    if not hasattr(owner, name):
        return [f"{label}: missing (expected {expected})"]
    obj = getattr(owner, name)
    if not callable(obj):
        return [f"{label}: expected a callable, got {type(obj).__name__}"]
    return []


def _arity_note(obj, expected: Callable_, label: str, bound: bool) -> list[str]:
    """A note when ``obj`` cannot be called with the contract's required positional
    arguments: it requires more, or accepts fewer."""
    if obj is None or not callable(obj):
        return []
    try:
        params = list(inspect.signature(obj).parameters.values())
    except (TypeError, ValueError):
        return []  # a builtin without an introspectable signature: the tests will tell
    kinds = inspect.Parameter
    if not bound and params and params[0].kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD):
        params = params[1:]  # an unbound method: drop self
    wanted = sum(1 for p in expected.params if p.kind == "positional" and not p.has_default)
    positional = [p for p in params if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
    required = sum(1 for p in positional if p.default is kinds.empty)
    required_kw = [p.name for p in params if p.kind == kinds.KEYWORD_ONLY and p.default is kinds.empty]
    var_pos = any(p.kind == kinds.VAR_POSITIONAL for p in params)
    shown = f"(expected {expected}, got {label.split('(')[0]}{_render(params)})"
    if required > wanted or required_kw:
        return [f"{label}: requires arguments the spec's call does not pass {shown}"]
    if len(positional) < wanted and not var_pos:
        return [f"{label}: takes fewer positional arguments than the spec passes {shown}"]
    return []


def _render(params) -> str:
    return "(" + ", ".join(str(p) for p in params) + ")"


def require_contract(module) -> None:
    """Raise ``ContractError`` listing every problem, or return quietly."""
    problems = check_contract(module)
    if problems:
        raise ContractError(problems)
