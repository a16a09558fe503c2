"""The stdlib oracles: what Python itself says a pattern or a document means.

The third of the harness's three implementations (the reference pipeline
``oracles.automaton``, the derivative oracle ``oracles.derivatives``, and Python itself
here): nothing here is ours but the glue, so a bug shared with ``oracles.automaton`` or
``oracles.derivatives`` cannot hide here.

- ``fullmatch(pattern, data)``: ``re.fullmatch`` on the ASCII bytes of the pattern:
  the meaning of the regex subset, by definition.
- ``partial_match(pattern, data)``: the ``regex`` module's
  ``fullmatch(..., partial=True)``: is ``data`` a prefix of some member?
- ``check_document(schema, text)``: a ``DocumentVerdict`` from ``json.loads``, a
  ``jsonschema`` Draft 2020-12 validator, compactness and property order.

Where ``regex`` partial matching is wrong (verified with regex 2026.5.9; the
project pins ``regex>=2023.0,<2027`` and ``test_stdlib.py`` re-checks the facts
below against the installed version, so an upgrade that changes them fails a
test instead of silently changing the oracle):

- It answers "partial" whenever the text runs out before the match has failed,
  without asking whether the rest of the pattern can match anything. So a pattern
  whose remaining part has an empty language still answers partial:
  ``[^\\x00-\\xff]`` on ``b""``, ``a[^\\x00-\\xff]`` on ``b"a"``, and even the live
  ``a|b[^\\x00-\\xff]`` on ``b"b"``. Use ``partial_match`` only on patterns with no
  sub-pattern of empty language (in our subset: no class that matches no byte,
  such as ``[^\\x00-\\xff]`` or ``[^\\d\\D]``). The derivative oracle's ``viable`` is
  right on all of them.
- Not only partial matching: a negated class holding a shorthand and its own
  complement (``[^\\d\\D]``, ``[^\\w\\W]``, ``[^\\s\\S]``, with or without other
  items) matches *every* byte in ``regex``, where ``re`` (and logic) matches none:
  ``regex.fullmatch(rb"[^\\d\\D]", b"a")`` is a match. ``[^\\x00-\\xff]`` is read
  right. Same precondition: no empty class.

Where ``re`` is right but slow: it backtracks exponentially on nested unbounded
repeats whose body can match the empty string, e.g.
``re.fullmatch(rb"(?:(?:[\\r]||){4,}){4,}", b"x")`` takes ~10 s and
``(?:(?:(?:){4,}){4,}){4,}`` over 4 minutes (found by Hypothesis through
``strategies.pattern_trees``; ``regex`` needs 0.2 s, the derivative oracle
microseconds). Nesting is not needed: one star over an ambiguous body is enough,
``(?:(?:a|a|a)(?:a|a|a|))*x`` takes ``re`` 96 s on ``b"a" * 14``, and Hypothesis drew
``(?:(?:.|){3,}){0,}(?:a|.)(?:\xfb.|a|\t{1})`` (run seed 3181658317): 0.2 s on 7 bytes,
12 s on 9. ``regex`` backtracks too (the same pattern runs past 5 s on 14 bytes). No
structural rule keeps them all out, so code that asks Python about *generated* patterns
asks through ``within_cpu``: the answer, or ``None`` (no opinion) once the call has used
``CPU_SECONDS`` of CPU time. Both engines look for signals while they backtrack, so a
CPU-time interval timer (``ITIMER_PROF``) stops them; the budget is CPU time, so a busy
machine does not change which calls get an answer.

Example::

    >>> fullmatch("ab?", b"ab"), partial_match("ab?c", b"ab"), partial_match("ab", b"b")
    (True, True, False)
    >>> check_document({"type": "object", "properties": {"a": {"type": "integer"}}},
    ...                '{"a":1}').ok
    True
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import signal
import threading
from typing import TYPE_CHECKING, Any

import regex

if TYPE_CHECKING:
    import jsonschema

__all__ = ["fullmatch", "partial_match", "within_cpu", "CPU_SECONDS", "DocumentVerdict",
           "check_document", "schema_validator", "compact_dump"]


def _pattern_bytes(pattern: str) -> bytes:
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
    try:
        return pattern.encode("ascii")
    except UnicodeEncodeError as e:
        raise ValueError(f"non-ASCII character {pattern[e.start]!r} at offset {e.start}") from None


def _data_bytes(data) -> bytes:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    return bytes(data)


def fullmatch(pattern: str, data: bytes) -> bool:
    """Return True if and only if ``re.fullmatch`` matches ``data`` with the
    pattern's ASCII bytes. Raises ValueError (from ``re.error``) for a malformed
    pattern; any Python regex is answered, not only our subset."""
    try:
        return re.fullmatch(_pattern_bytes(pattern), _data_bytes(data)) is not None
    except re.error as e:
        raise ValueError(f"re refuses the pattern: {e}") from None


def partial_match(pattern: str, data: bytes) -> bool:
    """Return True if and only if ``regex.fullmatch(..., partial=True)`` answers:
    ``data`` is a member, or a prefix of one. Only meaningful when no sub-pattern
    has an empty language (see the module docstring)."""
    try:
        return _partial_regex(_pattern_bytes(pattern)).fullmatch(_data_bytes(data), partial=True) is not None
    except regex.error as e:
        raise ValueError(f"regex refuses the pattern: {e}") from None


@functools.lru_cache(maxsize=256)
def _partial_regex(pattern: bytes):
    """``regex.compile(pattern)``, kept: ``partial_match`` is asked thousands of prefixes of a few
    dozen patterns (test_every_state_is_live), and ``regex``'s own cache lookup cost more than the match."""
    return regex.compile(pattern)


