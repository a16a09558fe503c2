"""Every class of "explained" difference is a named predicate that excuses the peer's
documented design and nothing else: for each, the design it excuses and a known-wrong engine
answer it must not excuse (``harness.peers.classify``; the key-order reading of
``sweep --schemas --peers`` too)."""

from __future__ import annotations

import pytest

from harness.peers.base import Compiled, Source
from harness.peers.classify import (
    UNEXPLAINED,
    ascii_classes,
    canonical_tokens,
    classify_accepts,
    classify_judged,
    classify_mask,
    empty_token,
    eos_when_stuck,
    extra_keys_explain,
    fullmatch_bytes,
    integral_float,
    leftmost_first_explain,
    raw_del,
    unicode_vs_bytes,
    whitespace,
)
from harness.peers.ours import Ours

OURS = Ours()


class _Says(Compiled):
    """A stand-in engine whose language is a table: it accepts those documents and calls
    their prefixes viable, nothing else."""

    def __init__(self, source, accepts=()):
        self.source, self._accepts = source, set(accepts)

    def accepts(self, doc):
        return doc in self._accepts

    def viable(self, prefix):
        return any(doc.startswith(prefix) for doc in self._accepts)


def _accepts_class(source: Source, doc: bytes, peer_says: bool) -> str:
    ours = OURS.compile(source)
    return classify_accepts(ours, _Says(source), doc, ours.accepts(doc), peer_says)[0]


# (pattern, document, the peer's answer): the design each predicate excuses ...
@pytest.mark.parametrize("pattern, doc, peer_says", [(".", "\u00e9".encode(), True), (".", b"\xff", False),
                                                     ("\\xe9", "\u00e9".encode(), True)])
def test_unicode_vs_bytes_excuses_matching_characters(pattern, doc, peer_says):
    assert unicode_vs_bytes(pattern, doc, peer_says, fullmatch_bytes(pattern, doc))[0] == "unicode-vs-bytes"
    assert _accepts_class(Source.regex(pattern), doc, peer_says) == "unicode-vs-bytes"


# ... and the known-wrong answers it must not excuse
@pytest.mark.parametrize("pattern, doc, peer_says", [("a", b"b", True), (".", b"\xff", True), ("ab", b"ab", False),
                                                     ("[a-z]+", b"abc\x7f", True)])
def test_unicode_vs_bytes_does_not_excuse_a_wrong_answer(pattern, doc, peer_says):
    assert unicode_vs_bytes(pattern, doc, peer_says, fullmatch_bytes(pattern, doc)) is None
    assert _accepts_class(Source.regex(pattern), doc, peer_says) == UNEXPLAINED


def test_leftmost_first_excuses_priority_and_nothing_else():
    assert leftmost_first_explain("a|ab", b"ab", False, True)[0] == "leftmost-first"
    assert leftmost_first_explain("ab|a", b"ab", False, True) is None   # priority takes "ab": a wrong refusal
    assert leftmost_first_explain("0(x5)?", b"0x5", False, True) is None  # greedy ? takes "x5" (outlines-core 0.2.14)
    assert _accepts_class(Source.regex("ab|a"), b"ab", False) == UNEXPLAINED


SCHEMA = Source.schema({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]})
CLOSED = Source.schema({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
                        "additionalProperties": False})
ENUM = Source.schema({"enum": ["xy"]})


def test_whitespace_excuses_layout_between_tokens_only():
    ours = OURS.compile(SCHEMA)
    assert whitespace(ours, b'{ "a" : 1 }')[0] == "whitespace"
    assert whitespace(OURS.compile(ENUM), b'"x y"') is None    # inside a string whitespace is content
    assert whitespace(ours, b'{"a": 1 x}') is None             # not JSON with or without the spaces
    assert _accepts_class(ENUM, b'"x y"', True) == UNEXPLAINED


def test_extra_keys_excuses_open_objects_and_never_a_closed_one():
    assert extra_keys_explain(OURS.compile(SCHEMA), b'{"a":1,"b":2}')[0] == "extra-keys"
    assert extra_keys_explain(OURS.compile(CLOSED), b'{"a":1,"b":2}') is None  # additionalProperties: false
    assert _accepts_class(CLOSED, b'{"a":1,"b":2}', True) == UNEXPLAINED
    assert extra_keys_explain(OURS.compile(SCHEMA), b'{"a":"x","b":2}') is None  # "a" must be an integer


VOCAB = (b"a", b"b", b"ab", b"", None, b"<eos>")
EOS = 5


