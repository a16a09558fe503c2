"""Known design differences between our pipeline and the peers, as predicates.

A disagreement is explained only when an independent oracle reproduces the peer's
answer under the peer's documented design, and reproduces ours under ours. Each class is
one named predicate (``unicode_vs_bytes``, ``leftmost_first_explain``, ``whitespace``,
``extra_keys_explain``, ``empty_token``, ``canonical_tokens``, ``eos_when_stuck``; their
docstrings say what each must not excuse, and ``tests/peers/test_peers_explanations.py`` holds a
known-wrong engine answer for each) returning ``(class, reason)`` or None; the first that
answers names the class. What no predicate explains is ``unexplained``: a finding to look at.

Classes (``CLASSES``, in the order tried):

- ``empty-token``: a token with no bytes. We never allow it (the contract); a peer
  may allow it everywhere (outlines-core does), since it changes no text.
- ``unicode-vs-bytes``: we match bytes (Python ``re`` on bytes: ``.`` is one byte,
  ``\\xe9`` is byte E9); the peer matches characters of UTF-8 text (Python ``re``
  on ``str`` says what it answers: ``.`` is one code point, ``\\xe9`` is "é", ``\\d``
  includes Arabic-Indic digits), and bytes that are not well-formed UTF-8 never
  match. E.g. ``.`` and ``b"\\xc3\\xa9"``: we refuse (two bytes), the peer accepts.
- ``ascii-classes``: the peer's ``\\d``, ``\\w``, ``\\s`` (and their negations) are ASCII only
  because its own definition says so (``ASCII_CLASS_PEERS``: interegular's ``patterns.py``
  defines them as the ASCII sets), where ``re`` on text reads Unicode: ``re`` on the text with
  ``re.ASCII`` gives the peer's answer. E.g. ``\\W`` on ``"é"``: interegular accepts. An engine
  documented with Unicode classes (llguidance, outlines-core: Rust ``regex``) is not excused.
- ``leftmost-first``: the peer's automaton keeps leftmost-first (backtracking
  priority) semantics, so an alternative that matched earlier cuts off a longer
  one; ``re.match`` (not fullmatch) reproduces it: the peer accepts ``doc`` iff the
  priority match ends at ``len(doc)``. E.g. ``a|ab`` and ``b"ab"``: outlines-core
  refuses.
- ``whitespace``: the peer's JSON allows whitespace between tokens; removing the
  whitespace outside strings gives a document we accept.
- ``extra-keys``: the peer's JSON objects allow keys beyond ``properties`` (JSON
  Schema's default ``additionalProperties: true``); our subset's objects are closed.
- ``raw-del``: the peer accepts a raw DEL (0x7F) inside a JSON string, which RFC 8259 and
  ``jsonschema`` allow; our subset (the spec: a character is *printable* ASCII) writes it
  ``\\u007f``: the same document with the DEL escaped is ours. The other way (a peer that
  refuses a raw DEL ``jsonschema`` accepts) is a real bug: a finding, its reason names the class.
- ``integral-float``: the peer accepts ``1.0`` where the schema says integer, as JSON Schema
  does (``jsonschema`` accepts it); our subset's integers have no fraction: the same value with
  integral floats written as integers is ours. The other way (a peer refusing ``1.0`` for an
  integer) is a real bug: a finding, its reason names the class.
- ``key-order``: outside our subset (judged by ``jsonschema``), the peer rejects an object
  whose keys are out of the declared ``properties`` order and accepts it in that order.
- ``canonical-tokens``: the peer's mask refuses a token although the text after it
  is still viable for the peer itself (its byte-level walk goes on): it allows
  only tokens of a canonical tokenization.
- ``eos-when-stuck``: after a prefix from which, for the peer, no token of the
  vocabulary can continue (the vocabulary lacks the bytes its language needs
  next), the peer's mask is EOS alone although the peer itself says the text is
  not complete: it offers EOS rather than an empty mask (llguidance does this).
- ``unexplained``: none of the above.
"""

