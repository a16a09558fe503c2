"""Plans: the one generic batched operation of the candidate process (the ``plan`` request).

A plan is data the catalogue builds (``harness.suite.batched``): a list of steps, each one
request the grader would otherwise send alone, in the order the grader makes them, and at
most one kind of loop, whose next inputs come from the candidate's own earlier answers.
This module carries a plan out in the candidate's process and knows nothing of the
catalogue: which calls, on which objects, with which inputs, and which reading of each
answer the grader's loop needs to go on, all come in the plan.

A step is ``[op, target, name, reading, size, *args]``, a flat list of plain values (a
plan of them crosses the channel in one piece, as a batch's argument lists do):

- ``op``: ``"call"`` (``target.name(*args)``, ``name`` None: the target itself),
  ``"getattr"`` (``target.name``), ``"many"`` (``target.name(*one)`` for each argument list
  ``one`` of ``args``, one answer per call), ``"many_range"`` (``args`` is ``[*prefix,
  count]``: the ``many`` of the argument lists ``[*prefix, t]`` for ``t`` in
  ``range(count)``, written compactly), ``"many_each"`` (in a loop's body: ``args`` is
  ``[k, *prefix]``, the ``many`` of ``[*prefix, v]`` for each item ``v`` of body step
  ``k``'s value in this iteration) or ``"loop"`` (below);
- ``target``: a handle number (from 1), or ``-(k + 1)``: the object the plan's ``k``-th
  answer is (0 for a loop);
- ``reading``: how the grader's loop reads the answer before its next call (a name of
  ``READINGS``), or None (it reads nothing of it); in a loop's body also a *value reading*
  ``[name, *params]`` of ``VALUE_READINGS``, whose value the rest of the iteration uses;
  ``size``: the length the ``"vector"`` and ``"length"`` readings expect (None for the
  others);
- ``args``: the call's inputs, as a single request would carry them; in a loop's body
  they may hold references ``Described("ref", [what])`` to the iteration's inputs
  (``REFERENCES``).

**A loop** is the step ``["loop", 0, None, None, None, spec]``, ``spec`` a dict:

- ``"body"``: the steps of one iteration (handles as targets; no loop in it);
- ``"bound"``: iterations at most;
- ``"start"``: a work list of plain items (each iteration takes the next one, ``["item"]``;
  the loop ends when it is empty), or None (the iterations run to the bound);
- ``"queue"``: None, or a body step whose value's items not seen before (the start's
  included) join the work list, in order: a breadth-first walk of what the answers reach;
- ``"keep"``: None, or a body step whose value is kept (``["kept"]``: the values so far);
- ``"until"``: a list of plain values: the loop ends after an iteration whose kept value is
  one of them (None: never);
- ``"draw"``: None, or ``[generator, size, scale, bias]`` (``generator`` a
  ``Described("rng", state)``): the first reference of an iteration to ``["logits"]`` or
  ``["rng"]`` draws ``normal(size) * scale + bias`` from the generator, where the call
  before left it (the description's state at first). The generator the call is given is
  the candidate's argument; where its call leaves it is the next draw's start. The reply's
  third part says, per draw, ``[the state the call left (flat_state), inputs_digest(logits,
  the kept values as int64 bytes)]``: the grader draws the same logits itself and takes no
  answer whose inputs differ from its own.

**Inputs in, answers out** (``harness.sandbox``'s docstring): a plan holds the inputs of the
calls and the names of generic readings, nothing else; never an expected answer. A loop
computes its next inputs from the candidate's own earlier answers only (the candidate
calling its own module) and from the draw's generator, which the grader redraws. Every
step goes through ``Server.handle`` as that request would (so the candidate sees the same
calls, and a server it rewrote answers them as it would one by one), and each answer is
kept as the grader receives it (``Server._ahead``). The plan stops only where its own
answers leave it nothing to go on: at an exception (the reply is then ``[answers, error,
draws]``), after an answer whose reading holds proxies or fails (``read_answer``), before a
step whose target answer is no object, or whose ``getattr`` names a method of that object
(the grader's proxy would ask nothing for it). Where the grader stops earlier (a wrong
answer fails the test) the answers past it are never read; past the plan's answers the
grader calls one at a time (``harness.suite.batched.Prefetched``); every answer is checked by the grader
as if it had asked for it alone.

Bounds, checked (``check_plan``) before anything runs: ``MAX_STEPS`` answers in a plan,
counting each loop as ``bound`` times its body (the grader refuses a reply with more);
``MAX_BODY`` steps in a loop's body; ``MAX_RANGE`` calls in one ``many_range`` or
``many_each`` (a value reading's list is at most its ``size``) and items in a draw.
"""

