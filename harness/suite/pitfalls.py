"""The spec's twelve pitfalls (``000_...`` section 5) as hints a student can act on.

Each ``Pitfall`` holds the spec's words (``title``), what the student sees (``symptom``),
where to look (``look_at``), the tests that catch it and its mutants. Every concrete
claim a hint makes is an ``Example`` with a check: ``tests/suite/test_pitfall_hints.py`` runs
each check on the mutant it describes and on the reference, and the claim must hold on
the mutant and fail on the reference. (The spec's own symptom for pitfall 2, "the hand
example has more than 7 states", is false for mutant s03, which has exactly 7: the
subset construction of ``(cat|car|dog)s?`` happens to be minimal; the hint says what
s03 really shows.)

Hints name only the spec's interface (section 4: ``regex_to_dfa``, ``DFA.trans``,
``DFA.accept``, ``DFA.step``, ``DFA.matches``, ``json_schema_to_regex``,
``TokenIndex.mask``, ``TokenIndex.next_state``, ``Constraint.state``, ``.done``,
``.mask()``, ``.advance``, ``.is_complete``, ``apply_mask``, ``vocab_bytes``,
``constrained_sample``) and its sections, never the harness's internals.

``hint(pitfall, level)`` is the text at a hint level (``harness.policy.HINT_LEVELS``):
``none`` nothing, ``pitfall`` the title and the symptom, ``full`` also where to look.

Example::

    >>> BY_NUMBER[3].label
    'pitfall 3: numbering in another order'
    >>> hint(BY_NUMBER[2], "pitfall")
    "pitfall 2: no minimization (symptom: equivalent patterns give different tables, e.g. 'ab|cb' ..."
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.policy import HINT_LEVELS

__all__ = ["Example", "Pitfall", "PITFALLS", "BY_NUMBER", "BY_MUTANT", "SPEC_INTERFACE", "hint"]

SPEC_INTERFACE = frozenset({   # spec 000 section 4: every name a hint may use with a dot
    "DFA.n_states", "DFA.accept", "DFA.trans", "DFA.step", "DFA.matches", "TokenIndex.mask",
    "TokenIndex.next_state", "Constraint.state", "Constraint.done", "Constraint.mask", "Constraint.advance",
    "Constraint.is_complete", "SamplingParams.temperature"})

HAND = "(cat|car|dog)s?"
HAND_VOCAB = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b""]
HAND_EOS = 13


@dataclass(frozen=True)
class Example:
    """A claim a hint makes about a mistake. ``holds(module)`` is True on a module that
    has the mistake (each of ``mutants``) and False on the reference."""

    text: str
    mutants: tuple[str, ...]
    holds: Callable[[Any], bool]


@dataclass(frozen=True)
class Pitfall:
    number: int
    title: str                   # the spec's words (section 5, "Pitfall")
    symptom: str                 # what a student sees; the examples follow it
    look_at: str                 # where to look, in the spec's interface and sections only
    tests: tuple[str, ...]       # the spec's "Caught by"
    mutants: tuple[str, ...]
    examples: tuple[Example, ...]

    @property
    def label(self) -> str:
        return f"pitfall {self.number}: {self.title}"

    @property
    def symptom_text(self) -> str:
        """The symptom and every example, as one sentence."""
        return f"{self.symptom}, e.g. " + "; ".join(e.text for e in self.examples)


# --- the checks behind the examples (small computations over a module) -------------------


def _matches(pattern: str, data: bytes) -> Callable[[Any], bool]:
    return lambda m: bool(m.regex_to_dfa(pattern).matches(data))


def _refuses(pattern: str, data: bytes) -> Callable[[Any], bool]:
    return lambda m: not m.regex_to_dfa(pattern).matches(data)


def _states(pattern: str, n: int) -> Callable[[Any], bool]:
    return lambda m: int(m.regex_to_dfa(pattern).n_states) == n


def _hand_renumbered(m) -> bool:
    dfa = m.regex_to_dfa(HAND)
    return int(dfa.n_states) == 7 and int(dfa.step(0, b"c")) != 1 and bool(dfa.matches(b"cats"))


def _hand_index(m):
    return m.TokenIndex(m.regex_to_dfa(HAND), HAND_VOCAB, eos_id=HAND_EOS)


def _eos_in_state_0(m) -> bool:
    return bool(_hand_index(m).mask(0)[HAND_EOS])


def _dead_state_in(pattern: str) -> Callable[[Any], bool]:
    def check(m) -> bool:
        dfa = m.regex_to_dfa(pattern)
        trans, accept = dfa.trans.tolist(), [bool(a) for a in dfa.accept]
        live = set(i for i, a in enumerate(accept) if a)
        grown = True
        while grown:
            before = len(live)
            live |= {s for s, row in enumerate(trans) if any(t in live for t in row)}
            grown = len(live) > before
        return len(live) < len(accept)
    return check


def _mask_misses_a_walkable_token(m) -> bool:
    """Some state's mask refuses a token whose bytes walk to a live state (``TokenIndex.mask``
    against the definition, section 2.3), in the hand example with a token 'og' added."""
    vocab = HAND_VOCAB + [b"og"]
    dfa = m.regex_to_dfa(HAND)
    index = m.TokenIndex(dfa, vocab, eos_id=HAND_EOS)
    for state in range(int(dfa.n_states)):
        mask = index.mask(state)
        for token, data in enumerate(vocab):
            if data and not mask[token] and int(dfa.step(state, data)) != -1:
                return True
    return False


def _next_state_short(m) -> bool:
    return int(_hand_index(m).next_state(3, 11)) == 5   # 'ts' from "ca": 6 by the walk, 5 is after 't' only


def _schema_matches(schema: dict, doc: str) -> Callable[[Any], bool]:
    return lambda m: bool(m.regex_to_dfa(m.json_schema_to_regex(schema)).matches(doc.encode()))


def _schema_refuses(schema: dict, doc: str) -> Callable[[Any], bool]:
    return lambda m: not _schema_matches(schema, doc)(m)


def _schema_accepted(schema: dict) -> Callable[[Any], bool]:
    def check(m) -> bool:
        try:
            m.json_schema_to_regex(schema)
        except ValueError:
            return False
        return True
    return check


def _pattern_accepted(pattern: str) -> Callable[[Any], bool]:
    def check(m) -> bool:
        try:
            return bool(m.regex_to_dfa(pattern).matches(pattern.encode()))
        except ValueError:
            return False
    return check


def _vocab(tokens: list[str], specials: list[int], index: int, want) -> Callable[[Any], bool]:
    def check(m) -> bool:
        from harness.suite.shapes import SpecTokenizer

        return m.vocab_bytes(SpecTokenizer(tokens, special_ids=specials))[index] == want
    return check


def _special_has_bytes(m) -> bool:
    return not _vocab(["a", "<|endoftext|>"], [1], 1, None)(m)


OBJ_REQ = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a"]}
ARR = {"type": "array", "items": {"type": "integer"}, "maxItems": 2}

# --- the table ---------------------------------------------------------------------------

PITFALLS: tuple[Pitfall, ...] = (
    Pitfall(1, "classes that differ from Python's",
            "strings Python's re accepts are refused, or the reverse",
            "how regex_to_dfa reads byte sets (section 2.1): . is any byte except \\n, [^...] is the complement "
            "over all 256 bytes, \\w is [A-Za-z0-9_], a range includes both ends; compare DFA.matches with "
            "re.fullmatch on bytes",
            ("test_matches_python_re",), ("s01", "s02", "s08", "s11"),
            (Example("'.' accepts b'\\n'", ("s01",), _matches(".", b"\n")),
             Example("'[^a]' refuses b'\\xff'", ("s02",), _refuses("[^a]", b"\xff")),
             Example("'\\w' refuses b'_'", ("s08",), _refuses(r"\w", b"_")),
             Example("'[a-c]' refuses b'c'", ("s11",), _refuses("[a-c]", b"c")))),
    Pitfall(2, "no minimization",
            "equivalent patterns give different tables; the hand example may still have its 7 states (its "
            "subset construction happens to be minimal)",
            "the minimization step of regex_to_dfa (section 2.2 step 2): start from two blocks, accepting and "
            "not, split a block while its states go to different blocks on some byte; states of one block merge",
            ("test_canonical_form",), ("s03",),
            (Example("'ab|cb' gets 4 states where the minimal DFA has 3 (the states after 'a' and after 'c' "
                     "have the same future, b, and must merge)", ("s03",), _states("ab|cb", 4)),)),
    Pitfall(3, "numbering in another order",
            "tables that do not match the Rust port's: the language and the number of states are right, the "
            "numbers are not",
            "the numbering step of regex_to_dfa (section 2.2 step 3): breadth first from the start state, bytes "
            "in ascending order, the first state reached gets the next number (a depth-first walk, or bytes in "
            "another order, gives the same language under other numbers); DFA.trans and DFA.accept must equal "
            "section 3's table",
            ("test_hand_example",), ("s04",),
            (Example("the hand example has its 7 states and accepts b'cats', but b'c' does not lead to state 1",
                     ("s04",), _hand_renumbered),)),
    Pitfall(4, "EOS allowed everywhere, or a dead sink kept as a state",
            "outputs stop mid-word; masks lead into a state with no way out",
            "TokenIndex.mask (section 2.3: EOS only in accepting states) and the liveness step of regex_to_dfa "
            "(section 2.2 step 1: a state that cannot reach an accepting state is removed, its transitions "
            "become DEAD)",
            ("test_hand_example_masks", "test_every_state_is_live"), ("s05", "s12"),
            (Example("TokenIndex.mask(0) of the hand example allows EOS, though state 0 does not accept", ("s05",),
                     _eos_in_state_0),
             Example("'ab' gets a state from which no accepting state can be reached", ("s12",),
                     _dead_state_in("ab")))),
    Pitfall(5, "the trie walk stopping at the first dead byte, or recording the wrong next state",
            "allowed tokens missing; the constraint drifts from the text",
            "TokenIndex.mask and TokenIndex.next_state against the definition (section 2.3): walk each token's "
            "bytes from the state; skip only the subtree under a dead byte; the next state is the state after "
            "the token's last byte",
            ("test_masks_match_brute_force",), ("s06", "s14"),
            (Example("a mask refuses a token whose bytes walk to a live state", ("s06",),
                     _mask_misses_a_walkable_token),
             Example("TokenIndex.next_state(3, 'ts') in the hand example is 5 (after 't'), not 6 (after 'ts')",
                     ("s14",), _next_state_short))),
    Pitfall(6, "repetition built wrong: one optional copy too few, + as *",
            "{2,3} accepts only 2 copies, or x+ accepts the empty string",
            "how regex_to_dfa builds repeats (section 2.1): x{m,n} is m copies, then n - m optional copies; "
            "x+ is one copy then x*",
            ("test_matches_python_re",), ("s09", "s10"),
            (Example("'a{2,3}' refuses b'aaa'", ("s09",), _refuses("a{2,3}", b"aaa")),
             Example("'a+' accepts b''", ("s10",), _matches("a+", b"")))),
    Pitfall(7, "anchors read as literal characters",
            "a pattern means something else than in Python",
            "which syntax regex_to_dfa refuses (section 4, test_unsupported_syntax_raises): ^ and $ are anchors, "
            "outside the subset, and must raise",
            ("test_unsupported_syntax_raises",), ("s13",),
            (Example("'^a' compiles and accepts b'^a' instead of raising", ("s13",), _pattern_accepted("^a")),)),
    Pitfall(8, "JSON strings allowing raw control bytes or any high byte; integers with leading zeros; an "
               "exponent without digits",
            "output that json.loads rejects",
            "json_schema_to_regex (section 2.5): a string character is printable ASCII but \" and \\, a "
            "well-formed UTF-8 sequence or an escape; integer -?(0|[1-9][0-9]*); an exponent needs digits",
            ("test_constrained_generation_parses", "test_json_schema_documents"), ("s15", "s16", "s23", "s24"),
            (Example("{\"type\": \"string\"} accepts '\"a\\nb\"' with a raw newline", ("s15",),
                     _schema_matches({"type": "string"}, '"a\nb"')),
             Example("{\"type\": \"string\"} accepts b'\"\\xff\"' (a lone high byte)", ("s16",),
                     lambda m: bool(m.regex_to_dfa(m.json_schema_to_regex({"type": "string"})).matches(b'"\xff"'))),
             Example("{\"type\": \"integer\"} accepts '007'", ("s23",), _schema_matches({"type": "integer"}, "007")),
             Example("{\"type\": \"number\"} accepts '1e'", ("s24",), _schema_matches({"type": "number"}, "1e")))),
    Pitfall(9, "optional properties made required after the first member",
            "valid tool calls without optional arguments refused",
            "how json_schema_to_regex builds an object (section 2.5): each member after the first is (,m)? when "
            "optional, ,m when required",
            ("test_json_schema_documents",), ("s17",),
            (Example("properties a, b with only a required refuses '{\"a\":1}'", ("s17",),
                     _schema_refuses(OBJ_REQ, '{"a":1}')),)),
    Pitfall(10, "maxItems off by one", "one item too many accepted",
            "how json_schema_to_regex bounds an array (section 2.5): item (, item){a-1,b-1}",
            ("test_json_schema_documents",), ("s18",),
            (Example("maxItems 2 accepts '[1,2,3]'", ("s18",), _schema_matches(ARR, "[1,2,3]")),)),
    Pitfall(11, "unknown schema keywords ignored", "output violates the schema silently",
            "json_schema_to_regex (section 2.5): a keyword outside the subset (pattern, minLength, $ref, ...) "
            "raises ValueError",
            ("test_json_schema_rejects_keywords_outside_the_subset",), ("s25",),
            (Example("{\"type\": \"string\", \"pattern\": \"a\"} is accepted instead of raising", ("s25",),
                     _schema_accepted({"type": "string", "pattern": "a"})),)),
    Pitfall(12, "token strings encoded as UTF-8 without undoing the byte map; specials given bytes",
            "masks over the wrong bytes: Ġ is a space, not two bytes",
            "vocab_bytes (section 2.3): a token made only of byte-map characters is decoded with "
            "unicode_to_bytes, any other is UTF-8; specials are None",
            ("test_vocab_bytes",), ("s26", "s27"),
            (Example("'\\u0120a' gives 3 bytes instead of b' a'", ("s26",), _vocab(["\u0120a", "b"], [], 0,
                                                                                    "\u0120a".encode())),
             Example("the special '<|endoftext|>' gets bytes instead of None", ("s27",), _special_has_bytes))),
)

BY_NUMBER = {p.number: p for p in PITFALLS}
BY_MUTANT = {mutant: p for p in PITFALLS for mutant in p.mutants}


def hint(pitfall: Pitfall, level: str) -> str:
    """The pitfall's hint at ``level``: ``none`` nothing, ``pitfall`` the label and the
    symptom with its examples, ``full`` also where to look."""
    if level not in HINT_LEVELS:
        raise ValueError(f"hints must be one of {', '.join(HINT_LEVELS)}, not {level!r}")
    if level == "none":
        return ""
    text = f"{pitfall.label} (symptom: {pitfall.symptom_text})"
    return text + (f"; look at {pitfall.look_at}" if level == "full" else "")
