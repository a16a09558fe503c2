"""Fairness gallery: a correct implementation written from the spec's text alone.

Readings (each one the spec allows; see tests/suite/test_fairness.py):

- regex: a hand-written recursive-descent parser into tuples, Thompson's construction
  (one NFA fragment per node, epsilon edges), the subset construction over byte classes,
  Moore's partition refinement, breadth-first numbering;
- ``Constraint(index)``: the constructor takes only the index (no state parameter);
- ``TokenIndex``: a trie of nested dicts, masks computed lazily per state and cached;
- errors: ValueError for every refusal, TypeError for a pattern that is not a str;
- annotations (title, description, ...) accepted and ignored;
- ``vocab_bytes`` reads specials through ``all_special_ids`` (transformers' name);
- sampling (L8.1) written here: temperature, top-k, top-p, repetition penalty.

It follows every contract decision but two: three-digit and in-class octal escapes (``\\101``,
``[\\4]``) are refused, which ``--strict`` reports as python_escapes_and_repeat_forms.

Also a departure (``--strict``: history_out_of_range_valueerror): under a repetition penalty a
history or prompt id outside range(V) raises IndexError (a negative id indexes from the end),
where the spec names no error.
"""

from __future__ import annotations

import json
import math
from collections import deque
from dataclasses import dataclass

import numpy as np

DEAD = -1
MAX_REPEAT = 1000
MAX_DFA_STATES = 50000

DIGITS = frozenset(range(48, 58))
WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
SPACE = frozenset(b" \t\n\r\f\v")
EVERY = frozenset(range(256))
SHORTHANDS = {"d": DIGITS, "w": WORD, "s": SPACE, "D": EVERY - DIGITS, "W": EVERY - WORD, "S": EVERY - SPACE}
CONTROL_ESCAPES = {"n": 10, "t": 9, "r": 13, "f": 12, "v": 11, "a": 7}


# ------------------------------------------------------------------------ the parser