from __future__ import annotations

from harness.sandbox.channel import Described, Handle

MAX_STEPS = 100_000  # answers of one plan, a loop's bound times its body (the grader checks its count, too)
MAX_RANGE = 10_000_000  # calls in one ``many_range`` or ``many_each`` step, items of a draw (``server.MAX_ITEMS``)
MAX_BODY = 16  # steps in a loop's body
OPS = ("call", "getattr", "many", "many_range", "many_each", "loop")
REFERENCES = ("item", "kept", "logits", "rng")  # what a loop body's ``Described("ref", [what])`` stands for
LOOP_KEYS = frozenset({"body", "bound", "start", "queue", "keep", "until", "draw"})


STOP = object()  # a reading the grader would not get past in the same way (``read_answer``)
NO_DATA = object()  # an answer holding objects the grader gets as proxies (``Server._ahead``)


def read_answer(read, kept):
    """``read(kept)``, as the grader reads that answer, or ``STOP`` when it holds proxies
    (``NO_DATA``) or the reading raises: the batched loops stop there and the grader goes
    on one call at a time from that answer."""
    if kept is NO_DATA:
        return STOP
    try:
        return read(kept)
    except Exception:  # noqa: BLE001 - any doubt: the grader reads this answer itself
        return STOP


def bool_vector(mask, size: int):
    """``numpy.asarray(mask)`` when it is bool [size] (what ``test_masks.mask_of`` accepts), else None."""
    import numpy as np

    mask = np.asarray(mask)
    return mask if mask.dtype == np.bool_ and mask.shape == (size,) else None


def inputs_digest(logits, history: bytes) -> bytes:
    """16 bytes that stand for a draw's inputs: the logits (float64) and the history (its
    tokens as int64 bytes), computed alike by the candidate's process (a loop's draw, which
    says which inputs its calls got) and by the grader (``harness.suite.batched.generation``,
    which draws the logits itself and compares)."""
    import hashlib

    import numpy as np

    return hashlib.blake2b(np.asarray(logits, dtype=np.float64).tobytes() + history, digest_size=16).digest()


_FLAT_KINDS = ("PCG64", "PCG64DXSM")  # bit generators whose state is {state: {state, inc}, has_uint32, uinteger}


def flat_state(state: dict):
    """A bit generator's ``state`` as ``[kind, state, inc, has_uint32, uinteger]`` for the
    PCG64 kinds (a generation sends one per draw: a flat list crosses the channel some 7
    times faster than the dict), else the dict itself; ``unflat_state`` undoes it."""
    if state.get("bit_generator") in _FLAT_KINDS:
        inner = state["state"]
        return [state["bit_generator"], inner["state"], inner["inc"], state["has_uint32"], state["uinteger"]]
    return state


def unflat_state(value) -> dict:
    """The ``state`` dict ``flat_state`` gave ``value`` for (a dict as it is)."""
    if isinstance(value, list) and len(value) == 5 and value[0] in _FLAT_KINDS:
        kind, state, inc, has_uint32, uinteger = value
        return {"bit_generator": kind, "state": {"state": state, "inc": inc}, "has_uint32": has_uint32,
                "uinteger": uinteger}
    return value


def _vector(answer, size: int) -> bool:
    return bool_vector(answer, size) is not None


def _indices(answer):
    import numpy as np

    return np.flatnonzero(np.asarray(answer, dtype=bool))


def _array(answer):
    import numpy as np

    return np.asarray(answer)


