"""Seeded inputs shared by the catalogue tests: the spec's hand example, the pattern
lists, a small seeded pattern generator, vocabularies and the tool schema.

Everything here is data or a pure function of a ``numpy.random.Generator`` seeded by
the caller, so every run sees the same inputs. Nothing here is computed by an
implementation under test.

Example::

    >>> rng = np.random.default_rng(0)
    >>> random_pattern(rng)            # e.g. '(b|[^a])*c?'
    '...'
"""

from __future__ import annotations

import numpy as np

from facts import hand as _hand
from facts.constructs import REGEX_EXTRA, REGEX_EXTRA_MARKERS, REGEX_OVER_THE_CAP, REGEX_SUPPORTED, regex_refusals
from facts.hand import HAND_EOS, HAND_MASKS, HAND_PATTERN  # noqa: F401 (the catalogue's names)
from golden import readings
from harness.suite import oracle_memo
from harness.suite.explain import fail
from harness.suite.tiers import record

# ---------------------------------------------------------------- the spec's section 3

# pattern, table, vocabulary and mask table: facts.hand (written once); the shapes used here
HAND_ACCEPT = list(_hand.HAND_ACCEPT)  # a list: compared with an implementation's accept.tolist()
# ids 0..14: c a t r d o g s ca cat dog ts x <eos> ""; EOS is 13 (a special: no bytes)
HAND_VOCAB = _hand.hand_vocab()
hand_trans = _hand.hand_trans  # the spec's hand table as an int32 [7, 256] array (DEAD = -1 elsewhere)


# ---------------------------------------------------------------- patterns

# test_matches_python_re: ten patterns chosen so each of pitfalls 1 and 6 changes the
# answer on some string (comment: the construct each one exercises).
RE_PATTERNS = (
    "(cat|car|dog)s?",                 # the hand example
    "a.c",                             # . is any byte but \n (s01)
    "[^abc]+",                         # negation over all 256 bytes (s02)
    r"\w+@\w+\.com",                   # \w includes _ (s08)
    "[a-f0-9]{2,4}",                   # range upper ends (s11), bounded repeat (s09)
    "(ab|c)+d*",                       # + is one or more (s10)
    "x{2,3}y?z{2,}",                   # {m,n} (s09) and {m,} (s21)
    r"\d{1,3}(\.\d{1,3}){3}",          # dotted quad, \d
    r"[\s,]*-?\d+\S?",                 # \s, \S
    r'"([^"\\\n]|\\.)*"',              # a quoted string with escapes
)

LONG_PATTERNS = ("a{70}", "a{65,}", "x" * 80, "[0-9]{1,80}", "(abc){30}d?", "(a|bc){0,70}", "(a|b){0,66}c",
                 "(ab|c){40}", "[^a]{3,70}b", "(a|b)*a(a|b){6}")
"""Patterns whose minimal DFA is long (65 to 141 states, chains of up to 90 bytes): minimizing
one takes more splitting rounds than any pattern the properties draw (``max_leaves=10``), so an
implementation may take another path for them (the reference: Hopcroft's algorithm once Moore's
rounds pass a bound)."""

MALFORMED_PATTERNS = (r"[b-a]", r"[\d-z]", r"[a-\d]", r"a\q", r"[\q]", "a\\", r"\x4", r"\x4g", r"[\x4]", r"\xz1",
                      r"\1", r"(a)\2", r"\11", r"\400", r"[\400]", r"(?z)", r"(?<a)", r"(?P<1a>x)", r"(?",
                      r"a{2}{3}", r"{2}", r"a|*", r"[\8]", r"(?iz)", r"(?-z:a)", "[(]" * 450 + "[(",
                      "[(]" * 450 + "[\\", "\\(" * 450 + "\\", r"[a-", r"[^a-", r"[\d-")
"""Patterns Python's ``re`` refuses as malformed: a bad range or escape, ``\\x`` without two hex
digits, a reference to no group, an octal escape past 0o377, an unknown extension or flag, a bad
group name, a repeat of a repeat or of nothing, a class or an escape left open at the end after 450
``(`` that open no group, and a class left open at a ``-`` (plain, negated, after a shorthand: the
``-``, the pattern's last character, starts no range) (``test_deep_parser_edge_cases_read_as_python``
asks ``re`` first)."""

