"""Fairness gallery: a correct implementation written from the spec's text alone.

Readings (each one the spec allows; see tests/suite/test_fairness.py):

- regex: a recursive parser into derivative terms with smart constructors, the DFA
  built by Brzozowski derivatives (each state a normalized term), then minimized by
  Brzozowski's double reversal ``det(rev(det(rev(A))))``, numbered breadth first;
  tables kept sparse (one dict per state) until ``trans`` is built;
- ``Constraint(index=...)``: the constructor's only parameter is keyword-only;
- every refusal is ``RegexError`` / ``SchemaError``, ValueError subclasses of its own;
- a bytes pattern is accepted (section 2.1: "the subset is Python's own (for bytes
  patterns)"), read as its ASCII text;
- EOS leads nowhere: ``next_state(s, eos_id)`` is DEAD in every state (the text ends;
  the spec fixes only the mask, EOS allowed exactly in accepting states);
- masks computed lazily, without a trie: the vocabulary sorted by bytes, and a dead
  prefix skips every following token that starts with it;
- ``vocab_bytes`` reads ``get_vocab()`` and the specials by name (``all_special_tokens``);
- sampling (L8.1) by ``Generator.choice`` over the renormalized probabilities.

Its departures from the contract's decisions (``--strict``): bytes_pattern_typeerror,
eos_next_state.

Also refused, a departure (``--strict``: python_escapes_and_repeat_forms): three-digit and
in-class octal escapes (``\\101``, ``[\\4]``, ``[\\0-\\7]``), which the spec does not list.

Also a departure (``--strict``: history_out_of_range_valueerror): under a repetition penalty a
history or prompt id outside range(V) raises IndexError (a negative id indexes from the end),
where the spec names no error.

Also a departure (``--strict``: vocab_bytes_token_list): ``vocab_bytes`` reads a tokenizer object,
not a plain list of token strings (the spec hands it a tokenizer).
"""

from __future__ import annotations

import bisect
import json
from collections import deque
from dataclasses import dataclass

import numpy as np

DEAD = -1
LIMIT_REPEAT = 1000
LIMIT_STATES = 30000


class RegexError(ValueError):
    """A pattern outside the subset, with its offset."""


class SchemaError(ValueError):
    """A schema outside the subset, with its JSON pointer."""


# ------------------------------------------------------------------ derivative terms
# ("0",) empty language; ("1",) the empty string; ("set", frozenset); ("cat", a, b);
# ("alt", frozenset of terms); ("star", r)

NOTHING, EMPTY = ("0",), ("1",)


def sym(members) -> tuple:
    members = frozenset(members)
    return ("set", members) if members else NOTHING


def cat(a: tuple, b: tuple) -> tuple:
    if a == NOTHING or b == NOTHING:
        return NOTHING
    if a == EMPTY:
        return b
    if b == EMPTY:
        return a
    if a[0] == "cat":
        return cat(a[1], cat(a[2], b))
    return ("cat", a, b)


def alt(*terms: tuple) -> tuple:
    flat = set()
    for t in terms:
        if t[0] == "alt":
            flat |= t[1]
        elif t != NOTHING:
            flat.add(t)
    if not flat:
        return NOTHING
    if len(flat) == 1:
        return next(iter(flat))
    return ("alt", frozenset(flat))


def star(r: tuple) -> tuple:
    if r in (NOTHING, EMPTY):
        return EMPTY
    return r if r[0] == "star" else ("star", r)


def nullable(r: tuple) -> bool:
    kind = r[0]
    if kind in ("1", "star"):
        return True
    if kind in ("0", "set"):
        return False
    if kind == "cat":
        return nullable(r[1]) and nullable(r[2])
    return any(nullable(t) for t in r[1])