READINGS = {  # name -> the reading (True or a value to go on; False or an exception to stop), its size's use
    "truth": lambda answer, _: bool(answer) in (True, False),
    "int": lambda answer, _: int(answer) is not None,
    "array": lambda answer, _: _array(answer) is not None,
    "indices": lambda answer, _: _indices(answer) is not None,
    "vector": _vector,  # a bool numpy vector of ``size`` items
    "length": lambda answer, size: isinstance(answer, list) and len(answer) == size,  # a list of ``size`` items
    "object": None,  # the answer is an object (a handle): the next steps read it
}
SIZED = frozenset({"vector", "length"})  # the readings that take a size




def _true_ids(answer, values: list, size: int, skip):
    """A bool vector [size] (``bool_vector``) allowing something: its True positions but ``skip``."""
    import numpy as np

    vector = bool_vector(answer, size)
    if vector is None or not vector.any():
        return STOP
    return [t for t in np.flatnonzero(vector).tolist() if t != skip]


def _as_long_as(answer, values: list, step: int, refused):
    """A list as long as body step ``step``'s value, no item of it equal to ``refused``: the list."""
    if not isinstance(answer, list) or len(answer) != len(values[step]) or any(v == refused for v in answer):
        return STOP
    return answer


def _array_copy(answer, values: list):
    """Any answer as a numpy array of its own (later calls cannot change the value)."""
    import numpy as np

    return np.asarray(answer).copy()


def _pick(answer, values: list, step: int, most):
    """A pair ``(id, number)`` whose id body step ``step``'s value holds True at and whose
    number is at most ``most``: the id."""
    chosen, number = answer
    if not values[step][chosen] or not number <= most:
        return STOP
    return chosen


VALUE_READINGS = {  # a loop body's reading [name, *params]: its value (STOP or an exception: the plan stops)
    "true_ids": (_true_ids, ("size", "skip")),
    "as_long_as": (_as_long_as, ("step", "refused")),
    "array": (_array_copy, ()),
    "pick": (_pick, ("step", "most")),
}
RNG_KINDS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_PLAIN = (type(None), bool, int, float, str, bytes)


def check_plan(steps) -> int:
    """Raise a ValueError (naming the step) unless ``steps`` is a well-formed plan within
    the bounds; return the most answers it can give (a loop counted at its bound)."""
    if not isinstance(steps, list) or len(steps) > MAX_STEPS:
        raise ValueError(f"plan: the steps must be a list of at most {MAX_STEPS}")
    most = 0
    for number, step in enumerate(steps):
        _check_step(step, number, None, None)
        most += _check_loop(step[5], number) if step[0] == "loop" else 1
    if most > MAX_STEPS:
        raise ValueError(f"plan: {most} answers at most (a loop's bound times its body), more than {MAX_STEPS}")
    return most


def _at(number: int, outer: int | None = None) -> str:
    """Where a step is, for messages: ``plan step 3``, or ``plan step 0 body step 1`` (``outer``: its loop's)."""
    return f"plan step {number}" if outer is None else f"plan step {outer} body step {number}"