from __future__ import annotations

import json
import re

import regex

CLASSES = ("empty-token", "unicode-vs-bytes", "ascii-classes", "leftmost-first", "whitespace", "extra-keys",
           "raw-del", "integral-float", "key-order", "canonical-tokens", "eos-when-stuck", "unexplained")
UNEXPLAINED = "unexplained"
CLASS_HELP = {
    "empty-token": "a token with no bytes: never allowed by us, allowed by the peer",
    "unicode-vs-bytes": "we match bytes (re on bytes), the peer characters of UTF-8 text (re on str)",
    "ascii-classes": "the peer's \\d \\w \\s are ASCII only, as its own documentation defines them (interegular)",
    "raw-del": "the peer accepts a raw DEL in a JSON string (JSON allows it; our subset writes it escaped)",
    "integral-float": "the peer accepts 1.0 for an integer (JSON Schema does; our subset's integers have no fraction)",
    "leftmost-first": "the peer keeps backtracking priority: an earlier alternative cuts off a longer one",
    "whitespace": "the peer's JSON allows whitespace between tokens, our compact JSON does not",
    "extra-keys": "the peer's objects allow keys beyond properties, ours are closed",
    "key-order": "the peer's objects keep the declared property order (outside our subset, judged by jsonschema)",
    "canonical-tokens": "the peer's mask refuses a token whose bytes its own language still continues with",
    "eos-when-stuck": "no token can continue, so the peer offers EOS on an incomplete text",
    "unexplained": "no known design difference reproduces the peer's answer: a finding",
}


# -- oracles --------------------------------------------------------------------------

def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _utf8_prefix(data: bytes) -> str | None:
    """The text of ``data`` when it is well-formed UTF-8 up to a truncated last
    character (e.g. ``b"a\\xc3"`` -> "a"), else None."""
    for cut in range(0, 4):
        if cut > len(data):
            break
        text = _utf8(data[:len(data) - cut])
        if text is not None:
            return text
    return None


def fullmatch_bytes(pattern: str, doc: bytes) -> bool:
    return re.fullmatch(pattern.encode("latin-1"), doc) is not None


def fullmatch_text(pattern: str, doc: bytes) -> bool | None:
    """Unicode semantics: ``re.fullmatch`` on the decoded text; False when ``doc``
    is not UTF-8 (no text matches it)."""
    text = _utf8(doc)
    return False if text is None else re.fullmatch(pattern, text) is not None


def leftmost_first(pattern: str, doc: bytes, *, text: bool) -> bool:
    """True iff the highest-priority anchored match (``re.match``) spans ``doc``."""
    if text:
        subject = _utf8(doc)
        if subject is None:
            return False
        m = re.match(pattern, subject)
        return m is not None and m.end() == len(subject)
    m = re.match(pattern.encode("latin-1"), doc)
    return m is not None and m.end() == len(doc)


def viable_text(pattern: str, prefix: bytes) -> bool:
    """Unicode semantics of "can still be completed": the decoded text (a truncated
    last character dropped) is a partial match (``regex`` with ``partial=True``)."""
    text = _utf8_prefix(prefix)
    return text is not None and regex.fullmatch(pattern, text, partial=True) is not None


_JSON_WS = b" \t\n\r"


def strip_json_whitespace(doc: bytes) -> bytes:
    """``doc`` without the JSON whitespace outside strings (escapes respected)."""
    out = bytearray()
    in_string = escaped = False
    for b in doc:
        if in_string:
            out.append(b)
            if escaped:
                escaped = False
            elif b == 0x5C:
                escaped = True
            elif b == 0x22:
                in_string = False
        elif b in _JSON_WS:
            continue
        else:
            out.append(b)
            in_string = b == 0x22
    return bytes(out)


_KEY = re.compile(rb'"((?:[^"\\]|\\.)*)"\s*:')