CPU_SECONDS = 1.0
"""CPU seconds ``within_cpu`` gives one question to Python by default. A sane call on the
differential tests' short strings takes microseconds; the exponential ones above take
seconds to hours, so nothing between is lost."""


class _OverBudget(Exception):
    """Raised by the interval timer's handler inside the call ``within_cpu`` bounds."""


def within_cpu(function, *args, seconds: float = CPU_SECONDS):
    """``function(*args)``, or ``None`` if it ran ``seconds`` of this process's CPU time
    (``ITIMER_PROF``) without returning: Python has no opinion then, never a wrong one.

    For ``fullmatch``, ``partial_match`` or any code built on them, on generated patterns
    (see the module docstring), e.g. ``within_cpu(fullmatch, pattern, data)``. The main
    thread only (the timer's signal is handled there): elsewhere a ``RuntimeError``. Any
    other exception of ``function`` propagates; an interval timer of the caller's is
    put back, stopped while the call ran.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"seconds must be a number, not {type(seconds).__name__}")
    if not 0 < seconds < float("inf"):
        raise ValueError(f"seconds must be positive and finite, not {seconds!r}")
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("within_cpu runs in the main thread only (its timer's signal is handled there)")
    armed = [True]

    def on_timer(signum, frame):
        if armed[0]:  # a signal that arrives after the call returned is ignored
            raise _OverBudget

    previous = signal.signal(signal.SIGPROF, on_timer)
    outer = signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        try:
            return function(*args)
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_PROF, 0)
    except _OverBudget:
        return None
    finally:
        signal.signal(signal.SIGPROF, previous)
        if outer[0] > 0:
            signal.setitimer(signal.ITIMER_PROF, *outer)


# ---------------------------------------------------------------------------------
# Documents
# ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class DocumentVerdict:
    """What the stdlib says about one document under one schema.

    - ``parses``: the text is UTF-8 and ``json.loads`` reads it (NaN and Infinity,
      which Python accepts and JSON does not, are refused);
    - ``valid``: the value satisfies the schema under Draft 2020-12 (False when it
      does not parse);
    - ``compact``: the text equals ``compact_dump`` of its value: no whitespace, and
      every value spelled as Python writes it (so ``"\\u0041"``, ``"\\/"``, ``1E5``,
      ``1.50`` and ``-0`` are *not* compact although the schema regex's language
      contains them; nor is ``1e999``, which Python reads as ``inf`` and would
      write as ``Infinity``, not JSON at all);
    - ``ordered``: in every object the schema describes with ``properties``, the
      keys appear at most once and in the order of ``properties`` (recursively);
    - ``reason``: the failed checks, in words ("" when ``ok``).

    ``valid`` is jsonschema's meaning, wider than the schema subset's language:
    e.g. ``1.0`` is a valid ``integer`` (Draft 2020-12) that the subset's integer
    pattern ``-?(0|[1-9][0-9]*)`` does not match.
    """

    parses: bool
    valid: bool
    compact: bool
    ordered: bool
    reason: str = ""

    @property
    def ok(self) -> bool:
        """True iff the document parses, validates, is compact and is ordered."""
        return self.parses and self.valid and self.compact and self.ordered


def compact_dump(value: Any) -> str:
    """Python's compact JSON: ``json.dumps(value, separators=(",", ":"),
    ensure_ascii=False)``, e.g. ``{"a":[1,2.5,"é"]}``."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_VALIDATORS: dict[str, jsonschema.Draft202012Validator] = {}
MAX_VALIDATORS = 256
"""Validators kept by ``schema_validator`` (checking a schema against the metaschema costs
some 7 ms, and a test checks many documents under one schema); the memo is emptied when full."""


def _jsonschema():
    """The ``jsonschema`` module, imported on first use: a grader process whose tests judge no
    JSON document (half of ``check``'s catalogue) does not pay its import (~0.1 CPU s)."""
    import jsonschema

    return jsonschema


def schema_validator(schema: dict) -> jsonschema.Draft202012Validator:
    """A Draft 2020-12 validator for ``schema``; ValueError when the schema itself is
    not a valid Draft 2020-12 schema, TypeError when it is not a dict or bool. A schema
    that JSON writes and reads back unchanged is checked once: its validator is kept, built
    from that copy (so a caller changing its schema later changes nothing kept)."""
    if not isinstance(schema, (dict, bool)):
        raise TypeError(f"schema must be a dict, not {type(schema).__name__}")
    key = _schema_key(schema)
    if key is not None and key in _VALIDATORS:
        return _VALIDATORS[key]
    jsonschema = _jsonschema()
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise ValueError(f"not a Draft 2020-12 schema: {e.message}") from None
    if key is None:
        return jsonschema.Draft202012Validator(schema)
    if len(_VALIDATORS) >= MAX_VALIDATORS:
        _VALIDATORS.clear()
    validator = _VALIDATORS[key] = jsonschema.Draft202012Validator(json.loads(key))
    return validator