def _check_step(step, number: int, loop: dict | None, outer: int | None) -> None:
    """The plan's ``number``-th step (``loop``: the spec of the loop whose body holds it, the
    plan's ``outer``-th step; else None). Its place is named only in a message (a plan of
    ``MAX_STEPS`` is checked in the grader and again behind the wall)."""
    where = _Where(number, outer)
    if not (isinstance(step, list) and len(step) >= 5):
        raise ValueError(f"{where}: not [op, target, name, reading, size, *args]")
    op, target, name, reading, size = step[:5]
    if op not in OPS or not (name is None or isinstance(name, str)):
        raise ValueError(f"{where}: op must be one of {', '.join(OPS)}, name a str or None")
    if op == "loop":
        if loop is not None:
            raise ValueError(f"{where}: a loop belongs outside a loop")
        if not (len(step) == 6 and target == 0 and name is None and reading is None and size is None):
            raise ValueError(f"{where}: a loop is [\"loop\", 0, None, None, None, spec]")
        return
    if op == "many_each" and loop is None:
        raise ValueError(f"{where}: many_each belongs in a loop's body")
    if type(target) is not int or target == 0 or target < -number or (loop is not None and target < 0):
        raise ValueError(f"{where}: the target must be a handle number or -(k + 1) for an earlier step k's answer "
                         f"(a handle number in a loop's body)")
    if op == "many_range" and not (len(step) >= 6 and type(step[-1]) is int and 0 <= step[-1] <= MAX_RANGE):
        raise ValueError(f"{where}: many_range's args must be [*prefix, count] (a count from 0 to {MAX_RANGE})")
    if op == "many_each" and not (len(step) >= 6 and type(step[5]) is int and 0 <= step[5] < number):
        raise ValueError(f"{where}: many_each's args must be [k, *prefix] (k an earlier body step)")
    if loop is not None:
        _check_references(step[6:] if op == "many_each" else step[5:], where, loop)
        if isinstance(reading, list):
            _check_value_reading(reading, size, where, number)
            return
    if not (reading is None or reading in READINGS) or (type(size) is int) != (reading in SIZED):
        raise ValueError(f"{where}: unknown reading {reading!r} with size {size!r} (one of {', '.join(READINGS)}; "
                         f"a size for {' and '.join(sorted(SIZED))} only; in a loop's body also [name, *params] "
                         f"of {', '.join(VALUE_READINGS)})")


class _Where:
    """A step's place, formatted (``_at``) only when a message says it."""

    __slots__ = ("number", "outer")

    def __init__(self, number: int, outer: int | None):
        self.number, self.outer = number, outer

    def __format__(self, spec: str) -> str:
        return _at(self.number, self.outer)


def _check_value_reading(reading: list, size, where, number: int) -> None:
    name = reading[0] if reading else None
    if name not in VALUE_READINGS or len(reading) != 1 + len(VALUE_READINGS[name][1]) or size is not None:
        raise ValueError(f"{where}: unknown value reading {reading!r} (one of {', '.join(VALUE_READINGS)}, with "
                         f"their params; size None)")
    for param, value in zip(VALUE_READINGS[name][1], reading[1:]):
        if param == "step" and not (type(value) is int and 0 <= value < number):
            raise ValueError(f"{where}: the reading {name}'s step must be an earlier body step, not {value!r}")
        if param == "size" and not (type(value) is int and 0 <= value <= MAX_RANGE):
            raise ValueError(f"{where}: the reading {name}'s size must be an int from 0 to {MAX_RANGE}")
        if param in ("skip", "refused", "most") and type(value) not in _PLAIN:
            raise ValueError(f"{where}: the reading {name}'s {param} must be a plain value")


def _check_references(args: list, where, loop: dict) -> None:
    """A loop body's references: ``Described("ref", [what])`` at the top level of its args,
    each to something the loop has (``item``: a start; ``kept``: a keep; ``logits`` and
    ``rng``: a draw)."""
    needs = {"item": "start", "kept": "keep", "logits": "draw", "rng": "draw"}
    for arg in args:
        if isinstance(arg, Described) and arg.kind == "ref":
            what = arg.data[0] if isinstance(arg.data, list) and len(arg.data) == 1 else None
            if what not in REFERENCES or loop.get(needs[what]) is None:
                raise ValueError(f"{where}: a reference must be one of {', '.join(REFERENCES)}, to what the loop "
                                 f"has (item: a start, kept: a keep, logits and rng: a draw), not {arg.data!r}")


