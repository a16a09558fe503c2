"""Fairness gallery: a correct implementation written from the spec's text alone, taking
the spec at its literal word where the reference chose otherwise; it needs ``--ref-deps``
(L8.1's ``SamplingParams``/``sample`` and M05.2's ``unicode_to_bytes``, as the spec's
``ol check L8.7 --ref-deps`` allows).

Readings (each one the spec allows; see tests/suite/test_fairness.py):

- compact JSON is exactly "as ``json.dumps(v, separators=(",", ":"))`` writes it"
  (section 2.5), the literal call, whose ``ensure_ascii`` defaults to True: an enum or
  const value and a property name with a non-ASCII character or DEL are written with
  ``\\uXXXX`` escapes (``{"enum": ["\\u00e9"]}`` matches the six ASCII characters
  ``"\\u00e9"`` between its quotes, not the raw UTF-8 bytes). The reference writes raw
  UTF-8: the contract's decision enum_const_raw_utf8, which this reading departs from.
- regex: "the subset is Python's own (for bytes patterns)" (section 2.1): the pattern is
  parsed by Python's own parser (``re._parser``), so Python syntax the spec does not list
  is accepted with Python's meaning: ``(?:...)``, empty branches, ``\\xHH``, ``{0}``, and
  also named groups ``(?P<n>...)`` and comments ``(?#...)``, which the contract refuses
  (a departure: python_only_syntax_refused). Flags, anchors, backreferences, lookarounds,
  lazy, possessive and atomic forms, conditionals and non-ASCII are refused with
  ValueError. The NFA is built from the parse by Thompson's construction (a list of
  byte-set edges, sets as 256-bit ints), determinized over byte classes, dead states
  removed, Moore-minimized, numbered breadth first.
- ``Constraint(*, index)``: the constructor takes the index by keyword only (the spec
  gives Constraint no constructor).
- ``TokenIndex``: a trie of nested dicts walked depth first, masks cached per state.
- ``vocab_bytes`` reads a tokenizer's ``get_vocab()`` and ``all_special_ids``, a plain
  list of token strings, or a tiktoken-style encoding (``decode_single_token_bytes``).

Its departures from the contract's decisions (``--strict``): enum_const_raw_utf8,
python_only_syntax_refused.
"""

from __future__ import annotations

import json
from collections import deque

import numpy as np

try:  # Python >= 3.11
    from re import _constants as _sre
    from re import _parser as _sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

SPEC_READINGS = {"enum_const_raw_utf8": "ascii_escapes", "python_only_syntax_refused": "python_meaning"}
"""The spec's readings this wheat takes where the contract took the other (grade-tests groups the wheats by it)."""

DEAD = -1
MAX_REPEAT = 1000
_ALL = (1 << 256) - 1


def _set(*bytes_: int) -> int:
    out = 0
    for b in bytes_:
        out |= 1 << b
    return out


def _range(lo: int, hi: int) -> int:
    return ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)


_DIGIT = _range(0x30, 0x39)
_WORD = _DIGIT | _range(0x41, 0x5A) | _range(0x61, 0x7A) | _set(0x5F)
_SPACE = _set(0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x0B)
_CATEGORIES = {"CATEGORY_DIGIT": _DIGIT, "CATEGORY_NOT_DIGIT": _ALL ^ _DIGIT, "CATEGORY_WORD": _WORD,
               "CATEGORY_NOT_WORD": _ALL ^ _WORD, "CATEGORY_SPACE": _SPACE, "CATEGORY_NOT_SPACE": _ALL ^ _SPACE}


# ---------------------------------------------------------------- Thompson's NFA from Python's parse