NEWER_READING_VARIANTS = (
    "a++", "a*+", "a{2}+", "(?:ab)*+c", "[ab]?+b", "a*+b++", "a*+b**", "(?x)a* +b", "(?>a)", "(?>a|b)c",
    "(?>a)(?>b)*", "\u00e9*+", "\u00e9++?", "\u00e9*+?\\", "\u00e9+?+", "\u00e9??+", "(?>\u00e9)",
    "\u00e9(?i)b", "a(?s)b", "(?P<n>a)(?(n)b|c)", "(a)(?(1)b|c)", "(?(2)a)(b)", "(a)(?(\u0663)b)",
    "(?P<n>a)(?(n )b)", "(a)(?(-1)b)", "(?P=1a)")
"""Spellings beside ``facts.constructs.READ_AS_NEWER_PYTHONS`` that reach the same code of a reference
that reads them as the newest Python does on an older one: possessive repeats after ``*``, ``}``, ``?``
and a group, two in one pattern and one before a malformed repeat (the offsets mapped back), atomic
groups, a ``+`` after a blank in verbose mode, each of them in a non-ASCII (``str``) pattern, a global
flag past the start, conditionals named by a group name, a number, a non-ASCII digit, a name with a
blank or a sign, and a reference to a later group (``test_deep_newer_python_readings_as_this_python``
asks the running Python's ``re`` first)."""

BACKREFERENCE_PATTERNS = ((r"(a)(b)(c)(d)(e)(f)(g)(h)\8", "abcdefghh"),
                          (r"(a)(b)(c)(d)(e)(f)(g)(h)(i)\9", "abcdefghii"),
                          (r"(a)(b)(c)(d)(e)(f)(g)(h)(i)\8", "abcdefghih"))
"""(pattern, a text it matches as Python reads it): backreferences ``\\8`` and ``\\9`` after eight or
nine groups, which Python reads as a reference to the group (the text repeats the group's
letter; ``test_deep_parser_edge_cases_read_as_python`` asks ``re`` first). The spec lists
backreferences among the refused syntax ("no silent misreading"): ``\\8`` is never the literal
``8``."""

LITERAL_BRACE_PATTERNS = ("a{2", "a{", "{", "a{,", "a{1,", "a{x}", "a{,2", "x{1,2", "}", "a{2,1", "ab{", "a}{")
"""Patterns whose ``{`` starts no repeat (unterminated, or no digits): Python reads it as a literal."""

MANY_GROUPS_PATTERN = "(a)" * 450
"""450 groups side by side, none inside another: a nesting bound (the reference's is 400) must
count only the groups still open."""

# schemas JSON Schema's 2020-12 meta-schema refuses (asked of ``jsonschema`` by the test): a keyword's
# value of the wrong shape (a type that is no string, a bound that is no non-negative integer, properties
# that are no object, required that is no array of unique strings, an anyOf or enum that is no non-empty array)
SCHEMAS_THE_META_SCHEMA_REFUSES = (
    {"type": 5}, {"type": "array", "items": {"type": "null"}, "minItems": -1},
    {"type": "array", "items": {"type": "null"}, "maxItems": 2.5},
    {"type": "array", "items": {"type": "null"}, "minItems": "1"},
    {"type": "object", "properties": []},
    {"type": "object", "properties": {"a": {"type": "null"}}, "required": "a"},
    {"type": "object", "properties": {"a": {"type": "null"}}, "required": [1]},
    {"type": "object", "properties": {"a": {"type": "null"}}, "required": ["a", "a"]},
    {"anyOf": []}, {"anyOf": {"type": "null"}}, {"enum": "a"}, {"enum": {}},
    {"type": "null", "description": 5}, {"type": "null", "examples": "x"})
# Python values with no JSON text (``json.dumps(allow_nan=False)`` refuses them, or their compact JSON has no
# UTF-8: a lone surrogate); a non-string key, which ``json.dumps`` would silently turn into a string
SCHEMAS_WITH_NO_JSON = (
    {1: {"type": "null"}}, {"type": "object", "properties": {1: {"type": "null"}}},
    {"enum": [float("nan")]}, {"enum": [1, float("inf")]}, {"enum": [{1, 2}]}, {"const": b"a"},
    {"enum": [{1: "a"}]}, {"const": "\ud800"}, {"type": "object", "properties": {"\ud800": {"type": "null"}}},
    {"type": "null", "default": float("nan")})