def _check_loop(spec, number: int) -> int:
    """The spec of the plan's ``number``-th step, a loop (the module docstring); returns its
    most answers (bound times body)."""
    where = _at(number)
    if not (isinstance(spec, dict) and {"body", "bound"} <= set(spec) <= LOOP_KEYS):
        raise ValueError(f"{where}: a loop's spec must be a dict with body and bound (and any of "
                         f"{', '.join(sorted(LOOP_KEYS - {'body', 'bound'}))})")
    body, bound = spec["body"], spec["bound"]
    if not (isinstance(body, list) and 1 <= len(body) <= MAX_BODY) or not (type(bound) is int and bound >= 0):
        raise ValueError(f"{where}: a loop's body must be 1 to {MAX_BODY} steps, its bound an int from 0")
    if bound * len(body) > MAX_STEPS:
        raise ValueError(f"{where}: a loop of {bound} iterations of {len(body)} steps: more than {MAX_STEPS} answers")
    start = spec.get("start")
    if start is not None and not (isinstance(start, list) and all(type(v) in _PLAIN for v in start)):
        raise ValueError(f"{where}: a loop's start must be a list of plain items, or None")
    for key in ("queue", "keep"):
        if spec.get(key) is not None and not (type(spec[key]) is int and 0 <= spec[key] < len(body)):
            raise ValueError(f"{where}: a loop's {key} must be a body step, or None")
    if spec.get("queue") is not None and start is None:
        raise ValueError(f"{where}: a loop's queue needs a start (the work list it adds to)")
    until = spec.get("until")
    if until is not None and not (isinstance(until, list) and all(type(v) in _PLAIN for v in until)
                                  and spec.get("keep") is not None):
        raise ValueError(f"{where}: a loop's until must be a list of plain values (with a keep), or None")
    if spec.get("draw") is not None:
        _check_draw(spec["draw"], where)
    for position, step in enumerate(body):
        _check_step(step, position, spec, number)
    return bound * len(body)


def _check_draw(draw, where: str) -> None:
    import numpy as np

    rng, size, scale, bias = draw if isinstance(draw, list) and len(draw) == 4 else (None,) * 4
    if not (isinstance(rng, Described) and rng.kind == "rng" and isinstance(rng.data, dict)
            and rng.data.get("bit_generator") in RNG_KINDS and type(size) is int and 0 <= size <= MAX_RANGE
            and type(scale) is float and isinstance(bias, np.ndarray) and bias.dtype == np.float64
            and bias.shape == (size,)):
        raise ValueError(f"{where}: a loop's draw must be [Described(\"rng\", state of {', '.join(RNG_KINDS)}), "
                         f"size (0 to {MAX_RANGE}), scale (a float), bias (float64 [size])]")


def run(server, steps) -> list:
    """``[answers, error, draws]`` of the plan ``steps`` carried out by ``server`` (a
    ``harness.sandbox.server.Server``): see the module docstring (``draws``: one entry per
    draw of a loop's, empty without)."""
    check_plan(steps)
    answers: list = []
    draws: list = []
    try:
        for step in steps:
            went_on = _loop(server, step[5], answers, draws) if step[0] == "loop" else \
                _step(server, step, step[5:], answers, ()) is not STOP
            if not went_on:
                break
    except BaseException as exc:  # noqa: BLE001 - the candidate's exception goes back as data
        return [answers, server.error(exc), draws]
    finally:
        server.rngs = []  # a loop's generators are the candidate's arguments: the draws say where they were left
    return [answers, None, draws]


def _step(server, step: list, args: list, answers: list, values: list):
    """One step with its ``args`` (references resolved; ``values``: the values of the body
    steps before it in this iteration): its value (a value reading's; else True), or
    ``STOP`` where the plan stops."""
    op, target, name, reading, size = step[:5]
    if target < 0:
        made = answers[-target - 1] if -target - 1 < len(answers) else None
        if not isinstance(made, Handle) or (op == "getattr" and name in made.methods):
            return STOP
        target = made.id
    if op == "many_range":
        op, args = "many", [[*args[:-1], t] for t in range(args[-1])]
    elif op == "many_each":
        listed = read_answer(lambda items: [[*args[1:], item] for item in items], values[args[0]])
        if listed is STOP:
            return STOP
        op, args = "many", listed
    kept = server._ahead(answers, op, target, name, args)
    if reading is None:
        return True
    if reading == "object":
        return True if isinstance(answers[-1], Handle) else STOP
    if isinstance(reading, list):
        read, params = VALUE_READINGS[reading[0]][0], reading[1:]
        return read_answer(lambda answer: read(answer, values, *params), kept)
    read = READINGS[reading]
    went_on = read_answer(lambda answer: read(answer, size), kept)
    return STOP if went_on is STOP or went_on is False else True


