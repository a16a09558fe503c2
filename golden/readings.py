"""The readings of the spec every grader accepts, written once: the catalogue
(``harness.suite``), ``--deep`` and the golden replay (``golden.replay``) all import them
from here (``golden/`` imports nothing from ``harness/``, so the shared part lives here).

- ``CONSTRAINT_SHAPES`` / ``build_constraint``: the spec gives ``Constraint`` no
  constructor (section 4 lists ``state; done; mask(); advance(); is_complete()``), so
  every reasonable shape is tried in order; a TypeError moves on to the next one.
- ``uses_extra_syntax(pattern)``: the pattern spells Python syntax the spec does not
  list (``(?:``, ``\\xHH``, an empty branch, ``{0}``): a candidate may refuse it (a note
  on ``extra_regex_syntax``), never compile it to another language.
- ``python_only_construct(construct)``: a refused construct (``facts.constructs``'
  ``construct``) that Python's ``re`` reads and the spec does not name (inline flags,
  named groups, comments, possessive and atomic forms): the reference refuses it (the
  contract's decision ``python_only_syntax_refused``); accepting it with Python's
  meaning is a note, with another meaning a failure.
- ``compact_readings(value)``: spec 000 section 2.5 says compact JSON is "as
  ``json.dumps(v, separators=(",", ":"))`` writes it", which escapes every character
  outside printable ASCII (``ensure_ascii`` defaults to True); the reference writes raw
  UTF-8 (spec 002's ``dumps_matches_python``: "raw non-ASCII"). Both are the spec's
  readings: ``{"raw": ..., "ascii": ...}``; ``ascii_reading_regex(schema)`` is the
  reference's regex for a schema under the ASCII reading.
- ``gpt2_byte_map()`` and ``RecordedTokenizer(tokens, special_ids)``: a vocabulary as the
  spec's ``vocab_bytes(tok)`` reads it (token strings in GPT-2's byte map, specials carried by
  the tokenizer), for ``vocab_bytes_marks_specials``; behind the wall the grader hands
  ``harness.suite.shapes.SpecTokenizer`` instead, which answers the same interfaces.
- ``closed(schema)``: the spec's object language holds only the listed properties, so a
  schema is read by JSON Schema with ``additionalProperties: false`` on every object.
- ``free_string_holds_del(schema, value)``: the spec's string character is printable ASCII
  or a UTF-8 sequence, so a raw DEL in a string no enum spells is out of the language
  (``RAW_DEL`` says why); ``--deep`` and the differential schema tests read it alike.
- ``probe_strings`` / ``first_disagreement_with_re``: how a table is compared with
  Python's ``re.fullmatch`` (random walks of the table, prefixes, one-byte edits).

Example::

    >>> compact_readings(["a", 1]) == {"raw": '["a",1]', "ascii": '["a",1]'}
    True
    >>> uses_extra_syntax("(|a)b"), uses_extra_syntax("(ab)+")
    (True, False)
"""

from __future__ import annotations

import json
import re

import numpy as np

from facts.constructs import REGEX_EXTRA_MARKERS, SPEC_REGEX_CATEGORIES

__all__ = ["gpt2_byte_map", "RecordedTokenizer", "CONSTRAINT_SHAPES", "build_constraint", "uses_extra_syntax",
           "python_only_construct", "PYTHON_ONLY_CONSTRUCTS", "compact_readings", "readings_differ",
           "ascii_reading_regex", "probe_strings", "first_disagreement_with_re", "DEAD", "closed", "RAW_DEL",
           "free_string_holds_del", "pick", "by_length"]

DEAD = -1

# ---------------------------------------------------------------- a tokenizer's vocabulary