def derive(r: tuple, byte: int, memo: dict) -> tuple:
    key = (r, byte)
    if key in memo:
        return memo[key]
    kind = r[0]
    if kind in ("0", "1"):
        out = NOTHING
    elif kind == "set":
        out = EMPTY if byte in r[1] else NOTHING
    elif kind == "cat":
        out = cat(derive(r[1], byte, memo), r[2])
        if nullable(r[1]):
            out = alt(out, derive(r[2], byte, memo))
    elif kind == "alt":
        out = alt(*(derive(t, byte, memo) for t in r[1]))
    else:
        out = cat(derive(r[1], byte, memo), r)
    memo[key] = out
    return out


def sets_of(r: tuple, found: set) -> None:
    if r[0] == "set":
        found.add(r[1])
    elif r[0] == "cat":
        sets_of(r[1], found)
        sets_of(r[2], found)
    elif r[0] == "alt":
        for t in r[1]:
            sets_of(t, found)
    elif r[0] == "star":
        sets_of(r[1], found)


# ------------------------------------------------------------------------ parsing

_ANY = frozenset(range(256))
_NAMED = {"d": frozenset(range(0x30, 0x3A)), "s": frozenset([0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x0B])}
_NAMED["w"] = frozenset(list(range(0x30, 0x3A)) + list(range(0x41, 0x5B)) + list(range(0x61, 0x7B)) + [0x5F])
for _k in "dsw":
    _NAMED[_k.upper()] = _ANY - _NAMED[_k]
_CONTROL = {"n": 10, "r": 13, "t": 9, "f": 12, "v": 11, "a": 7}


