"""One table of the regex constructs and schema keywords the specs support or refuse.

Every refusal test, the golden file's refusals and the strategies draw from here:

- ``REGEX_REFUSALS``: patterns that must be refused, one row each: the construct it
  shows, what kind of refusal it is, where the construct starts, and which lists
  name it (``listed``). Spec 000 section 2 lists the subset (literals, escapes,
  classes, ``.``, groups, ``|``, ``* + ? {m} {m,} {m,n}``) and its section 4 test
  refuses "anchors, backreferences, lookarounds, lazy quantifiers, non-ASCII, bad
  repeats, empty language"; spec 002 section 4's ``subset_errors_are_refused`` reads
  15 of them from the golden file.
- ``REGEX_SUPPORTED``: spellings the spec names that must compile; ``REGEX_EXTRA``:
  Python syntax the spec does not list (accepting it with Python's meaning is a
  contract decision), and the markers that show it in a pattern.
- ``SCHEMA_KEYWORDS``, ``SCHEMA_TYPES``, ``SCHEMA_ANNOTATIONS``: spec 000 section 2.5's
  subset; ``SCHEMA_REFUSALS``: schemas outside it, one row each.

The lists a row can be on (``listed``):

- ``"l87"``: the Python module's catalogue test ``test_unsupported_syntax_raises``
  (spec 000 section 4: each row one of its categories; the catalogue grades these
  in the default tier);
- ``"port"``: the 15 patterns / 11 schemas of the port's ``subset_errors_are_refused``
  (spec 002 section 4), written to ``refused_patterns`` / ``refused_schemas`` of
  constrain_golden.json in table order;
- ``"port extra"``: refused by the same contract beyond those (``refused_extra``).

A row on no list is still refused by the contract: the project's own oracle tests
check every row (each oracle with its own error classes and words).

Kinds: ``"unsupported"`` (valid Python outside the subset), ``"malformed"`` (Python's
``re`` refuses it too; as 3.11 and later do on every Python, so a global flag past the
start is malformed, although 3.10 only warns), ``"empty"`` (the language is empty: no canonical DFA),
``"too large"`` (a repeat bound over ``MAX_REPEAT`` = 1000, the contract's cap).

Guarantees: patterns are unique; ``offset`` is where the construct the refusal names
starts, except for a malformed pattern, where it is Python's ``re.error.pos``, which
both oracles report (e.g. ``a{3,2}``: the repeat starts at 1, Python says 2, the
second bound; issue 25 made the reference agree); the golden rows keep the order and
the ``construct`` names the golden file records (``git diff golden/`` stays empty).

Example::

    >>> [(r.pattern, r.construct) for r in REGEX_REFUSALS if "port" in r.listed][:2]
    [('^a', 'anchor'), ('a$', 'anchor')]
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("unsupported", "malformed", "empty", "too large")
LISTS = ("l87", "port", "port extra")


@dataclass(frozen=True)
class RegexRefusal:
    """A pattern that must be refused. ``construct``: the kind of construct (the golden
    file's ``reason``), ``what``: this very spelling (e.g. ``"negative lookbehind"``)."""

    pattern: str
    construct: str
    what: str
    kind: str
    offset: int
    listed: tuple[str, ...] = ()


def _row(pattern: str, construct: str, what: str, kind: str, offset: int, *listed: str) -> RegexRefusal:
    return RegexRefusal(pattern, construct, what, kind, offset, listed)


U, M, E, L = "unsupported", "malformed", "empty", "too large"

REGEX_REFUSALS: tuple[RegexRefusal, ...] = (
    # -- on the specs' lists: the port's 15 in golden order, the catalogue's in its order
    _row("^a", "anchor", "anchor ^", U, 0, "port"),
    _row("^ab", "anchor", "anchor ^", U, 0, "l87"),
    _row("a$", "anchor", "anchor $", U, 1, "port"),
    _row("ab$", "anchor", "anchor $", U, 2, "l87"),
    _row(r"\Aab", "anchor", r"anchor \A", U, 0, "l87"),
    _row(r"ab\Z", "anchor", r"anchor \Z", U, 2, "l87"),
    _row(r"\bword", "anchor", r"word boundary \b", U, 0, "port"),
    _row(r"a\bb", "anchor", r"word boundary \b", U, 1, "l87"),
    _row(r"a\Bb", "anchor", r"word boundary \B", U, 1, "l87"),
    _row(r"(a)\1", "backreference", "backreference", U, 3, "port", "l87"),
    _row(r"(?P<x>a)(?P=x)", "named group", "named backreference", U, 0, "l87"),
    _row("a(?=b)", "lookahead", "lookahead", U, 1, "port"),
    _row("(?=a)a", "lookahead", "lookahead", U, 0, "l87"),
    _row("(?!a)b", "lookahead", "negative lookahead", U, 0, "l87"),
    _row("(?<=a)b", "lookbehind", "lookbehind", U, 0, "l87"),
    _row("(?<!a)b", "lookbehind", "negative lookbehind", U, 0, "port", "l87"),
    _row("a*?", "lazy quantifier", "lazy *", U, 2, "port", "l87"),
    _row("a+?", "lazy quantifier", "lazy +", U, 2, "l87"),
    _row("a??", "lazy quantifier", "lazy ?", U, 2, "l87"),
    _row("a{1,2}?", "lazy quantifier", "lazy {m,n}", U, 6, "port", "l87"),
    _row("(?i)a", "inline flag", "inline flags (?i)", U, 0, "port"),
    _row("\u00e9", "non-ASCII character", "non-ASCII literal", U, 0, "port"),
    _row("caf\u00e9", "non-ASCII character", "non-ASCII literal", U, 3, "l87"),
    _row("[\u00e9]", "non-ASCII character", "non-ASCII in a class", U, 1, "l87"),
    _row("a{3,2}", "bad repeat bounds", "bad repeat {3,2}", M, 2, "port", "l87"),
    _row("*a", "nothing to repeat", "nothing to repeat", M, 0, "port", "l87"),
    _row("(ab", "unbalanced group", "unbalanced (", M, 0, "port", "l87"),
    _row("ab)", "unbalanced group", "unbalanced )", M, 2, "l87"),
    _row("[ab", "unclosed class", "unclosed [", M, 0, "l87"),
    _row(r"[^\x00-\xff]", "empty language", "empty language", E, 0, "port", "l87"),
    _row(r"a[^\x00-\xff]b", "empty language", "empty language inside a concatenation", E, 0, "l87"),
    _row(r"a[^\d\D]b|[^\s\S]", "empty language", "empty language in every branch", E, 0, "port"),
    # -- refused_extra of the golden file, in its order
    _row(r"\Aa", "anchor", r"anchor \A", U, 0, "port extra"),
    _row(r"a\Z", "anchor", r"anchor \Z", U, 1, "port extra"),
    _row("a++", "possessive quantifier", "possessive +", U, 2, "port extra"),
    _row("(?P<n>a)", "named group", "named group", U, 0, "port extra"),
    _row("(?#note)a", "comment", "comment", U, 0, "port extra"),
    _row("[a-", "unclosed class", "unclosed [ after a range's dash", M, 0, "port extra"),
    # -- the project's own oracle tests: the rest of the border
    _row(r"\ba", "anchor", r"word boundary \b", U, 0),
    _row(r"a\B", "anchor", r"word boundary \B", U, 1),
    _row("(?P<n>a)(?P=n)", "named group", "named backreference", U, 0),
    _row("a(?!b)", "lookahead", "negative lookahead", U, 1),
    _row("a*+", "possessive quantifier", "possessive *", U, 2),
    _row("(?#c)a", "comment", "comment", U, 0),
    _row("(?>a)", "atomic group", "atomic group", U, 0),
    _row("a(?i:b)", "inline flag", "scoped inline flags", U, 1),
    _row("(?x)a b", "inline flag", "verbose flag", U, 0),
    _row("a(?i)b", "global flag past the start", "a global flag past the start (3.10 reads it)", M, 1),
    _row("a(?!)", "lookahead", "an empty negative lookahead (3.13 parses it as FAILURE)", U, 1),
    _row("(a)(?(1)b|c)", "conditional group", "conditional group", U, 3),
    _row("a{1001}", "repeat over the cap", "a bound over MAX_REPEAT", L, 1),
    _row("ab{2}c{0,5000}", "repeat over the cap", "an upper bound over MAX_REPEAT", L, 6),
    _row(r"\5a", "bad group reference", "a reference to no group", M, 1),
    _row("(?4a)", "unknown extension", "unknown extension (?4", M, 1),
    _row(r"(a\1)", "bad group reference", "a reference to an open group", M, 2),
    _row("a|+", "nothing to repeat", "nothing to repeat after |", M, 2),
    _row("a**", "multiple repeat", "multiple repeat", M, 2),
    _row("[z-a]", "bad character range", "bad character range", M, 1),
    _row(r"\q", "bad escape", "unknown escape", M, 0),
    _row(r"\x4", "bad escape", r"incomplete \x escape", M, 0),
    _row(r"[^\s\S]", "empty language", "empty language", E, 0),
    _row(r"a[^\s\S]b", "empty language", "empty language inside a concatenation", E, 0),
)



@dataclass(frozen=True)
class NewerReading:
    """A pattern Python reads differently before version ``since``: the answer both front
    ends give on every Python, the newest Python's. ``python_says``: that Python's
    ``re.error`` message (None: it compiles the pattern); ``kind``: ``"malformed"`` or
    ``"unsupported"``; ``offset``: where (Python's ``re.error.pos`` when malformed)."""

    pattern: str
    python_says: str | None
    kind: str
    offset: int
    since: tuple[int, int]


READ_AS_NEWER_PYTHONS: tuple[NewerReading, ...] = (
    # 3.11: possessive quantifiers, atomic groups, a global flag past the start refused (3.10 warns)
    NewerReading("a(?i)b", "global flags not at the start of the expression", M, 1, (3, 11)),
    NewerReading("a*+?", "multiple repeat", M, 3, (3, 11)),      # 3.10, the + dropped, would read a lazy a*?
    NewerReading("a*+?\\", "bad escape (end of pattern)", M, 4, (3, 11)),  # the tokenizer reads one ahead
    NewerReading("a+?+", "multiple repeat", M, 3, (3, 11)),      # a lazy repeat, then +: not possessive
    NewerReading("a??+", "multiple repeat", M, 3, (3, 11)),
    NewerReading("x{1,2}?+", "multiple repeat", M, 7, (3, 11)),
    NewerReading("a*++", "multiple repeat", M, 3, (3, 11)),
    NewerReading("(?>a)*+?", "multiple repeat", M, 7, (3, 11)),
    NewerReading("(?x)a+?\n+a", "multiple repeat", M, 8, (3, 11)),  # possessive only right after its repeat
    NewerReading("a?+", None, U, 2, (3, 11)),                    # a possessive ?
    NewerReading("\\??+", None, U, 3, (3, 11)),
    NewerReading("(?>a+?)", None, U, 0, (3, 11)),
    # 3.12: a conditional group's name must be an identifier or ASCII digits (3.10, 3.11: int() of it)
    NewerReading("(a)(?(+1)a|b)", "bad character in group name '+1'", M, 6, (3, 12)),
    NewerReading("(a)(?( 1)b)", "bad character in group name ' 1'", M, 6, (3, 12)),
    NewerReading("^(a)(?(+1)b)", "bad character in group name '+1'", M, 7, (3, 12)),
    NewerReading("(?x)(a) (?(+1)b)", "bad character in group name '+1'", M, 11, (3, 12)),
    NewerReading("(?x)#(?(+1)\n(a)", None, U, 0, (3, 12)),        # in a comment: no name
    NewerReading("(a)(?(01)b)", None, U, 3, (3, 12)),
    # 3.13: no TEMPLATE flag t (3.10-3.12: (?t) a global flag, (?t:a) one turned on in a group)
    NewerReading("(?t)", "unknown extension ?t", M, 1, (3, 13)),
    NewerReading("(?t:a)", "unknown extension ?t", M, 1, (3, 13)),
    NewerReading("a(?t)", "unknown extension ?t", M, 2, (3, 13)),
    NewerReading("(?it)", "unknown flag", M, 3, (3, 13)),
    NewerReading("(?i-t:a)", "unknown flag", M, 4, (3, 13)),
    NewerReading("(?x)[(?t)](?t)", "unknown extension ?t", M, 11, (3, 13)),  # in a class: literal
)
"""Where Python's versions read a pattern differently, the newest reading, which the reference
(``parser.python_refuses``) and the derivative oracle (``frontend._python_tree``) give on every
Python. Python itself checks each row from version ``since`` (tests/oracles/test_regex.py); on 3.10 the
derivative oracle's possessive and atomic readings are its Python's (malformed), as documented."""

SPEC_REGEX_CATEGORIES = frozenset({"anchor", "backreference", "lookahead", "lookbehind", "lazy quantifier",
                                   "non-ASCII character", "bad repeat bounds", "nothing to repeat",
                                   "empty language"})
"""Spec 000 section 4, test_unsupported_syntax_raises: "anchors, backreferences, lookarounds,
lazy quantifiers, non-ASCII, bad repeats, empty language" (nothing to repeat: a bad repeat)."""

REGEX_SUPPORTED = (r"\.\*\+\?\(\)\[\]\{\}\|\\", "a{2,}")
"""Spellings spec 000 names that a reader might doubt: escaped metacharacters, ``{m,}``."""
REGEX_EXTRA = ("(?:ab)+", "a|", r"\x41[\d_-]", "[]a]", "a{0}b")
"""Python syntax the specs do not list: accepting it with Python's meaning is a contract decision."""
REGEX_EXTRA_MARKERS = ("(?:", "\\x", "|)", "(|", "||", "{0}", "{0,0}")
"""How those spellings show in generated or recorded patterns (an empty branch, ``\\xHH``, ...)."""
REGEX_OVER_THE_CAP = ("a{1000000000}",)
"""A bound over any sane cap: refused by the contract's decision (the spec sets no cap)."""


# --------------------------------------------------------------------------- schemas

SCHEMA_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties", "items", "minItems",
                             "maxItems", "enum", "const", "anyOf"})
