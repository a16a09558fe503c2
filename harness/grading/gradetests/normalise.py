"""What a student's suite sees of an implementation: its behaviour, in the contract's words.

Every answer the relay (``relay.Gate``) hands the suite goes through this one
normalisation, so two implementations that behave the same on a suite's inputs show it
the same thing, whatever their code, class names, messages or internals:

- **an exception** becomes the most derived of Python's own exception classes it derives
  from (``error_class``: the reference's ``UnsupportedSyntax(PatternError(ValueError))``
  is a ``ValueError``; anything not an ``Exception`` is an ``Exception``) with a message
  computed from the contract call and that class alone (``error``): e.g.
  ``"regex_to_dfa raised ValueError"``, ``"Constraint.advance raised ValueError"``,
  ``"len(DFA) raised TypeError"``. The implementation's own message, file and line never
  cross. The spec (section 4 and its test table) specifies no message text (it says only
  that input is refused or an error is raised), so no message content is kept;
- **a value** is the contract's data: numpy scalars as Python's ``bool``, ``int``,
  ``float``, ``complex``; arrays in native byte order (the channel already hands over an
  owned, C-contiguous, writable copy); in lists, tuples, sets and dict keys and values
  alike (``value``);
- **an object** (a handle) is named by what the contract says the call returns, never by
  the implementation's class (``ContractShapes.returned``): ``regex_to_dfa`` -> ``DFA``,
  ``TokenIndex(...)`` -> ``TokenIndex``, ``Constraint.index`` -> ``TokenIndex``, a
  module function -> ``function``, a module class -> ``class``; anything else the
  contract does not name is an ``object``. Its methods and attributes are the contract's
  (``CONTRACT``), the rest is not served; its number is the gate's own, a fresh one per
  answer, so neither an implementation's caches nor the identity of its objects show.

What still differs between implementations is behaviour: which call raises, the builtin
class, the values returned, a crash or a limit (``gone``), how far a call advances a
numpy generator it is handed, and how long it takes.

``CONTRACT`` is read from ``harness/contract/constrain.pyi`` (its classes' annotated
attributes and methods, its functions' return annotations). Example::

    >>> error_class(["UnicodeDecodeError", "UnicodeError", "ValueError", "Exception", "BaseException"])
    'UnicodeError'
    >>> error("Constraint.advance", ["ValueError", "Exception", "BaseException"])["message"]
    'Constraint.advance raised ValueError'
    >>> value((numpy.int64(3), [numpy.bool_(True)]))
    (3, [True])
    >>> CONTRACT.returned("call", "regex_to_dfa")
    'DFA'
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from pathlib import Path

import numpy

from harness.sandbox.candidate import CONTRACT_PATH

FUNCTION, CLASS, OBJECT = "function", "class", "object"
"""The kinds of a handle whose object the contract names no class for."""


@dataclass(frozen=True)
class ContractShapes:
    """What the contract says of each name: ``attributes`` (class -> its public annotated
    attributes -> annotation), ``methods`` (class -> its public methods -> return
    annotation) and ``functions`` (module function -> return annotation). Annotations
    are their source text (``"DFA"``, ``"int | None"``)."""

    attributes: dict[str, dict[str, str]] = field(default_factory=dict)
    methods: dict[str, dict[str, str]] = field(default_factory=dict)
    functions: dict[str, str] = field(default_factory=dict)

    def returned(self, op: str, name: str, owner: str | None = None) -> str:
        """The kind of the object that ``op`` (``getattr`` of an attribute, ``call`` or
        ``many`` of a function, class or method) of ``name`` on an object of kind
        ``owner`` returns (``owner`` None: the module's own name)."""
        if owner is None:
            if op == "getattr":
                return CLASS if name in self.methods else FUNCTION if name in self.functions else OBJECT
            return name if name in self.methods else self._named(self.functions.get(name, ""))
        if op == "getattr":
            return self._named(self.attributes.get(owner, {}).get(name, ""))
        return self._named(self.methods.get(owner, {}).get(name, ""))

    def members(self, kind: str) -> frozenset[str]:
        """The attribute and method names the contract gives objects of ``kind``."""
        return frozenset(self.attributes.get(kind, {})) | frozenset(self.methods.get(kind, {}))

    def _named(self, annotation: str) -> str:
        return annotation if annotation in self.methods else OBJECT


def read_shapes(path: Path = CONTRACT_PATH) -> ContractShapes:
    """The contract stub's shapes (``ast``: no import, no execution)."""
    shapes = ContractShapes()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef):
            shapes.functions[node.name] = _annotation(node.returns)
        elif isinstance(node, ast.ClassDef):
            shapes.attributes[node.name] = {n.target.id: _annotation(n.annotation) for n in node.body
                                            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
                                            and not n.target.id.startswith("_")}
            shapes.methods[node.name] = {n.name: _annotation(n.returns) for n in node.body
                                         if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    return shapes


def _annotation(node) -> str:
    return ast.unparse(node) if node is not None else ""


CONTRACT = read_shapes()


# ------------------------------------------------------------------ exceptions


def error_class(kinds: list[str]) -> str:
    """The class a suite sees for an exception whose builtin classes are ``kinds`` (most
    derived first, as the implementation's process sends them): the first that is an
    ``Exception`` and can be raised with a message alone; else ``Exception``."""
    for kind in kinds:
        cls = getattr(builtins, str(kind), None)
        if isinstance(cls, type) and issubclass(cls, Exception) and _takes_a_message(cls):
            return cls.__name__
    return "Exception"


def _takes_a_message(cls: type) -> bool:
    try:
        cls("a message")
    except TypeError:  # e.g. UnicodeDecodeError wants five arguments
        return False
    return True


def error(label: str, kinds: list[str]) -> dict:
    """The error reply a suite gets for an exception of builtin classes ``kinds`` raised by
    the contract call ``label``: the class of ``error_class``, its builtin bases, and a
    message from ``label`` and the class alone."""
    name = error_class(kinds)
    bases = [k.__name__ for k in getattr(builtins, name).__mro__ if issubclass(k, BaseException)]
    return {"type": name, "kinds": bases, "message": f"{label} raised {name}"}


def gone(label: str) -> str:
    """What a suite is told when the implementation's process ended (a crash, a limit)."""
    return f"the implementation stopped answering during {label} (its process ended or ran out of time)"


def label(op: str, owner: str, name: str | None) -> str:
    """The contract's words for a request: ``op`` on an object the suite knows as
    ``owner`` (``constrain`` for the module, a kind, or a function or class's name),
    e.g. ``regex_to_dfa``, ``DFA.step``, ``TokenIndex.dfa``, ``len(DFA)``."""
    if op in ("call", "many", "getattr"):
        if name is None:
            return owner
        return name if owner == "constrain" and op != "getattr" else f"{owner}.{name}"
    if op == "getitem":
        return f"{owner}[...]"
    return f"{op}({owner})"


# ------------------------------------------------------------------ values


PLAIN = frozenset({type(None), bool, int, float, complex, str, bytes})
"""Types ``value`` keeps as they are: a list or tuple of them only is kept whole (a
vocabulary's 50,000 tokens in one pass of C code)."""


def value(data):
    """``data`` (decoded from the implementation, handles already replaced) with numpy
    scalars as Python's and arrays in native byte order, in every container."""
    if type(data) in (list, tuple) and PLAIN.issuperset(map(type, data)):
        return data
    if isinstance(data, numpy.ndarray):
        return data if data.dtype.isnative else data.astype(data.dtype.newbyteorder("="))
    if isinstance(data, numpy.generic):
        return data.item()
    if isinstance(data, list):
        return [value(v) for v in data]
    if isinstance(data, tuple):
        return tuple(value(v) for v in data)
    if isinstance(data, (set, frozenset)):
        return type(data)(value(v) for v in data)
    if isinstance(data, dict):
        return {value(k): value(v) for k, v in data.items()}
    return data