def _property_names(schema) -> set[str]:
    names: set[str] = set()
    if isinstance(schema, dict):
        names.update(schema.get("properties", {}) if isinstance(schema.get("properties"), dict) else {})
        for value in schema.values():
            names |= _property_names(value)
    elif isinstance(schema, list):
        for value in schema:
            names |= _property_names(value)
    return names


def extra_keys(schema: dict, doc: bytes) -> list[str]:
    """Keys written in ``doc`` (even a partial one) that no ``properties`` names."""
    known = _property_names(schema)
    keys = []
    for m in _KEY.finditer(doc):
        try:
            key = json.loads(b'"' + m.group(1) + b'"')
        except ValueError:
            continue
        if key not in known:
            keys.append(key)
    return keys


def _drop_extra_keys(schema, value):
    if isinstance(value, dict) and isinstance(schema, dict):
        props = schema.get("properties", {})
        return {k: _drop_extra_keys(props.get(k), v) for k, v in value.items() if k in props}
    if isinstance(value, list) and isinstance(schema, dict):
        return [_drop_extra_keys(schema.get("items"), v) for v in value]
    return value


# -- classification -------------------------------------------------------------------

def classify_accepts(ours, peer, doc: bytes, ours_says: bool, peer_says: bool, peer_name: str = "") -> tuple[str, str]:
    """(class, reason) for ``ours.accepts(doc) != peer.accepts(doc)``; ``peer_name`` for the
    classes one engine's own documentation defines (``ascii_classes``)."""
    if ours.source.kind == "regex":
        reason = _regex_accepts_reason(ours.source.text, doc, ours_says, peer_says, peer_name)
        if reason:
            return reason
    else:
        reason = _schema_accepts_reason(ours, doc, ours_says, peer_says)
        if reason:
            return reason
    return UNEXPLAINED, "no known design difference reproduces the peer's answer"


def _regex_accepts_reason(pattern: str, doc: bytes, ours_says: bool, peer_says: bool, peer_name: str = ""):
    as_bytes = fullmatch_bytes(pattern, doc)
    if ours_says != as_bytes:
        return None  # our answer differs from re on bytes: that is our bug, not a design
    return (unicode_vs_bytes(pattern, doc, peer_says, as_bytes) or ascii_classes(peer_name, pattern, doc, peer_says,
                                                                                  as_bytes)
            or leftmost_first_explain(pattern, doc, peer_says, as_bytes))


def _schema_accepts_reason(ours, doc: bytes, ours_says: bool, peer_says: bool):
    if not peer_says or ours_says:
        return None
    return whitespace(ours, doc) or extra_keys_explain(ours, doc) or raw_del(ours, doc) or integral_float(ours, doc)


# -- the explanations, one named predicate each ----------------------------------------
# Each returns (class, reason) when the peer's answer is its documented design, else None.
# Each has a test (tests/peers/test_peers_explanations.py) holding a known-wrong answer it must
# not excuse.

def jsonschema_accepts(source, doc: bytes) -> bool:
    """Return True if and only if ``doc`` is JSON valid under the schema for ``jsonschema``."""
    from harness.peers.given import judge
    try:
        return judge(source).accepts(doc)
    except ValueError:
        return False


def whitespace(ours, doc: bytes):
    """The peer accepts JSON with whitespace between tokens: explained if and only if the
    document is valid for ``jsonschema`` and without that whitespace it is ours. E.g.
    ``{"a": 1}``. Not: ``{"a":"x y"}`` for ``{"enum": [{"a": "xy"}]}`` (inside a string
    whitespace is content)."""
    stripped = strip_json_whitespace(doc)
    if stripped != doc and ours.accepts(stripped) and jsonschema_accepts(ours.source, doc):
        return "whitespace", "the same document without whitespace between tokens is ours"
    return None


