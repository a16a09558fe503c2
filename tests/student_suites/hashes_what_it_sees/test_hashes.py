"""A suite that tests nothing of the spec: it provokes every error the contract names,
records everything it sees of each answer (an exception's class name, module, bases,
``str``, ``repr``, ``args``; a value's type, dtype, byte order, flags; a proxy's ``repr``,
handle, methods, the attributes it answers) and hashes each group of observations.
Test ``test_<group>[<bit>]`` passes when bit ``<bit>`` of the group's digest is 0.

Two implementations that give different digests get different outcomes on about half
the tests of that group: wheats that differ make those tests invalid, and a chaff that
differs from the wheats is caught. So the grade of this suite counts the implementations
that show a suite anything but behaviour: behind grade-tests' normalisation, every
implementation that behaves the same on these inputs gives the same digests, and the
suite catches no chaff that behaves like the wheats here. Each failure message shows the
digest and, for the errors, what was seen.
"""

import hashlib

import numpy as np
import pytest
from tinyllm.infer import constrain

BITS = 8

PATTERNS_REFUSED = ["^a", "a$", "\\ba", "(a", "a)", "[a", "a{3,2}", "*a", "a*?", "(?=a)b", "(a)\\1", "\u00e9",
                    "a|(?!)"]
SCHEMAS_REFUSED = [{"type": "string", "pattern": "x"}, {"type": "strin"}, {"type": "string", "maxLength": 3},
                   {"$ref": "#"}, {"type": "object", "additionalProperties": True},
                   {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["b"]}]
VOCAB = [b"a", b"b", b"ab", None, b""]  # EOS is 3; the empty token is never allowed
EOS = 3


def seen_error(exc: BaseException) -> list:
    kind = type(exc)
    return ["err", kind.__name__, kind.__module__, [k.__name__ for k in kind.__mro__], str(exc), repr(exc),
            repr(exc.args), repr(exc.__cause__), repr(exc.__context__), repr(getattr(exc, "__notes__", None)),
            sorted(getattr(exc, "__dict__", {}))]


def attempt(call) -> list:
    """What a call shows: its exception in full, or the type of what it returned."""
    try:
        value = call()
    except Exception as exc:  # noqa: BLE001 - every exception is an observation
        return seen_error(exc)
    return ["ok", type(value).__name__]


def constraint(index):
    for make in (lambda: constrain.Constraint(index), lambda: constrain.Constraint(index, 0),
                 lambda: constrain.Constraint(index=index)):
        try:
            return make()
        except TypeError:
            continue
    raise AssertionError("no constructor of Constraint worked")


def errors_seen() -> list:
    dfa = constrain.regex_to_dfa("ab")
    index = constrain.TokenIndex(dfa, VOCAB, eos_id=EOS)
    c = constraint(index)
    params = constrain.SamplingParams()
    rng = np.random.default_rng(0)
    calls = [*(lambda p=p: constrain.regex_to_dfa(p) for p in PATTERNS_REFUSED),
             lambda: constrain.regex_to_dfa(b"ab"), lambda: constrain.regex_to_dfa(5),
             *(lambda s=s: constrain.json_schema_to_regex(s) for s in SCHEMAS_REFUSED),
             lambda: dfa.step(0, "a"), lambda: dfa.matches(None),
             lambda: constrain.TokenIndex(dfa, [b"a", 3]), lambda: constrain.TokenIndex(dfa, [b"a"], eos_id=7),
             lambda: constrain.TokenIndex(None, None),
             lambda: index.next_state(0, 1.5), lambda: index.mask("x"),
             lambda: c.advance(1),            # b is not allowed at the start
             lambda: c.advance(EOS),          # "" is not complete
             lambda: c.advance(4),            # the empty token is never allowed
             lambda: constrain.apply_mask(np.zeros(3), np.zeros(3, dtype=bool)),
             lambda: constrain.apply_mask(np.zeros(3), np.ones(4, dtype=bool)),
             lambda: constrain.SamplingParams(temperature=-1.0), lambda: constrain.SamplingParams(top_k=-1),
             lambda: constrain.SamplingParams(top_p=0.0), lambda: constrain.SamplingParams(repetition_penalty=0.0),
             lambda: constrain.sample(np.full(3, -np.inf), params, [], rng),
             lambda: constrain.vocab_bytes(42)]
    seen = [attempt(call) for call in calls]
    c.advance(2)  # "ab": complete
    c.advance(EOS)
    seen += [attempt(lambda: c.advance(0)),  # nothing after EOS
             attempt(lambda: constrain.constrained_sample(np.zeros(5), c, params, [], rng))]
    return seen