class _Parser:
    """pattern text -> tree: ("set", bytes) | ("cat", [..]) | ("alt", [..]) | ("rep", t, lo, hi)."""

    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def error(self, what: str):
        return ValueError(f"{what} at offset {self.pos} in {self.text!r}")

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.text[i] if i < len(self.text) else ""

    def parse(self):
        tree = self.alternation()
        if self.pos != len(self.text):
            raise self.error("unbalanced )")
        return tree

    def alternation(self):
        branches = [self.concatenation()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.concatenation())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def concatenation(self):
        parts = []
        while self.peek() not in ("", "|", ")"):
            parts.append(self.repeated(self.atom()))
        return ("cat", parts)

    def repeated(self, node):
        seen = False
        while True:
            ch = self.peek()
            bounds = None
            if ch and ch in "*+?":
                bounds = {"*": (0, None), "+": (1, None), "?": (0, 1)}[ch]
                self.pos += 1
            elif ch == "{":
                bounds = self.braces()
            if bounds is None:
                return node
            if seen:
                raise self.error("multiple repeat")
            if self.peek() == "?":
                raise self.error("lazy quantifier")
            if self.peek() == "+":
                raise self.error("possessive quantifier")
            lo, hi = bounds
            if hi is not None and hi < lo:
                raise self.error(f"bad repeat {{{lo},{hi}}}")
            if lo > MAX_REPEAT or (hi or 0) > MAX_REPEAT:
                raise self.error(f"repeat bound over {MAX_REPEAT}")
            node, seen = ("rep", node, lo, hi), True

    def braces(self):
        close = self.text.find("}", self.pos)
        if close < 0:
            return None
        body = self.text[self.pos + 1:close]
        lo_text, comma, hi_text = body.partition(",")
        if not (lo_text.isdigit() or (comma and (lo_text == "" or lo_text.isdigit()))):
            return None
        if (lo_text and not lo_text.isdigit()) or (hi_text and not hi_text.isdigit()):
            return None
        self.pos = close + 1
        lo = int(lo_text) if lo_text else 0
        if not comma:
            return lo, lo
        return lo, (int(hi_text) if hi_text else None)

    def atom(self):
        ch = self.peek()
        if ch in ("*", "+", "?"):
            raise self.error("nothing to repeat")
        if ch == "{" and self.braces_ahead():
            raise self.error("nothing to repeat")
        if ch and ch in "^$":
            raise self.error(f"anchor {ch}")
        if ch == "(":
            return self.group()
        if ch == "[":
            return ("set", self.bracket())
        if ch == ".":
            self.pos += 1
            return ("set", EVERY - {10})
        if ch == "\\":
            return ("set", self.escape(in_class=False))
        self.pos += 1
        return ("set", frozenset([ord(ch)]))

    def braces_ahead(self) -> bool:
        saved = self.pos
        found = self.braces() is not None
        self.pos = saved
        return found

    def group(self):
        self.pos += 1
        if self.peek() == "?":
            if self.peek(1) != ":":
                raise self.error("unsupported group (lookaround, named group, flags or comment)")
            self.pos += 2
        inner = self.alternation()
        if self.peek() != ")":
            raise self.error("unbalanced (")
        self.pos += 1
        return inner

    def escape(self, in_class: bool) -> frozenset:
        self.pos += 1
        ch = self.peek()
        if ch == "":
            raise self.error("trailing backslash")
        self.pos += 1
        if ch in SHORTHANDS:
            return SHORTHANDS[ch]
        if ch in CONTROL_ESCAPES:
            return frozenset([CONTROL_ESCAPES[ch]])
        if ch == "x":
            digits = self.text[self.pos:self.pos + 2]
            if len(digits) != 2 or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise self.error("bad \\x escape")
            self.pos += 2
            return frozenset([int(digits, 16)])
        if ch == "0":
            digits = "0"
            while len(digits) < 3 and self.peek() in tuple("01234567"):
                digits += self.peek()
                self.pos += 1
            return frozenset([int(digits, 8)])
        if ch.isdigit():
            raise self.error("backreference")
        if ch == "b" and in_class:
            return frozenset([8])
        if ch.isalnum():
            raise self.error(f"unsupported escape \\{ch} (anchor or unknown)")
        return frozenset([ord(ch)])

    def bracket(self) -> frozenset:
        self.pos += 1
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        members: set[int] = set()
        first = True
        while True:
            ch = self.peek()
            if ch == "":
                raise self.error("unclosed [")
            if ch == "]" and not first:
                self.pos += 1
                break
            first = False
            low = self.class_item()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                high = self.class_item()
                if len(low) != 1 or len(high) != 1 or min(low) > min(high):
                    raise self.error("bad character range")
                members.update(range(min(low), min(high) + 1))
            else:
                members.update(low)
        return EVERY - members if negate else frozenset(members)

    def class_item(self) -> frozenset:
        if self.peek() == "\\":
            return self.escape(in_class=True)
        ch = self.peek()
        self.pos += 1
        return frozenset([ord(ch)])


# ------------------------------------------------------------- Thompson's construction


