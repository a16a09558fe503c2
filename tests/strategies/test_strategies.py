"""The strategies themselves: what they draw means what they say, checked by the stdlib.

Patterns are checked by Python's ``re`` (they compile, without warnings; each atom's
byte set is the set ``re`` matches; a structural witness is a member). Strings are
checked by ``re.fullmatch``. Documents by ``json`` and ``jsonschema``. Nothing here
asks the project's own automata what is right.
"""

from __future__ import annotations

import json
import re
import warnings

import jsonschema
import numpy as np
import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import find as _find
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from facts.hand import HAND_PATTERN, hand_accept, hand_trans
from strategies import patterns as P
from strategies.patterns import (
    Alt,
    Bracket,
    Concat,
    EmptyString,
    Group,
    Literal,
    Range,
    Repeat,
    Shorthand,
    pattern_trees,
    patterns,
)
from strategies.schemas import KEYWORDS, MUTATIONS, documents, dumps, schemas
from strategies.strings import members, one_byte_edits, prefixes, regex_strings, strings_for
from strategies.vocabularies import vocabularies

pytestmark = pytest.mark.property

def hand_tables() -> tuple[np.ndarray, np.ndarray]:
    """The spec's section 3 DFA for (cat|car|dog)s? (facts.hand: typed in from the spec's table)."""
    return hand_trans(), hand_accept()


FIND_PHASES = tuple(phase for phase in Phase if phase is not Phase.explain)
"""Every phase but ``explain``: after the shrink, it varies the parts of the example to write which
ones the failure does not depend on, a comment for a failing test's report that ``find`` never
prints (it was two thirds of these tests' CPU: 3.5 -> 1.0 s for the 15 finds)."""


def find(strategy, condition):
    """Hypothesis's ``find``, derandomized and without a database (a shrink claim)."""
    return _find(strategy, condition, settings=settings(database=None, derandomize=True, max_examples=300,
                                                          phases=FIND_PHASES))


def compile_quietly(pattern: str) -> re.Pattern:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. FutureWarning "Possible set intersection"
        return re.compile(pattern.encode("ascii"))


# --- patterns -------------------------------------------------------------------------


@given(pattern_trees(unmatchable_classes=True))
@example(Concat((Literal.of(b"a"), Repeat(Alt((Literal.of(b"."), EmptyString())), 1, 3, True))))
@example(Repeat(Repeat(Literal.of(b"a"), 0, None), 0, 1))
def test_patterns_compile_with_re_and_have_their_witness(tree):
    text = tree.render()
    assert text.isascii() and text.isprintable(), text
    compiled = compile_quietly(text)
    witness = tree.witness()
    if witness is None:
        assert not any(compiled.fullmatch(bytes(s)) for s in [b"", b"a", b"\x00", b"\xff", b"\n", b"aa"])
    else:
        assert len(witness) <= P.MAX_WITNESS
        assert compiled.fullmatch(witness), (text, witness)


@given(st.one_of(P._literals(), P._literals(in_class=True), P._brackets(unmatchable=True),
                 st.sampled_from(sorted(P.SHORTHANDS)).map(Shorthand)))
@example(Bracket((Shorthand("\\d"), Shorthand("\\D")), negated=True))
@example(Bracket((Range(Literal(0x41, "A"), Literal(0x5A, "Z")), Literal(0x2D, "\\-"))))
def test_atom_bytesets_are_what_re_matches(atom):
    text = f"[{atom.render()}]" if isinstance(atom, Literal) and atom.spelling == "\\-" else atom.render()
    compiled = compile_quietly(text)
    assert atom.byteset() == {b for b in range(256) if compiled.fullmatch(bytes((b,)))}


@pytest.mark.unit
def test_rendering_puts_in_the_groups_precedence_needs():
    a, b, c = (Literal.of(x) for x in (b"a", b"b", b"c"))
    assert Repeat(Repeat(a, 0, None), 0, 1).render() == "(?:a*)?"  # never the lazy a*?
    assert Concat((Alt((a, b)), c)).render() == "(?:a|b)c"
    assert Repeat(Concat((a, b)), 2, None).render() == "(?:ab){2,}"
    assert Repeat(EmptyString(), 0, None).render() == "(?:)*"
    assert Alt((Concat((a, b)), EmptyString())).render() == "ab|"
    assert Repeat(Group(Alt((a, b)), capturing=False), 1, 1, braces=True).render() == "(?:a|b){1}"
    assert Literal.of(b"{").render() == "\\{" and Literal.of(b"\x00").render() == "\\x00"


@pytest.mark.unit
def test_pattern_strategies_shrink_as_documented():
    assert find(patterns(), lambda p: True) == "a"
    with pytest.raises(InvalidArgument):
        patterns(max_leaves=0).example()


# --- strings --------------------------------------------------------------------------


@given(members(hand_tables()))
def test_members_of_the_hand_dfa_are_accepted_by_re(data):
    assert re.fullmatch(HAND_PATTERN.encode(), data)


@pytest.mark.unit
def test_members_refuses_an_empty_language_and_shrinks_short():
    trans, accept = hand_tables()
    with pytest.raises(InvalidArgument, match="empty"):
        members((trans, np.zeros(7, dtype=bool))).example()
    assert find(members((trans, accept)), lambda s: True) in (b"car", b"cat", b"dog")  # shortest


