"""Fairness gallery: a correct implementation written from the spec's text alone; it
needs ``--ref-deps`` (the spec's "Needs": L8.1's ``SamplingParams``/``sample`` and
M05.2's byte map come from the reference, as ``ol check L8.7 --ref-deps`` allows).

Readings (each one the spec allows; see tests/suite/test_fairness.py):

- regex: Python's own parser (``re._parser``, section 2.1: "the subset is Python's
  own") mapped to byte sets with the bytes meanings; a Thompson NFA whose state sets
  are Python ints used as bitsets; the subset construction over all 256 bytes (no
  byte classes); minimization by table filling (Myhill-Nerode pair marking with a
  dependency list); breadth-first numbering;
- ``Constraint(index, state=0)``; after EOS the state is DEAD (the text is over) and
  ``is_complete()`` stays True;
- ``apply_mask`` takes numpy arrays (the spec's ``logits`` are an engine's array), not
  Python lists;
- ``vocab_bytes`` reads a ``transformers`` tokenizer: ``added_tokens_decoder`` (entries
  flagged ``special``) and ``convert_ids_to_tokens``; tiktoken encodings and bare
  ``tokenizers.Tokenizer`` objects are not read;
- ``TokenIndex``: sparse per-state dicts, a trie of nested dicts keyed by bytes, masks
  computed lazily.

Its departures from the contract's decisions (``--strict``): eos_keeps_state,
apply_mask_accepts_lists, vocab_bytes_tiktoken, vocab_bytes_tokenizers.

Also a departure (``--strict``: vocab_bytes_token_list): ``vocab_bytes`` reads a tokenizer object,
not a plain list of token strings (the spec hands it a tokenizer).

Also a departure (``--strict``: python_only_syntax_refused): named groups ``(?P<n>a)`` and
comments ``(?#note)`` are read by Python's parser and accepted with Python's meaning.
"""

from __future__ import annotations

try:
    import re._constants as K  # noqa: N812
    import re._parser as P  # noqa: N812
except ImportError:  # Python 3.10
    import sre_constants as K  # noqa: N812
    import sre_parse as P  # noqa: N812
from collections import deque

import numpy as np

SPEC_READINGS = {"python_only_syntax_refused": "python_meaning"}
"""The spec's reading this wheat takes where the contract took the other (grade-tests groups the wheats by it)."""

DEAD = -1
CAP_REPEAT = 1000
CAP_STATES = 25000

