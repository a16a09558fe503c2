"""Fairness gallery: a correct implementation written from the spec's text alone; it
needs ``--ref-deps`` (L8.1's ``SamplingParams``/``sample`` and M05.2's byte map come
from the reference, as the spec's ``ol check L8.7 --ref-deps`` allows).

Readings (each one the spec allows; see tests/suite/test_fairness.py):

- regex: a recursive-descent parser that emits NFA fragments directly (no tree); a
  bounded repeat ``x{m,n}`` parses the text of ``x`` again for every copy; the NFA is
  minimized without ever building a non-minimal DFA: Brzozowski's double reversal
  ``det(rev(det(rev(N))))`` on the epsilon-NFA itself; breadth-first numbering;
- DEAD is not a state: ``DFA.step(DEAD, ...)`` raises ValueError, and ``next_state``
  raises ValueError for a token without bytes (a special or the empty token), where
  no walk is defined;
- ``TokenIndex.mask`` raises IndexError for a state out of range;
- ``Constraint(index, state)``: the constructor requires the state;
- an empty ``enum`` is the empty alternation: a schema that allows nothing there;
- ``TokenIndex``: an implicit trie (the vocabulary sorted by bytes; a node is a range
  of it and a depth, children found by bisection), masks computed lazily.

Its departures from the contract's decisions (``--strict``): step_from_dead,
next_state_refused_is_dead, mask_out_of_range_valueerror, empty_enum_refused.

Also refused, a departure (``--strict``: python_escapes_and_repeat_forms): three-digit and
in-class octal escapes (``\\101``, ``[\\4]``, ``[\\0-\\7]``), which the spec does not list.

Also a departure (``--strict``: vocab_bytes_token_list): ``vocab_bytes`` reads a tokenizer object,
not a plain list of token strings (the spec hands it a tokenizer).
"""

from __future__ import annotations

import bisect
import json
from collections import deque

import numpy as np

DEAD = -1
REPEAT_LIMIT = 1000
SUBSET_LIMIT = 30000

ALL = frozenset(range(256))
ESCAPE_SETS = {
    "d": frozenset(range(48, 58)),
    "w": frozenset([*range(48, 58), *range(65, 91), *range(97, 123), 95]),
    "s": frozenset([9, 10, 11, 12, 13, 32]),
}
for _c in "dws":
    ESCAPE_SETS[_c.upper()] = ALL - ESCAPE_SETS[_c]
SINGLE = {"n": 10, "r": 13, "t": 9, "f": 12, "v": 11, "a": 7}