def extra_keys_explain(ours, doc: bytes):
    """The peer accepts an object with keys beyond ``properties``: explained if and only if
    ``jsonschema`` says the document is valid (JSON Schema's objects are open unless
    ``additionalProperties: false``) and without those keys it is ours. Not: an extra key
    where the schema says ``additionalProperties: false``."""
    schema = ours.source.as_schema()
    keys = extra_keys(schema, doc)
    if not keys or not jsonschema_accepts(ours.source, doc):
        return None
    try:
        value = json.loads(doc)
    except ValueError:
        return None
    trimmed = json.dumps(_drop_extra_keys(schema, value), separators=(",", ":"), ensure_ascii=False)
    if ours.accepts(trimmed.encode()):
        return "extra-keys", f"keys {keys} are not in properties; without them the document is ours"
    return None


def unicode_vs_bytes(pattern: str, doc: bytes, peer_says: bool, as_bytes: bool):
    """Explained if and only if ``re`` on the UTF-8 text gives the peer's answer and ``re``
    on bytes ours (and the two differ). E.g. ``.`` on ``b"\\xc3\\xa9"``. Not: a peer that
    accepts ``b"\\xff"`` for ``.`` (no text is that byte)."""
    as_text = fullmatch_text(pattern, doc)
    if peer_says == as_text != as_bytes:
        if _utf8(doc) is None:
            return "unicode-vs-bytes", "not well-formed UTF-8: the peer matches characters, so no text matches"
        return "unicode-vs-bytes", "re on str (characters) gives the peer's answer, re on bytes ours"
    return None


ASCII_CLASS_PEERS = frozenset({"interegular"})
"""Engines whose own definition makes ``\\d \\w \\s`` ASCII only (interegular 0.3's
``patterns._CHAR_GROUPS``: ``0-9``, ``[A-Za-z0-9_]``, `` \\t\\n\\r\\f\\v``)."""
_CLASS_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\[dDwWsS]")


def fullmatch_ascii_text(pattern: str, doc: bytes) -> bool:
    """``re.fullmatch`` with ``re.ASCII`` on the decoded text; False when ``doc`` is not UTF-8."""
    text = _utf8(doc)
    return text is not None and re.fullmatch(pattern, text, re.ASCII) is not None


def ascii_classes(peer_name: str, pattern: str, doc: bytes, peer_says: bool, oracle_says: bool):
    """Explained if and only if the peer is one whose documentation defines ``\\d \\w \\s`` as
    ASCII (``ASCII_CLASS_PEERS``), the pattern uses one of them, and ``re`` on the text with
    ``re.ASCII`` gives the peer's answer where the oracle (``oracle_says``) gives the other. E.g.
    interegular accepting ``"é"`` for ``\\W``. Not: interegular refusing ``b"abc"`` for ``\\w+``
    (ASCII says yes), nor llguidance giving the same ASCII answer (its classes are Unicode)."""
    if peer_name not in ASCII_CLASS_PEERS or not _CLASS_ESCAPE.search(pattern):
        return None
    if peer_says == fullmatch_ascii_text(pattern, doc) != oracle_says:
        return "ascii-classes", f"re on str with re.ASCII gives {peer_name}'s answer: its \\d \\w \\s are ASCII"
    return None


def _strings_hold_raw_del(value) -> bool:
    if isinstance(value, str):
        return "\x7f" in value
    if isinstance(value, dict):
        return any(_strings_hold_raw_del(k) or _strings_hold_raw_del(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_strings_hold_raw_del(v) for v in value)
    return False


def _has_integral_float(value) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_has_integral_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_integral_float(v) for v in value)
    return False