class _Reader:
    def __init__(self, src: str):
        self.src, self.i = src, 0

    def fail(self, what: str) -> RegexError:
        return RegexError(f"{what} at offset {self.i}")

    def at(self, k: int = 0) -> str:
        j = self.i + k
        return self.src[j] if j < len(self.src) else ""

    def regex(self) -> tuple:
        choices = [self.sequence()]
        while self.at() == "|":
            self.i += 1
            choices.append(self.sequence())
        return alt(*choices) if len(choices) > 1 else choices[0]

    def sequence(self) -> tuple:
        parts = []
        while self.at() and self.at() not in "|)":
            parts.append(self.postfix())
        out = EMPTY
        for part in reversed(parts):
            out = cat(part, out) if out != EMPTY else part
        return out

    def postfix(self) -> tuple:
        base = self.primary()
        bounds = self.quantifier()
        if bounds is None:
            return base
        if self.at() == "?" or self.at() == "+":
            raise self.fail("lazy or possessive quantifier")
        if self.quantifier(peek=True) is not None:
            raise self.fail("multiple repeat")
        lo, hi = bounds
        if lo > LIMIT_REPEAT or (hi is not None and hi > LIMIT_REPEAT):
            raise self.fail(f"repeat bound over {LIMIT_REPEAT}")
        if hi is not None and lo > hi:
            raise self.fail("min repeat greater than max repeat")
        out = EMPTY
        if hi is None:
            out = star(base)
        else:
            for _ in range(hi - lo):
                out = alt(EMPTY, cat(base, out))
        for _ in range(lo):
            out = cat(base, out)
        return out

    def quantifier(self, peek: bool = False):
        ch = self.at()
        if ch and ch in "*+?":
            if not peek:
                self.i += 1
            return {"*": (0, None), "+": (1, None), "?": (0, 1)}[ch]
        if ch == "{":
            end = self.src.find("}", self.i)
            if end < 0:
                return None
            text = self.src[self.i + 1:end]
            lo, sep, hi = text.partition(",")
            if not (lo.isdigit() or (sep and (lo == "" or lo.isdigit()))) or (hi and not hi.isdigit()):
                return None
            if not peek:
                self.i = end + 1
            return int(lo or 0), (int(lo) if not sep else (int(hi) if hi else None))
        return None

    def primary(self) -> tuple:
        ch = self.at()
        if ch == "(":
            self.i += 1
            if self.at() == "?":
                if self.at(1) != ":":
                    raise self.fail("group extension (lookaround, name, flags, comment)")
                self.i += 2
            inner = self.regex()
            if self.at() != ")":
                raise self.fail("missing )")
            self.i += 1
            return inner
        if self.quantifier(peek=True) is not None:
            raise self.fail("nothing to repeat")
        if ch in ("^", "$"):
            raise self.fail(f"anchor {ch}")
        if ch == "[":
            return sym(self.bracket())
        if ch == ".":
            self.i += 1
            return sym(_ANY - {10})
        if ch == "\\":
            return sym(self.escaped(False))
        self.i += 1
        return sym([ord(ch)])

    def escaped(self, in_set: bool) -> frozenset:
        ch = self.at(1)
        self.i += 2
        if not ch:
            raise self.fail("dangling backslash")
        if ch in _NAMED:
            return _NAMED[ch]
        if ch in _CONTROL:
            return frozenset([_CONTROL[ch]])
        if ch == "x":
            hexa = self.src[self.i:self.i + 2]
            if len(hexa) < 2 or not all(c in "0123456789abcdefABCDEF" for c in hexa):
                raise self.fail("incomplete \\x escape")
            self.i += 2
            return frozenset([int(hexa, 16)])
        if ch == "0":
            octal = ""
            while len(octal) < 2 and self.at() in tuple("01234567"):
                octal += self.at()
                self.i += 1
            return frozenset([int("0" + octal, 8)])
        if in_set and ch == "b":
            return frozenset([8])
        if ch.isalnum():
            raise self.fail(f"escape \\{ch} is outside the subset")
        return frozenset([ord(ch)])

    def bracket(self) -> frozenset:
        self.i += 1
        negated = self.at() == "^"
        self.i += negated
        chosen: set[int] = set()
        leading = True
        while self.at() != "]" or leading:
            if not self.at():
                raise self.fail("unterminated [")
            leading = False
            low = self.escaped(True) if self.at() == "\\" else self.single()
            if self.at() == "-" and self.at(1) not in ("]", ""):
                self.i += 1
                high = self.escaped(True) if self.at() == "\\" else self.single()
                if len(low) != 1 or len(high) != 1 or next(iter(low)) > next(iter(high)):
                    raise self.fail("bad range")
                chosen.update(range(next(iter(low)), next(iter(high)) + 1))
            else:
                chosen.update(low)
        self.i += 1
        return frozenset(_ANY - chosen if negated else chosen)

    def single(self) -> frozenset:
        ch = self.at()
        self.i += 1
        return frozenset([ord(ch)])


# ------------------------------------------------------------------------ automata


def _derivative_dfa(term: tuple):
    """Sparse DFA: rows[i] = {byte: j}, finals; state 0 is ``term``; NOTHING never stored."""
    found: set = set()
    sets_of(term, found)
    groups: dict[tuple, list[int]] = {}
    for b in range(256):
        groups.setdefault(tuple(b in s for s in found), []).append(b)
    memo: dict = {}
    ids, terms, rows = {term: 0}, [term], []
    k = 0
    while k < len(terms):
        row = {}
        for members in groups.values():
            d = derive(terms[k], members[0], memo)
            if d == NOTHING:
                continue
            if d not in ids:
                if len(terms) >= LIMIT_STATES:
                    raise RegexError(f"more than {LIMIT_STATES} states")
                ids[d] = len(terms)
                terms.append(d)
            for b in members:
                row[b] = ids[d]
        rows.append(row)
        k += 1
    return rows, [nullable(t) for t in terms]