def gpt2_byte_map() -> dict[int, str]:
    """GPT-2's ``bytes_to_unicode``: printable Latin-1 bytes stand for themselves, the other 68
    bytes for the characters from U+0100 on, in byte order (byte 32 is ``Ġ``)."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    moved = [b for b in range(256) if b not in kept]
    return {**{b: chr(b) for b in kept}, **{b: chr(256 + i) for i, b in enumerate(moved)}}


class RecordedTokenizer:
    """Token strings by id and the ids of the specials, read through the interfaces a
    ``vocab_bytes(tok)`` may use (the same as ``harness.suite.shapes.SpecTokenizer``): a token
    list, ``tokenizers.Tokenizer`` (``get_vocab``, ``id_to_token``, ``get_added_tokens_decoder``)
    and ``transformers`` (``convert_ids_to_tokens``, ``all_special_ids``, ...).
    Invariant: ids are ``range(len(tokens))`` and every special id is one of them."""

    def __init__(self, tokens, special_ids=()):
        self.tokens, self.special_ids = list(tokens), sorted({int(i) for i in special_ids})
        if any(not 0 <= i < len(self.tokens) for i in self.special_ids):
            raise ValueError(f"RecordedTokenizer: special ids {self.special_ids} outside 0..{len(self.tokens) - 1}")

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, i):
        return self.tokens[i]

    def __iter__(self):
        return iter(self.tokens)

    vocab_size = property(__len__)

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.tokens)}

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        return len(self.tokens)

    def id_to_token(self, i: int):
        return self.tokens[i] if 0 <= i < len(self.tokens) else None

    def token_to_id(self, token: str):
        return self.get_vocab().get(token)

    def get_added_tokens_decoder(self) -> dict:
        from types import SimpleNamespace

        return {i: SimpleNamespace(content=self.tokens[i], special=True) for i in self.special_ids}

    added_tokens_decoder = property(get_added_tokens_decoder)

    @property
    def all_special_ids(self) -> list[int]:
        return list(self.special_ids)

    @property
    def all_special_tokens(self) -> list[str]:
        return [self.tokens[i] for i in self.special_ids]

    def convert_ids_to_tokens(self, ids):
        return self.tokens[ids] if isinstance(ids, int) else [self.tokens[i] for i in ids]


# ---------------------------------------------------------------- Constraint's constructor

CONSTRAINT_SHAPES = (
    ("Constraint(index)", lambda cls, index: cls(index)),
    ("Constraint(index, 0)", lambda cls, index: cls(index, 0)),
    ("Constraint(index=index)", lambda cls, index: cls(index=index)),
)
"""The reasonable shapes, in the order they are tried (name, build(cls, index))."""


def build_constraint(cls, index, known: str | None = None):
    """``(constraint, shape name)``: a fresh ``Constraint`` at the start state built by
    ``known`` (a name of ``CONSTRAINT_SHAPES`` that worked before) or else by the first
    shape the class accepts. Raises TypeError listing every shape tried when none works."""
    shapes = [s for s in CONSTRAINT_SHAPES if s[0] == known] if known else list(CONSTRAINT_SHAPES)
    errors = []
    for name, build in shapes:
        try:
            return build(cls, index), name
        except TypeError as exc:
            errors.append(f"{name}: {type(exc).__name__}: {str(exc).strip()[:120]}")
    raise TypeError("Constraint could not be built by any reasonable shape (the spec gives no constructor): "
                    + "; ".join(errors))


# ---------------------------------------------------------------- regex syntax


def uses_extra_syntax(pattern: str) -> bool:
    """Whether ``pattern`` spells something the spec does not list (``(?:...)``,
    ``\\xHH``, an empty branch or pattern, ``{0}``)."""
    return (pattern == "" or pattern.startswith("|") or pattern.endswith("|")
            or any(marker in pattern for marker in REGEX_EXTRA_MARKERS))


PYTHON_ONLY_CONSTRUCTS = frozenset({"inline flag", "possessive quantifier", "named group", "comment",
                                    "atomic group", "conditional group"})
"""Refused constructs of ``facts.constructs`` that Python's ``re`` reads (where its version
does) and the spec does not name: refusing them is the contract's decision."""


def python_only_construct(construct: str, pattern: str) -> bool:
    """Whether a refusal of ``pattern`` (its ``construct``) is the contract's decision rather
    than the spec's: a construct outside ``SPEC_REGEX_CATEGORIES`` that this Python's
    ``re`` compiles."""
    if construct in SPEC_REGEX_CATEGORIES or construct not in PYTHON_ONLY_CONSTRUCTS:
        return False
    try:
        re.compile(pattern.encode("ascii"))
    except (re.error, UnicodeEncodeError):
        return False
    return True