class _NFA:
    """States 0..n-1; ``eps[s]``: epsilon targets; ``edges[s]``: (byte set, target)."""

    def __init__(self):
        self.eps: list[list[int]] = []
        self.edges: list[list[tuple[int, int]]] = []

    def state(self) -> int:
        self.eps.append([])
        self.edges.append([])
        return len(self.eps) - 1

    def fragment(self, items) -> tuple[int, int]:
        """(entry, exit) of a concatenation of parsed items."""
        entry = exit_ = self.state()
        for op, arg in items:
            a, b = self.item(op, arg)
            self.eps[exit_].append(a)
            exit_ = b
        return entry, exit_

    def byteset(self, bits: int) -> tuple[int, int]:
        a, b = self.state(), self.state()
        self.edges[a].append((bits, b))
        return a, b

    def item(self, op, arg) -> tuple[int, int]:
        name = str(op)
        if name == "LITERAL":
            return self.byteset(_set(arg))
        if name == "NOT_LITERAL":
            return self.byteset(_ALL ^ _set(arg))
        if name == "ANY":
            return self.byteset(_ALL ^ _set(0x0A))
        if name == "IN":
            return self.byteset(_class_bits(arg))
        if name == "BRANCH":
            entry, exit_ = self.state(), self.state()
            for branch in arg[1]:
                a, b = self.fragment(branch)
                self.eps[entry].append(a)
                self.eps[b].append(exit_)
            return entry, exit_
        if name == "SUBPATTERN":
            group, add_flags, del_flags, body = arg
            if add_flags or del_flags:
                raise ValueError("scoped inline flags are not in the subset")
            return self.fragment(body)
        if name == "MAX_REPEAT":
            return self.repeat(*arg)
        raise ValueError(f"{name.lower().replace('_', ' ')} is not in the subset")

    def repeat(self, low: int, high, body) -> tuple[int, int]:
        unbounded = high == _sre.MAXREPEAT
        if low > MAX_REPEAT or (not unbounded and high > MAX_REPEAT):
            raise ValueError(f"a repeat bound over {MAX_REPEAT}")
        entry = exit_ = self.state()
        for _ in range(low):
            a, b = self.fragment(body)
            self.eps[exit_].append(a)
            exit_ = b
        if unbounded:
            loop = self.state()
            self.eps[exit_].append(loop)
            a, b = self.fragment(body)
            self.eps[loop].append(a)
            self.eps[b].append(loop)
            return entry, loop
        end = self.state()
        for _ in range(high - low):
            a, b = self.fragment(body)
            self.eps[exit_].append(a)
            self.eps[exit_].append(end)
            exit_ = b
        self.eps[exit_].append(end)
        return entry, end


def _class_bits(items) -> int:
    bits, negate = 0, False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            bits |= _set(arg)
        elif name == "RANGE":
            bits |= _range(arg[0], arg[1])
        elif name == "CATEGORY":
            bits |= _CATEGORIES[str(arg)]
        else:
            raise ValueError(f"{name.lower()} inside a class is not in the subset")
    return _ALL ^ bits if negate else bits


def _parse(pattern: str):
    if not isinstance(pattern, str):
        raise TypeError(f"regex_to_dfa takes a str pattern, not {type(pattern).__name__}")
    if not pattern.isascii():
        raise ValueError("a non-ASCII character is not in the subset (the DFA reads bytes)")
    try:
        parsed = _sre_parse.parse(pattern.encode("ascii"))
    except Exception as exc:  # re.error (or a RecursionError): a malformed pattern
        raise ValueError(f"malformed pattern {pattern!r}: {exc}") from None
    flags = parsed.state.flags if hasattr(parsed, "state") else parsed.pattern.flags
    if flags & ~0:  # any flag changes the meaning: not in the subset
        raise ValueError("inline flags are not in the subset")
    return list(parsed)


# ---------------------------------------------------------------- DFA


class DFA:
    """``trans``: int32 [n_states, 256] (DEAD = -1), ``accept``: bool [n_states]."""

    def __init__(self, trans, accept):
        self.trans = np.asarray(trans, dtype=np.int32)
        self.accept = np.asarray(accept, dtype=bool)
        self.n_states = int(self.accept.shape[0])

    def step(self, state: int, data: bytes) -> int:
        state = int(state)
        if state == DEAD:
            return DEAD
        if not 0 <= state < self.n_states:
            raise ValueError(f"step: state {state} out of range")
        for byte in bytes(data):
            state = int(self.trans[state, byte])
            if state == DEAD:
                return DEAD
        return state

    def matches(self, data: bytes) -> bool:
        state = self.step(0, data)
        return state != DEAD and bool(self.accept[state])


def _closure(nfa: _NFA, states) -> frozenset:
    seen, stack = set(states), list(states)
    while stack:
        for t in nfa.eps[stack.pop()]:
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return frozenset(seen)