def _mask_class(pattern, prefix, token, ours_says, peer_says, peer, only_eos=False, stuck=False):
    ours = OURS.compile_regex(pattern)
    return classify_mask(ours, peer, VOCAB, prefix, token, EOS, ours_says, peer_says, peer_only_eos=only_eos,
                         ours_stuck=stuck)[0]


def test_canonical_tokens_excuses_a_refused_token_the_peers_own_walk_continues_with():
    peer = _Says(Source.regex("ab"), accepts=[b"ab"])
    assert canonical_tokens(peer, b"a")[0] == "canonical-tokens"
    assert _mask_class("ab", b"", 0, True, False, peer) == "canonical-tokens"
    broken = _Says(Source.regex("ab"), accepts=[])  # its own walk stops after "a": a language bug
    assert canonical_tokens(broken, b"a") is None
    assert _mask_class("ab", b"", 0, True, False, broken) == UNEXPLAINED


def test_eos_when_stuck_excuses_eos_only_where_no_token_continues():
    peer = _Says(Source.regex("ac"))
    ours = OURS.compile_regex("ac")
    assert eos_when_stuck(ours, peer, b"a", True, True)[0] == "eos-when-stuck"
    # ours still allows a token after "a" (the vocabulary has b"b" for "ab"): EOS alone drops it
    assert eos_when_stuck(OURS.compile_regex("ab"), _Says(Source.regex("ab")), b"a", True, False) is None
    assert _mask_class("ab", b"a", EOS, False, True, _Says(Source.regex("ab")), only_eos=True,
                       stuck=False) == UNEXPLAINED


def test_empty_token_excuses_the_empty_token_only():
    assert empty_token(b"")[0] == "empty-token"
    assert empty_token(b"a") is None
    assert _mask_class("ab", b"", 1, False, True, _Says(Source.regex("ab"))) == UNEXPLAINED  # "b" first: wrong


def test_key_order_in_the_schema_sweep_excuses_order_and_closed_objects_only():
    from harness.differential.sweep.schemas import _declared_form_accepted

    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "null"}}}
    declared_only = _Says(Source.schema(schema), accepts=[b'{"a":1,"b":null}'])
    assert _declared_form_accepted(declared_only, schema, {"b": None, "a": 1})        # another key order
    assert _declared_form_accepted(declared_only, schema, {"a": 1, "b": None, "z": 0})  # an undeclared key
    # already in the declared form: a rejection of it is a real bug, never excused
    assert not _declared_form_accepted(declared_only, schema, {"a": 2, "b": None})
    assert not _declared_form_accepted(_Says(Source.schema(schema)), schema, {"b": None, "a": 1})


def test_every_class_but_unexplained_has_its_predicate():
    from harness.peers.classify import CLASSES, key_order
    names = {"key-order": key_order, "empty-token": empty_token, "unicode-vs-bytes": unicode_vs_bytes,
             "leftmost-first": leftmost_first_explain,
             "whitespace": whitespace, "extra-keys": extra_keys_explain, "canonical-tokens": canonical_tokens,
             "eos-when-stuck": eos_when_stuck, "ascii-classes": ascii_classes, "raw-del": raw_del,
             "integral-float": integral_float}
    assert set(CLASSES) - {UNEXPLAINED} == set(names)
    assert all(f.__doc__ and "Not:" in f.__doc__ or f is empty_token for f in names.values())


def test_outside_our_subset_layout_order_and_open_objects_are_excused_and_nothing_else():
    from harness.peers.classify import classify_judged, judged_extra_keys, judged_whitespace, key_order
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string", "pattern": "^x"}}}
    source = Source.schema(schema)
    strict = _Says(source, accepts=[b'{"a":1,"b":"x"}', b'{"a":1}'])  # compact, declared order, closed
    assert judged_whitespace(strict, b'{\n  "a": 1,\n  "b": "x"\n}')[0] == "whitespace"
    assert key_order(strict, schema, b'{"b":"x","a":1}')[0] == "key-order"
    assert judged_extra_keys(strict, schema, b'{"a":1,"zz":0}')[0] == "extra-keys"
    # known-wrong: the value already compact, in order, with declared keys only: never excused
    assert judged_whitespace(strict, b'{"a":2}') is None and key_order(strict, schema, b'{"a":2}') is None
    assert judged_extra_keys(strict, schema, b'{"a":2}') is None
    assert classify_judged(source, b'{"a":2}', True, False, strict)[0] == UNEXPLAINED
    # a pattern: only leftmost-first, never the bytes/characters difference (the judge reads text)
    assert classify_judged(Source.regex("(?=a)ab|a"), b"ab", True, False)[0] == UNEXPLAINED


# -- the named classes of the peers' readings: ASCII classes, raw DEL, integral floats ---