def integral_floats_as_ints(value):
    """``value`` with every integral float as an int, e.g. ``[1.0, 2.5]`` -> ``[1, 2.5]``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: integral_floats_as_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [integral_floats_as_ints(v) for v in value]
    return value


def _respelled(doc: bytes, *, del_escaped: bool = False, ints: bool = False) -> bytes | None:
    """``doc``'s value written compact again (``del_escaped``: a DEL as ``\\u007f``; ``ints``:
    integral floats as integers), every other character as it is; None when it is not JSON
    or writes the same."""
    value = _value(doc)
    if value is _NOT_JSON:
        return None
    text = json.dumps(integral_floats_as_ints(value) if ints else value, separators=(",", ":"), ensure_ascii=False)
    out = (text.replace("\x7f", "\\u007f") if del_escaped else text).encode("utf-8")
    return None if out == doc else out


def raw_del(ours, doc: bytes):
    """The peer accepts a raw DEL inside a JSON string: explained if and only if ``jsonschema``
    accepts the document and ours accepts it with the DEL written ``\\u007f``. Not: a raw DEL
    outside a string (``1\\x7f``: not JSON), nor one in a string the schema refuses (an enum
    that does not spell it)."""
    value = _value(doc)
    if value is _NOT_JSON or not _strings_hold_raw_del(value) or not jsonschema_accepts(ours.source, doc):
        return None
    escaped = _respelled(doc, del_escaped=True)
    if escaped is not None and ours.accepts(escaped):
        return "raw-del", "JSON allows a raw DEL in a string (jsonschema accepts); with it escaped the document is ours"
    return None


def integral_float(ours, doc: bytes):
    """The peer accepts ``1.0`` for an integer: explained if and only if ``jsonschema`` accepts
    the document (JSON Schema: a number with a zero fraction is an integer) and ours accepts
    the value with its integral floats written as integers. Not: ``1.5`` for an integer, nor
    ``1.0`` where the schema says string."""
    value = _value(doc)
    if value is _NOT_JSON or not _has_integral_float(value) or not jsonschema_accepts(ours.source, doc):
        return None
    respelled = _respelled(doc, ints=True)
    if respelled is not None and ours.accepts(respelled):
        return "integral-float", "jsonschema accepts 1.0 as an integer; with integers written so the value is ours"
    return None


def named_real_bug(peer, doc: bytes) -> str | None:
    """The name of a known class of *real* bug in a peer that rejects ``doc`` which the judge
    (``jsonschema``) accepts, else None: ``raw-del`` (it accepts the value with the DEL escaped)
    or ``integral-float`` (it accepts the value with integral floats as integers). Never an
    excuse: the difference stays a finding; the name says which known bug it is."""
    value = _value(doc)
    if value is _NOT_JSON:
        return None
    if _strings_hold_raw_del(value) and (escaped := _respelled(doc, del_escaped=True)) and peer.accepts(escaped):
        return "raw-del"
    if _has_integral_float(value) and (respelled := _respelled(doc, ints=True)) and peer.accepts(respelled):
        return "integral-float"
    return None


def leftmost_first_explain(pattern: str, doc: bytes, peer_says: bool, as_bytes: bool):
    """Explained if and only if the priority match (``re.match``, on bytes or text) ends at
    the end exactly when the peer accepts. E.g. ``a|ab`` refusing ``ab``. Not: ``ab|a``
    refusing ``ab`` (the priority match takes ``ab``)."""
    for text in (False, True):
        lf = leftmost_first(pattern, doc, text=text)
        if peer_says == lf != as_bytes:
            how = "on str" if text else "on bytes"
            return "leftmost-first", f"re.match {how} (priority match) ends {'at' if lf else 'before'} the end"
    return None


def empty_token(tok):
    """Explained if and only if the token has no bytes (we never allow it; a peer may)."""
    return ("empty-token", "the token has no bytes: we never allow it") if tok == b"" else None


def canonical_tokens(peer, text: bytes):
    """The peer's mask refuses a token ours allows: explained if and only if the peer's own
    byte walk goes on after the prefix and token's bytes (its mask keeps only canonical
    tokenizations). Not: a refusal where the peer's own walk stops too (a language bug)."""
    if peer.viable(text):
        return "canonical-tokens", "the peer's own byte walk goes on after these bytes, its mask refuses the token"
    return None