def _reverse_determinize(rows, starts: set[int], finals_of):
    """det(rev(A)) from the set ``starts`` of A's final states: sparse rows, the new
    finals (subsets holding A's start, given by ``finals_of``)."""
    back: list[dict[int, set[int]]] = [dict() for _ in rows]
    for q, row in enumerate(rows):
        for b, t in row.items():
            back[t].setdefault(b, set()).add(q)
    first = frozenset(starts)
    ids, subsets, out = {first: 0}, [first], []
    k = 0
    while k < len(subsets):
        moves: dict[int, set[int]] = {}
        for q in subsets[k]:
            for b, sources in back[q].items():
                moves.setdefault(b, set()).update(sources)
        row = {}
        for b, targets in moves.items():
            key = frozenset(targets)
            if key not in ids:
                ids[key] = len(subsets)
                subsets.append(key)
            row[b] = ids[key]
        out.append(row)
        k += 1
    return out, [finals_of(s) for s in subsets]


def _minimal(rows, finals):
    once, once_finals = _reverse_determinize(rows, {q for q, f in enumerate(finals) if f}, lambda s: 0 in s)
    twice, twice_finals = _reverse_determinize(once, {q for q, f in enumerate(once_finals) if f}, lambda s: 0 in s)
    return twice, twice_finals


def _bfs(rows, finals):
    names, order = {0: 0}, deque([0])
    trans, accept = [], []
    while order:
        q = order.popleft()
        line = np.full(256, DEAD, dtype=np.int32)
        for b in sorted(rows[q]):
            t = rows[q][b]
            if t not in names:
                names[t] = len(names)
                order.append(t)
            line[b] = names[t]
        trans.append(line)
        accept.append(finals[q])
    return np.vstack(trans).astype(np.int32), np.asarray(accept, dtype=bool)


class DFA:
    def __init__(self, trans: np.ndarray, accept: np.ndarray):
        self.trans = trans
        self.accept = accept
        self.n_states = trans.shape[0]

    def step(self, state: int, data: bytes) -> int:
        if state == DEAD:
            return DEAD
        if not 0 <= state < self.n_states:
            raise RegexError(f"state {state} is not in range({self.n_states})")
        for b in data:
            state = self.trans[state][b]
            if state == DEAD:
                return DEAD
        return int(state)

    def matches(self, data: bytes) -> bool:
        end = self.step(0, data)
        return end != DEAD and bool(self.accept[end])


def regex_to_dfa(pattern) -> DFA:
    if isinstance(pattern, (bytes, bytearray)):
        try:
            pattern = bytes(pattern).decode("ascii")
        except UnicodeDecodeError:
            raise RegexError("a bytes pattern must be ASCII") from None
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be str or bytes, not {type(pattern).__name__}")
    for i, ch in enumerate(pattern):
        if not ch.isascii():
            raise RegexError(f"non-ASCII {ch!r} at offset {i}")
    reader = _Reader(pattern)
    term = reader.regex()
    if reader.i < len(pattern):
        raise reader.fail("unbalanced )")
    if term == NOTHING:
        raise RegexError("the pattern's language is empty")
    rows, finals = _derivative_dfa(term)
    rows, finals = _minimal(rows, finals)
    return DFA(*_bfs(rows, finals))


# ------------------------------------------------------------------------ schemas

_STRING_CHAR = ("[\\x20-\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\"\\\\/bfnrt]|\\\\u[0-9A-Fa-f]{4}"
                "|[\\xc2-\\xdf][\\x80-\\xbf]|\\xe0[\\xa0-\\xbf][\\x80-\\xbf]"
                "|[\\xe1-\\xec][\\x80-\\xbf]{2}|\\xed[\\x80-\\x9f][\\x80-\\xbf]|[\\xee\\xef][\\x80-\\xbf]{2}"
                "|\\xf0[\\x90-\\xbf][\\x80-\\xbf]{2}|[\\xf1-\\xf3][\\x80-\\xbf]{3}|\\xf4[\\x80-\\x8f][\\x80-\\xbf]{2}")
_KINDS = {
    "string": f'"(?:{_STRING_CHAR})*"',
    "integer": "-?(?:0|[1-9]\\d*)",
    "number": "-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][-+]?\\d+)?",
    "boolean": "true|false",
    "null": "null",
}
_NOTES = ("title", "description", "$comment", "$schema", "examples", "default")