# an integer past Python's default int-to-str limit (4,300 digits: ``sys.get_int_max_str_digits``): a JSON
# number by the grammar, which ``json.dumps`` will not write; refused with ValueError (a size bound the spec
# leaves to the implementation) or compiled exactly, its digits matched and its neighbour's not
HUGE_INTEGER = 10**4400 + 7
SCHEMA_ARGUMENTS_REFUSED = (5, None, "{}", [{"type": "null"}])
"""Arguments that are no dict (and no boolean schema): a wrong Python type for the call (TypeError)."""
# any JSON value (of an array's items, or at all): no regular language (nested brackets), so no regex
SCHEMAS_OF_ANY_VALUE = ({}, {"title": "any value"}, {"type": "array", "items": True})
# (schema, probe documents): keywords side by side that the subset names only alone: refused, or
# accepted with JSON Schema's meaning (each probe's verdict asked of ``jsonschema``), never one ignored
SCHEMAS_COMBINED = (
    ({"enum": [1, 2], "const": 1}, (1, 2, 3)), ({"enum": [1, 2], "const": 3}, (1, 2, 3)),
    ({"anyOf": [{"type": "null"}, {"type": "integer"}], "type": "null"}, (None, 1, "a")),
    ({"type": "string", "enum": [1, "a"]}, (1, "a")),
    ({"enum": ["a", [1]], "minItems": 2}, ("a", [1])),
    ({"type": "array", "items": False}, ([], [None])),
    ({"type": "array", "items": {"type": "null"}, "minItems": 3, "maxItems": 2}, ([], [None] * 2, [None] * 3)))

# (schema, probe documents): a type beside an enum or const whose values are all of that type (decision
# ``type_with_enum``: accepted), one per JSON type the reference checks a value against
TYPED_ENUM_SCHEMAS = (({"type": "null", "enum": [None]}, (None, 1)),
                      ({"type": "boolean", "const": False}, (False, True, 0)),
                      ({"type": "number", "enum": [1.5, 2]}, (1.5, 2, 3, "a")),
                      ({"type": "array", "enum": [[1]]}, ([1], [2])),
                      ({"type": "object", "const": {"a": 1}}, ({"a": 1}, {})))

PARENTHESES_IN_NO_GROUP_PATTERNS = tuple("|".join([branch] * n) for branch, n in (
    ("[(]", 500), ("[]((]", 250), ("[^]((]", 250), ("[\\]((]", 250), ("\\(", 500), ("[a\\(]", 500),
    ("[a(]", 500), ("x[]((]", 250), ("\\.[(]", 500), ("[(((]", 170), ("[(]x[((]", 170), ("x[(]x", 500),
    ("([(])", 500)))
"""Alternations holding 500 ``(`` or more, of which none opens a group: in a class (after a first ``]``, a
``^``, an escaped ``]``, a letter; classes at odd and even offsets, of odd and even lengths) or escaped;
and 500 groups side by side, each holding a class ``[(]``. A nesting bound that counts a ``(`` in a class
or escaped as an open group, or misses a ``)`` after a class, refuses a pattern of the subset (a few DFA
states each)."""


