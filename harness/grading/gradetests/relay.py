"""The grader between the student's tests and the implementation: the gate and the relay.

The student's process and the implementation's process never share a channel: the grader
reads each request from the student (``harness.grading.gradetests.shim``), lets the ``Gate`` refuse
what could reveal which implementation it is, forwards the rest to a
``ServedImplementation`` (a wall ``Candidate`` that passes frames through untouched), and
sends the reply back after the gate has normalised it.

What the gate guarantees (``Gate.refusal``, ``Gate.answer``, ``Gate.clean``):

- the module's attributes are only its public names (``public_names``: the contract's),
  never ``__file__``, ``__name__``, imported modules (``os``, ``inspect``), ...; an
  object's attributes and methods are only the contract's for its kind
  (``normalise.CONTRACT``: ``DFA.trans``, ``Constraint.advance``, ...), none of a
  function, a class or an object the contract does not name;
- no attribute or method whose name starts with ``_`` on any object (no ``__globals__``,
  ``__code__``, ``__class__``, ``__subclasses__``), no ``repr``/``str``/``load`` request;
- only handles the gate itself handed out may be used, and no module object ever crosses
  (a reply holding one becomes a refusal);
- every answer reaches the tests through one normalisation (``normalise``): an exception
  as the builtin class it derives from with a message from the contract call and that
  class alone (never the implementation's message, file or line), values as the
  contract's data, objects under the contract's names and the gate's own numbers (a new
  one per answer; ``inward`` maps them back), equality of objects as their identity to
  the tests (``answer``). What the tests see depends only on the implementation's
  behaviour on their inputs.

Example::

    >>> gate = Gate(["regex_to_dfa", "DEAD"])
    >>> gate.refusal(["getattr", 1, "__file__", [], {}])
    "the module's attribute '__file__' is not part of the contract"
    >>> gate.clean(["call", 1, "regex_to_dfa", ["^a"], {}],
    ...            ["err", {"type": "UnsupportedSyntax", "kinds": ["ValueError"], "message": "anchor"}, None])[1]
    {'type': 'ValueError', 'kinds': ['ValueError', 'Exception', 'BaseException'],
     'message': 'regex_to_dfa raised ValueError'}
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.grading.gradetests import normalise
from harness.sandbox import channel
from harness.sandbox.candidate import read_contract
from harness.sandbox.client import Candidate

OPS = frozenset({"getattr", "call", "many", "len", "iter", "getitem", "bool", "int", "float", "index", "eq",
                 "contains"})
DESCRIBED_KINDS = frozenset({"rng", "tokenizers.Tokenizer", "shape"})
ROOT = 1  # the module's handle number in the implementation process


def public_names() -> list[str]:
    """The names a test may read from the module: the contract's (``harness/contract``)."""
    return sorted(read_contract().names)


class ServedImplementation(Candidate):
    """A wall ``Candidate`` whose requests arrive already encoded from the student."""

    # every implementation grade-tests serves is the staff's (a wheat or a chaff): the reference
    # is lent to it; the student's code here is the suite, confined apart (suite_run)
    STAFF_MADE = True

    def forward(self, request: list) -> list:
        """One raw round trip: ``[status, value, extras]`` as the implementation sent it
        (``Candidate.exchange``). Raises ``CandidateGone`` (crash, timeout, protocol)
        like ``Candidate.request``."""
        return self.exchange(request, "a test's request")


@dataclass(frozen=True)
class Shown:
    """A handle the gate handed the tests: the implementation's own number for the object,
    the kind the tests know it as (``normalise.ContractShapes.returned``) and its name for
    messages (the kind, or a function or class's contract name)."""

    target: int
    kind: str
    name: str