def pick(rng: np.random.Generator, items):
    """``rng.choice(items)`` for a non-empty 1-D sequence ``items``: the same item and the same
    generator state after it (``choice`` draws ``rng.integers(0, len(items))``, which
    tests/golden/test_readings.py checks against ``choice`` itself), without ``choice``'s
    argument checks: ~4 us a draw instead of ~23 (the catalogue draws some 20,000 a check)."""
    return items[rng.integers(0, len(items))]


def by_length(strings) -> list[bytes]:
    """``strings`` sorted by length, then bytes: ``sorted(strings, key=lambda s: (len(s), s))``,
    made as a sort then a stable sort by ``len`` (keys C computes, no tuple a string: a third
    of the time; the catalogue sorts some 70,000 probe strings a check)."""
    return sorted(sorted(strings), key=len)


_ONE_BYTE = [bytes([b]) for b in range(256)]


def probe_strings(trans: np.ndarray, accept: np.ndarray, rng: np.random.Generator, walks: int = 25) -> set[bytes]:
    """Random walks of the DFA (stopping at accepting states with some chance), every
    prefix of each, one-byte edits (substitute, insert, delete, and a sweep of one
    position through all 256 bytes), and random bytes."""
    trans, accept = np.asarray(trans), np.asarray(accept)
    out: set[bytes] = set()
    live = [np.flatnonzero(row != DEAD) for row in trans]
    for _ in range(walks):
        state, text = 0, bytearray()
        for _ in range(int(rng.integers(0, 24))):
            if (accept[state] and rng.random() < 0.25) or len(live[state]) == 0:
                break
            byte = int(pick(rng, live[state]))
            text.append(byte)
            state = int(trans[state, byte])
        word = bytes(text)
        out.update(word[:i] for i in range(len(word) + 1))
        out.update(_edits(word, rng))
        if word and len(out) < 4000:  # a byte sweep: one position through all 256 bytes, so a
            i = int(rng.integers(0, len(word)))  # class missing one byte (\w without _) shows
            head, tail = word[:i], word[i + 1:]
            out.update([head + one + tail for one in _ONE_BYTE])
    out.update(bytes(rng.integers(0, 256, size=int(rng.integers(0, 6))).astype(np.uint8)) for _ in range(20))
    return out


def _edits(word: bytes, rng: np.random.Generator) -> list[bytes]:
    special = [0, 10, 95, 127, 128, 255, int(rng.integers(256))]  # NUL, \n, _, DEL, high bytes
    edits = []
    for _ in range(4):
        i = int(rng.integers(0, len(word) + 1))
        byte = int(pick(rng, special)) if rng.random() < 0.5 else int(rng.integers(256))
        edits.append(word[:i] + bytes([byte]) + word[i + 1:])  # substitute (or append at the end)
        edits.append(word[:i] + bytes([byte]) + word[i:])      # insert
        if word:
            edits.append(word[:i] + word[i + 1:])              # delete
    return edits


def _walk(trans, data: bytes) -> int:
    state = 0
    for byte in data:
        state = int(trans[state, byte])
        if state == DEAD:
            return DEAD
    return state


def first_disagreement_with_re(pattern: str, trans, accept, seed: int = 3, extra: tuple[bytes, ...] = ()
                               ) -> bytes | None:
    """The first probe string (shortest first; ``extra`` ones too) on which a table and
    ``re.fullmatch`` of ``pattern`` differ, or None."""
    trans, accept = np.asarray(trans), np.asarray(accept)
    oracle = re.compile(pattern.encode("ascii"))
    probes = probe_strings(trans, accept, np.random.default_rng(seed), walks=6) | set(extra)
    for data in by_length(probes):
        state = _walk(trans, data)
        if (oracle.fullmatch(data) is not None) != (state != DEAD and bool(accept[state])):
            return data
    return None


# ---------------------------------------------------------------- compact JSON


def compact_readings(value) -> dict[str, str]:
    """The two readings of the spec's compact JSON of ``value`` (see the module doc)."""
    return {"raw": json.dumps(value, separators=(",", ":"), ensure_ascii=False),
            "ascii": json.dumps(value, separators=(",", ":"))}


