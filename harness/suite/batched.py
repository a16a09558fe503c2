"""The catalogue's batched loops, as plans the candidate's process carries out.

``check``'s speed comes from making a loop's calls in one round trip: the catalogue builds a
*plan* (``harness.sandbox.plans``: a flat list of the calls its loop will make, with their
inputs and the reading of each answer the loop needs to go on), the candidate's process
carries it out and sends back its answers, and the test takes them in its own order
(``harness.sandbox.Prefetched``), checking every one as if it had asked for it alone and
calling one at a time past them.

**Inputs in, answers out** (``harness.sandbox``'s docstring), read here in one place: what
each plan carries to the candidate's process is the inputs of the calls, never an expected
answer (what the masks, the states, the flags must be stays with the test).

===================  ==============================================  ================================
plan (its test)      the calls, with their inputs                    it stops (besides an exception)
===================  ==============================================  ================================
``walk_constraint``  per step ``mask()``, ``is_complete()``,          a mask that is no bool array,
(golden masks)       ``state``, then ``advance(token)``: the golden   a completeness no truth, a state
                     path's recorded tokens                           no int
``call_and_read``    ``name(*args)`` (e.g. ``regex_to_dfa(pattern)``)  an answer that is data, an
(``compile_ok``)     then the attributes read of what it returned    attribute that is a method, a
                                                                     read that fails
``calls_ahead``      ``name(*arguments)`` for each argument list     an answer with no truth value
(schema documents)   (the documents only; the oracle's verdicts stay
                     here)
``sweep``            per state ``mask(state)``, then ``next_state``   a mask that is not bool [V], a
(brute-force masks)  over every token: the counts of states and       reply not one per token
                     tokens (the brute-force answers stay here)
===================  ==============================================  ================================

Not moved yet (still loops of the server, ``harness.sandbox.server``): ``explore`` (its next
inputs are the states the candidate's own answers reach) and ``generate`` (its logits drawn
from the generator the candidate's calls leave; the grader draws them too and takes no
answer whose inputs differ from its own: ``harness.sandbox.client.generation``).
"""

from __future__ import annotations

from harness.sandbox import Prefetched, Proxy

WALK_NAMES = ("mask", "is_complete", "state", "advance")
_WALK_METHODS = ("mask", "is_complete", "advance")  # methods of the constraint's class; ``state`` is no method


def _is_method(obj, name: str) -> bool:
    """Whether ``obj.name`` is a method of a proxy (called in one round trip, no attribute read first)."""
    return isinstance(obj, Proxy) and name in obj._handle.methods


def _run(obj, kind: str, steps: list, names, name=None, shown=()) -> Prefetched:
    answers, error = obj._link.run_plan(kind, steps, name, shown)
    return Prefetched(names, answers, error)


def walk_constraint(constraint, tokens: list, eos_id) -> Prefetched:
    """A recorded path's calls on ``constraint`` made ahead in one round trip, given the
    path's ``tokens`` only: per step ``mask``, ``is_complete``, ``state``, then ``advance``
    (none after the last step); take them in that order. Nothing ahead for an object in
    this process, or a constraint whose ``mask``/``is_complete``/``advance`` are no methods
    or whose ``state`` is one (the proxy reads those with other requests). ``eos_id`` is
    the path's (the walk makes no call with it)."""
    def names(position: int) -> str:
        return WALK_NAMES[position % 4]
    if not isinstance(constraint, Proxy) or not set(_WALK_METHODS) <= set(constraint._handle.methods) or \
            "state" in constraint._handle.methods:
        return Prefetched(names)
    target = constraint._handle.id
    steps: list = []
    for number in range(len(tokens) + 1):
        steps += [["call", target, "mask", "indices", None], ["call", target, "is_complete", "truth", None],
                  ["getattr", target, "state", "int", None]]
        if number < len(tokens):
            steps.append(["call", target, "advance", None, None, tokens[number]])
    return _run(constraint, "walk", steps, names)


def call_and_read(obj, name: str, args: list, reads: list) -> Prefetched:
    """``obj.name(*args)`` and the attributes ``reads`` (``[attribute, "array" | "int"]``) of
    what it returns, made ahead in one round trip; take ``"call"``, then each attribute by
    its name. Nothing ahead unless ``name`` is a method of a proxy."""
    names = ["call", *(attribute for attribute, _ in reads)]
    if not _is_method(obj, name):
        return Prefetched(names.__getitem__)
    steps = [["call", obj._handle.id, name, "object", None, *args]]
    steps += [["getattr", -1, attribute, reader, None] for attribute, reader in reads]  # -1: the call's answer
    return _run(obj, "reads", steps, names.__getitem__, name, args)


def calls_ahead(obj, name: str, calls: list) -> Prefetched:
    """``obj.name(*arguments)`` for each argument list of ``calls``, made ahead in one round
    trip (given the argument lists only); take each as ``"call"``. Nothing ahead unless
    ``name`` is a method of a proxy."""
    def names(position: int) -> str:
        return "call"
    if not _is_method(obj, name):
        return Prefetched(names)
    steps = [["call", obj._handle.id, name, "truth", None, *arguments] for arguments in calls]
    return _run(obj, "matches", steps, names, name)


def sweep(index, states: int, vocab_size: int) -> Prefetched:
    """Every state's ``mask`` and ``many next_state`` of the brute-force test made ahead in
    one round trip, given the counts of states and tokens only; take ``"mask"`` and
    ``"many"`` (its count checked by the taker: ``RemoteMethod.counted``) in turn."""
    def names(position: int) -> str:
        return ("mask", "many")[position % 2]
    if not isinstance(index, Proxy) or not {"mask", "next_state"} <= set(index._handle.methods):
        return Prefetched(names)
    target, size = index._handle.id, int(vocab_size)
    steps: list = []
    for state in range(int(states)):
        steps += [["call", target, "mask", "vector", size, state],
                  ["many_range", target, "next_state", "length", size, state, size]]
    return _run(index, "sweep", steps, names)