BYTES = frozenset(range(256))
_DIGIT = frozenset(b"0123456789")
_WORD = frozenset(b"_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SPACE = frozenset(b" \t\n\r\x0b\x0c")
CATEGORY = {K.CATEGORY_DIGIT: _DIGIT, K.CATEGORY_NOT_DIGIT: BYTES - _DIGIT, K.CATEGORY_WORD: _WORD,
            K.CATEGORY_NOT_WORD: BYTES - _WORD, K.CATEGORY_SPACE: _SPACE, K.CATEGORY_NOT_SPACE: BYTES - _SPACE}
REFUSED = {K.AT: "an anchor", K.GROUPREF: "a backreference", K.ASSERT: "a lookaround",
           K.ASSERT_NOT: "a lookaround", K.MIN_REPEAT: "a lazy quantifier", K.GROUPREF_EXISTS: "a conditional"}
for _name in ("POSSESSIVE_REPEAT", "ATOMIC_GROUP"):
    if hasattr(K, _name):
        REFUSED[getattr(K, _name)] = _name.lower().replace("_", " ")


class _Thompson:
    """NFA: ``eps[s]`` a bitset of epsilon successors, ``arcs[s]`` a list of (byte set, target)."""

    def __init__(self):
        self.eps: list[int] = []
        self.arcs: list[list[tuple[frozenset, int]]] = []

    def state(self) -> int:
        self.eps.append(0)
        self.arcs.append([])
        return len(self.eps) - 1

    def link(self, a: int, b: int) -> None:
        self.eps[a] |= 1 << b

    def seq(self, items) -> tuple[int, int]:
        entry = here = self.state()
        for op, av in items:
            s, e = self.item(op, av)
            self.link(here, s)
            here = e
        return entry, here

    def byteset(self, members) -> tuple[int, int]:
        s, e = self.state(), self.state()
        if members:
            self.arcs[s].append((frozenset(members), e))
        return s, e

    def item(self, op, av) -> tuple[int, int]:
        if op in REFUSED:
            raise ValueError(f"{REFUSED[op]} is not in the subset")
        if op == K.LITERAL:
            return self.byteset([av])
        if op == K.NOT_LITERAL:
            return self.byteset(BYTES - {av})
        if op == K.ANY:
            return self.byteset(BYTES - {10})
        if op == K.IN:
            return self.byteset(_members(av))
        if op == K.SUBPATTERN:
            _, add_flags, del_flags, sub = av
            if add_flags or del_flags:
                raise ValueError("inline flags are not in the subset")
            return self.seq(sub)
        if op == K.BRANCH:
            s, e = self.state(), self.state()
            for branch in av[1]:
                bs, be = self.seq(branch)
                self.link(s, bs)
                self.link(be, e)
            return s, e
        if op == K.MAX_REPEAT:
            lo, hi, sub = av
            hi = None if hi == K.MAXREPEAT else hi
            if lo > CAP_REPEAT or (hi is not None and hi > CAP_REPEAT):
                raise ValueError(f"repeat bound over {CAP_REPEAT}")
            entry = here = self.state()
            for _ in range(lo):
                s, e = self.seq(sub)
                self.link(here, s)
                here = e
            exit_ = self.state()
            if hi is None:
                s, e = self.seq(sub)
                self.link(here, s)
                self.link(e, here)
                self.link(here, exit_)
                return entry, exit_
            for _ in range(hi - lo):
                self.link(here, exit_)
                s, e = self.seq(sub)
                self.link(here, s)
                here = e
            self.link(here, exit_)
            return entry, exit_
        raise ValueError(f"the construct {op} is not in the subset")

    def closure(self, bits: int) -> int:
        done, todo = bits, bits
        while todo:
            low = todo & -todo
            todo ^= low
            new = self.eps[low.bit_length() - 1] & ~done
            done |= new
            todo |= new
        return done


def _members(items) -> frozenset:
    chosen: set[int] = set()
    negate = False
    for op, av in items:
        if op == K.NEGATE:
            negate = True
        elif op == K.LITERAL:
            chosen.add(av)
        elif op == K.RANGE:
            chosen.update(range(av[0], av[1] + 1))
        elif op == K.CATEGORY:
            chosen.update(CATEGORY[av])
        else:
            raise ValueError(f"class item {op} is not in the subset")
    return frozenset(BYTES - chosen if negate else chosen)


def _bits(bits: int):
    while bits:
        low = bits & -bits
        bits ^= low
        yield low.bit_length() - 1


def _powerset(nfa: _Thompson, start: int, final: int):
    first = nfa.closure(1 << start)
    number = {first: 0}
    subsets = [first]
    table: list[dict[int, int]] = []
    closures: dict[int, int] = {}
    k = 0
    while k < len(subsets):
        reach = [0] * 256
        for s in _bits(subsets[k]):
            for members, t in nfa.arcs[s]:
                for b in members:
                    reach[b] |= 1 << t
        row = {}
        for b in range(256):
            if not reach[b]:
                continue
            if reach[b] not in closures:
                closures[reach[b]] = nfa.closure(reach[b])
            target = closures[reach[b]]
            if target not in number:
                if len(subsets) >= CAP_STATES:
                    raise ValueError(f"more than {CAP_STATES} DFA states")
                number[target] = len(subsets)
                subsets.append(target)
            row[b] = number[target]
        table.append(row)
        k += 1
    return table, [bool(s >> final & 1) for s in subsets]


def _table_filling(table, finals) -> list[int]:
    """Myhill-Nerode: mark distinguishable pairs, propagating through a dependency
    list; the unmarked pairs merge. The missing transition is an implicit sink (-1)."""
    n = len(table)
    sink = n
    rows = [dict(r) for r in table] + [{}]
    fin = list(finals) + [False]
    alphabet: dict[tuple, int] = {}
    for b in range(256):
        alphabet.setdefault(tuple(rows[q].get(b, sink) for q in range(n + 1)), b)
    letters = list(alphabet.values())
    marked: set[tuple[int, int]] = set()
    waiting: dict[tuple[int, int], list[tuple[int, int]]] = {}

    def mark(pair, stack) -> None:
        if pair not in marked:
            marked.add(pair)
            stack.append(pair)

    stack: list[tuple[int, int]] = []
    for p in range(n + 1):
        for q in range(p + 1, n + 1):
            if fin[p] != fin[q]:
                mark((p, q), stack)
    for p in range(n + 1):
        for q in range(p + 1, n + 1):
            if (p, q) in marked:
                continue
            for b in letters:
                x, y = rows[p].get(b, sink), rows[q].get(b, sink)
                if x == y:
                    continue
                pair = (min(x, y), max(x, y))
                if pair in marked:
                    mark((p, q), stack)
                    break
                waiting.setdefault(pair, []).append((p, q))
    while stack:
        for dependent in waiting.pop(stack.pop(), ()):
            mark(dependent, stack)
    # class of each state: the smallest state it cannot be told apart from
    owner = list(range(n + 1))
    for p in range(n + 1):
        for q in range(p):
            if (q, p) not in marked:
                owner[p] = owner[q]
                break
    return owner


def _renumber(table, finals, owner):
    n = len(table)
    sink_class = owner[n]
    start = owner[0]
    if start == sink_class:
        raise ValueError("the pattern's language is empty")
    rep: dict[int, int] = {}
    for q in range(n):
        rep.setdefault(owner[q], q)
    name = {start: 0}
    queue = deque([start])
    trans, accept = [], []
    while queue:
        c = queue.popleft()
        q = rep[c]
        row = [DEAD] * 256
        for b in range(256):
            t = table[q].get(b)
            if t is None or owner[t] == sink_class:
                continue
            if owner[t] not in name:
                name[owner[t]] = len(name)
                queue.append(owner[t])
            row[b] = name[owner[t]]
        trans.append(row)
        accept.append(finals[q])
    return np.asarray(trans, dtype=np.int32), np.asarray(accept, dtype=bool)


class DFA:
    def __init__(self, trans, accept):
        self.trans, self.accept, self.n_states = trans, accept, len(accept)

    def step(self, state: int, data: bytes) -> int:
        if state == DEAD:
            return DEAD
        if state not in range(self.n_states):
            raise ValueError(f"step: state {state} is outside 0..{self.n_states - 1}")
        for b in data:
            state = int(self.trans[state, b])
            if state == DEAD:
                break
        return state

    def matches(self, data: bytes) -> bool:
        last = self.step(0, data)
        return last != DEAD and bool(self.accept[last])


def regex_to_dfa(pattern: str) -> DFA:
    if not isinstance(pattern, str):
        raise TypeError("regex_to_dfa: the pattern must be a str")
    if not pattern.isascii():
        where = next(i for i, c in enumerate(pattern) if not c.isascii())
        raise ValueError(f"regex_to_dfa: non-ASCII character at offset {where}")
    try:
        parsed = P.parse(pattern, 0)
    except (P.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"regex_to_dfa: {exc}") from None
    if parsed.state.flags & ~(K.SRE_FLAG_UNICODE):
        raise ValueError("regex_to_dfa: inline flags are not in the subset")
    nfa = _Thompson()
    start, final = nfa.seq(list(parsed))
    table, finals = _powerset(nfa, start, final)
    return DFA(*_renumber(table, finals, _table_filling(table, finals)))


# ------------------------------------------------------------------------ JSON schema

_HEX = "[0-9a-fA-F]"
_CONT = r"[\x80-\xbf]"
STRING = ('"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\["\\\\/bfnrt]|\\\\u' + _HEX * 4 +
          rf"|[\xc2-\xdf]{_CONT}|\xe0[\xa0-\xbf]{_CONT}|[\xe1-\xec\xee\xef]{_CONT}{_CONT}"
          rf"|\xed[\x80-\x9f]{_CONT}|\xf0[\x90-\xbf]{_CONT}{_CONT}|[\xf1-\xf3]{_CONT}{_CONT}{_CONT}"
          rf"|\xf4[\x80-\x8f]{_CONT}{_CONT})*" + '"')
INTEGER = r"-?(?:0|[1-9][0-9]*)"
SCALARS = {"string": STRING, "integer": INTEGER, "number": INTEGER + r"(?:\.[0-9]+)?(?:[eE][+\-]?[0-9]+)?",
           "boolean": "(?:true|false)", "null": "null"}
IGNORED = frozenset({"title", "description", "$schema", "$comment", "examples", "default"})


def _escape(text: str) -> str:
    return "".join("\\x%02x" % b for b in text.encode("utf-8"))


def _dump(value) -> str:
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def json_schema_to_regex(schema: dict) -> str:
    return _convert(schema, "")


def _convert(schema, path: str) -> str:
    if not isinstance(schema, dict):
        raise ValueError(f"{path or '/'}: a schema is a JSON object")
    keys = set(schema) - IGNORED

    def refuse_extra(allowed):
        extra = sorted(keys - set(allowed))
        if extra:
            raise ValueError(f"{path}/{extra[0]}: keyword not supported")

    if "anyOf" in keys:
        refuse_extra({"anyOf"})
        branches = schema["anyOf"]
        if not isinstance(branches, list) or not branches:
            raise ValueError(f"{path}/anyOf: a non-empty list")
        return "(?:" + "|".join(_convert(b, f"{path}/anyOf/{i}") for i, b in enumerate(branches)) + ")"
    if keys & {"enum", "const"}:
        refuse_extra({"enum", "type"} if "enum" in keys else {"const", "type"})
        values = list(schema["enum"]) if "enum" in keys else [schema["const"]]
        if not values:
            raise ValueError(f"{path}/enum: empty")
        if "type" in keys:
            for v in values:
                if not _has_type(v, schema["type"]):
                    raise ValueError(f"{path}/enum: {v!r} is not of type {schema['type']!r}")
        return "(?:" + "|".join(_escape(_dump(v)) for v in values) + ")"
    kind = schema.get("type")
    if not isinstance(kind, str):
        raise ValueError(f"{path}/type: one type name, not {kind!r}")
    if kind in SCALARS:
        refuse_extra({"type"})
        return SCALARS[kind]
    if kind == "array":
        refuse_extra({"type", "items", "minItems", "maxItems"})
        return _array(schema, path)
    if kind == "object":
        refuse_extra({"type", "properties", "required", "additionalProperties"})
        return _object(schema, path)
    raise ValueError(f"{path}/type: unknown type {kind!r}")


def _has_type(v, kind) -> bool:
    if kind == "null":
        return v is None
    if kind == "boolean":
        return isinstance(v, bool)
    if kind == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind == "string":
        return isinstance(v, str)
    if kind == "array":
        return isinstance(v, list)
    if kind == "object":
        return isinstance(v, dict)
    raise ValueError(f"unknown type {kind!r}")


def _array(schema, path: str) -> str:
    if "items" not in schema:
        raise ValueError(f"{path}: items is required")
    one = _convert(schema["items"], path + "/items")
    low, high = schema.get("minItems", 0), schema.get("maxItems")
    if not (type(low) is int and 0 <= low <= CAP_REPEAT) or not (high is None or (type(high) is int and
                                                                                  low <= high <= CAP_REPEAT)):
        raise ValueError(f"{path}: bad minItems/maxItems")
    if high == 0:
        return r"\[\]"
    upper = "" if high is None else str(high - 1)
    full = f"(?:{one})(?:,(?:{one})){{{max(0, low - 1)},{upper}}}"
    return r"\[" + (full if low else f"(?:{full})?") + r"\]"


def _object(schema, path: str) -> str:
    if schema.get("additionalProperties", False) is not False:
        raise ValueError(f"{path}/additionalProperties: only false")
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    if required - set(props):
        raise ValueError(f"{path}/required: {sorted(required - set(props))[0]!r} is not a property")
    later_after, later_before = "", ""
    for key in reversed(list(props)):
        m = _escape(_dump(key)) + ":" + _convert(props[key], f"{path}/properties/{key}")
        if key in required:
            later_after, later_before = "," + m + later_after, m + later_after
        else:
            later_after, later_before = f"(?:,{m})?{later_after}", f"(?:{m}{later_after}|{later_before})"
    return r"\{" + later_before + r"\}"


# ------------------------------------------------------------------------ masks


class TokenIndex:
    def __init__(self, dfa: DFA, vocab, eos_id=None):
        self.dfa = dfa
        self.vocab = list(vocab)
        self.vocab_size = len(self.vocab)
        if eos_id is not None and eos_id not in range(self.vocab_size):
            raise ValueError(f"eos_id {eos_id} not in range({self.vocab_size})")
        self.eos_id = eos_id
        self.root: dict = {}
        for tid, data in enumerate(self.vocab):
            if data and tid != eos_id:
                node = self.root
                for b in data:
                    node = node.setdefault(b, {})
                node.setdefault("ids", []).append(tid)
        self.sparse = [{b: int(t) for b, t in enumerate(row) if t != DEAD} for row in dfa.trans]
        self.cache: dict[int, np.ndarray] = {}

    def _ok(self, state: int) -> None:
        if state not in range(self.dfa.n_states):
            raise ValueError(f"state {state} not in range({self.dfa.n_states})")

    def mask(self, state: int) -> np.ndarray:
        self._ok(state)
        if state not in self.cache:
            m = np.zeros(self.vocab_size, dtype=bool)
            self._walk(self.root, state, m)
            if self.eos_id is not None:
                m[self.eos_id] = bool(self.dfa.accept[state])
            self.cache[state] = m
        return self.cache[state]

    def _walk(self, node: dict, state: int, m: np.ndarray) -> None:
        for key, child in node.items():
            if key == "ids":
                m[child] = True
            elif key in self.sparse[state]:
                self._walk(child, self.sparse[state][key], m)

    def next_state(self, state: int, token_id: int) -> int:
        self._ok(state)
        if token_id not in range(self.vocab_size):
            raise ValueError(f"token id {token_id} not in range({self.vocab_size})")
        if token_id == self.eos_id:
            return state if self.dfa.accept[state] else DEAD
        data = self.vocab[token_id]
        return self.dfa.step(state, data) if data else DEAD


class Constraint:
    def __init__(self, index: TokenIndex, state: int = 0):
        self.index = index
        self.state = state
        self.done = False

    def mask(self) -> np.ndarray:
        if self.done:
            return np.zeros(self.index.vocab_size, dtype=bool)
        return self.index.mask(self.state)

    def advance(self, token_id: int) -> None:
        if self.done or token_id not in range(self.index.vocab_size) or not self.mask()[token_id]:
            raise ValueError(f"advance: token {token_id} is not allowed in state {self.state}"
                             + (" (EOS was taken)" if self.done else ""))
        if token_id == self.index.eos_id:
            self.done = True
            self.state = DEAD  # the text is over
        else:
            self.state = self.index.next_state(self.state, token_id)

    def is_complete(self) -> bool:
        return self.done or bool(self.index.dfa.accept[self.state])


def apply_mask(logits, mask):
    if logits.shape != mask.shape:
        raise ValueError(f"apply_mask: logits {logits.shape} and mask {mask.shape} differ")
    if not mask.any():
        raise ValueError("apply_mask: the mask allows nothing")
    out = logits.astype(np.float64)  # a copy
    out[~mask.astype(bool)] = -np.inf
    return out


def constrained_sample(logits, c: Constraint, p, history, rng, prompt=()):
    if c.done:
        raise ValueError("constrained_sample: EOS was already taken")
    token, logprob = sample(apply_mask(np.asarray(logits), c.mask()), p, history, rng, prompt)  # noqa: F821
    c.advance(int(token))
    return int(token), float(logprob)


def vocab_bytes(tok) -> list[bytes | None]:
    to_byte = unicode_to_bytes()  # noqa: F821 - supplied by --ref-deps (M05.2)
    specials = {i for i, added in tok.added_tokens_decoder.items() if added.special}
    out: list[bytes | None] = []
    for i, text in enumerate(tok.convert_ids_to_tokens(list(range(len(tok))))):
        if i in specials:
            out.append(None)
        elif all(ch in to_byte for ch in text):
            out.append(bytes(to_byte[ch] for ch in text))
        else:
            out.append(text.encode())
    return out