class _Builder:
    """Parses ``text`` and emits an epsilon-NFA (``eps`` and ``arcs`` per state)."""

    def __init__(self, text: str):
        self.text = text
        self.eps: list[set[int]] = []
        self.arcs: list[list[tuple[frozenset, int]]] = []

    def node(self) -> int:
        self.eps.append(set())
        self.arcs.append([])
        return len(self.eps) - 1

    def error(self, at: int, what: str) -> ValueError:
        return ValueError(f"{what} (offset {at} of {self.text!r})")

    # each parse method takes a position and returns (entry, exit, next position)
    def alternatives(self, at: int):
        entry, exit_ = self.node(), self.node()
        while True:
            s, e, at = self.sequence(at)
            self.eps[entry].add(s)
            self.eps[e].add(exit_)
            if at < len(self.text) and self.text[at] == "|":
                at += 1
                continue
            return entry, exit_, at

    def sequence(self, at: int):
        entry = here = self.node()
        while at < len(self.text) and self.text[at] not in "|)":
            s, e, at = self.repeated(at)
            self.eps[here].add(s)
            here = e
        return entry, here, at

    def repeated(self, at: int):
        atom_start = at
        s, e, at = self.atom(at)
        bounds, after = self.quantifier(at)
        if bounds is None:
            return s, e, at
        if after < len(self.text) and self.text[after] in "?+":
            raise self.error(after, "lazy or possessive quantifier")
        if self.quantifier(after)[0] is not None:
            raise self.error(after, "multiple repeat")
        lo, hi = bounds
        if hi is not None and hi < lo:
            raise self.error(at, "bad repeat: max below min")
        if lo > REPEAT_LIMIT or (hi or 0) > REPEAT_LIMIT:
            raise self.error(at, f"repeat bound over {REPEAT_LIMIT}")
        spare = [(s, e)]  # the copy parsed first; every other copy parses the atom's text again

        def take():
            if spare:
                return spare.pop()
            cs, ce, _ = self.atom(atom_start)
            return cs, ce

        entry = here = self.node()
        for _ in range(lo):
            cs, ce = take()
            self.eps[here].add(cs)
            here = ce
        exit_ = self.node()
        if hi is None:
            cs, ce = take()
            self.eps[here] |= {cs, exit_}
            self.eps[ce].add(here)
        else:
            for _ in range(hi - lo):
                cs, ce = take()
                self.eps[here] |= {cs, exit_}
                here = ce
            self.eps[here].add(exit_)
        return entry, exit_, after

    def quantifier(self, at: int):
        if at >= len(self.text):
            return None, at
        c = self.text[at]
        if c == "*":
            return (0, None), at + 1
        if c == "+":
            return (1, None), at + 1
        if c == "?":
            return (0, 1), at + 1
        if c == "{":
            close = self.text.find("}", at)
            if close > at:
                inner = self.text[at + 1:close]
                a, comma, b = inner.partition(",")
                if (a.isdigit() or (comma and not a)) and (not b or b.isdigit()) and (a or b or comma):
                    if not comma:
                        return (int(a), int(a)), close + 1
                    return (int(a or 0), int(b) if b else None), close + 1
        return None, at

    def atom(self, at: int):
        c = self.text[at]
        if self.quantifier(at)[0] is not None:
            raise self.error(at, "nothing to repeat")
        if c == "(":
            at += 1
            if self.text.startswith("?:", at):
                at += 2
            elif self.text.startswith("?", at):
                raise self.error(at, "group extensions are outside the subset")
            s, e, at = self.alternatives(at)
            if at >= len(self.text) or self.text[at] != ")":
                raise self.error(at, "missing )")
            return s, e, at + 1
        if c in "^$":
            raise self.error(at, "anchors are outside the subset")
        if c == "[":
            members, at = self.klass(at)
        elif c == "\\":
            members, at = self.escape(at, False)
        elif c == ".":
            members, at = ALL - {10}, at + 1
        else:
            members, at = frozenset([ord(c)]), at + 1
        s, e = self.node(), self.node()
        if members:
            self.arcs[s].append((members, e))
        return s, e, at

    def escape(self, at: int, in_class: bool):
        if at + 1 >= len(self.text):
            raise self.error(at, "a lone backslash")
        c = self.text[at + 1]
        if c in ESCAPE_SETS:
            return ESCAPE_SETS[c], at + 2
        if c in SINGLE:
            return frozenset([SINGLE[c]]), at + 2
        if c == "x":
            h = self.text[at + 2:at + 4]
            if len(h) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in h):
                return frozenset([int(h, 16)]), at + 4
            raise self.error(at, "\\x needs two hex digits")
        if c == "0":
            end = at + 2
            while end < min(at + 4, len(self.text)) and self.text[end] in "01234567":
                end += 1
            return frozenset([int(self.text[at + 1:end], 8)]), end
        if in_class and c == "b":
            return frozenset([8]), at + 2
        if c.isalnum():
            raise self.error(at, f"\\{c} is outside the subset (anchor, backreference or unknown escape)")
        return frozenset([ord(c)]), at + 2

    def klass(self, at: int):
        begin = at
        at += 1
        negate = at < len(self.text) and self.text[at] == "^"
        at += negate
        members: set[int] = set()
        opened = at
        while True:
            if at >= len(self.text):
                raise self.error(begin, "unterminated character class")
            if self.text[at] == "]" and at > opened:
                break
            lo, at = self.escape(at, True) if self.text[at] == "\\" else (frozenset([ord(self.text[at])]), at + 1)
            if at + 1 < len(self.text) and self.text[at] == "-" and self.text[at + 1] != "]":
                hi, at = (self.escape(at + 1, True) if self.text[at + 1] == "\\"
                          else (frozenset([ord(self.text[at + 1])]), at + 2))
                if len(lo) != 1 or len(hi) != 1 or min(lo) > min(hi):
                    raise self.error(begin, "bad range")
                members |= set(range(min(lo), min(hi) + 1))
            else:
                members |= lo
        chosen = frozenset(members)
        return (ALL - chosen if negate else chosen), at + 1