def _judged_class(source: Source, doc: bytes, peer_says: bool, peer=None, name="") -> tuple[str, str]:
    from harness.peers.given import judge
    return classify_judged(source, doc, judge(source).accepts(doc), peer_says, peer, peer_name=name)


def test_ascii_classes_excuse_interegular_whose_own_definition_is_ascii():
    # ours judges (bytes): \W on "é" is two bytes, no match; interegular's ASCII \W takes the character
    assert ascii_classes("interegular", "\\W", "\u00e9".encode(), True, False)[0] == "ascii-classes"
    ours = OURS.compile_regex("\\W")
    assert classify_accepts(ours, _Says(ours.source), "\u00e9".encode(), False, True,
                            peer_name="interegular")[0] == "ascii-classes"
    # outside our subset (a look-ahead): re on text reads \d as Unicode, interegular as ASCII
    assert _judged_class(Source.regex("(?=.)\\d"), "\u0663".encode(), False, name="interegular")[0] == "ascii-classes"


@pytest.mark.parametrize("name, pattern, doc, peer_says", [
    ("interegular", "\\w+", b"abc", False),                # ASCII says yes: a wrong refusal
    ("llguidance", "\\W", "\u00e9".encode(), True),           # the same answer from an engine with Unicode classes
    ("interegular", "[^a]", "\u00e9".encode(), True) ,       # no class escape: not this class
    ("interegular", "\\\\d", b"\\d", False),                  # an escaped backslash then d: no class at all
])
def test_ascii_classes_do_not_excuse_a_wrong_answer(name, pattern, doc, peer_says):
    assert ascii_classes(name, pattern, doc, peer_says, not peer_says) is None
    assert _judged_class(Source.regex(pattern), doc, peer_says, name=name)[0] != "ascii-classes"


STRING = Source.schema({"type": "string"})
INTEGER = Source.schema({"type": "array", "items": {"type": "integer"}})


def test_raw_del_excuses_a_peer_reading_json_as_rfc_8259():
    assert raw_del(OURS.compile(STRING), b'"a\x7fb"')[0] == "raw-del"
    assert _accepts_class(STRING, b'"\x7f"', True) == "raw-del"


@pytest.mark.parametrize("source, doc", [
    (STRING, b'"a"\x7f'),                                    # outside a string: not JSON
    (Source.schema({"enum": ["x"]}), b'"x\x7f"'),            # a string the schema refuses
    (Source.schema({"type": "string", "maxLength": 1}), b'"ab\x7f"'),
])
def test_raw_del_does_not_excuse_a_wrong_acceptance(source, doc):
    try:
        ours = OURS.compile(source)
    except ValueError:  # outside our subset: the judge answers, and never excuses an acceptance
        assert _judged_class(source, doc, True)[0] == UNEXPLAINED
        return
    assert raw_del(ours, doc) is None and _accepts_class(source, doc, True) == UNEXPLAINED


def test_integral_float_excuses_1_0_for_an_integer_as_json_schema_reads_it():
    assert integral_float(OURS.compile(INTEGER), b"[1,2.0,-0.0]")[0] == "integral-float"
    assert _accepts_class(INTEGER, b"[3.0]", True) == "integral-float"


@pytest.mark.parametrize("source, doc", [(INTEGER, b"[1.5]"), (STRING, b"1.0"), (INTEGER, b"[1.0,x]")])
def test_integral_float_does_not_excuse_a_wrong_acceptance(source, doc):
    assert integral_float(OURS.compile(source), doc) is None and _accepts_class(source, doc, True) == UNEXPLAINED


@pytest.mark.parametrize("doc, fixed, name", [(b'"a\x7f"', b'"a\\u007f"', "raw-del"),
                                              (b"[2.0]", b"[2]", "integral-float")])
def test_a_peer_refusing_what_json_schema_allows_is_a_finding_with_the_class_named(doc, fixed, name):
    # beyond our subset (a pattern; uniqueItems): jsonschema accepts; the peer refuses, and accepts the respelled value
    schema = ({"type": "string", "pattern": "^a"} if name == "raw-del"
              else {"type": "array", "items": {"type": "integer"}, "uniqueItems": True})
    source = Source.schema(schema)
    peer = _Says(source, accepts=[fixed])
    cls, reason = _judged_class(source, doc, False, peer)
    assert cls == UNEXPLAINED and f"a known class of real bug, {name}" in reason
    assert _judged_class(source, b'"zzz"' if name == "raw-del" else b"[1,1]", False, peer)[1].startswith(
        "the judge contradicts")  # jsonschema rejects these: the peer agrees, nothing to name
