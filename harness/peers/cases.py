"""The inputs of a comparison: fixed cases and Hypothesis-generated ones.

A ``Case`` is one question asked of ours and of a peer:

- an *accepts* case: ``source`` (a pattern or a schema) and ``doc`` (bytes);
- a *mask* case: ``source``, a vocabulary ``vocab`` with ``eos_id``, and ``prefix``
  (token ids, never EOS, viable for us): the masks after the prefix are compared.

``FIXED_REGEX`` / ``FIXED_SCHEMAS`` hold hand-picked inputs, each with a comment on
what it probes (the spec's section 3 example, alternation with a shared prefix,
non-ASCII bytes, whitespace, extra keys, ...). ``generated_cases(n, seed)`` draws
more with Hypothesis (seeded, no example database): patterns from
``strategies.patterns``, documents as random walks of our DFA plus one-byte edits,
short UTF-8 text and ``strategies.strings.strings_for``; vocabularies cut from those
documents (with UTF-8 fragments, an empty token, a special token and EOS) or drawn
from ``strategies.vocabularies`` (EOS anywhere); schemas from a small generator of
the JSON subset (documents from their values, with whitespace or an extra key
added) or from ``strategies.schemas`` (valid and one-mutation documents).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from facts.hand import HAND_PATTERN
from harness.peers.base import Source
from harness.peers.vocabularies import spec_vocabulary


@dataclasses.dataclass(frozen=True)
class Case:
    source: Source
    doc: bytes | None = None
    vocab: tuple[bytes | None, ...] | None = None
    eos_id: int | None = None
    prefix: tuple[int, ...] = ()
    origin: str = "fixed"

    @property
    def check(self) -> str:
        return "accepts" if self.doc is not None else "mask"

    def size(self) -> int:
        """What "smallest" means: source text + document + vocabulary bytes + prefix."""
        vocab = sum(len(t or b"") + 1 for t in self.vocab or ())
        return len(self.source.text) + len(self.doc or b"") + vocab + len(self.prefix)

    def prefix_bytes(self) -> bytes:
        return b"".join(self.vocab[t] or b"" for t in self.prefix) if self.vocab else b""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.source.kind, "source": self.source.text, "origin": self.origin}
        if self.doc is not None:
            out["doc"] = show(self.doc)
        else:
            out["vocab"] = [None if t is None else show(t) for t in self.vocab]
            out["eos_id"] = self.eos_id
            out["prefix"] = list(self.prefix)
            out["prefix_text"] = show(self.prefix_bytes())
        return out


def show(data: bytes) -> str:
    """Bytes as a Python literal without the b: printable ASCII as is, else \\xHH."""
    return repr(bytes(data))[2:-1]


def accepts_cases(source: Source, docs, origin="fixed") -> list[Case]:
    return [Case(source, doc=d, origin=origin) for d in docs]


def mask_cases(source: Source, vocab, eos_id, prefixes, origin="fixed") -> list[Case]:
    return [Case(source, vocab=tuple(vocab), eos_id=eos_id, prefix=tuple(p), origin=origin)
            for p in prefixes]


# -- fixed cases ----------------------------------------------------------------------

SPEC_PATTERN = HAND_PATTERN  # the spec's section 3 (facts.hand)

# (pattern, documents): what each probes is in the comment.
FIXED_REGEX: list[tuple[str, list[bytes]]] = [
    (SPEC_PATTERN, [b"cat", b"cars", b"dogs", b"do", b"cats!", b""]),      # the spec's example
    ("a|ab", [b"a", b"ab", b"b"]),                                       # shared prefix, earlier branch shorter
    ("(a|ab)(c|bcd)", [b"abcd", b"ac", b"abc"]),                         # priorities that backtrack
    ("(?:x|xy)z?", [b"x", b"xy", b"xz", b"xyz"]),
    (".", [b"a", b"\n", b"\xc3\xa9", b"\xff", b"\xe2\x82\xac"]),           # one byte vs one character
    ("[^a]", [b"b", b"\xc3\xa9", b"\x80"]),
    ("\\xe9", [b"\xe9", b"\xc3\xa9"]),                                   # byte E9 vs the character é
    ("\\d+", [b"42", "\u0663".encode()]),                                # Arabic-Indic digit
    ("\\w+", [b"abc_1", "\u00e9t\u00e9".encode()]),
    ("\\s", [b" ", b"\x0b", b"\x1c", "\u00a0".encode()]),
    ("[0-9]{2,3}", [b"1", b"12", b"123", b"1234"]),
    ("(ab)*c?", [b"", b"abab", b"abc", b"aba"]),
    ('"(?:[^"\\\\\\x00-\\x1f]|\\\\.)*"', [b'"hi"', b'"\\n"', b'"\xc3\xa9"', b'"\xff"', b'"\x01"']),
]

# (schema, documents)
FIXED_SCHEMAS: list[tuple[dict, list[bytes]]] = [
    ({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
      "required": ["city"]},
     [b'{"city":"Oslo","days":3}', b'{"city":"Oslo"}', b'{"city": "Oslo"}', b'{ "city":"Oslo" }',
      b'{"city":"Oslo","extra":1}', b'{"days":3,"city":"Oslo"}', b'{"days":3}']),
    ({"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"],
      "additionalProperties": False},
     [b'{"a":true}', b'{"a":true,"b":1}', b'{"a" :false}']),
    ({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
     [b"[1]", b"[1,2,3]", b"[1,2,3,4]", b"[]", b"[1, 2]", b"[01]"]),
    ({"type": "string"}, [b'"abc"', b'"\xc3\xa9"', b'"\\u00e9"', b'"\x7f"', b'"\xed\xa0\x80"', b'"\\/"']),
    ({"type": "number"}, [b"1", b"-0", b"1.5", b"1e5", b"1E+5", b"01", b"1.", b".5"]),
    ({"enum": ["a", 1, None, True]}, [b'"a"', b"1", b"null", b"true", b"false"]),
    ({"anyOf": [{"type": "null"}, {"type": "integer"}]}, [b"null", b"7", b"-1", b"x"]),
]


def _tiny_vocab() -> tuple[list[bytes | None], int]:
    """Singles, pairs and UTF-8 fragments: enough for canonical-token questions."""
    toks = [b"a", b"b", b"c", b"d", b"x", b"y", b"z", b"ab", b"bc", b"abc", b"xy", b"cd",
            b"\xc3", b"\xa9", b"\xc3\xa9", b"\xff", b"1", b"2", b"12", b"", None, b"<eos>"]
    return toks, len(toks) - 1


def fixed_cases() -> list[Case]:
    cases: list[Case] = []
    for pattern, docs in FIXED_REGEX:
        cases += accepts_cases(Source.regex(pattern), docs)
    for schema, docs in FIXED_SCHEMAS:
        cases += accepts_cases(Source.schema(schema), docs)
    spec_vocab, spec_eos = spec_vocabulary()
    # the spec's masks: prefixes "", "ca", "cat", "cats", "do"
    cases += mask_cases(Source.regex(SPEC_PATTERN), spec_vocab, spec_eos,
                        [(), (8,), (9,), (9, 7), (4, 5)])
    tiny, tiny_eos = _tiny_vocab()
    for pattern, prefixes in [("abc|abd", [(), (0,), (7,)]), ("a|ab", [(), (0,)]),
                              ("(ab)+", [(), (7,), (0, 1)]), (".\\xe9?", [(), (12,), (0,)]),
                              ("x*yz", [(), (10,)]), ("[12]+", [(), (16,)])]:
        cases += mask_cases(Source.regex(pattern), tiny, tiny_eos, prefixes)
    json_vocab = [b"{", b"}", b'"', b"a", b":", b",", b"1", b"true", b" ", b'{"a":', b'"a"', b"", None]
    cases += mask_cases(Source.schema({"type": "object", "properties": {"a": {"type": "integer"}},
                                       "required": ["a"]}), json_vocab, 12, [(), (0,), (9,), (0, 2, 3, 2)])
    return cases


def schema_text(schema: dict) -> str:
    return json.dumps(schema, separators=(",", ":"))


# -- generated cases ------------------------------------------------------------------

from hypothesis import strategies as st  # noqa: E402  (generation only)

UTF8_TEXT = st.text(alphabet=st.sampled_from("ab1 \u00e9\u20ac\u0663\n"), max_size=4)
FRAGMENTS = [b"\xc3", b"\xa9", b"\xc3\xa9", b"\xe2\x82", b"\xac", b"\xff"]


def _walk(draw, dfa, max_len: int = 8) -> bytes:
    """A random walk of our DFA from state 0, stopping at an accepting state
    (drawn), so the result is a member of the language."""
    rows = dfa.trans
    state, out = 0, bytearray()
    for _ in range(max_len * 4):
        if dfa.accept[state] and (len(out) >= max_len or draw(st.booleans())):
            return bytes(out)
        live = [b for b in range(256) if rows[state, b] >= 0]
        if not live:
            break
        b = draw(st.sampled_from(live))
        out.append(b)
        state = int(rows[state, b])
    return bytes(out) if dfa.accept[state] else b""


def _edit(draw, doc: bytes) -> bytes:
    """One byte inserted, deleted or replaced (the byte drawn from a mixed set)."""
    byte = draw(st.sampled_from(b"a0 \n\"{\x80\xc3\xff"))
    i = draw(st.integers(0, len(doc)))
    op = draw(st.sampled_from(["insert", "delete", "replace"]))
    if op == "insert" or not doc:
        return doc[:i] + bytes([byte]) + doc[i:]
    i = min(i, len(doc) - 1)
    return doc[:i] + (b"" if op == "delete" else bytes([byte])) + doc[i + 1:]


def _vocab_from(draw, docs: list[bytes]) -> tuple[list[bytes | None], int]:
    """Single bytes of the documents, 2-3 byte pieces of them, UTF-8 fragments,
    an empty token, a special token; EOS last."""
    singles = sorted({bytes([b]) for d in docs for b in d} | {b"a", b"0"})
    pieces = set()
    for d in docs:
        for n in (2, 3):
            for i in range(0, max(0, len(d) - n + 1), n):
                pieces.add(d[i:i + n])
    extra = draw(st.lists(st.sampled_from(FRAGMENTS), max_size=3, unique=True))
    toks = list(dict.fromkeys(singles + sorted(pieces) + extra))
    toks = draw(st.permutations(toks)) if len(toks) <= 40 else toks
    toks += [b"", None]
    return toks + [b"<eos>"], len(toks)


def _token_walk(draw, ours_masker, vocab, eos_id, steps: int) -> list[tuple[int, ...]]:
    """Prefixes of a random walk over our allowed tokens (EOS never taken)."""
    import numpy as np

    prefixes, prefix = [()], ()
    for _ in range(steps):
        mask = ours_masker.allowed(prefix)
        choices = [int(t) for t in np.flatnonzero(mask) if t != eos_id]
        if not choices:
            break
        prefix = prefix + (draw(st.sampled_from(choices)),)
        prefixes.append(prefix)
    return prefixes


def _regex_cases(draw, ours) -> list[Case]:
    from harness.peers.base import PeerRefused
    from strategies.patterns import patterns
    from strategies.strings import strings_for
    from strategies.vocabularies import vocabularies

    pattern = draw(patterns(max_leaves=5, max_repeat=3))
    try:
        compiled = ours.compile_regex(pattern)
    except PeerRefused:
        return []
    source = Source.regex(pattern)
    members = [_walk(draw, compiled.dfa) for _ in range(draw(st.integers(1, 3)))]
    docs = members + [_edit(draw, m) for m in members] + [draw(UTF8_TEXT).encode()]
    docs += draw(st.lists(strings_for(pattern, max_size=8), min_size=1, max_size=2))
    cases = accepts_cases(source, list(dict.fromkeys(docs)), origin="generated")
    if draw(st.booleans()):
        vocab, eos_id = _vocab_from(draw, members)
    else:  # the strategies' vocabularies (EOS anywhere, fragments, specials), plus our single bytes
        alphabet = bytes(sorted({b for m in members for b in m})) or b"a"
        theirs, eos_id = draw(vocabularies(max_size=12, alphabet=alphabet))
        vocab = theirs + [bytes([b]) for b in alphabet]
    masker = compiled.masker(vocab, eos_id)
    prefixes = _token_walk(draw, masker, vocab, eos_id, draw(st.integers(0, 3)))
    return cases + mask_cases(source, vocab, eos_id, prefixes, origin="generated")


# a small generator of the JSON-schema subset, with values to write documents from
SCALARS = {
    "string": st.text(alphabet=st.sampled_from("ab \u00e9\"\\"), max_size=3),
    "integer": st.integers(-20, 20),
    "number": st.one_of(st.integers(-5, 5), st.sampled_from([0.5, -1.25, 1e20])),
    "boolean": st.booleans(),
    "null": st.none(),
}


@st.composite
def schemas_and_values(draw, depth: int = 2):
    """(schema, a value valid under it) for the JSON subset we share with peers."""
    kinds = list(SCALARS) + ["enum"] + (["object", "array"] if depth > 0 else [])
    kind = draw(st.sampled_from(kinds))
    if kind in SCALARS:
        return {"type": kind}, draw(SCALARS[kind])
    if kind == "enum":
        values = draw(st.lists(st.one_of(st.sampled_from(["a", "b c"]), st.integers(0, 3)),
                               min_size=1, max_size=3, unique=True))
        return {"enum": values}, draw(st.sampled_from(values))
    if kind == "array":
        item, _ = draw(schemas_and_values(depth - 1))
        lo = draw(st.integers(0, 2))
        hi = draw(st.integers(lo, 3))
        n = draw(st.integers(lo, hi))
        values = [draw(_value_of(item)) for _ in range(n)]
        return {"type": "array", "items": item, "minItems": lo, "maxItems": hi}, values
    names = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True))
    props, value = {}, {}
    required = draw(st.lists(st.sampled_from(names), unique=True))
    for name in names:
        props[name], v = draw(schemas_and_values(depth - 1))
        if name in required or draw(st.booleans()):
            value[name] = v
    schema = {"type": "object", "properties": props, "required": [n for n in names if n in required]}
    return schema, value


def _value_of(schema):
    """Values for an item schema (drawn again through the generator's own paths)."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema["type"]
    if kind in SCALARS:
        return SCALARS[kind]
    if kind == "array":
        return st.lists(_value_of(schema["items"]), min_size=schema["minItems"], max_size=schema["maxItems"])
    return st.fixed_dictionaries({k: _value_of(s) for k, s in schema["properties"].items()})


def _spaced(draw, doc: bytes) -> bytes:
    """Whitespace after a structural byte outside strings (",", ":", "[", "{")."""
    spots = [i + 1 for i, b in enumerate(doc) if b in b",:[{"]
    if not spots:
        return b" " + doc
    i = draw(st.sampled_from(spots))
    return doc[:i] + b" " + doc[i:]


def _schema_cases(draw, ours) -> list[Case]:
    from harness.peers.base import PeerRefused
    from strategies.schemas import documents, schemas

    if draw(st.booleans()):
        schema, value = draw(schemas_and_values())
        doc = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    else:  # the strategies' schemas: tricky names and enum values, additionalProperties: false
        schema = draw(schemas(max_leaves=4))
        value = None
        doc = draw(documents(schema)).encode()
    try:
        compiled = ours.compile_schema(schema)
    except PeerRefused:
        return []
    source = Source.schema(schema)
    docs = [doc, _spaced(draw, doc), _edit(draw, doc)]
    if value is None:
        docs.append(draw(documents(schema, valid=False)).encode())
    elif isinstance(value, dict):
        docs.append(json.dumps({**value, "zz": 1}, separators=(",", ":")).encode())
    cases = accepts_cases(source, list(dict.fromkeys(docs)), origin="generated")
    vocab, eos_id = _vocab_from(draw, [doc])
    masker = compiled.masker(vocab, eos_id)
    prefixes = _token_walk(draw, masker, vocab, eos_id, draw(st.integers(0, 4)))
    return cases + mask_cases(source, vocab, eos_id, prefixes, origin="generated")


def generated_cases(n_regex: int, n_schema: int, seed: int = 0) -> list[Case]:
    """Cases from ``n_regex`` generated patterns and ``n_schema`` generated schemas,
    drawn by Hypothesis with the given seed (the same cases every run)."""
    from harness.peers.ours import Ours

    ours = Ours()
    out: list[Case] = []
    for count, draw_cases in ((n_regex, _regex_cases), (n_schema, _schema_cases)):
        if count > 0:
            _collect(draw_cases, ours, out, count, seed)
    return out


def _collect(draw_cases, ours, out: list, count: int, seed: int) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hyp_seed

    @hyp_seed(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=False)
    @given(st.data())
    def collect(data):
        out.extend(draw_cases(data.draw, ours))

    collect()