class Gate:
    """What may cross between the student's tests and the implementation (module docstring)."""

    def __init__(self, names: list[str]):
        self.names = frozenset(names)
        self.shown: dict[int, Shown] = {ROOT: Shown(ROOT, "module", "constrain")}  # by the tests' numbers
        self.next_number = ROOT + 1

    def refusal(self, request) -> str | None:
        """Why ``request`` may not be forwarded (None: it may)."""
        if not (isinstance(request, list) and len(request) == 5):
            return "a malformed request"
        op, target, name, args, kwargs = request
        if op not in OPS:
            return f"the request {op!r} is not served to tests"
        if not isinstance(target, int) or target not in self.shown:
            return f"no object #{target!r} was handed to the tests"
        if name is not None and (not isinstance(name, str) or name.startswith("_")):
            return f"the attribute {name!r} is not served to tests (names starting with '_' are private)"
        if target == ROOT and (op not in ("getattr", "call") or name not in self.names):
            return f"the module's attribute {name!r} is not part of the contract"
        shown = self.shown[target]
        if target != ROOT and name is not None and name not in normalise.CONTRACT.members(shown.kind):
            return f"{shown.name}.{name} is not part of the contract (tests are served the contract's names only)"
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            return "a malformed request"
        return self._argument_refusal([args, kwargs])

    def _argument_refusal(self, value, depth: int = 0) -> str | None:
        if isinstance(value, channel.Handle):
            if value.id == ROOT or value.id not in self.shown:
                return f"object #{value.id} cannot be passed"
            return None
        if isinstance(value, channel.Described):
            return None if value.kind in DESCRIBED_KINDS else f"an argument of kind {value.kind!r} cannot be passed"
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
        for item in items:
            why = self._argument_refusal(item, depth + 1)
            if why:
                return why
        return None

    def answer(self, request: list) -> list | None:
        """The reply to a request the gate answers itself (None: forward it): ``eq`` is
        the identity of the tests' handles (the contract defines no equality of its
        objects, and an implementation's ``__eq__`` is not its behaviour)."""
        op, target, _name, args, _kwargs = request
        if op == "eq":
            other = args[0] if args else None
            return ["ok", isinstance(other, channel.Handle) and other.id == target, None]
        return None

    def inward(self, request: list) -> list:
        """A request the gate let through (``refusal``) as the implementation reads it:
        every handle by the implementation's own number."""
        op, target, name, args, kwargs = request
        return [op, self.shown[target].target, name, self._inward(args), self._inward(kwargs)]

    def _inward(self, value):
        if isinstance(value, channel.Handle):
            shown = self.shown[value.id]
            return channel.Handle(shown.target, shown.kind)
        if isinstance(value, list):
            return [self._inward(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self._inward(v) for v in value)
        if isinstance(value, dict):
            return {k: self._inward(v) for k, v in value.items()}
        return value

    def label(self, request: list) -> str:
        """The request in the contract's words (``normalise.label``)."""
        op, target, name = request[:3]
        return normalise.label(op, self.shown[target].name, name)

    def clean(self, request: list, reply: list) -> list:
        """The implementation's reply to ``request`` as the tests may see it: normalised
        (``normalise``: errors, values, handles; module docstring)."""
        status, value, extras = reply
        extras = normalise.value(extras) if isinstance(extras, dict) else None
        if status == "err":
            info = value if isinstance(value, dict) else {}
            kinds = [k for k in info.get("kinds", []) if isinstance(k, str)]
            return ["err", normalise.error(self.label(request), kinds), extras]
        found: list[str] = []
        value = self._show(value, self._returned(request), request[0] == "many", found)
        if "module" in found:
            return refused("a module object is not served to tests")[:2] + [extras]
        return ["ok", normalise.value(value), extras]

    def _returned(self, request: list) -> Shown:
        """The kind (and name) of an object ``request`` returns, by the contract."""
        op, target, name = request[:3]
        shown = self.shown[target]
        if op not in ("call", "many", "getattr"):
            return Shown(0, normalise.OBJECT, normalise.OBJECT)
        if target == ROOT:
            kind = normalise.CONTRACT.returned(op, name)
            return Shown(0, kind, name if kind in (normalise.FUNCTION, normalise.CLASS) else kind)
        if name is None and shown.kind == normalise.CLASS:
            return Shown(0, shown.name, shown.name)
        if name is None and shown.kind == normalise.FUNCTION:
            kind = normalise.CONTRACT.returned("call", shown.name)
            return Shown(0, kind, kind)
        kind = normalise.CONTRACT.returned(op, name, shown.kind) if name is not None else normalise.OBJECT
        return Shown(0, kind, kind)

    def _show(self, value, returned: Shown, many: bool, kinds: list[str]):
        """``value`` with every handle given a new number of the tests' own: the handle it
        is (or, in a ``many`` reply, each of its items) as ``returned``, any other as an
        ``object``; the kinds the implementation gave them are appended to ``kinds``."""
        if isinstance(value, channel.Handle):
            kinds.append(value.kind)
            number, self.next_number = self.next_number, self.next_number + 1
            self.shown[number] = Shown(value.id, returned.kind, returned.name)
            methods = tuple(normalise.CONTRACT.methods.get(returned.kind, {}))
            return channel.Handle(number, returned.kind, methods)
        if type(value) in (list, tuple) and normalise.PLAIN.issuperset(map(type, value)):
            return value  # no handle in it (a vocabulary's tokens)
        inner = returned if many else Shown(0, normalise.OBJECT, normalise.OBJECT)
        if isinstance(value, list):
            return [self._show(v, inner, False, kinds) for v in value]
        if isinstance(value, tuple):
            return tuple(self._show(v, inner, False, kinds) for v in value)
        if isinstance(value, (set, frozenset)):
            return type(value)(self._show(v, inner, False, kinds) for v in value)
        if isinstance(value, dict):
            return {self._show(k, inner, False, kinds): self._show(v, inner, False, kinds) for k, v in value.items()}
        return value


def refused(message: str, kind: str = "AttributeError") -> list:
    """The reply the tests get for a refused request."""
    return ["err", {"type": kind, "kinds": [kind, "Exception"], "message": message}, None]
