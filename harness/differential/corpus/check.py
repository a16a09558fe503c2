"""One schema of a collection: compiled or refused by name, sound, complete, and the peers.

Main access point: the task function ``check_entry(payload)`` (an ``Entry.payload()``
plus ``seed``, ``walks`` and ``peers``), returning the entry's record.

Steps (what decides meaning is ``oracles.automaton``, ``jsonschema`` and ``json``; this
module only drives them):

1. **bounds**: a schema over ``MAX_SCHEMA_BYTES`` (16 KiB of compact JSON, the reference
   server's bound ``harness.server.reference.app.MAX_SCHEMA_BYTES``) is refused ``SchemaTooLarge``
   before it is compiled;
2. **compile**: ``json_schema_to_regex`` then ``regex_to_dfa``. The outcome is
   ``compiled``, or ``refused`` with the error's class and the keyword it names
   (``reason``, e.g. ``SchemaUnsupported: $ref``), or ``over budget`` when compiling took
   more than ``COMPILE_BUDGET_SECONDS`` CPU seconds (the server's budget, 4 s): also a
   refusal by name. Anything else (a ``RecursionError``, a ``MemoryError``, any exception
   that is not a ``ValueError``) is outcome ``crash``: a finding;
3. **soundness**: ``walks`` seeded random members of the DFA (``harness.differential.sweep.walks``),
   each parsed by ``json.loads`` and validated by ``jsonschema`` (the validator of the
   schema's own ``$schema``, Draft 2020-12 by default): ``unsound`` counts those that
   fail, with the first as witness;
4. **completeness** on the record's instances, in the spec's reading: a ``valid`` instance
   (``jsonschema`` asked again: ``mislabelled`` when it disagrees with the record) is
   re-serialised with its object keys in the declared ``properties`` order and as compact
   JSON; ``outside reading`` when it has a key the schema does not declare (the spec's
   objects are closed), else ``accepted``, or one of the documented narrowings
   (``integral float``: ``1.0`` for an integer; ``raw DEL``; ``enum spelling``: an enum
   or const value equal for JSON Schema but spelled otherwise), else ``rejected``: a
   finding. An ``invalid`` instance must be rejected: ``invalid accepted`` is a finding;
   and, whatever the outcome, ``outside``: every keyword of the schema outside the subset
   (``keywords_outside``), so the report can rank what the subset would have to grow to
   cover (a refusal names only the first keyword the reference meets);
5. **peers** (``--peers``): each peer compiles the schema (outcome and seconds), the time to
   its first mask (compile + mask of the empty prefix) and the time of each mask along the
   first valid instance (tokenized greedily over the golden files' 123-token vocabulary;
   each ``allowed(prefix)`` call replays the prefix, so it is an upper bound of the
   incremental cost), and its answers on the same re-serialised instances (a difference
   from ours is listed with the instance and the record's label), and on generated documents
   (``generated_documents``: walks of our DFA with one-byte edits, or drawn instances where
   ours refuses the schema); a document counts only where ours and ``jsonschema`` agree on it
   (``_expected_answers``), and a rejection the peer's documented design explains (layout,
   key order, closed objects) is counted under ``explained``, not as a difference. Each peer runs in a
   child process of its own (``harness.peers.isolation``: ``peer_row``, data in and out, under
   CPU and memory limits), ended when it takes more than ``PEER_TIMEOUT_SECONDS`` (wall) on
   one schema or dies: a row "timeout", "crash", "cpu limit" or "memory limit", and the run
   goes on.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time

import jsonschema
import numpy as np

from harness.differential.sweep.schemas import integral_floats_as_ints
from harness.differential.sweep.walks import random_members
from oracles.automaton import json_schema_to_regex, regex_to_dfa

__all__ = ["MAX_SCHEMA_BYTES", "COMPILE_BUDGET_SECONDS", "MAX_MASK_STEPS", "check_entry", "reason_of", "in_reading"]

MAX_SCHEMA_BYTES = 16 << 10
"""The bound on a schema's compact JSON (the reference server's ``MAX_SCHEMA_BYTES``)."""
COMPILE_BUDGET_SECONDS = 4.0
"""CPU seconds a schema may take to compile (the reference server's ``decode.COMPILE_BUDGET_SECONDS``)."""
MAX_MASK_STEPS = 32
"""Masks timed per peer and schema (the first tokens of the first valid instance)."""
WALK_MAX_LEN = 400
PEER_TIMEOUT_SECONDS = 120.0
"""Wall seconds a peer may take on one schema (a backstop: MaskBench allowed 15 minutes)."""


class OutsideReading(ValueError):
    """An instance the spec's reading leaves out (a key the schema does not declare)."""


def check_entry(payload: dict) -> dict:
    """Task function: the record of one collection entry (module docstring)."""
    record = {"id": payload["id"], "source": payload["source"], "outcome": "", "reason": "", "compile_seconds": 0.0,
              "states": 0, "walks": 0, "unsound": 0, "unsound_witness": None, "instances": {}, "findings": [],
              "peers": {}}
    if payload.get("error"):
        record.update(outcome="unreadable", reason=payload["error"])
        return record
    schema = payload["schema"]
    record["outside"] = keywords_outside(schema)
    dfa = _compile(schema, record)
    try:
        if dfa is not None:
            rng = np.random.default_rng([int(payload["seed"]), _stable_hash(payload["id"])])
            _soundness(schema, dfa, rng, int(payload["walks"]), record)
            _completeness(schema, dfa, payload["tests"], record)
        if payload.get("peers"):
            rng = np.random.default_rng([int(payload["seed"]), _stable_hash(payload["id"]), 1])
            record["peers"] = _peers(schema, payload["tests"], payload["peers"], dfa, rng)
    except Exception as exc:  # the harness's own failure on this entry: a finding, and the run goes on
        record["findings"].append(f"harness error: {type(exc).__name__}: {' '.join(str(exc).split())[:160]}")
    return record


def _stable_hash(text: str) -> int:
    return int.from_bytes(text.encode("utf-8")[-64:].ljust(8, b"\0")[:8], "little") ^ len(text)


ACCEPTED_ANNOTATIONS = frozenset({"$schema", "$comment", "examples", "default"})
"""Annotations that constrain nothing, accepted beside the spec's ``title`` and ``description``
(the contract's decision ``annotations_accepted``, ``harness/contract/constrain.pyi``)."""
SUBSCHEMA_MAPS = ("properties", "definitions", "$defs", "patternProperties", "dependentSchemas")
SUBSCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
SUBSCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "additionalItems",
                 "propertyNames", "unevaluatedProperties", "unevaluatedItems")