def _quote(text: str) -> str:
    return "".join(ch if ch.isascii() and ch.isalnum() else "".join(f"\\x{b:02x}" for b in ch.encode())
                   for ch in text)


def json_schema_to_regex(schema: dict) -> str:
    return _node(schema, "")


def _node(schema, ptr: str) -> str:
    if not isinstance(schema, dict):
        raise SchemaError(f"{ptr or '/'}: not a schema object")
    body = {k: v for k, v in schema.items() if k not in _NOTES}
    if "anyOf" in body:
        if len(body) != 1 or not isinstance(body["anyOf"], list) or not body["anyOf"]:
            raise SchemaError(f"{ptr}/anyOf: anyOf stands alone, with at least one branch")
        return "(?:" + "|".join(f"(?:{_node(b, f'{ptr}/anyOf/{i}')})" for i, b in enumerate(body["anyOf"])) + ")"
    if "enum" in body or "const" in body:
        return _enum(body, ptr)
    kind = body.pop("type", None)
    if kind not in (*_KINDS, "array", "object"):
        raise SchemaError(f"{ptr}/type: {kind!r} is not a supported type")
    if kind in _KINDS:
        if body:
            raise SchemaError(f"{ptr}/{next(iter(body))}: keyword not supported for {kind}")
        return f"(?:{_KINDS[kind]})"
    return _array(body, ptr) if kind == "array" else _object(body, ptr)


def _enum(body: dict, ptr: str) -> str:
    values = body.pop("enum") if "enum" in body else [body.pop("const")]
    if "const" in body or "enum" in body:
        raise SchemaError(f"{ptr}: enum and const together")
    kind = body.pop("type", None)
    if body:
        raise SchemaError(f"{ptr}/{next(iter(body))}: keyword not supported next to enum")
    if not isinstance(values, list) or not values:
        raise SchemaError(f"{ptr}/enum: empty or not a list")
    if kind is not None:
        names = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
                 dict: "object", type(None): "null"}
        for v in values:
            have = names.get(type(v))
            if not (have == kind or (kind == "number" and have == "integer")):
                raise SchemaError(f"{ptr}/enum: {v!r} does not have type {kind!r}")
    texts = [json.dumps(v, separators=(",", ":"), ensure_ascii=False, allow_nan=False) for v in values]
    return "(?:" + "|".join(_quote(t) for t in texts) + ")"


def _array(body: dict, ptr: str) -> str:
    if "items" not in body:
        raise SchemaError(f"{ptr}/items: missing")
    items = _node(body.pop("items"), ptr + "/items")
    lo, hi = body.pop("minItems", 0), body.pop("maxItems", None)
    if body:
        raise SchemaError(f"{ptr}/{next(iter(body))}: keyword not supported for arrays")
    for v in (lo, hi):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= LIMIT_REPEAT):
            raise SchemaError(f"{ptr}: item bounds must be integers 0..{LIMIT_REPEAT}")
    if hi is not None and hi < lo:
        raise SchemaError(f"{ptr}: maxItems below minItems")
    if hi == 0:
        return "\\[\\]"
    tail = f"(?:,{items}){{{max(lo, 1) - 1},{'' if hi is None else hi - 1}}}"
    inner = f"{items}{tail}"
    return f"\\[{inner}\\]" if lo else f"\\[(?:{inner})?\\]"