def _determinize(eps, arcs, starts):
    """Subset construction with epsilon closures; returns (rows: list[dict byte -> id],
    subsets). The empty set is never a state."""
    def close(states):
        seen = set(states)
        todo = list(states)
        while todo:
            for t in eps[todo.pop()]:
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        return frozenset(seen)

    first = close(starts)
    ids, subsets, rows = {first: 0}, [first], []
    k = 0
    while k < len(subsets):
        by_byte: dict[int, set[int]] = {}
        for q in subsets[k]:
            for members, t in arcs[q]:
                for b in members:
                    by_byte.setdefault(b, set()).add(t)
        row = {}
        cache: dict[frozenset, int] = {}
        for b, targets in by_byte.items():
            key = frozenset(targets)
            if key not in cache:
                nxt = close(key)
                if nxt not in ids:
                    if len(subsets) >= SUBSET_LIMIT:
                        raise ValueError(f"more than {SUBSET_LIMIT} subsets")
                    ids[nxt] = len(subsets)
                    subsets.append(nxt)
                cache[key] = ids[nxt]
            row[b] = cache[key]
        rows.append(row)
        k += 1
    return rows, subsets


def _reverse(n: int, eps, arcs):
    r_eps = [set() for _ in range(n)]
    r_arcs: list[list[tuple[frozenset, int]]] = [[] for _ in range(n)]
    for q in range(n):
        for t in eps[q]:
            r_eps[t].add(q)
        for members, t in arcs[q]:
            r_arcs[t].append((members, q))
    return r_eps, r_arcs


def _dfa_as_nfa(rows):
    n = len(rows)
    eps = [set() for _ in range(n)]
    arcs = []
    for row in rows:
        grouped: dict[int, set[int]] = {}
        for b, t in row.items():
            grouped.setdefault(t, set()).add(b)
        arcs.append([(frozenset(bs), t) for t, bs in grouped.items()])
    return eps, arcs


class DFA:
    def __init__(self, trans, accept):
        self.trans = trans
        self.accept = accept
        self.n_states = len(accept)

    def step(self, state: int, data: bytes) -> int:
        if not 0 <= state < self.n_states:
            raise ValueError(f"DFA.step: {state} is not a state (0..{self.n_states - 1}; DEAD is no state)")
        for b in data:
            state = int(self.trans[state, b])
            if state == DEAD:
                return DEAD
        return state

    def matches(self, data: bytes) -> bool:
        end = self.step(0, data)
        return end != DEAD and bool(self.accept[end])