def keywords_outside(schema) -> list[str]:
    """Every keyword of ``schema`` and its subschemas outside the spec's subset
    (``facts.constructs``: the subset's keywords and annotations, and ``ACCEPTED_ANNOTATIONS``),
    each once, sorted;
    ``additionalProperties`` counts only when it is not ``false``. Walks the subschema
    positions of JSON Schema (``SUBSCHEMA_*``), iteratively (no recursion however deep)."""
    from facts.constructs import SCHEMA_ANNOTATIONS, SCHEMA_KEYWORDS
    inside = SCHEMA_KEYWORDS | SCHEMA_ANNOTATIONS | ACCEPTED_ANNOTATIONS
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if key == "additionalProperties" and value is False:
                continue
            if key not in inside or key == "additionalProperties":
                found.add(key)
            if key in SUBSCHEMA_MAPS and isinstance(value, dict):
                stack += list(value.values())
            elif key in SUBSCHEMA_LISTS and isinstance(value, list):
                stack += value
            elif key in SUBSCHEMA_ONE:
                stack += value if isinstance(value, list) else [value]
    return sorted(found)


def _compile(schema, record: dict):
    size = len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    if size > MAX_SCHEMA_BYTES:
        record.update(outcome="refused", reason=f"SchemaTooLarge: over {MAX_SCHEMA_BYTES // 1024} KiB")
        return None
    start = time.thread_time()
    try:
        dfa = regex_to_dfa(json_schema_to_regex(schema))
    except ValueError as exc:
        record.update(outcome="refused", reason=reason_of(exc))
        return None
    except Exception as exc:  # a crash or a resource error: a finding
        record.update(outcome="crash", reason=f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}")
        record["findings"].append(f"crash: {record['reason']}")
        return None
    finally:
        record["compile_seconds"] = round(time.thread_time() - start, 6)
    record["states"] = dfa.n_states
    if record["compile_seconds"] > COMPILE_BUDGET_SECONDS:
        record.update(outcome="refused", reason=f"over budget: more than {COMPILE_BUDGET_SECONDS:g} CPU s")
        return None
    record["outcome"] = "compiled"
    return dfa