class _NFA:
    def __init__(self):
        self.eps: list[list[int]] = []
        self.edges: list[list[tuple[frozenset, int]]] = []

    def new(self) -> int:
        self.eps.append([])
        self.edges.append([])
        return len(self.eps) - 1

    def build(self, node) -> tuple[int, int]:
        kind = node[0]
        if kind == "set":
            a, b = self.new(), self.new()
            if node[1]:
                self.edges[a].append((node[1], b))
            return a, b
        if kind == "cat":
            a = b = self.new()
            for part in node[1]:
                s, e = self.build(part)
                self.eps[b].append(s)
                b = e
            return a, b
        if kind == "alt":
            a, b = self.new(), self.new()
            for branch in node[1]:
                s, e = self.build(branch)
                self.eps[a].append(s)
                self.eps[e].append(b)
            return a, b
        _, child, lo, hi = node
        a = b = self.new()
        for _ in range(lo):
            s, e = self.build(child)
            self.eps[b].append(s)
            b = e
        if hi is None:
            loop = self.new()
            self.eps[b].append(loop)
            s, e = self.build(child)
            self.eps[loop].append(s)
            self.eps[e].append(loop)
            return a, loop
        end = self.new()
        for _ in range(hi - lo):
            self.eps[b].append(end)
            s, e = self.build(child)
            self.eps[b].append(s)
            b = e
        self.eps[b].append(end)
        return a, end

    def closure(self, states) -> frozenset:
        seen, stack = set(states), list(states)
        while stack:
            for nxt in self.eps[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return frozenset(seen)


def _byte_classes(nfa: _NFA) -> list[list[int]]:
    sets = {s for edges in nfa.edges for s, _ in edges}
    groups: dict[tuple, list[int]] = {}
    for b in range(256):
        groups.setdefault(tuple(b in s for s in sets), []).append(b)
    return list(groups.values())


def _determinize(nfa: _NFA, start: int, final: int):
    classes = _byte_classes(nfa)
    first = nfa.closure([start])
    ids = {first: 0}
    order = [first]
    rows: list[dict[int, int]] = []
    i = 0
    while i < len(order):
        current = order[i]
        row: dict[int, int] = {}
        for cls in classes:
            b = cls[0]
            targets = [t for s in current for bs, t in nfa.edges[s] if b in bs]
            if not targets:
                continue
            nxt = nfa.closure(targets)
            if nxt not in ids:
                if len(order) >= MAX_DFA_STATES:
                    raise ValueError(f"the DFA exceeds {MAX_DFA_STATES} states")
                ids[nxt] = len(order)
                order.append(nxt)
            for byte in cls:
                row[byte] = ids[nxt]
        rows.append(row)
        i += 1
    accepting = [final in subset for subset in order]
    return rows, accepting


def _prune_dead(rows, accepting):
    """Keep the states from which an accepting state is reachable (backward search)."""
    back: dict[int, set[int]] = {}
    for s, row in enumerate(rows):
        for t in row.values():
            back.setdefault(t, set()).add(s)
    live = {s for s, a in enumerate(accepting) if a}
    stack = list(live)
    while stack:
        for p in back.get(stack.pop(), ()):
            if p not in live:
                live.add(p)
                stack.append(p)
    return [{b: t for b, t in row.items() if t in live} for row in rows], live


def _moore(rows, accepting, live):
    states = sorted(live)
    block = {s: int(accepting[s]) for s in states}
    while True:
        signatures = {s: (block[s], tuple(block.get(rows[s].get(b, -1), -1) for b in range(256))) for s in states}
        numbering: dict[tuple, int] = {}
        new_block = {s: numbering.setdefault(signatures[s], len(numbering)) for s in states}
        if len(numbering) == len(set(block.values())):
            return new_block
        block = new_block


def _number(rows, accepting, block):
    start = block[0]
    members: dict[int, int] = {}
    for s, blk in block.items():
        members.setdefault(blk, s)
    names = {start: 0}
    queue = deque([start])
    table, accept = [], []
    while queue:
        blk = queue.popleft()
        s = members[blk]
        row = [DEAD] * 256
        for b in range(256):
            t = rows[s].get(b)
            if t is None or t not in block:
                continue
            tb = block[t]
            if tb not in names:
                names[tb] = len(names)
                queue.append(tb)
            row[b] = names[tb]
        table.append(row)
        accept.append(accepting[s])
    return np.array(table, dtype=np.int32).reshape(len(table), 256), np.array(accept, dtype=bool)


class DFA:
    """A canonical DFA: ``trans`` int32 [S, 256] (DEAD = -1), ``accept`` bool [S]."""

    def __init__(self, trans: np.ndarray, accept: np.ndarray):
        self.trans, self.accept = trans, accept
        self.n_states = int(trans.shape[0])

    def step(self, state: int, data: bytes) -> int:
        if state == DEAD:
            return DEAD
        if not 0 <= state < self.n_states:
            raise ValueError(f"state {state} is not a state of this {self.n_states}-state DFA")
        for byte in bytes(data):
            state = int(self.trans[state, byte])
            if state == DEAD:
                return DEAD
        return state

    def matches(self, data: bytes) -> bool:
        end = self.step(0, data)
        return end != DEAD and bool(self.accept[end])


def regex_to_dfa(pattern: str) -> DFA:
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
    for offset, ch in enumerate(pattern):
        if ord(ch) > 127:
            raise ValueError(f"non-ASCII character {ch!r} at offset {offset}")
    tree = _Parser(pattern).parse()
    nfa = _NFA()
    start, final = nfa.build(tree)
    rows, accepting = _determinize(nfa, start, final)
    rows, live = _prune_dead(rows, accepting)
    if 0 not in live:
        raise ValueError(f"the pattern {pattern!r} matches nothing (empty language)")
    trans, accept = _number(rows, accepting, _moore(rows, accepting, live))
    return DFA(trans, accept)


# ------------------------------------------------------------------ the schema subset

_UTF8 = ("[\\xc2-\\xdf][\\x80-\\xbf]|\\xe0[\\xa0-\\xbf][\\x80-\\xbf]|[\\xe1-\\xec][\\x80-\\xbf]{2}"
         "|\\xed[\\x80-\\x9f][\\x80-\\xbf]|[\\xee-\\xef][\\x80-\\xbf]{2}|\\xf0[\\x90-\\xbf][\\x80-\\xbf]{2}"
         "|[\\xf1-\\xf3][\\x80-\\xbf]{3}|\\xf4[\\x80-\\x8f][\\x80-\\xbf]{2}")
_STRING = '"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4}|' + _UTF8 + ')*"'
_INTEGER = "-?(?:0|[1-9][0-9]*)"
_SIMPLE = {"string": _STRING, "integer": _INTEGER, "number": _INTEGER + "(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?",
           "boolean": "(?:true|false)", "null": "null"}
_ANNOTATIONS = {"title", "description", "$schema", "$comment", "examples", "default"}
_ALLOWED = {"string": set(), "integer": set(), "number": set(), "boolean": set(), "null": set(),
            "array": {"items", "minItems", "maxItems"},
            "object": {"properties", "required", "additionalProperties"}}


def _literal(text: str) -> str:
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch.isalnum() and byte < 128:
            out.append(ch)
        else:
            out.append(f"\\x{byte:02x}")
    return "".join(out)


def _compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def json_schema_to_regex(schema: dict) -> str:
    return _schema(schema, "#")


def _schema(node, where: str) -> str:
    if not isinstance(node, dict):
        raise ValueError(f"{where}: a schema must be an object")
    keys = set(node) - _ANNOTATIONS
    if "anyOf" in node:
        if keys != {"anyOf"} or not isinstance(node["anyOf"], list) or not node["anyOf"]:
            raise ValueError(f"{where}: anyOf must stand alone with a non-empty list")
        return "(?:" + "|".join(_schema(s, f"{where}/anyOf/{i}") for i, s in enumerate(node["anyOf"])) + ")"
    if "enum" in node or "const" in node:
        values = node["enum"] if "enum" in node else [node["const"]]
        if not isinstance(values, list) or not values:
            raise ValueError(f"{where}: enum must be a non-empty list")
        if keys - {"enum", "const", "type"} or {"enum", "const"} <= keys:
            raise ValueError(f"{where}: unsupported keywords {sorted(keys - {'enum', 'const', 'type'})}")
        if "type" in node:
            if node["type"] not in _ALLOWED:
                raise ValueError(f"{where}/type: unknown type {node['type']!r}")
            for v in values:
                if _type_of(v) not in _compatible(node["type"]):
                    raise ValueError(f"{where}: enum value {v!r} is not of type {node['type']}")
        return "(?:" + "|".join(_literal(_compact(v)) for v in values) + ")"
    kind = node.get("type")
    if not isinstance(kind, str) or kind not in _ALLOWED:
        raise ValueError(f"{where}/type: unknown or missing type {kind!r}")
    extra = keys - {"type"} - _ALLOWED[kind]
    if extra:
        raise ValueError(f"{where}: keyword {sorted(extra)[0]!r} is not supported")
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind == "array":
        return _array(node, where)
    return _object(node, where)


def _type_of(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def _compatible(kind: str) -> set[str]:
    return {"number": {"number", "integer"}}.get(kind, {kind})


def _array(node, where: str) -> str:
    if "items" not in node:
        raise ValueError(f"{where}: an array needs items")
    item = _schema(node["items"], f"{where}/items")
    lo, hi = node.get("minItems", 0), node.get("maxItems")
    for name, v in (("minItems", lo), ("maxItems", hi)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_REPEAT):
            raise ValueError(f"{where}/{name}: must be an integer in 0..{MAX_REPEAT}")
    if hi is not None and hi < lo:
        raise ValueError(f"{where}: maxItems < minItems")
    if hi == 0:
        return "\\[\\]"
    more_lo = max(lo - 1, 0)
    more = f"(?:,{item}){{{more_lo},{'' if hi is None else hi - 1}}}"
    body = f"(?:{item}){more}"
    return f"\\[{body}\\]" if lo > 0 else f"\\[(?:{body})?\\]"


def _object(node, where: str) -> str:
    props = node.get("properties", {})
    if not isinstance(props, dict):
        raise ValueError(f"{where}/properties: must be an object")
    required = node.get("required", [])
    if not isinstance(required, list):
        raise ValueError(f"{where}/required: must be a list")
    for name in required:
        if name not in props:
            raise ValueError(f"{where}/required: {name!r} is not in properties")
    if node.get("additionalProperties", False) is not False:
        raise ValueError(f"{where}/additionalProperties: only false is supported")
    members = [(_literal(_compact(k)) + ":" + _schema(s, f"{where}/properties/{k}"), k in required)
               for k, s in props.items()]
    after, first = "", ""  # the rest after something was written / when nothing was yet
    for member, needed in reversed(members):
        if needed:
            after, first = f",{member}{after}", f"{member}{after}"
        else:
            after, first = f"(?:,{member})?{after}", f"(?:{member}{after}|{first})"
    return f"\\{{{first}\\}}"


# ------------------------------------------------------------------------ token masks


class TokenIndex:
    """Masks per DFA state from a dict-of-dicts trie of the token bytes, computed the
    first time a state is asked for."""

    def __init__(self, dfa: DFA, vocab, eos_id=None):
        self.dfa, self.vocab = dfa, list(vocab)
        self.vocab_size = len(self.vocab)
        if eos_id is not None and not 0 <= eos_id < self.vocab_size:
            raise ValueError(f"eos_id {eos_id} out of range")
        self.eos_id = eos_id
        self.trie: dict = {}
        for token_id, data in enumerate(self.vocab):
            if token_id == eos_id or not data:
                continue
            node = self.trie
            for byte in bytes(data):
                node = node.setdefault(byte, {})
            node.setdefault(None, []).append(token_id)
        self.cache: dict[int, np.ndarray] = {}

    def _check_state(self, state: int) -> None:
        if not 0 <= state < self.dfa.n_states:
            raise ValueError(f"state {state} out of range({self.dfa.n_states})")

    def mask(self, state: int) -> np.ndarray:
        self._check_state(state)
        if state not in self.cache:
            out = np.zeros(self.vocab_size, dtype=bool)
            stack = [(self.trie, state)]
            trans = self.dfa.trans
            while stack:
                node, s = stack.pop()
                for key, child in node.items():
                    if key is None:
                        out[child] = True
                        continue
                    t = int(trans[s, key])
                    if t != DEAD:
                        stack.append((child, t))
            if self.eos_id is not None:
                out[self.eos_id] = bool(self.dfa.accept[state])
            out.setflags(write=False)
            self.cache[state] = out
        return self.cache[state]

    def next_state(self, state: int, token_id: int) -> int:
        self._check_state(state)
        if not 0 <= token_id < self.vocab_size:
            raise ValueError(f"token id {token_id} out of range({self.vocab_size})")
        if token_id == self.eos_id:
            return state if self.dfa.accept[state] else DEAD
        data = self.vocab[token_id]
        if not data:
            return DEAD
        return self.dfa.step(state, data)


class Constraint:
    """The text's DFA state; built as ``Constraint(index)`` (the start state)."""

    def __init__(self, index: TokenIndex):
        self.index, self.state, self.done = index, 0, False

    def mask(self) -> np.ndarray:
        if self.done:
            return np.zeros(self.index.vocab_size, dtype=bool)
        return self.index.mask(self.state)

    def advance(self, token_id: int) -> None:
        token_id = int(token_id)
        if self.done:
            raise ValueError(f"token {token_id} after EOS (state {self.state})")
        if not 0 <= token_id < self.index.vocab_size or not self.mask()[token_id]:
            raise ValueError(f"token {token_id} is not allowed in state {self.state}")
        if token_id == self.index.eos_id:
            self.done = True
            return
        self.state = self.index.next_state(self.state, token_id)

    def is_complete(self) -> bool:
        return bool(self.index.dfa.accept[self.state])


# ------------------------------------------------------------------ sampling and bytes


def apply_mask(logits, mask) -> np.ndarray:
    values = np.array(logits, dtype=np.float64)
    allowed = np.asarray(mask, dtype=bool)
    if values.shape != allowed.shape:
        raise ValueError(f"mask shape {allowed.shape} differs from logits shape {values.shape}")
    if not allowed.any():
        raise ValueError("the mask allows no token")
    values[~allowed] = -np.inf
    return values


@dataclass
class SamplingParams:
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    repetition_penalty: float = 1.0

    def __post_init__(self):
        if self.temperature < 0 or self.top_k < 0 or not 0 < self.top_p <= 1 or self.repetition_penalty <= 0:
            raise ValueError(f"bad sampling parameters {self}")


def _log_softmax(x: np.ndarray) -> np.ndarray:
    top = np.max(x)
    return x - (top + math.log(np.sum(np.exp(x - top))))


def sample(logits, p: SamplingParams, history, rng, prompt=()) -> tuple[int, float]:
    x = np.array(logits, dtype=np.float64)
    if not (x > -np.inf).any():
        raise ValueError("every logit is -inf")
    if p.repetition_penalty != 1.0:
        for t in set(int(t) for t in (*prompt, *history)):
            x[t] = x[t] / p.repetition_penalty if x[t] > 0 else x[t] * p.repetition_penalty
    logprobs = _log_softmax(x)
    if p.temperature == 0:
        token = int(np.argmax(x))
        return token, float(logprobs[token])
    scaled = x / p.temperature
    if p.top_k:
        cut = np.sort(scaled)[-min(p.top_k, len(scaled))]
        scaled = np.where(scaled >= cut, scaled, -np.inf)
    probs = np.exp(_log_softmax(scaled))
    if p.top_p < 1.0:
        order = np.argsort(-probs, kind="stable")
        keep = np.cumsum(probs[order]) - probs[order] < p.top_p
        trimmed = np.zeros_like(probs)
        trimmed[order[keep]] = probs[order[keep]]
        probs = trimmed / trimmed.sum()
    token = int(np.searchsorted(np.cumsum(probs), rng.random() * probs.sum(), side="right"))
    token = min(token, len(probs) - 1)
    while probs[token] == 0:
        token -= 1
    return token, float(logprobs[token])


def constrained_sample(logits, c: Constraint, p: SamplingParams, history, rng, prompt=()) -> tuple[int, float]:
    if c.done:
        raise ValueError("the constraint is done (EOS was taken)")
    token, logprob = sample(apply_mask(logits, c.mask()), p, history, rng, prompt)
    c.advance(token)
    return token, logprob


def bytes_to_unicode() -> dict[int, str]:
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("\xa1"), ord("\xac") + 1), *range(ord("\xae"), 256)]
    mapping, extra = {}, 0
    for b in range(256):
        if b in keep:
            mapping[b] = chr(b)
        else:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