def regex_to_dfa(pattern: str) -> DFA:
    if not isinstance(pattern, str):
        raise TypeError("regex_to_dfa(pattern): pattern must be a str")
    for i, ch in enumerate(pattern):
        if ord(ch) >= 128:
            raise ValueError(f"non-ASCII character {ch!r} (offset {i})")
    builder = _Builder(pattern)
    start, final, at = builder.alternatives(0)
    if at != len(pattern):
        raise builder.error(at, "unbalanced )")
    n = len(builder.eps)
    # det(rev(N)): a DFA for the reversed language, from the NFA's final state
    r_eps, r_arcs = _reverse(n, builder.eps, builder.arcs)
    rows1, subsets1 = _determinize(r_eps, r_arcs, [final])
    accepting1 = [start in s for s in subsets1]
    if not any(accepting1):
        raise ValueError(f"{pattern!r}: the language is empty")
    # det(rev(D1)): minimal, from D1's accepting states
    eps1, arcs1 = _dfa_as_nfa(rows1)
    r_eps1, r_arcs1 = _reverse(len(rows1), eps1, arcs1)
    rows2, subsets2 = _determinize(r_eps1, r_arcs1, [q for q, a in enumerate(accepting1) if a])
    accepting2 = [0 in s for s in subsets2]
    names = {0: 0}
    order = deque([0])
    trans, accept = [], []
    while order:
        q = order.popleft()
        line = np.full(256, DEAD, dtype=np.int32)
        for b in range(256):
            t = rows2[q].get(b)
            if t is None:
                continue
            if t not in names:
                names[t] = len(names)
                order.append(t)
            line[b] = names[t]
        trans.append(line)
        accept.append(accepting2[q])
    return DFA(np.array(trans, dtype=np.int32), np.array(accept, dtype=bool))


# ------------------------------------------------------------------------ schemas

_STR = ('"(?:[ !#-\\[\\]-~]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4}'
        '|[\\xc2-\\xdf][\\x80-\\xbf]|\\xe0[\\xa0-\\xbf][\\x80-\\xbf]|[\\xe1-\\xec][\\x80-\\xbf]{2}'
        '|\\xed[\\x80-\\x9f][\\x80-\\xbf]|[\\xee\\xef][\\x80-\\xbf]{2}|\\xf0[\\x90-\\xbf][\\x80-\\xbf]{2}'
        '|[\\xf1-\\xf3][\\x80-\\xbf]{3}|\\xf4[\\x80-\\x8f][\\x80-\\xbf]{2})*"')
_INTEGER = "-?(?:0|[1-9][0-9]*)"
_BASIC = {"string": _STR, "integer": _INTEGER, "number": _INTEGER + "(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?",
          "boolean": "(?:true|false)", "null": "null"}
_SILENT = {"title", "description", "$schema", "$comment", "examples", "default"}
_NOTHING = "[^\\x00-\\xff]"


def _text(s: str) -> str:
    return "".join("\\" + ch if ch in "\\.^$*+?{}[]|()-/\"" else (ch if " " <= ch <= "~" else
                   "".join(f"\\x{b:02x}" for b in ch.encode("utf-8"))) for ch in s)


def json_schema_to_regex(schema: dict) -> str:
    return _go(schema, "#")