_KEYWORD = re.compile(r"keyword '([^']+)'")
_KNOWN = [("additionalProperties other than false", "additionalProperties (not false)"),
          ("a list of types", "type: a list"), ("an empty schema", "{} (any value)"),
          ("needs 'items'", "array without items"), ("boolean schema", "boolean schema"),
          ("is not in properties", "required: not in properties"), ("enum and const together", "enum beside const"),
          ("greater than maxItems", "minItems > maxItems"), ("is not of type", "enum value of another type"),
          ("MAX_REGEX_LENGTH", "regex over MAX_REGEX_LENGTH"), ("MAX_DEPTH", "nesting over MAX_DEPTH"),
          ("MAX_ENUM_VALUES", "enum over MAX_ENUM_VALUES"), ("MAX_ITEMS_BOUND", "items bound over MAX_ITEMS_BOUND"),
          ("MAX_DFA_STATES", "DFA states over MAX_DFA_STATES"), ("MAX_NFA_STATES", "NFA over MAX_NFA_STATES")]


def reason_of(exc: ValueError) -> str:
    """``Class: keyword`` for a refusal, e.g. ``SchemaUnsupported: $ref``; the keyword is
    the one the message names, else a short name for the known messages, else the
    message with its specifics (quoted text, numbers) cut."""
    message = str(exc)
    found = _KEYWORD.search(message)
    if found:
        what = found.group(1)
    else:
        what = next((name for text, name in _KNOWN if text in message), "")
        if not what:
            body = message.split(": ", 1)[-1] if message.startswith("/") else message
            what = re.sub(r"\d+", "N", re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", body))[:60]
    return f"{type(exc).__name__}: {what}"


def _validator(schema):
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


def _soundness(schema, dfa, rng, walks: int, record: dict) -> None:
    validator = _validator(schema)
    for doc in random_members(dfa.trans, dfa.accept, rng, walks, WALK_MAX_LEN):
        record["walks"] += 1
        why = _unsound(validator, doc)
        if why:
            record["unsound"] += 1
            if record["unsound_witness"] is None:
                record["unsound_witness"] = {"doc": doc.decode("utf-8", errors="backslashreplace"), "why": why}
                record["findings"].append(f"unsound: {doc[:120]!r}: {why}")


def _unsound(validator, doc: bytes) -> str:
    try:
        value = json.loads(doc.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        return f"does not parse: {exc}"
    error = next(iter(validator.iter_errors(value)), None)
    return "" if error is None else f"invalid: {error.message[:160]}"


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def in_reading(schema, value):
    """``value`` with its object keys in the schema's declared order (``anyOf``: the first
    branch it is valid for); ``OutsideReading`` for a key the schema does not declare."""
    if not isinstance(schema, dict):
        return value
    if "anyOf" in schema:
        for branch in schema["anyOf"]:
            if _validator(branch).is_valid(value):
                return in_reading(branch, value)
        return value
    if isinstance(value, dict) and schema.get("type") == "object":
        props = schema.get("properties", {})
        extra = [k for k in value if k not in props]
        if extra:
            raise OutsideReading(f"key {extra[0]!r} is not declared")
        return {k: in_reading(props[k], value[k]) for k in props if k in value}
    if isinstance(value, list) and schema.get("type") == "array":
        return [in_reading(schema.get("items"), v) for v in value]
    return value


def compact(value) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _completeness(schema, dfa, tests: list[dict], record: dict) -> None:
    validator = _validator(schema)
    counts = record["instances"]
    for test in tests:
        value, labelled = test["data"], bool(test["valid"])
        valid = validator.is_valid(value)
        if valid != labelled:
            key = "mislabelled"
        elif not valid:
            key = "invalid accepted" if dfa.matches(compact(value)) else "invalid rejected"
        else:
            key = _valid_instance(schema, dfa, value)
        counts[key] = counts.get(key, 0) + 1
        if key in ("rejected", "invalid accepted") and len(record["findings"]) < 5:
            record["findings"].append(f"{key}: {compact(value)[:160]!r}")


def _valid_instance(schema, dfa, value) -> str:
    try:
        doc = compact(in_reading(schema, value))
    except OutsideReading:
        return "outside reading"
    if dfa.matches(doc):
        return "accepted"
    if b"\x7f" in doc:
        return "raw DEL"
    if dfa.matches(compact(integral_floats_as_ints(json.loads(doc)))):
        return "integral float"
    if _enum_respelled(schema):
        return "enum spelling"
    return "rejected"


def _enum_respelled(schema) -> bool:
    """True iff the schema holds an enum/const value whose JSON Schema equality is wider
    than its spelling: a float (``0.0`` equals ``0``) or an object of two or more keys
    (any key order is equal)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            values = list(node.get("enum", []) if isinstance(node.get("enum"), list) else [])
            values += [node["const"]] if "const" in node else []
            if any(_respellable(v) for v in values):
                return True
            stack += [v for k, v in node.items() if k not in ("enum", "const")]
        elif isinstance(node, list):
            stack += node
    return False


def _respellable(value) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return len(value) > 1 or any(_respellable(v) for v in value.values())
    if isinstance(value, list):
        return any(_respellable(v) for v in value)
    return False


PEER_WALKS = 8
"""Generated documents each peer is asked beyond the record's instances: walks of our DFA
(each with three one-byte edits), or, for a schema ours refuses, drawn instances."""


def _peers(schema, tests: list[dict], names: list[str], ours_dfa, rng=None) -> dict:
    """Each peer (isolated) on the record's instances in the reading and on generated
    documents (``generated_documents``); a peer differs only where ours and ``jsonschema``
    agree on the document (or only one of them can answer) and the peer says otherwise."""
    from harness.peers import available_peers

    loaded, missing = available_peers(names, limits=_peer_limits())
    out = {name: {"available": False, "reason": reason} for name, reason in missing.items()}
    if not loaded:
        return out
    docs = []
    for test in tests:
        try:
            docs.append((compact(in_reading(schema, test["data"])), bool(test["valid"])))
        except (OutsideReading, ValueError, TypeError):
            continue
    docs += [(doc, None) for doc in generated_documents(schema, ours_dfa, rng or np.random.default_rng(0))]
    expected = _expected_answers(schema, ours_dfa, [doc for doc, _ in docs])
    docs = [(doc, bool(e) if valid is None else valid) for (doc, valid), e in zip(docs, expected)]
    for peer in loaded:
        row = out[peer.name] = _peer_in_child(peer.name, schema, docs, expected)
        if not row["compiled"] and not row.get("failure") and _valid_schema(schema, ours_dfa):
            from harness.peers.findings import FAILED_ON_VALID, is_unsupported
            row["failure"] = "unsupported" if is_unsupported(row["reason"]) else FAILED_ON_VALID
        finding = peer_finding(peer.name, schema, row, ours_dfa is not None)
        if finding is not None:
            from harness.peers.reproduce import reproducer
            row["reproducer"] = reproducer(finding)
    return out


MAX_WITNESS_BYTES = 1 << 16
"""A peer difference's document is kept whole up to this many bytes (its reproducer's witness)."""


def peer_finding(name: str, schema, row: dict, ours_compiled: bool):
    """The ``harness.peers.findings.Finding`` of a peer's row, or None: its failure (a crash,
    a hang, a limit, an exception, a refusal of a valid schema), else its first document that
    differs from the oracles (ours and ``jsonschema``, where both answer, agree on it)."""
    from harness.peers.base import Source
    from harness.peers.findings import KINDS, WRONG_ANSWER, Finding

    source = Source.schema(schema) if isinstance(schema, dict) else Source("schema", json.dumps(schema))
    version = row.get("version", "?")
    if row.get("failure") in KINDS:
        valid = "ours compiles it" if ours_compiled else "jsonschema's metaschema accepts it"
        return Finding(name, version, row["failure"], source, "compile", row.get("reason", ""), None,
                       {"valid": valid})
    d = row.get("difference")
    if not row.get("differences") or not d or "witness" not in d:
        return None
    judges = "ours and jsonschema" if ours_compiled else "jsonschema"
    return Finding(name, version, WRONG_ANSWER, source, "accepts", "accepts" if d["peer"] else "rejects",
                   bytes(d["witness"]), {judges: d["ours"]},
                   f"{row['differences']} document(s) of this schema differ from the oracles; the first shown")


def generated_documents(schema, ours_dfa, rng) -> list[bytes]:
    """``PEER_WALKS`` walks of our DFA and their one-byte edits (``harness.peers.given``), or,
    where ours refuses the schema, drawn instances in three serialisations."""
    from harness.peers.given import one_byte_edits, serialisations
    from harness.peers.instances import schema_instances

    if ours_dfa is not None:
        docs = []
        for walk in random_members(ours_dfa.trans, ours_dfa.accept, rng, PEER_WALKS, WALK_MAX_LEN):
            docs += [walk, *one_byte_edits(walk, rng)]
        return list(dict.fromkeys(docs))
    if not isinstance(schema, dict):
        return []
    return serialisations(schema_instances(schema, int(rng.integers(1 << 31)), PEER_WALKS))


def _expected_answers(schema, ours_dfa, docs: list[bytes]) -> list:
    """Per document: the answer ours and ``jsonschema`` agree on (or the one that answers);
    None where they differ (the reading: whitespace, key order, a narrowing), not compared."""
    from harness.peers.base import PeerRefused, Source
    from harness.peers.given import judge

    try:
        judged = judge(Source.schema(schema) if isinstance(schema, dict) else Source("schema", json.dumps(schema)))
    except (PeerRefused, ValueError, TypeError):
        judged = None
    out = []
    for doc in docs:
        o = None if ours_dfa is None else bool(ours_dfa.matches(doc))
        j = None if judged is None else judged.accepts(doc)
        out.append(o if j is None else j if o is None else o if o == j else None)
    return out


def _valid_schema(schema, ours_dfa) -> bool:
    """Return True if and only if ``schema`` is valid: ours compiled it, or it passes its
    metaschema (``jsonschema``'s ``check_schema``)."""
    if ours_dfa is not None:
        return True
    if not isinstance(schema, (dict, bool)):
        return False
    try:
        jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator).check_schema(schema)
    except (jsonschema.exceptions.SchemaError, jsonschema.exceptions.UnknownType):
        return False
    return True