def eos_when_stuck(ours, peer, prefix_bytes: bytes, peer_only_eos: bool, ours_stuck: bool):
    """The peer's mask is EOS alone on an incomplete text: explained if and only if no token
    of the vocabulary can continue (ours allows no token either) and neither side calls the
    text complete. Not: EOS alone where ours allows a token (the peer dropped a continuation)."""
    if peer_only_eos and ours_stuck and not peer.accepts(prefix_bytes) and not ours.accepts(prefix_bytes):
        return "eos-when-stuck", "no token can continue and the text is not complete: the peer allows EOS"
    return None


def classify_mask(ours, peer, vocab, prefix_bytes: bytes, token: int, eos_id,
                  ours_says: bool, peer_says: bool, peer_only_eos: bool = False,
                  ours_stuck: bool = False) -> tuple[str, str]:
    """(class, reason) for a token on which the two masks after a prefix differ;
    ``peer_only_eos``: the peer's mask after the prefix allows EOS and nothing else;
    ``ours_stuck``: ours allows no token but (maybe) EOS there."""
    tok = vocab[token]
    if token == eos_id:
        found = eos_when_stuck(ours, peer, prefix_bytes, peer_only_eos, ours_stuck)
        if found:
            return found
        cls, reason = classify_accepts(ours, peer, prefix_bytes, ours_says, peer_says)
        return cls, f"EOS: {reason}"
    found = empty_token(tok)
    if found:
        return found
    if tok is None:
        return UNEXPLAINED, "a special token"
    text = prefix_bytes + tok
    if ours_says and not peer_says:
        found = canonical_tokens(peer, text)
        if found:
            return found
        completion = ours.shortest_completion(text)
        doc = text + (completion or b"")
        if not peer.accepts(doc):
            cls, reason = classify_accepts(ours, peer, doc, True, False)
            return cls, f"{reason} (completed to {doc!r})"
    elif peer_says and not ours_says:
        reason = _peer_viable_reason(ours, text)
        if reason:
            return reason
    return UNEXPLAINED, "no known design difference reproduces the peer's mask"


def _peer_viable_reason(ours, text: bytes):
    if ours.source.kind == "regex":
        pattern = ours.source.text
        as_bytes = regex.fullmatch(pattern.encode("latin-1"), text, partial=True) is not None
        if not as_bytes and viable_text(pattern, text):
            return "unicode-vs-bytes", "a partial match on str (characters) continues, on bytes it does not"
        return None
    stripped = strip_json_whitespace(text)
    if stripped != text and ours.viable(stripped):
        return "whitespace", "the same prefix without whitespace between tokens is viable for us"
    schema = ours.source.as_schema()
    if _closes_objects(schema):
        return None  # additionalProperties: false somewhere: an extra key may be a real bug, never excused
    keys = extra_keys(schema, text)
    if keys:
        return "extra-keys", f"keys {keys} are not in properties"
    last = last_key(text)
    if last is not None:
        key, closed = last
        names = _property_names(schema)
        if (key not in names) if closed else not any(name.startswith(key) for name in names):
            return "extra-keys", f"the key being written ({key!r}) is not (a prefix of) a name in properties"
    return None


