"""Fairness gallery: a correct implementation written from the spec's text alone.

Readings (each one the spec allows; see tests/suite/test_fairness.py):

- parameter names of its own everywhere (``regex_to_dfa(regex)``, ``apply_mask(scores,
  allowed)``, ...): the spec's section 4 fixes positions, not names, except ``eos_id``
  and ``prompt``;
- regex: a tokenizer plus precedence-climbing parser, the Glushkov position automaton
  (nullable / first / last / follow sets; no epsilon edges at all), the subset
  construction over byte classes, Hopcroft's minimization (with an explicit sink),
  breadth-first numbering;
- ``Constraint(index, start)``: the constructor requires the start state;
- out-of-range states and token ids raise ``IndexError`` (the spec names no class);
- annotation keywords (title, description, ...) refused with ValueError, as section
  2.5's "Anything else ... raises ValueError" reads;
- ``TokenIndex``: a trie kept in flat lists, every state's mask computed eagerly at
  construction into one dense bool [S, V] table;
- ``vocab_bytes`` reads specials through ``get_added_tokens_decoder`` (the Hugging
  Face ``tokenizers`` name);
- sampling (L8.1) by the Gumbel-max trick.

Its departures from the contract's decisions (``--strict``): step_out_of_range_valueerror,
mask_out_of_range_valueerror, next_state_out_of_range_valueerror, annotations_accepted.

Also refused, a departure (``--strict``: python_escapes_and_repeat_forms): three-digit and
in-class octal escapes (``\\101``, ``[\\4]``, ``[\\0-\\7]``), which the spec does not list.

Also a departure (``--strict``: history_out_of_range_valueerror): under a repetition penalty a
history or prompt id outside range(V) raises IndexError (a negative id indexes from the end),
where the spec names no error.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass

import numpy as np

DEAD = -1
REPEAT_CAP = 500
STATE_CAP = 40000

_ALL = frozenset(range(256))
_CLASS = {
    "d": frozenset(b"0123456789"),
    "w": frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"),
    "s": frozenset(b"\t\n\x0b\x0c\r "),
}
_CLASS.update({k.upper(): _ALL - v for k, v in list(_CLASS.items())})
_SIMPLE_ESCAPES = {"n": 0x0A, "t": 0x09, "r": 0x0D, "f": 0x0C, "v": 0x0B, "a": 0x07}


# ------------------------------------------------------------------------ lexing


def _lex(regex: str) -> list[tuple[str, object, int]]:
    """Tokens (kind, value, offset): 'set' (frozenset), 'op' ('|', '(', ')'), 'rep' ((lo, hi))."""
    out, i, n = [], 0, len(regex)
    while i < n:
        ch = regex[i]
        if ch == "(":
            if regex.startswith("(?:", i):
                out.append(("op", "(", i))
                i += 3
                continue
            if regex.startswith("(?", i):
                raise ValueError(f"offset {i}: '(?' extensions are not in the subset")
            out.append(("op", "(", i))
        elif ch in "|)":
            out.append(("op", ch, i))
        elif ch in "*+?":
            out.append(("rep", {"*": (0, None), "+": (1, None), "?": (0, 1)}[ch], i))
            i = _no_suffix(regex, i + 1)
            continue
        elif ch == "{" and _brace(regex, i):
            lo, hi, end = _brace(regex, i)
            out.append(("rep", (lo, hi), i))
            i = _no_suffix(regex, end)
            continue
        elif ch in "^$":
            raise ValueError(f"offset {i}: anchor {ch!r} is not in the subset")
        elif ch == ".":
            out.append(("set", _ALL - {10}, i))
        elif ch == "[":
            members, i = _bracket(regex, i)
            out.append(("set", members, i))
            continue
        elif ch == "\\":
            members, i = _escape(regex, i, False)
            out.append(("set", members, i))
            continue
        else:
            out.append(("set", frozenset([ord(ch)]), i))
        i += 1
    return out


def _no_suffix(regex: str, i: int) -> int:
    if i < len(regex) and regex[i] in "?+":
        raise ValueError(f"offset {i}: lazy or possessive quantifiers are not in the subset")
    return i


def _brace(regex: str, i: int):
    j = regex.find("}", i)
    if j < 0:
        return None
    inside = regex[i + 1:j]
    if inside.isdigit():
        lo = hi = int(inside)
    elif inside.count(",") == 1:
        a, b = inside.split(",")
        if (a and not a.isdigit()) or (b and not b.isdigit()) or not (a or b):
            return None
        lo, hi = int(a or 0), (int(b) if b else None)
    else:
        return None
    if hi is not None and hi < lo:
        raise ValueError(f"offset {i}: bad repeat {{{inside}}} (max < min)")
    if lo > REPEAT_CAP or (hi is not None and hi > REPEAT_CAP):
        raise ValueError(f"offset {i}: repeat bound over the cap {REPEAT_CAP}")
    return lo, hi, j + 1


def _escape(regex: str, i: int, in_class: bool):
    if i + 1 >= len(regex):
        raise ValueError(f"offset {i}: a pattern cannot end with a backslash")
    ch = regex[i + 1]
    if ch in _CLASS:
        return _CLASS[ch], i + 2
    if ch in _SIMPLE_ESCAPES:
        return frozenset([_SIMPLE_ESCAPES[ch]]), i + 2
    if ch == "x":
        h = regex[i + 2:i + 4]
        try:
            if len(h) != 2:
                raise ValueError
            return frozenset([int(h, 16)]), i + 4
        except ValueError:
            raise ValueError(f"offset {i}: \\x needs two hex digits") from None
    if ch == "0":
        j = i + 2
        while j < len(regex) and j < i + 4 and regex[j] in "01234567":
            j += 1
        return frozenset([int(regex[i + 1:j], 8)]), j
    if ch == "b" and in_class:
        return frozenset([8]), i + 2
    if ch.isalnum():
        raise ValueError(f"offset {i}: escape \\{ch} (anchor, backreference or unknown) is not in the subset")
    return frozenset([ord(ch)]), i + 2


def _bracket(regex: str, i: int):
    start, j = i, i + 1
    negated = j < len(regex) and regex[j] == "^"
    if negated:
        j += 1
    items: set[int] = set()
    first = True
    while True:
        if j >= len(regex):
            raise ValueError(f"offset {start}: unterminated character set")
        if regex[j] == "]" and not first:
            break
        first = False
        low, j = _class_atom(regex, j)
        if j + 1 < len(regex) and regex[j] == "-" and regex[j + 1] != "]":
            high, j = _class_atom(regex, j + 1)
            if len(low) != 1 or len(high) != 1 or max(low) > max(high):
                raise ValueError(f"offset {start}: bad range in a character set")
            items.update(range(max(low), max(high) + 1))
        else:
            items.update(low)
    members = frozenset(items)
    return (_ALL - members if negated else members), j + 1


def _class_atom(regex: str, j: int):
    if regex[j] == "\\":
        return _escape(regex, j, True)
    return frozenset([ord(regex[j])]), j + 1


# ------------------------------------------------------------------------ parsing


class _Tokens:
    def __init__(self, items):
        self.items, self.k = items, 0

    def peek(self):
        return self.items[self.k] if self.k < len(self.items) else ("end", None, -1)

    def take(self):
        item = self.peek()
        self.k += 1
        return item


def _parse_alt(ts: _Tokens):
    options = [_parse_seq(ts)]
    while ts.peek()[:2] == ("op", "|"):
        ts.take()
        options.append(_parse_seq(ts))
    return options[0] if len(options) == 1 else ("alt", tuple(options))


def _parse_seq(ts: _Tokens):
    items = []
    while True:
        kind, value, offset = ts.peek()
        if kind == "end" or (kind == "op" and value in "|)"):
            return ("seq", tuple(items))
        if kind == "rep":
            raise ValueError(f"offset {offset}: nothing to repeat")
        ts.take()
        if kind == "set":
            atom = ("sym", value)
        else:  # "("
            atom = _parse_alt(ts)
            if ts.take()[:2] != ("op", ")"):
                raise ValueError(f"offset {offset}: missing )")
        if ts.peek()[0] == "rep":
            lo, hi = ts.take()[1]
            if ts.peek()[0] == "rep":
                raise ValueError(f"offset {ts.peek()[2]}: multiple repeat")
            atom = _expand(atom, lo, hi)
        items.append(atom)


def _expand(atom, lo: int, hi):
    """x{lo,hi} as lo copies then (hi - lo) nested optional copies (or a star)."""
    tail = ("star", atom) if hi is None else ("seq", ())
    if hi is not None:
        for _ in range(hi - lo):
            tail = ("opt", ("seq", (atom, tail)))
    return ("seq", tuple([atom] * lo) + (tail,))


# ------------------------------------------------------------------ Glushkov automaton


class _Glushkov:
    """Positions (one per symbol occurrence), with nullable/first/last/follow."""

    def __init__(self, tree):
        self.symbols: list[frozenset] = []
        self.follow: list[set[int]] = []
        self.nullable, self.first, self.last = self.visit(tree)

    def visit(self, node):
        kind = node[0]
        if kind == "sym":
            p = len(self.symbols)
            self.symbols.append(node[1])
            self.follow.append(set())
            return False, {p}, {p}
        if kind == "seq":
            nullable, first, last = True, set(), set()
            for child in node[1]:
                n2, f2, l2 = self.visit(child)
                for p in last:
                    self.follow[p] |= f2
                if nullable:
                    first |= f2
                last = (last | l2) if n2 else set(l2)
                nullable = nullable and n2
            return nullable, first, last
        if kind == "alt":
            results = [self.visit(child) for child in node[1]]
            return (any(r[0] for r in results), set().union(*(r[1] for r in results)),
                    set().union(*(r[2] for r in results)))
        n, first, last = self.visit(node[1])
        if kind == "star":
            for p in last:
                self.follow[p] |= first
        return True, first, last


def _classes(symbols) -> list[tuple[int, ...]]:
    signature: dict[tuple, list[int]] = {}
    for b in range(256):
        signature.setdefault(tuple(b in s for s in symbols), []).append(b)
    return [tuple(v) for v in signature.values()]


def _subset(g: _Glushkov, classes):
    """Complete DFA over byte classes: state 0 is the start, the empty set is a sink."""
    start = frozenset([-1])
    index = {start: 0}
    states = [start]
    delta: list[list[int]] = []
    finals = []
    k = 0
    while k < len(states):
        here = states[k]
        nxt_pos = set()
        for q in here:
            nxt_pos |= g.first if q == -1 else g.follow[q]
        row = []
        for cls in classes:
            b = cls[0]
            target = frozenset(p for p in nxt_pos if b in g.symbols[p])
            if target not in index:
                if len(states) >= STATE_CAP:
                    raise ValueError(f"the automaton exceeds {STATE_CAP} states")
                index[target] = len(states)
                states.append(target)
            row.append(index[target])
        delta.append(row)
        finals.append(bool(here & g.last) or (-1 in here and g.nullable))
        k += 1
    return delta, finals


def _hopcroft(delta, finals, n_symbols: int) -> list[int]:
    """Block id of every state (Hopcroft 1971: refine by the smaller half)."""
    n = len(delta)
    inverse = [[[] for _ in range(n)] for _ in range(n_symbols)]
    for q, row in enumerate(delta):
        for c, t in enumerate(row):
            inverse[c][t].append(q)
    accepting = frozenset(q for q in range(n) if finals[q])
    rejecting = frozenset(range(n)) - accepting
    partition = [blk for blk in (accepting, rejecting) if blk]
    work = [min(partition, key=len)] if len(partition) == 2 else []
    while work:
        splitter = work.pop()
        for c in range(n_symbols):
            pre = {p for t in splitter for p in inverse[c][t]}
            if not pre:
                continue
            refined = []
            for blk in partition:
                inside, outside = blk & pre, blk - pre
                if inside and outside:
                    refined += [inside, outside]
                    if blk in work:
                        work.remove(blk)
                        work += [inside, outside]
                    else:
                        work.append(min(inside, outside, key=len))
                else:
                    refined.append(blk)
            partition = refined
    owner = [0] * n
    for i, blk in enumerate(partition):
        for q in blk:
            owner[q] = i
    return owner


def _canonical(delta, finals, classes, owner):
    n_blocks = max(owner) + 1
    rep = {}
    for q in range(len(delta)):
        rep.setdefault(owner[q], q)
    # live blocks: an accepting block is reachable from them
    edges_back: dict[int, set[int]] = {}
    for blk, q in rep.items():
        for t in delta[q]:
            edges_back.setdefault(owner[t], set()).add(blk)
    live = {owner[q] for q in range(len(delta)) if finals[q]}
    todo = list(live)
    while todo:
        for b in edges_back.get(todo.pop(), ()):
            if b not in live:
                live.add(b)
                todo.append(b)
    if owner[0] not in live:
        raise ValueError("the pattern's language is empty")
    byte_class = [0] * 256
    for c, cls in enumerate(classes):
        for b in cls:
            byte_class[b] = c
    number = {owner[0]: 0}
    order = deque([owner[0]])
    trans, accept = [], []
    while order:
        blk = order.popleft()
        q = rep[blk]
        row = np.full(256, DEAD, dtype=np.int32)
        for b in range(256):
            tb = owner[delta[q][byte_class[b]]]
            if tb in live:
                if tb not in number:
                    number[tb] = len(number)
                    order.append(tb)
                row[b] = number[tb]
        trans.append(row)
        accept.append(finals[q])
    assert len(number) <= n_blocks
    return np.stack(trans).astype(np.int32), np.array(accept, dtype=np.bool_)


class DFA:
    def __init__(self, trans, accept):
        self.trans = trans
        self.accept = accept
        self.n_states = len(accept)

    def step(self, s: int, text: bytes) -> int:
        if s == DEAD:
            return DEAD
        if s < 0 or s >= self.n_states:
            raise IndexError(f"no state {s} (states are 0..{self.n_states - 1})")
        row = self.trans
        for b in text:
            s = int(row[s, b])
            if s < 0:
                return DEAD
        return s

    def matches(self, text: bytes) -> bool:
        s = self.step(0, text)
        return s >= 0 and bool(self.accept[s])


def regex_to_dfa(regex: str) -> DFA:
    if not isinstance(regex, str):
        raise TypeError("regex_to_dfa takes a str pattern")
    bad = next((i for i, ch in enumerate(regex) if not ch.isascii()), None)
    if bad is not None:
        raise ValueError(f"offset {bad}: non-ASCII character")
    ts = _Tokens(_lex(regex))
    tree = _parse_alt(ts)
    if ts.peek()[0] != "end":
        raise ValueError(f"offset {ts.peek()[2]}: unbalanced )")
    g = _Glushkov(tree)
    classes = _classes(g.symbols)
    delta, finals = _subset(g, classes)
    owner = _hopcroft(delta, finals, len(classes))
    return DFA(*_canonical(delta, finals, classes, owner))


# ------------------------------------------------------------------------ JSON schemas

_U8 = [r"[\xc2-\xdf][\x80-\xbf]", r"\xe0[\xa0-\xbf][\x80-\xbf]", r"[\xe1-\xec\xee\xef][\x80-\xbf][\x80-\xbf]",
       r"\xed[\x80-\x9f][\x80-\xbf]", r"\xf0[\x90-\xbf][\x80-\xbf][\x80-\xbf]",
       r"[\xf1-\xf3][\x80-\xbf][\x80-\xbf][\x80-\xbf]", r"\xf4[\x80-\x8f][\x80-\xbf][\x80-\xbf]"]
_CHAR = "|".join([r"[ !#-\[\]-~]", r'\\["\\/bfnrt]', r"\\u[0-9a-fA-F]{4}", *_U8])
_INT = r"-?(0|[1-9][0-9]*)"
_LEAVES = {
    "string": f'"({_CHAR})*"',
    "integer": _INT,
    "number": _INT + r"(\.[0-9]+)?([eE][+-]?[0-9]+)?",
    "boolean": "(true|false)",
    "null": "null",
}
_META = set(".^$*+?{}[]\\|()\"'/-,:")


def _escape_text(text: str) -> str:
    out = []
    for b in text.encode("utf-8"):
        c = chr(b)
        out.append("\\" + c if c in _META else (c if 0x20 < b < 0x7F else f"\\x{b:02x}"))
    return "".join(out)


def json_schema_to_regex(spec: dict) -> str:
    return _to_regex(spec, "")


def _to_regex(spec, pointer: str) -> str:
    if not isinstance(spec, dict):
        raise ValueError(f"{pointer or '/'}: expected a schema object")
    keys = set(spec)
    if "anyOf" in keys:
        if keys != {"anyOf"} or not isinstance(spec["anyOf"], list) or not spec["anyOf"]:
            raise ValueError(f"{pointer}/anyOf: only a non-empty anyOf list on its own")
        return "(" + "|".join(_to_regex(s, f"{pointer}/anyOf/{i}") for i, s in enumerate(spec["anyOf"])) + ")"
    if "const" in keys or "enum" in keys:
        if len(keys & {"const", "enum"}) == 2 or keys - {"const", "enum", "type"}:
            raise ValueError(f"{pointer}: unsupported keyword next to enum/const: {sorted(keys)}")
        values = [spec["const"]] if "const" in keys else spec["enum"]
        if not isinstance(values, list) or not values:
            raise ValueError(f"{pointer}/enum: must be a non-empty list")
        if "type" in keys:
            _check_enum_type(spec["type"], values, pointer)
        texts = [json.dumps(v, separators=(",", ":"), ensure_ascii=False, allow_nan=False) for v in values]
        return "(" + "|".join(_escape_text(t) for t in texts) + ")"
    kind = spec.get("type")
    if not isinstance(kind, str) or kind not in (*_LEAVES, "array", "object"):
        raise ValueError(f"{pointer}/type: unsupported type {kind!r}")
    allowed = {"type"} | ({"items", "minItems", "maxItems"} if kind == "array" else set()) | \
        ({"properties", "required", "additionalProperties"} if kind == "object" else set())
    if keys - allowed:
        raise ValueError(f"{pointer}/{sorted(keys - allowed)[0]}: keyword not in the subset")
    if kind in _LEAVES:
        return _LEAVES[kind]
    return _array(spec, pointer) if kind == "array" else _object(spec, pointer)


def _check_enum_type(kind, values, pointer: str) -> None:
    checks = {"string": lambda v: isinstance(v, str), "null": lambda v: v is None,
              "boolean": lambda v: isinstance(v, bool),
              "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
              "array": lambda v: isinstance(v, list), "object": lambda v: isinstance(v, dict)}
    if kind not in checks:
        raise ValueError(f"{pointer}/type: unsupported type {kind!r}")
    for v in values:
        if not checks[kind](v):
            raise ValueError(f"{pointer}/enum: {v!r} is not a {kind}")


def _array(spec, pointer: str) -> str:
    if "items" not in spec:
        raise ValueError(f"{pointer}/items: required for an array")
    item = "(" + _to_regex(spec["items"], pointer + "/items") + ")"
    lo = spec.get("minItems", 0)
    hi = spec.get("maxItems")
    for v in (lo, hi):
        if v is not None and (type(v) is not int or v < 0 or v > REPEAT_CAP):
            raise ValueError(f"{pointer}: minItems/maxItems must be integers in 0..{REPEAT_CAP}")
    if hi is not None and hi < lo:
        raise ValueError(f"{pointer}: maxItems < minItems")
    if hi == 0:
        return r"\[\]"
    rest = "(," + item + "){" + str(max(lo - 1, 0)) + "," + ("" if hi is None else str(hi - 1)) + "}"
    body = item + rest
    return r"\[" + (body if lo >= 1 else "(" + body + ")?") + r"\]"


def _object(spec, pointer: str) -> str:
    if spec.get("additionalProperties", False) is not False:
        raise ValueError(f"{pointer}/additionalProperties: only false is in the subset")
    properties = spec.get("properties", {})
    required = spec.get("required", [])
    if not isinstance(properties, dict) or not isinstance(required, list):
        raise ValueError(f"{pointer}: properties must be an object and required a list")
    missing = [r for r in required if r not in properties]
    if missing:
        raise ValueError(f"{pointer}/required: {missing[0]!r} is not a property")
    names = list(properties)
    member = [_escape_text(json.dumps(k, ensure_ascii=False)) + ":(" +
              _to_regex(properties[k], f"{pointer}/properties/{k}") + ")" for k in names]
    memo: dict[tuple[int, bool], str] = {}

    def rest(i: int, written: bool) -> str:
        """members i.. given whether something was written before them"""
        if i == len(names):
            return ""
        if (i, written) not in memo:
            sep = "," if written else ""
            take = sep + member[i] + rest(i + 1, True)
            if names[i] in required:
                memo[i, written] = take
            elif written:
                memo[i, written] = "(" + "," + member[i] + ")?" + rest(i + 1, True)
            else:
                memo[i, written] = "(" + take + "|" + rest(i + 1, False) + ")"
        return memo[i, written]

    return r"\{" + rest(0, False) + r"\}"


# ------------------------------------------------------------------------ masks


class TokenIndex:
    def __init__(self, automaton: DFA, token_bytes, eos_id=None):
        self.dfa = automaton
        self.vocab = list(token_bytes)
        self.vocab_size = len(self.vocab)
        if eos_id is not None and not 0 <= eos_id < self.vocab_size:
            raise ValueError(f"eos_id {eos_id} is not a token id")
        self.eos_id = eos_id
        # the trie as flat lists: node k has edges[k] = [(byte, child)], tokens[k] = ids ending there
        self.edges: list[list[tuple[int, int]]] = [[]]
        self.tokens: list[list[int]] = [[]]
        for tid, data in enumerate(self.vocab):
            if tid == eos_id or not data:
                continue
            k = 0
            for b in data:
                child = next((c for byte, c in self.edges[k] if byte == b), None)
                if child is None:
                    child = len(self.edges)
                    self.edges.append([])
                    self.tokens.append([])
                    self.edges[k].append((b, child))
                k = child
            self.tokens[k].append(tid)
        self.table = np.zeros((automaton.n_states, self.vocab_size), dtype=bool)
        for s in range(automaton.n_states):
            self._fill(s)
        self.table.setflags(write=False)

    def _fill(self, s: int) -> None:
        row = self.table[s]
        trans = self.dfa.trans
        todo = [(0, s)]
        while todo:
            k, q = todo.pop()
            row[self.tokens[k]] = True
            for b, child in self.edges[k]:
                t = trans[q, b]
                if t >= 0:
                    todo.append((child, int(t)))
        if self.eos_id is not None:
            row[self.eos_id] = bool(self.dfa.accept[s])

    def _state(self, s: int) -> int:
        if not 0 <= s < self.dfa.n_states:
            raise IndexError(f"state {s} out of range({self.dfa.n_states})")
        return s

    def mask(self, s: int):
        return self.table[self._state(s)]

    def next_state(self, s: int, tok: int) -> int:
        self._state(s)
        if not 0 <= tok < self.vocab_size:
            raise IndexError(f"token id {tok} out of range({self.vocab_size})")
        if tok == self.eos_id:
            return s if self.dfa.accept[s] else DEAD
        data = self.vocab[tok]
        return DEAD if not data else self.dfa.step(s, data)


class Constraint:
    """``Constraint(index, start)``: the caller says where the text starts (0: empty)."""

    def __init__(self, index: TokenIndex, start: int):
        self.index = index
        self.state = index._state(start)
        self.done = False

    def mask(self):
        return np.zeros(self.index.vocab_size, dtype=bool) if self.done else self.index.mask(self.state)

    def advance(self, tok: int) -> None:
        allowed = self.mask()
        if not (0 <= tok < len(allowed)) or not allowed[tok]:
            raise ValueError(f"token {tok} refused in state {self.state}" + (" (after EOS)" if self.done else ""))
        if tok == self.index.eos_id:
            self.done = True
        else:
            self.state = self.index.next_state(self.state, tok)

    def is_complete(self) -> bool:
        return bool(self.index.dfa.accept[self.state])


# ------------------------------------------------------------------------ sampling


def apply_mask(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.asarray(allowed)
    if allowed.shape != scores.shape:
        raise ValueError(f"mask of shape {allowed.shape} for logits of shape {scores.shape}")
    if not allowed.astype(bool).any():
        raise ValueError("mask allows nothing")
    return np.where(allowed.astype(bool), scores, -np.inf)


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    repetition_penalty: float = 1.0

    def __post_init__(self):
        if self.temperature < 0:
            raise ValueError("temperature < 0")
        if self.top_k < 0:
            raise ValueError("top_k < 0")
        if not 0.0 < self.top_p <= 1.0:
            raise ValueError("top_p outside (0, 1]")
        if self.repetition_penalty <= 0:
            raise ValueError("repetition_penalty <= 0")


def sample(scores, params: SamplingParams, past, generator, prompt=()):
    z = np.array(scores, dtype=np.float64)
    finite = z > -np.inf
    if not finite.any():
        raise ValueError("all logits are -inf")
    if params.repetition_penalty != 1.0:
        seen = np.unique(np.array([*prompt, *past], dtype=np.int64))
        z[seen] = np.where(z[seen] > 0, z[seen] / params.repetition_penalty, z[seen] * params.repetition_penalty)
    m = z[finite].max()
    logp = z - m - np.log(np.exp(z[finite] - m).sum())
    if params.temperature == 0.0:
        best = int(np.flatnonzero(z == z.max())[0])
        return best, float(logp[best])
    w = z / params.temperature
    if params.top_k and params.top_k < int(finite.sum()):
        kth = np.partition(w[finite], -params.top_k)[-params.top_k]
        w = np.where(w >= kth, w, -np.inf)
    if params.top_p < 1.0:
        pw = np.exp(w - w.max())
        pw /= pw.sum()
        order = np.argsort(-pw, kind="stable")
        before = np.concatenate([[0.0], np.cumsum(pw[order])[:-1]])
        drop = order[before >= params.top_p]
        w[drop] = -np.inf
    gumbel = -np.log(-np.log(generator.uniform(1e-300, 1.0, size=w.shape)))
    choice = int(np.argmax(np.where(w > -np.inf, w + gumbel, -np.inf)))
    return choice, float(logp[choice])


def constrained_sample(scores, constraint: Constraint, params: SamplingParams, past, generator, prompt=()):
    if constraint.done:
        raise ValueError("nothing can be sampled after EOS")
    tok, lp = sample(apply_mask(scores, constraint.mask()), params, past, generator, prompt)
    constraint.advance(tok)
    return tok, lp


# ------------------------------------------------------------------------ token bytes


def bytes_to_unicode() -> dict[int, str]:
    printable = set(range(0x21, 0x7F)) | set(range(0xA1, 0xAD)) | set(range(0xAE, 0x100))
    table, k = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(0x100 + k)
            k += 1
    return table


def unicode_to_bytes() -> dict[str, int]:
    return {v: k for k, v in bytes_to_unicode().items()}


def vocab_bytes(tokenizer):
    if hasattr(tokenizer, "decode_single_token_bytes"):
        special = {tokenizer.encode_single_token(s) for s in getattr(tokenizer, "special_tokens_set", ())}
        out = []
        for i in range(tokenizer.n_vocab):
            try:
                out.append(None if i in special else bytes(tokenizer.decode_single_token_bytes(i)))
            except KeyError:
                out.append(None)
        return out
    if hasattr(tokenizer, "get_added_tokens_decoder"):
        n = tokenizer.get_vocab_size(with_added_tokens=True)
        strings = [tokenizer.id_to_token(i) for i in range(n)]
        special = {i for i, t in tokenizer.get_added_tokens_decoder().items() if getattr(t, "special", False)}
    else:
        strings = list(tokenizer)
        special = set(getattr(tokenizer, "all_special_ids", ()))
    back = unicode_to_bytes()
    result = []
    for i, s in enumerate(strings):
        if s is None or i in special:
            result.append(None)
        elif set(s) <= back.keys():
            result.append(bytes(back[c] for c in s))
        else:
            result.append(s.encode("utf-8"))
    return result