def _peer_in_child(name: str, schema, docs: list, ours: list) -> dict:
    """``peer_row`` in the peer's child process (``harness.peers.isolation``), under its CPU,
    memory and wall limits (wall: ``PEER_TIMEOUT_SECONDS``): a peer that hangs, crashes or
    runs past a limit costs its row only, which says so, and the run goes on."""
    from harness.peers.isolation import PeerFailed, isolated_peer

    try:
        peer = isolated_peer(name, _peer_limits())
        return peer.call("harness.differential.corpus.check:peer_row", name, schema, docs, ours)
    except PeerFailed as exc:
        what = "timeout" if exc.kind == "hang" else exc.kind
        return {**_empty_row(), "reason": f"{what}: {exc.detail[:300]}", "failure": exc.kind,
                "version": exc.version}


def _peer_limits():
    from harness.peers.isolation import DEFAULT_LIMITS
    return dataclasses.replace(DEFAULT_LIMITS, wall_seconds=PEER_TIMEOUT_SECONDS)


def _empty_row() -> dict:
    return {"available": True, "compiled": False, "reason": "", "compile_seconds": None,
            "first_mask_seconds": None, "mask_seconds": [], "differences": 0, "difference": None}


def _vocabulary():
    from golden.cases import CONSTRAIN_EOS, CONSTRAIN_VOCAB
    return list(CONSTRAIN_VOCAB), CONSTRAIN_EOS