"""Spec 000 section 2.5's subset (``additionalProperties`` only as false)."""
SCHEMA_ANNOTATIONS = frozenset({"title", "description"})
"""Keywords that constrain nothing: refused or accepted without changing the language."""
SCHEMA_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})


@dataclass(frozen=True)
class SchemaRefusal:
    """A schema outside the subset. ``name``: the golden file's name for it (snake case);
    ``what``: what breaks the subset, in words; ``pointer``: the JSON pointer of it
    (``""`` for the schema itself; None where two keywords break it and either may be named)."""

    name: str
    schema: dict
    what: str
    pointer: str | None
    listed: tuple[str, ...] = ()


def _schema(name: str, schema: dict, what: str, pointer: str | None, *listed: str) -> SchemaRefusal:
    return SchemaRefusal(name, schema, what, pointer, listed)


_INT = {"type": "integer"}
_STR = {"type": "string"}
_NULL = {"type": "null"}

SCHEMA_REFUSALS: tuple[SchemaRefusal, ...] = (
    # -- on the specs' lists: the port's 11 and 3 extra in golden order, the catalogue's in its order
    _schema("pattern", {"type": "string", "pattern": "^a"}, "pattern", "/pattern", "port"),
    _schema("pattern_plus", {"type": "string", "pattern": "a+"}, "pattern", "/pattern", "l87"),
    _schema("max_length", {"type": "string", "maxLength": 3}, "maxLength", "/maxLength", "port extra", "l87"),
    _schema("min_length", {"type": "string", "minLength": 1}, "minLength", "/minLength", "port", "l87"),
    _schema("format", {"type": "string", "format": "date"}, "format", "/format", "l87"),
    _schema("minimum", {"type": "integer", "minimum": 0}, "minimum", "/minimum", "port extra", "l87"),
    _schema("unique_items", {"type": "array", "items": _STR, "uniqueItems": True}, "uniqueItems", "/uniqueItems",
            "port extra", "l87"),
    _schema("ref_defs_string", {"$ref": "#/$defs/x", "$defs": {"x": _STR}}, "$ref", None, "l87"),
    _schema("ref", {"$ref": "#/$defs/a", "$defs": {"a": _INT}}, "$ref", None, "port"),
    _schema("additional_properties_true_string", {"type": "object", "properties": {"a": _STR},
                                                  "additionalProperties": True},
            "additionalProperties: true", "/additionalProperties", "l87"),
    _schema("additional_properties_true", {"type": "object", "properties": {"a": _INT}, "additionalProperties": True},
            "additionalProperties: true", "/additionalProperties", "port"),
    _schema("additional_properties_schema_string", {"type": "object", "properties": {"a": _STR},
                                                    "additionalProperties": _STR},
            "additionalProperties: a schema", "/additionalProperties", "l87"),
    _schema("unknown_required_string", {"type": "object", "properties": {"a": _STR}, "required": ["b"]},
            "required name not in properties", "/required/0", "l87"),
    _schema("unknown_required", {"type": "object", "properties": {"a": _INT}, "required": ["b"]},
            "required name not in properties", "/required/0", "port"),
    _schema("unknown_type_float", {"type": "float"}, "unknown type", "/type", "l87"),
    _schema("unknown_type", {"type": "date"}, "unknown type", "/type", "port"),
    _schema("unknown_type_nested", {"type": "object", "properties": {"a": {"type": "strin"}}},
            "unknown type, nested", "/properties/a/type", "l87"),
    _schema("one_of", {"oneOf": [_NULL, _INT]}, "oneOf", "/oneOf", "l87"),
    _schema("all_of_one", {"allOf": [_INT]}, "allOf", "/allOf", "l87"),
    _schema("not", {"not": _NULL}, "not", "/not", "l87"),
    _schema("nested_pattern", {"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}},
            "a nested pattern", "/properties/a/pattern", "l87"),
    _schema("max_length_in_items", {"type": "array", "items": {"type": "string", "maxLength": 2}},
            "maxLength inside items", "/items/maxLength", "l87"),
    _schema("min_length_in_any_of", {"anyOf": [_NULL, {"type": "string", "minLength": 2}]},
            "minLength inside anyOf", "/anyOf/1/minLength", "l87"),
    _schema("unknown_keyword", {"type": "string", "x-unknown": 1}, "an unknown keyword", "/x-unknown", "l87"),
    _schema("type_list", {"type": ["string", "null"]}, "a list of types", "/type", "port"),
    _schema("empty_enum", {"enum": []}, "an empty enum", "/enum", "port"),
    _schema("nested_format", {"type": "object", "properties": {"a": {"type": "string", "format": "email"}}},
            "a nested format", "/properties/a/format", "port"),
    _schema("min_over_max", {"type": "array", "items": _INT, "minItems": 3, "maxItems": 2},
            "minItems over maxItems", "/maxItems", "port"),
    _schema("all_of", {"allOf": [_INT, {"type": "number"}]}, "allOf", "/allOf", "port"),
    # -- the project's own tests: the rest of the border
    _schema("ref_alone", {"$ref": "#/$defs/a"}, "$ref", "/$ref"),
    _schema("additional_properties_schema", {"type": "object", "properties": {"a": _INT},
                                             "additionalProperties": _STR},
            "additionalProperties: a schema", "/additionalProperties"),
    _schema("unknown_type_typo", {"type": "strin"}, "unknown type", "/type"),
    _schema("unknown_type_nested_float", {"type": "object", "properties": {"a": {"type": "float"}}},
            "unknown type, nested", "/properties/a/type"),
    _schema("unique_items_integers", {"type": "array", "items": _INT, "uniqueItems": True}, "uniqueItems",
            "/uniqueItems"),
    _schema("format_in_items", {"type": "array", "items": {"type": "integer", "format": "x"}}, "format in items",
            "/items/format"),
    _schema("array_without_items", {"type": "array"}, "an array without items", ""),
    _schema("min_over_max_null", {"type": "array", "items": _NULL, "minItems": 3, "maxItems": 2},
            "minItems over maxItems", "/maxItems"),
    _schema("one_of_one", {"oneOf": [_NULL]}, "oneOf", "/oneOf"),
    _schema("all_of_null", {"allOf": [_NULL]}, "allOf", "/allOf"),
    _schema("empty_schema", {}, "an empty schema (any JSON value)", ""),
    _schema("max_length_in_any_of", {"anyOf": [_NULL, {"type": "string", "maxLength": 2}]},
            "maxLength inside anyOf", "/anyOf/1/maxLength"),
    _schema("const_of_another_type", {"type": "object", "properties": {"a/b": {"type": "null", "const": 1}}},
            "a const not of its type", "/properties/a~1b/const"),
    _schema("enum_not_json", {"enum": [float("nan")]}, "a value that is not JSON", "/enum/0"),
)

SPEC_SCHEMA_CATEGORIES = frozenset({"pattern", "min_length", "ref", "additional_properties_true",
                                    "unknown_required", "unknown_type"})
"""Spec 000 section 2.5: "pattern, minLength, $ref, additionalProperties: true"; and the
subset's own edges: required names that are no property, unknown types."""


def regex_refusals(*lists: str) -> list[RegexRefusal]:
    """The rows on any of ``lists`` (all rows when none is given), in table order."""
    unknown = set(lists) - set(LISTS)
    if unknown:
        raise ValueError(f"regex_refusals: unknown lists {sorted(unknown)}; expected some of {LISTS}")
    return [r for r in REGEX_REFUSALS if not lists or set(r.listed) & set(lists)]


def schema_refusals(*lists: str) -> list[SchemaRefusal]:
    """The schema rows on any of ``lists`` (all rows when none is given), in table order."""
    unknown = set(lists) - set(LISTS)
    if unknown:
        raise ValueError(f"schema_refusals: unknown lists {sorted(unknown)}; expected some of {LISTS}")
    return [r for r in SCHEMA_REFUSALS if not lists or set(r.listed) & set(lists)]