def _object(body: dict, ptr: str) -> str:
    props = body.pop("properties", {})
    needed = body.pop("required", [])
    extra = body.pop("additionalProperties", False)
    if body:
        raise SchemaError(f"{ptr}/{next(iter(body))}: keyword not supported for objects")
    if extra is not False:
        raise SchemaError(f"{ptr}/additionalProperties: must be false")
    for name in needed:
        if name not in props:
            raise SchemaError(f"{ptr}/required: {name!r} has no property")
    written, fresh = "", ""  # the rest after a member / before any member
    for name in reversed(list(props)):
        member = _quote(json.dumps(name, ensure_ascii=False)) + ":" + _node(props[name], f"{ptr}/properties/{name}")
        if name in needed:
            written, fresh = f",{member}{written}", f"{member}{written}"
        else:
            written, fresh = f"(?:,{member})?{written}", f"(?:{member}{written}|{fresh})"
    return f"\\{{{fresh}\\}}"


# ------------------------------------------------------------------------ masks


class TokenIndex:
    """Masks by a walk of the vocabulary sorted by bytes: a token whose prefix died is
    skipped together with every later token sharing that prefix."""

    def __init__(self, dfa: DFA, vocab, eos_id=None):
        self.dfa, self.vocab = dfa, list(vocab)
        self.vocab_size = len(self.vocab)
        if eos_id is not None and not 0 <= eos_id < self.vocab_size:
            raise ValueError(f"eos_id {eos_id} is not a token id")
        self.eos_id = eos_id
        self.order = sorted((bytes(b), i) for i, b in enumerate(self.vocab) if b and i != eos_id)
        self.keys = [b for b, _ in self.order]
        self.masks: dict[int, np.ndarray] = {}

    def _valid(self, state: int) -> None:
        if not 0 <= state < self.dfa.n_states:
            raise ValueError(f"state {state} is not in range({self.dfa.n_states})")

    def mask(self, state: int) -> np.ndarray:
        self._valid(state)
        if state in self.masks:
            return self.masks[state].copy()
        out = np.zeros(self.vocab_size, dtype=bool)
        trans = self.dfa.trans
        k = 0
        while k < len(self.order):
            data, tid = self.order[k]
            s = state
            for depth, b in enumerate(data):
                s = int(trans[s, b])
                if s == DEAD:
                    # every token starting with data[:depth + 1] dies too
                    dead = data[:depth + 1]
                    k = bisect.bisect_left(self.keys, dead + b"\xff" * 8, lo=k + 1)
                    while k < len(self.keys) and self.keys[k].startswith(dead):
                        k += 1
                    break
            else:
                out[tid] = True
                k += 1
        if self.eos_id is not None:
            out[self.eos_id] = bool(self.dfa.accept[state])
        self.masks[state] = out
        return out.copy()

    def next_state(self, state: int, token_id: int) -> int:
        self._valid(state)
        if not 0 <= token_id < self.vocab_size:
            raise ValueError(f"token id {token_id} is not in range({self.vocab_size})")
        if token_id == self.eos_id:
            return DEAD  # the text ends: nothing continues after EOS
        data = self.vocab[token_id]
        return self.dfa.step(state, data) if data else DEAD


class Constraint:
    def __init__(self, *, index: TokenIndex):
        self.index = index
        self.state = 0
        self.done = False

    def mask(self) -> np.ndarray:
        if self.done:
            return np.zeros(self.index.vocab_size, dtype=bool)
        return self.index.mask(self.state)

    def advance(self, token_id: int) -> None:
        if self.done:
            raise ValueError(f"token {token_id}: the constraint is done (EOS was taken in state {self.state})")
        if not 0 <= token_id < self.index.vocab_size or not self.index.mask(self.state)[token_id]:
            raise ValueError(f"token {token_id} is outside the mask of state {self.state}")
        if token_id == self.index.eos_id:
            self.done = True
        else:
            self.state = self.index.next_state(self.state, token_id)

    def is_complete(self) -> bool:
        return bool(self.index.dfa.accept[self.state])


# ------------------------------------------------------------------------ sampling


@dataclass
class SamplingParams:
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    repetition_penalty: float = 1.0

    def __post_init__(self):
        problems = [name for name, bad in (("temperature", self.temperature < 0), ("top_k", self.top_k < 0),
                                           ("top_p", not 0 < self.top_p <= 1),
                                           ("repetition_penalty", self.repetition_penalty <= 0)) if bad]
        if problems:
            raise ValueError(f"bad sampling parameter(s): {', '.join(problems)}")