def _closes_objects(schema) -> bool:
    """Return True if and only if some object of ``schema`` says ``additionalProperties: false``."""
    if isinstance(schema, dict):
        return schema.get("additionalProperties") is False or any(_closes_objects(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_closes_objects(v) for v in schema)
    return False


_LAST_KEY = re.compile(rb'[{,]\s*"((?:[^"\\]|\\.)*\\?)(")?\s*$')  # a trailing lone \ too


def last_key(text: bytes) -> tuple[str, bool] | None:
    """(key, closed) when ``text`` ends in an object key, written in part (e.g.
    ``b'{"ci'`` -> ("ci", False)) or whole with no colon yet (``b'{"x"'`` -> ("x",
    True)); None otherwise. A rough scan: it does not check that the brace or comma
    before the key is itself outside a string."""
    m = _LAST_KEY.search(text)
    if m is None:
        return None
    raw = m.group(1)
    try:
        key = json.loads(b'"' + raw + b'"')
    except ValueError:
        key = raw.decode("utf-8", errors="replace")
    return key, m.group(2) is not None


def classify_judged(source, doc: bytes, judge_says: bool, peer_says: bool, peer=None,
                    peer_name: str = "") -> tuple[str, str]:
    """(class, reason) for a peer that differs from the judge of an input outside our
    subset (``given.judge``: ``re`` on the text, or ``jsonschema``). A pattern: only
    leftmost-first can explain it (the judge already reads characters of UTF-8 text). A
    schema: only the peer's layout and key order (``judged_whitespace``, ``key_order``: the
    judge accepts, and the peer accepts the same value compact or in the declared order)."""
    if source.kind == "regex":
        if peer_says == leftmost_first(source.text, doc, text=True) != judge_says:
            return "leftmost-first", "re.match on str (priority match) gives the peer's answer"
        found = ascii_classes(peer_name, source.text, doc, peer_says, judge_says)
        if found:
            return found
    elif peer is not None and judge_says and not peer_says:
        schema = source.as_schema()
        found = judged_whitespace(peer, doc) or key_order(peer, schema, doc) or judged_extra_keys(peer, schema, doc)
        if found:
            return found
        bug = named_real_bug(peer, doc)
        if bug:
            return UNEXPLAINED, (f"a known class of real bug, {bug}: the peer refuses what JSON and JSON Schema "
                                 f"allow ({CLASS_HELP[bug]}), never excused")
    return UNEXPLAINED, "the judge contradicts the peer and no known design difference reproduces the peer"


def _value(doc: bytes):
    try:
        return json.loads(doc.decode("utf-8"))
    except (ValueError, RecursionError):
        return _NOT_JSON


_NOT_JSON = object()


def judged_whitespace(peer, doc: bytes):
    """The peer rejects valid JSON laid out with whitespace: explained if and only if it
    accepts the same value compact with the same key order. Not: a rejection of the compact
    form itself."""
    value = _value(doc)
    if value is _NOT_JSON:
        return None
    compact = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if compact != doc and peer.accepts(compact):
        return "whitespace", "the peer accepts the same value compact: its layout is narrower than JSON's"
    return None


def key_order(peer, schema, doc: bytes):
    """The peer rejects a valid object whose keys are out of the declared order: explained if
    and only if it accepts the same value, compact, with every object's keys in the declared
    ``properties`` order (undeclared keys after them). Not: a rejection of a value already in
    the declared order."""
    value = _value(doc)
    if value is _NOT_JSON:
        return None
    ordered = _declared_order(schema, value)
    if json.dumps(ordered) == json.dumps(value):
        return None
    if peer.accepts(json.dumps(ordered, separators=(",", ":"), ensure_ascii=False).encode("utf-8")):
        return "key-order", "the peer accepts the same value with its keys in the declared order"
    return None


def judged_extra_keys(peer, schema, doc: bytes):
    """The peer rejects a valid object holding keys that ``properties`` does not declare
    (JSON Schema's objects are open): explained if and only if it accepts the same value,
    compact, in the declared order, without those keys. Not: a rejection that dropping the
    keys does not cure."""
    value = _value(doc)
    if value is _NOT_JSON or not extra_keys(schema, doc):
        return None
    trimmed = _declared_order(schema, _drop_extra_keys(schema, value))
    if peer.accepts(json.dumps(trimmed, separators=(",", ":"), ensure_ascii=False).encode("utf-8")):
        return "extra-keys", "the peer accepts the same value without the keys properties does not declare"
    return None


def _declared_order(schema, value):
    if isinstance(value, list):
        items = schema.get("items") if isinstance(schema, dict) else None
        return [_declared_order(items, v) for v in value]
    if not isinstance(value, dict):
        return value
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    props = props if isinstance(props, dict) else {}
    keys = [k for k in props if k in value] + [k for k in value if k not in props]
    return {k: _declared_order(props.get(k), value[k]) for k in keys}