@given(st.data())
def test_regex_strings_prefixes_and_edits(data):
    pattern = data.draw(patterns(max_leaves=4))
    compiled = compile_quietly(pattern)
    member = data.draw(regex_strings(pattern))
    assert compiled.fullmatch(member)
    prefix = data.draw(prefixes(st.just(member)))
    assert member.startswith(prefix)
    edited = data.draw(one_byte_edits(st.just(member)))
    assert _one_edit_apart(member, edited)
    assert len(data.draw(strings_for(pattern))) <= 13


def _one_edit_apart(a: bytes, b: bytes) -> bool:
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long = sorted((a, b), key=len)
    return len(long) == len(short) + 1 and any(long[:i] + long[i + 1:] == short for i in range(len(long)))


# --- schemas and documents ------------------------------------------------------------


def _keywords(schema: dict) -> set[str]:
    found = set(schema)
    for sub in list(schema.get("properties", {}).values()) + schema.get("anyOf", []):
        found |= _keywords(sub)
    if "items" in schema:
        found |= _keywords(schema["items"])
    return found


def _in_schema_order(schema: dict, value) -> bool:
    """Objects' keys follow ``properties`` (the value was loaded keeping order)."""
    if "anyOf" in schema:
        return any(_in_schema_order(b, value) for b in schema["anyOf"])
    if schema.get("type") == "object" and isinstance(value, dict):
        names = list(schema["properties"])
        keys = list(value)
        if not set(keys) <= set(names):
            return False  # not this branch's object (our documents never add keys)
        return keys == sorted(keys, key=names.index) and all(
            _in_schema_order(schema["properties"][k], v) for k, v in value.items())
    if schema.get("type") == "array" and isinstance(value, list):
        return all(_in_schema_order(schema["items"], v) for v in value)
    return True


@given(st.data())
def test_valid_documents_parse_validate_and_are_compact(data):
    # A value drawn from one anyOf branch may also fit another: order is judged by any.
    schema = data.draw(schemas())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert _keywords(schema) <= KEYWORDS
    doc = data.draw(documents(schema))
    value = json.loads(doc)
    jsonschema.Draft202012Validator(schema).validate(value)
    assert dumps(value) == doc
    assert _in_schema_order(schema, value)


@given(st.data())
def test_text_mutations_break_what_they_say(data):
    schema = data.draw(schemas())
    spaced = data.draw(documents(schema, valid=False, mutations=("space",)))
    value = json.loads(spaced)  # a space between tokens is still JSON ...
    assert dumps(value) != spaced  # ... but not compact
    either = data.draw(documents(schema, valid=False, mutations=("trailing_comma", "space")))
    try:
        assert dumps(json.loads(either)) != either  # a space
    except ValueError:
        pass  # a trailing comma: not JSON


@given(st.data())
def test_value_mutations_keep_json(data):
    schema = data.draw(schemas())
    doc = data.draw(documents(schema, valid=False, mutations=("wrong_type", "missing_key", "swapped_order", "bound")))
    json.loads(doc)  # value-level mutations are re-dumped: always well-formed


@pytest.mark.unit
def test_schema_strategies_shrink_and_validate_arguments():
    simplest = find(schemas(), lambda s: True)
    assert not {"properties", "items", "anyOf", "title"} & set(simplest), simplest  # a scalar schema
    with pytest.raises(InvalidArgument, match="outside the subset"):
        documents({"type": "string", "pattern": "a"})
    with pytest.raises(InvalidArgument, match="unknown mutations"):
        documents({"type": "string"}, valid=False, mutations=("typo",))
    assert set(MUTATIONS) == {"missing_key", "swapped_order", "wrong_type", "bound", "trailing_comma", "space"}


# --- vocabularies ---------------------------------------------------------------------


@given(vocabularies())
def test_vocabularies_follow_the_contract_shape(drawn):
    vocab, eos_id = drawn
    assert vocab and all(t is None or isinstance(t, bytes) for t in vocab)
    assert eos_id is None or 0 <= eos_id < len(vocab)


@pytest.mark.unit
@pytest.mark.parametrize("kind", [
    lambda t: t is None,  # special
    lambda t: t == b"",  # empty
    lambda t: t is not None and len(t) == 1 and 0x80 <= t[0] <= 0xBF,  # lone continuation byte
    lambda t: t is not None and _is_fragment(t),  # a piece of a UTF-8 character
    lambda t: t is not None and len(t) > 1 and t.isascii(),  # multi-byte ASCII
    lambda t: t is not None and len(t) > 1 and _decodes(t) and not t.isascii(),  # a whole character
])
def test_vocabularies_reach_every_kind_of_token(kind):
    vocab, _ = find(vocabularies(), lambda v: any(kind(t) for t in v[0]))
    assert any(kind(t) for t in vocab)


def _decodes(t: bytes) -> bool:
    try:
        t.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _is_fragment(t: bytes) -> bool:
    return not _decodes(t) and len(t) <= 3


@pytest.mark.unit
def test_eos_reaches_every_id():
    for want in (0, 5):
        vocab, eos = find(vocabularies(min_size=6, max_size=6), lambda v: v[1] == want)
        assert eos == want
    assert find(vocabularies(), lambda v: v[1] is None)[1] is None