def bad_dfa_tables(trans: np.ndarray, accept: np.ndarray) -> list[tuple[str, object, object]]:
    """(what, trans, accept): tables that are no DFA's, each one change away from the good pair
    ``trans``/``accept`` (n >= 1 states): a target outside DEAD..n-1, a wrong shape, no state,
    ``accept`` not a 1-D array of 0/1, float tables, and a ragged ``trans`` (a nested list whose
    rows differ in length: numpy builds no table of it)."""
    n = len(accept)
    out = []
    for target, what in ((n, "a target one past the last state"), (n + 5, "a target past the last state"),
                         (-2, "a target below DEAD")):
        bad = trans.copy()
        bad[n - 1, 200] = target
        out.append((what, bad, accept))
    return out + [("trans of 255 columns", trans[:, :255].copy(), accept),
                  ("trans of 257 columns", np.hstack([trans, trans[:, :1]]), accept),
                  ("trans with a row too few", trans[:-1].copy(), accept),
                  ("trans with a row too many", np.vstack([trans, trans[:1]]), accept),
                  ("accept of two dimensions", trans, accept.reshape(1, n)),
                  ("no state at all", trans[:0].copy(), accept[:0].copy()),
                  ("accept of floats", trans, accept.astype(np.float64)),
                  ("accept holding a 2", trans, np.where(accept, 2, 0)),
                  ("accept of 1 and -1", trans, _with_minus_one(accept)),
                  ("trans of floats", trans.astype(np.float64), accept),
                  ("a ragged trans (n rows of 256 entries, then one of 255)",
                   trans.tolist() + [trans[0, :255].tolist()], accept)]


def _with_minus_one(accept: np.ndarray) -> np.ndarray:
    """``accept`` as the integers 1 and -1 (-1 for a state that does not accept, and for state 0
    always): -1 is neither 0 nor 1, and numpy would read it as True."""
    bad = np.where(accept, 1, -1).astype(np.int64)
    bad[0] = -1
    return bad


WRONG_STEP_ARGUMENTS = ((0.0, b"c"), (True, b"c"), ("0", b"c"), (0, "cat"), (0, [99]))
"""(state, data) of a wrong Python type for ``DFA.step``: a float, bool or str state; str or
list data."""

# test_canonical_form: five pairs of patterns with the same language (checked against
# Python's re by the test itself before they are used).
EQUIVALENT_PAIRS = (
    ("a|b", "[ab]"),
    ("(a|b)*", "[ab]*"),
    ("aa*", "a+"),
    ("(cat|car|dog)s?", "(ca[rt]|dog)s{0,1}"),
    ("(ab)*a", "a(ba)*"),
)

# test_unsupported_syntax_raises: (pattern, what it is), the rows of facts.constructs on the
# catalogue's list; the spec's table: "anchors, backreferences, lookarounds, lazy quantifiers,
# non-ASCII, bad repeats, empty language" (and what Python's re itself refuses: nothing to
# repeat, unbalanced groups). Every one must raise; ValueError is the contract's decision.
UNSUPPORTED = tuple((r.pattern, r.what) for r in regex_refusals("l87"))
# A bound over any sane cap: the contract decides it is refused (--strict only, see tiers).
OVER_THE_CAP = REGEX_OVER_THE_CAP
# Constructs the spec names (escaped metacharacters, {m,}: Python's own spelling).
SUPPORTED = REGEX_SUPPORTED
# Python syntax the spec does not list: accepted with Python's meaning is a contract decision.
EXTRA_SYNTAX = REGEX_EXTRA + ("(|a)b", "a(b||c)", "(?:a|)\\x62{0,0}c", "[\\x41-\\x43]{0}d")
# Python syntax the spec does not name and the contract refuses (facts.constructs' rows that
# Python's re reads): a refusal passes, Python's meaning is a note, another meaning fails.
PYTHON_ONLY_SYNTAX = tuple(r.pattern for r in regex_refusals()
                           if readings.python_only_construct(r.construct, r.pattern) and "l87" not in r.listed
                           and "(?P=" not in r.pattern)
# How those spellings show in generated or recorded patterns (the strategies and the
# golden file use them): a pattern holding one may be refused, as a note.
EXTRA_SYNTAX_MARKERS = REGEX_EXTRA_MARKERS
# Whether a pattern spells one of them: one definition for the catalogue and the golden replay.
uses_extra_syntax = readings.uses_extra_syntax


PATTERN_ATOMS = ("a", "b", "c", "[ab]", "[^a]", ".", r"\d", "[a-c]", "ab")
"""``random_pattern``'s atoms (literals, classes, ``.``, a two-byte literal), in its draw order."""
PATTERN_REPEATS = ("*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}")
"""``random_pattern``'s repeats (every greedy one of the subset), in its draw order."""