def unicode_to_bytes() -> dict[str, int]:
    return {ch: b for b, ch in bytes_to_unicode().items()}


def vocab_bytes(tok) -> list[bytes | None]:
    """Token bytes by id: a tiktoken encoding answers bytes directly; a transformers
    tokenizer (``all_special_ids``), a ``tokenizers.Tokenizer`` (added tokens flagged
    special) or a plain list give token strings, decoded through the byte map."""
    if hasattr(tok, "decode_single_token_bytes"):
        return _tiktoken_bytes(tok)
    if hasattr(tok, "all_special_ids") and hasattr(tok, "convert_ids_to_tokens"):
        tokens = tok.convert_ids_to_tokens(list(range(len(tok))))
        specials = set(tok.all_special_ids)
    elif hasattr(tok, "get_added_tokens_decoder"):
        tokens = [tok.id_to_token(i) for i in range(tok.get_vocab_size(with_added_tokens=True))]
        specials = {i for i, added in tok.get_added_tokens_decoder().items() if getattr(added, "special", False)}
    else:
        tokens, specials = list(tok), set()
    inverse = unicode_to_bytes()
    out: list[bytes | None] = []
    for i, text in enumerate(tokens):
        if i in specials or text is None:
            out.append(None)
        elif all(ch in inverse for ch in text):
            out.append(bytes(inverse[ch] for ch in text))
        else:
            out.append(text.encode("utf-8"))
    return out


def _tiktoken_bytes(enc) -> list[bytes | None]:
    specials = {enc.encode_single_token(name) for name in getattr(enc, "special_tokens_set", ())}
    out: list[bytes | None] = []
    for i in range(enc.n_vocab):
        try:
            out.append(None if i in specials else bytes(enc.decode_single_token_bytes(i)))
        except KeyError:
            out.append(None)
    return out
