"""The grader between the student's tests and the implementation: the gate and the relay.

The student's process and the implementation's process never share a channel: the grader
reads each request from the student (``harness.grading.gradetests.shim``), lets the ``Gate`` refuse
what could reveal which implementation it is, forwards the rest to a
``ServedImplementation`` (a wall ``Candidate`` that passes frames through untouched), and
sends the reply back after the gate has cleaned it.

What the gate guarantees (``Gate.refusal`` / ``Gate.clean``):

- the module's attributes are only its public names (``public_names``: the contract's),
  never ``__file__``, ``__name__``, imported modules (``os``, ``inspect``), ...;
- no attribute or method whose name starts with ``_`` on any object (no ``__globals__``,
  ``__code__``, ``__class__``, ``__subclasses__``), no ``repr``/``str``/``load`` request;
- only handles the gate itself handed out may be used, and no module object ever crosses
  (a reply holding one becomes a refusal);
- error replies lose their ``where`` (file and line) and any mention of the
  implementation's package name or folder.

Example::

    >>> gate = Gate(["regex_to_dfa", "DEAD"], hide=["mutant_s05"])
    >>> gate.refusal(["getattr", 1, "__file__", [], {}])
    "the module's attribute '__file__' is not part of the contract"
"""

from __future__ import annotations

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

    def forward(self, request: list) -> list:
        """One raw round trip: ``[status, value, extras]`` as the implementation sent it
        (``Candidate.exchange``). Raises ``CandidateGone`` (crash, timeout, protocol)
        like ``Candidate.request``."""
        return self.exchange(request, "a test's request")


class Gate:
    """What may cross between the student's tests and the implementation (module docstring)."""

    def __init__(self, names: list[str], hide: list[str]):
        self.names = frozenset(names)
        self.hide = sorted({h for h in hide if h and len(h) > 2}, key=len, reverse=True)
        self.kinds: dict[int, str] = {ROOT: "module"}  # handles handed out -> their kind

    def refusal(self, request) -> str | None:
        """Why ``request`` may not be forwarded (None: it may)."""
        if not (isinstance(request, list) and len(request) == 5):
            return "a malformed request"
        op, target, name, args, kwargs = request
        if op not in OPS:
            return f"the request {op!r} is not served to tests"
        if not isinstance(target, int) or target not in self.kinds:
            return f"no object #{target!r} was handed to the tests"
        if name is not None and (not isinstance(name, str) or name.startswith("_")):
            return f"the attribute {name!r} is not served to tests (names starting with '_' are private)"
        if target == ROOT and (op not in ("getattr", "call") or name not in self.names):
            return f"the module's attribute {name!r} is not part of the contract"
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            return "a malformed request"
        return self._argument_refusal([args, kwargs])

    def _argument_refusal(self, value, depth: int = 0) -> str | None:
        if isinstance(value, channel.Handle):
            if value.id == ROOT or value.id not in self.kinds:
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

    def clean(self, reply: list) -> list:
        """The reply as the tests may see it (module docstring)."""
        status, value, extras = reply
        if status == "err":
            return ["err", self._clean_error(value), extras]
        found: list[str] = []
        value = self._record(value, found)
        if "module" in found:
            return refused("a module object is not served to tests")[:2] + [extras]
        return ["ok", value, extras]

    def _record(self, value, kinds: list[str]):
        """``value`` with every handle remembered and its private method names dropped;
        the kinds of the handles are appended to ``kinds``."""
        if isinstance(value, channel.Handle):
            self.kinds[value.id] = value.kind
            kinds.append(value.kind)
            return channel.Handle(value.id, value.kind, tuple(m for m in value.methods if not m.startswith("_")))
        if isinstance(value, list):
            return [self._record(v, kinds) for v in value]
        if isinstance(value, tuple):
            return tuple(self._record(v, kinds) for v in value)
        if isinstance(value, dict):
            return {k: self._record(v, kinds) for k, v in value.items()}
        return value

    def _clean_error(self, info) -> dict:
        info = info if isinstance(info, dict) else {}
        kinds = [k for k in info.get("kinds", []) if isinstance(k, str)]
        return {"type": self.scrub(str(info.get("type", "Error"))), "kinds": kinds,
                "message": self.scrub(str(info.get("message", "")))}

    def scrub(self, text: str) -> str:
        for secret in self.hide:
            text = text.replace(secret, "<implementation>")
        return text


def refused(message: str, kind: str = "AttributeError") -> list:
    """The reply the tests get for a refused request."""
    return ["err", {"type": kind, "kinds": [kind, "Exception"], "message": message}, None]