def repeat_shapes() -> tuple[str, ...]:
    """One repeat of each atom and each repeat of one atom, from ``random_pattern``'s grammar:
    every atom under ``*`` (``(a)*``, ``([^a])*``: each a one-state language but ``(ab)*``),
    then every other repeat of ``ab`` (``(ab)+``, ``(ab){0,2}``, ``(ab){2,}``), in a
    fixed order (15; every repeat of every atom, 63, cost ~0.2 CPU s more per check).

    The seed-independent floor under the random draws (issue 48): a mistake that shows on
    one repeat of an atom is found under every run seed, not by the draws of some. E.g. a
    compiler that calls a one-state language empty (``(a)*`` has one live state) failed
    ``test_every_state_is_live`` under 18 run seeds in 21: only where a random pattern
    happened to have one state (``docs/mutants-seed-stability.md``)."""
    return tuple(f"({atom})*" for atom in PATTERN_ATOMS) + tuple(f"(ab){op}" for op in PATTERN_REPEATS[1:])


def random_pattern(rng: np.random.Generator, depth: int = 3) -> str:
    """A small pattern of the subset: literals a b c, classes, ., concatenation,
    alternation and every greedy repeat."""
    if depth == 0 or rng.random() < 0.3:
        return str(readings.pick(rng, list(PATTERN_ATOMS)))
    kind = rng.integers(4)
    if kind == 0:
        return random_pattern(rng, depth - 1) + random_pattern(rng, depth - 1)
    if kind == 1:
        return f"({random_pattern(rng, depth - 1)}|{random_pattern(rng, depth - 1)})"
    op = str(readings.pick(rng, list(PATTERN_REPEATS)))
    return f"({random_pattern(rng, depth - 1)}){op}"