def _go(schema, ptr: str) -> str:
    if not isinstance(schema, dict):
        raise ValueError(f"{ptr}: not an object")
    kw = {k: v for k, v in schema.items() if k not in _SILENT}
    if "anyOf" in kw:
        if len(kw) > 1 or not isinstance(kw["anyOf"], list) or not kw["anyOf"]:
            raise ValueError(f"{ptr}/anyOf: anyOf with other keywords or no branch")
        return "(?:" + "|".join(_go(b, f"{ptr}/anyOf/{i}") for i, b in enumerate(kw["anyOf"])) + ")"
    if "enum" in kw or "const" in kw:
        other = set(kw) - {"type"}
        if len(other) != 1:
            raise ValueError(f"{ptr}: {sorted(other)} cannot go together")
        values = kw["enum"] if "enum" in kw else [kw["const"]]
        if not isinstance(values, list):
            raise ValueError(f"{ptr}/enum: not a list")
        if "type" in kw:
            _typed(values, kw["type"], ptr)
        if not values:
            return _NOTHING  # the empty alternation: nothing can be written here
        return "(?:" + "|".join(_text(json.dumps(v, separators=(",", ":"), ensure_ascii=False, allow_nan=False))
                                for v in values) + ")"
    kind = kw.get("type")
    if not isinstance(kind, str) or kind not in (*_BASIC, "array", "object"):
        raise ValueError(f"{ptr}/type: {kind!r} is not a type of the subset")
    rest = set(kw) - {"type"}
    if kind in _BASIC:
        if rest:
            raise ValueError(f"{ptr}/{sorted(rest)[0]}: not in the subset")
        return _BASIC[kind]
    if kind == "array":
        if rest - {"items", "minItems", "maxItems"} or "items" not in kw:
            raise ValueError(f"{ptr}: an array takes items (required), minItems and maxItems only")
        item = _go(kw["items"], ptr + "/items")
        lo, hi = kw.get("minItems", 0), kw.get("maxItems")
        if type(lo) is not int or lo < 0 or (hi is not None and (type(hi) is not int or hi < lo)) \
                or max(lo, hi or 0) > REPEAT_LIMIT:
            raise ValueError(f"{ptr}: bad minItems/maxItems")
        if hi == 0:
            return "\\[\\]"
        more = "(?:,(?:" + item + ")){" + str(max(lo - 1, 0)) + "," + ("" if hi is None else str(hi - 1)) + "}"
        inner = "(?:" + item + ")" + more
        return "\\[" + (inner if lo else "(?:" + inner + ")?") + "\\]"
    if rest - {"properties", "required", "additionalProperties"}:
        raise ValueError(f"{ptr}/{sorted(rest - {'properties', 'required', 'additionalProperties'})[0]}: "
                         "not in the subset")
    if kw.get("additionalProperties", False) is not False:
        raise ValueError(f"{ptr}/additionalProperties: must be false")
    props, req = kw.get("properties", {}), kw.get("required", [])
    if any(r not in props for r in req):
        raise ValueError(f"{ptr}/required: names a property that does not exist")
    tail_written, tail_empty = "", ""
    for name in list(props)[::-1]:
        value = _go(props[name], f"{ptr}/properties/{name}")
        member = _text(json.dumps(name, ensure_ascii=False)) + ":(?:" + value + ")"
        if name in req:
            tail_written, tail_empty = "," + member + tail_written, member + tail_written
        else:
            tail_written, tail_empty = ("(?:," + member + ")?" + tail_written,
                                        "(?:" + member + tail_written + "|" + tail_empty + ")")
    return "\\{" + tail_empty + "\\}"


def _typed(values, kind, ptr: str) -> None:
    ok = {"string": str, "boolean": bool, "array": list, "object": dict}
    for v in values:
        if kind == "null":
            good = v is None
        elif kind in ("integer", "number"):
            good = not isinstance(v, bool) and isinstance(v, int if kind == "integer" else (int, float))
        elif kind in ok:
            good = isinstance(v, ok[kind])
        else:
            raise ValueError(f"{ptr}/type: unknown type {kind!r}")
        if not good:
            raise ValueError(f"{ptr}/enum: {v!r} is not a {kind}")


# ------------------------------------------------------------------------ masks


class TokenIndex:
    """An implicit trie: tokens sorted by bytes; the node (lo, hi, depth) is the range of
    tokens sharing their first ``depth`` bytes."""

    def __init__(self, dfa: DFA, vocab, eos_id=None):
        self.dfa = dfa
        self.vocab = list(vocab)
        self.vocab_size = len(self.vocab)
        if eos_id is not None and not 0 <= eos_id < self.vocab_size:
            raise ValueError(f"eos_id {eos_id} out of range({self.vocab_size})")
        self.eos_id = eos_id
        pairs = sorted((bytes(v), i) for i, v in enumerate(self.vocab) if v and i != eos_id)
        self.words = [w for w, _ in pairs]
        self.ids = [i for _, i in pairs]
        self.masks: list[np.ndarray | None] = [None] * dfa.n_states

    def mask(self, state: int) -> np.ndarray:
        if not 0 <= state < self.dfa.n_states:
            raise IndexError(f"TokenIndex.mask: state {state} out of range({self.dfa.n_states})")
        if self.masks[state] is None:
            out = np.zeros(self.vocab_size, dtype=bool)
            self._visit(0, len(self.words), 0, state, out)
            if self.eos_id is not None:
                out[self.eos_id] = bool(self.dfa.accept[state])
            self.masks[state] = out
        return self.masks[state]

    def _visit(self, lo: int, hi: int, depth: int, state: int, out: np.ndarray) -> None:
        """Tokens words[lo:hi] share words[lo][:depth]; ``state`` is after that prefix."""
        words, trans = self.words, self.dfa.trans
        while lo < hi and len(words[lo]) == depth:  # tokens that end here
            out[self.ids[lo]] = True
            lo += 1
        while lo < hi:
            b = words[lo][depth]
            prefix = words[lo][:depth + 1]
            end = bisect.bisect_left(words, prefix + b"\xff" * 64, lo, hi)
            while end < hi and words[end].startswith(prefix):
                end += 1
            nxt = int(trans[state, b])
            if nxt != DEAD:
                self._visit(lo, end, depth + 1, nxt, out)
            lo = end

    def next_state(self, state: int, token_id: int) -> int:
        if not 0 <= state < self.dfa.n_states:
            raise ValueError(f"next_state: state {state} out of range({self.dfa.n_states})")
        if not 0 <= token_id < self.vocab_size:
            raise ValueError(f"next_state: token id {token_id} out of range({self.vocab_size})")
        if token_id == self.eos_id:
            return state if self.dfa.accept[state] else DEAD
        data = self.vocab[token_id]
        if not data:
            raise ValueError(f"next_state: token {token_id} has no bytes (a special or the empty token)")
        return self.dfa.step(state, data)