def peer_row(name: str, schema, docs: list, ours: list) -> dict:
    """One peer on one schema (runs in the peer's child process): compile outcome and
    seconds, time to first mask, per-mask times along the first valid instance, and its
    answers on ``docs`` against ``ours`` (our DFA's answers; None where we refused)."""
    from harness.peers import load_peer
    from harness.peers.base import Source

    row = _empty_row()
    if not isinstance(schema, dict):
        row["reason"] = "not an object schema"
        return row
    peer = load_peer(name)
    row["version"] = peer.version
    vocab, eos_id = _vocabulary()
    start = time.perf_counter()
    try:
        compiled = peer.compile(Source.schema(schema))
        row["compile_seconds"] = round(time.perf_counter() - start, 6)
        masker = compiled.masker(vocab, eos_id) if peer.can_mask else None
        if masker is not None:
            masker.allowed([])
            row["first_mask_seconds"] = round(time.perf_counter() - start, 6)
    except ValueError as exc:
        row["reason"] = " ".join(str(exc).split())[:160]
        return row
    except Exception as exc:  # a peer's exception is listed as its outcome, never ours
        row.update(reason=f"{type(exc).__name__}: {' '.join(str(exc).split())[:120]}", failure="raised")
        return row
    row["compiled"] = True
    valid_docs = [doc for doc, valid in docs if valid]
    if valid_docs and masker is not None:
        ids = _greedy_tokens(valid_docs[0], vocab, eos_id)
        for k in range(1, min(len(ids), MAX_MASK_STEPS) + 1):
            tick = time.perf_counter()
            masker.allowed(ids[:k])
            row["mask_seconds"].append(round(time.perf_counter() - tick, 7))
    row["explained"] = {}
    for (doc, valid), our_answer in zip(docs, ours):
        if our_answer is None:
            continue
        theirs = compiled.accepts(doc)
        explained = _explained(compiled, schema, doc) if our_answer and not theirs else None
        if explained:
            row["explained"][explained] = row["explained"].get(explained, 0) + 1
        elif theirs != our_answer:
            row["differences"] += 1
            if row["difference"] is None:
                row["difference"] = {"doc": doc.decode("utf-8", errors="backslashreplace")[:200],
                                     "peer": theirs, "ours": our_answer, "labelled_valid": valid,
                                     "witness": list(doc[:MAX_WITNESS_BYTES])}
    return row


def _explained(compiled, schema, doc: bytes) -> str | None:
    """The class of a valid document the peer rejects by its documented design (layout, key
    order, closed objects: ``harness.peers.classify``'s judged predicates), or None."""
    from harness.peers.classify import judged_extra_keys, judged_whitespace, key_order

    found = judged_whitespace(compiled, doc) or key_order(compiled, schema, doc) or judged_extra_keys(
        compiled, schema, doc)
    return found[0] if found else None


def _greedy_tokens(doc: bytes, vocab, eos_id) -> list[int]:
    ids = {tok: i for i, tok in enumerate(vocab) if tok and i != eos_id}
    longest = max(len(t) for t in ids)
    out, i = [], 0
    while i < len(doc):
        for n in range(min(longest, len(doc) - i), 0, -1):
            if doc[i:i + n] in ids:
                out.append(ids[doc[i:i + n]])
                i += n
                break
        else:
            break  # a byte no token spells: stop the path here
    return out