def random_patterns(seed: int, n: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [random_pattern(rng) for _ in range(n)]


# ---------------------------------------------------------------- expected answers

def expected_match(pattern: str, text: bytes) -> tuple[bool, str]:
    """Whether ``text`` is a member, and which oracle said so: Python's ``re.fullmatch``,
    or the derivative oracle when ``re`` ran past its CPU budget (``oracles/stdlib.py``)."""
    from oracles import derivatives
    from oracles.stdlib import fullmatch, within_cpu

    python = within_cpu(fullmatch, pattern, text)
    if python is not None:
        return python, "Python's re.fullmatch"
    try:
        return derivatives.matches(pattern, text), "the derivative oracle (re ran past its CPU budget)"
    except derivatives.LimitExceeded:
        from hypothesis import assume

        assume(False)  # neither oracle answers within its bound: not a verdict on the candidate


# ---------------------------------------------------------------- vocabularies


def random_vocab(rng: np.random.Generator, alphabet: bytes, n_multi: int = 120,
                 all_bytes: bool = True) -> tuple[list[bytes | None], int]:
    """A vocabulary: every single byte (when ``all_bytes``), ``n_multi`` multi-byte tokens
    drawn mostly from ``alphabet``, two specials (None), an empty token, and EOS at a
    seeded position in the middle of the id range. Returns (vocab, eos_id).
    (``random_vocab_drawn``; kept by the mutant runner's warm grader for the generator states
    a reference run drew from, with the state the draws leave: ``harness.suite.oracle_memo``.)"""
    return oracle_memo.answer("random_vocab", rng, alphabet, n_multi, all_bytes)


def random_vocab_drawn(rng: np.random.Generator, alphabet: bytes, n_multi: int = 120,
                       all_bytes: bool = True) -> tuple[list[bytes | None], int]:
    """``random_vocab``, drawn from ``rng`` (what ``oracle_memo`` keeps as ``"random_vocab"``)."""
    vocab: list[bytes | None] = [bytes([b]) for b in range(256)] if all_bytes else []
    pool = np.frombuffer(alphabet + b"\x00\n\xff", dtype=np.uint8)
    for _ in range(n_multi):
        length = int(rng.integers(2, 6))
        vocab.append(bytes(int(readings.pick(rng, pool)) if rng.random() < 0.9 else int(rng.integers(256))
                           for _ in range(length)))
    vocab += long_tokens(rng, alphabet)
    vocab += [None, b"", None]
    order = rng.permutation(len(vocab))
    vocab = [vocab[i] for i in order]
    eos_id = int(rng.integers(len(vocab) // 4, 3 * len(vocab) // 4))
    vocab.insert(eos_id, None)
    return vocab, eos_id


LONG_TOKEN_LENGTHS = (7, 8, 12, 16, 31, 64, 100, 130)
"""Real BPE vocabularies hold tokens of 100+ bytes (runs of spaces, dashes, repeated words):
masks that drop every token from some length on must show on the catalogue's vocabularies."""


def long_tokens(rng: np.random.Generator, alphabet: bytes) -> list[bytes]:
    """Tokens of every length of ``LONG_TOKEN_LENGTHS``, as runs a pattern can keep alive: one
    byte repeated, or a two-byte chunk repeated (both drawn from ``alphabet``)."""
    pool = np.frombuffer(alphabet, dtype=np.uint8)
    out = []
    for length in LONG_TOKEN_LENGTHS:
        one = bytes([int(readings.pick(rng, pool))])
        two = bytes(int(readings.pick(rng, pool)) for _ in range(2))
        out += [one * length, (two * length)[:length]]
    return out


def pattern_alphabet(pattern: str) -> bytes:
    """The literal bytes a pattern mentions, plus a few class members: where the
    interesting tokens are."""
    return bytes(sorted(set(pattern.encode("ascii")) | set(b"abc09 _-.,\"\\")))


# ---------------------------------------------------------------- JSON schemas

TOOL_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "units": {"enum": ["metric", "imperial"]},
        "lat": {"type": "number"},
        "alerts": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}


# ---------------------------------------------------------------- building a Constraint

# The spec gives Constraint no constructor: the reasonable shapes, in order (golden.readings,
# shared with the golden replay).
CONSTRAINT_SHAPES = readings.CONSTRAINT_SHAPES
_SHAPE: dict = {}  # the shape that worked, once per run: emptied as each catalogue session starts


def forget_constraint_shape() -> None:
    """Start a run with no ``Constraint`` shape known (``harness.suite.plugin``'s configure: a
    process may hold several catalogue sessions, each grading another candidate)."""
    _SHAPE.clear()


def known_constraint_shape() -> str | None:
    """The name of the ``CONSTRAINT_SHAPES`` entry ``make_constraint`` found, or None before
    its first call (``harness.suite.strength`` builds many constraints in one round trip)."""
    return _SHAPE.get("shape")


def make_constraint(impl, index):
    """A fresh ``Constraint`` at the start state, built by the first shape of
    ``CONSTRAINT_SHAPES`` the candidate accepts (a TypeError moves on to the next shape);
    the shape that worked is recorded once for the report (``("shape", ...)``)."""
    if "shape" in _SHAPE:
        return readings.build_constraint(impl.Constraint, index, _SHAPE["shape"])[0]
    try:
        constraint, name = readings.build_constraint(impl.Constraint, index)
    except TypeError as exc:
        fail("Constraint could not be built by any reasonable shape (the spec gives no constructor)",
             tried=str(exc).split(": ", 1)[-1])
    _SHAPE.update(shape=name)
    record("shape", name)
    return constraint


def advanced(impl, index, tokens):
    """A fresh constraint advanced through ``tokens`` (the spec's way to reach a state:
    no constructor takes a state)."""
    constraint = make_constraint(impl, index)
    for token in tokens:
        constraint.advance(token)
    return constraint


# GPT-2's byte map, the oracle of vocab_bytes (test_vocab and the strength checks of harness.suite.strength)

def gpt2_byte_map() -> dict[int, str]:
    """GPT-2's ``bytes_to_unicode``: printable bytes map to themselves, the others to
    256, 257, ... in byte order (so byte 32, the space, is 'Ġ' = chr(288))."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) \
        + list(range(ord("\u00ae"), ord("\u00ff") + 1))
    mapping, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            mapping[byte] = chr(byte)
        else:
            mapping[byte] = chr(256 + extra)
            extra += 1
    return mapping


def expected_bytes(token: str, inverse: dict[str, int]) -> bytes:
    if all(ch in inverse for ch in token):
        return bytes(inverse[ch] for ch in token)
    return token.encode("utf-8")


oracle_memo.drawn("random_vocab", random_vocab_drawn)
