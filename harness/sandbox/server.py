"""The candidate process: imports the candidate and answers the grader's requests.

Runs as ``python -I -B -c "...; harness.sandbox.server.main(FD)"`` inside the
confinement (``harness.sandbox.confine``); ``FD`` is its end of the channel
(``harness.sandbox.channel``). Everything the candidate's code touches stays here:
objects it returns are kept in ``Server.objects`` and sent as ``Handle`` numbers;
arguments the grader sends are data, handles back to those objects, or descriptions
rebuilt here (tokenizers, ``numpy.random.Generator``, ``SamplingParams``).

Requests are lists ``[op, target, name, args, kwargs]``; replies are
``["ok", value, extras]`` or ``["err", error, extras]`` where ``error`` is
``{"type", "kinds", "message", "where"}`` (``kinds``: the builtin exception classes in its
MRO, so the grader can re-raise a ValueError as a ValueError) and ``extras`` holds
``{"rng": [state, ...]}``, the new state of each generator argument, in argument order,
and ``"written": [[key, array], ...]``, each array argument of a ``call`` that the
candidate changed in place (position or keyword), which the grader writes back into its own.

Ops: ``load`` (name: the spec, args: [ref_deps]), ``getattr``, ``call`` (name None: call
the target itself), ``many`` (args: a list of argument lists, one call each; the batched
path for hot loops), ``plan`` (name: its kind, a label; args: ``[steps]``, carried out by
``harness.sandbox.plans``: every batched loop of the catalogue, ``harness.suite.batched``),
``repeat`` (args: ``[count, call_args, call_kwargs]``: ``count`` calls of
the target with the same arguments, each ``Described("fresh", ...)`` among them built anew
before each call; see ``Server.repeat``), ``len``, ``iter`` (at most ``MAX_ITEMS`` items), ``getitem``,
``bool``, ``int``, ``float``, ``index``, ``repr``, ``str``, ``contains`` (never ``==``: the
grader's proxy compares handles, so an object that equals everything cannot pass a test).
A ``many`` reply holds exactly one answer per call; the grader refuses any other count
(``client.RemoteMethod.many``), since this process may have been rewritten by the candidate;
likewise a ``repeat`` reply ``[answers, error]`` holds exactly ``count`` answers when
``error`` is None, fewer otherwise (``client.Candidate.repeat``).

Under the tools contract a handle also carries its object's plain public attributes
(``_snapshot``): the tools replay reads every field of thousands of events and calls
(``golden/tools_replay.py``), and the grader's proxy answers those reads without a round
trip while nothing else has been asked (46,200 -> 21,400 round trips for a replay of
tools_golden.json). Only where a read runs none of the candidate's code, so the candidate
cannot tell; never under the constrain contract, which grade-tests relays to a student's
suite.

Bounds: ``MAX_OBJECTS`` live handles, ``MAX_ITEMS`` items from ``iter``, ``MAX_REPEAT``
calls in one ``repeat``; a snapshot ``MAX_SNAPSHOT_FIELDS`` attributes, each str or bytes
``MAX_SNAPSHOT_CHARS`` long.

This module trusts nothing it receives beyond the channel's own checks, and the grader
trusts nothing it sends: a candidate can rewrite this process at will.
"""

from __future__ import annotations

import builtins
import gc
import os
import socket
import sys
import traceback
from itertools import chain

from harness.sandbox.plans import NO_DATA, RNG_KINDS

MAX_OBJECTS = 1_000_000
MAX_ITEMS = 10_000_000
MAX_REPEAT = 100_000  # calls in one ``repeat`` request (the grader checks it before sending, too)
_PLAIN_TYPES = frozenset({type(None), bool, int, float, str, bytes})  # resolved as themselves
_SEEDS = None  # a numpy SeedSequence made once: the placeholder seed of a rebuilt generator