def readings_differ(schema) -> bool:
    """Whether some ``enum``/``const`` value or property name of ``schema`` is written
    differently by the two readings (non-ASCII or DEL in it)."""
    if isinstance(schema, list):
        return any(readings_differ(s) for s in schema)
    if not isinstance(schema, dict):
        return False
    values = [*schema.get("enum", []), *([schema["const"]] if "const" in schema else [])]
    names = list(schema.get("properties", {})) if isinstance(schema.get("properties"), dict) else []
    if any(len(set(compact_readings(v).values())) > 1 for v in [*values, *names]):
        return True
    subs = [*(schema.get("properties") or {}).values(), schema.get("items"), *(schema.get("anyOf") or [])]
    return any(readings_differ(s) for s in subs if s is not None)


def ascii_reading_regex(schema) -> str:
    """The reference's regex for ``schema`` with every enum/const value and property name
    written as the spec's literal call writes it (``ensure_ascii``): the language an
    implementation following that reading must have. Grader-side only (trusted code)."""
    from unittest import mock

    from oracles.automaton import schema as reference_schema

    def ascii_compact(value):
        return json.dumps(value, separators=(",", ":"), allow_nan=False)

    with mock.patch.object(reference_schema, "compact", ascii_compact):
        return reference_schema.json_schema_to_regex(schema)


def decided_schema_constructs(schema) -> list[str]:
    """The contract decisions a schema relies on (keys of ``harness.suite.tiers``): an
    annotation (``title``, ``description``, ...) anywhere (the spec also allows refusing
    it with ValueError), or ``enum``/``const`` next to ``type`` anywhere (the spec is silent)."""
    found: set[str] = set()

    def visit(node) -> None:
        if not isinstance(node, dict):
            return
        if set(node) & ANNOTATIONS:
            found.add("annotations_accepted")
        if "type" in node and ("enum" in node or "const" in node):
            found.add("type_with_enum")
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        for sub in (*props.values(), node.get("items"), *(node.get("anyOf") or [])):
            visit(sub)

    visit(schema)
    return sorted(found)


ANNOTATIONS = frozenset({"title", "description", "$comment", "$schema", "examples", "default"})
"""Keywords that constrain nothing (the contract's ``annotations_accepted``)."""


def closed(schema):
    """``schema`` with ``additionalProperties: false`` on every object: the spec's object
    language holds only the listed properties ("each property at most once, in the order
    given"), while JSON Schema leaves an object without the keyword open."""
    if isinstance(schema, list):
        return [closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: (closed(v) if k in ("items", "anyOf") else v) for k, v in schema.items()}
    if "properties" in schema:
        out["properties"] = {k: closed(v) for k, v in schema["properties"].items()}
    if schema.get("type") == "object":
        out.setdefault("additionalProperties", False)
    return out


RAW_DEL = "a raw DEL (0x7F) in a string: the spec's string character is printable ASCII, so DEL only as \\u007f"


def free_string_holds_del(schema, value) -> bool:
    """Whether a string of ``value`` that no ``enum``/``const`` spells holds a raw DEL. The
    spec's string character is "printable ASCII except \" and \\, or a well-formed UTF-8
    sequence of 2 to 4 bytes": DEL (0x7F) is neither, so such a string is in the language
    only as ``\\u007f``, although Python's compact dump writes DEL raw. (An enum or const
    value is spelled as its compact JSON: ``--deep``'s enum reading decides it.) Under ``anyOf``
    the value is out only if every branch that takes it holds such a string."""
    if not isinstance(schema, dict) or "enum" in schema or "const" in schema:
        return False
    if "anyOf" in schema:
        import jsonschema  # here: the other readings need no validator

        takers = [b for b in schema["anyOf"] if jsonschema.Draft202012Validator(closed(b)).is_valid(value)]
        return bool(takers) and all(free_string_holds_del(b, value) for b in takers)
    if isinstance(value, str):
        return "\x7f" in value
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return any(free_string_holds_del(props.get(k, {}), v) for k, v in value.items())
    if isinstance(value, list):
        items = schema.get("items", {})
        return any(free_string_holds_del(items, v) for v in value)
    return False