def _byte_classes(nfa: _NFA) -> list[int]:
    """A representative byte per class and each byte's class id (bytes every edge treats alike)."""
    sets = sorted({bits for out in nfa.edges for bits, _ in out})
    signature: dict[tuple, int] = {}
    owner = []
    for b in range(256):
        key = tuple((bits >> b) & 1 for bits in sets)
        owner.append(signature.setdefault(key, len(signature)))
    return owner


def regex_to_dfa(pattern: str) -> DFA:
    nfa = _NFA()
    entry, final = nfa.fragment(_parse(pattern))
    owner = _byte_classes(nfa)
    n_classes = max(owner) + 1
    reps = [owner.index(c) for c in range(n_classes)]
    start = _closure(nfa, [entry])
    ids, sets, rows = {start: 0}, [start], []
    while len(rows) < len(sets):
        current = sets[len(rows)]
        row = []
        for byte in reps:
            moved = [t for s in current for bits, t in nfa.edges[s] if (bits >> byte) & 1]
            if not moved:
                row.append(DEAD)
                continue
            target = _closure(nfa, moved)
            if target not in ids:
                ids[target] = len(sets)
                sets.append(target)
            row.append(ids[target])
        rows.append(row)
    accept = [final in s for s in sets]
    rows, accept = _drop_dead(rows, accept)
    if rows is None:
        raise ValueError(f"the pattern {pattern!r} has an empty language")
    blocks = _moore(rows, accept)
    return _number(rows, accept, blocks, owner)


def _drop_dead(rows, accept):
    """Rows with transitions into states that cannot accept made DEAD (None if the start cannot)."""
    preds: list[set[int]] = [set() for _ in rows]
    for s, row in enumerate(rows):
        for t in row:
            if t != DEAD:
                preds[t].add(s)
    live = {s for s, a in enumerate(accept) if a}
    queue = deque(live)
    while queue:
        for p in preds[queue.popleft()] - live:
            live.add(p)
            queue.append(p)
    if 0 not in live:
        return None, None
    return [[t if t in live else DEAD for t in row] for row in rows], accept


def _moore(rows, accept) -> list[int]:
    block = [1 if a else 0 for a in accept]
    while True:
        keys = [(block[s], *[DEAD if t == DEAD else block[t] for t in row]) for s, row in enumerate(rows)]
        renumber: dict[tuple, int] = {}
        new = [renumber.setdefault(k, len(renumber)) for k in keys]
        if len(renumber) == len(set(block)):
            return new
        block = new


def _number(rows, accept, blocks, owner) -> DFA:
    """Breadth first from the start's block, bytes ascending."""
    first = {}
    for s, b in enumerate(blocks):
        first.setdefault(b, s)
    order = {blocks[0]: 0}
    queue = deque([blocks[0]])
    table = []
    while queue:
        b = queue.popleft()
        row = rows[first[b]]
        out = []
        for byte in range(256):
            t = row[owner[byte]]
            if t == DEAD:
                out.append(DEAD)
                continue
            tb = blocks[t]
            if tb not in order:
                order[tb] = len(order)
                queue.append(tb)
            out.append(order[tb])
        table.append(out)
    accept_out = [False] * len(order)
    for b, i in order.items():
        accept_out[i] = accept[first[b]]
    return DFA(np.array(table, dtype=np.int32).reshape(len(order), 256), accept_out)


# ---------------------------------------------------------------- JSON schema subset