class Server:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.objects: dict[int, object] = {}
        self.ids: dict[int, int] = {}  # id(obj) -> handle number (objects are kept alive, so ids are stable)
        self.rngs: list = []
        self.arrays: list = []  # (key, array, copy) of the current call's array arguments
        self.keep_errors = False  # send a raised exception's handle too (the tools contract)
        self.snapshots = False  # send a handle's plain attributes with it (``_snapshot``; the tools contract)
        self.repeating: dict | None = None  # within a repeat: id(rng description) -> its one generator
        self.batching = False  # within a plan (``plans.run``): no array argument is written back
        from harness.sandbox.channel import Described, Handle

        self.kinds = (Described, Handle)

    # ------------------------------------------------------------------ handles

    def to_handle(self, obj, snapshot: bool = True):
        """The handle of ``obj`` (registered on first sight); with its ``_snapshot`` when
        snapshots are on and ``snapshot`` (not for an answer a batched loop keeps: more of
        the candidate's code runs before the grader reads it)."""
        from harness.sandbox.channel import Handle

        number = self.ids.get(id(obj))
        if number is None:
            if len(self.objects) >= MAX_OBJECTS:
                raise MemoryError(f"more than {MAX_OBJECTS} live objects held for the grader")
            number = len(self.objects) + 1
            self.objects[number] = obj
            self.ids[id(obj)] = number
        methods = _methods(obj)
        return Handle(number, _kind(obj), methods, _snapshot(obj, methods) if self.snapshots and snapshot else None)

    def resolve(self, value, depth: int = 0):
        """Handles back to objects, descriptions to rebuilt objects (recursively). Within a
        ``repeat`` (``self.repeating``) this runs once per call, so each call gets what a
        single call would have got: its own lists, dicts and nested arrays, a
        ``Described("fresh", ...)`` among the repeat's own arguments (depth 1) built anew;
        but one generator per description for all the calls (``rebuild``)."""
        kind = type(value)
        if kind in _PLAIN_TYPES:  # what every test below would have let through: itself
            return value
        Described, Handle = self.kinds
        if kind is list:  # data only (a history; a batch's argument lists): copies, as below
            if _PLAIN_TYPES.issuperset(map(type, value)):
                return list(value)
            if set(map(type, value)) == {list} and _PLAIN_TYPES.issuperset(map(type, chain.from_iterable(value))):
                return [list(v) for v in value]
        if kind is Handle or isinstance(value, Handle):
            if value.id not in self.objects:
                raise ValueError(f"no object with handle {value.id}")
            return self.objects[value.id]
        if isinstance(value, Described):
            if value.kind == "fresh":
                if self.repeating is None or depth != 1:
                    raise ValueError("a fresh argument is allowed only among a repeat's own arguments")
                return self.fresh(value.data)
            return self.rebuild(value)
        if isinstance(value, list):
            return [self.resolve(v, depth + 1) for v in value]
        if isinstance(value, tuple):
            return tuple(self.resolve(v, depth + 1) for v in value)
        if isinstance(value, dict):
            return {k: self.resolve(v, depth + 1) for k, v in value.items()}
        if self.repeating is not None and depth > 1 and type(value).__name__ == "ndarray":
            return value.copy()  # nested: a single call would get its own copy (only top-level ones are written back)
        return value

    def fresh(self, data):
        """``{"target": handle number, "name": str | None, "args": [...], "kwargs": {...}}``:
        the result of ``target.name(*args, **kwargs)`` (``name`` None: the target itself)."""
        if not (isinstance(data, dict) and set(data) == {"target", "name", "args", "kwargs"}
                and isinstance(data["args"], list) and isinstance(data["kwargs"], dict)):
            raise ValueError("malformed fresh argument")
        target = self.objects[data["target"]] if data["target"] in self.objects else _missing(data["target"])
        function = target if data["name"] is None else getattr(target, str(data["name"]))
        return function(*self.resolve(data["args"], 2), **self.resolve(data["kwargs"], 2))

    def rebuild(self, described):
        kind, data = described.kind, described.data
        if kind == "rng":
            if self.repeating is not None and id(described) in self.repeating:
                return self.repeating[id(described)]  # one generator for all the calls of a repeat
            rng = _generator(data)
            self.rngs.append(rng)
            if self.repeating is not None:
                self.repeating[id(described)] = rng
            return rng
        from harness.sandbox.arguments import rebuild_argument

        return rebuild_argument(kind, data, self.objects)

    # ------------------------------------------------------------------ requests

    def serve(self) -> None:
        from harness.sandbox.channel import ChannelClosed, receive, send

        while True:
            try:
                request = receive(self.sock, None)
            except ChannelClosed:
                return
            self.rngs, self.arrays = [], []
            try:
                reply = ["ok", self.handle(request), None]
            except BaseException as exc:  # noqa: BLE001 - every candidate exception goes back as data
                reply = ["err", self.error(exc), None]
            extras = {}
            if self.rngs:
                extras["rng"] = [rng.bit_generator.state for rng in self.rngs]
            written = _written(self.arrays)
            if written:
                extras["written"] = written
            reply[2] = extras or None
            try:
                send(self.sock, reply, self.to_handle)
            except BaseException as exc:  # noqa: BLE001 - e.g. an unencodable value
                send(self.sock, ["err", _error(exc), reply[2]], self.to_handle)

    def error(self, exc: BaseException) -> dict:
        """``_error(exc)``; under the tools contract also ``"handle"``: an exception of the
        candidate's own class (a ``ToolError``; never a builtin one such as the
        AttributeError of a ``hasattr`` probe) kept without its traceback, so the grader can
        read its fields (``status``, ``to_json()``)."""
        info = _error(exc)
        if self.keep_errors and isinstance(exc, Exception) and type(exc).__module__ != "builtins":
            try:
                exc.__traceback__ = None
                info["handle"] = self.to_handle(exc)
            except BaseException:  # noqa: BLE001 - e.g. the handle bound: the error without it
                pass
        return info

    def handle(self, request):
        op, target, name, args, kwargs = request
        if op == "load":
            return self.load(name, bool(args[0]), str(args[1]) if len(args) > 1 else "constrain")
        if op == "plan":  # name: the plan's kind, a label for messages (the catalogue's, harness.suite.batched)
            from harness.sandbox import plans

            if not (isinstance(args, list) and len(args) == 1) or kwargs:
                raise TypeError("plan: the arguments must be [steps]")
            return plans.run(self, args[0])
        obj = self.objects[target] if target in self.objects else _missing(target)
        if op == "repeat":
            return self.repeat(obj, name, args, kwargs)
        args = self.resolve(args or [])
        kwargs = self.resolve(kwargs or {})
        if op == "getattr":
            return getattr(obj, name)
        if op == "call":
            function = obj if name is None else getattr(obj, name)
            self.arrays = [] if self.batching else _snapshots(args, kwargs)
            return function(*args, **kwargs)
        if op == "many":  # exactly one answer per call, in order (the grader checks the count)
            if not _SEQUENCES.issuperset(map(type, args)) and not all(isinstance(one, (list, tuple)) for one in args):
                raise TypeError("many: every call's arguments must be a list")
            function = obj if name is None else getattr(obj, name)
            return [function(*one) for one in args]
        return self.dunder(op, obj, args)

    def repeat(self, obj, name, request_args, request_kwargs) -> list:
        """``[answers, error]``: up to ``count`` calls ``obj.name(*call_args, **call_kwargs)``
        (``name`` None: ``obj`` itself), each as a single ``call`` would be made: its
        arguments resolved for it (``resolve``: a ``Described("fresh", ...)`` built anew, in
        argument order), except that a generator is one generator for all the calls,
        advancing across them as the grader's would between single calls, and an array
        argument is one array, which a call's writes change for the next (as the write-back
        of single calls does) and which is written back once, after the last. The first
        exception, of an argument's build or of a call, stops the repetition: ``error``
        describes it (``_error``) and ``answers`` holds the calls before it; else ``error``
        is None and there are ``count`` answers."""
        if not (isinstance(request_args, list) and len(request_args) == 3) or request_kwargs:
            raise TypeError("repeat: the arguments must be [count, call_args, call_kwargs]")
        count, call_args, call_kwargs = request_args
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_REPEAT:
            raise ValueError(f"repeat: the count must be an int from 0 to {MAX_REPEAT}")
        if not isinstance(call_args, list) or not isinstance(call_kwargs, dict):
            raise TypeError("repeat: call_args must be a list, call_kwargs a dict")
        function = obj if name is None else getattr(obj, name)
        answers: list = []
        self.repeating = {}
        # an argument ``resolve`` gives as the same object in every call (``_same_each_call``) is
        # taken from the first call's; the others (lists, tuples, dicts, fresh and rebuilt
        # objects) are resolved for each call, in argument order, as before
        each = [i for i, a in enumerate(call_args) if not _same_each_call(a)]
        each_kw = [k for k, v in call_kwargs.items() if not _same_each_call(v)]
        try:
            for _ in range(count):
                if not answers:
                    args = [self.resolve(a, 1) for a in call_args]
                    kwargs = {k: self.resolve(v, 1) for k, v in call_kwargs.items()}
                    self.arrays = _snapshots(args, kwargs)  # the same array objects in every call
                else:
                    for i in each:
                        args[i] = self.resolve(call_args[i], 1)
                    for k in each_kw:  # (``**kwargs`` hands each call a dict of its own)
                        kwargs[k] = self.resolve(call_kwargs[k], 1)
                answers.append(function(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - the candidate's exception goes back as data
            return [answers, self.error(exc)]
        finally:
            self.repeating = None
        return [answers, None]

    # ------------------------------------------------------------------ batched loops
    # Inputs in, answers out (``harness.sandbox``'s docstring): a batched loop (a ``plan``,
    # ``plans.run``) gets the inputs of the calls
    # the grader's loop makes and nothing else, never an expected answer. It makes those
    # calls, each through ``handle`` as that request (so the candidate sees the same calls,
    # and a server it rewrote answers them as it would one by one), in the grader's order,
    # and it stops only where its own answers leave it nothing to go on: an answer that is
    # no data or that the reading the next call needs raises on (``read_answer``), an
    # exception (then ``[answers, error]``), the loop's own end or bound. Where the grader
    # stops earlier (a wrong answer fails the test), the answers past it are never read;
    # where the grader goes another way (a live call to explain a difference), it takes the
    # answers in its own order and calls one at a time past them (``harness.suite.batched.Prefetched``).
    # Every answer is checked by the grader as if it had asked for it alone.

    def _request(self, op: str, target, name, args: list):
        """One request of a plan, as ``serve`` would handle it (``handle``); its
        generators and written arrays are not sent back (the plan says what is)."""
        self.batching = True
        try:
            return self.handle([op, target, name, args, {}])
        finally:
            self.batching, self.arrays = False, []

    def _ahead(self, answers: list, op: str, target, name, args: list):
        """One request of a batched loop (``_request``); its answer is kept in ``answers`` as
        the grader will receive it, taken now (``_kept``: a returned array the candidate
        changes later does not change what the grader gets, as in a reply sent at once).
        Returns the kept answer, or ``NO_DATA`` when it holds objects the grader gets as
        proxies (each reading of them a round trip of its own)."""
        kept, readable = self._kept(self._request(op, target, name, args))
        answers.append(kept)
        return kept if readable else NO_DATA

    def _kept(self, value) -> tuple:
        """``(value as the grader receives it, holds no handle?)``: encoded and decoded
        (objects as handles, registered now, in the order replies would register them);
        plain values, arrays and lists or tuples of plain values at once."""
        import numpy as np

        from harness.sandbox.channel import DTYPES, decode, pack

        kind = type(value)
        if _plain(value):
            return value, True
        if kind is np.ndarray and value.dtype.str in DTYPES:
            return value.copy(), True
        if (kind is list or kind is tuple) and all(map(_plain, value)):
            return kind(value), True
        kept = decode(pack(value, lambda obj: self.to_handle(obj, snapshot=False), checked=False))
        return kept, not _holds_handle(kept)

    def dunder(self, op: str, obj, args):
        if op == "iter":
            items = []
            for item in obj:
                items.append(item)
                if len(items) > MAX_ITEMS:
                    raise MemoryError(f"an iterator longer than {MAX_ITEMS} items")
            return items
        unary = {"len": len, "bool": bool, "int": int, "float": float, "index": _index, "repr": repr, "str": str}
        if op in unary:
            return unary[op](obj)
        if op == "getitem":
            return obj[args[0]]
        if op == "contains":
            return args[0] in obj
        raise ValueError(f"unknown request {op!r}")

    def load(self, spec, ref_deps: bool, contract: str = "constrain") -> dict:
        """Import the candidate and check it against ``contract``: ``"constrain"`` (the
        automaton's, ``harness/contract/constrain.pyi``) or ``"tools"`` (the tool-calling
        surface's names, ``golden.tools_replay.TOOLS_CONTRACT``; the reference is then
        ``oracles.tools``)."""
        from harness.sandbox.candidate import check_contract, load_candidate, signature_notes

        if contract == "tools":
            module = _load_tools(spec)
            problems, notes = _tools_problems(module), []
            self.keep_errors = True  # the replay reads a ToolError's status, param, code, to_json()
            self.snapshots = True  # and the fields of every event, call and request it is given
        elif contract == "constrain":
            module = load_candidate(spec, ref_deps=ref_deps)
            problems, notes = check_contract(module), signature_notes(module)
        else:
            raise ValueError(f"unknown contract {contract!r} (constrain or tools)")
        self.objects[1] = module
        self.ids[id(module)] = 1
        return {"module": self.to_handle(module), "problems": problems,
                "notes": notes, "ref_deps": list(getattr(module, "__constrain_ref_deps__", ())),
                "name": str(getattr(module, "__name__", "?")), "file": str(getattr(module, "__file__", None))}


_SEQUENCES = frozenset({list, tuple})


def _same_each_call(value) -> bool:
    """Whether ``Server.resolve`` gives ``value`` (a ``repeat``'s own argument, depth 1) as the
    same object in every call of the repeat: a plain value, a handle's object, a generator's
    description (one generator for all the calls), a top-level array; not a list, tuple or dict
    (each call its own copy) nor any other description (built anew, or rebuilt, for each call)."""
    from harness.sandbox.channel import Described

    if isinstance(value, (list, tuple, dict)):
        return False
    return not isinstance(value, Described) or value.kind == "rng"


def _generator(state):
    """A ``numpy.random.Generator`` in ``state`` (a bit generator's ``state`` dict)."""
    import numpy as np

    name = state["bit_generator"]
    if name not in RNG_KINDS:
        raise ValueError(f"unknown bit generator {name!r}")
    global _SEEDS
    if _SEEDS is None:
        _SEEDS = np.random.SeedSequence(0)
    bit_generator = getattr(np.random, name)(_SEEDS)  # any seed: the state is set next (no OS entropy read)
    bit_generator.state = state
    return np.random.Generator(bit_generator)


_SCALARS = frozenset({type(None), bool, float, str, bytes})


def _plain(value) -> bool:
    """Whether ``value`` crosses the channel as itself: None, bool, float, str, bytes, an
    int within 64 bits, a numpy scalar of an allowed dtype."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is int:
        return -(1 << 63) <= value < (1 << 64)
    if kind.__module__ != "numpy":
        return False
    import numpy as np

    from harness.sandbox.channel import DTYPES

    return isinstance(value, np.generic) and value.dtype.str in DTYPES


def _holds_handle(value) -> bool:
    """Whether a decoded value holds a ``Handle`` (in lists, tuples, sets, dict keys or values)."""
    from harness.sandbox.channel import Handle

    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Handle):
            return True
        if isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return False


def _load_tools(spec):
    """The tools surface: the reference ``oracles.tools`` for ``None``, else the candidate
    (a module name, ``.py`` file or package directory, loaded as ``load_candidate`` does)."""
    import importlib

    from harness.sandbox.candidate import load_candidate

    return importlib.import_module("oracles.tools") if spec is None else load_candidate(spec)


def _tools_problems(module) -> list[str]:
    """One line per tools contract name the module lacks (the same shape as
    ``harness.sandbox.candidate.check_contract``'s lines)."""
    from golden.tools_replay import TOOLS_CONTRACT

    return [f"{name}: missing (the tools contract)" for name in TOOLS_CONTRACT if not hasattr(module, name)]


def _snapshots(args: list, kwargs: dict) -> list:
    """``(key, array, copy)`` for every numpy array argument of a call (``key``: its
    position, or its keyword): what the call may write into, as it could in-process."""
    import numpy as np

    pairs = [*enumerate(args), *kwargs.items()]
    return [(key, value, value.copy()) for key, value in pairs if isinstance(value, np.ndarray)]


def _written(snapshots: list) -> list:
    """``[key, array]`` for each array argument the call changed in place (compared bytewise,
    so NaNs and -0.0 count): the grader writes them back into the caller's arrays
    (``client.Candidate._write_back``), so a write into the caller's logits shows behind the
    wall exactly as it would in one process."""
    return [[key, array] for key, array, before in snapshots
            if array.shape != before.shape or array.tobytes() != before.tobytes()]


def _missing(target):
    raise ValueError(f"no object with handle {target!r}")


def _index(obj):
    import operator

    return operator.index(obj)


def _kind(obj) -> str:
    try:
        return type(obj).__qualname__
    except Exception:  # noqa: BLE001
        return "?"


def _methods(obj) -> tuple[str, ...]:
    """Names of the callable attributes a proxy may call in one round trip: methods of
    the object's class, or a module's functions and classes."""
    try:
        if isinstance(obj, type(sys)):
            namespace = vars(obj)
        else:
            namespace = {}
            for klass in reversed(type(obj).__mro__[:-1]):
                namespace.update(vars(klass))
        names = []
        for name, value in namespace.items():
            if name.startswith("__") or isinstance(value, property):
                continue
            if callable(value) or isinstance(value, (staticmethod, classmethod)):
                if not isinstance(obj, type(sys)) and name in getattr(obj, "__dict__", {}):
                    continue  # shadowed by an instance attribute: ask for it instead
                names.append(str(name))
        return tuple(names)
    except Exception:  # noqa: BLE001 - an exotic object: every attribute is asked for
        return ()


MAX_SNAPSHOT_FIELDS = 32  # a handle's snapshot: at most this many attributes (an object with more: none)
MAX_SNAPSHOT_CHARS = 4096  # a str or bytes attribute longer than this is read live, not snapshotted
_GENERIC_GETATTRIBUTE = (object.__getattribute__, BaseException.__getattribute__)


def _snapshot(obj, methods: tuple[str, ...]) -> list | None:
    """``[values, live, type_name]``: what the grader's proxy may answer for ``obj``'s
    public attributes without a round trip, as long as nothing else is asked of this
    process first (``client.Proxy``): ``values``, its instance attributes that are plain
    scalars (None, bool, a 64-bit int, float, str or bytes of at most
    ``MAX_SNAPSHOT_CHARS``), as a plain read would give them now; ``live``, the public names
    a read must still ask for (the class's attributes that are not methods: properties,
    descriptors, constants; instance attributes of other types); any other public name is
    absent (an AttributeError, ``'type_name' object has no attribute ...``). None (every
    read asks) unless reading an attribute runs none of the candidate's code: a class of
    the plain metaclass ``type`` with the generic ``__getattribute__`` and no
    ``__getattr__``, whose instance dictionary is the standard one; and none for a module,
    a class, or an object of more than ``MAX_SNAPSHOT_FIELDS`` attributes. ``methods``:
    ``_methods(obj)`` (the proxy calls those; they are neither values nor live reads)."""
    try:
        klass = type(obj)
        if type(klass) is not type or klass is type(sys):
            return None
        namespace: dict = {}
        for base in reversed(klass.__mro__[:-1]):
            namespace.update(vars(base))
        if namespace.get("__getattribute__", object.__getattribute__) not in _GENERIC_GETATTRIBUTE or \
                "__getattr__" in namespace:
            return None
        instance = {}
        if "__dict__" in namespace:
            if type(namespace["__dict__"]).__name__ != "getset_descriptor":
                return None
            instance = object.__getattribute__(obj, "__dict__")
            if type(instance) is not dict:
                return None
        slots = [name for name, value in namespace.items() if type(value).__name__ == "member_descriptor"]
        if len(instance) + len(slots) > MAX_SNAPSHOT_FIELDS:
            return None
        values = {}
        for name, value in instance.items():
            if type(name) is not str or name.startswith("_") or not _snapshot_value(value):
                continue
            descriptor = type(namespace[name]) if name in namespace else None
            if descriptor is None or not (hasattr(descriptor, "__set__") or hasattr(descriptor, "__delete__")):
                values[name] = value  # no data descriptor of the class comes first
        for name in slots:
            if not name.startswith("_"):
                try:
                    value = namespace[name].__get__(obj, klass)  # a slot: read in C, no candidate code
                except AttributeError:
                    continue  # unset: read live (the same error, its own words)
                if _snapshot_value(value):
                    values[name] = value
        live = sorted({name for name in [*namespace, *instance] if type(name) is str and not name.startswith("_")}
                      - set(methods) - set(values))
        return [values, live, str(klass.__name__)]
    except Exception:  # noqa: BLE001 - an exotic object: every read asks
        return None


def _snapshot_value(value) -> bool:
    """A value a snapshot holds: ``_plain`` but no numpy scalar (a handle's payload is plain
    msgpack), and a str or bytes of at most ``MAX_SNAPSHOT_CHARS``."""
    return _plain(value) and type(value).__module__ == "builtins" and \
        not (isinstance(value, (str, bytes)) and len(value) > MAX_SNAPSHOT_CHARS)


def _error(exc: BaseException) -> dict:
    kinds = [k.__name__ for k in type(exc).__mro__ if getattr(builtins, k.__name__, None) is k]
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001
        message = "<the exception's message could not be read>"
    return {"type": _kind(exc), "kinds": kinds, "message": message[:4000], "where": _where(exc)}


def _where(exc: BaseException) -> str:
    try:
        frames = traceback.extract_tb(exc.__traceback__)
    except Exception:  # noqa: BLE001
        return ""
    for frame in reversed(frames):
        if "/harness/sandbox/" not in frame.filename and "/lib/python" not in frame.filename:
            return f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}"
    return ""


def main(fd: int) -> None:
    """Serve the grader on ``fd``. The code that starts this process turned the garbage
    collector off before its first import (``harness.sandbox.client``); here, before any
    of the candidate's code runs, what the harness imported is frozen out of every
    collection (``gc.freeze``) and the collector is on again: the candidate runs under the
    collector's defaults, and its collections skip the ~100,000 objects of numpy and the
    harness (~0.05 CPU s of a candidate process's start-up went to collections)."""
    gc.freeze()
    gc.enable()
    sys.dont_write_bytecode = True
    home = os.environ.get("HOME")
    if home:
        os.makedirs(home, mode=0o700, exist_ok=True)
        os.chdir(home)
    sock = socket.socket(fileno=fd)
    Server(sock).serve()
    sys.stdout.flush()
    os._exit(0)