def apply_mask(logits, mask) -> np.ndarray:
    out = np.array(logits, dtype=np.float64, copy=True)
    keep = np.asarray(mask, dtype=bool)
    if keep.shape != out.shape:
        raise ValueError(f"the mask's shape {keep.shape} is not the logits' {out.shape}")
    if not keep.any():
        raise ValueError("an all-False mask")
    out[np.logical_not(keep)] = -np.inf
    return out


def sample(logits, p: SamplingParams, history, rng, prompt=()) -> tuple[int, float]:
    x = np.asarray(logits, dtype=np.float64).copy()
    if np.all(np.isneginf(x)):
        raise ValueError("every logit is -inf")
    for t in set(map(int, prompt)) | set(map(int, history)):
        if p.repetition_penalty != 1.0:
            x[t] = x[t] / p.repetition_penalty if x[t] > 0 else x[t] * p.repetition_penalty
    finite = x[~np.isneginf(x)]
    lse = finite.max() + np.log(np.exp(finite - finite.max()).sum())
    if p.temperature == 0:
        t = int(np.argmax(x))
        return t, float(x[t] - lse)
    y = x / p.temperature
    if p.top_k > 0:
        kept = np.argsort(-y, kind="stable")[:p.top_k]
        z = np.full_like(y, -np.inf)
        z[kept] = y[kept]
        y = z
    probs = np.exp(y - y.max())
    probs /= probs.sum()
    if p.top_p < 1:
        order = np.argsort(-probs, kind="stable")
        mass = np.cumsum(probs[order])
        cut = int(np.searchsorted(mass, p.top_p)) + 1
        keep = np.zeros_like(probs)
        keep[order[:cut]] = probs[order[:cut]]
        probs = keep / keep.sum()
    t = int(rng.choice(len(probs), p=probs))
    return t, float(x[t] - lse)


def constrained_sample(logits, c: Constraint, p: SamplingParams, history, rng, prompt=()) -> tuple[int, float]:
    if c.done:
        raise ValueError("constrained_sample: the constraint already took EOS")
    t, lp = sample(apply_mask(logits, c.mask()), p, history, rng, prompt)
    c.advance(t)
    return t, lp


# ------------------------------------------------------------------------ token bytes


def bytes_to_unicode() -> dict[int, str]:
    direct = [b for b in range(256) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF]
    shifted = [b for b in range(256) if b not in direct]
    table = {b: chr(b) for b in direct}
    table.update({b: chr(256 + n) for n, b in enumerate(shifted)})
    return dict(sorted(table.items()))


def unicode_to_bytes() -> dict[str, int]:
    return {c: b for b, c in bytes_to_unicode().items()}


def vocab_bytes(tok) -> list[bytes | None]:
    if hasattr(tok, "decode_single_token_bytes"):
        specials = {tok.encode_single_token(name) for name in tok.special_tokens_set}
        out = []
        for i in range(tok.n_vocab):
            try:
                out.append(None if i in specials else tok.decode_single_token_bytes(i))
            except KeyError:
                out.append(None)
        return out
    by_id = {i: s for s, i in tok.get_vocab().items()}
    special_names = set(getattr(tok, "all_special_tokens", ()))
    if not special_names and hasattr(tok, "get_added_tokens_decoder"):
        special_names = {a.content for a in tok.get_added_tokens_decoder().values() if a.special}
    table = unicode_to_bytes()
    out: list[bytes | None] = []
    for i in range(max(by_id) + 1 if by_id else 0):
        text = by_id.get(i)
        if text is None or text in special_names:
            out.append(None)
        elif all(ch in table for ch in text):
            out.append(bytes(table[ch] for ch in text))
        else:
            out.append(text.encode("utf-8"))
    return out