def _dumps(value) -> str:
    """Section 2.5, to the letter: ``json.dumps(v, separators=(",", ":"))``."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not a JSON value: {value!r}") from exc


def _lit(text: str) -> str:
    return "".join("\\" + ch if not ch.isalnum() else ch for ch in text)


_UTF8 = ("[\\xc2-\\xdf][\\x80-\\xbf]|\\xe0[\\xa0-\\xbf][\\x80-\\xbf]|[\\xe1-\\xec\\xee\\xef][\\x80-\\xbf]{2}"
         "|\\xed[\\x80-\\x9f][\\x80-\\xbf]|\\xf0[\\x90-\\xbf][\\x80-\\xbf]{2}|[\\xf1-\\xf3][\\x80-\\xbf]{3}"
         "|\\xf4[\\x80-\\x8f][\\x80-\\xbf]{2}")
_STRING = '"(?:[ !#-\\[\\]-~]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4}|' + _UTF8 + ')*"'
_INTEGER = "-?(?:0|[1-9][0-9]*)"
_SCALARS = {"string": _STRING, "integer": _INTEGER, "number": _INTEGER + "(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?",
            "boolean": "(?:true|false)", "null": "null"}
_ANNOTATIONS = {"title", "description", "$comment", "$schema", "examples", "default"}
_KEYS = {"type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems", "enum", "const",
         "anyOf"} | _ANNOTATIONS


def json_schema_to_regex(schema: dict) -> str:
    return _regex(schema, "")


def _regex(schema, where: str) -> str:
    if not isinstance(schema, dict):
        raise ValueError(f"{where or '/'}: a schema must be an object")
    unknown = sorted(set(schema) - _KEYS)
    if unknown:
        raise ValueError(f"{where}/{unknown[0]}: keyword outside the subset")
    if "enum" in schema or "const" in schema:
        values = list(schema["enum"]) if "enum" in schema else [schema["const"]]
        if not values:
            raise ValueError(f"{where}/enum: an empty enum")
        return "(?:" + "|".join(_lit(_dumps(v)) for v in values) + ")"
    if "anyOf" in schema:
        branches = schema["anyOf"]
        if not isinstance(branches, list) or not branches:
            raise ValueError(f"{where}/anyOf: a non-empty list")
        return "(?:" + "|".join(_regex(b, f"{where}/anyOf/{i}") for i, b in enumerate(branches)) + ")"
    kind = schema.get("type")
    if not isinstance(kind, str):
        raise ValueError(f"{where}/type: one type name, not {kind!r}")
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        return _array(schema, where)
    if kind == "object":
        return _object(schema, where)
    raise ValueError(f"{where}/type: {kind!r} is not a type of the subset")


def _array(schema, where: str) -> str:
    if "items" not in schema:
        raise ValueError(f"{where}: an array needs items")
    low, high = schema.get("minItems", 0), schema.get("maxItems")
    if not isinstance(low, int) or (high is not None and not isinstance(high, int)) or low < 0 \
            or (high is not None and high < max(low, 0)) or max(low, high or 0) > MAX_REPEAT:
        raise ValueError(f"{where}/maxItems: bounds {low}, {high} are not a range")
    item = _regex(schema["items"], f"{where}/items")
    if high == 0:
        return "\\[\\]"
    rest = f"(?:,{item}){{{max(low - 1, 0)},{'' if high is None else high - 1}}}"
    body = f"{item}{rest}"
    return f"\\[(?:{body})?\\]" if low == 0 else f"\\[{body}\\]"


def _object(schema, where: str) -> str:
    if schema.get("additionalProperties", False) is not False:
        raise ValueError(f"{where}/additionalProperties: only false is in the subset")
    props = schema.get("properties", {})
    required = schema.get("required", [])
    for i, name in enumerate(required):
        if name not in props:
            raise ValueError(f"{where}/required/{i}: {name!r} is not a property")
    members = [(_lit(_dumps(name)) + ":" + _regex(sub, f"{where}/properties/{name}"), name in required)
               for name, sub in props.items()]
    after, before = "", ""  # the rest after something was written / when nothing was written yet
    for member, is_required in reversed(members):
        new_after = f",{member}{after}" if is_required else f"(?:,{member})?{after}"
        new_before = f"{member}{after}" if is_required else f"(?:{member}{after}|{before})"
        after, before = new_after, new_before
    return f"\\{{{before}\\}}"


# ---------------------------------------------------------------- masks


class TokenIndex:
    def __init__(self, dfa, vocab, eos_id=None):
        self.dfa = dfa
        self.vocab = [None if t is None else bytes(t) for t in vocab]
        self.vocab_size = len(self.vocab)
        if eos_id is not None and not 0 <= int(eos_id) < self.vocab_size:
            raise ValueError(f"eos_id {eos_id} out of range")
        self.eos_id = None if eos_id is None else int(eos_id)
        self.trie: dict = {}
        for token, data in enumerate(self.vocab):
            if data and token != self.eos_id:
                node = self.trie
                for byte in data:
                    node = node.setdefault(byte, {})
                node.setdefault(None, []).append(token)
        self._masks: dict[int, np.ndarray] = {}

    def _check_state(self, state) -> int:
        if not 0 <= int(state) < self.dfa.n_states:
            raise ValueError(f"state {state} out of range")
        return int(state)

    def mask(self, state) -> np.ndarray:
        state = self._check_state(state)
        if state not in self._masks:
            out = np.zeros(self.vocab_size, dtype=bool)
            trans = self.dfa.trans
            stack = [(self.trie, state)]
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
            self._masks[state] = out
        return self._masks[state].copy()

    def next_state(self, state, token_id) -> int:
        if isinstance(token_id, float) or isinstance(state, float):
            raise TypeError("token ids and states are ints")
        state = self._check_state(state)
        if not 0 <= int(token_id) < self.vocab_size:
            raise ValueError(f"token id {token_id} out of range")
        if token_id == self.eos_id:
            return state if self.dfa.accept[state] else DEAD
        data = self.vocab[int(token_id)]
        if not data:
            return DEAD
        return self.dfa.step(state, data)


class Constraint:
    def __init__(self, *, index):
        self.index = index
        self.state = 0
        self.done = False

    def mask(self) -> np.ndarray:
        if self.done:
            return np.zeros(self.index.vocab_size, dtype=bool)
        return self.index.mask(self.state)

    def advance(self, token_id) -> None:
        if self.done:
            raise ValueError(f"token {token_id} after EOS")
        if not self.index.mask(self.state)[int(token_id)]:
            raise ValueError(f"token {token_id} is outside the mask in state {self.state}")
        if token_id == self.index.eos_id:
            self.done = True
        else:
            self.state = self.index.next_state(self.state, token_id)

    def is_complete(self) -> bool:
        return bool(self.index.dfa.accept[self.state])


def apply_mask(logits, mask) -> np.ndarray:
    out = np.array(logits, dtype=np.float64, copy=True)
    allowed = np.asarray(mask, dtype=bool)
    if out.shape != allowed.shape or out.ndim != 1:
        raise ValueError(f"apply_mask: logits {out.shape} and mask {allowed.shape} differ")
    if not allowed.any():
        raise ValueError("apply_mask: the mask allows nothing")
    out[~allowed] = -np.inf
    return out


def constrained_sample(logits, c: Constraint, p, history, rng, prompt=()):
    if c.done:
        raise ValueError("constrained_sample: the constraint already ended with EOS")
    token, logprob = sample(apply_mask(logits, c.mask()), p, history, rng, prompt)  # noqa: F821 - L8.1
    c.advance(int(token))
    return int(token), float(logprob)


def _token_bytes(tok, i: int) -> bytes | None:
    try:
        return bytes(tok.decode_single_token_bytes(i))
    except KeyError:  # an id no token has
        return None


def vocab_bytes(tok) -> list[bytes | None]:
    if hasattr(tok, "decode_single_token_bytes"):  # tiktoken: bytes per id, specials by name
        specials = {tok.encode_single_token(name) for name in getattr(tok, "special_tokens_set", ())}
        return [None if i in specials else _token_bytes(tok, i) for i in range(tok.n_vocab)]
    to_byte = unicode_to_bytes()  # noqa: F821 - M05.2, supplied by --ref-deps
    if hasattr(tok, "get_vocab"):
        by_id = {i: t for t, i in tok.get_vocab().items()}
        texts = [by_id.get(i) for i in range(max(by_id) + 1 if by_id else 0)]
        specials = set(getattr(tok, "all_special_ids", ()))
        if hasattr(tok, "get_added_tokens_decoder"):  # tokenizers.Tokenizer: specials flagged as added tokens
            specials |= {i for i, added in tok.get_added_tokens_decoder().items() if getattr(added, "special", True)}
    else:
        texts, specials = list(tok), set()
    out: list[bytes | None] = []
    for i, text in enumerate(texts):
        if i in specials or text is None:
            out.append(None)
        elif all(ch in to_byte for ch in text):
            out.append(bytes(to_byte[ch] for ch in text))
        else:
            out.append(text.encode("utf-8"))
    return out