def _schema_key(schema) -> str | None:
    """``schema``'s JSON text when reading it back gives an equal schema of JSON's own types
    (no tuple, no non-string key, no NaN), else None (not kept)."""
    try:
        key = json.dumps(schema)
        return key if _same_json(json.loads(key), schema) else None
    except (TypeError, ValueError, RecursionError):
        return None


def _same_json(copy, value) -> bool:
    """Whether ``value`` equals its JSON copy with the same types throughout (``True`` is no ``1``)."""
    if type(value) is not type(copy):
        return False
    if isinstance(value, dict):
        return value.keys() == copy.keys() and all(_same_json(copy[k], v) for k, v in value.items())
    if isinstance(value, list):
        return len(value) == len(copy) and all(_same_json(c, v) for c, v in zip(copy, value))
    return value == copy


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _load(text: str):
    """(value with dicts, value with key lists) or raise ValueError."""
    pairs = json.loads(text, object_pairs_hook=_Pairs, parse_constant=_refuse_constant)
    return _plain(pairs), pairs


class _Pairs(list):
    """An object as its (key, value) pairs in document order, duplicates kept."""


def _plain(value):
    if isinstance(value, _Pairs):
        return {k: _plain(v) for k, v in value}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def check_document(schema: dict, text: bytes | str) -> DocumentVerdict:
    """The stdlib's verdict on ``text`` under ``schema`` (see ``DocumentVerdict``).

    Example: ``check_document(s, '{"b":1,"a":2}')`` with properties ``a, b`` is
    ``parses=True, valid=True, compact=True, ordered=False``.
    """
    validator = schema_validator(schema)
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            return DocumentVerdict(False, False, False, False, f"not UTF-8: {e.reason} at byte {e.start}")
    elif not isinstance(text, str):
        raise TypeError(f"text must be bytes or str, not {type(text).__name__}")
    try:
        value, pairs = _load(text)
    except (ValueError, RecursionError) as e:
        return DocumentVerdict(False, False, False, False, f"does not parse: {e}")
    error = next(iter(validator.iter_errors(value)), None)
    valid = error is None
    compact = text == compact_dump(value)
    disorder = _disorder(schema, pairs, "")
    reasons = []
    if not valid:
        reasons.append(f"invalid at /{'/'.join(map(str, error.absolute_path))}: {error.message}")
    if not compact:
        reasons.append(f"not compact: Python writes {_clip(compact_dump(value))}")
    if disorder:
        reasons.append(disorder)
    return DocumentVerdict(True, valid, compact, not disorder, "; ".join(reasons))


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "..."


def _disorder(schema, value, pointer: str) -> str:
    """"" if ``value`` is ordered under ``schema``, else where it is not.

    Objects: keys listed in ``properties`` appear at most once and in that order
    (keys not listed are the validator's business). Arrays: each item under
    ``items``. ``anyOf``: ordered under at least one branch the value validates
    against (before a finding of tests/differential/test_differential_schemas.py: under any
    branch, so a string branch "ordered" every object). Anything else: ordered.
    """
    if not isinstance(schema, dict):
        return ""
    if "anyOf" in schema and isinstance(schema["anyOf"], list):
        # ordered under a branch the value fits (a string branch does not "order" an
        # object); when no branch fits, validity already reports the document
        branches = [b for b in schema["anyOf"] if _fits(b, value)] or schema["anyOf"]
        found = [_disorder(branch, value, pointer) for branch in branches]
        if found and all(found):
            return found[0]
    if isinstance(value, _Pairs):
        return _object_disorder(schema, value, pointer)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            found = _disorder(schema["items"], item, f"{pointer}/{i}")
            if found:
                return found
    return ""


def _fits(schema, value) -> bool:
    """Return True if and only if ``value`` (pairs form) validates against ``schema``."""
    jsonschema = _jsonschema()
    try:
        return jsonschema.Draft202012Validator(schema).is_valid(_plain(value))
    except jsonschema.exceptions.SchemaError:
        return False


def _object_disorder(schema: dict, pairs: _Pairs, pointer: str) -> str:
    props = schema.get("properties")
    if not isinstance(props, dict):
        return ""
    rank = {name: i for i, name in enumerate(props)}
    last, seen = -1, set()
    for key, item in pairs:
        if key in seen:
            return f"key {key!r} repeated at {pointer or '/'}"
        seen.add(key)
        if key in rank:
            if rank[key] < last:
                return f"key {key!r} out of the schema's order at {pointer or '/'}"
            last = rank[key]
            found = _disorder(props[key], item, f"{pointer}/{key}")
            if found:
                return found
    return ""