class Constraint:
    def __init__(self, index: TokenIndex, state: int):
        self.index = index
        self.state = state
        self.done = False

    def mask(self) -> np.ndarray:
        return np.zeros(self.index.vocab_size, dtype=bool) if self.done else self.index.mask(self.state)

    def advance(self, token_id: int) -> None:
        allowed = self.mask()
        if not 0 <= token_id < len(allowed) or not allowed[token_id]:
            raise ValueError(f"Constraint.advance: token {token_id} is not allowed in state {self.state}"
                             f"{' after EOS' if self.done else ''}")
        if token_id == self.index.eos_id:
            self.done = True
        else:
            self.state = self.index.next_state(self.state, token_id)

    def is_complete(self) -> bool:
        return bool(self.index.dfa.accept[self.state])


def apply_mask(logits, mask) -> np.ndarray:
    values = np.asarray(logits, dtype=np.float64)
    keep = np.asarray(mask, dtype=bool)
    if values.shape != keep.shape:
        raise ValueError(f"apply_mask: shapes {values.shape} and {keep.shape}")
    if not keep.any():
        raise ValueError("apply_mask: an all-False mask")
    result = np.full(values.shape, -np.inf)
    result[keep] = values[keep]
    return result


def constrained_sample(logits, c: Constraint, p, history, rng, prompt=()):
    if c.done:
        raise ValueError("constrained_sample: done (EOS)")
    token, logprob = sample(apply_mask(logits, c.mask()), p, history, rng, prompt=prompt)  # noqa: F821
    c.advance(int(token))
    return int(token), float(logprob)


def vocab_bytes(tok) -> list[bytes | None]:
    if hasattr(tok, "decode_single_token_bytes"):
        special = {tok.encode_single_token(name) for name in tok.special_tokens_set}
        got = []
        for i in range(tok.n_vocab):
            try:
                got.append(None if i in special else tok.decode_single_token_bytes(i))
            except KeyError:
                got.append(None)
        return got
    vocab = tok.get_vocab(with_added_tokens=True) if hasattr(tok, "get_added_tokens_decoder") else tok.get_vocab()
    if hasattr(tok, "all_special_ids"):
        special = set(tok.all_special_ids)
    else:
        special = {i for i, a in tok.get_added_tokens_decoder().items() if a.special}
    inverse = unicode_to_bytes()  # noqa: F821 - supplied by --ref-deps (M05.2)
    out: list[bytes | None] = [None] * (max(vocab.values()) + 1 if vocab else 0)
    for text, i in vocab.items():
        if i not in special:
            out[i] = bytes(inverse[ch] for ch in text) if set(text) <= set(inverse) else text.encode("utf-8")
    return out