def _loop(server, spec: dict, answers: list, draws: list) -> bool:
    """Carry out a loop (the module docstring); False where it stops the plan."""
    from collections import deque

    start, queue, keep, until = spec.get("start"), spec.get("queue"), spec.get("keep"), spec.get("until")
    work = None if start is None else deque(start)
    seen = None if start is None else set(start)
    drawing = None if spec.get("draw") is None else _Drawing(spec["draw"], draws)
    kept: list = []
    item = None
    for _ in range(spec["bound"]):
        if work is not None:
            if not work:
                return True
            item = work.popleft()
        values: list = []
        for step in spec["body"]:
            args, given = _referenced(step, item, kept, drawing)
            if given:
                server.rngs = []
            try:
                value = _step(server, step, args, answers, values)
            finally:
                if given:
                    drawing.left(server.rngs)
            if value is STOP:
                return False
            values.append(value)
        if queue is not None and not _queued(values[queue], seen, work):
            return False
        if drawing is not None:
            drawing.drawn = None
        if keep is not None:
            kept.append(values[keep])
            if until is not None and read_answer(lambda value: bool(value in until), values[keep]) is True:
                return True
    return True


def _referenced(step: list, item, kept: list, drawing) -> tuple[list, bool]:
    """``(the step's args with its references resolved, whether it is given the draw's generator)``."""
    resolved, given = [], False
    for arg in step[5:]:
        if isinstance(arg, Described) and arg.kind == "ref":
            what = arg.data[0]
            if what == "item":
                arg = item
            elif what == "kept":
                arg = list(kept)
            else:
                logits, after = drawing.inputs(kept)
                arg = logits if what == "logits" else Described("rng", after)
                given = given or what == "rng"
        resolved.append(arg)
    return resolved, given


def _queued(items, seen: set, work) -> bool:
    """The items not seen yet join the work list; False where they cannot be (not hashable)."""
    try:
        for item in items:
            if item not in seen:
                seen.add(item)
                work.append(item)
    except Exception:  # noqa: BLE001 - the candidate's answer: the grader reads it itself
        return False
    return True


class _Drawing:
    """A loop's draw: ``normal(size) * scale + bias`` per iteration, from the state the call
    before left its generator in (the grader's state at first); each draw noted in the
    reply's ``draws`` as ``[state the call left (flat_state), inputs_digest(logits, kept)]``."""

    def __init__(self, draw: list, draws: list):
        rng, self.size, self.scale, self.bias = draw
        self.state, self.draws, self.drawn = rng.data, draws, None
        self.history = bytearray()  # the kept values so far as int64 bytes (``inputs_digest``), grown as they come
        self.digested = 0  # how many kept values ``history`` holds

    def inputs(self, kept: list) -> tuple:
        """``(logits, state after drawing them)`` of this iteration (drawn on first use)."""
        if self.drawn is None:
            import numpy as np

            logits, after = draw_logits(self.state, self.size, self.scale, self.bias)
            for value in kept[self.digested:]:
                self.history += np.int64(value).tobytes()
            self.digested = len(kept)
            self.drawn = (logits, after)
            self.draws.append([flat_state(after), inputs_digest(logits, bytes(self.history))])
        return self.drawn

    def left(self, rngs: list) -> None:
        """After a call given the generator: where it left it is the next draw's start."""
        self.state = rngs[-1].bit_generator.state if rngs else self.drawn[1]
        self.draws[-1][0] = flat_state(self.state)


_DRAWING: dict = {}  # a bit generator of each kind for ``draw_logits`` (this module's own, never the candidate's)


def draw_logits(state: dict, size: int, scale: float, bias):
    """``(normal(size) * scale + bias, the state after)`` drawn from a generator set to
    ``state`` (this process's own, never one the candidate holds)."""
    import numpy as np

    kind = state["bit_generator"]
    if kind not in RNG_KINDS:
        raise ValueError(f"unknown bit generator {kind!r}")
    if kind not in _DRAWING:
        _DRAWING[kind] = np.random.Generator(getattr(np.random, kind)(0))  # its state is set next
    generator = _DRAWING[kind]
    generator.bit_generator.state = state
    logits = generator.normal(size=size) * scale + bias
    return np.asarray(logits), generator.bit_generator.state