def value_seen(value) -> list:
    if isinstance(value, np.ndarray):
        return ["array", value.dtype.str, value.dtype.byteorder, list(value.shape), value.flags.writeable,
                value.flags.c_contiguous, value.flags.owndata, value.tobytes().hex()]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [value_seen(v) for v in value]]
    return [type(value).__name__, repr(value)]


def values_seen() -> list:
    dfa = constrain.regex_to_dfa("(cat|car|dog)s?")
    vocab = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b""]
    index = constrain.TokenIndex(dfa, vocab, eos_id=13)
    c = constraint(index)
    seen = [value_seen(v) for v in (constrain.DEAD, dfa.n_states, dfa.trans, dfa.accept, dfa.step(0, b"ca"),
                                    dfa.step(0, b"x"), dfa.matches(b"cats"), dfa.matches(b"ca"), index.mask(0),
                                    index.mask(5), index.next_state(0, 9), index.next_state(0, 12), c.state, c.done,
                                    c.is_complete(), c.mask())]
    c.advance(9)
    seen += [value_seen(v) for v in (c.state, c.done, c.is_complete(), c.mask())]
    masked = constrain.apply_mask(np.arange(15, dtype=np.float64), c.mask())
    seen.append(value_seen(masked))
    greedy = constrain.constrained_sample(np.arange(15, dtype=np.float64), c, constrain.SamplingParams(temperature=0.0),
                                          [], np.random.default_rng(0))
    seen.append([type(greedy).__name__, len(greedy), value_seen(greedy[0]), type(greedy[1]).__name__])
    seen.append(type(constrain.json_schema_to_regex({"type": "integer"})).__name__)
    seen.append(value_seen(constrain.vocab_bytes(["a", "\u0120b"])))
    return seen


NOT_IN_THE_CONTRACT = ("check_canonical", "build_all", "trie", "classes", "start", "table", "vocab", "eos", "dump",
                       "rows", "index", "states", "cache")


def proxy_seen(proxy) -> list:
    handle = getattr(proxy, "_handle", None)  # the shim's slot: what the grader sent for this object
    sent = [handle.kind, list(handle.methods), handle.id] if handle is not None else None
    return [repr(proxy), type(proxy).__name__, sent, [name for name in NOT_IN_THE_CONTRACT if hasattr(proxy, name)],
            attempt(lambda: proxy == proxy)]


def objects_seen() -> list:
    dfa = constrain.regex_to_dfa("ab")
    index = constrain.TokenIndex(dfa, VOCAB, eos_id=EOS)
    c = constraint(index)
    seen = [proxy_seen(p) for p in (dfa, index, c, constrain.SamplingParams(), index.dfa, c.index)]
    seen += [repr(dfa.step), attempt(lambda: c.index == index), attempt(lambda: index.dfa == dfa),
             attempt(lambda: constrain.regex_to_dfa("ab") == dfa), attempt(lambda: dfa == 1)]
    seen += [proxy_seen(f) for f in (constrain.regex_to_dfa, constrain.TokenIndex, constrain.DFA)]
    return seen


GROUPS = {"errors": errors_seen, "values": values_seen, "objects": objects_seen}
_DIGESTS: dict = {}


def digest(group: str) -> tuple[str, list]:
    if group not in _DIGESTS:
        seen = GROUPS[group]()
        _DIGESTS[group] = (hashlib.sha256(repr(seen).encode()).hexdigest(), seen)
    return _DIGESTS[group]


@pytest.mark.parametrize("bit", range(BITS))
def test_errors(bit):
    value, seen = digest("errors")
    assert not int(value, 16) >> bit & 1, (value, seen[:3])


@pytest.mark.parametrize("bit", range(BITS))
def test_values(bit):
    value, _ = digest("values")
    assert not int(value, 16) >> bit & 1, value


@pytest.mark.parametrize("bit", range(BITS))
def test_objects(bit):
    value, seen = digest("objects")
    assert not int(value, 16) >> bit & 1, (value, seen[:2])
